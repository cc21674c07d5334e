// The pieces of compilation shared by generated kernels and hand-written IR under inspection
// (jit layer, internal): target machines, target attributes, the optimization pipeline, remark
// capture. The JIT and the gates both compile through these, so what the gates inspect is what
// the JIT runs.
#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <map>

#include "jit/compile/pipeline_internal.h"

namespace rowjit::jit {
namespace internal {
namespace {

// Collects loop-vectorize remarks. Remarks LLVM prints whatever is enabled (the vectorizer's, for a
// loop whose hints force vectorization, are named AlwaysPrint; "transform-warning" reports a
// forced transformation that did not happen) are kept as well, once: a library prints nothing on
// its host's stderr. Other diagnostics go to the default handling.
struct RemarkCollector final : llvm::DiagnosticHandler {
  explicit RemarkCollector(std::vector<Remark>* out) : out(out) {}
  // Without this, the remark emitter decides no remark is wanted and builds none.
  bool isAnyRemarkEnabled() const override { return true; }
  bool isAnalysisRemarkEnabled(llvm::StringRef pass) const override { return pass == "loop-vectorize"; }
  bool isMissedOptRemarkEnabled(llvm::StringRef pass) const override { return pass == "loop-vectorize"; }
  bool isPassedOptRemarkEnabled(llvm::StringRef pass) const override { return pass == "loop-vectorize"; }
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    auto* remark = llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&info);
    if (remark == nullptr || info.getSeverity() == llvm::DS_Error) return false;
    const llvm::StringRef pass = remark->getPassName();
    const bool ours = pass == "loop-vectorize";
    const bool always = pass == llvm::OptimizationRemarkAnalysis::AlwaysPrint || pass == "transform-warning";
    if (!ours && !always) return true;  // not asked for: dropped, never printed
    Remark r;
    switch (info.getKind()) {
      case llvm::DK_OptimizationRemark: r.kind = "passed"; break;
      case llvm::DK_OptimizationRemarkMissed:
      case llvm::DK_OptimizationFailure: r.kind = "missed"; break;
      default: r.kind = "analysis"; break;
    }
    r.message = remark->getMsg();
    const bool seen = std::any_of(out->begin(), out->end(), [&](const Remark& o) {
      return o.kind == r.kind && o.message == r.message;
    });
    if (ours || !seen) out->push_back(std::move(r));
    return true;
  }
  std::vector<Remark>* out;
};

// Drops the remarks LLVM would print unasked (see RemarkCollector) and asks for no others; an
// error still reaches LLVM's own handling.
struct QuietHandler final : llvm::DiagnosticHandler {
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    return llvm::isa<llvm::DiagnosticInfoOptimizationBase>(&info) && info.getSeverity() != llvm::DS_Error;
  }
};

}  // namespace

std::unique_ptr<llvm::DiagnosticHandler> MakeRemarkCollector(std::vector<Remark>* out) {
  return std::make_unique<RemarkCollector>(out);
}

std::unique_ptr<llvm::DiagnosticHandler> MakeQuietHandler() { return std::make_unique<QuietHandler>(); }

Result<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const TargetSpec& t, Tier tier) {
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, err);
  if (target == nullptr) return MakeError(ErrorCode::kUnsupported, "target {}: {}", t.name, err);
  llvm::TargetOptions options;
  const bool fast = tier == Tier::kFast;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      t.triple, t.cpu, t.features, options, llvm::Reloc::PIC_, std::nullopt,
      fast ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) return MakeError(ErrorCode::kUnsupported, "no target machine for {}", t.name);
  if (fast) tm->setFastISel(true);
  return tm;
}

Result<llvm::TargetMachine*> ThreadTargetMachine(const TargetSpec& t, Tier tier) {
  thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  const std::string key = fmt::format("{}|{}|{}|{}", t.triple, t.cpu, t.features, TierName(tier));
  auto it = machines.find(key);
  if (it == machines.end()) {
    ROWJIT_ASSIGN_OR_RETURN(auto tm, MakeTargetMachine(t, tier));
    it = machines.emplace(key, std::move(tm)).first;
  }
  return it->second.get();
}

namespace {

// A target machine's code generation pipeline, built once per thread: building its hundred-odd
// passes costs about half a millisecond per compile, as much as generating a small kernel.
// Each run writes one module's object into `buffer`.
struct ThreadCodegen {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os{buffer};
  llvm::legacy::PassManager pm;
};

}  // namespace

Result<std::string> EmitMachineCode(llvm::Module& m, llvm::TargetMachine& tm, bool assembly) {
  if (assembly) {
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
      return MakeError(ErrorCode::kUnsupported, "target {} cannot emit assembly", tm.getTargetTriple().str());
    }
    pm.run(m);
    return std::string(buffer.str());
  }
  thread_local std::map<llvm::TargetMachine*, std::unique_ptr<ThreadCodegen>> codegens;
  std::unique_ptr<ThreadCodegen>& cg = codegens[&tm];
  if (cg == nullptr) {
    cg = std::make_unique<ThreadCodegen>();
    if (tm.addPassesToEmitFile(cg->pm, cg->os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
      cg.reset();
      return MakeError(ErrorCode::kUnsupported, "target {} cannot emit objects", tm.getTargetTriple().str());
    }
  }
  cg->buffer.clear();
  cg->pm.run(m);
  return std::string(cg->buffer.data(), cg->buffer.size());
}

std::string PrintModule(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

void SetTargetAttributes(llvm::Function& fn, const TargetSpec& t) {
  fn.addFnAttr("target-cpu", t.cpu);
  std::string features = t.features;
  // AVX2 from the feature list, or from a level's CPU name (its features are implied).
  const bool avx2 = llvm::StringRef(features).contains("+avx2") || t.cpu == "x86-64-v3" || t.cpu == "x86-64-v4";
  if (fn.hasFnAttribute(kTableGathersAttribute) && llvm::Triple(t.triple).isX86() && avx2) {
    features += ",+fast-gather";
  }
  if (!features.empty()) fn.addFnAttr("target-features", features);
  const llvm::StringRef fold = fn.getFnAttribute(kFoldKindAttribute).getValueAsString();
  const bool sum_fold = fold == "sum-int" || fold == "column" || fn.hasFnAttribute(kWideMathAttribute);
  const int rows = fn.hasFnAttribute(kIntegerRowsAttribute) ? t.IntegerRowsWidth() : t.prefer_vector_width;
  const std::string width = std::to_string(sum_fold ? t.sum_fold_vector_width : rows);
  fn.addFnAttr("prefer-vector-width", width);
  fn.addFnAttr("min-legal-vector-width", width);
}

namespace {

// The pass pipeline of row loops (KernelLoop::kRows: row kernels and flat folds): one loop over
// rows of flat values, already in SSA form with scoped alias metadata, so the generic O3
// pipeline's inliner, interprocedural passes, loop unswitching, GVN and repeated cleanups have
// nothing to find. What vectorization needs (and infer-alignment after it, which gives the
// vector stores of a streaming kernel's 64-byte aligned output the alignment their
// non-temporal form needs): loads and common subexpressions merged across the
// stores of a projection's outputs (early-cse with MemorySSA, which reads the scoped alias
// metadata), canonical IR (instcombine), loop-invariant loads and
// constants hoisted (licm), a rotated loop, an empty loop deleted (a count over a column without
// nulls), the loop vectorizer with the target's cost model and interleaving, and one cleanup
// after it (correlated-propagation folds the checks a row count known to be whole vector steps
// makes dead). The catalog gates hold with it on every target; word loops, whose 64-lane inner
// loops need full unrolling and SLP, keep O3 (a shorter pipeline for them leaves a few bool and
// float-fold kernels scalar, which `rowjit check --catalog` shows). To try another row pipeline,
// change this text and run the catalog gates.
constexpr const char* kRowLoopPipeline =
    "function(early-cse<memssa>,instcombine<max-iterations=1;no-verify-fixpoint>,simplifycfg<keep-loops>,"
    "loop-mssa(licm<allowspeculation>,loop-rotate<header-duplication>),loop(loop-deletion),"
    "loop-vectorize,infer-alignment,instcombine<max-iterations=1;no-verify-fixpoint>,correlated-propagation,"
    "simplifycfg<keep-loops>)";


// One thread's pass builder, analysis managers and pipelines for one target machine: building
// them costs more than optimizing a small kernel. Analyses are cleared after every module.
struct ThreadPipelines {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  std::unique_ptr<llvm::PassBuilder> pb;
  llvm::ModulePassManager row_loop;

  explicit ThreadPipelines(llvm::TargetMachine& tm) {
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    pto.LoopUnrolling = true;
    pto.LoopInterleaving = true;
    pb = std::make_unique<llvm::PassBuilder>(&tm, pto);
    pb->registerModuleAnalyses(mam);
    pb->registerCGSCCAnalyses(cgam);
    pb->registerFunctionAnalyses(fam);
    pb->registerLoopAnalyses(lam);
    pb->crossRegisterProxies(lam, fam, cgam, mam);
    if (llvm::Error err = pb->parsePassPipeline(row_loop, kRowLoopPipeline)) {
      llvm::consumeError(std::move(err));
      assert(false && "the row-loop pipeline parses");
    }
  }
  void Run(llvm::Module& m, llvm::ModulePassManager& mpm) {
    mpm.run(m, mam);
    lam.clear();
    fam.clear();
    cgam.clear();
    mam.clear();
  }
};

}  // namespace

namespace {

// An idempotent reduction (or, and, min, max) of a splat is the splatted value: what a loop-
// invariant failure (division by a batch constant of zero) leaves after the row pipeline, which,
// unlike O3, has no later pass that folds it. Evidence decided once stays a scalar.
void FoldSplatReductions(llvm::Module& m) {
  std::vector<llvm::IntrinsicInst*> folds;
  for (llvm::Function& fn : m) {
    for (llvm::Instruction& inst : llvm::instructions(fn)) {
      auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst);
      if (call == nullptr) continue;
      switch (call->getIntrinsicID()) {
        case llvm::Intrinsic::vector_reduce_or:
        case llvm::Intrinsic::vector_reduce_and:
        case llvm::Intrinsic::vector_reduce_umax:
        case llvm::Intrinsic::vector_reduce_umin:
        case llvm::Intrinsic::vector_reduce_smax:
        case llvm::Intrinsic::vector_reduce_smin:
          if (llvm::getSplatValue(call->getArgOperand(0)) != nullptr) folds.push_back(call);
          break;
        default: break;
      }
    }
  }
  for (llvm::IntrinsicInst* call : folds) {
    call->replaceAllUsesWith(llvm::getSplatValue(call->getArgOperand(0)));
    call->eraseFromParent();
  }
}

}  // namespace

std::string CodegenOptions() {
  return fmt::format("pic; optimized: codegen O3, row loops [{}] + splat reductions folded + "
                     "widening products paired (and their fold masks) + fold masks read as bits + "
                     "input streams prefetched where marked, "
                     "other kernels O3 (LLVM's); fast: codegen O0 FastISel, no IR passes",
                     kRowLoopPipeline);
}

void MarkStreamingStores(llvm::Module& m) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::MDNode* nontemporal =
      llvm::MDNode::get(ctx, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1)));
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || f.arg_size() < 2) continue;
    const llvm::Argument* out = f.getArg(1);  // the kernel ABI's output values
    for (llvm::Instruction& i : llvm::instructions(f)) {
      auto* store = llvm::dyn_cast<llvm::StoreInst>(&i);
      if (store == nullptr || !store->getValueOperand()->getType()->isVectorTy()) continue;
      if (llvm::getUnderlyingObject(store->getPointerOperand()) != out) continue;
      const uint64_t bytes = m.getDataLayout().getTypeStoreSize(store->getValueOperand()->getType());
      if (store->getAlign().value() >= bytes) store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
    }
  }
}

KernelPipeline PipelineFor(const KernelShape& shape) {
  return shape.loop == KernelLoop::kRows ? KernelPipeline::kRowLoop
                                                        : KernelPipeline::kGeneric;
}

void OptimizeModule(llvm::Module& m, llvm::TargetMachine& tm, KernelPipeline pipeline) {
  thread_local std::map<llvm::TargetMachine*, std::unique_ptr<ThreadPipelines>> pipelines;
  std::unique_ptr<ThreadPipelines>& p = pipelines[&tm];
  if (p == nullptr) p = std::make_unique<ThreadPipelines>(tm);
  if (pipeline == KernelPipeline::kRowLoop) {
    p->Run(m, p->row_loop);
    FoldSplatReductions(m);
    PairWideningProducts(m, tm);
    LoadFoldMasksAsBits(m, tm);
    PrefetchInputStreams(m);
    return;
  }
  // The O3 pipeline keeps state between modules (its inliner's), so each module gets its own.
  llvm::ModulePassManager generic = p->pb->buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  p->Run(m, generic);
}

}  // namespace internal

}  // namespace rowjit::jit
