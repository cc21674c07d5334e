// Decimal arithmetic (ir layer): the operands' precision and scale, the SQL result rules, decimal
// literals, and the binder's rewrite of a call over decimals into the catalog's decimal functions
// (ir/functions_decimal.cc) and storage operations.
//
// Two storage classes. decimal128 columns (16-byte storage, Arrow's default and DuckDB's export
// of every DECIMAL) of at most 18 digits are narrowed to decimal64 by row, and a call whose
// operands are all decimal32/decimal64 or integers computes in 64 bits (decimal64): its result
// precision is capped at 18, and a value that needs more is an overflow error in its row, like
// checked integers. A call with an operand of more than 18 digits (decimal(P,S), P 19..38, in
// 16-byte storage) computes in 128 bits: its result is a decimal(P,S) of 16-byte storage, the
// precision capped at 38. Every operand is first rescaled to the result's scale; an operand that
// then needs more digits than its class holds is an overflow too.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/expr.h"
#include "runtime/status.h"
#include "runtime/types.h"

namespace rowjit::ir {

inline constexpr int kMaxDecimal64Digits = 18;
inline constexpr int kMaxDecimalDigits = 38;

// 10^k for 0 <= k <= 18.
int64_t Pow10(int k);
// 10^k for 0 <= k <= 38.
__int128 Pow10Wide(int k);

// Precision and scale of a decimal, or of an integer read as a decimal of scale 0 (i8 and u8: 3
// digits, i16 and u16: 5, i32 and u32: 10, i64: 18 — its 19th digit is an overflow error when
// it meets a decimal); nullopt for every other type (u64, floats, strings, temporal types).
struct DecimalSpec {
  int precision;
  int scale;
};
std::optional<DecimalSpec> DecimalOperand(const DataType& t);

// decimal64(precision, scale); precision 1..18.
DataType Decimal64(int precision, int scale);
// Whether `t` is a decimal of 16-byte storage (computed in 128 bits once narrowing is done).
bool IsDecimal128(const DataType& t);

// The exact decimal literal of `text` ("1.50" is 150 at decimal64(3, 2); "7" is 7 at
// decimal64(1, 0); 19 to 38 digits give a decimal(P, S) of 16-byte storage), or a type error.
Result<Scalar> DecimalLiteral(std::string_view text);

// The call `name(args)` over bound arguments of which at least one is a decimal, written as the
// decimal functions and storage operations that compute it, or nullopt when `name` has no
// decimal rule (the binder then refuses it as it refuses other logical types).
Result<std::optional<ExprPtr>> BindDecimalCall(std::string_view name, std::vector<ExprPtr> args,
                                               std::optional<TypeId> type_arg, FoldFn fold);
// cast(x, T) to a decimal type T (decimal32/64, or decimal(P,S): with P <= 18 computed as
// decimal64(P,S), above in 16-byte storage).
Result<ExprPtr> BindDecimalCast(const ExprPtr& x, DataType to, FoldFn fold);
// round(x, digits) of a decimal: to `digits` after the point (half away from zero).
Result<ExprPtr> BindDecimalRound(const ExprPtr& x, int digits, FoldFn fold);

// A decimal128 (16-byte storage) of at most 18 digits as decimal64(P, S), through decimal_cast
// (whose kernel reads both halves and fails a row whose value does not fit); x itself otherwise.
ExprPtr NarrowDecimal128(const ExprPtr& x, FoldFn fold);

// Whether the function named `name` has a decimal rule (the binder types untyped literals among
// its arguments as decimals when another argument is one).
bool HasDecimalRule(std::string_view name);

}  // namespace rowjit::ir
