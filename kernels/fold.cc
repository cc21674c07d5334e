// Masked fold entry points (kernels layer): dispatch to the active level's bodies
// (fold_body_internal.h, minmax_body_internal.h) for the ten primitive types.
#include "kernels/fold.h"

#include <cassert>

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {
namespace {

void CheckValidity(int64_t length, BitSpan validity) {
  (void)length;
  (void)validity;
  assert((validity.data == nullptr || validity.length == length) && "validity length");
}

template <typename T>
RawMinMax<T> Extrema(int which, const T* values, int64_t length, BitSpan validity, NanMode nan) {
  CheckValidity(length, validity);
  return Folds<T>(ActiveKernelTable()).min_max[which](values, length, validity, nan);
}

}  // namespace

template <typename T>
SumResult<T> Sum(const T* values, int64_t length, BitSpan validity) {
  CheckValidity(length, validity);
  return Folds<T>(ActiveKernelTable()).sum(values, length, validity);
}

template <typename T>
std::optional<T> Min(const T* values, int64_t length, BitSpan validity, NanMode nan) {
  const RawMinMax<T> r = Extrema(kFoldMin, values, length, validity, nan);
  return r.valid ? std::optional<T>(r.min) : std::nullopt;
}

template <typename T>
std::optional<T> Max(const T* values, int64_t length, BitSpan validity, NanMode nan) {
  const RawMinMax<T> r = Extrema(kFoldMax, values, length, validity, nan);
  return r.valid ? std::optional<T>(r.max) : std::nullopt;
}

template <typename T>
std::optional<MinMaxValue<T>> MinMax(const T* values, int64_t length, BitSpan validity,
                                     NanMode nan) {
  const RawMinMax<T> r = Extrema(kFoldMinMax, values, length, validity, nan);
  return r.valid ? std::optional<MinMaxValue<T>>(MinMaxValue<T>{r.min, r.max}) : std::nullopt;
}

int64_t Count(int64_t length, BitSpan validity) {
  CheckValidity(length, validity);
  return validity.data == nullptr ? length : CountSetBits(validity);
}

template <typename T>
int64_t NanCount(const T* values, int64_t length, BitSpan validity) {
  static_assert(std::is_floating_point_v<T>, "NanCount is for floats");
  CheckValidity(length, validity);
  return Folds<T>(ActiveKernelTable()).nan_count(values, length, validity);
}

#define ROWJIT_FOLD_INSTANTIATE(T)                                                    \
  template SumResult<T> Sum<T>(const T*, int64_t, BitSpan);                           \
  template std::optional<T> Min<T>(const T*, int64_t, BitSpan, NanMode);              \
  template std::optional<T> Max<T>(const T*, int64_t, BitSpan, NanMode);              \
  template std::optional<MinMaxValue<T>> MinMax<T>(const T*, int64_t, BitSpan, NanMode);
ROWJIT_FOLD_INSTANTIATE(int8_t)
ROWJIT_FOLD_INSTANTIATE(int16_t)
ROWJIT_FOLD_INSTANTIATE(int32_t)
ROWJIT_FOLD_INSTANTIATE(int64_t)
ROWJIT_FOLD_INSTANTIATE(uint8_t)
ROWJIT_FOLD_INSTANTIATE(uint16_t)
ROWJIT_FOLD_INSTANTIATE(uint32_t)
ROWJIT_FOLD_INSTANTIATE(uint64_t)
ROWJIT_FOLD_INSTANTIATE(float)
ROWJIT_FOLD_INSTANTIATE(double)
#undef ROWJIT_FOLD_INSTANTIATE
template int64_t NanCount<float>(const float*, int64_t, BitSpan);
template int64_t NanCount<double>(const double*, int64_t, BitSpan);

}  // namespace rowjit::kernels
