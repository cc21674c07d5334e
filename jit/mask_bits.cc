// Mask bits (jit layer): a masked row fold's lanes read their masks as bits, after vectorization.
//
// A row fold over inputs with nulls (jit/codegen_fold.cc EmitRowFold) spreads each block's
// validity words to a byte a row, and its row loop reads byte i as row i's mask: the loop
// vectorizer widens that into a load of N bytes and a compare a vector. On AVX-512 the same N
// rows' mask is N bits of the block's words, which one `kmov` loads into a mask register. So
// where the kernel also kept the words (targets with mask registers), every load of the mask
// bytes becomes a load of the words' bits: a vector load of N bytes at a row that is a multiple
// of 8 reads N bits as <N x i1>, a scalar load (a remainder row) shifts its bit out. With no load
// of the bytes left, the spreading stores and the byte buffer go, and the loop over the block's
// words is left scalar (marked kWordLoop for the gates). `sum(a * b)` over i32 at half valid
// (Zen 5, 3 interleaved pairs): 16,384 rows 1,720-1,756 -> 1,686-1,695 ns, 1M rows 119-121 ->
// 115-118 us. Vectors of fewer than 8 rows (64-bit values at 256 bits) keep the bytes: a load and
// a `vpmovb2m` cost no more than shifting the bits out of their byte.
//
// All or nothing per kernel: a load of the bytes in any other form keeps them all.
#include <cassert>
#include <optional>
#include <vector>

#include "jit/codegen_internal.h"
#include "jit/pipeline_internal.h"

namespace rowjit::jit::internal {
namespace {

// An access to the mask bytes at the buffer + `index` + `offset` (`index` may be null).
template <typename Access>
struct MaskAccess {
  Access* access;
  llvm::Value* index;
  int64_t offset;
};

llvm::AllocaInst* MarkedMask(llvm::Function& fn) {
  for (llvm::Instruction& i : fn.getEntryBlock()) {
    if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&i); a != nullptr && a->getMetadata(kFoldMaskName) != nullptr) return a;
  }
  return nullptr;
}

// `ptr` as `base` + one variable index + a constant, through i8 GEPs; false for any other form.
bool Decompose(llvm::Value* ptr, const llvm::Value* base, llvm::Value*& index, int64_t& offset) {
  index = nullptr;
  offset = 0;
  while (ptr != base) {
    auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(ptr);
    if (gep == nullptr || gep->getNumIndices() != 1 || !gep->getSourceElementType()->isIntegerTy(8)) return false;
    llvm::Value* at = gep->getOperand(1);
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(at)) {
      offset += c->getSExtValue();
    } else if (index == nullptr) {
      index = at;
    } else {
      return false;
    }
    ptr = gep->getPointerOperand();
  }
  return true;
}

// Whether `v` is a multiple of 8: by its known bits, or through the phis and arithmetic of the
// loops' inductions (an epilogue loop starts where the main one stopped: a phi of a phi, deeper
// than known bits look through phis). A phi being proved is assumed a multiple on its cycles.
bool MultipleOf8(const llvm::Value* v, const llvm::DataLayout& dl, llvm::SmallPtrSet<const llvm::PHINode*, 4>& assumed,
                 int depth = 0) {
  if (llvm::computeKnownBits(v, dl).countMinTrailingZeros() >= 3) return true;
  if (depth > 8) return false;
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
    if (!assumed.insert(phi).second) return true;
    for (const llvm::Value* in : phi->incoming_values()) {
      if (!MultipleOf8(in, dl, assumed, depth + 1)) return false;
    }
    return true;
  }
  const auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v);
  if (op == nullptr) return false;
  auto multiple = [&](int k) { return MultipleOf8(op->getOperand(k), dl, assumed, depth + 1); };
  switch (op->getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Sub:
    case llvm::Instruction::Or: return multiple(0) && multiple(1);
    case llvm::Instruction::Mul:
    case llvm::Instruction::And: {
      // Either operand: what the first attempt assumed does not carry into the second.
      const llvm::SmallPtrSet<const llvm::PHINode*, 4> before = assumed;
      if (multiple(0)) return true;
      assumed = before;
      return multiple(1);
    }
    case llvm::Instruction::Shl: return multiple(0);
    default: return false;
  }
}

// Whether the access's first row is a multiple of 8: its mask is whole bytes of bits.
template <typename Access>
bool WholeBytes(const MaskAccess<Access>& a, const llvm::DataLayout& dl) {
  llvm::SmallPtrSet<const llvm::PHINode*, 4> assumed;
  return a.offset % 8 == 0 && (a.index == nullptr || MultipleOf8(a.index, dl, assumed));
}

// The N-row word a store of mask bytes spread (`sext (bitcast iN word to <N x i1>)`), or null.
llvm::Value* SpreadWord(const llvm::StoreInst& store) {
  const auto* sext = llvm::dyn_cast<llvm::SExtInst>(store.getValueOperand());
  const auto* cast = sext ? llvm::dyn_cast<llvm::BitCastInst>(sext->getOperand(0)) : nullptr;
  if (cast == nullptr || !cast->getSrcTy()->isIntegerTy() || !sext->getDestTy()->getScalarType()->isIntegerTy(8)) return nullptr;
  return cast->getOperand(0);
}

struct MaskUses {
  std::vector<MaskAccess<llvm::LoadInst>> loads;
  std::vector<MaskAccess<llvm::StoreInst>> stores;
};

// Every use of the byte buffer `mask` reached through `v`: loads, stores and the GEPs between;
// false for anything else, or an access that bits cannot stand for: a store other than of a
// spread word, a vector load of other than a multiple of 8 rows, or either at a row that is not
// a multiple of 8.
bool CollectUses(llvm::Value* v, llvm::AllocaInst* mask, const llvm::DataLayout& dl, MaskUses& uses) {
  for (llvm::User* u : v->users()) {
    if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(u)) {
      if (!CollectUses(gep, mask, dl, uses)) return false;
    } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(u)) {
      MaskAccess<llvm::StoreInst> a{store, nullptr, 0};
      if (store->getValueOperand() == v || !store->isSimple() || SpreadWord(*store) == nullptr ||
          !Decompose(store->getPointerOperand(), mask, a.index, a.offset) || !WholeBytes(a, dl)) {
        return false;
      }
      uses.stores.push_back(a);
    } else if (auto* load = llvm::dyn_cast<llvm::LoadInst>(u)) {
      MaskAccess<llvm::LoadInst> a{load, nullptr, 0};
      if (!load->isSimple() || !Decompose(load->getPointerOperand(), mask, a.index, a.offset)) return false;
      llvm::Type* ty = load->getType();
      if (auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(ty)) {
        const unsigned n = vec->getNumElements();
        if (!vec->getElementType()->isIntegerTy(8) || n % 8 != 0 || n > 64 || !WholeBytes(a, dl)) return false;
      } else if (!ty->isIntegerTy(8)) {
        return false;
      }
      uses.loads.push_back(a);
    } else {
      return false;
    }
  }
  return true;
}

// Erases `first` (unused, or a store), then whatever computed only its operands (the buffer
// itself is the caller's to erase).
void EraseWithOperands(llvm::Instruction* first) {
  std::vector<llvm::Instruction*> work{first};
  while (!work.empty()) {
    llvm::Instruction* dead = work.back();
    work.pop_back();
    llvm::SmallPtrSet<llvm::Instruction*, 4> operands;
    for (llvm::Value* v : dead->operands()) {
      if (auto* op = llvm::dyn_cast<llvm::Instruction>(v)) operands.insert(op);
    }
    dead->eraseFromParent();
    for (llvm::Instruction* op : operands) {
      if (op->use_empty() && !op->mayHaveSideEffects() && !llvm::isa<llvm::PHINode, llvm::AllocaInst>(op)) {
        work.push_back(op);
      }
    }
  }
}

// The address in `bits` of the byte holding the access's first row (row r: bit r % 8 of byte r / 8).
template <typename Access>
llvm::Value* BitsAt(llvm::IRBuilder<>& b, const MaskAccess<Access>& a, llvm::AllocaInst* bits, llvm::Value*& row) {
  row = b.getInt64(a.offset);
  if (a.index != nullptr) row = b.CreateAdd(a.index, row);
  return b.CreateGEP(b.getInt8Ty(), bits, b.CreateLShr(row, 3));
}

// The mask of the rows `a` loads, read from `bits`: <N x i1>, or i1 for one row.
llvm::Value* LoadBits(const MaskAccess<llvm::LoadInst>& a, llvm::AllocaInst* bits) {
  llvm::IRBuilder<> b(a.access);
  llvm::Value* row = nullptr;
  llvm::Value* at = BitsAt(b, a, bits, row);
  if (auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(a.access->getType())) {
    const unsigned n = vec->getNumElements();
    llvm::Value* word = b.CreateAlignedLoad(b.getIntNTy(n), at, llvm::Align(1));
    return b.CreateBitCast(word, llvm::FixedVectorType::get(b.getInt1Ty(), n));
  }
  llvm::Value* byte = b.CreateAlignedLoad(b.getInt8Ty(), at, llvm::Align(1));
  llvm::Value* shift = b.CreateTrunc(b.CreateAnd(row, b.getInt64(7)), b.getInt8Ty());
  return b.CreateTrunc(b.CreateLShr(byte, shift), b.getInt1Ty());
}

// Replaces the byte load by its bits: a sign test of the bytes (how the fold reads them) becomes
// the bits themselves, any other use reads them spread back to 0xff / 0.
void ReplaceLoad(const MaskAccess<llvm::LoadInst>& a, llvm::AllocaInst* bits) {
  llvm::LoadInst* load = a.access;
  llvm::Value* mask = LoadBits(a, bits);
  std::vector<llvm::User*> users(load->user_begin(), load->user_end());
  for (llvm::User* u : users) {
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(u);
    if (cmp != nullptr && cmp->getPredicate() == llvm::ICmpInst::ICMP_SLT && cmp->getOperand(0) == load &&
        llvm::isa<llvm::Constant>(cmp->getOperand(1)) && llvm::cast<llvm::Constant>(cmp->getOperand(1))->isNullValue()) {
      cmp->replaceAllUsesWith(mask);
      cmp->eraseFromParent();
    }
  }
  if (!load->use_empty()) {
    llvm::IRBuilder<> b(load);
    load->replaceAllUsesWith(b.CreateSExt(mask, load->getType()));
  }
  EraseWithOperands(load);
}

// Marks the one-block loop `bb` (where it is one) as a loop over words (kWordLoop): with the
// spreading gone its work is a word's AND, popcount and store, scalar by design.
void MarkWordLoop(llvm::BasicBlock* bb) {
  llvm::Instruction* latch = bb->getTerminator();
  if (!llvm::is_contained(llvm::successors(bb), bb)) return;
  llvm::LLVMContext& ctx = bb->getContext();
  llvm::SmallVector<llvm::Metadata*, 4> ops{nullptr};
  if (llvm::MDNode* id = latch->getMetadata(llvm::LLVMContext::MD_loop)) {
    for (unsigned i = 1; i < id->getNumOperands(); ++i) ops.push_back(id->getOperand(i));
  }
  ops.push_back(llvm::MDNode::get(ctx, llvm::MDString::get(ctx, kWordLoop)));
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  latch->setMetadata(llvm::LLVMContext::MD_loop, id);
}

// Stores the word a store of bytes spread into `bits` instead.
void ReplaceStore(const MaskAccess<llvm::StoreInst>& a, llvm::AllocaInst* bits) {
  MarkWordLoop(a.access->getParent());
  llvm::IRBuilder<> b(a.access);
  llvm::Value* row = nullptr;
  b.CreateAlignedStore(SpreadWord(*a.access), BitsAt(b, a, bits, row), llvm::Align(1));
  EraseWithOperands(a.access);
}

void ReadMaskBits(llvm::Function& fn, const llvm::DataLayout& dl) {
  llvm::AllocaInst* mask = MarkedMask(fn);
  if (mask == nullptr || !mask->isStaticAlloca()) return;
  MaskUses uses;
  if (!CollectUses(mask, mask, dl, uses) || uses.stores.empty()) return;
  const std::optional<llvm::TypeSize> size = mask->getAllocationSize(dl);
  if (!size || size->isScalable() || size->getFixedValue() % 8 != 0) return;
  llvm::AllocaInst* bits = [&] {
    llvm::IRBuilder<> entry(mask);
    llvm::AllocaInst* a = entry.CreateAlloca(llvm::ArrayType::get(entry.getInt8Ty(), size->getFixedValue() / 8),
                                             nullptr, "fold.bits");
    a->setAlignment(llvm::Align(8));
    return a;
  }();
  for (const auto& store : uses.stores) ReplaceStore(store, bits);
  for (const auto& load : uses.loads) ReplaceLoad(load, bits);
  assert(mask->use_empty() && "every access of the bytes was replaced");
  if (mask->use_empty()) mask->eraseFromParent();
}

}  // namespace

void LoadFoldMasksAsBits(llvm::Module& m, const llvm::TargetMachine& tm) {
  // Mask registers of 64 lanes (AVX-512BW, TargetSpec::mask_registers); elsewhere <N x i1> from
  // bits is a lane-by-lane extraction.
  if (!tm.getTargetTriple().isX86() || !tm.getMCSubtargetInfo()->checkFeatures("+avx512bw")) return;
  for (llvm::Function& fn : m) {
    if (!fn.isDeclaration()) ReadMaskBits(fn, m.getDataLayout());
  }
}

}  // namespace rowjit::jit::internal
