// Byte-bool packing (kernels layer): a compare + movemask per vector at each x86-64 level
// (bits_body_internal.h); the active level's body runs.
#include "kernels/bytebool.h"

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {

void PackByteBools(const uint8_t* bytes, int64_t length, uint8_t* out) {
  ActiveKernelTable().pack_byte_bools(bytes, length, out);
}

int64_t UnpackBits(BitSpan bits, uint8_t* out) { return ActiveKernelTable().unpack_bits(bits, out); }

}  // namespace rowjit::kernels
