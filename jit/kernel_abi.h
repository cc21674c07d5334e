// The calling convention of generated kernels (jit layer): what the executor passes per input.
#pragma once

#include <cstdint>
#include <span>

#include "ir/aggregate.h"
#include "ir/spec_key.h"

namespace rowjit::jit {

// One input of a kernel, 32 bytes. Which fields are read depends on the input's shape in the
// specialization key.
struct KernelInput {
  const void* values = nullptr;   // flat values (row 0 first), dictionary values, bool bit
                                  // words at bit offset 0, or byte-bool bytes
  const void* codes = nullptr;    // dictionary codes (row 0 first)
  const uint64_t* valid = nullptr;// validity words at bit offset 0, whole words readable
  uint64_t scalar = 0;            // a constant's bits, or a dictionary's value count
};

// How a kernel treats rows behind nulls; part of what a kernel is specialized for.
struct KernelShape {
  bool writes_validity = false;   // the kernel computes the output validity row by row (null-aware
                                  // expressions); a failing call yields null in its row
  bool mask_evidence = false;     // evidence only from rows whose inputs are all non-null
  bool skip_empty_words = false;  // branch-and-skip: 64-row words with no valid row are skipped
  int8_t fold = -1;               // a reduction template: the ir::AggKind folded (-1: none)
  bool fold_keep_nan = false;     // float min/max keep NaN in the totalOrder reduction
  bool operator==(const KernelShape&) const = default;
};

// Whether a row kernel is one flat loop over its rows rather than 64-row words: when no lane
// needs a bit of a validity or bool word. A flat kernel writes bool results one byte a row
// (the executor packs them), and its evidence is one reduction for the whole call.
inline bool UsesFlatLoop(const KernelShape& shape, std::span<const ir::InputSpec> specs,
                         std::span<const int> refs) {
  if (shape.fold >= 0 || shape.writes_validity || shape.mask_evidence || shape.skip_empty_words) {
    return false;
  }
  for (int c : refs) {
    if (specs[c].shape == ir::InputShape::kFlat && specs[c].type == TypeId::kBool) return false;
  }
  return true;
}

// Whether a fold kernel is one flat loop over rows (its accumulators vectors for the whole call)
// rather than 64-row words of two 32-lane halves: for strict expressions (no null-aware function,
// no null literal) with no flat bool or null-constant input, except float sums, whose fixed
// 16-lane order the word form keeps. In a flat fold the mask alone decides which rows fold. A flat fold kernel takes
// `rows` (not words) and, when an input has nulls, a mask of one byte a row (0xff: fold the
// row, 0: skip it; the AND of the inputs' validity, unpacked by the executor a block at a time)
// in place of out_valid.
inline bool UsesFlatFold(const KernelShape& shape, bool strict_expression, TypeId result,
                         std::span<const ir::InputSpec> specs, std::span<const int> refs) {
  if (shape.fold < 0 || !strict_expression) return false;
  if (shape.fold == static_cast<int8_t>(ir::AggKind::kSum) && IsFloat(result)) return false;
  for (int c : refs) {
    if (specs[c].shape == ir::InputShape::kFlat && specs[c].type == TypeId::kBool) return false;
    // A null constant makes every row null without a mask saying so: the word form reads it.
    if (specs[c].shape == ir::InputShape::kNullConstant) return false;
  }
  return true;
}

// Whether a flat fold kernel counts the rows it folds: only when a value can keep a row out
// (NaN-skipping float min/max). Otherwise the executor adds the number of rows the mask keeps.
inline bool FlatFoldCountsRows(const KernelShape& shape, TypeId result) {
  const auto kind = static_cast<ir::AggKind>(shape.fold);
  const bool min_max = shape.fold >= 0 && (kind == ir::AggKind::kMin || kind == ir::AggKind::kMax ||
                                           kind == ir::AggKind::kMinMax);
  return min_max && !shape.fold_keep_nan && IsFloat(result);
}

// The accumulator state a fold kernel reads and writes, lane by lane: kFoldLanes counts, then
// kFoldLanes of accumulator A, then kFoldLanes of accumulator B, each in a 64-bit slot (integers
// sign- or zero-extended, floats and total-order keys as their bits). Successive calls (whole
// words, then the padded last word) continue the same fold.
inline constexpr int kFoldLanes = 32;
struct FoldState {
  uint64_t count[kFoldLanes];
  uint64_t a[kFoldLanes];
  uint64_t b[kFoldLanes];
};

// uint64_t kernel(inputs, out_values, out_valid, words): rows [0, 64 * words), whole words
// only (a single inner loop of constant trip count, which keeps kernels small and fully
// vectorized); the executor runs a last partial word through 64-row scratch copies whose
// padding repeats the last row, so padding can neither fail nor read out of bounds. out_values
// holds the values (bool: words of bits), out_valid words when the kernel writes validity.
// Returns nonzero when the OR-reduced failure evidence is nonzero.
// Fold kernels take a FoldState* as out_values and no out_valid; `last_word_mask` keeps the
// padding rows of the last word out of the fold (row kernels ignore it).
using KernelFn = uint64_t (*)(const KernelInput* inputs, void* out_values, uint64_t* out_valid,
                              int64_t words, uint64_t last_word_mask);

}  // namespace rowjit::jit
