// Byte-per-row booleans packed into LSB-first bitmaps (kernels layer).
#pragma once

#include <cstdint>

#include "kernels/bitmap.h"

namespace rowjit::kernels {

// out bit i (bit offset 0) = bytes[i] != 0, for i < length; trailing bits of the last byte zero.
// Branch-free; `out` holds NumBytes(length) bytes.
void PackByteBools(const uint8_t* bytes, int64_t length, uint8_t* out);

// The reverse: out[i] = 0xff where bit i of `bits` is set, else 0, for i < bits.length, at any
// bit offset (a byte mask: sign-extends to a lane mask of any width).
// A shuffle per 32 bits on AVX2, a multiply per 8 elsewhere; returns the number of set bits.
int64_t UnpackBits(BitSpan bits, uint8_t* out);

}  // namespace rowjit::kernels
