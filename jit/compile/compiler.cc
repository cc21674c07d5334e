// Codegen, optimization, object emission and ORC linking, with the time of each phase (jit
// layer).
#include "jit/compile/compiler.h"

#include <elf.h>
#include <link.h>

#include <atomic>
#include <chrono>
#include <cstring>

#include "ir/version.h"
#include "jit/codegen/codegen_internal.h"
#include "jit/base/kernel_abi.h"
#include "jit/compile/pipeline_internal.h"
#include "jit/codegen/string_helpers.h"

namespace rowjit::jit {

namespace {

using internal::PrintModule;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::atomic<uint64_t> g_kernel_counter{0};

// The GNU build ID of the binary this code is linked into (the shared library, or the program
// rowjit is linked into statically), in hex; "none" without one. A rebuilt rowjit whose code
// generation changed under the same version has another, so kernels it cached on disk are not
// loaded by the new one.
std::string BuildId() {
  struct Search {
    uintptr_t address;
    std::string id;
  } search{reinterpret_cast<uintptr_t>(&BuildId), "none"};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        bool mine = false;
        for (int i = 0; i < info->dlpi_phnum && !mine; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          const uintptr_t start = info->dlpi_addr + p.p_vaddr;
          mine = p.p_type == PT_LOAD && s->address >= start && s->address < start + p.p_memsz;
        }
        if (!mine) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_NOTE) continue;
          const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + p.p_vaddr);
          const unsigned char* end = at + p.p_memsz;
          while (at + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) note;
            std::memcpy(&note, at, sizeof(note));
            const unsigned char* name = at + sizeof(note);
            const unsigned char* desc = name + ((note.n_namesz + 3) & ~3u);
            if (desc + note.n_descsz > end) break;
            if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              s->id.clear();
              for (uint32_t k = 0; k < note.n_descsz; ++k) s->id += fmt::format("{:02x}", desc[k]);
              return 1;
            }
            at = desc + ((note.n_descsz + 3) & ~3u);
          }
        }
        return 1;
      },
      &search);
  return search.id;
}

// Emits the kernel into `m` as `name`, with the target's attributes.
Status EmitInto(const CacheKey& key, const TargetSpec& t, llvm::TargetMachine& tm, llvm::Module& m,
                const std::string& name) {
  m.setDataLayout(tm.createDataLayout());
  m.setTargetTriple(t.triple);
  internal::CodegenFeatures f;
  f.mask_registers = t.mask_registers;
  f.byte_dots = t.mask_registers && t.features.find("+avx512vnni") != std::string::npos &&
                t.features.find("+avx512vl") != std::string::npos;
  f.quad_conversions = t.quad_conversions;
  ROWJIT_RETURN_NOT_OK(internal::EmitKernel(key, m, name, f));
  internal::SetTargetAttributes(*m.getFunction(name), t);
  return Status::OK();
}

}  // namespace

std::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kFast: return "fast";
    case Tier::kOptimized: return "optimized";
    case Tier::kStatic: return "static";
  }
  return "?";
}

Result<KernelCode> GenerateCode(const CacheKey& key, const TargetSpec& target, bool want_assembly) {
  InitializeLlvmOnce();
  ROWJIT_ASSIGN_OR_RETURN(llvm::TargetMachine * tm, internal::ThreadTargetMachine(target, Tier::kOptimized));
  llvm::LLVMContext ctx;
  KernelCode code;
  ctx.setDiagnosticHandler(internal::MakeRemarkCollector(&code.remarks));
  llvm::Module m("rowjit", ctx);
  code.function_name = fmt::format("rowjit_kernel_{}", g_kernel_counter.fetch_add(1));
  ROWJIT_RETURN_NOT_OK(EmitInto(key, target, *tm, m, code.function_name));
  code.raw_ir = PrintModule(m);
  internal::OptimizeModule(m, *tm, internal::PipelineFor(key.shape));
  if (key.shape.stream_output) internal::MarkStreamingStores(m);
  code.optimized_ir = PrintModule(m);
  if (want_assembly) {
    ROWJIT_ASSIGN_OR_RETURN(std::string text, internal::EmitMachineCode(m, *tm, /*assembly=*/true));
    code.assembly = std::move(text);
  }
  return code;
}

Result<std::shared_ptr<const CompiledKernel>> JitCompiler::Compile(const CacheKey& key, Tier tier) {
  ROWJIT_ASSIGN_OR_RETURN(KernelObject object, Emit(key, tier));
  return Link(object, key.shape, tier);
}

namespace {

// A linked kernel owns its JIT library: removing the library frees the machine code, so
// eviction from the cache really returns the memory.
class Kernel final : public CompiledKernel {
 public:
  Kernel(void* entry, const KernelShape& shape, Tier tier, const CompilePhases& phases,
         llvm::orc::LLJIT& jit, llvm::orc::JITDylib& library)
      : jit_(jit), library_(library) {
    entry_ = entry;
    shape_ = shape;
    tier_ = tier;
    phases_ = phases;
  }
  ~Kernel() override { llvm::consumeError(jit_.getExecutionSession().removeJITDylib(library_)); }

 private:
  llvm::orc::LLJIT& jit_;
  llvm::orc::JITDylib& library_;
};

class OrcCompiler final : public JitCompiler {
 public:
  OrcCompiler(std::unique_ptr<llvm::orc::LLJIT> jit, TargetSpec target)
      : jit_(std::move(jit)), target_(std::move(target)) {}

  Result<KernelObject> Emit(const CacheKey& key, Tier tier) override {
    if (tier == Tier::kStatic) return MakeError(ErrorCode::kInvalidInput, "the static tier is not compiled");
    Clock::time_point start = Clock::now();
    ROWJIT_ASSIGN_OR_RETURN(llvm::TargetMachine * tm, internal::ThreadTargetMachine(target_, tier));
    llvm::LLVMContext ctx;
    ctx.setDiagnosticHandler(internal::MakeQuietHandler());
    llvm::Module m("rowjit", ctx);
    KernelObject object;
    ROWJIT_RETURN_NOT_OK(EmitInto(key, target_, *tm, m, kKernelEntry));
    object.phases.emit_ms = MsSince(start);
    if (tier == Tier::kOptimized) {
      start = Clock::now();
      internal::OptimizeModule(m, *tm, internal::PipelineFor(key.shape));
      if (key.shape.stream_output) internal::MarkStreamingStores(m);
      object.phases.optimize_ms = MsSince(start);
    }
    start = Clock::now();
    ROWJIT_ASSIGN_OR_RETURN(object.bytes, internal::EmitMachineCode(m, *tm, /*assembly=*/false));
    object.phases.codegen_ms = MsSince(start);
    return object;
  }

  Result<std::shared_ptr<const CompiledKernel>> Link(const KernelObject& object, const KernelShape& shape,
                                                    Tier tier) override {
    const Clock::time_point start = Clock::now();
    auto library = jit_->createJITDylib(fmt::format("rowjit_kernel_{}", g_kernel_counter.fetch_add(1)));
    if (!library) return FromLlvm(library.takeError(), "creating a kernel's JIT library");
    auto remove = [&] { llvm::consumeError(jit_->getExecutionSession().removeJITDylib(*library)); };
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object.bytes, kKernelEntry);
    if (auto err = jit_->addObjectFile(*library, std::move(buffer))) {
      remove();
      return FromLlvm(std::move(err), "adding a kernel to the JIT");
    }
    auto sym = jit_->lookup(*library, kKernelEntry);
    if (!sym) {
      remove();
      return FromLlvm(sym.takeError(), "linking a kernel");
    }
    CompilePhases phases = object.phases;
    phases.link_ms = MsSince(start);
    return std::shared_ptr<const CompiledKernel>(
        std::make_shared<Kernel>(sym->toPtr<void*>(), shape, tier, phases, *jit_, *library));
  }

  std::string ObjectEnvironment() const override {
    static const std::string build = BuildId();
    return fmt::format("rowjit {} (build {}); kernel ABI {}; LLVM {}; triple {}; cpu {}; features {}; vector width {} "
                       "(integer sum folds {}, integer rows {}); {}",
                       Version(), build, kKernelAbiVersion, LLVM_VERSION_STRING, target_.triple, target_.cpu, target_.features,
                       target_.prefer_vector_width, target_.sum_fold_vector_width, target_.IntegerRowsWidth(),
                       internal::CodegenOptions());
  }

 private:
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  TargetSpec target_;
};

// The static functions kernels call by name (jit/codegen/string_helpers.h), defined where every kernel
// library looks first after itself: the process symbols every new JIT library links against.
Status DefineHelpers(llvm::orc::LLJIT& jit) {
  llvm::orc::ExecutionSession& es = jit.getExecutionSession();
  llvm::orc::SymbolMap symbols;
  for (const internal::HelperSymbol& h : internal::StringHelperSymbols()) {
    symbols[es.intern(llvm::StringRef(h.name.data(), h.name.size()))] = {
        llvm::orc::ExecutorAddr::fromPtr(h.address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  }
  llvm::orc::JITDylibSP process = jit.getProcessSymbolsJITDylib();
  llvm::orc::JITDylib& into = process ? *process : jit.getMainJITDylib();
  if (auto err = into.define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    return FromLlvm(std::move(err), "defining the kernels' helper functions");
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<JitCompiler>> JitCompiler::Make(const VectorWidths& widths) {
  InitializeLlvmOnce();
  ROWJIT_ASSIGN_OR_RETURN(TargetSpec target, ResolveTarget("native", widths));
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple(target.triple)};
  jtmb.setCPU(target.cpu);
  llvm::SubtargetFeatures features(target.features);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  // Kernels arrive as objects (compiled on the calling thread with its own target machine, so
  // threads compile concurrently, or read from disk); the JIT links them and owns their memory.
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create();
  if (!jit) return FromLlvm(jit.takeError(), "creating the JIT");
  ROWJIT_RETURN_NOT_OK(DefineHelpers(**jit));
  return std::unique_ptr<JitCompiler>(new OrcCompiler(std::move(*jit), std::move(target)));
}

}  // namespace rowjit::jit
