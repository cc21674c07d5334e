// Zip entry points (kernels layer): dispatch to the active level, plus the validity zip's
// shortcuts for sides without a bitmap.
#include "kernels/zip.h"

#include <cassert>

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {

void BoolZip(BitSpan mask, BitSpan if_true, BitSpan if_false, uint8_t* out) {
  assert(if_true.length == mask.length && if_false.length == mask.length && "zip lengths differ");
  ActiveKernelTable().bool_zip(mask, if_true, if_false, out);
}

void PrimitiveZip(BitSpan mask, const void* if_true, const void* if_false, int width, void* out) {
  assert((width == 1 || width == 2 || width == 4 || width == 8) && "zip width");
  ActiveKernelTable().zip[WidthIndex(width)](mask, if_true, if_false, out);
}

ValiditySide::Kind ZipValidity(BitSpan mask, ValiditySide t, ValiditySide f, uint8_t* out) {
  using Kind = ValiditySide::Kind;
  if (t.kind == f.kind && t.kind != Kind::kBitmap) return t.kind;
  const int64_t n = mask.length;
  if (t.kind == Kind::kBitmap && f.kind == Kind::kBitmap) {
    BoolZip(mask, t.bits, f.bits, out);
  } else if (t.kind == Kind::kBitmap) {
    // f constant: all-null keeps t where m is set; all-valid is t | ~m, i.e. ~(m & ~t).
    if (f.kind == Kind::kAllNull) {
      BitmapAnd(t.bits, mask, out);
    } else {
      BitmapAndNot(mask, t.bits, out);
      BitmapNot(BitSpan{out, 0, n}, out);
    }
  } else if (f.kind == Kind::kBitmap) {
    // t constant: all-valid is m | f, all-null is f & ~m.
    if (t.kind == Kind::kAllValid) {
      BitmapOr(mask, f.bits, out);
    } else {
      BitmapAndNot(f.bits, mask, out);
    }
  } else {
    // One side all-valid, the other all-null: the mask or its complement.
    if (t.kind == Kind::kAllValid) {
      BitmapCopy(mask, out);
    } else {
      BitmapNot(mask, out);
    }
  }
  return Kind::kBitmap;
}

}  // namespace rowjit::kernels
