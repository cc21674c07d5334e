// SQL's implicit numeric casts (ir layer): the type operands of different numeric types meet in,
// and the type an untyped integer literal takes beside them. The binder casts the operands to it
// in the bound tree (ir/binder.cc), so evaluators and kernels see one type per call, as they
// always do. The table is in docs/semantics.md (Binding).
#pragma once

#include <span>
#include <string_view>

#include "runtime/status.h"
#include "runtime/types.h"

namespace rowjit::ir {

// The common type of plain numbers (i8..i64, u8..u64, f32, f64; decimals have their own rules
// in ir/decimal.h), following DuckDB's implicit casts:
//   - a float among them: f64 if one is f64, else f32 (an integer with f32 is f32, as in
//     DuckDB: i32 values past 2^24 round);
//   - integers of one signedness: the widest;
//   - signed with unsigned: the smallest signed type holding both (i8 with u8: i16; i32 with
//     u32: i64); u64 with a signed type has none: a type error naming `function`, the types and
//     the casts to write instead (no 128-bit integer type computes here).
Result<TypeId> CommonNumericType(std::span<const TypeId> types, std::string_view function);

// The type of an untyped integer literal written `text` beside operands of type `beside` (an
// integer type): `beside` when the value fits it, else the smallest type of beside's signedness
// that holds it (a u8 beside 300: u16), else the smallest signed type (a u8 beside -1: i8),
// else u64. The common type then decides: `u8_column < 300` compares in u16 and is always true.
TypeId LiteralIntegerType(std::string_view text, TypeId beside);

}  // namespace rowjit::ir
