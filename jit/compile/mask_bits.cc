// Mask bits (jit layer, compile room): a masked row fold's lanes read their masks as bits, after
// vectorization.
//
// A row fold over inputs with nulls (jit/codegen/codegen_fold.cc EmitRowFold) spreads each block's
// validity words to a byte a row, and its row loop reads byte i as row i's mask: the loop
// vectorizer widens that into a load of N bytes and a compare a vector. On AVX-512 the same N
// rows' mask is N bits of the block's words, which one `kmov` loads into a mask register. So on
// targets with mask registers each store of a word's 64 bytes becomes a store of the word itself,
// and every load of the mask bytes a load of the words' bits: a vector load of N bytes at a row
// that is a multiple of 8 reads N bits as <N x i1>, a scalar load (a remainder row) shifts its
// bit out. With no load of the bytes left, the byte buffer goes, and the loop over the block's
// words is left scalar (marked kWordLoop for the gates). A mask whose even and odd rows
// jit/compile/lane_order.cc takes apart (16 rows loaded, the even ones in one vector, the odd in another)
// reads them from the block's words deinterleaved: each word's even and odd bits, packed by
// `pext` once a word, kept beside the words. The bits, and then the pairing, shorten the loop's
// 32-row step (llvm-mca over `rowjit ir --stage asm`; bench: `fused_l2/sum_i32_mul_50/jit`,
// L2-resident); over 1M rows reads bound it (bench: `fused/sum_i32_mul_scattered_50/jit`).
// Vectors of fewer than 8 rows (64-bit values at 256 bits) keep the bytes: a load and a
// `vpmovb2m` cost no more than shifting the bits out of their byte.
//
// All or nothing per kernel: a load of the bytes in any other form keeps them all.
#include <algorithm>
#include <bit>
#include <cassert>
#include <optional>
#include <set>
#include <vector>

#include "jit/codegen/codegen_internal.h"
#include "jit/compile/pipeline_internal.h"

namespace rowjit::jit::internal {
namespace {

// An access to the mask bytes at the buffer + `index` + `offset` (`index` may be null). `paired`:
// a load of 2N bytes whose every use takes its even or its odd rows (jit/compile/lane_order.cc pairs a
// fold's mask like its columns).
template <typename Access>
struct MaskAccess {
  Access* access;
  llvm::Value* index;
  int64_t offset;
  bool paired = false;
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

// The proof that a value has at least `bits` trailing zero bits (TrailingZeros).
struct ZerosProof {
  const llvm::DataLayout& dl;
  int bits;
  std::set<const llvm::PHINode*> open;  // phis being bounded (on the way here)
  std::set<const llvm::PHINode*> used;  // open phis whose bound was assumed on a cycle
};

// A lower bound of the trailing zero bits of `v` (at most 64): its known bits, or through the phis
// and arithmetic of the loops' inductions (an epilogue loop starts where the main one stopped: a
// phi of a phi, deeper than known bits look through phis). A phi met again on its own cycle is
// assumed to have `bits`; that holds by induction if the phi's bound then comes out at `bits` or
// more. Otherwise the phi's bound is its known bits alone (what was derived under the assumption
// reached nothing but that bound).
int ZerosBelow(const llvm::Value* v, ZerosProof& p, int depth) {
  const int known = static_cast<int>(std::min(64u, llvm::computeKnownBits(v, p.dl).countMinTrailingZeros()));
  if (known >= p.bits || depth > 8) return known;
  if (const auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
    if (p.open.count(phi) != 0) {
      p.used.insert(phi);
      return p.bits;
    }
    p.open.insert(phi);
    int zeros = 64;
    for (const llvm::Value* in : phi->incoming_values()) zeros = std::min(zeros, ZerosBelow(in, p, depth + 1));
    p.open.erase(phi);
    const bool assumed = p.used.erase(phi) != 0;
    return assumed && zeros < p.bits ? known : std::max(known, zeros);
  }
  const auto* op = llvm::dyn_cast<llvm::BinaryOperator>(v);
  if (op == nullptr) return known;
  auto zeros = [&](int k) { return ZerosBelow(op->getOperand(k), p, depth + 1); };
  int z = 0;
  switch (op->getOpcode()) {
    case llvm::Instruction::Add:
    case llvm::Instruction::Sub:
    case llvm::Instruction::Or: z = std::min(zeros(0), zeros(1)); break;
    case llvm::Instruction::Mul: z = std::min(64, zeros(0) + zeros(1)); break;
    case llvm::Instruction::And: z = std::max(zeros(0), zeros(1)); break;
    case llvm::Instruction::Shl:
      if (const auto* c = llvm::dyn_cast<llvm::ConstantInt>(op->getOperand(1)); c != nullptr && c->getZExtValue() < 64) {
        z = std::min<int>(64, zeros(0) + static_cast<int>(c->getZExtValue()));
      }
      break;
    default: break;
  }
  return std::max(known, z);
}

// Whether `v` has at least `bits` trailing zero bits.
bool TrailingZeros(const llvm::Value* v, const llvm::DataLayout& dl, int bits) {
  ZerosProof proof{dl, bits, {}, {}};
  return ZerosBelow(v, proof, 0) >= bits;
}

// Whether the access's first row is a multiple of `rows` (a power of 2).
template <typename Access>
bool RowMultipleOf(const MaskAccess<Access>& a, const llvm::DataLayout& dl, int rows) {
  const int bits = std::countr_zero(static_cast<unsigned>(rows));
  return a.offset % rows == 0 && (a.index == nullptr || TrailingZeros(a.index, dl, bits));
}

// The N-row word a store of mask bytes spread (`sext (bitcast iN word to <N x i1>)`), or null.
llvm::Value* SpreadWord(const llvm::StoreInst& store) {
  const auto* sext = llvm::dyn_cast<llvm::SExtInst>(store.getValueOperand());
  const auto* cast = sext ? llvm::dyn_cast<llvm::BitCastInst>(sext->getOperand(0)) : nullptr;
  if (cast == nullptr || !cast->getSrcTy()->isIntegerTy() || !sext->getDestTy()->getScalarType()->isIntegerTy(8)) return nullptr;
  return cast->getOperand(0);
}

// Which rows a shuffle of a 2N-byte load takes: 0 its even rows, 1 its odd ones, -1 neither.
int HalfOf(const llvm::ShuffleVectorInst& s, unsigned loaded) {
  const llvm::ArrayRef<int> rows = s.getShuffleMask();
  if (2 * rows.size() != loaded || rows.empty() || (rows[0] != 0 && rows[0] != 1)) return -1;
  for (size_t j = 0; j < rows.size(); ++j) {
    if (rows[j] != static_cast<int>(2 * j) + rows[0]) return -1;
  }
  return rows[0];
}

// Whether every use of the load takes its even or its odd rows.
bool TakenInHalves(const llvm::LoadInst& load) {
  const unsigned n = llvm::cast<llvm::FixedVectorType>(load.getType())->getNumElements();
  for (const llvm::User* u : load.users()) {
    const auto* s = llvm::dyn_cast<llvm::ShuffleVectorInst>(u);
    if (s == nullptr || s->getOperand(0) != &load || HalfOf(*s, n) < 0) return false;
  }
  return !load.use_empty();
}

struct MaskUses {
  std::vector<MaskAccess<llvm::LoadInst>> loads;
  std::vector<MaskAccess<llvm::StoreInst>> stores;
  bool halves = false;  // some load is paired: the words' even and odd bits are kept too
};

// Every use of the byte buffer `mask` reached through `v`: loads, stores and the GEPs between;
// false for anything else, or an access that bits cannot stand for: a store other than of a spread
// 64-row word at a whole word, a vector load of other than a multiple of 8 rows (16, paired) at a
// row a multiple of as many.
bool CollectUses(llvm::Value* v, llvm::AllocaInst* mask, const llvm::DataLayout& dl, MaskUses& uses) {
  for (llvm::User* u : v->users()) {
    if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(u)) {
      if (!CollectUses(gep, mask, dl, uses)) return false;
    } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(u)) {
      MaskAccess<llvm::StoreInst> a{store, nullptr, 0};
      const llvm::Value* word = SpreadWord(*store);
      if (store->getValueOperand() == v || !store->isSimple() || word == nullptr || !word->getType()->isIntegerTy(64) ||
          !Decompose(store->getPointerOperand(), mask, a.index, a.offset) || !RowMultipleOf(a, dl, 64)) {
        return false;
      }
      uses.stores.push_back(a);
    } else if (auto* load = llvm::dyn_cast<llvm::LoadInst>(u)) {
      MaskAccess<llvm::LoadInst> a{load, nullptr, 0};
      if (!load->isSimple() || !Decompose(load->getPointerOperand(), mask, a.index, a.offset)) return false;
      llvm::Type* ty = load->getType();
      if (auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(ty)) {
        const unsigned n = vec->getNumElements();
        a.paired = TakenInHalves(*load);
        const unsigned whole = a.paired ? 16 : 8;  // rows a whole byte of bits covers
        if (!vec->getElementType()->isIntegerTy(8) || n % whole != 0 || n > (a.paired ? 128 : 64) ||
            !RowMultipleOf(a, dl, static_cast<int>(whole))) {
          return false;
        }
        uses.halves = uses.halves || a.paired;
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

// Erases `gep` and the GEPs from it where nothing uses them.
void EraseUnusedAddresses(llvm::GetElementPtrInst* gep) {
  std::vector<llvm::User*> users(gep->user_begin(), gep->user_end());
  for (llvm::User* u : users) {
    if (auto* next = llvm::dyn_cast<llvm::GetElementPtrInst>(u)) EraseUnusedAddresses(next);
  }
  if (gep->use_empty()) gep->eraseFromParent();
}

// The block's words (row r: bit r % 8 of byte r / 8) and, where a load is paired, their even and
// odd rows' bits (row r of a 16-row group: bit (r % 16) / 2 of byte r / 16 of `even` or `odd`).
struct Bits {
  llvm::AllocaInst* words;
  llvm::AllocaInst* even = nullptr;
  llvm::AllocaInst* odd = nullptr;
};

// The access's first row.
template <typename Access>
llvm::Value* FirstRow(llvm::IRBuilder<>& b, const MaskAccess<Access>& a) {
  llvm::Value* row = b.getInt64(a.offset);
  return a.index != nullptr ? b.CreateAdd(a.index, row) : row;
}

// `n` rows' mask from `n` bits at `buffer` + `byte`, as <n x i1>.
llvm::Value* LoadLanes(llvm::IRBuilder<>& b, llvm::AllocaInst* buffer, llvm::Value* byte, unsigned n) {
  llvm::Value* word = b.CreateAlignedLoad(b.getIntNTy(n), b.CreateGEP(b.getInt8Ty(), buffer, byte), llvm::Align(1));
  return b.CreateBitCast(word, llvm::FixedVectorType::get(b.getInt1Ty(), n));
}

// Replaces the sign tests of `bytes` (how the fold reads them) by `mask`, and any other use by
// `mask` spread back to 0xff / 0.
void ReplaceBytes(llvm::Instruction* bytes, llvm::Value* mask) {
  std::vector<llvm::User*> users(bytes->user_begin(), bytes->user_end());
  for (llvm::User* u : users) {
    auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(u);
    if (cmp != nullptr && cmp->getPredicate() == llvm::ICmpInst::ICMP_SLT && cmp->getOperand(0) == bytes &&
        llvm::isa<llvm::Constant>(cmp->getOperand(1)) && llvm::cast<llvm::Constant>(cmp->getOperand(1))->isNullValue()) {
      cmp->replaceAllUsesWith(mask);
      cmp->eraseFromParent();
    }
  }
  if (!bytes->use_empty()) {
    llvm::IRBuilder<> b(bytes);
    bytes->replaceAllUsesWith(b.CreateSExt(mask, bytes->getType()));
  }
}

// Replaces the byte load by its bits: N rows from the words; a paired load's halves from the even
// and odd bits; one row (a remainder's) shifted out of its byte.
void ReplaceLoad(const MaskAccess<llvm::LoadInst>& a, const Bits& bits) {
  llvm::LoadInst* load = a.access;
  llvm::IRBuilder<> b(load);
  llvm::Value* row = FirstRow(b, a);
  if (a.paired) {
    const unsigned n = llvm::cast<llvm::FixedVectorType>(load->getType())->getNumElements();
    std::vector<llvm::User*> halves(load->user_begin(), load->user_end());
    for (llvm::User* u : halves) {
      auto* half = llvm::cast<llvm::ShuffleVectorInst>(u);
      llvm::IRBuilder<> at(half);
      ReplaceBytes(half, LoadLanes(at, HalfOf(*half, n) == 0 ? bits.even : bits.odd, at.CreateLShr(row, 4), n / 2));
      half->eraseFromParent();
    }
  } else if (auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(load->getType())) {
    ReplaceBytes(load, LoadLanes(b, bits.words, b.CreateLShr(row, 3), vec->getNumElements()));
  } else {
    llvm::Value* byte = b.CreateAlignedLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), bits.words, b.CreateLShr(row, 3)),
                                            llvm::Align(1));
    llvm::Value* shift = b.CreateTrunc(b.CreateAnd(row, b.getInt64(7)), b.getInt8Ty());
    ReplaceBytes(load, b.CreateTrunc(b.CreateLShr(byte, shift), b.getInt1Ty()));
  }
  if (load->use_empty()) EraseWithOperands(load);
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

// Stores the word a store of bytes spread into the words instead, and its even and odd rows' bits
// where they are kept (`pext`: 32 bits each).
void ReplaceStore(const MaskAccess<llvm::StoreInst>& a, const Bits& bits) {
  MarkWordLoop(a.access->getParent());
  llvm::IRBuilder<> b(a.access);
  llvm::Value* row = FirstRow(b, a);
  llvm::Value* word = SpreadWord(*a.access);
  b.CreateAlignedStore(word, b.CreateGEP(b.getInt8Ty(), bits.words, b.CreateLShr(row, 3)), llvm::Align(1));
  if (bits.even != nullptr) {
    llvm::Function* pext = llvm::Intrinsic::getDeclaration(a.access->getModule(),
                                                           llvm::Function::lookupIntrinsicID("llvm.x86.bmi.pext.64"));
    for (auto [half, select] : {std::pair{bits.even, 0x5555555555555555ull}, std::pair{bits.odd, 0xaaaaaaaaaaaaaaaaull}}) {
      llvm::Value* packed = b.CreateCall(pext, {word, b.getInt64(select)});
      b.CreateAlignedStore(b.CreateTrunc(packed, b.getInt32Ty()), b.CreateGEP(b.getInt8Ty(), half, b.CreateLShr(row, 4)),
                           llvm::Align(1));
    }
  }
  EraseWithOperands(a.access);
}

void ReadMaskBits(llvm::Function& fn, const llvm::DataLayout& dl) {
  llvm::AllocaInst* mask = MarkedMask(fn);
  if (mask == nullptr || !mask->isStaticAlloca()) return;
  MaskUses uses;
  if (!CollectUses(mask, mask, dl, uses) || uses.stores.empty()) return;
  const std::optional<llvm::TypeSize> size = mask->getAllocationSize(dl);
  if (!size || size->isScalable() || size->getFixedValue() % 64 != 0) return;
  llvm::IRBuilder<> entry(mask);
  auto scratch = [&](uint64_t rows_a_byte, const char* name) {
    llvm::AllocaInst* a = entry.CreateAlloca(llvm::ArrayType::get(entry.getInt8Ty(), size->getFixedValue() / rows_a_byte),
                                             nullptr, name);
    a->setAlignment(llvm::Align(8));
    return a;
  };
  Bits bits{scratch(8, "fold.bits")};
  if (uses.halves) {
    bits.even = scratch(16, "fold.even");
    bits.odd = scratch(16, "fold.odd");
  }
  for (const auto& store : uses.stores) ReplaceStore(store, bits);
  for (const auto& load : uses.loads) ReplaceLoad(load, bits);
  // Addresses nothing reads any more (jit/compile/lane_order.cc left those of the loads it paired).
  std::vector<llvm::User*> geps(mask->user_begin(), mask->user_end());
  for (llvm::User* gep : geps) EraseUnusedAddresses(llvm::cast<llvm::GetElementPtrInst>(gep));
  assert(mask->use_empty() && "every access of the bytes was replaced");
  if (mask->use_empty()) mask->eraseFromParent();
}

}  // namespace

bool HasMaskRegisters(const llvm::TargetMachine& tm) {
  return tm.getTargetTriple().isX86() && tm.getMCSubtargetInfo()->checkFeatures("+avx512bw,+bmi2");
}

void LoadFoldMasksAsBits(llvm::Module& m, const llvm::TargetMachine& tm) {
  // Mask registers of 64 lanes (AVX-512BW, TargetSpec::mask_registers); elsewhere <N x i1> from
  // bits is a lane-by-lane extraction.
  if (!HasMaskRegisters(tm)) return;
  for (llvm::Function& fn : m) {
    if (!fn.isDeclaration()) ReadMaskBits(fn, m.getDataLayout());
  }
}

}  // namespace rowjit::jit::internal
