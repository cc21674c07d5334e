// Binder: types, literal typing, nullability and folding (ir layer).
#include "ir/binder.h"

#include <algorithm>
#include <limits>

#include "ir/analysis.h"
#include "ir/decimal.h"
#include "ir/function.h"
#include "ir/function_internal.h"
#include "ir/parser.h"
#include "ir/temporal.h"
#include "runtime/builder.h"
#include "runtime/deep_stack.h"

namespace rowjit::ir {
namespace {

// Untyped: a literal without suffix, or a type-propagating call of untyped arguments only.
bool IsUntyped(const Expr& e) {
  if (e.is_literal()) return !e.literal_suffix().has_value() && e.literal_text() != "true" &&
                             e.literal_text() != "false";
  if (!e.is_call() || e.args().empty()) return false;
  const Function* f = FindFunction(e.name());
  // The arguments whose type is the result's (from unify_from: if's branches, not its
  // condition) are all untyped: `if(c, 1, null)` takes the type its caller expects.
  if (f == nullptr || !f->propagates_type || f->unify_from < 0) return false;
  const auto from = static_cast<size_t>(f->unify_from);
  if (e.args().size() <= from) return false;
  for (size_t i = from; i < e.args().size(); ++i) {
    if (!IsUntyped(*e.args()[i])) return false;
  }
  return true;
}

bool LooksFloat(const std::string& text) {
  return text.find_first_of(".eE") != std::string::npos || text == "nan" || text == "-nan" ||
         text == "inf" || text == "-inf";
}

// The type an untyped literal gets when nothing around it says: i32 if it fits, else i64, else
// u64; floats f64; true/false bool.
Result<TypeId> DefaultLiteralType(const std::string& text) {
  if (text == "true" || text == "false") return TypeId::kBool;
  if (!text.empty() && text.front() == '\'') return TypeId::kUtf8;
  if (text == "null") {
    return MakeError(ErrorCode::kTypeError,
                     "cannot infer the type of an untyped null; write null:TYPE (null:i32)");
  }
  if (LooksFloat(text)) return TypeId::kF64;
  for (TypeId id : {TypeId::kI32, TypeId::kI64, TypeId::kU64}) {
    if (ParseScalar(id, text).ok()) return id;
  }
  return MakeError(ErrorCode::kTypeError, "integer literal {} does not fit any integer type", text);
}

// Timestamps compare across zones (Arrow stores instants in UTC) but not with zoneless ones
// (local times); every other logical type only with itself.
bool Comparable(const DataType& x, const DataType& y, LogicalArgs rule) {
  if (x.SameType(y)) return true;
  return rule == LogicalArgs::kCompare && x.logical == LogicalKind::kTimestamp && y.logical == LogicalKind::kTimestamp &&
         x.unit == y.unit && x.tz != 0 && y.tz != 0;
}

// add and sub over temporal types (LogicalArgs::kTemporalArith): the SQL pairs whose storage
// arithmetic is the answer, in one unit (a unit conversion is a cast, which does not exist yet):
//   timestamp ± duration -> timestamp (its zone)   duration + timestamp -> timestamp
//   timestamp - timestamp -> duration (both with a zone or both without)
//   duration ± duration -> duration                date32 ± i32 days -> date32, i32 + date32 -> date32
//   date32 - date32 -> i32 days (PostgreSQL's integer)
// The storage's checked add or sub computes it: an overflow is an error in its row.
Result<std::optional<DataType>> TemporalArith(const Function& f, std::span<const DataType> types) {
  const DataType x = types[0].WithNullable(false), y = types[1].WithNullable(false);
  const bool add = f.operation == Operation::kAdd;
  auto is = [](const DataType& t, LogicalKind k) { return t.logical == k; };
  const bool same_unit = x.unit == y.unit;
  using Out = std::optional<DataType>;
  if (is(x, LogicalKind::kTimestamp) && is(y, LogicalKind::kDuration) && same_unit) return Out(x);
  if (add && is(x, LogicalKind::kDuration) && is(y, LogicalKind::kTimestamp) && same_unit) return Out(y);
  if (is(x, LogicalKind::kDuration) && is(y, LogicalKind::kDuration) && same_unit) return Out(x);
  if (!add && is(x, LogicalKind::kTimestamp) && is(y, LogicalKind::kTimestamp) && same_unit && (x.tz != 0) == (y.tz != 0)) {
    return Out(DataType::Temporal(LogicalKind::kDuration, x.time_unit()).value());
  }
  const DataType date32 = *DataType::Temporal(LogicalKind::kDate, TimeUnit::kDay);
  const DataType days(TypeId::kI32);
  if (x == date32 && y == days) return Out(date32);
  if (add && x == days && y == date32) return Out(date32);
  if (!add && x == date32 && y == date32) return Out();  // i32 days
  return MakeError(ErrorCode::kTypeError,
                   "{} does not take {} and {} (timestamp ± duration, timestamp - timestamp, duration ± duration "
                   "in one unit; date32 ± i32 days)",
                   f.name, x.ToString(), y.ToString());
}

// The binder's rule for arguments of logical types (ir/function.h LogicalArgs): the logical type
// the unified arguments share, nullopt when the call has none (or reads only nullness). A null
// literal joins any group (`if(c, t, null)`: it took the storage type when it was bound).
Result<std::optional<DataType>> LogicalGroup(const Function& f, std::span<const DataType> types,
                                             std::span<const ExprPtr> args) {
  const DataType* first = nullptr;
  for (const DataType& t : types) {
    if (t.is_logical() && first == nullptr) first = &t;
  }
  if (first == nullptr || f.logical == LogicalArgs::kAny) return std::optional<DataType>();
  if (f.logical == LogicalArgs::kTemporalArith && types.size() == 2) return TemporalArith(f, types);
  const std::string type = first->WithNullable(false).ToString();
  if (f.logical == LogicalArgs::kRefused) {
    return MakeError(ErrorCode::kTypeError, "{} does not take {} (a logical type over {}; no rule of {} covers it yet)",
                     f.name, type, TypeIdName(first->id), f.name);
  }
  if (first->logical == LogicalKind::kInterval && f.logical != LogicalArgs::kPassThrough) {
    // Comparisons of intervals are BindIntervalCall's rewrites; their storage does not order them.
    return MakeError(ErrorCode::kUnsupported, "{} of {} is not supported", f.name, type);
  }
  const size_t unify = f.unify_from < 0 ? types.size() : static_cast<size_t>(f.unify_from);
  auto fits = [&](size_t i) {
    const bool null_literal = args[i]->is_literal() && args[i]->value().is_null();
    return i < unify ? !types[i].is_logical() : null_literal || Comparable(*first, types[i], f.logical);
  };
  // Intervals of mixed types are widened where every argument is one (WidenMixedIntervals): an
  // argument that is no interval is the one to name.
  auto interval = [&](size_t i) { return types[i].logical == LogicalKind::kInterval; };
  std::optional<size_t> bad;
  for (size_t i = 0; i < types.size(); ++i) {
    if (!fits(i) && (!bad || (interval(*bad) && !interval(i)))) bad = i;
  }
  if (bad) {
    return MakeError(ErrorCode::kTypeError,
                     "{} of {} and {}: {}'s arguments must share one logical type (a literal of a logical type "
                     "cannot be written yet; compare with a column)",
                     f.name, type, types[*bad].WithNullable(false).ToString(), f.name);
  }
  return std::optional<DataType>(first->WithNullable(false));
}

class Binder {
 public:
  explicit Binder(const Schema& schema) : schema_(schema) {}

  // `expected`: the type the surrounding call wants for an untyped subtree.
  Result<ExprPtr> BindNode(const ExprPtr& e, std::optional<TypeId> expected,
                           std::string_view context) {
    switch (e->kind()) {
      case ExprKind::kColumn: return BindColumn(*e);
      case ExprKind::kLiteral: return BindLiteral(*e, expected, context);
      case ExprKind::kCall: return BindCall(*e, expected);
    }
    return MakeError(ErrorCode::kInternal, "unknown expression kind");
  }

 private:
  Result<ExprPtr> BindColumn(const Expr& e) {
    const int index = schema_.FieldIndex(e.name());
    if (index < 0) {
      return MakeError(ErrorCode::kInvalidInput, "unknown column '{}' (the schema has {})",
                       e.name(), schema_.ToString());
    }
    return Expr::BoundColumn(e.name(), index, schema_.fields[index].type);
  }

  Result<ExprPtr> BindLiteral(const Expr& e, std::optional<TypeId> expected,
                              std::string_view context) {
    const std::string& text = e.literal_text();
    TypeId type;
    if (e.literal_suffix()) {
      type = *e.literal_suffix();
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
    if (!name) return MakeError(ErrorCode::kInvalidInput, "{}: unknown part {}", e.name(), text);
    return std::optional<ExprPtr>(Expr::Call(*name, {e.args()[1]}));
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
      ROWJIT_ASSIGN_OR_RETURN(const DataType to, ParseDataType(text.substr(1, text.size() - 2)));
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
        ROWJIT_ASSIGN_OR_RETURN(const Scalar value, std::move(literal));  // more than 18 digits: an error
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
      ROWJIT_ASSIGN_OR_RETURN(const Scalar value, type.logical == LogicalKind::kDuration ? ParseDurationLiteral(text.str(), type)
                                                  : type.logical == LogicalKind::kInterval ? ParseIntervalLiteral(text.str(), type)
                                                                                           : ParseTemporalLiteral(text.str(), type));
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
        ROWJIT_ASSIGN_OR_RETURN(const Scalar interval, ParseIntervalLiteral(value.str(), literal_type));
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
        ROWJIT_ASSIGN_OR_RETURN(const Scalar length, ParseDurationLiteral(value.str(), type));
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

  Result<ExprPtr> BindCall(const Expr& e, std::optional<TypeId> expected) {
    ROWJIT_ASSIGN_OR_RETURN(std::optional<ExprPtr> rewritten, RewriteTemporal(e));
    if (rewritten) return BindNode(*rewritten, expected, "");
    ROWJIT_ASSIGN_OR_RETURN(std::optional<ExprPtr> special, BindLogicalCastOrRound(e));
    if (special) return *special;
    const Function* f = FindFunction(e.name());
    if (f == nullptr && SurfaceFormOf(e) == SurfaceForm::kLog) {
      // numpy's log is natural, SQL's (PostgreSQL, DuckDB) is base 10: neither is guessed.
      return MakeError(ErrorCode::kInvalidInput, "unknown function 'log': write ln (natural) or log10");
    }
    if (f == nullptr) return MakeError(ErrorCode::kInvalidInput, "unknown function '{}'", e.name());
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
    // Bind typed arguments first; untyped ones in the unified group then take their type.
    std::vector<ExprPtr> bound(n);
    std::optional<TypeId> group;
    const size_t unify = f->unify_from < 0 ? n : static_cast<size_t>(f->unify_from);
    for (size_t i = 0; i < n; ++i) {
      if (i >= unify && IsUntyped(*e.args()[i])) continue;
      ROWJIT_ASSIGN_OR_RETURN(bound[i], BindNode(e.args()[i], std::nullopt, ""));
      if (i >= unify && !group) group = bound[i]->type().id;
    }
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
    for (size_t i = unify; i < n; ++i) {
      if (bound[i]) continue;
      std::string context;
      if (group) {
        context = fmt::format(" (the other arguments of {} are {})", f->name, TypeIdName(*group));
      }
      ROWJIT_ASSIGN_OR_RETURN(bound[i], BindNode(e.args()[i], group, context));
      if (!group) group = bound[i]->type().id;
    }
    // coalesce and if over intervals of mixed types: interval_month_day_nano (greatest and least
    // widened theirs in BindIntervalOperands).
    if (f->logical == LogicalArgs::kPassThrough) WidenMixedIntervals(bound, unify, &Fold);
    std::vector<DataType> types;
    for (const auto& b : bound) types.push_back(b->type());
    ROWJIT_ASSIGN_OR_RETURN(std::optional<DataType> logical, LogicalGroup(*f, types, bound));
    ROWJIT_ASSIGN_OR_RETURN(DataType type, f->type_rule(f->name, types, e.type_arg()));
    if ((f->logical == LogicalArgs::kPassThrough || f->logical == LogicalArgs::kTemporalArith) && logical &&
        type.id == logical->id) {
      type = logical->WithNullable(type.nullable);
    }
    if (f->strict()) type.nullable = internal_AnyNullable(types);
    ExprPtr call = Expr::BoundCall(f, std::move(bound), e.type_arg(), type);
    return Fold(call);
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
};

}  // namespace

namespace {

Result<ExprPtr> BindWithin(const ExprPtr& expr, const Schema& schema, const Limits& limits) {
  if (static_cast<int64_t>(schema.fields.size()) > limits.max_columns) {
    return MakeError(ErrorCode::kInvalidInput, "schema of {} columns; the limit is {} (Limits::max_columns)",
                     schema.fields.size(), limits.max_columns);
  }
  const ExprFacts& shape = expr->facts();  // of the unbound tree: its depth and nodes
  ROWJIT_RETURN_NOT_OK(CheckLimits(shape, limits));
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr bound, WithStackForDepth(shape.depth, [&] {
                            return Binder(schema).BindNode(expr, std::nullopt, "");
                          }));
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

Result<ExprPtr> Bind(const ExprPtr& expr, const Schema& schema, const Limits& limits) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");
  return NoThrow([&] { return BindWithin(expr, schema, limits); });
}

Result<ExprPtr> ParseAndBind(std::string_view text, const Schema& schema, const Limits& limits) {
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, Parse(text, limits));
  return Bind(e, schema, limits);
}

}  // namespace rowjit::ir
