// Codegen + optimization + ORC compilation (jit layer).
#include "jit/compiler.h"

#include <atomic>
#include <chrono>
#include <map>

#include "jit/codegen_internal.h"
#include "jit/pipeline_internal.h"

namespace rowjit::jit {

namespace {

using internal::PrintModule;

std::atomic<uint64_t> g_kernel_counter{0};

// Emits the kernel and runs the O3 pipeline with the target machine's cost model (loop and SLP
// vectorization on). Fills `code` as asked.
Status BuildModule(const CacheKey& key, const TargetSpec& t, llvm::TargetMachine& tm,
                   llvm::Module& m, bool keep_ir, KernelCode& code) {
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(t.triple);
  code.function_name = fmt::format("rowjit_kernel_{}", g_kernel_counter.fetch_add(1));
  ROWJIT_RETURN_NOT_OK(internal::EmitKernel(key, m, code.function_name));
  internal::SetTargetAttributes(*m.getFunction(code.function_name), t);
  if (keep_ir) code.raw_ir = PrintModule(m);
  internal::OptimizeModule(m, tm, internal::PipelineFor(key.shape));
  if (keep_ir) code.optimized_ir = PrintModule(m);
  return Status::OK();
}

}  // namespace

Result<KernelCode> GenerateCode(const CacheKey& key, const TargetSpec& target, bool want_assembly) {
  InitializeLlvmOnce();
  ROWJIT_ASSIGN_OR_RETURN(llvm::TargetMachine * tm, internal::ThreadTargetMachine(target));
  llvm::LLVMContext ctx;
  KernelCode code;
  ctx.setDiagnosticHandler(internal::MakeRemarkCollector(&code.remarks));
  llvm::Module m("rowjit", ctx);
  ROWJIT_RETURN_NOT_OK(BuildModule(key, target, *tm, m, true, code));
  if (want_assembly) {
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
      return MakeError(ErrorCode::kUnsupported, "target {} cannot emit assembly", target.name);
    }
    pm.run(m);
    code.assembly = std::string(buffer.str());
  }
  return code;
}

namespace {

class Kernel final : public CompiledKernel {
 public:
  Kernel(void* entry, const KernelShape& shape, double ms, KernelCode code,
         llvm::orc::ResourceTrackerSP tracker)
      : tracker_(std::move(tracker)) {
    entry_ = entry;
    shape_ = shape;
    compile_ms_ = ms;
    code_ = std::move(code);
  }
  ~Kernel() override {
    // Frees the machine code: eviction from the cache really returns the memory.
    if (tracker_) llvm::consumeError(tracker_->remove());
  }

 private:
  llvm::orc::ResourceTrackerSP tracker_;
};

class OrcCompiler final : public JitCompiler {
 public:
  OrcCompiler(std::unique_ptr<llvm::orc::LLJIT> jit, TargetSpec target)
      : jit_(std::move(jit)), target_(std::move(target)) {}

  Result<std::shared_ptr<const CompiledKernel>> Compile(const CacheKey& key, bool keep_code) override {
    const auto start = std::chrono::steady_clock::now();
    ROWJIT_ASSIGN_OR_RETURN(llvm::TargetMachine * tm, internal::ThreadTargetMachine(target_));

    llvm::LLVMContext ctx;
    llvm::Module m("rowjit", ctx);
    KernelCode code;
    ROWJIT_RETURN_NOT_OK(BuildModule(key, target_, *tm, m, keep_code, code));
    code.optimize_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // Codegen here, with this thread's target machine, rather than in the JIT's compile layer
    // (which would make a target machine per module); the JIT links the object.
    llvm::SmallVector<char, 0> object;
    {
      llvm::raw_svector_ostream os(object);
      llvm::legacy::PassManager pm;
      if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
        return MakeError(ErrorCode::kUnsupported, "target {} cannot emit objects", target_.name);
      }
      pm.run(m);
    }
    auto tracker = jit_->getMainJITDylib().createResourceTracker();
    auto buffer = std::make_unique<llvm::SmallVectorMemoryBuffer>(std::move(object), code.function_name,
                                                                  /*RequiresNullTerminator=*/false);
    if (auto err = jit_->addObjectFile(tracker, std::move(buffer))) {
      return FromLlvm(std::move(err), "adding a kernel to the JIT");
    }
    auto sym = jit_->lookup(code.function_name);
    if (!sym) {
      llvm::consumeError(tracker->remove());
      return FromLlvm(sym.takeError(), "compiling a kernel");
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return std::shared_ptr<const CompiledKernel>(
        std::make_shared<Kernel>(sym->toPtr<void*>(), key.shape, ms, std::move(code), std::move(tracker)));
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  TargetSpec target_;
};

}  // namespace

Result<std::unique_ptr<JitCompiler>> JitCompiler::Make() {
  InitializeLlvmOnce();
  ROWJIT_ASSIGN_OR_RETURN(TargetSpec target, ResolveTarget("native"));
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  llvm::SubtargetFeatures features(target.features);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  // Kernels arrive as objects (compiled on the calling thread with its own target machine, so
  // threads compile concurrently); the JIT links them and owns their memory.
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create();
  if (!jit) return FromLlvm(jit.takeError(), "creating the JIT");
  return std::unique_ptr<JitCompiler>(new OrcCompiler(std::move(*jit), std::move(target)));
}

}  // namespace rowjit::jit
