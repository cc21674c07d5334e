// Filter and scatter entry points (kernels layer): dispatch to the active level.
#include "kernels/filter.h"

#include <cassert>

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {

int64_t Filter(const void* values, BitSpan mask, int width, void* out) {
  assert((width == 1 || width == 2 || width == 4 || width == 8) && "filter width");
  return ActiveKernelTable().filter[WidthIndex(width)](values, mask, out);
}
void Scatter(const void* values, BitSpan mask, int width, void* out) {
  assert((width == 1 || width == 2 || width == 4 || width == 8) && "scatter width");
  ActiveKernelTable().scatter[WidthIndex(width)](values, mask, out);
}
int64_t SetBitIndices(BitSpan mask, uint32_t first, uint32_t* out) {
  return ActiveKernelTable().set_bit_indices(mask, first, out);
}
void Gather(const void* values, const uint32_t* indices, int64_t n, int width, void* out) {
  assert((width == 1 || width == 2 || width == 4 || width == 8) && "gather width");
  ActiveKernelTable().gather[WidthIndex(width)](values, indices, n, out);
}
void GatherBits(BitSpan bits, const uint32_t* indices, int64_t n, uint8_t* out) {
  ActiveKernelTable().gather_bits(bits, indices, n, out);
}
int64_t FilterBits(BitSpan values, BitSpan mask, uint8_t* out) {
  return ActiveKernelTable().filter_bits(values, mask, out);
}
void ScatterBits(BitSpan values, BitSpan mask, uint8_t* out) {
  ActiveKernelTable().scatter_bits(values, mask, out);
}

}  // namespace rowjit::kernels
