// The pieces of compilation shared by generated kernels and hand-written IR under inspection
// (jit layer, internal): target machines, target attributes, the optimization pipeline, remark
// capture. The JIT and the gates both compile through these, so what the gates inspect is what
// the JIT runs.
#include <map>

#include "jit/pipeline_internal.h"

namespace rowjit::jit {
namespace internal {
namespace {

// Collects loop-vectorize remarks; every other diagnostic goes to the default handling.
struct RemarkCollector final : llvm::DiagnosticHandler {
  explicit RemarkCollector(std::vector<Remark>* out) : out(out) {}
  // Without this, the remark emitter decides no remark is wanted and builds none.
  bool isAnyRemarkEnabled() const override { return true; }
  bool isAnalysisRemarkEnabled(llvm::StringRef pass) const override { return pass == "loop-vectorize"; }
  bool isMissedOptRemarkEnabled(llvm::StringRef pass) const override { return pass == "loop-vectorize"; }
  bool isPassedOptRemarkEnabled(llvm::StringRef pass) const override { return pass == "loop-vectorize"; }
  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    auto* remark = llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&info);
    if (remark == nullptr || remark->getPassName() != "loop-vectorize") return false;
    Remark r;
    switch (info.getKind()) {
      case llvm::DK_OptimizationRemark: r.kind = "passed"; break;
      case llvm::DK_OptimizationRemarkMissed: r.kind = "missed"; break;
      default: r.kind = "analysis"; break;
    }
    r.message = remark->getMsg();
    out->push_back(std::move(r));
    return true;
  }
  std::vector<Remark>* out;
};

}  // namespace

std::unique_ptr<llvm::DiagnosticHandler> MakeRemarkCollector(std::vector<Remark>* out) {
  return std::make_unique<RemarkCollector>(out);
}

Result<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const TargetSpec& t) {
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, err);
  if (target == nullptr) return MakeError(ErrorCode::kUnsupported, "target {}: {}", t.name, err);
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      t.triple, t.cpu, t.features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) return MakeError(ErrorCode::kUnsupported, "no target machine for {}", t.name);
  return tm;
}

Result<llvm::TargetMachine*> ThreadTargetMachine(const TargetSpec& t) {
  thread_local std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines;
  const std::string key = t.triple + "|" + t.cpu + "|" + t.features;
  auto it = machines.find(key);
  if (it == machines.end()) {
    ROWJIT_ASSIGN_OR_RETURN(auto tm, MakeTargetMachine(t));
    it = machines.emplace(key, std::move(tm)).first;
  }
  return it->second.get();
}

std::string PrintModule(const llvm::Module& m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

void SetTargetAttributes(llvm::Function& fn, const TargetSpec& t) {
  fn.addFnAttr("target-cpu", t.cpu);
  if (!t.features.empty()) fn.addFnAttr("target-features", t.features);
  const std::string width = std::to_string(t.prefer_vector_width);
  fn.addFnAttr("prefer-vector-width", width);
  fn.addFnAttr("min-legal-vector-width", width);
}

void OptimizeModule(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  pto.LoopUnrolling = true;
  pto.LoopInterleaving = true;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);
}

}  // namespace internal

}  // namespace rowjit::jit
