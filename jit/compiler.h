// Compiling a specialization: codegen, the O3 pipeline with the target's cost model, ORC
// LLJIT, and codegen-only inspection for any target (jit layer, public, LLVM-free).
#pragma once

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
Result<KernelCode> GenerateCode(const ir::SpecializationKey& key, const KernelShape& shape,
                                const TargetSpec& target, bool want_assembly);

// A compiled, callable kernel. Its machine code lives until the last reference goes.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  KernelFn fn() const { return fn_; }
  double compile_ms() const { return compile_ms_; }
  const KernelCode& code() const { return code_; }  // IR kept only when asked

 protected:
  KernelFn fn_ = nullptr;
  double compile_ms_ = 0;
  KernelCode code_;
};

// One ORC LLJIT for the host; thread-safe.
class JitCompiler {
 public:
  virtual ~JitCompiler() = default;
  static Result<std::unique_ptr<JitCompiler>> Make();
  virtual Result<std::shared_ptr<const CompiledKernel>> Compile(const ir::SpecializationKey& key,
                                                                const KernelShape& shape,
                                                                bool keep_code) = 0;
};

}  // namespace rowjit::jit
