// Target resolution and LLVM initialisation (jit layer).
#include "jit/target.h"

#include <cstdlib>

#include <algorithm>
#include <mutex>

#include "jit/llvm_internal.h"
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
// (AVX-512; README, "Vector width"): 512 bits for every kernel where the host has 512-bit vectors
// (integer sum folds 0.67-0.8x the time at 256; row kernels 0.96x in the geometric mean, i32
// `a*b+c` over 65,536 rows 0.87x, and no loss left at 4M rows), 256 elsewhere.
// ROWJIT_VECTOR_WIDTH=128|256|512 sets both (a developer's knob for that measurement; both widths
// enter the disk cache key with the rest of the target).
namespace {

void OverrideWidths(TargetSpec& t) {
  if (const char* env = std::getenv("ROWJIT_VECTOR_WIDTH")) {
    const std::string w(env);
    if (w == "128" || w == "256" || w == "512") t.prefer_vector_width = t.sum_fold_vector_width = std::stoi(w);
  }
}

void ChooseNativeWidths(TargetSpec& t) {
  const bool has512 = t.features.find("+avx512f") != std::string::npos &&
                      t.features.find("-evex512") == std::string::npos;
  t.prefer_vector_width = t.sum_fold_vector_width = has512 ? 512 : 256;
  OverrideWidths(t);
}

// Code for the x86-64 level `cpu` ("x86-64", "x86-64-v2" ... "x86-64-v4"): the CPU name carries
// the level's features (jit/pipeline.cc SetTargetAttributes reads AVX2 from it too).
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
