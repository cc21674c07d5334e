// The kernel table of one x86-64 level (kernels layer, internal). A level_*.cc defines
// ROWJIT_LEVEL_NS, ROWJIT_LEVEL_ENUM and ROWJIT_LEVEL_TABLE_FN, then includes this once; its
// -march comes from kernels/CMakeLists.txt.
#pragma once

#include "kernels/arith_body_internal.h"
#include "kernels/bits_body_internal.h"
#include "kernels/grouped_fold_body_internal.h"
#include "kernels/minmax_body_internal.h"
#include "kernels/strings_body_internal.h"

namespace rowjit::kernels {

const KernelTable& ROWJIT_LEVEL_TABLE_FN() {
  namespace l = ROWJIT_LEVEL_NS;
  // Only addresses and constants: returning it runs no instruction of this level.
  static constexpr KernelTable kTable = {
      .level = KernelLevel::ROWJIT_LEVEL_ENUM,
      .bool_zip = &l::BoolZip,
      .bitmap_and = &l::And,
      .bitmap_or = &l::Or,
      .bitmap_and_not = &l::AndNot,
      .bitmap_not = &l::Not,
      .bitmap_copy = &l::Copy,
      .count_set_bits = &l::CountBits,
      .pack_byte_bools = &l::PackByteBools,
      .unpack_bits = &l::UnpackBits,
      .zip = {&l::Zip<uint8_t>, &l::Zip<uint16_t>, &l::Zip<uint32_t>, &l::Zip<uint64_t>},
      .filter = {&l::Filter<uint8_t>, &l::Filter<uint16_t>, &l::Filter<uint32_t>,
                 &l::Filter<uint64_t>},
      .scatter = {&l::Scatter<uint8_t>, &l::Scatter<uint16_t>, &l::Scatter<uint32_t>,
                  &l::Scatter<uint64_t>},
      .filter_bits = &l::FilterBits,
      .set_bit_indices = &l::SetBitIndices,
      .gather = {&l::Gather<uint8_t>, &l::Gather<uint16_t>, &l::Gather<uint32_t>, &l::Gather<uint64_t>},
      .gather_bits = &l::GatherBits,
      .scatter_bits = &l::ScatterBits,
      .i8 = l::MakeFolds<int8_t>(),
      .i16 = l::MakeFolds<int16_t>(),
      .i32 = l::MakeFolds<int32_t>(),
      .i64 = l::MakeFolds<int64_t>(),
      .u8 = l::MakeFolds<uint8_t>(),
      .u16 = l::MakeFolds<uint16_t>(),
      .u32 = l::MakeFolds<uint32_t>(),
      .u64 = l::MakeFolds<uint64_t>(),
      .f32 = l::MakeFolds<float>(),
      .f64 = l::MakeFolds<double>(),
      .arith_i8 = l::MakeArith<int8_t>(),
      .arith_i16 = l::MakeArith<int16_t>(),
      .arith_i32 = l::MakeArith<int32_t>(),
      .arith_i64 = l::MakeArith<int64_t>(),
      .arith_u8 = l::MakeArith<uint8_t>(),
      .arith_u16 = l::MakeArith<uint16_t>(),
      .arith_u32 = l::MakeArith<uint32_t>(),
      .arith_u64 = l::MakeArith<uint64_t>(),
      .arith_f32 = l::MakeArith<float>(),
      .arith_f64 = l::MakeArith<double>(),
      .grouped = l::MakeGrouped(),
      .code_point_counts32 = &l::CodePointCounts<int32_t>,
      .code_point_counts64 = &l::CodePointCounts<int64_t>,
      .code_point_counts_views = &l::CodePointCountsViews,
  };
  return kTable;
}

}  // namespace rowjit::kernels
