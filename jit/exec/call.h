// What one call asks for and what it reports (jit layer, exec room; public): the options of an
// evaluation, the report of what it did, and the memory a caller lends for a result. The
// executor fills the report as it runs a route; the Engine (jit/api/engine.h) takes and returns
// these types.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/spec_key.h"
#include "jit/base/kernel_abi.h"
#include "jit/cache/kernel_cache.h"
#include "jit/compile/compiler.h"
#include "jit/plan/planner.h"
#include "jit/plan/route.h"

namespace rowjit::jit {

struct EvalOptions {
  ir::Policy policy = ir::Policy::kAuto;  // forced strategies exist for tests and benchmarks
  // Forces a tier for this call (tests, comparisons): kFast runs the fast kernel only, never
  // starting the optimized one; kOptimized waits for the optimized kernel (kStatic, which only
  // the engine chooses, is read as kOptimized). Unset: the engine's EngineOptions::compile
  // decides, and the static tier answers what it covers until the optimized kernel is ready.
  std::optional<Tier> tier = std::nullopt;
};

// What one call did, for tests, benchmarks and the CLI.
struct EvalReport {
  Route route = Route::kKernel;          // the way the call ran (jit/plan/route.h)
  Strategy strategy = Strategy::kEmpty;  // the planner's strategy of the last kernel plan that ran
  std::optional<CacheKey> kernel;        // that plan's kernel, as the planner named it
  bool compiled = false;    // this call compiled a kernel (not a cache hit, not another thread)
  double compile_ms = 0;    // the time of the compiles (or disk reads) this call did, summed
  CompilePhases phases;     // where that time went
  std::optional<Tier> tier;  // the tier of the kernel that ran (several: the fast one if any was)
  KernelSource source = KernelSource::kMemory;  // where the last kernel that ran came from
  bool retried = false;     // evidence on a nullable batch: the valid rows rerun for evidence
  bool cold_pass = false;   // evidence: a scalar pass located the first failing row
  // A speculative kernel (KernelShape::speculative_mul) met a wide operand: the batch ran again
  // through the exact kernel, which `kernel` names.
  bool rechecked = false;
  // Caller outputs (EvaluateInto, ProjectInto): some result's values were copied into the
  // caller's memory rather than written there by the kernel.
  bool output_copied = false;
  // A prepared expression's direct call ran its held kernel: no routing, planning or input
  // description, only the checks that depend on the batch (PreparedExpression).
  bool direct = false;

  // Folds in the report of a part of this call (a stage, a slice, an output evaluated on its own,
  // the rows a later step reads): its costs and flags add up; its plan becomes the last plan
  // (strategy and kernel); the fast tier wins over the optimized one. The route stays this call's.
  void Merge(const EvalReport& part) {
    strategy = part.strategy;
    kernel = part.kernel;
    compiled = compiled || part.compiled;
    compile_ms += part.compile_ms;
    phases += part.phases;
    if (part.tier) {
      if (!tier || *part.tier == Tier::kFast) tier = part.tier;
      source = part.source;
    }
    retried = retried || part.retried;
    cold_pass = cold_pass || part.cold_pass;
    rechecked = rechecked || part.rechecked;
    output_copied = output_copied || part.output_copied;
    direct = direct || part.direct;
  }
};

// Memory the caller lends for one result (Engine::EvaluateInto, ProjectInto, and the prepared
// handles' *Into calls), so that a batch loop reuses its outputs instead of allocating them. The
// result is written in Arrow's flat layout at offset 0:
//   values:   length * width bytes, aligned to the width; bool: bits, LSB first, in whole
//             64-bit words (⌈length / 64⌉ * 8 bytes, 8-byte aligned)
//   validity: ⌈length / 64⌉ * 8 bytes, 8-byte aligned, a set bit a valid row; required when the
//             result type is nullable, else optional (then written all valid)
// Bits past the last row, up to the end of its word, are written as zeros. The buffers must not
// overlap each other or any input's buffers (checked: a clear error). On error their contents
// are unspecified. The array returned refers to this memory and must not outlive it.
struct OutputBuffers {
  void* values = nullptr;
  int64_t values_bytes = 0;  // capacity
  void* validity = nullptr;
  int64_t validity_bytes = 0;  // capacity
};

// One input column as raw buffers (PreparedExpression::WriteBuffers), in the layout of its bound
// type from row 0: values of `length` rows (a bool column: bits, LSB first, in whole 64-bit
// words), aligned to the width for the direct call (unaligned values are copied first);
// validity, ⌈length / 64⌉ 64-bit words with a set bit a valid row, or null when every row is
// valid (only a column bound nullable may have one). The memory is read, never written, and only
// during the call.
struct ColumnBuffers {
  const void* values = nullptr;
  const uint64_t* validity = nullptr;
};

}  // namespace rowjit::jit
