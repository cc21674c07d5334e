// The binder's rules that need no binder state: untyped literals, the logical type arguments
// share, temporal arithmetic's pairs, and where errors point and what they suggest (ir layer).
#include <algorithm>

#include "ir/binder_internal.h"
#include "ir/function.h"
#include "ir/temporal.h"
#include "runtime/builder.h"
#include "runtime/suggest.h"

namespace rowjit::ir::internal {
namespace {

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

// The words an unknown column may have been meant as: the literals' keywords.
constexpr std::string_view kValueWords[] = {"true", "false", "null", "nan", "inf"};
// Other engines' names of catalog functions, suggested (never read: an alias is the catalog's
// decision, ir/function.cc).
constexpr std::pair<std::string_view, std::string_view> kOtherFunctionNames[] = {
    {"ifnull", "coalesce"}, {"nvl", "coalesce"},  {"isnull", "is_null"},       {"substring", "substr"},
    {"ceiling", "ceil"},    {"strlen", "length"},        {"isnan", "is_nan"},
    {"modulo", "mod"},      {"character_length", "char_length"}};
// The calls the parser and binder read that are no catalog function (ir/function.h SurfaceForm).
constexpr std::string_view kSurfaceNames[] = {"cast", "date_part", "date_trunc", "extract", "nullif", "pi", "round"};

}  // namespace

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

// `e` about the text `node` was parsed from, unless it names a place already (an argument's
// error keeps the argument's span) or the node has none (a tree built in code).
Error At(const Expr& node, Error e) {
  if (e.span() || node.span().length == 0) return e;
  return std::move(e).WithSpan(node.span());
}

// " (did you mean 'sqrt'?)" for an unknown function name, from the catalog (names and aliases),
// SQL's forms and other engines' names; "" when none is close.
std::string FunctionSuggestion(const std::string& name) {
  for (const auto& [other, ours] : kOtherFunctionNames) {
    if (name == other) return DidYouMean(std::vector<std::string>{std::string(ours)});
  }
  std::vector<std::string_view> known(std::begin(kSurfaceNames), std::end(kSurfaceNames));
  for (const Function* f : AllFunctions()) {
    known.push_back(f->name);
    for (std::string_view alias : AliasesOf(f->name)) known.push_back(alias);
  }
  return DidYouMean(name, known);
}

std::string ColumnSuggestion(const std::string& name, const Schema& schema) {
  std::vector<std::string_view> known(std::begin(kValueWords), std::end(kValueWords));
  for (const Field& f : schema.fields) known.push_back(f.name);
  return DidYouMean(name, known);
}

}  // namespace rowjit::ir::internal
