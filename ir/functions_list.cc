// List and map row functions (ir layer), with DuckDB's names and semantics: len (cardinality,
// array_length), l[i] (list_extract: 1-based, negative from the end), list_contains, list_sum,
// list_min, list_max, list_avg, m[k] (map_extract_value) and map_contains. Each reads a list or map
// column's rows (a column, or a struct's field) and computes one value a row. No row kernel reads
// a list: each call is computed a column at a time (ListColumn, ir/list_columns.cc) and the
// kernel of the rest reads its result as a column; the reference reads the same rows element by
// element through the elements' scalars (EvaluateListRow, below), the semantics both follow.
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ir/binder.h"
#include "ir/function_internal.h"
#include "ir/list_functions.h"
#include "ir/parser.h"

namespace rowjit::ir {
namespace {

bool IsList(const DataType& t) { return t.id == TypeId::kList; }
bool IsMap(const DataType& t) { return t.id == TypeId::kMap; }

// An element a function returns or compares must be a value a kernel reads: not itself nested.
Status RequireFlat(std::string_view name, const DataType& list, const DataType& elem) {
  if (!IsNested(elem.id)) return Status::OK();
  return MakeError(ErrorCode::kUnsupported, "{} over {}: elements that are themselves nested ({}) are read only by len",
                   name, list.WithNullable(false).ToString(), elem.WithNullable(false).ToString());
}

Result<DataType> LenRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.size() != 1 || !(IsList(args[0]) || IsMap(args[0]))) return internal::TypeMismatch(name, args, "a list or a map (a string's length: length(s))");
  return DataType(TypeId::kI64, args[0].nullable);
}

Result<DataType> ExtractRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.size() != 2 || !IsList(args[0]) || args[1].id != TypeId::kI64 || args[1].is_logical()) {
    return internal::TypeMismatch(name, args, "a list and an integer position, written l[i]");
  }
  const DataType elem = ListElement(args[0]);
  ROWJIT_RETURN_NOT_OK(RequireFlat(name, args[0], elem));
  return elem.WithNullable(true);  // null past either end
}

Result<DataType> ContainsRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.size() != 2 || !IsList(args[0]) || !ListElement(args[0]).SameType(args[1])) {
    return internal::TypeMismatch(name, args, "a list and a value of its element type");
  }
  ROWJIT_RETURN_NOT_OK(RequireFlat(name, args[0], args[1]));
  return DataType(TypeId::kBool, internal::AnyNullable(args));
}

// list_sum, list_min, list_max, list_avg: a list of numbers (min and max: dates, times,
// timestamps, durations and decimals too).
Result<DataType> FoldRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  const DataType elem = args.size() == 1 && IsList(args[0]) ? ListElement(args[0]) : DataType(TypeId::kBool);
  const bool pick = name == "list_min" || name == "list_max";
  const bool number = IsNumeric(elem.id) && !elem.is_logical();
  const bool ordered = (IsNumeric(elem.id) || elem.logical == LogicalKind::kDecimal) && elem.logical != LogicalKind::kInterval;
  if (args.size() != 1 || !IsList(args[0]) || !(number || (pick && ordered))) {
    return internal::TypeMismatch(name, args, pick ? "a list of numbers, decimals, dates, times, timestamps or durations"
                                                   : "a list of numbers");
  }
  if (pick) return elem.WithNullable(true);
  if (name == "list_avg" || IsFloat(elem.id)) return DataType(TypeId::kF64, true);
  return DataType(IsSignedInt(elem.id) ? TypeId::kI64 : TypeId::kU64, true);
}

bool SumOverflows(std::span<const DataType> args, DataType result) {
  return !args.empty() && IsList(args[0]) && IsInteger(result.id);
}

// A lambda may hold a call that fails (x * 2 over integers): the analysis of the outer expression
// sees only its text, so a list_transform or list_filter counts as one that may.
bool LambdaFails(std::span<const DataType>, DataType) { return true; }

Result<DataType> MapValueRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.size() != 2 || !IsMap(args[0]) || !StructFields(args[0])[0].type.SameType(args[1])) {
    return internal::TypeMismatch(name, args, name == "map_contains" ? "a map and a key of its key type"
                                                                     : "a map and a key of its key type, written m[k]");
  }
  const DataType value = StructFields(args[0])[1].type;
  ROWJIT_RETURN_NOT_OK(RequireFlat(name, args[0], value));
  return name == "map_contains" ? DataType(TypeId::kBool, internal::AnyNullable(args)) : value.WithNullable(true);
}

// list_transform(l, x -> body), list_filter(l, x -> predicate): the binder types them (the body's
// type is known once it is bound in the elements' scope); this rule checks their shape.
Result<DataType> LambdaRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (args.size() != 2 || !IsList(args[0]) || args[1].id != TypeId::kUtf8) {
    return internal::TypeMismatch(name, args, "a list and a lambda, written x -> x * 2");
  }
  return args[0];
}

// No list is a value the catalog computes on: the reference reads the list's elements.
Result<Scalar> EvalList(std::span<const Scalar>, DataType, std::optional<TypeId>) {
  return Error(ErrorCode::kInternal, "a list function is read through the list's elements");
}

constexpr std::string_view kOrderNote =
    "Floats in SQL's order: NaN above every number, -0.0 equal to 0.0 (the first of equal elements is kept).";

const Function kListFunctions[] = {
    {.name = "len", .arg_names = {"l"}, .family = Family::kList, .unify_from = -1, .type_rule = LenRule, .eval = EvalList,
     .logical = LogicalArgs::kAny, .summary = "The number of elements of a list, or of entries of a map (i64).",
     .notes = "Null elements count. Null where the list is null."},
    {.name = "list_extract", .arg_names = {"l", "i"}, .family = Family::kList, .unify_from = -1, .type_rule = ExtractRule,
     .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "Element i of a list, written l[i]: 1 is the first, -1 the last.",
     .notes = "Null where i is 0 or past either end, where the list, i or the element is null. Over a map, m[k] is "
              "map_extract_value."},
    {.name = "list_contains", .arg_names = {"l", "x"}, .family = Family::kList, .unify_from = -1, .type_rule = ContainsRule,
     .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "Whether some element of a list equals x.",
     .notes = "Null elements are skipped: false when no other element equals x. Null where the list or x is null. "
              "Equality is `=`'s (NaN equals NaN, -0.0 equals 0.0)."},
    {.name = "list_sum", .arg_names = {"l"}, .family = Family::kList, .can_fail = SumOverflows, .unify_from = -1,
     .type_rule = FoldRule, .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "The sum of a list's non-null elements: i64 of signed integers, u64 of unsigned, f64 of floats.",
     .notes = "Null for an empty list or one of nulls only. Integer sums are exact or an overflow error; float sums "
              "add the elements in order, each widened to f64."},
    {.name = "list_min", .arg_names = {"l"}, .family = Family::kList, .unify_from = -1, .type_rule = FoldRule,
     .eval = EvalList, .logical = LogicalArgs::kAny, .summary = "The least of a list's non-null elements.",
     .notes = kOrderNote},
    {.name = "list_max", .arg_names = {"l"}, .family = Family::kList, .unify_from = -1, .type_rule = FoldRule,
     .eval = EvalList, .logical = LogicalArgs::kAny, .summary = "The greatest of a list's non-null elements.",
     .notes = kOrderNote},
    {.name = "list_avg", .arg_names = {"l"}, .family = Family::kList, .unify_from = -1, .type_rule = FoldRule,
     .eval = EvalList, .logical = LogicalArgs::kAny, .summary = "The mean of a list's non-null elements (f64).",
     .notes = "Null for an empty list or one of nulls only. Integers are summed exactly, then divided; floats are "
              "added in order in f64."},
    {.name = "map_extract_value", .arg_names = {"m", "k"}, .family = Family::kList, .unify_from = -1,
     .type_rule = MapValueRule, .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "The value a map holds for key k, written m[k].",
     .notes = "Null where no entry has the key (or its value is null), where the map or k is null. Of entries "
              "with equal keys, the first."},
    {.name = "map_contains", .arg_names = {"m", "k"}, .family = Family::kList, .unify_from = -1,
     .type_rule = MapValueRule, .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "Whether a map has an entry for key k.", .notes = "Null where the map or k is null."},
    {.name = "list_transform", .arg_names = {"l", "lambda"}, .family = Family::kList, .can_fail = LambdaFails,
     .unify_from = -1, .type_rule = LambdaRule, .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "A list of the lambda's value at each element: list_transform(l, x -> x * 2).",
     .notes = "Read by the list functions (list_sum(list_transform(l, x -> x * x))). The lambda reads its parameter "
              "only; its errors are the row's. Null where the list is null."},
    {.name = "list_filter", .arg_names = {"l", "lambda"}, .family = Family::kList, .can_fail = LambdaFails,
     .unify_from = -1, .type_rule = LambdaRule, .eval = EvalList, .logical = LogicalArgs::kAny,
     .summary = "The elements where the lambda is true: list_filter(l, x -> x > 0).",
     .notes = "Read by the list functions (len(list_filter(l, x -> x > 0))). Null where the list is null."},
};

bool SqlEqual(const Scalar& a, const Scalar& b) {
  static const Function* eq = FindFunction("eq");
  auto r = eq->eval(std::vector<Scalar>{a, b}, DataType(TypeId::kBool), std::nullopt);
  return r.ok() && r->value<bool>();
}

bool SqlLess(const Scalar& a, const Scalar& b) {
  static const Function* lt = FindFunction("lt");
  auto r = lt->eval(std::vector<Scalar>{a, b}, DataType(TypeId::kBool), std::nullopt);
  return r.ok() && r->value<bool>();
}

double AsDouble(const Scalar& s) {
  if (s.type_id() == TypeId::kF32) return s.value<float>();
  if (s.type_id() == TypeId::kF64) return s.value<double>();
  return static_cast<double>(s.int128());
}

// list_sum, list_min, list_max, list_avg over a row's elements.
Result<Scalar> Fold(ListOp op, const Array& elems, int64_t begin, int64_t end, const DataType& result) {
  const Scalar none = Scalar::Null(result.id).As(result);
  std::optional<Scalar> best;
  __int128 exact = 0;
  double total = 0;
  int64_t count = 0;
  for (int64_t j = begin; j < end; ++j) {
    const Scalar v = elems.GetScalar(j);
    if (v.is_null()) continue;
    ++count;
    if (op == ListOp::kMin || op == ListOp::kMax) {
      if (!best || (op == ListOp::kMin ? SqlLess(v, *best) : SqlLess(*best, v))) best = v;
    } else if (IsFloat(v.type_id())) {
      total += AsDouble(v);
    } else {
      exact += v.int128();  // at most 2^40 elements of 64 bits: no overflow of 128
    }
  }
  if (count == 0) return none;
  if (op == ListOp::kMin || op == ListOp::kMax) return best->As(result);
  const bool floats = IsFloat(elems.type().id);
  if (op == ListOp::kAvg) return Scalar::Of((floats ? total : static_cast<double>(exact)) / static_cast<double>(count));
  if (floats) return Scalar::Of(total);
  const bool fits = result.id == TypeId::kI64 ? exact >= INT64_MIN && exact <= INT64_MAX
                                              : exact >= 0 && exact <= static_cast<__int128>(UINT64_MAX);
  if (!fits) return MakeError(ErrorCode::kOverflow, "list_sum overflows {}", TypeIdName(result.id));
  return result.id == TypeId::kI64 ? Scalar::Of(static_cast<int64_t>(exact)) : Scalar::Of(static_cast<uint64_t>(exact));
}

}  // namespace

std::span<const Function> ListFunctions() { return kListFunctions; }

std::optional<ListOp> ListOpOf(const Function& f) {
  const Function* first = kListFunctions;
  if (&f < first || &f >= first + std::size(kListFunctions)) return std::nullopt;
  return static_cast<ListOp>(&f - first);
}

Result<ExprPtr> BindLambda(std::string_view param, const ExprPtr& body, const DataType& elem) {
  Schema scope;
  scope.fields.push_back(Field{std::string(param), elem});
  return Bind(body, scope);
}

Result<ExprPtr> LambdaBody(const Expr& call) {
  // The texts seen, bound (a process's lambdas are few; past the bound the cache starts again).
  static std::mutex mu;
  static auto* cache = new std::map<std::pair<std::string, std::string>, ExprPtr>;  // never destroyed
  const std::string text(call.args()[1]->value().str());
  const DataType elem = ListElement(call.args()[0]->type());
  auto key = std::make_pair(text, elem.ToString());
  {
    std::lock_guard lock(mu);
    if (auto it = cache->find(key); it != cache->end()) return it->second;
  }
  const size_t arrow = text.find("->");
  if (arrow == std::string::npos) return MakeError(ErrorCode::kInvalidInput, "a lambda is written x -> body, not '{}'", text);
  std::string param = text.substr(0, arrow);
  while (!param.empty() && param.back() == ' ') param.pop_back();
  while (!param.empty() && param.front() == ' ') param.erase(param.begin());
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr body, Parse(std::string_view(text).substr(arrow + 2)));
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr bound, BindLambda(param, body, elem));
  std::lock_guard lock(mu);
  if (cache->size() >= 1024) cache->clear();
  cache->emplace(std::move(key), bound);
  return bound;
}

bool IsListCall(const Expr& e) {
  return e.is_call() && e.function() != nullptr && e.function()->family == Family::kList;
}

Result<Scalar> EvaluateListRow(const Expr& call, const Array* list, int64_t row, std::span<const Scalar> rest) {
  const DataType result = call.type();
  const Scalar none = Scalar::Null(result.id).As(result);
  if (list == nullptr || list->IsNull(row)) return none;
  for (const Scalar& s : rest) {
    if (s.is_null()) return none;
  }
  const auto& l = static_cast<const ListArray&>(*list);
  const int64_t begin = l.Start(row), end = l.End(row), n = end - begin;
  const ListOp op = *ListOpOf(*call.function());
  switch (op) {
    case ListOp::kLen: return Scalar::Of(n);
    case ListOp::kExtract: {
      const int64_t i = rest[0].value<int64_t>();
      if (i == 0 || i > n || i < -n) return none;
      const Scalar v = l.elements()->GetScalar(i > 0 ? begin + i - 1 : end + i);
      return v.is_null() ? none : v.As(result);
    }
    case ListOp::kContains:
      for (int64_t j = begin; j < end; ++j) {
        const Scalar v = l.elements()->GetScalar(j);
        if (!v.is_null() && SqlEqual(v, rest[0])) return Scalar::Of(true);
      }
      return Scalar::Of(false);
    case ListOp::kSum:
    case ListOp::kMin:
    case ListOp::kMax:
    case ListOp::kAvg: return Fold(op, *l.elements(), begin, end, result);
    case ListOp::kMapValue:
    case ListOp::kMapContains: {
      const auto& entries = static_cast<const StructArray&>(*l.elements());
      for (int64_t j = begin; j < end; ++j) {
        if (!SqlEqual(entries.children()[0]->GetScalar(j), rest[0])) continue;
        if (op == ListOp::kMapContains) return Scalar::Of(true);
        const Scalar v = entries.children()[1]->GetScalar(j);
        return v.is_null() ? none : v.As(result);
      }
      return op == ListOp::kMapContains ? Scalar::Of(false) : none;
    }
    case ListOp::kTransform:
    case ListOp::kFilter: break;  // a list, read by the list functions (NestedAtRow, ir/reference.cc)
  }
  return none;
}

}  // namespace rowjit::ir
