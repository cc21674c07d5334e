// Comparisons for every type (ir layer). Strings compare bytewise as unsigned bytes. Floats: NaN equals NaN and is greater than every
// number, -0.0 equals 0.0 (the rule of DuckDB and PostgreSQL); bool orders false < true.
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

enum Op { kEq, kNe, kLt, kLe, kGt, kGe };

template <Op kOp>
Result<Scalar> Compare(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  if (IsString(a[0].type_id())) {  // bytewise, unsigned
    const int c = a[0].str().compare(a[1].str());
    return Scalar::Of(kOp == kEq ? c == 0 : kOp == kNe ? c != 0 : kOp == kLt ? c < 0
                      : kOp == kLe ? c <= 0 : kOp == kGt ? c > 0 : c >= 0);
  }
  if (a[0].type_id() == TypeId::kI128) {  // decimal128: the 16-byte integers
    const __int128 x = a[0].int128(), y = a[1].int128();
    return Scalar::Of(kOp == kEq ? x == y : kOp == kNe ? x != y : kOp == kLt ? x < y
                      : kOp == kLe ? x <= y : kOp == kGt ? x > y : x >= y);
  }
  return internal::VisitBinary(a, []<typename T>(T x, T y) -> Result<Scalar> {
    const int c = CompareTotalSql(x, y);
    bool r = false;
    switch (kOp) {
      case kEq: r = c == 0; break;
      case kNe: r = c != 0; break;
      case kLt: r = c < 0; break;
      case kLe: r = c <= 0; break;
      case kGt: r = c > 0; break;
      case kGe: r = c >= 0; break;
    }
    return Scalar::Of(r);
  });
}

const Function kFunctions[] = {
    {.name = "eq", .arg_names = {"x", "y"}, .family = Family::kComparison,
     .type_rule = internal::CompareRule, .eval = Compare<kEq>, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInfix, .symbol = "=", .implied_length = ImpliedLength::kEquals,
     .summary = "Whether x equals y (`=`).",
     .notes = "Every type; never fails. Floats: NaN equals NaN and is greater than every number, -0.0 equals "
              "0.0. Strings bytewise (unsigned bytes, a prefix first); bool false < true. Decimals of other "
              "scales are rescaled; zoned timestamps compare as instants; intervals by length (a month 30 "
              "days).", .operation = Operation::kCompare},
    {.name = "ne", .arg_names = {"x", "y"}, .family = Family::kComparison,
     .type_rule = internal::CompareRule, .eval = Compare<kNe>, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInfix, .symbol = "!=",
     .summary = "Whether x differs from y (`!=`, `<>`).",
     .notes = "Every type; never fails. Floats: NaN equals NaN and is greater than every number, -0.0 equals "
              "0.0. Strings bytewise (unsigned bytes, a prefix first); bool false < true. Decimals of other "
              "scales are rescaled; zoned timestamps compare as instants; intervals by length (a month 30 "
              "days).", .operation = Operation::kCompare},
    {.name = "lt", .arg_names = {"x", "y"}, .family = Family::kComparison,
     .type_rule = internal::CompareRule, .eval = Compare<kLt>, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInfix, .symbol = "<",
     .summary = "Whether x orders before y (`<`).",
     .notes = "Every type; never fails. Floats: NaN equals NaN and is greater than every number, -0.0 equals "
              "0.0. Strings bytewise (unsigned bytes, a prefix first); bool false < true. Decimals of other "
              "scales are rescaled; zoned timestamps compare as instants; intervals by length (a month 30 "
              "days).", .operation = Operation::kCompare},
    {.name = "le", .arg_names = {"x", "y"}, .family = Family::kComparison,
     .type_rule = internal::CompareRule, .eval = Compare<kLe>, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInfix, .symbol = "<=",
     .summary = "Whether x orders before y or equals it (`<=`).",
     .notes = "Every type; never fails. Floats: NaN equals NaN and is greater than every number, -0.0 equals "
              "0.0. Strings bytewise (unsigned bytes, a prefix first); bool false < true. Decimals of other "
              "scales are rescaled; zoned timestamps compare as instants; intervals by length (a month 30 "
              "days).", .operation = Operation::kCompare},
    {.name = "gt", .arg_names = {"x", "y"}, .family = Family::kComparison,
     .type_rule = internal::CompareRule, .eval = Compare<kGt>, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInfix, .symbol = ">",
     .summary = "Whether x orders after y (`>`).",
     .notes = "Every type; never fails. Floats: NaN equals NaN and is greater than every number, -0.0 equals "
              "0.0. Strings bytewise (unsigned bytes, a prefix first); bool false < true. Decimals of other "
              "scales are rescaled; zoned timestamps compare as instants; intervals by length (a month 30 "
              "days).", .operation = Operation::kCompare},
    {.name = "ge", .arg_names = {"x", "y"}, .family = Family::kComparison,
     .type_rule = internal::CompareRule, .eval = Compare<kGe>, .logical = LogicalArgs::kCompare,
     .syntax = Syntax::kInfix, .symbol = ">=",
     .summary = "Whether x orders after y or equals it (`>=`).",
     .notes = "Every type; never fails. Floats: NaN equals NaN and is greater than every number, -0.0 equals "
              "0.0. Strings bytewise (unsigned bytes, a prefix first); bool false < true. Decimals of other "
              "scales are rescaled; zoned timestamps compare as instants; intervals by length (a month 30 "
              "days).", .operation = Operation::kCompare},
};

}  // namespace

std::span<const Function> ComparisonFunctions() { return kFunctions; }

}  // namespace rowjit::ir
