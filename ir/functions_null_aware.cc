// Null-aware row functions (ir layer): is_null, is_not_null, coalesce, greatest, least, if (a null condition
// takes the else branch), between (x >= lo and x <= hi in Kleene logic), in_list (SQL's IN).
#include "ir/function_internal.h"
#include "ir/string_columns.h"
#include "ir/temporal.h"

namespace rowjit::ir {
namespace {

Result<Scalar> IsNull(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].is_null());
}
Result<Scalar> IsNotNull(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(!a[0].is_null());
}
Result<DataType> IsNullRule(std::string_view, std::span<const DataType>, std::optional<TypeId>) {
  return DataType(TypeId::kBool, false);
}

Result<Scalar> Coalesce(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  for (const Scalar& s : a) {
    if (!s.is_null()) return s;
  }
  return Scalar::Null(result.id);
}
int Order(const Scalar& x, const Scalar& y) { return CompareScalarsSql(x, y); }

// greatest, least: the extreme of the non-null arguments (PostgreSQL, DuckDB), the first of equals;
// null only when every argument is.
// Intervals (all of one type) order as PostgreSQL's do, a month 30 days (ir/temporal.h).
template <bool kGreatest>
Result<Scalar> Extreme(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  auto order = [&](const Scalar& x, const Scalar& y) {
    if (result.logical != LogicalKind::kInterval) return Order(x, y);
    const __int128 lx = IntervalLength(PartsOf(x.As(result))), ly = IntervalLength(PartsOf(y.As(result)));
    return (lx > ly) - (lx < ly);
  };
  const Scalar* best = nullptr;
  for (const Scalar& s : a) {
    if (s.is_null()) continue;
    if (best == nullptr || (kGreatest ? order(*best, s) < 0 : order(s, *best) < 0)) best = &s;
  }
  return best != nullptr ? *best : Scalar::Null(result.id);
}

// x in (items): true where x equals an item; otherwise null where x or some item is null, else
// false (SQL's three values: `2 in (1, null)` is null). Every item is evaluated (no guards), as
// PostgreSQL and DuckDB evaluate an IN list.
Result<Scalar> InList(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  if (a[0].is_null()) return Scalar::Null(TypeId::kBool);
  bool unknown = false;
  for (const Scalar& s : a.subspan(1)) {
    if (s.is_null()) {
      unknown = true;
    } else if (Order(a[0], s) == 0) {
      return Scalar::Of(true);
    }
  }
  return unknown ? Scalar::Null(TypeId::kBool) : Scalar::Of(false);
}
Result<DataType> InListRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId> t) {
  if (a.size() < 2) return internal::TypeMismatch(n, a, "takes a value and at least one item");
  return internal::CompareRule(n, a, t);
}

Result<DataType> CoalesceRule(std::string_view n, std::span<const DataType> a,
                              std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(DataType t, internal::SameType(n, a, [](TypeId) { return true; }, "",
                                                         false));
  bool all_nullable = true;
  for (const DataType& d : a) all_nullable = all_nullable && d.nullable;
  return t.WithNullable(all_nullable);
}

Result<Scalar> If(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const Scalar& pick = (!a[0].is_null() && a[0].value<bool>()) ? a[1] : a[2];
  return pick.is_null() ? Scalar::Null(result.id) : pick;
}
Result<DataType> IfRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (a[0].id != TypeId::kBool) {
    return internal::TypeMismatch(n, a, "the condition must be bool");
  }
  ROWJIT_ASSIGN_OR_RETURN(DataType t, internal::SameType(n, a.subspan(1),
                                                         [](TypeId) { return true; }, "", false));
  return t;  // nullable when either branch is; a null condition alone picks the else branch
}

Result<Scalar> Between(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  // (x >= lo) and (x <= hi), three-valued.
  auto cmp = [](const Scalar& x, const Scalar& y, bool ge) -> Scalar {
    if (x.is_null() || y.is_null()) return Scalar::Null(TypeId::kBool);
    const int c = Order(x, y);
    return Scalar::Of(ge ? c >= 0 : c <= 0);
  };
  const Scalar lo = cmp(a[0], a[1], true), hi = cmp(a[0], a[2], false);
  if ((!lo.is_null() && !lo.value<bool>()) || (!hi.is_null() && !hi.value<bool>())) {
    return Scalar::Of(false);
  }
  if (lo.is_null() || hi.is_null()) return Scalar::Null(TypeId::kBool);
  return Scalar::Of(true);
}
Result<DataType> BetweenRule(std::string_view n, std::span<const DataType> a,
                             std::optional<TypeId> t) {
  return internal::CompareRule(n, a, t);
}

// --- column forms over strings (ir/string_columns.h): each row copies the argument the row
// form picks; other types have none (kernels compute them).

// The argument `choose(i, valid, text)` picks for row i (-1: the row is null), copied;
// `valid(k, i)` tells whether argument k is valid in row i, `text(k, i)` reads a string argument.
template <typename ChooseFn>
Result<ArrayPtr> PickStrings(std::span<const ArrayPtr> a, size_t first_string, DataType r, int64_t length,
                             const std::shared_ptr<MemoryPool>& pool, ChooseFn choose) {
  std::vector<Validity> valid;
  std::vector<StringReader> in;
  for (size_t k = 0; k < a.size(); ++k) {
    ROWJIT_ASSIGN_OR_RETURN(Validity v, ir::RowValidity(*a[k]));
    valid.push_back(std::move(v));
    if (k >= first_string) in.emplace_back(*a[k]);
  }
  auto is_valid = [&](size_t k, int64_t i) { return valid[k].IsValid(i); };
  auto text = [&](size_t k, int64_t i) { return in[k - first_string].Get(i); };
  std::vector<int32_t> picked(static_cast<size_t>(length));
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(length));
  for (int64_t i = 0; i < length; ++i) {
    picked[static_cast<size_t>(i)] = choose(i, is_valid, text);
    kernels::SetBitTo(bits->mutable_data(), i, picked[static_cast<size_t>(i)] >= 0);
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity out, Validity::FromBitmap(std::move(bits), 0, length));
  return ProduceStrings(
      r, length, std::move(out), pool,
      [&](int64_t i) { return static_cast<int64_t>(text(static_cast<size_t>(picked[static_cast<size_t>(i)]), i).size()); },
      [&](int64_t i, uint8_t* dst) {
        const std::string_view v = text(static_cast<size_t>(picked[static_cast<size_t>(i)]), i);
        CopyString(v, dst);
        return static_cast<int64_t>(v.size());
      });
}

Result<ArrayPtr> CoalesceColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  if (!IsString(r.id)) return ArrayPtr();
  return PickStrings(a, 0, r, length, pool, [&](int64_t i, auto is_valid, auto) -> int32_t {
    for (size_t k = 0; k < a.size(); ++k) {
      if (is_valid(k, i)) return static_cast<int32_t>(k);
    }
    return -1;
  });
}

// greatest, least over strings: the extreme of the valid arguments bytewise, the first of equals.
template <bool kGreatest>
Result<ArrayPtr> ExtremeColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  if (!IsString(r.id)) return ArrayPtr();
  return PickStrings(a, 0, r, length, pool, [&](int64_t i, auto is_valid, auto text) -> int32_t {
    int32_t best = -1;
    std::string_view at;
    for (size_t k = 0; k < a.size(); ++k) {
      if (!is_valid(k, i)) continue;
      const std::string_view v = text(k, i);
      if (best < 0 || (kGreatest ? at < v : v < at)) best = static_cast<int32_t>(k), at = v;
    }
    return best;
  });
}

// if(cond, x, y) over strings: x where cond is true, else y (a null condition takes y).
Result<ArrayPtr> IfColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  if (!IsString(r.id)) return ArrayPtr();
  const Array& cond = *a[0];
  return PickStrings(a, 1, r, length, pool, [&](int64_t i, auto is_valid, auto) -> int32_t {
    bool taken = false;
    if (is_valid(0, i)) {
      taken = cond.encoding() == Encoding::kBool ? static_cast<const BoolArray&>(cond).Value(i)
                                                 : cond.GetScalar(i).value<bool>();
    }
    const int32_t k = taken ? 1 : 2;
    return is_valid(static_cast<size_t>(k), i) ? k : -1;
  });
}

const Function kFunctions[] = {
    {.name = "is_null", .arg_names = {"x"}, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .unify_from = -1, .type_rule = IsNullRule,
     .eval = IsNull, .logical = LogicalArgs::kAny,
     .summary = "Whether x is null.",
     .notes = "Written `x is null`. Every type, logical types included; the result is never null."},
    {.name = "is_not_null", .arg_names = {"x"}, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .unify_from = -1, .type_rule = IsNullRule,
     .eval = IsNotNull, .logical = LogicalArgs::kAny,
     .summary = "Whether x is not null.",
     .notes = "Written `x is not null`. Every type, logical types included; the result is never null."},
    {.name = "coalesce", .arg_names = {}, .variadic = true, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .propagates_type = true, .type_rule = CoalesceRule,
     .eval = Coalesce, .logical = LogicalArgs::kPassThrough, .columns = CoalesceColumns,
     .guard = Guard::kCoalesce,
     .summary = "The first argument that is not null, or null when every argument is.",
     .notes = "One or more arguments of one type. Decimals of other scales are rescaled to a common type; "
              "intervals of mixed types are widened to interval_month_day_nano. Never fails itself."},
    {.name = "if", .arg_names = {"cond", "then", "else"}, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .unify_from = 1, .propagates_type = true,
     .type_rule = IfRule, .eval = If, .logical = LogicalArgs::kPassThrough, .columns = IfColumns,
     .guard = Guard::kIf,
     .summary = "`then` where `cond` is true, `else` where it is false or null.",
     .notes = "The result is null where the branch taken is. `case` and `nullif` bind to nested `if`s. "
              "Decimals of other scales are rescaled to a common type; intervals of mixed types are widened to "
              "interval_month_day_nano."},
    {.name = "greatest", .arg_names = {}, .variadic = true, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .propagates_type = true, .type_rule = CoalesceRule,
     .eval = Extreme<true>, .logical = LogicalArgs::kPassThrough,
     .columns = ExtremeColumns<true>,
     .summary = "The greatest argument that is not null, in SQL's order; null only when every argument is.",
     .notes = "Floats: NaN is greatest and -0.0 equals 0.0; strings bytewise; intervals by length (a month 30 "
              "days). Of equal arguments the first is kept. Never fails.", .operation = Operation::kPick},
    {.name = "least", .arg_names = {}, .variadic = true, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .propagates_type = true, .type_rule = CoalesceRule,
     .eval = Extreme<false>, .logical = LogicalArgs::kPassThrough,
     .columns = ExtremeColumns<false>,
     .summary = "The least argument that is not null, in SQL's order; null only when every argument is.",
     .notes = "Floats: NaN is greatest and -0.0 equals 0.0; strings bytewise; intervals by length (a month 30 "
              "days). Of equal arguments the first is kept. Never fails.", .operation = Operation::kPick},
    {.name = "between", .arg_names = {"x", "lo", "hi"}, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .type_rule = BetweenRule, .eval = Between, .logical = LogicalArgs::kCompare,
     .summary = "Whether lo <= x <= hi, computed as `x >= lo and x <= hi` in Kleene logic.",
     .notes = "Written `x between lo and hi`. `between(5, null, 3)` is false, `between(5, null, 9)` is null, "
              "`between(nan, 0, nan)` is true (the float order); lo > hi gives false. Never fails.", .operation = Operation::kCompare},
    {.name = "in_list", .arg_names = {}, .variadic = true, .family = Family::kNullAware,
     .null_behavior = NullBehavior::kAware, .type_rule = InListRule, .eval = InList, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInList, .literal_set = true,
     .summary = "Whether x equals an item: true on a match, else null where x or an item is null, else false.",
     .notes = "Written `x in (a, b, ...)`; items share x's type. Every item is evaluated (no guards). Floats: "
              "-0.0 equals 0.0, NaN equals NaN. `2 in (1, null)` is null. Never fails.", .operation = Operation::kCompare},
};

}  // namespace

std::span<const Function> NullAwareFunctions() { return kFunctions; }

}  // namespace rowjit::ir
