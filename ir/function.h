// Row-function descriptors and the catalog that registers them by family (ir layer).
// A function is one descriptor: name, argument names, type rule, null behaviour, fallibility,
// decode cost and scalar semantics. Adding one touches one list here and one lowering in jit/.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/vector_math.h"
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

enum class Family : uint8_t { kArithmetic, kComparison, kBoolean, kBitwise, kCast, kNullAware, kFloat, kString, kTemporal, kDecimal, kVector, kStruct, kList, kConstruct };

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

// How a call prints in the canonical text (ir/expr.cc), which parses back to the same call.
enum class Syntax : uint8_t {
  kCall,    // name(x, y)
  kInfix,   // x <symbol> y
  kPrefix,  // <symbol> x
  kInList,  // x in (a, b, ...)
  kCast,    // cast(x, T): a call the binder made for a cast; T is its result type
};

// What a kernel pays for a function beyond its plain arithmetic; the kernels' loops are chosen by
// it (jit/codegen/costly.h).
enum class KernelCost : uint8_t {
  kPlain,
  kCheckedMultiply,  // a checked integer product, whose exact overflow evidence costs more than
                     // the product itself at some widths (speculated or rechecked by blocks)
  kDecimalMultiply,  // a decimal product: with an operand wider than 32 bits its evidence is
                     // rechecked by blocks
  kTrig,             // sin, cos, tan: arguments from 2^20 pi/2 on need a table-driven reduction
};

// SQL's guards: calls that take an argument only where the ones before it decide so, so that an
// error in an argument not taken is not raised (the reference evaluator and the kernels alike).
enum class Guard : uint8_t {
  kNone,
  kIf,        // if(c, x, y): x where c is true, y where it is false or null
  kCoalesce,  // an argument only where every earlier one is null
  kAnd,       // Kleene and: the right operand where the left is not false
  kOr,        // Kleene or: the right operand where the left is not true
};

// The string length test a predicate implies when one argument is a literal (jit/codegen/
// prefilter.h): equality needs the literal's length, a LIKE pattern at least its fixed bytes.
enum class ImpliedLength : uint8_t { kNone, kEquals, kLike };

// The arithmetic a function performs, for the binder's rules over logical types: dates and
// timestamps plus or minus intervals, durations scaled, divided and counted, intervals compared,
// picked and combined (ir/binder.cc, ir/temporal.h).
enum class Operation : uint8_t {
  kOther,
  kAdd, kSub, kMul, kDiv, kNeg, kAbs,
  kCompare,  // eq, ne, lt, le, gt, ge, between, in_list
  kPick,     // greatest, least: one of the arguments
  kCast,     // cast(x, T)
};

// The numbers a function computes on, for the binder's implicit casts (ir/promotion.h): the
// unified arguments of different numeric types are cast to their common type where the type
// rule takes it (bit_and of i32 and f64 stays a type error: a float is never truncated), and
enum class NumberDomain : uint8_t {
  kAny,    // that type is taken as it is
  kFloat,  // floats only (sqrt, power, sin): integers and decimals are cast to f64, as DuckDB does
};

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

  // Properties other parts read instead of testing the name:
  Syntax syntax = Syntax::kCall;
  std::string_view symbol = {};  // the operator of kInfix and kPrefix calls
  bool literal_set = false;      // arguments after the first are a set of literals, baked into
                                 // kernels and counted as no nodes (in_list)
  KernelCost kernel_cost = KernelCost::kPlain;
  Guard guard = Guard::kNone;
  ImpliedLength implied_length = ImpliedLength::kNone;
  bool counts_code_points = false;  // char_length: a word's rows counted at once over a string
                                    // column (jit/codegen/prefilter.h WordCodePointsOf)

  // Documentation (docs/functions.md, generated by `rowjit functions --markdown`):
  std::string_view summary = {};  // one sentence: what the function computes (docs/functions.md)
  std::string_view notes = {};    // its edges: errors, nulls, NaN/-0.0, rounding, units (may be empty)
  Operation operation = Operation::kOther;  // for the binder's logical-type rules
  NumberDomain numbers = NumberDomain::kAny;  // for the binder's implicit numeric casts
  std::optional<VectorScore> vector_score = std::nullopt;  // a vector function: the score it computes

  bool strict() const { return null_behavior == NullBehavior::kStrict; }
  // Whether some argument types make the function fail (checked arithmetic, division, casts).
  bool fallible() const { return can_fail != nullptr; }
  size_t arity() const { return arg_names.size(); }
};

// Fail rules shared by families: checked integer arithmetic (any integer type; float arithmetic
// cannot fail), and functions that fail on signed integers only (abs of MIN).
bool FailsOnIntegers(std::span<const DataType> args, DataType result);
bool FailsOnSignedIntegers(std::span<const DataType> args, DataType result);

class Expr;

// Surface forms: calls the parser writes that are not catalog calls as they stand, which the
// binder rewrites before it looks up a descriptor (and the printer writes back as written).
enum class SurfaceForm : uint8_t {
  kNone,
  kLogicalCast,   // cast(x, 'decimal64(12,2)'): a cast to a logical type, the type as text
                  // (any two-argument cast: the binder refuses other second arguments)
  kDecimalRound,  // round(x, n): a decimal rounded to n digits
  kDatePart,      // date_part('year', t): the catalog function the part names (year(t))
  kDateTrunc,     // date_trunc('month', t): likewise (date_trunc_month(t))
  kLog,           // log(x): no catalog function, refused with a hint (ln or log10)
  kLambda,        // x -> body, lambda('x', body): list_transform's and list_filter's second argument
  kNamed,         // x := value, named('x', value): struct_pack's argument, a field and its value
};
// The surface form of an unbound call (kNone for a bound one, or any other call).
SurfaceForm SurfaceFormOf(const Expr& call);

// Every registered function, family by family.
std::span<const Function* const> AllFunctions();
// By canonical name or alias ("checked_mul" → mul); nullptr when unknown.
const Function* FindFunction(std::string_view name);
// The canonical name of an alias, or the name itself.
std::string_view CanonicalName(std::string_view name);
// The aliases of the function called `canonical` ("mul" → {"checked_mul"}), in the alias
// table's order; empty when it has none.
std::vector<std::string_view> AliasesOf(std::string_view canonical);

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
std::span<const Function> VectorFunctions();
std::span<const Function> StructFunctions();
std::span<const Function> ConstructFunctions();
std::span<const Function> ListFunctions();  // and maps'
// The index of the field a bound struct_field call reads, or -1.
int StructFieldIndex(const Expr& call);

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
