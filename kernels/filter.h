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

template <typename T>
int64_t Filter(const T* values, BitSpan mask, T* out) {
  return Filter(values, mask, static_cast<int>(sizeof(T)), out);
}
template <typename T>
void Scatter(const T* values, BitSpan mask, T* out) {
  Scatter(values, mask, static_cast<int>(sizeof(T)), out);
}

}  // namespace rowjit::kernels
