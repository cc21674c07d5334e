// Arithmetic and comparison entry points (kernels layer): dispatch to the active level's bodies
// (arith_body_internal.h) for the ten primitive types.
#include "kernels/arith.h"

#include <cassert>

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {

template <typename T>
int64_t CheckedArith(ArithOp op, Operand<T> a, Operand<T> b, int64_t length, T* out,
                     BitSpan validity) {
  assert((validity.data == nullptr || validity.length == length) && "validity length");
  return Arith<T>(ActiveKernelTable()).checked[static_cast<int>(op)](a, b, length, out, validity);
}

template <typename T>
  requires std::is_integral_v<T>
void WrappingArith(ArithOp op, Operand<T> a, Operand<T> b, int64_t length, T* out) {
  Arith<T>(ActiveKernelTable()).wrapping[static_cast<int>(op)](a, b, length, out);
}

template <typename T>
void Compare(CompareOp op, Operand<T> a, Operand<T> b, int64_t length, uint8_t* out) {
  Arith<T>(ActiveKernelTable()).compare[static_cast<int>(op)](a, b, length, out);
}

#define ROWJIT_ARITH_INSTANTIATE(T)                                                        \
  template int64_t CheckedArith<T>(ArithOp, Operand<T>, Operand<T>, int64_t, T*, BitSpan); \
  template void Compare<T>(CompareOp, Operand<T>, Operand<T>, int64_t, uint8_t*);
#define ROWJIT_WRAPPING_INSTANTIATE(T) \
  template void WrappingArith<T>(ArithOp, Operand<T>, Operand<T>, int64_t, T*);
ROWJIT_ARITH_INSTANTIATE(int8_t)
ROWJIT_ARITH_INSTANTIATE(int16_t)
ROWJIT_ARITH_INSTANTIATE(int32_t)
ROWJIT_ARITH_INSTANTIATE(int64_t)
ROWJIT_ARITH_INSTANTIATE(uint8_t)
ROWJIT_ARITH_INSTANTIATE(uint16_t)
ROWJIT_ARITH_INSTANTIATE(uint32_t)
ROWJIT_ARITH_INSTANTIATE(uint64_t)
ROWJIT_ARITH_INSTANTIATE(float)
ROWJIT_ARITH_INSTANTIATE(double)
ROWJIT_WRAPPING_INSTANTIATE(int8_t)
ROWJIT_WRAPPING_INSTANTIATE(int16_t)
ROWJIT_WRAPPING_INSTANTIATE(int32_t)
ROWJIT_WRAPPING_INSTANTIATE(int64_t)
ROWJIT_WRAPPING_INSTANTIATE(uint8_t)
ROWJIT_WRAPPING_INSTANTIATE(uint16_t)
ROWJIT_WRAPPING_INSTANTIATE(uint32_t)
ROWJIT_WRAPPING_INSTANTIATE(uint64_t)
#undef ROWJIT_ARITH_INSTANTIATE
#undef ROWJIT_WRAPPING_INSTANTIATE

}  // namespace rowjit::kernels
