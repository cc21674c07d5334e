// Even/odd products (jit layer, compile room): a row loop's widening i32 loads regrouped, after
// vectorization, where the loop's lane order cannot change its result.
//
// A fold of checked i32 products (`sum(a * b)`) multiplies the values as i64: the vectorized
// loop loads 8 rows of each column with a widening load (`vpmovsxdq` from memory, a shuffle each
// 8 rows) and multiplies with `vpmuldq`. `vpmuldq` reads only the low 32 bits of each 64-bit
// lane, so a 512-bit load of 16 rows already holds the even rows in place and the odd ones one
// 64-bit shift away: two full-width loads and a shift replace four shuffling loads. That changes
// which row each lane holds (lane j of the first vector: row 2j, of the second: row 2j + 1), so it
// is done only in a loop whose every lane ends in an order-free integer reduction (sums, evidence
// ORs, min/max) and where no lane's value depends on its position (no stores, shuffles, lane
// constants or vector inductions). It pays where the kernel's arithmetic sets its time (bench:
// `fused_l2/sum_i32_mul_100/jit`, L2-resident); over 1M rows reads bound it either way (bench:
// `fused/sum_i32_mul_scattered_100/jit`). With mask registers a masked row fold's mask bytes are
// paired as its columns are (one load of 16 rows' bytes, its even and its odd rows shuffled
// apart), and jit/compile/mask_bits.cc then reads each half as 8 bits of the block's words, kept
// deinterleaved; on AVX2 the bytes would take two shuffles a pair, and the masked fold keeps the
// vectorizer's loads.
#include <map>
#include <set>
#include <vector>

#include "jit/base/kernel_abi.h"
#include "jit/compile/pipeline_internal.h"

namespace rowjit::jit::internal {
namespace {

// A scalar, or a vector whose lanes are all one value (a splat constant or a broadcast).
bool IsUniform(const llvm::Value* v) { return !v->getType()->isVectorTy() || llvm::getSplatValue(v) != nullptr; }

// Integer reductions whose result does not depend on the order of the lanes.
constexpr llvm::Intrinsic::ID kOrderFreeReductions[] = {
    llvm::Intrinsic::vector_reduce_add,  llvm::Intrinsic::vector_reduce_or,   llvm::Intrinsic::vector_reduce_and,
    llvm::Intrinsic::vector_reduce_xor,  llvm::Intrinsic::vector_reduce_smin, llvm::Intrinsic::vector_reduce_smax,
    llvm::Intrinsic::vector_reduce_umin, llvm::Intrinsic::vector_reduce_umax};

bool IsOrderFreeReduction(const llvm::Value* v) {
  const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(v);
  return call != nullptr && llvm::is_contained(kOrderFreeReductions, call->getIntrinsicID());
}

// The reduction an accumulator's operation combines lanes with, as the intrinsic it ends in.
llvm::Intrinsic::ID ReductionOf(const llvm::Instruction* op) {
  if (const auto* bin = llvm::dyn_cast<llvm::BinaryOperator>(op)) {
    switch (bin->getOpcode()) {
      case llvm::Instruction::Add: return llvm::Intrinsic::vector_reduce_add;
      case llvm::Instruction::Or: return llvm::Intrinsic::vector_reduce_or;
      case llvm::Instruction::And: return llvm::Intrinsic::vector_reduce_and;
      case llvm::Instruction::Xor: return llvm::Intrinsic::vector_reduce_xor;
      default: return llvm::Intrinsic::not_intrinsic;
    }
  }
  if (const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(op)) {
    switch (call->getIntrinsicID()) {
      case llvm::Intrinsic::smin: return llvm::Intrinsic::vector_reduce_smin;
      case llvm::Intrinsic::smax: return llvm::Intrinsic::vector_reduce_smax;
      case llvm::Intrinsic::umin: return llvm::Intrinsic::vector_reduce_umin;
      case llvm::Intrinsic::umax: return llvm::Intrinsic::vector_reduce_umax;
      default: return llvm::Intrinsic::not_intrinsic;
    }
  }
  return llvm::Intrinsic::not_intrinsic;
}

// An instruction computing each lane from the same lane of its operands.
bool IsLaneWise(const llvm::Instruction& i) {
  if (llvm::isa<llvm::BinaryOperator>(i) || llvm::isa<llvm::CmpInst>(i) || llvm::isa<llvm::SelectInst>(i) ||
      llvm::isa<llvm::FreezeInst>(i) || llvm::isa<llvm::PHINode>(i)) {
    return true;
  }
  if (const auto* cast = llvm::dyn_cast<llvm::CastInst>(&i)) {
    const auto* from = llvm::dyn_cast<llvm::FixedVectorType>(cast->getSrcTy());
    const auto* to = llvm::dyn_cast<llvm::FixedVectorType>(cast->getDestTy());
    return from != nullptr && to != nullptr && from->getNumElements() == to->getNumElements();
  }
  if (const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
    switch (call->getIntrinsicID()) {
      case llvm::Intrinsic::smin:
      case llvm::Intrinsic::smax:
      case llvm::Intrinsic::umin:
      case llvm::Intrinsic::umax:
      case llvm::Intrinsic::abs: return true;
      default: return false;
    }
  }
  return false;
}

// Whether `v` holds only the loop's lanes: a value of the loop, a uniform one, or, after the loop,
// a phi or an operation of `reduce`'s kind over such values.
bool FromLoop(const llvm::Value* v, const llvm::BasicBlock* loop, llvm::Intrinsic::ID reduce, int depth = 0) {
  if (IsUniform(v)) return true;
  const auto* i = llvm::dyn_cast<llvm::Instruction>(v);
  if (i == nullptr || depth > 16) return false;
  if (i->getParent() == loop) return true;
  if (!llvm::isa<llvm::PHINode>(i) && ReductionOf(i) != reduce) return false;
  for (const llvm::Value* operand : i->operands()) {
    if (!FromLoop(operand, loop, reduce, depth + 1)) return false;
  }
  return true;
}

// The loop's value `v` (a vector) leaves it only into reductions of `reduce`, through more of the
// same operation over the loop's lanes (the vectorizer's `bin.rdx` steps) and exit phis.
bool EndsInReduction(const llvm::Value* v, const llvm::BasicBlock* loop, llvm::Intrinsic::ID reduce, int depth = 0) {
  if (depth > 16) return false;
  for (const llvm::User* u : v->users()) {
    const auto* i = llvm::dyn_cast<llvm::Instruction>(u);
    if (i == nullptr) return false;
    if (i->getParent() == loop) continue;  // checked with the loop's own instructions
    if (IsOrderFreeReduction(i)) {
      if (llvm::cast<llvm::IntrinsicInst>(i)->getIntrinsicID() != reduce) return false;
      continue;
    }
    if ((llvm::isa<llvm::PHINode>(i) || ReductionOf(i) == reduce) && FromLoop(i, loop, reduce)) {
      if (!EndsInReduction(i, loop, reduce, depth + 1)) return false;
      continue;
    }
    return false;
  }
  return true;
}

struct Pair {
  llvm::LoadInst* low;   // rows [8k, 8k + 8) of a 16-row group, as loaded
  llvm::LoadInst* high;  // rows [8k + 8, 8k + 16)
  bool mask = false;     // a masked row fold's mask bytes (kFoldMaskName), not a column
};

// A load of a masked row fold's mask bytes (a vector of i8 from the buffer marked kFoldMaskName).
bool IsMaskLoad(const llvm::LoadInst* load) {
  const auto* ty = llvm::dyn_cast<llvm::FixedVectorType>(load->getType());
  if (ty == nullptr || !ty->getElementType()->isIntegerTy(8) || !load->isSimple()) return false;
  const auto* buffer = llvm::dyn_cast<llvm::AllocaInst>(llvm::getUnderlyingObject(load->getPointerOperand()));
  return buffer != nullptr && buffer->getMetadata(kFoldMaskName) != nullptr;
}

// A widening load: `sext (load <N x i32>)` to <N x i64> whose every use is a `mul` of two of them.
bool IsWideningLoad(const llvm::LoadInst* load, const llvm::BasicBlock* loop) {
  const auto* ty = llvm::dyn_cast<llvm::FixedVectorType>(load->getType());
  if (ty == nullptr || !ty->getElementType()->isIntegerTy(32) || !load->isSimple() || !load->hasOneUse()) return false;
  const auto* sext = llvm::dyn_cast<llvm::SExtInst>(*load->user_begin());
  if (sext == nullptr || sext->getParent() != loop || !sext->getDestTy()->getScalarType()->isIntegerTy(64)) return false;
  for (const llvm::User* u : sext->users()) {
    const auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(u);
    if (mul == nullptr || mul->getOpcode() != llvm::Instruction::Mul || mul->getParent() != loop) return false;
    for (const llvm::Value* operand : mul->operands()) {
      const auto* other = llvm::dyn_cast<llvm::SExtInst>(operand);
      if (other == nullptr || !llvm::isa<llvm::LoadInst>(other->getOperand(0))) return false;
    }
  }
  return true;
}

// Whether everything in `loop` but the `paired_loads` computes lane by lane from the loop's own
// values and uniform ones; vector phis start uniform, or are accumulators whose operation is the
// reduction their value ends in; every vector leaving the loop ends in such a reduction.
bool LaneOrderFree(llvm::BasicBlock& loop, const std::set<const llvm::Value*>& paired_loads) {
  for (llvm::Instruction& i : loop) {
    const bool vector_result = i.getType()->isVectorTy();
    bool vector_operand = false;
    for (const llvm::Value* operand : i.operands()) vector_operand = vector_operand || operand->getType()->isVectorTy();
    if (!vector_result && !vector_operand) continue;
    if (paired_loads.count(&i) != 0) continue;
    if (IsOrderFreeReduction(&i)) continue;  // a scalar that no lane order changes
    if (!IsLaneWise(i)) return false;
    // Used after the loop (a phi too): only into a reduction of its own operation.
    bool escapes = false;
    for (const llvm::User* u : i.users()) escapes = escapes || llvm::cast<llvm::Instruction>(u)->getParent() != &loop;
    if (escapes && vector_result) {
      const llvm::Intrinsic::ID reduce = ReductionOf(&i);
      if (reduce == llvm::Intrinsic::not_intrinsic || !EndsInReduction(&i, &loop, reduce)) return false;
    }
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&i)) {
      if (phi->getNumIncomingValues() != 2) return false;
      for (unsigned k = 0; k < 2; ++k) {
        if (phi->getIncomingBlock(k) == &loop || IsUniform(phi->getIncomingValue(k))) continue;
        // A non-uniform start (the fold's state in lane 0): only for an accumulator.
        const auto* step = llvm::dyn_cast<llvm::Instruction>(phi->getIncomingValueForBlock(&loop));
        if (step == nullptr || !phi->hasOneUse() || *phi->user_begin() != step) return false;
        const llvm::Intrinsic::ID reduce = ReductionOf(step);
        if (reduce == llvm::Intrinsic::not_intrinsic || !EndsInReduction(step, &loop, reduce)) return false;
      }
      continue;
    }
    for (const llvm::Value* operand : i.operands()) {
      if (!operand->getType()->isVectorTy()) continue;
      const auto* def = llvm::dyn_cast<llvm::Instruction>(operand);
      if ((def == nullptr || def->getParent() != &loop) && !IsUniform(operand)) return false;
    }
  }
  return true;
}

// The widening loads of `loop`, paired (rows 16g..16g+7 with 16g+8..16g+15 of every column), and
// with `masks` (targets with mask registers) a masked row fold's mask bytes paired the same way,
// if the loop may change its lane order; empty otherwise.
std::vector<Pair> PairsOf(llvm::BasicBlock& loop, const llvm::DataLayout& dl, bool masks) {
  std::vector<llvm::LoadInst*> loads;
  std::set<const llvm::LoadInst*> mask_loads;
  for (llvm::Instruction& i : loop) {
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&i); load != nullptr && load->getType()->isVectorTy()) {
      if (masks && IsMaskLoad(load)) {
        mask_loads.insert(load);
      } else if (!IsWideningLoad(load, &loop)) {
        return {};  // another vector load: its lanes keep their rows
      }
      loads.push_back(load);
    }
  }
  if (loads.size() == mask_loads.size()) return {};  // no product to pair
  const unsigned lanes = llvm::cast<llvm::FixedVectorType>(loads[0]->getType())->getNumElements();
  // Each load as (base, row offset): the parts of one column (or of the mask) share a base.
  std::map<const llvm::Value*, std::map<int64_t, llvm::LoadInst*>> columns;
  for (llvm::LoadInst* load : loads) {
    auto* ty = llvm::cast<llvm::FixedVectorType>(load->getType());
    if (ty->getNumElements() != lanes) return {};
    const int64_t bytes = static_cast<int64_t>(dl.getTypeStoreSize(ty->getElementType()));
    int64_t offset = 0;
    const llvm::Value* base = llvm::GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, dl);
    if (offset % bytes != 0 || !columns[base].emplace(offset / bytes, load).second) return {};
  }
  // Every column with the same row offsets, 2g and 2g + 1 parts apart: one layout of rows to lanes.
  std::vector<int64_t> offsets;
  for (const auto& [offset, load] : columns.begin()->second) offsets.push_back(offset);
  if (offsets.size() % 2 != 0) return {};
  for (size_t k = 0; k < offsets.size(); ++k) {
    if (offsets[k] != offsets[0] + static_cast<int64_t>(k * lanes)) return {};
  }
  std::vector<Pair> pairs;
  for (const auto& [base, parts] : columns) {
    if (parts.size() != offsets.size()) return {};
    size_t k = 0;
    for (const auto& [offset, load] : parts) {
      if (offset != offsets[k++]) return {};
    }
    for (size_t g = 0; g < offsets.size(); g += 2) {
      Pair p{parts.at(offsets[g]), parts.at(offsets[g + 1]), mask_loads.count(parts.at(offsets[g])) != 0};
      // The full-width load goes where the earlier of the two is, reading from the first's address.
      const llvm::LoadInst* earlier = p.low->comesBefore(p.high) ? p.low : p.high;
      const auto* at = llvm::dyn_cast<llvm::Instruction>(p.low->getPointerOperand());
      if (at != nullptr && at->getParent() == &loop && !at->comesBefore(earlier)) return {};
      pairs.push_back(p);
    }
  }
  return LaneOrderFree(loop, std::set<const llvm::Value*>(loads.begin(), loads.end())) ? pairs : std::vector<Pair>{};
}

// Rows 2j (even) or 2j + 1 (odd) of a 16-row group's full-width load, sign-extended into 64-bit
// lanes: the even ones in place (shl, ashr: what `vpmuldq` reads anyway), the odd ones shifted.
llvm::Value* Half(llvm::IRBuilder<>& b, llvm::Value* wide, bool odd) {
  llvm::Value* lanes = odd ? wide : b.CreateShl(wide, 32);
  return b.CreateAShr(lanes, 32);
}

// One full-width load at the pair's first address for both loads, their sign extensions replaced
// by the even and odd halves; a mask's two loads replaced by its even and odd bytes (which
// jit/compile/mask_bits.cc then reads from the block's words, the even and odd rows' bits apart). (Their
// alias metadata is not carried over: nothing after this reads it but instruction scheduling.)
void Regroup(const Pair& p) {
  llvm::IRBuilder<> b(p.low->comesBefore(p.high) ? p.low : p.high);
  auto* part = llvm::cast<llvm::FixedVectorType>(p.low->getType());
  const unsigned lanes = part->getNumElements();
  auto* both = llvm::FixedVectorType::get(part->getElementType(), 2 * lanes);
  llvm::LoadInst* load = b.CreateAlignedLoad(both, p.low->getPointerOperand(), p.low->getAlign());
  if (p.mask) {
    llvm::SmallVector<int, 32> even, odd;
    for (unsigned j = 0; j < lanes; ++j) {
      even.push_back(static_cast<int>(2 * j));
      odd.push_back(static_cast<int>(2 * j + 1));
    }
    llvm::Value* even_rows = b.CreateShuffleVector(load, even);
    llvm::Value* odd_rows = b.CreateShuffleVector(load, odd);
    for (auto [half, rows] : {std::pair{p.low, even_rows}, std::pair{p.high, odd_rows}}) {
      half->replaceAllUsesWith(rows);
      half->eraseFromParent();
    }
    return;
  }
  auto* wide_ty = llvm::FixedVectorType::get(b.getInt64Ty(), lanes);
  llvm::Value* wide = b.CreateBitCast(load, wide_ty);
  llvm::Value* even = Half(b, wide, false);
  llvm::Value* odd = Half(b, wide, true);
  for (auto [half, rows] : {std::pair{p.low, even}, std::pair{p.high, odd}}) {
    auto* sext = llvm::cast<llvm::SExtInst>(*half->user_begin());
    sext->replaceAllUsesWith(rows);
    sext->eraseFromParent();
    half->eraseFromParent();
  }
}

}  // namespace

void PairWideningProducts(llvm::Module& m, const llvm::TargetMachine& tm) {
  // x86's `pmuldq` reads the low halves of 64-bit lanes; NEON multiplies widening as it loads.
  if (!llvm::Triple(m.getTargetTriple()).isX86()) return;
  const llvm::DataLayout& dl = m.getDataLayout();
  // A mask's even and odd rows are its bits apart in mask registers (jit/compile/mask_bits.cc); as bytes
  // (AVX2) they would take two shuffles a pair.
  const bool masks = HasMaskRegisters(tm);
  for (llvm::Function& fn : m) {
    for (llvm::BasicBlock& bb : fn) {
      // A vectorized loop body: one block that branches to itself.
      if (!llvm::is_contained(llvm::successors(&bb), &bb)) continue;
      for (const Pair& p : PairsOf(bb, dl, masks)) Regroup(p);
    }
  }
}

}  // namespace rowjit::jit::internal
