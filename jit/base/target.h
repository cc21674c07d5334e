// Targets the JIT generates code for: the host ("native") or a named CPU for codegen-only
// inspection (x86-64-v2/v3/v4, aarch64 = Neoverse N1, aarch64-sve = Neoverse V1) (jit layer).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/status.h"

namespace rowjit::jit {

struct TargetSpec {
  std::string name;      // as given: "native", "x86-64-v3", ...
  std::string triple;
  std::string cpu;
  std::string features;  // "+avx2,+fma,..." (for native: from sys::getHostCPUFeatures)
  bool native = false;   // code for this target may run here
  int prefer_vector_width = 256;
  // Integer sum folds (sums and fused sums of integer expressions) and column folds: their own
  // width, where a CPU's measurement chooses one apart from the other kernels' (README, "Vector
  // width"; on Sapphire Rapids both are 512 bits now).
  int sum_fold_vector_width = 256;
  // 64-bit mask registers (AVX-512BW): a fold's 64-row mask word is one `kmovq`, each group's lanes
  // a `kshiftrq`; elsewhere lanes test constant bits of the broadcast word.
  bool mask_registers = false;
};

// The function attribute that marks an integer sum fold ("sum-int") or the vector form of a
// column fold ("column"), both at sum_fold_vector_width; read when the
// target's attributes are set, so that the IR gates see the width that runs.
inline constexpr const char* kFoldKindAttribute = "rowjit-fold";
// Marks a kernel whose rows load from constant tables at row-dependent indices (a time zone's
// offsets): on x86 with AVX2 its loads become gathers (the "fast-gather" tuning LLVM gives only
// Intel cores and AVX-512; on Zen 3 gathers ran zoned year(t) 3x faster than the lane-by-lane
// loads the cost model picks without it).
inline constexpr const char* kTableGathersAttribute = "rowjit-table-gathers";
// Marks a kernel heavy with float arithmetic per row (exp, ln, power: ir/float_math.h): it
// runs at sum_fold_vector_width, the host's widest (512 bits where it has them: on Sapphire
// Rapids these kernels ran in 0.76-0.85x the time of 256-bit code, README "Transcendental
// functions").
inline constexpr const char* kWideMathAttribute = "rowjit-wide-math";

// "native" is the host as LLVM detects it, unless a lower x86-64 level is forced for the static
// kernels (ROWJIT_KERNEL_LEVEL, kernels::SetKernelLevel) when the compiler is made: then that
// level's code (ForcedKernelLevel), which also runs here.
Result<TargetSpec> ResolveTarget(const std::string& name);
// The x86-64 level ("x86-64-v3", ...) native kernels are held to, when one below the host's best
// is forced; nullopt otherwise.
std::optional<std::string> ForcedKernelLevel();
const std::vector<std::string>& KnownTargets();

}  // namespace rowjit::jit
