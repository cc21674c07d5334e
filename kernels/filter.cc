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
int64_t FilterBits(BitSpan values, BitSpan mask, uint8_t* out) {
  return ActiveKernelTable().filter_bits(values, mask, out);
}
void ScatterBits(BitSpan values, BitSpan mask, uint8_t* out) {
  ActiveKernelTable().scatter_bits(values, mask, out);
}

}  // namespace rowjit::kernels
