// Static binary arithmetic and comparison kernels over spans, every integer width and f32/f64
// (kernels layer): checked add/sub/mul, wrapping add/sub/mul, the six comparisons to bit-packed
// bools, each in the arms flat/flat, flat/constant, constant/flat and constant/constant.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/bitmap.h"

namespace rowjit::kernels {

// One argument: a flat span (values != nullptr) or a batch constant read for every row.
template <typename T>
struct Operand {
  const T* values = nullptr;
  T constant{};
  bool is_constant() const { return values == nullptr; }
  static Operand Flat(const T* v) { return Operand{v, T{}}; }
  static Operand Constant(T c) { return Operand{nullptr, c}; }
};

enum class ArithOp : uint8_t { kAdd, kSub, kMul };
enum class CompareOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// out[i] = a_i op b_i for `length` rows (the wrapped value where it overflows). Returns the
// first row whose exact result does not fit T, or -1; on failure the rows of `out` past that
// row's block are left unwritten. Evidence is OR-reduced branch-free over blocks of rows; only a
// block with evidence is rescanned to locate the row. Rows whose bit in `validity` is clear (a null input) never fail; validity.data ==
// nullptr means every row is valid, otherwise validity.length == length. Floats follow IEEE 754
// and never fail. `out` may alias a flat input.
template <typename T>
int64_t CheckedArith(ArithOp op, Operand<T> a, Operand<T> b, int64_t length, T* out,
                     BitSpan validity = {});

// out[i] = a_i op b_i modulo 2^width (integers only).
template <typename T>
  requires std::is_integral_v<T>
void WrappingArith(ArithOp op, Operand<T> a, Operand<T> b, int64_t length, T* out);

// out bit i (bit offset 0, NumBytes(length) bytes, trailing bits of the last byte zeroed) =
// a_i op b_i. Floats compare as SQL engines do: NaN equals NaN and is greater than every number,
// -0.0 equals 0.0.
template <typename T>
void Compare(CompareOp op, Operand<T> a, Operand<T> b, int64_t length, uint8_t* out);

}  // namespace rowjit::kernels
