// Target resolution and LLVM initialisation (jit layer).
#include "jit/base/target.h"

#include <cstdlib>

#include <algorithm>
#include <mutex>

#include "jit/base/llvm_internal.h"
#include "kernels/dispatch.h"

namespace rowjit::jit {

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Every target, so that `rowjit check --target aarch64` can generate (never run) foreign
    // code; the native one is among them.
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

const std::vector<std::string>& KnownTargets() {
  static const std::vector<std::string> targets = {"native",    "x86-64-v2", "x86-64-v3",
                                                   "x86-64-v4", "aarch64",   "aarch64-sve"};
  return targets;
}

// The vector widths kernels for this host prefer, chosen by measurement on Sapphire Rapids
// (README, "Vector width"): integer sum folds and column folds take 512 bits where the host has
// 512-bit vectors (0.67-0.8x the time at 256); row kernels keep 256 (512 won at 65,536 rows on
// kernels heavy with checked arithmetic, i32 `a*b+c` 0.87x, but lost on f64 arithmetic and
// single wrapping multiplies, 1.07-1.14x the static kernels, and tied at 4M rows; Zen 5 measured
// the same: 512 / 256 0.98 over the row benchmarks, f64 at 4M 1.05, so it keeps the choice).
// ROWJIT_VECTOR_WIDTH=W sets both widths, ROWJIT_VECTOR_WIDTH=R/F rows R and folds F (128, 256
// or 512; a developer's knob for that measurement; both widths enter the disk cache key with the
// rest of the target).
namespace {

void OverrideWidths(TargetSpec& t) {
  const char* env = std::getenv("ROWJIT_VECTOR_WIDTH");
  if (env == nullptr) return;
  auto width = [](const std::string& w) { return w == "128" || w == "256" || w == "512" ? std::stoi(w) : 0; };
  const std::string text(env);
  const size_t slash = text.find('/');
  const int rows = width(text.substr(0, slash));
  const int folds = slash == std::string::npos ? rows : width(text.substr(slash + 1));
  if (rows != 0 && folds != 0) {
    t.prefer_vector_width = rows;
    t.sum_fold_vector_width = folds;
  }
}

// Whether the feature list holds `feature` ("+avx512f") as a whole entry (not "+avx512fp16").
bool HasFeature(const TargetSpec& t, const std::string& feature) {
  return ("," + t.features + ",").find("," + feature + ",") != std::string::npos;
}

void ChooseNativeWidths(TargetSpec& t) {
  t.prefer_vector_width = 256;
  const bool has512 = HasFeature(t, "+avx512f") && !HasFeature(t, "-evex512");
  t.sum_fold_vector_width = has512 ? 512 : 256;
  OverrideWidths(t);
}

// Code for the x86-64 level `cpu` ("x86-64", "x86-64-v2" ... "x86-64-v4"): the CPU name carries
// the level's features (jit/compile/pipeline.cc SetTargetAttributes reads AVX2 from it too).
void SetX86Level(TargetSpec& t, const std::string& cpu) {
  t.triple = "x86_64-unknown-linux-gnu";
  t.cpu = cpu;
  t.features.clear();
  t.prefer_vector_width = t.sum_fold_vector_width = cpu == "x86-64-v4" ? 512 : 256;
  t.mask_registers = cpu == "x86-64-v4";
}

}  // namespace

std::optional<std::string> ForcedKernelLevel() {
  const kernels::KernelLevel active = kernels::ActiveKernelLevel();
  if (active == kernels::BestKernelLevel()) return std::nullopt;
  return active == kernels::KernelLevel::kBaseline ? std::string("x86-64")
                                                   : "x86-64-" + std::string(kernels::KernelLevelName(active));
}

Result<TargetSpec> ResolveTarget(const std::string& name) {
  InitializeLlvmOnce();
  TargetSpec t;
  t.name = name;
  if (name == "native") {
    if (std::optional<std::string> forced = ForcedKernelLevel()) {
      // A level below the host's best, forced for the static kernels (ROWJIT_KERNEL_LEVEL,
      // kernels::SetKernelLevel), holds for the JIT's kernels too: code for that x86-64 level,
      // which runs here, so that one host measures and tests the AVX2 path of an AVX-512 one.
      SetX86Level(t, *forced);
      OverrideWidths(t);
      t.triple = llvm::sys::getProcessTriple();
      t.native = true;
      return t;
    }
    t.native = true;
    t.triple = llvm::sys::getProcessTriple();
    t.cpu = llvm::sys::getHostCPUName().str();
    // The CPU name may name an older model than the CPU is; the feature list is right, so it is
    // what decides the instructions.
    std::vector<std::string> features;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) {
      std::string feature(1, f.second ? '+' : '-');
      feature.append(f.first().data(), f.first().size());
      features.push_back(std::move(feature));
    }
    std::sort(features.begin(), features.end());
    for (const auto& f : features) t.features.append(t.features.empty() ? "" : ",").append(f);
    ChooseNativeWidths(t);
    t.mask_registers = t.features.find("+avx512bw") != std::string::npos;
    return t;
  }
  if (name == "x86-64-v2" || name == "x86-64-v3" || name == "x86-64-v4") {
    SetX86Level(t, name);
    return t;
  }
  if (name == "aarch64") {
    t.triple = "aarch64-unknown-linux-gnu";
    t.cpu = "neoverse-n1";
    t.prefer_vector_width = t.sum_fold_vector_width = 128;
    return t;
  }
  if (name == "aarch64-sve") {
    t.triple = "aarch64-unknown-linux-gnu";
    t.cpu = "neoverse-v1";
    t.features = "+sve";
    t.prefer_vector_width = t.sum_fold_vector_width = 256;
    return t;
  }
  return MakeError(ErrorCode::kInvalidInput,
                   "unknown target '{}' (native, x86-64-v2, x86-64-v3, x86-64-v4, aarch64, "
                   "aarch64-sve)",
                   name);
}

}  // namespace rowjit::jit
