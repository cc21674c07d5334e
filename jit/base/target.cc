// Target resolution and LLVM initialisation (jit layer, base room).
#include "jit/base/target.h"

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

// The vector widths kernels for this host prefer, chosen by measurement (docs/performance.md,
// "Vector width"; bench: the `fold`, `fold_1m`, `ordinary`, `nullable`, `single` and `checked`
// families with EngineOptions::vector_widths at 256 and 512): integer sum folds and column folds
// take 512 bits where the host has 512-bit vectors; row kernels keep 256, where 512 loses on f64
// arithmetic and single multiplies; on Intel's AVX-512 cores, whose 512-bit units are whole,
// integer row kernels of more than a multiply and comparisons take 512 (on AMD's Zen 4, which
// splits a 512-bit operation in two, they gained only with checked arithmetic in cache).
namespace {

void OverrideWidths(TargetSpec& t, const VectorWidths& widths) {
  if (widths.rows != 0) t.prefer_vector_width = widths.rows, t.integer_rows_vector_width = 0;
  if (widths.folds != 0) t.sum_fold_vector_width = widths.folds;
}

// Whether the feature list holds `feature` ("+avx512f") as a whole entry (not "+avx512fp16").
bool HasFeature(const TargetSpec& t, const std::string& feature) {
  return ("," + t.features + ",").find("," + feature + ",") != std::string::npos;
}

void ChooseNativeWidths(TargetSpec& t) {
  t.prefer_vector_width = 256;
  const bool has512 = HasFeature(t, "+avx512f") && !HasFeature(t, "-evex512");
  t.sum_fold_vector_width = has512 ? 512 : 256;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (has512 && __builtin_cpu_is("intel")) t.integer_rows_vector_width = 512;
#endif
}

// Code for the x86-64 level `cpu` ("x86-64", "x86-64-v2" ... "x86-64-v4"): the CPU name carries
// the level's features (jit/compile/pipeline.cc SetTargetAttributes reads AVX2 from it too).
void SetX86Level(TargetSpec& t, const std::string& cpu) {
  t.triple = "x86_64-unknown-linux-gnu";
  t.cpu = cpu;
  t.features.clear();
  t.prefer_vector_width = t.sum_fold_vector_width = cpu == "x86-64-v4" ? 512 : 256;
  t.mask_registers = t.quad_conversions = cpu == "x86-64-v4";
}

}  // namespace

std::optional<std::string> ForcedKernelLevel() {
  const kernels::KernelLevel active = kernels::ActiveKernelLevel();
  if (active == kernels::BestKernelLevel()) return std::nullopt;
  return active == kernels::KernelLevel::kBaseline ? std::string("x86-64")
                                                   : "x86-64-" + std::string(kernels::KernelLevelName(active));
}

Result<VectorWidths> ParseVectorWidths(const std::string& text) {
  auto width = [](const std::string& w) { return w == "128" || w == "256" || w == "512" ? std::stoi(w) : 0; };
  const size_t slash = text.find('/');
  const int rows = width(text.substr(0, slash));
  const int folds = slash == std::string::npos ? rows : width(text.substr(slash + 1));
  if (rows == 0 || folds == 0) {
    return MakeError(ErrorCode::kInvalidInput, "vector width '{}' is not W or R/F of 128, 256 or 512", text);
  }
  return VectorWidths{.rows = rows, .folds = folds};
}

Result<TargetSpec> ResolveTarget(const std::string& name, const VectorWidths& widths) {
  InitializeLlvmOnce();
  TargetSpec t;
  t.name = name;
  if (name == "native") {
    if (std::optional<std::string> forced = ForcedKernelLevel()) {
      // A level below the host's best, forced for the static kernels (ROWJIT_KERNEL_LEVEL,
      // kernels::SetKernelLevel), holds for the JIT's kernels too: code for that x86-64 level,
      // which runs here, so that one host measures and tests the AVX2 path of an AVX-512 one.
      SetX86Level(t, *forced);
      OverrideWidths(t, widths);
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
    OverrideWidths(t, widths);
    t.mask_registers = t.features.find("+avx512bw") != std::string::npos;
    t.quad_conversions = HasFeature(t, "+avx512dq");
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
