// The function table one x86-64 level fills (kernels layer, internal). Public kernels call
// through ActiveKernelTable(); each level_*.cc compiles the same bodies with its own -march.
#pragma once

#include <cstdint>

#include "kernels/arith.h"
#include "kernels/bitmap.h"
#include "kernels/dispatch.h"
#include "kernels/fold.h"
#include "kernels/grouped_fold.h"

namespace rowjit::kernels {

// Min/max of one type as found by a level: valid == false when no row qualified.
template <typename T>
struct RawMinMax {
  T min;
  T max;
  bool valid;
};

template <typename T>
struct FoldFns {
  SumResult<T> (*sum)(const T* values, int64_t length, BitSpan validity);
  // Indexed by kFoldMin, kFoldMax, kFoldMinMax; `nan` is ignored for integers.
  RawMinMax<T> (*min_max[3])(const T* values, int64_t length, BitSpan validity, NanMode nan);
  int64_t (*nan_count)(const T* values, int64_t length, BitSpan validity);  // floats only
};
// Binary arithmetic and comparisons of one type, indexed by ArithOp / CompareOp (arith.h).
template <typename T>
struct ArithFns {
  int64_t (*checked[3])(Operand<T> a, Operand<T> b, int64_t length, T* out, BitSpan validity);
  void (*wrapping[3])(Operand<T> a, Operand<T> b, int64_t length, T* out);
  void (*compare[6])(Operand<T> a, Operand<T> b, int64_t length, uint8_t* out);
};

// Grouped folds over at most max_slots slots (grouped_fold.h): one vectorized pass with every
// slot's accumulators in registers. More slots, and every slot count at a level whose max_slots
// is 0 (the functions nullptr), scatter: there the scatter is the faster form.
template <typename T>
using GroupedSumFn = void (*)(const T* values, const uint32_t* groups, int64_t length,
                              BitSpan validity, int64_t slots, GroupedSumType<T>* sums,
                              int64_t* counts);
template <typename T>
using GroupedFloatSumFn = void (*)(const T* values, const uint32_t* groups, int64_t length,
                                   BitSpan validity, int64_t first_position, int64_t slots,
                                   double* lanes, int64_t* counts);
struct GroupedFns {
  int64_t max_slots = 0;
  GroupedSumFn<int8_t> sum_i8;
  GroupedSumFn<int16_t> sum_i16;
  GroupedSumFn<int32_t> sum_i32;
  GroupedSumFn<int64_t> sum_i64;
  GroupedSumFn<uint8_t> sum_u8;
  GroupedSumFn<uint16_t> sum_u16;
  GroupedSumFn<uint32_t> sum_u32;
  GroupedSumFn<uint64_t> sum_u64;
  // GroupedSumBounded: int64 lanes, the caller bounding every partial sum.
  void (*sum_bounded)(const int64_t* values, const uint32_t* groups, int64_t length,
                      BitSpan validity, int64_t slots, int64_t* sums, int64_t* counts);
  void (*sum_bounded_many)(const int64_t* const* values, int columns, const uint32_t* groups,
                           int64_t length, BitSpan validity, int64_t slots, int64_t* sums,
                           int64_t* counts);
  GroupedFloatSumFn<float> float_sum_f32;
  GroupedFloatSumFn<double> float_sum_f64;
  void (*count)(const uint32_t* groups, int64_t length, BitSpan validity, int64_t slots,
                int64_t* counts);
};

inline constexpr int kFoldMin = 0;
inline constexpr int kFoldMax = 1;
inline constexpr int kFoldMinMax = 2;

struct KernelTable {
  KernelLevel level;
  // Bitmaps, inputs at any offsets, out at offset 0 (see bitmap.h / zip.h).
  void (*bool_zip)(BitSpan mask, BitSpan if_true, BitSpan if_false, uint8_t* out);
  void (*bitmap_and)(BitSpan a, BitSpan b, uint8_t* out);
  void (*bitmap_or)(BitSpan a, BitSpan b, uint8_t* out);
  void (*bitmap_and_not)(BitSpan a, BitSpan b, uint8_t* out);
  void (*bitmap_not)(BitSpan a, uint8_t* out);
  void (*bitmap_copy)(BitSpan a, uint8_t* out);
  int64_t (*count_set_bits)(BitSpan a);
  void (*pack_byte_bools)(const uint8_t* bytes, int64_t length, uint8_t* out);
  int64_t (*unpack_bits)(BitSpan bits, uint8_t* out);
  // Indexed by log2 of the width in bytes.
  void (*zip[4])(BitSpan mask, const void* if_true, const void* if_false, void* out);
  int64_t (*filter[4])(const void* values, BitSpan mask, void* out);
  void (*scatter[4])(const void* values, BitSpan mask, void* out);
  int64_t (*filter_bits)(BitSpan values, BitSpan mask, uint8_t* out);
  int64_t (*set_bit_indices)(BitSpan mask, uint32_t first, uint32_t* out);
  void (*gather[4])(const void* values, const uint32_t* indices, int64_t n, void* out);
  void (*gather_bits)(BitSpan bits, const uint32_t* indices, int64_t n, uint8_t* out);
  void (*scatter_bits)(BitSpan values, BitSpan mask, uint8_t* out);
  FoldFns<int8_t> i8;
  FoldFns<int16_t> i16;
  FoldFns<int32_t> i32;
  FoldFns<int64_t> i64;
  FoldFns<uint8_t> u8;
  FoldFns<uint16_t> u16;
  FoldFns<uint32_t> u32;
  FoldFns<uint64_t> u64;
  FoldFns<float> f32;
  FoldFns<double> f64;
  ArithFns<int8_t> arith_i8;
  ArithFns<int16_t> arith_i16;
  ArithFns<int32_t> arith_i32;
  ArithFns<int64_t> arith_i64;
  ArithFns<uint8_t> arith_u8;
  ArithFns<uint16_t> arith_u16;
  ArithFns<uint32_t> arith_u32;
  ArithFns<uint64_t> arith_u64;
  ArithFns<float> arith_f32;
  ArithFns<double> arith_f64;
  GroupedFns grouped;
  // kernels::CodePointCounts over 32- and 64-bit offsets, and over views (strings.h).
  void (*code_point_counts32)(const int32_t* offsets, int rows, const uint8_t* data, int64_t* out);
  void (*code_point_counts64)(const int64_t* offsets, int rows, const uint8_t* data, int64_t* out);
  void (*code_point_counts_views)(const uint8_t* views, const uint8_t* const* buffers, int rows, int64_t* out);
};

// One per level_*.cc.
const KernelTable& BaselineKernelTable();
const KernelTable& V2KernelTable();
const KernelTable& V3KernelTable();
const KernelTable& V4KernelTable();

// The table of the active level.
const KernelTable& ActiveKernelTable();

template <typename T>
const FoldFns<T>& Folds(const KernelTable& t) {
  if constexpr (std::is_same_v<T, int8_t>) return t.i8;
  else if constexpr (std::is_same_v<T, int16_t>) return t.i16;
  else if constexpr (std::is_same_v<T, int32_t>) return t.i32;
  else if constexpr (std::is_same_v<T, int64_t>) return t.i64;
  else if constexpr (std::is_same_v<T, uint8_t>) return t.u8;
  else if constexpr (std::is_same_v<T, uint16_t>) return t.u16;
  else if constexpr (std::is_same_v<T, uint32_t>) return t.u32;
  else if constexpr (std::is_same_v<T, uint64_t>) return t.u64;
  else if constexpr (std::is_same_v<T, float>) return t.f32;
  else return t.f64;
}

template <typename T>
const ArithFns<T>& Arith(const KernelTable& t) {
  if constexpr (std::is_same_v<T, int8_t>) return t.arith_i8;
  else if constexpr (std::is_same_v<T, int16_t>) return t.arith_i16;
  else if constexpr (std::is_same_v<T, int32_t>) return t.arith_i32;
  else if constexpr (std::is_same_v<T, int64_t>) return t.arith_i64;
  else if constexpr (std::is_same_v<T, uint8_t>) return t.arith_u8;
  else if constexpr (std::is_same_v<T, uint16_t>) return t.arith_u16;
  else if constexpr (std::is_same_v<T, uint32_t>) return t.arith_u32;
  else if constexpr (std::is_same_v<T, uint64_t>) return t.arith_u64;
  else if constexpr (std::is_same_v<T, float>) return t.arith_f32;
  else return t.arith_f64;
}

template <typename T>
GroupedSumFn<T> GroupedSumOf(const GroupedFns& f) {
  if constexpr (std::is_same_v<T, int8_t>) return f.sum_i8;
  else if constexpr (std::is_same_v<T, int16_t>) return f.sum_i16;
  else if constexpr (std::is_same_v<T, int32_t>) return f.sum_i32;
  else if constexpr (std::is_same_v<T, int64_t>) return f.sum_i64;
  else if constexpr (std::is_same_v<T, uint8_t>) return f.sum_u8;
  else if constexpr (std::is_same_v<T, uint16_t>) return f.sum_u16;
  else if constexpr (std::is_same_v<T, uint32_t>) return f.sum_u32;
  else return f.sum_u64;
}
template <typename T>
GroupedFloatSumFn<T> GroupedFloatSumOf(const GroupedFns& f) {
  if constexpr (std::is_same_v<T, float>) return f.float_sum_f32;
  else return f.float_sum_f64;
}

constexpr int WidthIndex(int width) { return width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3; }

}  // namespace rowjit::kernels
