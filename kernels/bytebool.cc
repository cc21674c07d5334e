// Byte-bool packing (kernels layer): eight bytes at a time with SWAR arithmetic, no per-row branch.
#include "kernels/bytebool.h"

#include <cstring>

#include "kernels/bitmap.h"

namespace rowjit::kernels {
namespace {

// One output byte from eight input bytes: bit j = byte j != 0.
inline uint8_t PackEight(uint64_t x) {
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
  uint64_t nonzero = (((x & kLow7) + kLow7) | x) & ~kLow7;  // 0x80 in each nonzero byte
  return static_cast<uint8_t>(((nonzero >> 7) * 0x0102040810204080ULL) >> 56);
}

}  // namespace

void PackByteBools(const uint8_t* bytes, int64_t length, uint8_t* out) {
  const int64_t full = length / 8;
  for (int64_t i = 0; i < full; ++i) out[i] = PackEight(LoadU64(bytes + i * 8));
  const int64_t tail = length - full * 8;
  if (tail > 0) {
    uint64_t x = 0;
    std::memcpy(&x, bytes + full * 8, static_cast<size_t>(tail));
    out[full] = PackEight(x);
  }
}

}  // namespace rowjit::kernels
