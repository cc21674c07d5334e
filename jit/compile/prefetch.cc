// Software prefetch of a vectorized loop's input streams (jit layer, compile room): after the
// row-loop pipeline, in a kernel marked with kPrefetchRowsAttribute, the vector body of every
// vectorized loop gets one read prefetch into L1 per cache line each of its input streams (plain
// fixed-width vector loads from one base) reads in an iteration, that many rows ahead.
// LoopVectorize will not vectorize a loop that calls llvm.prefetch, so the prefetches go in after
// it.
//
// Why: a fold over several columns out of cache runs below the read bandwidth one loop over the
// same columns reaches when it does little per row: its longer body keeps fewer loads in flight,
// and the hardware's stream prefetchers do not run far enough ahead of it to make up for that
// (bench: `tpch/q6/jit_query` and `tpch/q1/jit` against `tpch/q6/floor` and `tpch/q1/floor`).
#include <map>
#include <vector>

#include "jit/base/target.h"
#include "jit/compile/pipeline_internal.h"

namespace rowjit::jit::internal {
namespace {

bool IsVectorizedLoopLatch(const llvm::BranchInst& br) {
  const llvm::MDNode* loop = br.getMetadata(llvm::LLVMContext::MD_loop);
  if (loop == nullptr) return false;
  for (const llvm::MDOperand& op : loop->operands()) {
    const auto* node = llvm::dyn_cast<llvm::MDNode>(op.get());
    if (node == nullptr || node->getNumOperands() == 0) continue;
    const auto* name = llvm::dyn_cast<llvm::MDString>(node->getOperand(0));
    if (name != nullptr && name->getString() == "llvm.loop.isvectorized") return true;
  }
  return false;
}

// A stream: the vector loads of one iteration at constant offsets from one base pointer.
struct Stream {
  llvm::LoadInst* first = nullptr;  // the first of them in the block: the prefetches go before it
  int64_t begin = INT64_MAX;        // byte offsets from the base that the iteration reads
  int64_t end = INT64_MIN;
  uint64_t element_bytes = 0;
};

void PrefetchBlock(llvm::BasicBlock& body, int64_t rows_ahead, llvm::Function* prefetch) {
  const llvm::DataLayout& dl = body.getModule()->getDataLayout();
  std::map<llvm::Value*, Stream> streams;
  std::vector<llvm::Value*> order;
  for (llvm::Instruction& inst : body) {
    auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
    // Fixed-width vectors only: a scalable vector's bytes per iteration are not a constant.
    if (load == nullptr || !llvm::isa<llvm::FixedVectorType>(load->getType())) continue;
    // The kernel's own stack buffers (a grouped fold's codes) are in L1 already.
    if (llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(load->getPointerOperand()))) continue;
    int64_t offset = 0;
    llvm::Value* base = llvm::GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, dl);
    auto [it, fresh] = streams.try_emplace(base);
    Stream& s = it->second;
    if (fresh) order.push_back(base);
    if (s.first == nullptr) s.first = load;
    s.begin = std::min(s.begin, offset);
    s.end = std::max(s.end, offset + static_cast<int64_t>(dl.getTypeStoreSize(load->getType())));
    s.element_bytes = dl.getTypeStoreSize(load->getType()->getScalarType());
  }
  constexpr int64_t kLine = 64;
  // A stream of one iteration spans a few lines; loads of one base further apart than this are
  // not a stream (a table read at two offsets) and get no prefetch.
  constexpr int64_t kMaxStreamBytes = 1024;
  for (llvm::Value* base : order) {
    const Stream& s = streams[base];
    if (s.end - s.begin > kMaxStreamBytes) continue;
    llvm::IRBuilder<> b(s.first);
    const int64_t ahead = rows_ahead * static_cast<int64_t>(s.element_bytes);
    for (int64_t at = s.begin; at < s.end; at += kLine) {
      // A plain GEP: the address may lie past the input (a prefetch never faults).
      llvm::Value* p = b.CreateGEP(b.getInt8Ty(), base, b.getInt64(static_cast<uint64_t>(at + ahead)));
      b.CreateCall(prefetch, {p, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
    }
  }
}

}  // namespace

void PrefetchInputStreams(llvm::Module& m) {
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || !f.hasFnAttribute(kPrefetchRowsAttribute)) continue;
    int64_t rows_ahead = 0;
    if (f.getFnAttribute(kPrefetchRowsAttribute).getValueAsString().getAsInteger(10, rows_ahead) || rows_ahead <= 0) {
      continue;
    }
    llvm::Function* prefetch =
        llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::prefetch, {llvm::PointerType::getUnqual(m.getContext())});
    for (llvm::BasicBlock& bb : f) {
      auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
      if (br == nullptr || !IsVectorizedLoopLatch(*br)) continue;
      bool self_loop = false;
      for (llvm::BasicBlock* next : br->successors()) self_loop = self_loop || next == &bb;
      if (self_loop) PrefetchBlock(bb, rows_ahead, prefetch);
    }
  }
}

}  // namespace rowjit::jit::internal
