// Byte-per-row booleans packed into LSB-first bitmaps (kernels layer).
#pragma once

#include <cstdint>

namespace rowjit::kernels {

// out bit i (bit offset 0) = bytes[i] != 0, for i < length; trailing bits of the last byte zero.
// Branch-free; `out` holds NumBytes(length) bytes.
void PackByteBools(const uint8_t* bytes, int64_t length, uint8_t* out);

}  // namespace rowjit::kernels
