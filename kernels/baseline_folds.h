// BASELINES ONLY, for tests and benchmarks (kernels layer): the plainer fold shapes the masked
// fold is compared against, kept so that its gain is measured rather than claimed (bench:
// `fold/sum_i32_scattered_0.5/{static,run_walk,per_row_branch}`). Do not call from library
// code. Header-only, so they compile with the including file's flags (baseline x86-64 in bench/).
#pragma once

#include <bit>
#include <cstdint>

#include "kernels/bitmap.h"

namespace rowjit::kernels::baseline {

// Folds each run of valid rows with a dense inner loop, one run at a time; cheap when runs are
// long, slow when nulls are scattered and runs are a row or two.
template <typename T, typename Acc, typename Op>
Acc RunWalkFold(const T* values, int64_t length, BitSpan validity, Acc acc, Op op) {
  int64_t i = 0;
  while (i < length) {
    // Next valid row: skip whole null words, then count trailing zeros.
    uint64_t word = ReadWord(validity, i / 64) >> (i % 64);
    while (word == 0) {
      i = (i / 64 + 1) * 64;
      if (i >= length) return acc;
      word = ReadWord(validity, i / 64);
    }
    const int64_t start = i + std::countr_zero(word);
    // End of the run: the next null row.
    int64_t end = start;
    uint64_t inv = ~ReadWord(validity, end / 64) >> (end % 64);
    while (inv == 0) {
      end = (end / 64 + 1) * 64;
      if (end >= length) break;
      inv = ~ReadWord(validity, end / 64);
    }
    if (end < length) end += std::countr_zero(inv);
    if (end > length) end = length;
    for (int64_t k = start; k < end; ++k) acc = op(acc, values[k]);
    i = end;
  }
  return acc;
}

// Zips each value with its validity bit and branches per row.
template <typename T, typename Acc, typename Op>
Acc PerRowBranchFold(const T* values, int64_t length, BitSpan validity, Acc acc, Op op) {
  for (int64_t i = 0; i < length; ++i) {
    if (GetBit(validity.data, validity.offset + i)) acc = op(acc, values[i]);
  }
  return acc;
}

}  // namespace rowjit::kernels::baseline
