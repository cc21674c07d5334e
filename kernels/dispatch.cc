// Level detection and the active kernel table (kernels layer). The table pointer is atomic so a
// forced level is seen by every thread; the first use takes the best level the CPU has.
#include "kernels/dispatch.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "kernels/kernel_table_internal.h"

namespace rowjit::kernels {
namespace {

bool CpuHas(KernelLevel level) {
  __builtin_cpu_init();
  switch (level) {
    case KernelLevel::kBaseline: return true;
    // libgcc checks the OS saves the AVX / AVX-512 state (XCR0) too.
    case KernelLevel::kV2: return __builtin_cpu_supports("x86-64-v2");
    case KernelLevel::kV3: return __builtin_cpu_supports("x86-64-v3");
    case KernelLevel::kV4: return __builtin_cpu_supports("x86-64-v4");
  }
  return false;
}

const KernelTable& TableFor(KernelLevel level) {
  switch (level) {
    case KernelLevel::kBaseline: return BaselineKernelTable();
    case KernelLevel::kV2: return V2KernelTable();
    case KernelLevel::kV3: return V3KernelTable();
    case KernelLevel::kV4: return V4KernelTable();
  }
  return BaselineKernelTable();
}

const KernelTable* InitialTable() { return &TableFor(BestKernelLevel()); }

std::atomic<const KernelTable*>& ActiveSlot() {
  static std::atomic<const KernelTable*> slot{InitialTable()};
  return slot;
}

}  // namespace

std::string_view KernelLevelName(KernelLevel level) {
  switch (level) {
    case KernelLevel::kBaseline: return "baseline";
    case KernelLevel::kV2: return "v2";
    case KernelLevel::kV3: return "v3";
    case KernelLevel::kV4: return "v4";
  }
  return "?";
}

std::optional<KernelLevel> ParseKernelLevel(std::string_view name) {
  if (name == "baseline" || name == "x86-64") return KernelLevel::kBaseline;
  if (name == "v2" || name == "x86-64-v2") return KernelLevel::kV2;
  if (name == "v3" || name == "x86-64-v3") return KernelLevel::kV3;
  if (name == "v4" || name == "x86-64-v4") return KernelLevel::kV4;
  return std::nullopt;
}

const std::vector<KernelLevel>& AvailableKernelLevels() {
  static const std::vector<KernelLevel> levels = [] {
    std::vector<KernelLevel> out;
    for (KernelLevel l : {KernelLevel::kBaseline, KernelLevel::kV2, KernelLevel::kV3,
                          KernelLevel::kV4}) {
      if (CpuHas(l)) out.push_back(l);
    }
    return out;
  }();
  return levels;
}

bool KernelLevelAvailable(KernelLevel level) {
  for (KernelLevel l : AvailableKernelLevels()) {
    if (l == level) return true;
  }
  return false;
}

KernelLevel BestKernelLevel() { return AvailableKernelLevels().back(); }

KernelLevel ActiveKernelLevel() { return ActiveKernelTable().level; }

bool SetKernelLevel(KernelLevel level) {
  if (!KernelLevelAvailable(level)) return false;
  ActiveSlot().store(&TableFor(level), std::memory_order_release);
  return true;
}

const KernelTable& ActiveKernelTable() {
  return *ActiveSlot().load(std::memory_order_acquire);
}

}  // namespace rowjit::kernels
