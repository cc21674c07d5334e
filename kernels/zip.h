// Branch-free zip (select) kernels over spans: bit-packed bools, primitives of every width, and
// the validity of a zip result (kernels layer).
#pragma once

#include <cstdint>

#include "kernels/bitmap.h"

namespace rowjit::kernels {

// out bit i = mask_i ? if_true_i : if_false_i, one word blend (t & m) | (f & ~m) per 64 rows, so
// the cost does not depend on the mask's shape. Inputs at any bit offsets, equal lengths; out at
// bit offset 0, NumBytes(length) bytes, trailing bits of its last byte zeroed.
void BoolZip(BitSpan mask, BitSpan if_true, BitSpan if_false, uint8_t* out);

// out[i] = mask_i ? if_true[i] : if_false[i] for mask.length rows of `width` bytes (1, 2, 4, 8).
// Branch-free: both sides are read for every row. `out` may alias either input.
void PrimitiveZip(BitSpan mask, const void* if_true, const void* if_false, int width, void* out);

template <typename T>
void PrimitiveZip(BitSpan mask, const T* if_true, const T* if_false, T* out) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  PrimitiveZip(mask, if_true, if_false, static_cast<int>(sizeof(T)), out);
}

// The validity of one zip side: no bitmap when every row is valid or every row is null.
struct ValiditySide {
  enum class Kind : uint8_t { kAllValid, kAllNull, kBitmap };
  Kind kind = Kind::kAllValid;
  BitSpan bits;  // only for kBitmap; its length is the zip's length
};

// Validity of zip(mask, t, f): itself a bool zip of the two validities. When both sides are
// all-valid (or both all-null) the result is that kind and `out` is untouched; otherwise it is
// kBitmap and `out` (NumBytes(mask.length) bytes, offset 0) holds it. A null mask row must
// already read as false (SQL CASE: it selects if_false).
ValiditySide::Kind ZipValidity(BitSpan mask, ValiditySide if_true, ValiditySide if_false,
                               uint8_t* out);

}  // namespace rowjit::kernels
