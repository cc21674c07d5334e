// Run-time choice of the x86-64 level the static kernels run at (kernels layer).
// Every hot kernel is compiled once per level; the best level the CPU supports is used unless
// SetKernelLevel() forces another (the ROWJIT_KERNEL_LEVEL variable does so through it:
// runtime/environment.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace rowjit::kernels {

enum class KernelLevel : uint8_t {
  kBaseline,  // x86-64: SSE2
  kV2,        // x86-64-v2: SSE4.2, POPCNT
  kV3,        // x86-64-v3: AVX2, BMI2, FMA
  kV4,        // x86-64-v4: AVX-512 F/BW/CD/DQ/VL
};

std::string_view KernelLevelName(KernelLevel level);
// "baseline", "v2", "v3", "v4" (also "x86-64-v3" etc.); nullopt for anything else.
std::optional<KernelLevel> ParseKernelLevel(std::string_view name);

// Levels this CPU (and OS) can run, lowest first; always holds kBaseline.
const std::vector<KernelLevel>& AvailableKernelLevels();
bool KernelLevelAvailable(KernelLevel level);
// The level kernels run at now.
KernelLevel ActiveKernelLevel();
// Forces a level for every later kernel call in the process, and for the JIT kernels of every
// engine made afterwards (an engine reads the level once, when it is made: jit/base/target.h). Returns
// false, changing nothing, when the CPU lacks it: an unsupported level is refused rather than
// left to fault.
[[nodiscard]] bool SetKernelLevel(KernelLevel level);
// The best available level (what runs when nothing forces one).
KernelLevel BestKernelLevel();

}  // namespace rowjit::kernels
