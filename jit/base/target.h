// Targets the JIT generates code for (jit layer, base room): the host ("native") or a named CPU
// for codegen-only inspection (x86-64-v2/v3/v4, aarch64 = Neoverse N1, aarch64-sve = Neoverse V1).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/status.h"

namespace rowjit::jit {

// Vector widths chosen for a target instead of its own choice (EngineOptions::vector_widths,
// `rowjit check --vector-width R/F`): for measuring one width against another on one host; both
// enter the disk cache key with the rest of the target.
struct VectorWidths {
  int rows = 0;   // row kernels: 128, 256 or 512; 0: the target's choice
  int folds = 0;  // integer sum folds, column folds and float-heavy kernels; 0: the target's choice
  bool operator==(const VectorWidths&) const = default;
};
// "W" (both) or "R/F" (rows, folds), each 128, 256 or 512; an error for anything else.
Result<VectorWidths> ParseVectorWidths(const std::string& text);

struct TargetSpec {
  std::string name;      // as given: "native", "x86-64-v3", ...
  std::string triple;
  std::string cpu;
  std::string features;  // "+avx2,+fma,..." (for native: from sys::getHostCPUFeatures)
  bool native = false;   // code for this target may run here
  int prefer_vector_width = 256;
  // Integer sum folds (sums and fused sums of integer expressions) and column folds: their own
  // width, where a CPU's measurement chooses one apart from the other kernels' (docs/performance.md,
  // "Vector width").
  int sum_fold_vector_width = 256;
  // Row kernels of integer arithmetic, comparisons and logic (no float arithmetic, no logical
  // type, not a lone multiply; the `rowjit-integer-rows` attribute): their own width where a
  // CPU's measurement chooses one; 0: prefer_vector_width.
  int integer_rows_vector_width = 0;
  int IntegerRowsWidth() const { return integer_rows_vector_width != 0 ? integer_rows_vector_width : prefer_vector_width; }
  // 64-bit mask registers (AVX-512BW): a fold's 64-row mask word is one `kmovq`, each group's lanes
  // a `kshiftrq`; elsewhere lanes test constant bits of the broadcast word.
  bool mask_registers = false;
  // i64 lanes convert to and from f64 in one instruction (x86's AVX-512DQ): kernels that divide
  // 64-bit values by constants (timestamps, decimals) estimate quotients through them. Not on
  // AArch64: NEON converts them too, but lacks a 64-bit lane multiply, and with the conversions
  // LLVM's cost model keeps such loops scalar (gate `main-loop-vectorized`, target aarch64).
  bool quad_conversions = false;
};

// The function attribute that marks an integer sum fold ("sum-int") or the vector form of a
// column fold ("column"), both at sum_fold_vector_width; read when the
// target's attributes are set, so that the IR gates see the width that runs.
inline constexpr const char* kFoldKindAttribute = "rowjit-fold";
// Marks a kernel whose rows load from constant tables at row-dependent indices (a time zone's
// offsets): on x86 with AVX2 its loads become gathers (the "fast-gather" tuning LLVM gives only
// Intel cores and AVX-512), which beat the lane-by-lane loads the cost model picks without it
// (bench: `temporal/year/jit_paris` with ROWJIT_KERNEL_LEVEL=v3).
inline constexpr const char* kTableGathersAttribute = "rowjit-table-gathers";
// Marks a kernel heavy with float arithmetic per row (exp, ln, power: ir/float_math.h): it
// runs at sum_fold_vector_width, the host's widest (512 bits where it has them, which these
// kernels use well: bench `math/exp_f64/jit` with EngineOptions::vector_widths at 256 and 512).
inline constexpr const char* kWideMathAttribute = "rowjit-wide-math";
// A row kernel of integer values (TargetSpec::integer_rows_vector_width).
inline constexpr const char* kIntegerRowsAttribute = "rowjit-integer-rows";
// Marks a kernel whose vectorized loops prefetch their input streams this many rows ahead (the
// attribute's value, in decimal): jit/compile/prefetch.cc.
inline constexpr const char* kPrefetchRowsAttribute = "rowjit-prefetch-rows";

// "native" is the host as LLVM detects it, unless a lower x86-64 level is forced for the static
// kernels (ROWJIT_KERNEL_LEVEL, kernels::SetKernelLevel) when the compiler is made: then that
// level's code (ForcedKernelLevel), which also runs here. `widths` replace the native target's
// vector widths where set.
Result<TargetSpec> ResolveTarget(const std::string& name, const VectorWidths& widths = {});
// The x86-64 level ("x86-64-v3", ...) native kernels are held to, when one below the host's best
// is forced; nullopt otherwise.
std::optional<std::string> ForcedKernelLevel();
const std::vector<std::string>& KnownTargets();

}  // namespace rowjit::jit
