// Compiling a specialization: codegen, the O3 pipeline with the target's cost model, ORC
// LLJIT, and codegen-only inspection for any target (jit layer, public, LLVM-free).
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <vector>

#include "ir/spec_key.h"
#include "jit/kernel_abi.h"
#include "jit/target.h"

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
  double optimize_ms = 0;  // codegen of IR + the O3 pipeline (the rest of a compile is ORC)
};

// Generates code for any target without running it (rowjit ir / check / explain).
Result<KernelCode> GenerateCode(const CacheKey& key, const TargetSpec& target, bool want_assembly);

// A compiled, callable kernel. Its machine code lives until the last reference goes. The entry
// point is typed by the kernel's shape: calling a fold as a row kernel is a programmer error.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  const KernelShape& shape() const { return shape_; }
  RowKernelFn row_fn() const {
    assert(!shape_.fold && "a fold kernel called as a row kernel");
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
  double compile_ms() const { return compile_ms_; }
  const KernelCode& code() const { return code_; }  // IR kept only when asked

 protected:
  void* entry_ = nullptr;
  KernelShape shape_;
  double compile_ms_ = 0;
  KernelCode code_;
};

// One ORC LLJIT for the host; thread-safe.
class JitCompiler {
 public:
  virtual ~JitCompiler() = default;
  static Result<std::unique_ptr<JitCompiler>> Make();
  virtual Result<std::shared_ptr<const CompiledKernel>> Compile(const CacheKey& key,
                                                                bool keep_code) = 0;
};

}  // namespace rowjit::jit
