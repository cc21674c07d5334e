// Filter (compress the rows whose mask bit is set) and scatter (the inverse) for every width and
// for bit-packed bools (kernels layer). They serve the filter-and-scatter null strategy.
#pragma once

#include <cstdint>

#include "kernels/bitmap.h"

namespace rowjit::kernels {

// Copies values[i] for every set mask bit i < mask.length, in order, to out[0, k); returns k.
// `out` holds CountSetBits(mask) values of `width` bytes (1, 2, 4, 8).
int64_t Filter(const void* values, BitSpan mask, int width, void* out);
// The inverse: the k-th set mask bit i gets out[i] = values[k]. Rows whose bit is clear are left
// untouched, so the caller decides what they hold. `out` holds mask.length values.
void Scatter(const void* values, BitSpan mask, int width, void* out);

// Bit-packed bools: out (bit offset 0) gets values bit i for every set mask bit i, in order;
// returns the count. values.length == mask.length. Bits of out past the count are zeroed up to
// the end of its last byte.
int64_t FilterBits(BitSpan values, BitSpan mask, uint8_t* out);
// The k-th set mask bit i gets out bit i = values bit k (values at any offset, holding at least
// CountSetBits(mask) bits); clear mask positions keep their bits. out is at bit offset 0.
void ScatterBits(BitSpan values, BitSpan mask, uint8_t* out);

// Selections (32-bit row indices, ascending). out[0, k) = first + i for every set mask bit i, in
// order; returns k. `out` must hold CountSetBits(mask) + kIndexSlack entries: the vector forms
// store whole vectors past the count (AVX-512: one vpcompressd per 16 rows; AVX2: 8 indices from
// a table per byte of the mask). mask.length + first must fit in 32 bits.
inline constexpr int64_t kIndexSlack = 16;
int64_t SetBitIndices(BitSpan mask, uint32_t first, uint32_t* out);
// Take: out[i] = values[indices[i]] for i < n, `width` bytes each (1, 2, 4, 8).
void Gather(const void* values, const uint32_t* indices, int64_t n, int width, void* out);
// out bit i (bit offset 0) = bit indices[i] of `bits`; the bits past n in out's last byte are zero.
void GatherBits(BitSpan bits, const uint32_t* indices, int64_t n, uint8_t* out);

template <typename T>
int64_t Filter(const T* values, BitSpan mask, T* out) {
  return Filter(values, mask, static_cast<int>(sizeof(T)), out);
}
template <typename T>
void Scatter(const T* values, BitSpan mask, T* out) {
  Scatter(values, mask, static_cast<int>(sizeof(T)), out);
}

}  // namespace rowjit::kernels
