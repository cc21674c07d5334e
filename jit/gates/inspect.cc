// IR inspection with LLVM's LoopInfo over the optimized function (jit layer, gates room). The
// optimized IR text is parsed back into a module, so generated and hand-written code read alike.
#include "jit/gates/inspect.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "jit/base/kernel_abi.h"
#include "jit/compile/pipeline_internal.h"

namespace rowjit::jit {
namespace {

constexpr size_t kMaxSampleLines = 6;

std::string Print(const llvm::Value& v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.print(os);
  std::string_view t = s;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  return std::string(t);
}

std::string TypeName(const llvm::Type* t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return s;
}

std::string Width(const llvm::VectorType* v) {
  const auto count = v->getElementCount();
  return count.isScalable() ? fmt::format("vscale x {}", count.getKnownMinValue())
                            : std::to_string(count.getKnownMinValue());
}

void AddUnique(std::vector<std::string>& out, std::string s) {
  if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
}

bool IsI128(const llvm::Type* t) { return t->getScalarType()->isIntegerTy(128); }

const llvm::Function* Callee(const llvm::Instruction& inst) {
  auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
  return call ? call->getCalledFunction() : nullptr;
}

// Calls that say nothing about the loop's code: markers, and vscale (a constant per CPU).
bool IsMarkerCall(llvm::StringRef name) {
  return name.starts_with("llvm.vscale") || name.starts_with("llvm.assume") ||
         name.starts_with("llvm.lifetime") ||
         name.starts_with("llvm.experimental.noalias.scope.decl");
}

// The vector type an instruction works on: its result, else its first vector operand (stores,
// compares whose result is a mask still count by their operands).
const llvm::VectorType* VectorTypeOf(const llvm::Instruction& inst) {
  if (auto* v = llvm::dyn_cast<llvm::VectorType>(inst.getType())) return v;
  for (const llvm::Value* op : inst.operands()) {
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(op->getType())) return v;
  }
  return nullptr;
}

// Real vector work: loads, stores, arithmetic, compares, casts, selects and vector intrinsics.
// Lane shuffling, phis and reductions alone do not make a loop vectorized.
bool IsVectorWork(const llvm::Instruction& inst) {
  if (llvm::isa<llvm::PHINode>(inst) || llvm::isa<llvm::ShuffleVectorInst>(inst) ||
      llvm::isa<llvm::InsertElementInst>(inst) || llvm::isa<llvm::ExtractElementInst>(inst)) {
    return false;
  }
  if (const llvm::Function* f = Callee(inst); f && f->getName().starts_with("llvm.vector.reduce.")) {
    return false;
  }
  return VectorTypeOf(inst) != nullptr;
}

std::optional<ReductionInfo> AsReduction(const llvm::Instruction& inst) {
  ReductionInfo r;
  if (const llvm::Function* f = Callee(inst); f && f->getName().starts_with("llvm.vector.reduce.")) {
    llvm::StringRef rest = f->getName().drop_front(std::string_view("llvm.vector.reduce.").size());
    r.op = rest.substr(0, rest.find('.')).str();
    auto* call = llvm::cast<llvm::CallBase>(&inst);
    const llvm::Value* vec = call->getArgOperand(call->arg_size() - 1);
    auto* vt = llvm::dyn_cast<llvm::VectorType>(vec->getType());
    if (vt == nullptr) return std::nullopt;
    r.vector_type = TypeName(vt);
    r.element = TypeName(vt->getElementType());
    r.element_bits = vt->getElementType()->isIntegerTy()
                         ? static_cast<int>(vt->getElementType()->getIntegerBitWidth())
                         : 0;
  } else if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(&inst)) {
    // icmp ne (bitcast <N x iW> v to iNW), 0 is InstCombine's form of reduce.or(v) != 0.
    auto* vt = llvm::dyn_cast<llvm::VectorType>(cast->getSrcTy());
    if (vt == nullptr || !cast->getDestTy()->isIntegerTy() || !vt->getElementType()->isIntegerTy()) {
      return std::nullopt;
    }
    r.op = "or";
    r.vector_type = TypeName(vt);
    r.element = TypeName(vt->getElementType());
    r.element_bits = static_cast<int>(vt->getElementType()->getIntegerBitWidth());
  } else {
    return std::nullopt;
  }
  r.line = Print(inst);
  return r;
}

bool HasLoopMetadata(const llvm::Loop& loop, std::string_view wanted) {
  llvm::MDNode* id = loop.getLoopID();
  if (id == nullptr) return false;
  for (unsigned i = 1; i < id->getNumOperands(); ++i) {
    auto* node = llvm::dyn_cast<llvm::MDNode>(id->getOperand(i));
    if (node == nullptr || node->getNumOperands() == 0) continue;
    auto* name = llvm::dyn_cast<llvm::MDString>(node->getOperand(0));
    if (name && std::string_view(name->getString()) == wanted) return true;
  }
  return false;
}

bool HasIsVectorizedMetadata(const llvm::Loop& loop) { return HasLoopMetadata(loop, "llvm.loop.isvectorized"); }

struct LoopWork {
  LoopReport report;
  const llvm::Loop* loop = nullptr;
};

// Fills what a loop's own blocks (not its subloops') hold.
void ScanLoop(const llvm::Loop& loop, const llvm::LoopInfo& li, LoopReport& r) {
  std::map<std::string, int> width_count;
  std::map<const llvm::Value*, int> vector_memory_per_base;
  std::vector<const llvm::Value*> base_order;
  int vector_memory = 0;
  for (const llvm::BasicBlock* bb : loop.blocks()) {
    if (li.getLoopFor(bb) != &loop) continue;  // a subloop's block
    for (const llvm::Instruction& inst : *bb) {
      if (bb == loop.getHeader() && llvm::isa<llvm::PHINode>(inst) && inst.getType()->isVectorTy()) {
        ++r.vector_phis;
      }
      const std::string line = Print(inst);
      bool i128 = IsI128(inst.getType());
      for (const llvm::Value* op : inst.operands()) i128 = i128 || IsI128(op->getType());
      if (i128) r.i128_ops.push_back(line);
      if (auto red = AsReduction(inst)) r.reductions.push_back(*red);
      if (const llvm::Function* f = Callee(inst)) {
        const llvm::StringRef name = f->getName();
        if (name.contains(".with.overflow")) r.overflow_intrinsics.push_back(line);
        const bool vector_intrinsic = f->isIntrinsic() && VectorTypeOf(inst) != nullptr;
        const bool bulk = name.starts_with("llvm.memcpy") || name.starts_with("llvm.memset") ||
                          name.starts_with("llvm.memmove");
        r.bulk_memory = r.bulk_memory || bulk;
        if (!IsMarkerCall(name) && !vector_intrinsic && !bulk) r.calls.push_back(line);
      }
      if (IsVectorWork(inst)) {
        const llvm::VectorType* vt = VectorTypeOf(inst);
        ++r.vector_ops;
        if (llvm::isa<llvm::LoadInst>(inst) || llvm::isa<llvm::StoreInst>(inst)) ++vector_memory;
        ++width_count[Width(vt)];
        AddUnique(r.element_types, TypeName(vt->getElementType()));
        const llvm::Value* ptr = llvm::getLoadStorePointerOperand(&inst);
        if (ptr != nullptr) {
          const llvm::Value* base = llvm::getUnderlyingObject(ptr);
          if (vector_memory_per_base[base]++ == 0) base_order.push_back(base);
        }
      } else if ((llvm::isa<llvm::LoadInst>(inst) || llvm::isa<llvm::StoreInst>(inst)) &&
                 r.scalar_row_ops.size() < kMaxSampleLines) {
        r.scalar_row_ops.push_back(line);
      }
    }
  }
  // Around a vectorized subloop, the vector `or`s that combine its interleaved accumulators do
  // not make the outer loop vectorized; vector loads or stores do.
  bool subloop_vectorized = false;
  for (const llvm::Loop* sub : loop.getSubLoops()) {
    for (const llvm::BasicBlock* bb : sub->blocks()) {
      for (const llvm::Instruction& inst : *bb) {
        subloop_vectorized = subloop_vectorized || IsVectorWork(inst);
      }
    }
  }
  r.vectorized = subloop_vectorized ? vector_memory > 0 : r.vector_ops > 0;
  // Widths, most used first: the vectorization factor leads.
  std::vector<std::pair<std::string, int>> widths(width_count.begin(), width_count.end());
  std::stable_sort(widths.begin(), widths.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [w, n] : widths) r.widths.push_back(w);
  if (!base_order.empty()) r.interleave = vector_memory_per_base[base_order.front()];
  if (!r.vectorized) r.scalar_row_ops.resize(std::min(r.scalar_row_ops.size(), kMaxSampleLines));
  else r.scalar_row_ops.clear();
}

// A scalar loop the vectorizer marked and entered from a vectorized loop (its middle block is
// within a few predecessors of the loop's header), or the vectorizer's fallback for a trip count
// below one vector step: entered from the check that also enters a vectorized loop.
bool IsRemainder(const llvm::Loop& loop, const llvm::LoopInfo& li,
                 const std::map<const llvm::Loop*, bool>& vectorized) {
  if (!HasIsVectorizedMetadata(loop)) return false;
  std::vector<const llvm::BasicBlock*> frontier = {loop.getHeader()};
  std::set<const llvm::BasicBlock*> seen(frontier.begin(), frontier.end());
  for (int step = 0; step < 4 && !frontier.empty(); ++step) {
    std::vector<const llvm::BasicBlock*> next;
    for (const llvm::BasicBlock* bb : frontier) {
      for (const llvm::BasicBlock* pred : llvm::predecessors(bb)) {
        if (loop.contains(pred) || !seen.insert(pred).second) continue;
        const llvm::Loop* l = li.getLoopFor(pred);
        if (l != nullptr) {
          auto it = vectorized.find(l);
          if (it != vectorized.end() && it->second && l != &loop && l != loop.getParentLoop()) return true;
        }
        for (const llvm::BasicBlock* sibling : llvm::successors(pred)) {
          // Through the vector preheader (a block with one successor, in no loop of its own: in
          // the enclosing loop where the row loop is nested in one) to the vector loop.
          for (int hop = 0; hop < 2 && sibling != nullptr && li.getLoopFor(sibling) == loop.getParentLoop(); ++hop) {
            sibling = sibling->getUniqueSuccessor();
          }
          const llvm::Loop* s = sibling ? li.getLoopFor(sibling) : nullptr;
          if (s == nullptr || s == &loop || s == loop.getParentLoop() || s->getHeader() != sibling) continue;
          auto it = vectorized.find(s);
          if (it != vectorized.end() && it->second) return true;
        }
        next.push_back(pred);
      }
    }
    frontier = std::move(next);
  }
  return false;
}

// The reductions whose value reaches the returned evidence (through ors, phis, compares, casts),
// and the loads in non-remainder loops that reach it without a reduction between.
void MarkEvidence(const llvm::Function& fn, const llvm::LoopInfo& li,
                  const std::map<const llvm::Loop*, bool>& remainder, KernelReport& report) {
  std::vector<const llvm::Value*> work;
  for (const llvm::BasicBlock& bb : fn) {
    if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator())) {
      report.return_line = Print(*ret);
      if (ret->getReturnValue() && !llvm::isa<llvm::Constant>(ret->getReturnValue())) {
        report.returns_evidence = true;
        work.push_back(ret->getReturnValue());
      }
    }
  }
  std::set<const llvm::Value*> seen;
  std::set<std::string> evidence_lines;
  while (!work.empty()) {
    const llvm::Value* v = work.back();
    work.pop_back();
    auto* inst = llvm::dyn_cast<llvm::Instruction>(v);
    if (inst == nullptr || !seen.insert(v).second) continue;
    if (llvm::isa<llvm::LoadInst>(inst)) {
      // i64 loads in a loop are validity or bool words: one per 64 rows, and evidence derived
      // from them per word ("a valid row divides by the zero constant") is no row-by-row work.
      const llvm::Loop* l = li.getLoopFor(inst->getParent());
      if (l != nullptr && !remainder.at(l) && !inst->getType()->isIntegerTy(64) &&
          report.scalar_evidence.size() < kMaxSampleLines) {
        report.scalar_evidence.push_back(Print(*inst));
      }
      continue;
    }
    if (AsReduction(*inst)) {
      evidence_lines.insert(Print(*inst));
      continue;
    }
    if (auto* select = llvm::dyn_cast<llvm::SelectInst>(inst)) {
      // A select between accumulators (a skipped word keeps the old one) is control, not data.
      work.push_back(select->getTrueValue());
      work.push_back(select->getFalseValue());
      continue;
    }
    for (const llvm::Value* op : inst->operands()) work.push_back(op);
  }
  for (ReductionInfo& r : report.reductions) r.feeds_return = evidence_lines.count(r.line) > 0;
  for (LoopReport& l : report.loops) {
    for (ReductionInfo& r : l.reductions) r.feeds_return = evidence_lines.count(r.line) > 0;
  }
}

Result<KernelReport> Inspect(const llvm::Function& fn) {
  KernelReport report;
  report.function_name = fn.getName().str();
  llvm::DominatorTree dt(const_cast<llvm::Function&>(fn));
  llvm::LoopInfo li(dt);
  std::map<const llvm::BasicBlock*, size_t> position;
  for (const llvm::BasicBlock& bb : fn) position.emplace(&bb, position.size());
  std::vector<const llvm::Loop*> loops;
  for (const llvm::Loop* top : li) {
    for (const llvm::Loop* l : llvm::depth_first(top)) loops.push_back(l);
  }
  std::sort(loops.begin(), loops.end(), [&](const llvm::Loop* a, const llvm::Loop* b) {
    return position[a->getHeader()] < position[b->getHeader()];
  });
  std::map<const llvm::Loop*, bool> vectorized;
  std::vector<LoopReport> reports(loops.size());
  for (size_t i = 0; i < loops.size(); ++i) {
    reports[i].header = loops[i]->getHeader()->getName().str();
    reports[i].depth = static_cast<int>(loops[i]->getLoopDepth());
    ScanLoop(*loops[i], li, reports[i]);
    vectorized[loops[i]] = reports[i].vectorized;
  }
  for (size_t i = 0; i < loops.size(); ++i) {
    for (const llvm::Loop* sub : llvm::depth_first(loops[i])) {
      if (sub != loops[i] && vectorized[sub]) reports[i].encloses_vectorized = true;
    }
    reports[i].short_batch = !reports[i].vectorized && HasLoopMetadata(*loops[i], kShortBatchLoop);
    reports[i].word_loop = !reports[i].vectorized && HasLoopMetadata(*loops[i], kWordLoop);
    reports[i].remainder = !reports[i].vectorized && (reports[i].short_batch || IsRemainder(*loops[i], li, vectorized));
  }
  std::map<const llvm::Loop*, bool> remainder;
  for (size_t i = 0; i < loops.size(); ++i) remainder[loops[i]] = reports[i].remainder;
  report.loops = std::move(reports);
  for (const llvm::BasicBlock& bb : fn) {
    for (const llvm::Instruction& inst : bb) {
      if (auto red = AsReduction(inst)) report.reductions.push_back(*red);
    }
  }
  MarkEvidence(fn, li, remainder, report);
  return report;
}

std::string ShapeLine(const llvm::Instruction& inst) {
  if (const llvm::Function* f = Callee(inst)) {
    // Scalar intrinsics belong to remainder loops and change with them; vector intrinsics,
    // overflow intrinsics and library calls are the contract.
    const bool keep = !IsMarkerCall(f->getName()) &&
                      (VectorTypeOf(inst) != nullptr || !f->isIntrinsic() ||
                       f->getName().contains(".with.overflow"));
    return keep ? fmt::format("call @{}", f->getName().str()) : "";
  }
  const bool i128 = IsI128(inst.getType()) ||
                    std::any_of(inst.op_begin(), inst.op_end(),
                                [](const llvm::Use& u) { return IsI128(u->getType()); });
  const bool memory = llvm::isa<llvm::LoadInst>(inst) || llvm::isa<llvm::StoreInst>(inst);
  if (!i128 && !(memory && IsVectorWork(inst))) return "";
  std::string op = inst.getOpcodeName();
  if (auto* cmp = llvm::dyn_cast<llvm::CmpInst>(&inst)) {
    op += " " + llvm::CmpInst::getPredicateName(cmp->getPredicate()).str();
  }
  if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
    return op + " " + TypeName(store->getValueOperand()->getType());
  }
  if (auto* cast = llvm::dyn_cast<llvm::CastInst>(&inst)) {
    return fmt::format("{} {} to {}", op, TypeName(cast->getSrcTy()), TypeName(cast->getDestTy()));
  }
  if (llvm::isa<llvm::CmpInst>(inst)) return op + " " + TypeName(inst.getOperand(0)->getType());
  return op + " " + TypeName(inst.getType());
}

Result<const llvm::Function*> FindFunction(const llvm::Module& m, std::string_view name) {
  const llvm::Function* fn = m.getFunction(llvm::StringRef(name.data(), name.size()));
  if (fn == nullptr || fn->isDeclaration()) {
    return MakeError(ErrorCode::kInvalidInput, "no function '{}' in the module", name);
  }
  return fn;
}

Result<std::unique_ptr<llvm::Module>> Parse(std::string_view text, llvm::LLVMContext& ctx) {
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m =
      llvm::parseAssemblyString(llvm::StringRef(text.data(), text.size()), diag, ctx);
  if (m == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "IR does not parse: line {}: {}", diag.getLineNo(),
                     diag.getMessage().str());
  }
  return m;
}

}  // namespace

Result<std::vector<std::string>> ShapeLines(std::string_view optimized_ir,
                                            std::string_view function_name) {
  llvm::LLVMContext ctx;
  ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, Parse(optimized_ir, ctx));
  ROWJIT_ASSIGN_OR_RETURN(const llvm::Function* fn, FindFunction(*m, function_name));
  std::set<std::string> lines;
  for (const llvm::BasicBlock& bb : *fn) {
    for (const llvm::Instruction& inst : bb) {
      if (std::string line = ShapeLine(inst); !line.empty()) lines.insert(std::move(line));
    }
  }
  return std::vector<std::string>(lines.begin(), lines.end());
}

const LoopReport* KernelReport::MainLoop() const {
  const LoopReport* main = nullptr;
  for (const LoopReport& l : loops) {
    if (!l.vectorized) continue;
    // Deeper first, then a loop that carries vectors (accumulators), then more vector operations.
    auto rank = [](const LoopReport& r) { return std::tuple(r.depth, r.vector_phis > 0, r.vector_ops); };
    if (main == nullptr || rank(l) > rank(*main)) main = &l;
  }
  return main;
}

// Whether a vector load of 8 or more bytes (at least 8 x vscale, scalable) reads `buffer`,
// through GEPs.
bool LoadsEightBytesOrMore(const llvm::Value* buffer) {
  for (const llvm::User* u : buffer->users()) {
    if (llvm::isa<llvm::GetElementPtrInst>(u) && LoadsEightBytesOrMore(u)) return true;
    const auto* ty = llvm::isa<llvm::LoadInst>(u) ? llvm::dyn_cast<llvm::VectorType>(u->getType()) : nullptr;
    if (ty != nullptr && ty->getElementCount().getKnownMinValue() >= 8) return true;
  }
  return false;
}

Result<KernelReport> InspectIr(std::string_view optimized_ir, std::string_view function_name) {
  llvm::LLVMContext ctx;
  ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, Parse(optimized_ir, ctx));
  ROWJIT_ASSIGN_OR_RETURN(const llvm::Function* fn, FindFunction(*m, function_name));
  ROWJIT_ASSIGN_OR_RETURN(KernelReport report, Inspect(*fn));
  report.reads_row_mask = fn->arg_size() > 2 && !fn->getArg(2)->use_empty();
  for (const llvm::Instruction& i : fn->getEntryBlock()) {
    if (llvm::isa<llvm::AllocaInst>(i) && i.getMetadata(kFoldMaskName) != nullptr) {
      report.spreads_row_mask = report.spreads_row_mask || LoadsEightBytesOrMore(&i);
    }
  }
  return report;
}

Result<KernelReport> InspectCode(const KernelCode& code) {
  ROWJIT_ASSIGN_OR_RETURN(KernelReport report, InspectIr(code.optimized_ir, code.function_name));
  report.remarks = code.remarks;
  return report;
}

Result<KernelCode> OptimizeIr(std::string_view ir_text, std::string_view function_name,
                              const TargetSpec& target) {
  InitializeLlvmOnce();
  ROWJIT_ASSIGN_OR_RETURN(llvm::TargetMachine * tm, internal::ThreadTargetMachine(target));
  llvm::LLVMContext ctx;
  KernelCode code;
  code.function_name = std::string(function_name);
  ctx.setDiagnosticHandler(internal::MakeRemarkCollector(&code.remarks));
  ROWJIT_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, Parse(ir_text, ctx));
  ROWJIT_ASSIGN_OR_RETURN(const llvm::Function* found, FindFunction(*m, function_name));
  llvm::Function* fn = const_cast<llvm::Function*>(found);
  m->setDataLayout(tm->createDataLayout());
  m->setTargetTriple(target.triple);
  internal::SetTargetAttributes(*fn, target);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os)) {
    return MakeError(ErrorCode::kInvalidInput, "IR does not verify: {}", os.str());
  }
  code.raw_ir = internal::PrintModule(*m);
  internal::OptimizeModule(*m, *tm);
  code.optimized_ir = internal::PrintModule(*m);
  return code;
}

}  // namespace rowjit::jit
