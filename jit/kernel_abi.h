// The calling convention of generated kernels (jit layer): what the executor passes per input.
#pragma once

#include <cstdint>

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
  bool operator==(const KernelShape&) const = default;
};

// uint64_t kernel(inputs, out_values, out_valid, words): rows [0, 64 * words), whole words
// only (a single inner loop of constant trip count, which keeps kernels small and fully
// vectorized); the executor runs a last partial word through 64-row scratch copies whose
// padding repeats the last row, so padding can neither fail nor read out of bounds. out_values
// holds the values (bool: words of bits), out_valid words when the kernel writes validity.
// Returns nonzero when the OR-reduced failure evidence is nonzero.
using KernelFn = uint64_t (*)(const KernelInput* inputs, void* out_values, uint64_t* out_valid,
                              int64_t words);

}  // namespace rowjit::jit
