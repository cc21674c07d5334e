// Binder: types, literal typing, SQL's implicit numeric casts, nullability and folding; its errors point
// at the text they are about (ir layer).
#include "ir/binder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/ranges.h>

#include "ir/aggregate.h"
#include "ir/analysis.h"
#include "ir/binder_internal.h"
#include "ir/construct.h"
#include "ir/decimal.h"
#include "ir/function.h"
#include "ir/function_internal.h"
#include "ir/list_functions.h"
#include "ir/parser.h"
#include "ir/promotion.h"
#include "ir/temporal.h"
#include "runtime/builder.h"
#include "runtime/deep_stack.h"
#include "runtime/suggest.h"

namespace rowjit::ir {
namespace {

using internal::At;
using internal::ColumnSuggestion;
using internal::DefaultLiteralType;
using internal::FunctionSuggestion;
using internal::IsUntyped;
using internal::Located;
using internal::LogicalGroup;
using internal::LooksFloat;

class Binder {
 public:
  Binder(const Schema& schema, bool implicit_casts) : schema_(schema), implicit_casts_(implicit_casts) {}

  // `expected`: the type the surrounding call wants for an untyped subtree. An error points at
  // the text of the node it arose in (the innermost: an argument's error at the argument).
  Result<ExprPtr> BindNode(const ExprPtr& e, std::optional<TypeId> expected,
                           std::string_view context) {
    Result<ExprPtr> out = BindKind(e, expected, context);
    if (!out.ok()) return At(*e, std::move(out).TakeError());
    return out;
  }

 private:
  Result<ExprPtr> BindKind(const ExprPtr& e, std::optional<TypeId> expected, std::string_view context) {
    switch (e->kind()) {
      case ExprKind::kColumn: return BindColumn(*e);
      case ExprKind::kLiteral: return BindLiteral(*e, expected, context);
      case ExprKind::kCall: return BindCall(*e, expected);
    }
    return MakeError(ErrorCode::kInternal, "unknown expression kind");
  }

  Result<ExprPtr> BindColumn(const Expr& e) {
    const int index = schema_.FieldIndex(e.name());
    if (index < 0) {
      const std::string hint = ColumnSuggestion(e.name(), schema_);
      if (!hint.empty()) return MakeError(ErrorCode::kInvalidInput, "unknown column '{}'{}", e.name(), hint);
      // Written in double quotes (its text is longer than its name): perhaps meant as a string.
      const bool quoted = e.span().length > e.name().size();
      return MakeError(ErrorCode::kInvalidInput, "unknown column '{}' (the schema has {}){}", e.name(),
                       schema_.ToString(), quoted ? "; a string is written in single quotes: 'text'" : "");
    }
    return Expr::BoundColumn(e.name(), index, schema_.fields[index].type);
  }

  // The type of an untyped number beside operands of the numeric type `expected` under implicit
  // casts: `expected` where it holds the value, else a wider integer (LiteralIntegerType), f64
  // for a number written as a float beside integers, or f64 for one f32 would make infinite;
  // the call's common type then decides.
  static TypeId Widened(const std::string& text, TypeId expected) {
    if (IsFloat(expected)) {
      auto narrow = ParseScalar(TypeId::kF32, text);
      auto wide = ParseScalar(TypeId::kF64, text);
      const bool overflows = expected == TypeId::kF32 && narrow.ok() && wide.ok() &&
                             std::isinf(narrow->value<float>()) && !std::isinf(wide->value<double>());
      return overflows ? TypeId::kF64 : expected;
    }
    return LooksFloat(text) ? TypeId::kF64 : LiteralIntegerType(text, expected);
  }

  // A vector literal "[x, y, ...]" as a vector of `type`'s elements and size; without a type,
  // of f64 and as many elements as it lists. An element is read in the element type itself (so
  // an f32 element is the f32 nearest its text, not a double rounded twice).
  static Result<Scalar> VectorLiteral(const std::string& text, std::optional<DataType> type) {
    std::vector<std::string_view> items;
    const std::string_view inside = std::string_view(text).substr(1, text.size() - 2);
    for (size_t start = 0;;) {
      const size_t comma = inside.find(',', start);
      std::string_view item = inside.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      items.push_back(item);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (!type) {
      ROWJIT_ASSIGN_OR_RETURN(DataType t, DataType::FixedList(TypeId::kF64, static_cast<int64_t>(items.size())));
      type = t;
    }
    if (static_cast<int64_t>(items.size()) != type->list_size) {
      return MakeError(ErrorCode::kTypeError, "vector literal of {} elements beside a {}", items.size(),
                       type->WithNullable(false).ToString());
    }
    std::string bytes;
    const TypeId elem = type->elem;
    for (std::string_view item : items) {
      const std::string piece(item);
      if (IsHalfWidthFloat(elem)) {  // half width: the double read, rounded once
        auto wide = ParseScalar(TypeId::kF64, piece);
        if (!wide.ok()) return MakeError(ErrorCode::kTypeError, "vector literal element {} is not {}", piece, TypeIdName(elem));
        const double d = wide->value<double>();
        const uint16_t h = elem == TypeId::kBF16 ? Bf16Of(d) : std::bit_cast<uint16_t>(static_cast<_Float16>(d));
        bytes.append(reinterpret_cast<const char*>(&h), 2);
        continue;
      }
      auto value = ParseScalar(elem, piece);
      if (!value.ok() || (IsInteger(elem) && LooksFloat(piece))) {
        return MakeError(ErrorCode::kTypeError, "vector literal element {} is not {}", piece, TypeIdName(elem));
      }
      const uint64_t b = value->bits();
      bytes.append(reinterpret_cast<const char*>(&b), static_cast<size_t>(ByteWidth(elem)));
    }
    return Scalar::Vector(type->WithNullable(false), bytes);
  }

  // s.x (struct_field(s, 'x')): a struct and one of its fields' names, as a string literal. The
  // field's type, nullable where the struct is.
  Result<ExprPtr> BindStructField(const Expr& e, const Function& f) {
    if (e.args().size() != 2) return MakeError(ErrorCode::kInvalidInput, "struct_field takes a struct and a field's name");
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr s, BindNode(e.args()[0], std::nullopt, ""));
    if (s->type().id != TypeId::kStruct) {
      return MakeError(ErrorCode::kTypeError, "a field of {}: {} is {}, not a struct", s->ToString(), s->ToString(),
                       s->type().ToString());
    }
    const Expr& name = *e.args()[1];
    const std::string& text = name.is_literal() ? name.literal_text() : std::string();
    if (text.size() < 2 || text.front() != '\'' || text.back() != '\'') {
      return At(name, MakeError(ErrorCode::kInvalidInput, "struct_field takes a field's name as a string literal: s.x or "
                                                          "struct_field(s, 'x')"));
    }
    ROWJIT_ASSIGN_OR_RETURN(const Scalar field, ParseScalar(TypeId::kUtf8, text));
    const std::vector<StructField>& fields = StructFields(s->type());
    for (size_t i = 0; i < fields.size(); ++i) {
      const StructField& sf = fields[i];
      if (sf.name != field.str()) continue;
      if (IsConstructor(*s)) return s->args()[i];  // struct_pack(x := a).x is a
      const DataType type = sf.type.WithNullable(sf.type.nullable || s->type().nullable);
      return Expr::BoundCall(&f, {s, Expr::BoundLiteral(field)}, std::nullopt, type);
    }
    std::vector<std::string_view> names;
    for (const StructField& sf : fields) names.push_back(sf.name);
    return At(name, MakeError(ErrorCode::kInvalidInput, "{} has no field '{}' (its fields: {}){}", s->ToString(),
                              field.str(), fmt::join(names, ", "), DidYouMean(field.str(), names)));
  }

  // struct_pack(x := a, y := b): each value bound, named by the call (a bare column or field by
  // its own name); every field nullable, as DuckDB's are.
  Result<ExprPtr> BindStructPack(const Expr& e, const Function& f) {
    std::vector<ExprPtr> bound;
    std::vector<StructField> fields;
    for (const ExprPtr& a : e.args()) {
      std::string name;
      ExprPtr value = a;
      if (SurfaceFormOf(*a) == SurfaceForm::kNamed) {
        ROWJIT_ASSIGN_OR_RETURN(const Scalar n, ParseScalar(TypeId::kUtf8, a->args()[0]->literal_text()));
        name = std::string(n.str());
        value = a->args()[1];
      } else if (a->is_column()) {
        name = a->name();
      } else if (a->is_call() && CanonicalName(a->name()) == "struct_field" && a->args().size() == 2 &&
                 a->args()[1]->is_literal()) {
        ROWJIT_ASSIGN_OR_RETURN(const Scalar n, ParseScalar(TypeId::kUtf8, a->args()[1]->literal_text()));
        name = std::string(n.str());
      } else {
        return At(*a, MakeError(ErrorCode::kInvalidInput, "struct_pack names its fields: struct_pack(x := {})", a->ToString()));
      }
      for (const StructField& earlier : fields) {
        if (earlier.name == name) return At(*a, MakeError(ErrorCode::kInvalidInput, "struct_pack names field '{}' twice", name));
      }
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr b, BindNode(value, std::nullopt, ""));
      fields.push_back(StructField{name, b->type().WithNullable(true)});
      bound.push_back(std::move(b));
    }
    ROWJIT_ASSIGN_OR_RETURN(const DataType type, DataType::Struct(fields));
    return Expr::BoundCall(&f, std::move(bound), std::nullopt, type);
  }

  // map(keys, values): two lists (a list literal [..] among them).
  Result<ExprPtr> BindMap(const Expr& e, const Function& f) {
    std::vector<ExprPtr> bound;
    std::vector<DataType> types;
    for (const ExprPtr& a : e.args()) {
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr b, BindNode(a, std::nullopt, ""));
      types.push_back(b->type());
      bound.push_back(std::move(b));
    }
    ROWJIT_ASSIGN_OR_RETURN(const DataType type, f.type_rule(f.name, types, std::nullopt));
    return Expr::BoundCall(&f, std::move(bound), std::nullopt, type);
  }

  // list_transform(l, x -> body), list_filter(l, x -> predicate): the lambda bound in the
  // elements' scope (it reads its parameter only), kept as its canonical text. The canonical text
  // of the call holds that text as a string ('x -> (x * 2:i64)'), which binds the same.
  Result<ExprPtr> BindLambdaCall(const Expr& e, const Function& f, ExprPtr list) {
    const bool filter = *ListOpOf(f) == ListOp::kFilter;
    if (list->type().id != TypeId::kList) {
      return MakeError(ErrorCode::kTypeError, "{} takes a list, not {} ({})", f.name, list->type().ToString(), list->ToString());
    }
    const Expr& lambda = *e.args()[1];
    std::string param;
    ExprPtr body;
    if (SurfaceFormOf(lambda) == SurfaceForm::kLambda) {
      ROWJIT_ASSIGN_OR_RETURN(const Scalar name, ParseScalar(TypeId::kUtf8, lambda.args()[0]->literal_text()));
      param = std::string(name.str());
      body = lambda.args()[1];
    } else if (lambda.is_literal() && lambda.literal_text().starts_with('\'')) {  // the canonical text
      ROWJIT_ASSIGN_OR_RETURN(const Scalar text, ParseScalar(TypeId::kUtf8, lambda.literal_text()));
      const std::string_view t = text.str();
      const size_t arrow = t.find("->");
      if (arrow == std::string_view::npos) {
        return At(lambda, MakeError(ErrorCode::kInvalidInput, "{} takes a lambda, written x -> body", f.name));
      }
      param = std::string(t.substr(0, arrow));
      param.erase(0, param.find_first_not_of(' '));
      param.erase(param.find_last_not_of(' ') + 1);
      ROWJIT_ASSIGN_OR_RETURN(body, Parse(t.substr(arrow + 2)));
    } else {
      return At(lambda, MakeError(ErrorCode::kInvalidInput, "{} takes a lambda as its second argument: {}(l, x -> {})",
                                  f.name, f.name, filter ? "x > 0" : "x * 2"));
    }
    const DataType elem = ListElement(list->type());
    Result<ExprPtr> bound_body = BindLambda(param, body, elem);
    if (!bound_body.ok()) {
      const Error& err = bound_body.error();
      return MakeError(err.code(), "in {}'s lambda {} -> {} (over {} elements, read as {}): {}", f.name, param,
                       body->ToString(), elem.ToString(), param, err.message());
    }
    const DataType t = (*bound_body)->type();
    if (filter && t.id != TypeId::kBool) {
      return MakeError(ErrorCode::kTypeError, "list_filter's lambda is a predicate; {} is {}", (*bound_body)->ToString(),
                       t.ToString());
    }
    if (IsNested(t.id)) {
      return MakeError(ErrorCode::kUnsupported, "{}'s lambda returns {}: a lambda's value is not nested", f.name, t.ToString());
    }
    const Scalar text = Scalar::String(fmt::format("{} -> {}", param, (*bound_body)->ToString()));
    // A transformed element may be null (the lambda's nulls, or where its error is hidden).
    ROWJIT_ASSIGN_OR_RETURN(DataType type, filter ? Result<DataType>(list->type())
                                                  : DataType::List(t.WithNullable(true), list->type().nullable));
    return Expr::BoundCall(&f, {std::move(list), Expr::BoundLiteral(text)}, std::nullopt, type);
  }

  // A list or map function: the list (a map under l[i] reads its value, map_extract_value), then
  // its index, value or key in the type the list gives it: an integer index as i64, a number
  // widened to the elements' or keys' type where that is exact.
  Result<ExprPtr> BindListCall(const Expr& e, const Function& f) {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr list, BindNode(e.args()[0], std::nullopt, ""));
    const DataType lt = list->type();
    if (lt.id == TypeId::kStruct && ListOpOf(f) == ListOp::kExtract) {
      return At(e, MakeError(ErrorCode::kTypeError, "{} is a struct: its fields are read as {}.name (or struct_field({}, 'name'))",
                             list->ToString(), list->ToString(), list->ToString()));
    }
    const Function* fn = &f;
    if (lt.id == TypeId::kMap && ListOpOf(f) == ListOp::kExtract) fn = FindFunction("map_extract_value");
    const ListOp op = *ListOpOf(*fn);
    std::vector<ExprPtr> bound{list};
    if (op == ListOp::kTransform || op == ListOp::kFilter) return BindLambdaCall(e, *fn, std::move(list));
    if (e.args().size() == 2) {
      std::optional<DataType> want;
      if (op == ListOp::kExtract) want = DataType(TypeId::kI64);
      if (op == ListOp::kContains && lt.id == TypeId::kList) want = ListElement(lt);
      if ((op == ListOp::kMapValue || op == ListOp::kMapContains) && lt.id == TypeId::kMap) want = StructFields(lt)[0].type;
      const bool flat = want && !want->is_logical() && (IsNumeric(want->id) || IsString(want->id) || want->id == TypeId::kBool);
      ExprPtr needle = e.args()[1];
      // An untyped literal beside dates, times, timestamps or decimals is read in their type, as
      // cast(literal, 'type') reads it: list_contains(days, '2024-02-29'), m[1.25].
      if (want && want->is_logical() && needle->is_literal() && !needle->literal_suffix() &&
          needle->literal_text() != "null" && !needle->literal_text().starts_with('[')) {
        needle = Expr::Call("cast", {needle, Expr::Literal(QuoteString(want->WithNullable(false).ToString()))}, std::nullopt,
                            needle->span());
      }
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr x, BindNode(needle, flat ? std::optional<TypeId>(want->id) : std::nullopt, ""));
      const DataType xt = x->type();
      if (want && !xt.SameType(*want) && !xt.is_logical() && !want->is_logical() && IsNumeric(xt.id) && IsNumeric(want->id)) {
        const TypeId pair[] = {xt.id, want->id};
        auto common = CommonNumericType(pair, fn->name);
        const bool index = op == ListOp::kExtract && IsInteger(xt.id);  // a u64 past i64 fails its cast
        if (index || (common.ok() && *common == want->id)) {
          x = internal::BuildCall("cast", {x}, DataType(want->id), &Fold, want->id);
        }
      }
      bound.push_back(std::move(x));
    }
    std::vector<DataType> types;
    for (const ExprPtr& b : bound) types.push_back(b->type());
    ROWJIT_ASSIGN_OR_RETURN(DataType type, fn->type_rule(fn->name, types, std::nullopt));
    return Expr::BoundCall(fn, std::move(bound), std::nullopt, type);
  }

  // A vector function: its vector arguments bound, then its literals as vectors of their type.
  Result<ExprPtr> BindVectorCall(const Expr& e, const Function& f) {
    std::vector<ExprPtr> bound(e.args().size());
    std::optional<DataType> type;
    for (size_t i = 0; i < bound.size(); ++i) {
      const Expr& a = *e.args()[i];
      if (a.is_literal() && !a.literal_suffix() && a.literal_text().starts_with('[')) continue;
      ROWJIT_ASSIGN_OR_RETURN(bound[i], BindNode(e.args()[i], std::nullopt, ""));
      if (!type && bound[i]->type().id == TypeId::kFixedList) type = bound[i]->type();
    }
    for (size_t i = 0; i < bound.size(); ++i) {
      if (bound[i]) continue;
      Result<Scalar> value = VectorLiteral(e.args()[i]->literal_text(), type);
      if (!value.ok()) return At(*e.args()[i], std::move(value).TakeError());
      bound[i] = Expr::BoundLiteral(*value);
    }
    return Typed(e, f, std::move(bound));
  }

  Result<ExprPtr> BindLiteral(const Expr& e, std::optional<TypeId> expected,
                              std::string_view context) {
    const std::string& text = e.literal_text();
    if (text.starts_with('[') && !e.literal_suffix()) {  // outside a vector function, a list: list_value(...)
      std::vector<ExprPtr> items;
      for (std::string_view rest = std::string_view(text).substr(1, text.size() - 2); !rest.empty();) {
        const size_t comma = std::min(rest.find(','), rest.size());
        std::string item(rest.substr(0, comma));
        item.erase(0, item.find_first_not_of(' '));
        items.push_back(Expr::Literal(std::move(item), std::nullopt, e.span()));
        rest.remove_prefix(std::min(comma + 1, rest.size()));
      }
      return BindNode(Expr::Call("list_value", std::move(items), std::nullopt, e.span()), expected, context);
    }
    TypeId type;
    const bool number = !text.empty() && text.front() != '\'' && text != "null" && text != "true" && text != "false";
    if (e.literal_suffix()) {
      type = *e.literal_suffix();
    } else if (expected && implicit_casts_ && number && IsNumeric(*expected)) {
      type = Widened(text, *expected);
    } else if (expected) {
      type = *expected;
    } else {
      ROWJIT_ASSIGN_OR_RETURN(type, DefaultLiteralType(text));
    }
    // An integer literal read as a float is exact for the values users write; "1.5" as an
    // integer is a type error.
    if (IsInteger(type) && LooksFloat(text) && text.front() != '\'') {
      return MakeError(ErrorCode::kTypeError, "literal {} is not {}{}", text, TypeIdName(type),
                       context);
    }
    auto value = ParseScalar(type, text);
    if (!value.ok()) {
      return MakeError(ErrorCode::kTypeError, "literal {} does not fit {}{}", text,
                       TypeIdName(type), context);
    }
    return Expr::BoundLiteral(*value);
  }

  // date_part('year', t) and date_trunc('month', t): the part is a string literal naming the
  // catalog function the call binds to (year(t), date_trunc_month(t)).
  static Result<std::optional<ExprPtr>> RewriteTemporal(const Expr& e) {
    const SurfaceForm form = SurfaceFormOf(e);
    if (form != SurfaceForm::kDatePart && form != SurfaceForm::kDateTrunc) return std::optional<ExprPtr>();
    const std::string& text = e.args().size() == 2 && e.args()[0]->is_literal() ? e.args()[0]->literal_text() : "";
    if (text.size() < 2 || text.front() != '\'' || text.back() != '\'') {
      return MakeError(ErrorCode::kInvalidInput, "{} takes a part as a string literal and a value: {}('month', t)",
                       e.name(), e.name());
    }
    const std::optional<std::string> name = TemporalCallName(e.name(), text.substr(1, text.size() - 2));
    if (!name) return At(*e.args()[0], MakeError(ErrorCode::kInvalidInput, "{}: unknown part {}", e.name(), text));
    return std::optional<ExprPtr>(Expr::Call(*name, {e.args()[1]}, std::nullopt, e.span()));
  }

  static bool IsUntypedLiteral(const Expr& e) { return e.is_literal() && IsUntyped(e); }

  // The logical types whose values have a text (logical_to_text): decimals, dates, times,
  // timestamps, durations and intervals.
  static bool IsTextual(const DataType& t) { return t.is_logical(); }

  // cast(x, 'decimal64(12,2)') (the parser's form of a cast to a logical type) and round(x, n).
  Result<std::optional<ExprPtr>> BindLogicalCastOrRound(const Expr& e) {
    using Out = std::optional<ExprPtr>;
    const SurfaceForm form = SurfaceFormOf(e);
    const bool cast = form == SurfaceForm::kLogicalCast;
    if (!cast && form != SurfaceForm::kDecimalRound) return Out();
    const Expr& second = *e.args()[1];
    const std::string& text = second.is_literal() ? second.literal_text() : "";
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr x, BindNode(e.args()[0], std::nullopt, ""));
    if (cast) {
      if (text.size() < 2 || text.front() != '\'' || text.back() != '\'') {
        return MakeError(ErrorCode::kInvalidInput, "cast takes a value and a type: cast(x, decimal64(12, 2))");
      }
      Result<DataType> target = ParseDataType(text.substr(1, text.size() - 2));
      if (!target.ok()) {  // its span points into the type's text: the target's place in the expression instead
        Error error = std::move(target).TakeError();
        return second.span().length == 0 ? error : std::move(error).WithSpan(second.span());
      }
      const DataType to = *target;
      if (to.logical != LogicalKind::kDecimal) {
        if (to.logical == LogicalKind::kInterval) {
          ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, BindIntervalCast(x, to, &Fold));
          return Out(r);
        }
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, BindTemporalCast(x, to, &Fold));
        return Out(r);
      }
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, BindDecimalCast(x, to, &Fold));
      return Out(r);
    }
    auto digits = IsUntypedLiteral(second) ? ParseScalar(TypeId::kI32, text) : Result<Scalar>(MakeError(ErrorCode::kTypeError, ""));
    if (!digits.ok() || digits->is_null()) {
      return MakeError(ErrorCode::kTypeError, "round(x, digits) takes a decimal and an integer literal, not {}",
                       second.ToString());
    }
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, BindDecimalRound(x, digits->value<int32_t>(), &Fold));
    return Out(r);
  }

  // A call of a function with decimal rules (ir/decimal.h) over a decimal: its untyped literals
  // are decimal literals ("1.50"), or floats where written with an exponent.
  Result<std::optional<ExprPtr>> BindDecimal(const Expr& e, const Function& f, std::vector<ExprPtr>& bound) {
    using Out = std::optional<ExprPtr>;
    const ExprPtr* decimal = nullptr;
    for (const ExprPtr& b : bound) {
      if (b && b->type().logical == LogicalKind::kDecimal && decimal == nullptr) decimal = &b;
    }
    if (decimal == nullptr || !HasDecimalRule(f.name)) return Out();
    for (size_t i = 0; i < bound.size(); ++i) {
      if (bound[i]) continue;
      const Expr& a = *e.args()[i];
      if (IsUntypedLiteral(a) && a.literal_text() == "null") {
        bound[i] = Expr::BoundLiteral(Scalar::Null(TypeId::kI64).As((*decimal)->type()));
      } else if (auto literal = IsUntypedLiteral(a) ? DecimalLiteral(a.literal_text()) : Result<Scalar>(MakeError(ErrorCode::kTypeError, ""));
                 literal.ok() || literal.error().code() == ErrorCode::kUnsupported) {
        ROWJIT_ASSIGN_OR_RETURN(const Scalar value, Located(a, std::move(literal)));  // more than 38 digits: an error
        bound[i] = Expr::BoundLiteral(value);
      } else {
        ROWJIT_ASSIGN_OR_RETURN(bound[i], BindNode(e.args()[i], std::nullopt, ""));
      }
    }
    return BindDecimalCall(f.name, bound, e.type_arg(), &Fold);
  }

  // A comparison, between, if or coalesce over a date, timestamp, time, duration or interval: its
  // untyped string literals are values of that type ('2024-02-29', '2024-02-29 12:00:00.25', '1
  // day 2 hours'), as PostgreSQL reads an unknown-typed literal; so are they beside a duration
  // in add and sub (`t - u > '1 day'`, `(t - u) + '1 hour'`).
  static Status BindTemporalLiterals(const Expr& e, const Function& f, std::vector<ExprPtr>& bound) {
    const bool arith = f.logical == LogicalArgs::kTemporalArith;
    if (f.logical != LogicalArgs::kCompare && f.logical != LogicalArgs::kPassThrough && !arith) return Status::OK();
    const ExprPtr* temporal = nullptr;
    for (const ExprPtr& b : bound) {
      const LogicalKind k = b ? b->type().logical : LogicalKind::kNone;
      const bool dated = k == LogicalKind::kDate || k == LogicalKind::kTimestamp || k == LogicalKind::kTime ||
                         k == LogicalKind::kInterval;
      if (temporal == nullptr && (k == LogicalKind::kDuration || (dated && !arith))) temporal = &b;
    }
    if (temporal == nullptr) return Status::OK();
    DataType type = (*temporal)->type();
    if (type.logical == LogicalKind::kInterval && IntervalTypesOf(bound) == IntervalMix::kMixed) {
      type = DataType::Interval(IntervalUnit::kMonthDayNano);  // WidenMixedIntervals' type
    }
    for (size_t i = 0; i < bound.size(); ++i) {
      const Expr& a = *e.args()[i];
      if (bound[i] || !IsUntypedLiteral(a) || a.literal_text().empty() || a.literal_text().front() != '\'') continue;
      ROWJIT_ASSIGN_OR_RETURN(const Scalar text, ParseScalar(TypeId::kUtf8, a.literal_text()));
      ROWJIT_ASSIGN_OR_RETURN(const Scalar value, Located(a, type.logical == LogicalKind::kDuration ? ParseDurationLiteral(text.str(), type)
                                                  : type.logical == LogicalKind::kInterval ? ParseIntervalLiteral(text.str(), type)
                                                                                           : ParseTemporalLiteral(text.str(), type)));
      bound[i] = Expr::BoundLiteral(value);
    }
    return Status::OK();
  }

  // An untyped number beside an interval or a duration: an integer as i64 (`i * 3`), a fraction as
  // f64, so that a refusal names the rule (an interval scales by integers), not the literal.
  Result<ExprPtr> BindFactor(const ExprPtr& arg) {
    const std::string& text = IsUntypedLiteral(*arg) ? arg->literal_text() : std::string();
    const bool fraction = !text.empty() && text.front() != '\'' && text.find_first_of(".eE") != std::string::npos;
    return BindNode(arg, fraction ? TypeId::kF64 : TypeId::kI64, "");
  }

  // Comparisons, greatest/least and arithmetic over intervals (ir/temporal.h BindIntervalCall):
  // untyped string literals beside an interval are interval_month_day_nano values (any interval
  // type compares and adds with any other), an untyped null one of that type, other untyped
  // arguments bound as i64 (`i * 3`).
  Result<std::optional<ExprPtr>> BindIntervalOperands(const Expr& e, const Function& f, std::vector<ExprPtr>& bound) {
    using Out = std::optional<ExprPtr>;
    const bool any = std::any_of(bound.begin(), bound.end(),
                                 [](const ExprPtr& b) { return b && b->type().logical == LogicalKind::kInterval; });
    constexpr Operation kCalls[] = {Operation::kCompare, Operation::kPick, Operation::kAdd, Operation::kSub,
                                    Operation::kNeg,     Operation::kMul,  Operation::kDiv};
    if (!any || std::find(std::begin(kCalls), std::end(kCalls), f.operation) == std::end(kCalls)) return Out();
    // greatest/least keep their arguments' type, and a literal takes it; intervals of mixed
    // types are widened to interval_month_day_nano, which a literal then is.
    const bool pick = f.operation == Operation::kPick;
    DataType literal_type = DataType::Interval(IntervalUnit::kMonthDayNano), one;
    if (pick && IntervalTypesOf(bound, &one) == IntervalMix::kOne) literal_type = one.WithNullable(false);
    for (size_t i = 0; i < bound.size(); ++i) {
      if (bound[i]) continue;
      const Expr& a = *e.args()[i];
      const std::string& text = IsUntypedLiteral(a) ? a.literal_text() : std::string();
      if (text == "null" && f.operation != Operation::kMul) {  // a factor's null is a number's (`i * null`)
        bound[i] = Expr::BoundLiteral(Scalar::Null(literal_type.id).As(literal_type));
      } else if (!text.empty() && text.front() == '\'') {
        ROWJIT_ASSIGN_OR_RETURN(const Scalar value, ParseScalar(TypeId::kUtf8, text));
        ROWJIT_ASSIGN_OR_RETURN(const Scalar interval, Located(a, ParseIntervalLiteral(value.str(), literal_type)));
        bound[i] = Expr::BoundLiteral(interval);
      } else {
        ROWJIT_ASSIGN_OR_RETURN(bound[i], BindFactor(e.args()[i]));
      }
    }
    if (pick) WidenMixedIntervals(bound, 0, &Fold);
    return BindIntervalCall(f.name, bound, &Fold);
  }

  // date/timestamp ± interval (ir/temporal.h BindIntervalArith); an untyped string literal
  // beside a date or timestamp in add or sub is an interval ('1 month 2 days'), as PostgreSQL
  // reads it.
  static Result<std::optional<ExprPtr>> BindInterval(const Expr& e, const Function& f, const std::vector<ExprPtr>& bound) {
    using Out = std::optional<ExprPtr>;
    if ((f.operation != Operation::kAdd && f.operation != Operation::kSub) || bound.size() != 2) return Out();
    std::optional<std::string> text;
    for (size_t i = 0; i < 2; ++i) {
      if (bound[i]) continue;
      const Expr& a = *e.args()[i];
      if (!bound[1 - i] || !IsUntypedLiteral(a) || a.literal_text().empty() || a.literal_text().front() != '\'') return Out();
      ROWJIT_ASSIGN_OR_RETURN(const Scalar value, ParseScalar(TypeId::kUtf8, a.literal_text()));
      text = std::string(value.str());
    }
    return BindIntervalArith(f.name, bound[0], bound[1], text ? std::optional<std::string_view>(*text) : std::nullopt,
                             &Fold);
  }

  // Durations scaled and measured (a duration is a count of its unit): `d * n` and `n * d` for an
  // integer n, `-d` and `abs(d)` in checked i64 arithmetic (a duration of d's type); `d1 / d2` of
  // one unit, their ratio as f64 (`(t - u) / '1 hour'`: an untyped string literal beside a
  // duration is one); `cast(d, T)` to a number, the count of d's units.
  Result<std::optional<ExprPtr>> BindDurationOperands(const Expr& e, const Function& f, std::vector<ExprPtr>& bound) {
    using Out = std::optional<ExprPtr>;
    auto duration = [](const ExprPtr& b) { return b && b->type().logical == LogicalKind::kDuration; };
    const auto d = std::find_if(bound.begin(), bound.end(), duration);
    constexpr Operation kCalls[] = {Operation::kMul, Operation::kDiv, Operation::kNeg, Operation::kAbs, Operation::kCast};
    if (d == bound.end() || std::find(std::begin(kCalls), std::end(kCalls), f.operation) == std::end(kCalls)) return Out();
    const DataType type = (*d)->type();
    for (size_t i = 0; i < bound.size(); ++i) {
      if (bound[i]) continue;
      const Expr& a = *e.args()[i];
      const std::string& text = IsUntypedLiteral(a) ? a.literal_text() : std::string();
      if (f.operation == Operation::kDiv && !text.empty() && text.front() == '\'') {
        ROWJIT_ASSIGN_OR_RETURN(const Scalar value, ParseScalar(TypeId::kUtf8, text));
        ROWJIT_ASSIGN_OR_RETURN(const Scalar length, Located(a, ParseDurationLiteral(value.str(), type)));
        bound[i] = Expr::BoundLiteral(length);
      } else {
        ROWJIT_ASSIGN_OR_RETURN(bound[i], BindFactor(e.args()[i]));
      }
    }
    const std::string types = bound.size() == 1 ? bound[0]->type().WithNullable(false).ToString()
                              : fmt::format("{} and {}", bound[0]->type().WithNullable(false).ToString(),
                                            bound[1]->type().WithNullable(false).ToString());
    const DataType f64(TypeId::kF64);
    auto count = [&](const ExprPtr& x, TypeId to) { return internal::BuildCall("cast", {x}, DataType(to), &Fold, to); };
    if (f.operation == Operation::kCast) {
      const TypeId to = *e.type_arg();
      if (!IsNumeric(to)) return MakeError(ErrorCode::kTypeError, "cast of {} to {}: a duration casts to a number (its count of units)", types, TypeIdName(to));
      return Out(count(bound[0], to));
    }
    if (f.operation == Operation::kNeg || f.operation == Operation::kAbs) return Out(internal::BuildCall(f.name, {bound[0]}, type, &Fold));
    const ExprPtr& other = bound[0] == *d ? bound[1] : bound[0];
    if (f.operation == Operation::kDiv && bound[0]->type().SameType(bound[1]->type())) {  // d / '1 hour', '1 hour' / d
      return Out(internal::BuildCall("div", {count(bound[0], TypeId::kF64), count(bound[1], TypeId::kF64)}, f64, &Fold));
    }
    if (f.operation == Operation::kMul && !other->type().is_logical() && IsInteger(other->type().id)) {
      const ExprPtr n = other->type().id == TypeId::kI64 ? other : count(other, TypeId::kI64);
      return Out(internal::BuildCall("mul", {*d, n}, type, &Fold));
    }
    return MakeError(ErrorCode::kTypeError,
                     "{} of {}: a duration is multiplied by an integer, divided by a duration of its unit (an f64 "
                     "ratio) or negated",
                     f.name, types);
  }

  // The rules of decimals, dates and timestamps ± intervals, intervals and durations, in that
  // order: the call they bind to, or nullopt where none applies.
  Result<std::optional<ExprPtr>> BindLogicalCall(const Expr& e, const Function& f, std::vector<ExprPtr>& bound) {
    using Out = std::optional<ExprPtr>;
    ROWJIT_ASSIGN_OR_RETURN(Out decimal, BindDecimal(e, f, bound));
    if (decimal) return decimal;
    ROWJIT_ASSIGN_OR_RETURN(Out interval, BindInterval(e, f, bound));
    if (interval) return interval;
    ROWJIT_ASSIGN_OR_RETURN(Out over_intervals, BindIntervalOperands(e, f, bound));
    if (over_intervals) return over_intervals;
    return BindDurationOperands(e, f, bound);
  }

  // The descriptor a call names, with its arity and type argument checked.
  static Result<const Function*> Resolve(const Expr& e) {
    const Function* f = FindFunction(e.name());
    if (f == nullptr && SurfaceFormOf(e) == SurfaceForm::kLog) {
      // numpy's log is natural, SQL's (PostgreSQL, DuckDB) is base 10: neither is guessed.
      return MakeError(ErrorCode::kInvalidInput, "unknown function 'log': write ln (natural) or log10");
    }
    if (f == nullptr) {
      // At the name: a call's text starts with it (operators always name known functions).
      // An aggregate in a row expression: said so, rather than a row function of a near name.
      Error error = IsAggregateName(e.name())
                        ? MakeError(ErrorCode::kInvalidInput,
                                    "unknown function '{}': an aggregate, which a row expression does not call (an "
                                    "aggregate call folds it over the rows)", e.name())
                        : MakeError(ErrorCode::kInvalidInput, "unknown function '{}'{}", e.name(),
                                    FunctionSuggestion(e.name()));
      if (e.span().length == 0) return error;
      return std::move(error).WithSpan({e.span().offset, std::min(e.name().size(), e.span().length)});
    }
    const size_t n = e.args().size();
    if (f->variadic ? n == 0 : n != f->arity()) {
      return MakeError(ErrorCode::kInvalidInput, "{} takes {} argument{}, got {}", f->name,
                       f->variadic ? std::string("1 or more") : std::to_string(f->arity()),
                       f->arity() == 1 ? "" : "s", n);
    }
    if (f->takes_type_arg != e.type_arg().has_value()) {
      return MakeError(ErrorCode::kInvalidInput, "{} {} a type argument", f->name,
                       f->takes_type_arg ? "needs" : "does not take");
    }
    return f;
  }

  static size_t UnifyFrom(const Function& f, size_t n) { return f.unify_from < 0 ? n : static_cast<size_t>(f.unify_from); }

  // The plain numeric types of the unified arguments bound so far, or nullopt when one is
  // another type (a decimal, a date, a string: their own rules decide).
  static std::optional<std::vector<TypeId>> PlainNumbers(const std::vector<ExprPtr>& bound, size_t unify) {
    std::vector<TypeId> types;
    for (size_t i = unify; i < bound.size(); ++i) {
      if (!bound[i]) continue;
      const DataType t = bound[i]->type();
      if (t.is_logical() || !IsNumeric(t.id)) return std::nullopt;
      types.push_back(t.id);
    }
    return types;
  }

  // Binds the arguments that have a type of their own (all but the untyped ones of the unified
  // group, which take the group's type later) and returns the group's type: the first typed
  // argument's, or under implicit casts the common type of the typed numbers.
  Result<std::optional<TypeId>> BindTyped(const Expr& e, const Function& f, std::vector<ExprPtr>& bound) {
    std::optional<TypeId> group;
    const size_t n = e.args().size(), unify = UnifyFrom(f, n);
    for (size_t i = 0; i < n; ++i) {
      if (i >= unify && IsUntyped(*e.args()[i])) continue;
      ROWJIT_ASSIGN_OR_RETURN(bound[i], BindNode(e.args()[i], std::nullopt, ""));
      // A float-only function takes a decimal as f64 (DuckDB's implicit cast), unless it has a
      // decimal rule of its own (round).
      if (implicit_casts_ && f.numbers == NumberDomain::kFloat && bound[i]->type().logical == LogicalKind::kDecimal &&
          !HasDecimalRule(f.name)) {
        Result<std::optional<ExprPtr>> as_float = BindDecimalCall("cast", {bound[i]}, TypeId::kF64, &Fold);
        if (!as_float.ok()) return std::move(as_float).TakeError();
        if (as_float->has_value()) bound[i] = **as_float;
      }
      if (i >= unify && !group) group = bound[i]->type().id;
    }
    if (!implicit_casts_ || !group) return group;
    const std::optional<std::vector<TypeId>> numbers = PlainNumbers(bound, unify);
    if (!numbers) return group;
    Result<TypeId> common = CommonNumericType(*numbers, f.name);  // none: Promote says so
    return common.ok() ? std::optional<TypeId>(*common) : group;
  }

  // Binds the untyped arguments of the unified group with the group's type (the first one's
  // own when there is none).
  Status BindUntyped(const Expr& e, const Function& f, std::optional<TypeId> group, std::vector<ExprPtr>& bound) {
    const size_t n = e.args().size();
    for (size_t i = UnifyFrom(f, n); i < n; ++i) {
      if (bound[i]) continue;
      std::string context;
      if (group) {
        context = fmt::format(" (the other arguments of {} are {})", f.name, TypeIdName(*group));
      }
      ROWJIT_ASSIGN_OR_RETURN(bound[i], BindNode(e.args()[i], group, context));
      if (!group) group = bound[i]->type().id;
    }
    return Status::OK();
  }

  // SQL's implicit casts (ir/promotion.h): unified arguments that are all plain numbers, of more
  // than one type, are cast to their common type (a float-only function's integers to f64),
  // where the function takes that type: bit_and of i32 and f64 is refused by its type rule as
  // written, never truncated.
  static Status Promote(const Expr& e, const Function& f, size_t unify, std::vector<ExprPtr>& bound) {
    const std::optional<std::vector<TypeId>> numbers = PlainNumbers(bound, unify);
    if (!numbers || numbers->empty()) return Status::OK();
    Result<TypeId> common = CommonNumericType(*numbers, f.name);
    if (f.numbers == NumberDomain::kFloat && (!common.ok() || !IsFloat(*common))) common = TypeId::kF64;
    std::vector<DataType> probe;
    for (size_t i = 0; i < bound.size(); ++i) {
      probe.push_back(i < unify ? bound[i]->type() : DataType(common.ok() ? *common : TypeId::kI64));
    }
    if (!f.type_rule(f.name, probe, e.type_arg()).ok()) return Status::OK();
    if (!common.ok()) return common.status();
    for (size_t i = unify; i < bound.size(); ++i) {
      if (bound[i]->type().id == *common) continue;
      bound[i] = internal::BuildCall("cast", {bound[i]}, DataType(*common), &Fold, *common);
    }
    return Status::OK();
  }

  // The bound call of `f` over bound arguments: its type from the type rule and the logical
  // rules, nullable as its null behaviour says, folded when every argument is a literal.
  // Only the vector functions read vectors, and structs are read by their fields.
  static Status RefuseVectors(const Function& f, const std::vector<ExprPtr>& bound) {
    for (const ExprPtr& b : bound) {
      if (b != nullptr && b->type().id == TypeId::kFixedList && f.family != Family::kVector) {
        return MakeError(ErrorCode::kTypeError,
                         "{} does not take a vector ({}): vectors are read by the vector functions (dot, l2_distance, "
                         "cosine_similarity, ...)", f.name, b->type().WithNullable(false).ToString());
      }
      if (b != nullptr && b->type().id == TypeId::kList && f.family == Family::kVector) {
        return MakeError(ErrorCode::kTypeError, "{} takes vectors, not a list ({}): a vector literal's elements are numbers",
                         f.name, b->ToString());
      }
      if (b != nullptr && (b->type().id == TypeId::kList || b->type().id == TypeId::kMap)) {
        return MakeError(ErrorCode::kTypeError,
                         "{} does not take a {} ({}): lists and maps are read by len, l[i], list_contains, list_sum, "
                         "m[k], ...", f.name, TypeIdName(b->type().id), b->type().WithNullable(false).ToString());
      }
      if (b != nullptr && b->type().id == TypeId::kStruct && f.family != Family::kStruct) {
        return MakeError(ErrorCode::kTypeError, "{} does not take a struct ({}): a struct is read by its fields ({}.name)",
                         f.name, b->type().WithNullable(false).ToString(), b->ToString());
      }
    }
    return Status::OK();
  }

  static Result<ExprPtr> Typed(const Expr& e, const Function& f, std::vector<ExprPtr> bound) {
    std::vector<DataType> types;
    for (const auto& b : bound) types.push_back(b->type());
    ROWJIT_RETURN_NOT_OK(RefuseVectors(f, bound));
    ROWJIT_ASSIGN_OR_RETURN(std::optional<DataType> logical, LogicalGroup(f, types, bound));
    ROWJIT_ASSIGN_OR_RETURN(DataType type, f.type_rule(f.name, types, e.type_arg()));
    if ((f.logical == LogicalArgs::kPassThrough || f.logical == LogicalArgs::kTemporalArith) && logical &&
        type.id == logical->id) {
      type = logical->WithNullable(type.nullable);
    }
    if (f.strict()) type.nullable = internal_AnyNullable(types);
    ExprPtr call = Expr::BoundCall(&f, std::move(bound), e.type_arg(), type);
    return Fold(call);
  }

  Result<ExprPtr> BindCall(const Expr& e, std::optional<TypeId> expected) {
    if (SurfaceFormOf(e) == SurfaceForm::kNamed) {
      return At(e, MakeError(ErrorCode::kInvalidInput, "a named value (x := ...) is an argument of struct_pack"));
    }
    if (SurfaceFormOf(e) == SurfaceForm::kLambda) {
      return At(e, MakeError(ErrorCode::kInvalidInput, "a lambda (x -> ...) is the second argument of list_transform or "
                                                       "list_filter"));
    }
    ROWJIT_ASSIGN_OR_RETURN(std::optional<ExprPtr> rewritten, RewriteTemporal(e));
    if (rewritten) return BindNode(*rewritten, expected, "");
    ROWJIT_ASSIGN_OR_RETURN(std::optional<ExprPtr> special, BindLogicalCastOrRound(e));
    if (special) return *special;
    ROWJIT_ASSIGN_OR_RETURN(const Function* f, Resolve(e));
    if (f->family == Family::kVector) return BindVectorCall(e, *f);
    if (f->family == Family::kStruct) return BindStructField(e, *f);
    if (f->family == Family::kList) return BindListCall(e, *f);
    if (f->family == Family::kConstruct && *ConstructOpOf(*f) == ConstructOp::kStruct) return BindStructPack(e, *f);
    if (f->family == Family::kConstruct && *ConstructOpOf(*f) == ConstructOp::kMap) return BindMap(e, *f);
    // Bind typed arguments first; untyped ones in the unified group then take their type.
    const size_t n = e.args().size(), unify = UnifyFrom(*f, n);
    std::vector<ExprPtr> bound(n);
    ROWJIT_ASSIGN_OR_RETURN(std::optional<TypeId> group, BindTyped(e, *f, bound));
    ROWJIT_RETURN_NOT_OK(RefuseVectors(*f, bound));
    if (f->operation == Operation::kCast && e.type_arg() == TypeId::kUtf8 && IsTextual(bound[0]->type())) {  // cast(d, utf8)
      ROWJIT_RETURN_NOT_OK(RequireZoneRules(
          bound[0]->type(), fmt::format("cast from {} to utf8", bound[0]->type().WithNullable(false).ToString())));
      const DataType to(TypeId::kUtf8, bound[0]->type().nullable);
      return Fold(Expr::BoundCall(FindFunction("logical_to_text"), {bound[0]}, std::nullopt, to));
    }
    ROWJIT_ASSIGN_OR_RETURN(std::optional<ExprPtr> logical_call, BindLogicalCall(e, *f, bound));
    if (logical_call) return *logical_call;
    ROWJIT_RETURN_NOT_OK(BindTemporalLiterals(e, *f, bound));
    if (!group && f->propagates_type) group = expected;
    ROWJIT_RETURN_NOT_OK(BindUntyped(e, *f, group, bound));
    if (implicit_casts_) ROWJIT_RETURN_NOT_OK(Promote(e, *f, unify, bound));
    // coalesce and if over intervals of mixed types: interval_month_day_nano (greatest and least
    // widened theirs in BindIntervalOperands).
    if (f->logical == LogicalArgs::kPassThrough) WidenMixedIntervals(bound, unify, &Fold);
    return Typed(e, *f, std::move(bound));
  }

  static bool internal_AnyNullable(const std::vector<DataType>& types) {
    for (const auto& t : types) {
      if (t.nullable) return true;
    }
    return false;
  }

  // A call of literals only is evaluated now; a failing one stays a call (its error is raised
  // when the expression runs).
  static ExprPtr Fold(const ExprPtr& call) {
    std::vector<Scalar> args;
    for (const auto& a : call->args()) {
      if (!a->is_literal()) return call;
      args.push_back(a->value());
    }
    const Function* f = call->function();
    if (f->strict()) {
      for (const Scalar& s : args) {
        if (s.is_null()) return Expr::BoundLiteral(Scalar::Null(call->type().id).As(call->type()));
      }
    }
    auto r = f->eval(args, call->type(), call->type_arg());
    if (!r.ok()) return call;
    // A logical result computed on the storage (t - t: a duration) takes the call's type, as the
    // reference evaluator's results do.
    if (call->type().is_logical() && r->type_id() == call->type().id) return Expr::BoundLiteral(r->As(call->type()));
    return Expr::BoundLiteral(*r);
  }

  const Schema& schema_;
  const bool implicit_casts_;
};

}  // namespace

namespace {

Result<ExprPtr> BindWithin(const ExprPtr& expr, const Schema& schema, const BindOptions& options) {
  const Limits& limits = options.limits;
  if (static_cast<int64_t>(schema.fields.size()) > limits.max_columns) {
    return MakeError(ErrorCode::kInvalidInput, "schema of {} columns; the limit is {} (Limits::max_columns)",
                     schema.fields.size(), limits.max_columns);
  }
  const ExprFacts& shape = expr->facts();  // of the unbound tree: its depth and nodes
  ROWJIT_RETURN_NOT_OK(CheckLimits(shape, limits));
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr bound, WithStackForDepth(shape.depth, [&] {
                            return Binder(schema, options.implicit_casts).BindNode(expr, std::nullopt, "");
                          }));
  if (bound->type().id == TypeId::kFixedList) {
    return MakeError(ErrorCode::kTypeError, "a vector ({}) is an argument of a vector function (dot, l2_distance, "
                                            "cosine_similarity, ...), not an expression's value",
                     bound->is_column() ? "column '" + bound->name() + "'" : std::string("literal"));
  }
  // A call that fails in a row with a null input yields null instead of an error (see
  // ir/reference.h), so such a result can be null even where the type rules say it cannot.
  const ExprFacts& facts = bound->facts();
  if (bound->is_call() && !bound->type().nullable && facts.can_fail && facts.any_nullable_column) {
    bound = Expr::BoundCall(bound->function(), bound->args(), bound->type_arg(),
                            bound->type().WithNullable(true));
  }
  return bound;
}

}  // namespace

Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema, const BindOptions& options) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&] { return BindWithin(expr, schema, options); });
}

Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema, const Limits& limits) {
  return Bind(expr, schema, BindOptions{.limits = limits});
}

Result<ExprPtr> ParseAndBind(std::string_view text, const Schema& schema, const BindOptions& options) {
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, Parse(text, options.limits));
  return Bind(e, schema, options);
}

Result<ExprPtr> ParseAndBind(std::string_view text, const Schema& schema, const Limits& limits) {
  return ParseAndBind(text, schema, BindOptions{.limits = limits});
}

}  // namespace rowjit::ir
