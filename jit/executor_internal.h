// Executor pieces shared by row evaluation (jit/engine.cc) and reduction templates
// (jit/engine_fold.cc) (jit layer, internal).
#pragma once

#include <span>
#include <vector>

#include "ir/expr.h"
#include "ir/spec_key.h"
#include "jit/kernel_abi.h"
#include "runtime/array.h"

namespace rowjit::jit::internal {

struct Analysis {
  bool strict_only = true;    // no null-aware function anywhere
  bool has_null_literal = false;
  bool fallible = false;
  int function_cost = 0;      // summed decode cost of the functions
  std::vector<int> refs;      // referenced columns
};
Analysis Analyze(const ir::Expr& e);

// Inputs decoded once per batch: dictionaries the kernels cannot read become flat, and value
// buffers not aligned to their element width are copied.
Result<std::vector<ArrayPtr>> Normalize(std::span<const ArrayPtr> columns, const std::vector<int>& refs);

struct PreparedInputs {
  std::vector<KernelInput> inputs;
  std::vector<ir::InputSpec> specs;
  std::vector<BufferPtr> keep;
};
// Kernel inputs for one run; `use_validity`: the kernel reads validity words.
Result<PreparedInputs> Prepare(std::span<const ArrayPtr> columns, const std::vector<int>& refs,
                               int64_t length, bool use_validity);

// The inputs of the last partial word of `n` rows as 64-row scratch copies padded with the last
// row (values, codes, bool and validity words).
struct TailInputs {
  TailInputs(const PreparedInputs& p, const std::vector<int>& refs, int64_t n);
  std::vector<KernelInput> inputs;
  std::vector<std::vector<uint8_t>> scratch;
  std::vector<uint64_t> words;
};

// The AND of the referenced columns' validity over `length` rows.
Result<Validity> AndOfInputs(std::span<const ArrayPtr> columns, const std::vector<int>& refs, int64_t length);

// The input as seen from row `start` on (flat values, dictionary codes, byte bools; constants are
// unchanged). Not for flat bool inputs, which kernels read as whole words.
KernelInput OffsetInput(const KernelInput& in, const ir::InputSpec& spec, int64_t start);

// The first failing row, by a scalar pass with the reference semantics.
Error Locate(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length);

}  // namespace rowjit::jit::internal
