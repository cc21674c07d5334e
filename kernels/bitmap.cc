// Bitmap operations (kernels layer): the word loops live in the per-level kernel bodies
// (bits_body_internal.h) so they run with the best vector instructions the CPU has.
#include "kernels/bitmap.h"

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {

int64_t CountSetBits(BitSpan s) { return ActiveKernelTable().count_set_bits(s); }
void BitmapAnd(BitSpan a, BitSpan b, uint8_t* out) { ActiveKernelTable().bitmap_and(a, b, out); }
void BitmapOr(BitSpan a, BitSpan b, uint8_t* out) { ActiveKernelTable().bitmap_or(a, b, out); }
void BitmapAndNot(BitSpan a, BitSpan b, uint8_t* out) {
  ActiveKernelTable().bitmap_and_not(a, b, out);
}
void BitmapNot(BitSpan a, uint8_t* out) { ActiveKernelTable().bitmap_not(a, out); }
void BitmapCopy(BitSpan a, uint8_t* out) { ActiveKernelTable().bitmap_copy(a, out); }
void BitmapAndInPlace(uint8_t* out, BitSpan a) {
  ActiveKernelTable().bitmap_and(BitSpan{out, 0, a.length}, a, out);
}

bool BitmapEquals(BitSpan a, BitSpan b) {
  if (a.length != b.length) return false;
  for (int64_t w = 0; w < NumWords(a.length); ++w) {
    if (ReadWord(a, w) != ReadWord(b, w)) return false;
  }
  return true;
}

}  // namespace rowjit::kernels
