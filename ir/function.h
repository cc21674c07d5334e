// Row-function descriptors and the catalog that registers them by family (ir layer).
// A function is one descriptor: name, argument names, type rule, null behaviour, fallibility,
// decode cost and scalar semantics. Adding one touches one list here and one lowering in jit/.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/array.h"
#include "runtime/status.h"
#include "runtime/types.h"

namespace rowjit::ir {

enum class NullBehavior : uint8_t {
  kStrict,  // any null argument gives null; the semantics only ever see non-null arguments
  kAware,   // sees null arguments and decides (is_null, coalesce, if, Kleene and/or, between)
};

// What a function does with arguments of logical types (decimal, date, time, timestamp,
// duration, interval: runtime/types.h), whose kernels compute on the storage integers. The
// binder refuses a logical argument unless the function says how it treats one.
enum class LogicalArgs : uint8_t {
  kRefused,      // numbers only: arithmetic on a date's storage would be a wrong answer
  kCompare,      // the unified arguments share one logical type (timestamps: one unit, and each
                 // with a zone or none) and compare as their storage does; intervals are
                 // rewritten first (ir/temporal.h BindIntervalCall)
  kPassThrough,  // as kCompare, and a result of the arguments' storage takes their logical type
  kTemporalArith,  // add/sub: timestamp ± duration, timestamp - timestamp, duration ± duration
                   // in one unit, date32 ± i32 days, date32 - date32 (ir/binder.cc)
  kAny,          // the type rule decides: is_null reads only nullness, temporal functions take
                 // their kinds (ir/functions_temporal.cc)
};

enum class Family : uint8_t { kArithmetic, kComparison, kBoolean, kBitwise, kCast, kNullAware, kFloat, kString, kTemporal, kDecimal };

// Result type from argument types (nullability included), or a type error naming the function.
using TypeRule = Result<DataType> (*)(std::string_view name, std::span<const DataType> args,
                                      std::optional<TypeId> type_arg);
// Scalar semantics: one row. Strict functions never see a null argument. A failure is an Error
// with code overflow, division by zero or invalid input; the evaluator adds the name and row.
using ScalarFn = Result<Scalar> (*)(std::span<const Scalar> args, DataType result,
                                    std::optional<TypeId> type_arg);
// Whether a call with these (bound) argument types and result type can fail on non-null input:
// checked integer arithmetic can overflow, float arithmetic cannot (inf and NaN are values); a
// cast fails only where it narrows. The analysis, nullable typing and the executor's policy go
// by it, and the kernels keep failure evidence only for calls where it holds.
using FailRule = bool (*)(std::span<const DataType> args, DataType result);
// Column-at-a-time semantics (string-valued functions, which no kernel computes): the call over
// `length` rows of its argument arrays (any encoding), the same values and nulls as `eval` row
// by row, its buffers from `pool` (null: the system allocator). Null when these argument types
// have no column form (the executor then runs `eval`).
using ColumnsFn = Result<ArrayPtr> (*)(std::span<const ArrayPtr> args, DataType result, int64_t length,
                                       const std::shared_ptr<MemoryPool>& pool);

// One row function. Written with designated initializers, so each row names what it sets:
//   {.name = "add", .arg_names = {"x", "y"}, .family = Family::kArithmetic,
//    .can_fail = FailsOnIntegers, .propagates_type = true, .type_rule = NumericRule, .eval = Add}
struct Function {
  std::string_view name;
  std::vector<std::string_view> arg_names;  // the arity; empty with `variadic` means 1 or more
  bool variadic = false;
  Family family = Family::kArithmetic;
  NullBehavior null_behavior = NullBehavior::kStrict;
  FailRule can_fail = nullptr;  // nullptr: never fails on non-null input
  int decode_cost = 0;          // extra per-row work the function does on its inputs (0 for numbers)
  int unify_from = 0;           // arguments from this index on share one type (-1: none)
  bool takes_type_arg = false;  // cast(x, T)
  bool propagates_type = false; // the result type is the unified argument type (so untyped
                                // literals inside take the type the caller expects: `a:u8 + (1 + 2)`)
  TypeRule type_rule = nullptr;
  ScalarFn eval = nullptr;
  LogicalArgs logical = LogicalArgs::kRefused;
  ColumnsFn columns = nullptr;  // string-valued functions: the column form (nullptr: none)

  bool strict() const { return null_behavior == NullBehavior::kStrict; }
  // Whether some argument types make the function fail (checked arithmetic, division, casts).
  bool fallible() const { return can_fail != nullptr; }
  size_t arity() const { return arg_names.size(); }
};

// Fail rules shared by families: checked integer arithmetic (any integer type; float arithmetic
// cannot fail), and functions that fail on signed integers only (abs of MIN).
bool FailsOnIntegers(std::span<const DataType> args, DataType result);
bool FailsOnSignedIntegers(std::span<const DataType> args, DataType result);

// Every registered function, family by family.
std::span<const Function* const> AllFunctions();
// By canonical name or alias ("checked_mul" → mul); nullptr when unknown.
const Function* FindFunction(std::string_view name);
// The canonical name of an alias, or the name itself.
std::string_view CanonicalName(std::string_view name);

// Per-family lists (ir/functions_*.cc); AllFunctions() concatenates them.
std::span<const Function> ArithmeticFunctions();
std::span<const Function> ComparisonFunctions();
std::span<const Function> BooleanFunctions();
std::span<const Function> BitwiseFunctions();
std::span<const Function> CastFunctions();
std::span<const Function> NullAwareFunctions();
std::span<const Function> FloatFunctions();
std::span<const Function> StringFunctions();
std::span<const Function> TemporalFunctions();
std::span<const Function> DecimalFunctions();

// The float comparison rule shared by the catalog and the kernels: NaN equals NaN and is
// greater than every number; -0.0 equals 0.0 (as in DuckDB and PostgreSQL).
template <typename T>
int CompareTotalSql(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool nx = x != x, ny = y != y;
    if (nx || ny) return nx == ny ? 0 : (nx ? 1 : -1);
  }
  return x < y ? -1 : (y < x ? 1 : 0);
}
// SQL's order of two non-null values of one type: strings bytewise (unsigned, a prefix first),
// floats by CompareTotalSql, 16-byte values as signed 128-bit integers.
int CompareScalarsSql(const Scalar& x, const Scalar& y);

}  // namespace rowjit::ir
