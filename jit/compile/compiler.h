// Compiling a specialization in two tiers (fast, optimized): codegen, the pass pipeline with the
// target's cost model, object emission timed per phase, linking with ORC LLJIT; and codegen-only
// inspection for any target (jit layer, public, LLVM-free).
#pragma once

#include <atomic>
#include <cassert>
#include <memory>
#include <string>
#include <vector>

#include "ir/spec_key.h"
#include "jit/base/kernel_abi.h"
#include "jit/base/target.h"

namespace rowjit::jit {

// A loop-vectorize remark captured through a diagnostic handler.
struct Remark {
  std::string kind;     // "passed", "missed" or "analysis"
  std::string message;
};

// The text of a kernel at each stage, for inspection and gates.
struct KernelCode {
  std::string function_name;
  std::string raw_ir;
  std::string optimized_ir;
  std::string assembly;   // only when asked
  std::vector<Remark> remarks;
};

// Generates code for any target without running it (rowjit ir / check / explain).
Result<KernelCode> GenerateCode(const CacheKey& key, const TargetSpec& target, bool want_assembly);

// The tiers a kernel runs in. Two are compiled, from the same IR; the static tier compiles
// nothing (it only appears in EvalReport: jit/exec/static_chain.h).
enum class Tier : uint8_t {
  kFast,       // no IR optimization; LLVM's fast instruction selector and register allocator.
               // Scalar code, compiled in a fraction of the optimized tier's time (bench: `compile/*/fast`
               // against `compile/*/cold`). Answers while the optimized tier compiles.
  kOptimized,  // the kernel's pass pipeline and full code generation: vectorized, gated.
  kStatic,     // no kernel: the static kernels one operator at a time, for the expressions they
               // cover, while the optimized tier compiles. Never compiled.
};
std::string_view TierName(Tier tier);

// Where one compile's time went, in milliseconds.
struct CompilePhases {
  double emit_ms = 0;      // building the kernel's IR
  double optimize_ms = 0;  // the pass pipeline (0 for the fast tier)
  double codegen_ms = 0;   // instruction selection, register allocation, object emission
  double link_ms = 0;      // loading the object into the JIT and resolving its entry point
  double read_ms = 0;      // reading and verifying the object from the disk cache (instead of
                           // emit, optimize and codegen)
  double total_ms() const { return emit_ms + optimize_ms + codegen_ms + link_ms + read_ms; }
  CompilePhases& operator+=(const CompilePhases& o) {
    emit_ms += o.emit_ms;
    optimize_ms += o.optimize_ms;
    codegen_ms += o.codegen_ms;
    link_ms += o.link_ms;
    read_ms += o.read_ms;
    return *this;
  }
};

// A kernel as a relocatable object, before linking: what the disk cache stores. Its entry
// point is always named kKernelEntry (each kernel is linked into its own JIT library).
inline constexpr const char* kKernelEntry = "rowjit_kernel";
struct KernelObject {
  std::string bytes;
  CompilePhases phases;  // of the compile that made it (no link yet)
};

// A compiled, callable kernel. Its machine code lives until the last reference goes. The entry
// point is typed by the kernel's shape: calling a fold as a row kernel is a programmer error.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  const KernelShape& shape() const { return shape_; }
  RowKernelFn row_fn() const {
    assert(!shape_.fold && shape_.grouped_slots == 0 && "a fold kernel called as a row kernel");
    return reinterpret_cast<RowKernelFn>(entry_);
  }
  WordFoldFn word_fold_fn() const {
    assert(shape_.fold && shape_.loop == KernelLoop::kWords && "not a word fold");
    return reinterpret_cast<WordFoldFn>(entry_);
  }
  RowFoldFn row_fold_fn() const {
    assert(shape_.fold && shape_.loop == KernelLoop::kRows && "not a row fold");
    return reinterpret_cast<RowFoldFn>(entry_);
  }
  GroupedFoldFn grouped_fold_fn() const {
    assert(shape_.grouped_slots != 0 && "not a grouped fold");
    return reinterpret_cast<GroupedFoldFn>(entry_);
  }
  Tier tier() const { return tier_; }
  // The compile that made the object and the link that loaded it (an object read from the
  // disk cache: its link only, plus the read in link_ms).
  const CompilePhases& phases() const { return phases_; }
  double compile_ms() const { return phases_.total_ms(); }
  // A speculative kernel (KernelShape::speculative_mul) whose evidence sent a batch to the exact
  // twin: this expression's data has wide operands, so the next kExactBatchesAfterWide batches go
  // straight to the twin, and then the kernel speculates again (data that stays wide pays one
  // wasted speculative pass in that many batches; data that turns moderate gets its speed back).
  // Held by the kernel: per expression and specialization, no table to collide in, gone with the
  // kernel when the cache evicts it.
  static constexpr int kExactBatchesAfterWide = 64;
  void MarkWideOperands() const { exact_batches_owed_.store(kExactBatchesAfterWide, std::memory_order_relaxed); }
  // Whether batches are owed to the twin, without spending one.
  bool OwesExactBatches() const { return exact_batches_owed_.load(std::memory_order_relaxed) > 0; }
  // Whether this batch goes straight to the twin (spends one owed batch).
  bool TakeExactBatch() const {
    int owed = exact_batches_owed_.load(std::memory_order_relaxed);
    while (owed > 0) {
      if (exact_batches_owed_.compare_exchange_weak(owed, owed - 1, std::memory_order_relaxed)) return true;
    }
    return false;
  }

 protected:
  void* entry_ = nullptr;
  KernelShape shape_;
  Tier tier_ = Tier::kOptimized;
  CompilePhases phases_;
  mutable std::atomic<int> exact_batches_owed_{0};
};

// One ORC LLJIT for the host; thread-safe. Compiling is two steps, so that an object can be
// stored on disk between them, or come from disk instead of the first.
class JitCompiler {
 public:
  virtual ~JitCompiler() = default;
  // For the host ("native"), with `widths` instead of its own vector widths where set.
  static Result<std::unique_ptr<JitCompiler>> Make(const VectorWidths& widths = {});
  // The kernel's IR, its optimization (optimized tier) and code generation, on the calling
  // thread: a relocatable object for the host.
  virtual Result<KernelObject> Emit(const CacheKey& key, Tier tier) = 0;
  // Links an object (just emitted, or read from disk) into the JIT: a callable kernel.
  virtual Result<std::shared_ptr<const CompiledKernel>> Link(const KernelObject& object,
                                                            const KernelShape& shape, Tier tier) = 0;
  // Everything besides the kernel's key that decides its object's bytes: target triple, CPU
  // name and features, vector width, LLVM and rowjit versions, the codegen options. An object
  // is only ever reused under the same environment.
  virtual std::string ObjectEnvironment() const = 0;
  // Emit, then Link.
  Result<std::shared_ptr<const CompiledKernel>> Compile(const CacheKey& key, Tier tier);
};

}  // namespace rowjit::jit
