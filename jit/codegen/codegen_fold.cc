// Reduction templates (jit layer, codegen room): the bound expression computed in registers and
// folded in the same pass, never materialized. Word folds (KernelLoop::kWords) split each 64-row
// word into two 32-lane halves; every lane is tested against a constant bit of its half (the half's
// lanes are unrolled in the IR, so the bit is a constant and the SLP vectorizer packs the lanes),
// halves without a row to fold are skipped, null lanes read the fold's identity (a column's min_max
// without mask registers: a value of the word's that folds), and each lane keeps its
// own accumulator across words, so the accumulators stay vectors. Float sums use 16 accumulators,
// row i into i % 16, the fixed order of kernels/fold.h, so results are bit-identical to the
// static folds. Row folds (KernelLoop::kRows) are one loop over rows; over inputs with nulls, one
// a block of kRowFoldBlock rows, folding by a byte mask a row the kernel spreads from the inputs'
// validity words. The loop vectorizer keeps their accumulators vectors for the whole call (for a
// block, with nulls).
#include <algorithm>
#include <array>
#include <cassert>

#include "ir/aggregate.h"
#include "jit/codegen/costly.h"
#include "jit/codegen/kernel_builder_internal.h"
#include "jit/base/target.h"

namespace rowjit::jit::internal {

using ir::AggKind;

// What the accumulators of one fold are. Slots of the state (jit/base/kernel_abi.h FoldState):
//   count: rows folded (when the kernel counts them; a column fold of NaN-skipping float
//          min/max: nonzero iff anything folded, CountsFromExtrema)
//   A: sum (64-bit sums: modulo 2^64), min, nan_count, any, all
//   B: the high 32 bits of each value of a 64-bit sum, max
// One lane each (LLVM widens them into vector accumulators) except the float sum, whose 16
// lanes fix the order of its additions.
struct FoldLayout {
  AggKind kind;
  TypeId type;
  bool is_float;
  bool keep_nan;
  bool float_sum;
  bool sum64;
  bool signed_order;   // min/max compare signed (signed integers, float total-order keys)
  bool canonical_nan;  // NaNs computed by arithmetic fold as the canonical quiet NaN
  bool counts_rows;
  int a_lanes;
  llvm::Type* a_ty;    // null: no accumulator A
  llvm::Type* b_ty;    // null: no accumulator B
};

struct FoldAccs {
  std::vector<llvm::Value*> count, a, b;
};

namespace {

bool IsMinMax(AggKind k) { return k == AggKind::kMin || k == AggKind::kMax || k == AggKind::kMinMax; }

FoldLayout MakeLayout(llvm::IRBuilder<>& b, const KernelShape& shape, const ir::Expr& expr,
                      llvm::Type* value_ty) {
  FoldLayout l{};
  l.kind = *shape.fold;
  l.type = expr.type().id;
  l.is_float = IsFloat(l.type);
  l.keep_nan = shape.fold_keep_nan;
  l.float_sum = l.kind == AggKind::kSum && l.is_float;
  l.sum64 = l.kind == AggKind::kSum && !l.is_float && BitWidth(l.type) == 64;
  l.signed_order = l.is_float || IsSignedInt(l.type);
  // A plain column keeps its NaNs bit for bit; arithmetic gives NaNs of no fixed sign or payload.
  l.canonical_nan = l.is_float && !expr.is_column();
  l.counts_rows = shape.fold_counts_rows;
  l.a_lanes = l.float_sum ? 16 : 1;
  llvm::Type* key_ty = l.is_float ? b.getIntNTy(BitWidth(l.type)) : value_ty;
  switch (l.kind) {
    case AggKind::kSum:
      l.a_ty = l.is_float ? b.getDoubleTy() : b.getInt64Ty();
      l.b_ty = l.sum64 ? b.getInt64Ty() : nullptr;
      break;
    case AggKind::kMin: l.a_ty = key_ty; break;
    case AggKind::kMax: l.b_ty = key_ty; break;
    case AggKind::kMinMax: l.a_ty = key_ty; l.b_ty = key_ty; break;
    case AggKind::kNanCount: l.a_ty = b.getInt64Ty(); break;
    case AggKind::kAny: case AggKind::kAll: l.a_ty = b.getInt8Ty(); break;
    case AggKind::kCount: break;
  }
  return l;
}

// --- the state's slots ------------------------------------------------------------------------

llvm::Value* Slot(llvm::IRBuilder<>& b, llvm::Value* state, int array, int lane) {
  return b.CreateConstInBoundsGEP2_32(llvm::ArrayType::get(b.getInt64Ty(), 3 * kFoldLanes), state, 0,
                                      array * kFoldLanes + lane);
}

llvm::Value* LoadSlot(llvm::IRBuilder<>& b, llvm::Value* state, int array, int lane, llvm::Type* ty) {
  llvm::Value* raw = b.CreateLoad(b.getInt64Ty(), Slot(b, state, array, lane));
  if (ty->isDoubleTy()) return b.CreateBitCast(raw, ty);
  return ty == b.getInt64Ty() ? raw : b.CreateTrunc(raw, ty);
}

// Min/max keys are sign-extended where they compare signed, so that the executor reads them back.
void StoreSlot(llvm::IRBuilder<>& b, const FoldLayout& l, llvm::Value* state, int array, int lane,
               llvm::Value* v) {
  if (v->getType()->isDoubleTy()) {
    v = b.CreateBitCast(v, b.getInt64Ty());
  } else if (v->getType() != b.getInt64Ty()) {
    v = array != 0 && l.signed_order && IsMinMax(l.kind) ? b.CreateSExt(v, b.getInt64Ty())
                                                : b.CreateZExt(v, b.getInt64Ty());
  }
  b.CreateStore(v, Slot(b, state, array, lane));
}

FoldAccs LoadAccs(llvm::IRBuilder<>& b, const FoldLayout& l, llvm::Value* state) {
  FoldAccs accs;
  accs.count.push_back(LoadSlot(b, state, 0, 0, b.getInt64Ty()));
  if (l.a_ty) {
    for (int lane = 0; lane < l.a_lanes; ++lane) accs.a.push_back(LoadSlot(b, state, 1, lane, l.a_ty));
  }
  if (l.b_ty) accs.b.push_back(LoadSlot(b, state, 2, 0, l.b_ty));
  return accs;
}

void StoreAccs(llvm::IRBuilder<>& b, const FoldLayout& l, llvm::Value* state, const FoldAccs& accs) {
  StoreSlot(b, l, state, 0, 0, accs.count[0]);
  for (size_t i = 0; i < accs.a.size(); ++i) StoreSlot(b, l, state, 1, static_cast<int>(i), accs.a[i]);
  for (size_t i = 0; i < accs.b.size(); ++i) StoreSlot(b, l, state, 2, static_cast<int>(i), accs.b[i]);
}

// --- one fold step per kind -------------------------------------------------------------------

// `scalar` in the shape of `v`: itself for a scalar, a vector of as many lanes for a vector. The
// fold steps below serve one row (scalar) and a group of rows (vectors) alike.
llvm::Type* Like(llvm::Value* v, llvm::Type* scalar) { return v->getType()->getWithNewType(scalar); }

// Signed key whose order is IEEE totalOrder (kernels/total_order.h).
llvm::Value* TotalOrderKey(llvm::IRBuilder<>& b, llvm::Value* x) {
  const unsigned w = x->getType()->getScalarSizeInBits();
  llvm::Value* bits = b.CreateBitCast(x, Like(x, b.getIntNTy(w)));
  return b.CreateXor(bits, b.CreateLShr(b.CreateAShr(bits, w - 1), 1));
}

// `keep(e)`: a 64-bit integer where the row is folded, 0 elsewhere.
template <typename Keep>
void StepSum(llvm::IRBuilder<>& b, const FoldLayout& l, FoldAccs& accs, llvm::Value* x,
             llvm::Value* wide, llvm::Value* fold_it, int acc_lane, Keep keep) {
  llvm::Type* i64 = Like(x, b.getInt64Ty());
  if (l.is_float) {
    llvm::Type* f64 = Like(x, b.getDoubleTy());
    llvm::Value* d = l.type == TypeId::kF32 ? b.CreateFPExt(x, f64) : x;
    d = b.CreateSelect(fold_it, d, llvm::ConstantFP::get(f64, 0.0));
    accs.a[acc_lane] = b.CreateFAdd(accs.a[acc_lane], d);
  } else if (!l.sum64) {
    llvm::Value* v = wide != nullptr ? wide : x;  // the exact product of a narrow checked multiply
    llvm::Value* e = IsSignedInt(l.type) ? b.CreateSExt(v, i64) : b.CreateZExt(v, i64);
    accs.a[0] = b.CreateAdd(accs.a[0], keep(e));
  } else {
    // Exact 64-bit sums: the values themselves summed modulo 2^64 and their high 32 bits summed
    // apart; the executor recovers the exact total from the two (FinishIntegerSum), exact below
    // 2^32 rows a fold (the engine slices longer ones). One operation a value fewer than summing
    // the low halves too.
    llvm::Value* e = keep(x);
    accs.a[0] = b.CreateAdd(accs.a[0], e);
    accs.b[0] = b.CreateAdd(accs.b[0], IsSignedInt(l.type) ? b.CreateAShr(e, 32) : b.CreateLShr(e, 32));
  }
}

// Min and max over keys (floats: total-order keys). Rows not folded read the identity, or with
// `merge` (vector groups) keep the accumulator's lane: a masked min/max instruction on AVX-512.
void StepMinMax(llvm::IRBuilder<>& b, const FoldLayout& l, FoldAccs& accs, llvm::Value* x,
                llvm::Value* fold_it, bool merge = false) {
  llvm::Value* k = l.is_float ? TotalOrderKey(b, x) : x;
  const unsigned kw = k->getType()->getScalarSizeInBits();
  const bool s = l.signed_order;
  auto step = [&](llvm::Value* acc, llvm::Intrinsic::ID op, const llvm::APInt& identity) -> llvm::Value* {
    if (merge) return b.CreateSelect(fold_it, b.CreateBinaryIntrinsic(op, acc, k), acc);
    return b.CreateBinaryIntrinsic(op, acc, b.CreateSelect(fold_it, k, llvm::ConstantInt::get(k->getType(), identity)));
  };
  if (l.kind != AggKind::kMax) {
    accs.a[0] = step(accs.a[0], s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin,
                     s ? llvm::APInt::getSignedMaxValue(kw) : llvm::APInt::getMaxValue(kw));
  }
  if (l.kind != AggKind::kMin) {
    accs.b[0] = step(accs.b[0], s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax,
                     s ? llvm::APInt::getSignedMinValue(kw) : llvm::APInt(kw, 0));
  }
}

// nan_count, any, all: one flag a row.
void StepFlag(llvm::IRBuilder<>& b, const FoldLayout& l, FoldAccs& accs, llvm::Value* x,
              llvm::Value* fold_it) {
  switch (l.kind) {
    case AggKind::kNanCount:
      accs.a[0] = b.CreateAdd(accs.a[0], b.CreateZExt(b.CreateAnd(fold_it, b.CreateFCmpUNO(x, x)), Like(x, b.getInt64Ty())));
      break;
    case AggKind::kAny:
      accs.a[0] = b.CreateOr(accs.a[0], b.CreateZExt(b.CreateAnd(fold_it, x), b.getInt8Ty()));
      break;
    case AggKind::kAll:
      accs.a[0] = b.CreateAnd(accs.a[0], b.CreateZExt(b.CreateOr(b.CreateNot(fold_it), x), b.getInt8Ty()));
      break;
    default:
      assert(false && "not a flag fold");
  }
}


// --- the vector form over a plain column ------------------------------------------------------

// Float min/max skipping NaNs, whose NaN rows the mask does not exclude: the vector form counts
// no rows but reports whether any folded, which is all the executor asks of a min/max count
// (jit/exec/executor_fold.cc Finish): a folded key lies strictly between the identities (NaN keys
// lie outside the keys of -inf..+inf), so an extremum still at its identity folded nothing.
bool CountsFromExtrema(const FoldLayout& l) { return l.is_float && !l.keep_nan && IsMinMax(l.kind); }

// Whether the row count comes from the fold mask's popcount: everywhere else.
bool CountsByPopcount(const FoldLayout& l) { return l.counts_rows && !CountsFromExtrema(l); }

int Bytes(llvm::Type* t) { return t == nullptr ? 0 : static_cast<int>(t->getPrimitiveSizeInBits() / 8); }

// Narrow integer sums (8-, 16- and 32-bit columns) add in 32-bit lanes, 16 rows a vector, where
// 64-bit lanes would take a sign extension every 8 rows (on AVX-512 the extensions and the group
// masks' shifts share one port): a 32-bit value as its low 16 bits (unsigned, accumulator A) and
// its high 16 bits (signed as the column, accumulator B), a narrower one as itself. A lane takes
// at most 4 values a word, so a chunk of kNarrowChunkWords words adds at most 2^16 values of at
// most 16 bits to a lane, which cannot overflow 32 bits; each chunk's lanes are then widened into
// the 64-bit sum.
bool NarrowSum(const FoldLayout& l) { return l.kind == AggKind::kSum && !l.is_float && BitWidth(l.type) <= 32; }
constexpr int64_t kNarrowChunkWords = int64_t{1} << 14;
// At most 64 / 16 = 4 values a lane a word, each below 2^16 in magnitude.
static_assert(kNarrowChunkWords * (64 / 16) * (int64_t{1} << 16) <= int64_t{1} << 32,
              "a narrow sum's 32-bit lane overflows within a chunk");

// How far ahead of its word a masked column word loop asks for values (PrefetchWordValues): 16
// words of 8-byte values, 32 of 4-byte ones (bench: `fold_1m/min_max_*_scattered_0.5/jit`).
constexpr int64_t kWordFoldPrefetchBytes = 8192;

// Rows a group: one 512-bit vector of accumulator lanes (8 of 64-bit accumulators: a group's mask
// is then one byte of the bitmap, a `kmovb` from memory), at most 16.
int GroupLanes(const FoldLayout& l) {
  if (NarrowSum(l)) return 16;
  return Bytes(l.a_ty ? l.a_ty : l.b_ty) == 8 ? 8 : 16;
}

// Bytes of one lane's accumulators.
int LaneBytes(const FoldLayout& l) {
  if (NarrowSum(l)) return BitWidth(l.type) == 32 ? 8 : 4;
  return Bytes(l.a_ty) + Bytes(l.b_ty);
}

// Sets of vector accumulators: as many as keep the groups of a word independent within a budget
// of accumulator bytes that fits the registers of an AVX2 host (sixteen 32-byte registers, half of
// them for accumulators) without spilling. The float sum's 16 lanes are its sets: its order is
// fixed (row i into lane i % 16). Without mask registers, min/max over keys of 32 bits or fewer
// keep one set: their steps take a cycle (no chain to hide), and a partial word's lane tests and
// fill already fill the other registers (two sets spill accumulators on AVX2, and a spill reloaded
// beside a column's loads stalls whenever the stack and the column alias modulo 4 KiB; bench:
// `fold/min_max_i32_scattered_0.5/jit` under ROWJIT_KERNEL_LEVEL=v3).
int AccumulatorSets(const FoldLayout& l, bool mask_registers) {
  constexpr int kBudgetBytes = 256;
  const int lanes = GroupLanes(l);
  if (l.float_sum) return 16 / lanes;
  if (!mask_registers && IsMinMax(l.kind) && Bytes(l.a_ty ? l.a_ty : l.b_ty) <= 4) return 1;
  const int per_set = lanes * LaneBytes(l);
  return std::clamp(kBudgetBytes / std::max(per_set, 1), 1, 64 / lanes);
}

// A scalar accumulator as vector accumulators of `lanes` lanes, `sets` of them. Min and max start
// every lane at the scalar (they are idempotent); sums and counts put it in lane 0 of set 0; the
// float sum's 16 lanes are spread in order.
std::vector<FoldAccs> SpreadAccs(llvm::IRBuilder<>& b, const FoldLayout& l, const FoldAccs& accs,
                                 int sets, int lanes) {
  auto vec = [&](llvm::Value* x) { return llvm::FixedVectorType::get(x->getType(), static_cast<unsigned>(lanes)); };
  auto lane0 = [&](llvm::Value* x, int set) -> llvm::Value* {
    llvm::Value* zero = llvm::Constant::getNullValue(vec(x));
    return set == 0 ? b.CreateInsertElement(zero, x, uint64_t{0}) : zero;
  };
  std::vector<FoldAccs> out(static_cast<size_t>(sets));
  for (int s = 0; s < sets; ++s) {
    FoldAccs& v = out[static_cast<size_t>(s)];
    if (l.float_sum) {
      llvm::Value* in_order = llvm::Constant::getNullValue(vec(accs.a[0]));
      for (int i = 0; i < lanes; ++i) {
        in_order = b.CreateInsertElement(in_order, accs.a[static_cast<size_t>(s * lanes + i)], i);
      }
      v.a.push_back(in_order);
    } else if (!accs.a.empty()) {
      v.a.push_back(IsMinMax(l.kind) ? b.CreateVectorSplat(lanes, accs.a[0]) : lane0(accs.a[0], s));
    }
    if (!accs.b.empty()) {
      v.b.push_back(IsMinMax(l.kind) ? b.CreateVectorSplat(lanes, accs.b[0]) : lane0(accs.b[0], s));
    }
  }
  return out;
}

// The vector accumulators back into the scalar ones: the float sum's 16 lanes lane by lane, every
// other accumulator combined across sets and reduced across lanes.
void GatherAccs(llvm::IRBuilder<>& b, const FoldLayout& l, FoldAccs& accs, const std::vector<FoldAccs>& sets) {
  if (l.float_sum) {
    const int lanes = 16 / static_cast<int>(sets.size());
    for (int i = 0; i < 16; ++i) {
      accs.a[static_cast<size_t>(i)] = b.CreateExtractElement(sets[static_cast<size_t>(i / lanes)].a[0], i % lanes);
    }
    return;
  }
  const bool s = l.signed_order;
  auto reduce = [&](auto member, llvm::Intrinsic::ID combine, llvm::Intrinsic::ID across) {
    llvm::Value* v = (sets[0].*member)[0];
    for (size_t i = 1; i < sets.size(); ++i) v = b.CreateBinaryIntrinsic(combine, v, (sets[i].*member)[0]);
    return b.CreateUnaryIntrinsic(across, v);
  };
  auto add = [&](auto member) {
    llvm::Value* v = (sets[0].*member)[0];
    for (size_t i = 1; i < sets.size(); ++i) v = b.CreateAdd(v, (sets[i].*member)[0]);
    return b.CreateAddReduce(v);
  };
  if (IsMinMax(l.kind)) {
    if (!accs.a.empty()) {
      accs.a[0] = reduce(&FoldAccs::a, s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin,
                         s ? llvm::Intrinsic::vector_reduce_smin : llvm::Intrinsic::vector_reduce_umin);
    }
    if (!accs.b.empty()) {
      accs.b[0] = reduce(&FoldAccs::b, s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax,
                         s ? llvm::Intrinsic::vector_reduce_smax : llvm::Intrinsic::vector_reduce_umax);
    }
    return;
  }
  if (!accs.a.empty()) accs.a[0] = add(&FoldAccs::a);
  if (!accs.b.empty()) accs.b[0] = add(&FoldAccs::b);
}

// A narrow sum's accumulators for one chunk: `sets` sets of zero 32-bit lanes (B only for
// 32-bit columns).
std::vector<FoldAccs> NarrowSets(llvm::IRBuilder<>& b, const FoldLayout& l, int sets) {
  llvm::Constant* zero = llvm::Constant::getNullValue(llvm::FixedVectorType::get(b.getInt32Ty(), 16));
  std::vector<FoldAccs> out(static_cast<size_t>(sets));
  for (FoldAccs& s : out) {
    s.a.push_back(zero);
    if (BitWidth(l.type) == 32) s.b.push_back(zero);
  }
  return out;
}

// A chunk's narrow accumulators as one 64-bit sum: A's lanes (unsigned low halves of 32-bit
// values; narrower values signed as the column) plus B's (high halves) times 2^16.
llvm::Value* WidenNarrow(llvm::IRBuilder<>& b, const FoldLayout& l, const std::vector<FoldAccs>& sets) {
  llvm::Type* wide = llvm::FixedVectorType::get(b.getInt64Ty(), 16);
  const bool is_signed = IsSignedInt(l.type);
  auto total = [&](auto member, bool sign) {
    llvm::Value* v = nullptr;
    for (const FoldAccs& s : sets) {
      llvm::Value* e = sign ? b.CreateSExt((s.*member)[0], wide) : b.CreateZExt((s.*member)[0], wide);
      v = v == nullptr ? e : b.CreateAdd(v, e);
    }
    return b.CreateAddReduce(v);
  };
  if (BitWidth(l.type) < 32) return total(&FoldAccs::a, is_signed);
  return b.CreateAdd(total(&FoldAccs::a, false), b.CreateShl(total(&FoldAccs::b, is_signed), 16));
}

// Group `g`'s lanes of a 64-row fold mask, `lanes` lanes a group, on targets without 64-bit mask
// registers: each lane tests a constant bit of the word broadcast to every lane (`vpand` +
// `vpcmpeqq` on AVX2), where a bitcast of the word to <64 x i1> would extract it bit by bit.
llvm::Value* LaneTest(llvm::IRBuilder<>& b, llvm::Value* word, int g, int lanes) {
  const unsigned bits = lanes == 8 ? 64 : 32;  // a lane's test element: its group's bits fit in it
  const int first = g * lanes;                 // the group's first bit in the word
  llvm::Value* part = word;
  if (bits == 32) part = b.CreateTrunc(b.CreateLShr(word, static_cast<uint64_t>(first / 32 * 32)), b.getInt32Ty());
  llvm::SmallVector<llvm::Constant*, 16> lane_bits;
  for (int i = 0; i < lanes; ++i) {
    lane_bits.push_back(llvm::ConstantInt::get(b.getIntNTy(bits), uint64_t{1} << ((first + i) % bits)));
  }
  llvm::Value* spread = b.CreateVectorSplat(static_cast<unsigned>(lanes), part);
  llvm::Value* tested = b.CreateAnd(spread, llvm::ConstantVector::get(lane_bits));
  return b.CreateICmpNE(tested, llvm::Constant::getNullValue(tested->getType()));
}

// A 64-row word as 64 mask bytes, 0xff where its bit is set: a bitcast to <64 x i1> where there
// are 64-bit mask registers (one `vpmovm2b`); elsewhere byte k of the word repeated over lanes
// 8k..8k+7, each tested against its own bit (a shuffle, an AND and a compare on AVX2 and NEON,
// where the bitcast would extract bit by bit).
llvm::Value* MaskBytes(llvm::IRBuilder<>& b, llvm::Value* word, bool mask_registers) {
  llvm::Type* bytes = llvm::FixedVectorType::get(b.getInt8Ty(), 64);
  if (mask_registers) return b.CreateSExt(b.CreateBitCast(word, llvm::FixedVectorType::get(b.getInt1Ty(), 64)), bytes);
  llvm::SmallVector<int, 64> spread;
  llvm::SmallVector<llvm::Constant*, 64> lane_bits;
  for (int i = 0; i < 64; ++i) {
    spread.push_back(i / 8);
    lane_bits.push_back(b.getInt8(static_cast<uint8_t>(1u << (i % 8))));
  }
  llvm::Value* repeated = b.CreateShuffleVector(b.CreateBitCast(word, llvm::FixedVectorType::get(b.getInt8Ty(), 8)), spread);
  llvm::Value* tested = b.CreateAnd(repeated, llvm::ConstantVector::get(lane_bits));
  return b.CreateSExt(b.CreateICmpNE(tested, llvm::Constant::getNullValue(bytes)), bytes);
}

std::vector<llvm::Value*> Flatten(const std::vector<FoldAccs>& sets, llvm::Value* count) {
  std::vector<llvm::Value*> v;
  for (const FoldAccs& s : sets) {
    v.insert(v.end(), s.count.begin(), s.count.end());
    v.insert(v.end(), s.a.begin(), s.a.end());
    v.insert(v.end(), s.b.begin(), s.b.end());
  }
  v.push_back(count);
  return v;
}

llvm::Value* Unflatten(std::vector<FoldAccs>& sets, std::span<llvm::Value* const> v) {
  size_t i = 0;
  for (FoldAccs& s : sets) {
    for (auto& x : s.count) x = v[i++];
    for (auto& x : s.a) x = v[i++];
    for (auto& x : s.b) x = v[i++];
  }
  return v[i];
}

}  // namespace

bool KernelBuilder::FoldsColumnVectors(const FoldLayout& l) const {
  if (!key_.expr->is_column() || inputs_.size() != 1) return false;
  const Input& in = inputs_[0];
  if (in.spec.shape != ir::InputShape::kFlat || in.spec.type == TypeId::kBool || IsString(in.spec.type)) {
    return false;
  }
  return l.kind != AggKind::kAny && l.kind != AggKind::kAll && l.kind != AggKind::kCount;
}

// One group of rows (as many as the lanes of its fold mask `m`) folded under `m`. `fill` (min_max
// only): a value of a row that folds, which the group's other lanes read instead: no extremum
// changes, and min and max share one blend where each would blend its accumulator.
void KernelBuilder::FoldGroup(FoldAccs& set, const FoldLayout& l, llvm::Value* row, llvm::Value* m,
                              llvm::Value* fill) {
  Input& in = inputs_[0];
  llvm::Type* ty = Ty(l.type);
  const auto lanes = llvm::cast<llvm::FixedVectorType>(m->getType())->getNumElements();
  llvm::Value* x = Scoped(b.CreateAlignedLoad(llvm::FixedVectorType::get(ty, lanes), b.CreateGEP(ty, in.values, row),
                                              llvm::Align(ty->getPrimitiveSizeInBits() / 8)),
                          in.values_scope);
  if (NarrowSum(l)) {
    const bool is_signed = IsSignedInt(l.type);
    if (BitWidth(l.type) == 32 && mask_registers_) {
      // The row's halves added under the mask, the load left unmasked: a zero-masked load costs
      // more than the masked adds (bench: `fold_1m/sum_i32_scattered_0.5/jit`).
      llvm::Value* low = b.CreateAnd(x, llvm::ConstantInt::get(x->getType(), 0xffff));
      llvm::Value* high = is_signed ? b.CreateAShr(x, 16) : b.CreateLShr(x, 16);
      set.a[0] = b.CreateSelect(m, b.CreateAdd(set.a[0], low), set.a[0]);
      set.b[0] = b.CreateSelect(m, b.CreateAdd(set.b[0], high), set.b[0]);
      return;
    }
    llvm::Value* kept = b.CreateSelect(m, x, Zero(x));
    if (BitWidth(l.type) == 32) {
      set.a[0] = b.CreateAdd(set.a[0], b.CreateAnd(kept, llvm::ConstantInt::get(kept->getType(), 0xffff)));
      set.b[0] = b.CreateAdd(set.b[0], is_signed ? b.CreateAShr(kept, 16) : b.CreateLShr(kept, 16));
    } else {
      llvm::Type* i32 = Like(kept, b.getInt32Ty());
      set.a[0] = b.CreateAdd(set.a[0], is_signed ? b.CreateSExt(kept, i32) : b.CreateZExt(kept, i32));
    }
    return;
  }
  llvm::Value* fv = m;
  if (l.is_float && !l.keep_nan && IsMinMax(l.kind)) fv = b.CreateAnd(fv, b.CreateFCmpORD(x, x));
  if (l.kind == AggKind::kSum) {
    StepSum(b, l, set, x, nullptr, fv, 0, [&](llvm::Value* e) { return b.CreateSelect(fv, e, Zero(e)); });
  } else if (fill != nullptr) {
    x = b.CreateSelect(fv, x, b.CreateVectorSplat(lanes, fill));
    StepMinMax(b, l, set, x, llvm::Constant::getAllOnesValue(fv->getType()));
  } else if (IsMinMax(l.kind)) {
    StepMinMax(b, l, set, x, fv, /*merge=*/true);
  } else if (l.kind == AggKind::kNanCount) {
    StepFlag(b, l, set, x, fv);
  }
}

// The vector form of a word fold over a plain flat column (FoldsColumnVectors): rows in groups of
// one vector of accumulator lanes, each group folded under its bits of the word's fold mask (the
// column's validity AND `last_mask`): one `kmovq` (straight from the validity words where it can,
// EmitColumnWords) and a `kshiftrq` a group on AVX-512, constant-bit lane tests on AVX2; no byte
// mask is unpacked. Words with no row to fold are skipped (clustered nulls). Integer and key
// folds spread the groups over independent sets of accumulators; the
// float sum keeps row i in lane i % 16 as the scalar form. (Loading each group's mask from the
// bitmap with its own `kmovb` is slower; bench: `fold/{sum,min_max}_{i64,f64}_scattered_0.5/jit`.)
Status KernelBuilder::EmitColumnVectorFold(FoldAccs& accs, const FoldLayout& l, llvm::Value* words,
                                           llvm::Value* last_mask) {
  assert(evidence_.empty() && "a plain column cannot fail");
  assert(l.counts_rows && "a column fold counts its rows (or, CountsFromExtrema, whether any folded)");
  const int set_count = AccumulatorSets(l, mask_registers_);
  if (!NarrowSum(l)) {
    std::vector<FoldAccs> sets = SpreadAccs(b, l, accs, set_count, GroupLanes(l));
    accs.count[0] = EmitColumnWords(sets, l, accs.count[0], b.getInt64(0), words, last_mask);
    GatherAccs(b, l, accs, sets);
    if (CountsFromExtrema(l)) {
      const unsigned kw = l.a_ty ? l.a_ty->getIntegerBitWidth() : l.b_ty->getIntegerBitWidth();
      llvm::Value* folded = l.kind == AggKind::kMax
                                ? b.CreateICmpNE(accs.b[0], b.getInt(llvm::APInt::getSignedMinValue(kw)))
                                : b.CreateICmpNE(accs.a[0], b.getInt(llvm::APInt::getSignedMaxValue(kw)));
      accs.count[0] = b.CreateAdd(accs.count[0], b.CreateZExt(folded, b.getInt64Ty()));
    }
    return Status::OK();
  }
  // Narrow sums: chunks of at most kNarrowChunkWords words, each widened into the 64-bit sum. Their
  // rows are counted by popcounts (no count lanes).
  assert(CountsByPopcount(l) && "a narrow sum's sets carry no count");
  const std::array<llvm::Value*, 2> initial{accs.a[0], accs.count[0]};
  LoopScaffold chunks = LoopScaffold::Open(b, "chunks", b.getInt64(0), initial, b.CreateICmpSGT(words, b.getInt64(0)));
  const std::vector<llvm::Value*> before = chunks.carried();
  llvm::Value* first = chunks.index();
  // The index steps by whole chunks (an affine induction: a chunk loop left empty by unswitching
  // on the last word's mask is deleted); the last chunk ends at `words`.
  llvm::Value* next = b.CreateNSWAdd(first, b.getInt64(kNarrowChunkWords));
  llvm::Value* end = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, next, words);
  std::vector<FoldAccs> sets = NarrowSets(b, l, set_count);
  llvm::Value* count = EmitColumnWords(sets, l, before[1], first, end, last_mask);
  const std::array<llvm::Value*, 2> after{b.CreateAdd(before[0], WidenNarrow(b, l, sets)), count};
  const std::vector<llvm::Value*> out = chunks.Close(next, after, b.CreateICmpSLT(next, words), "chunks.exit");
  accs.a[0] = out[0];
  accs.count[0] = out[1];
  return Status::OK();
}

// For min_max without mask registers, where a masked lane costs a blend: the value of word `w`'s
// first valid row (`word` is not zero), which the word's other lanes read (FoldGroup).
llvm::Value* KernelBuilder::MinMaxFill(const FoldLayout& l, llvm::Value* w, llvm::Value* word) {
  if (l.kind != AggKind::kMinMax) return nullptr;
  Input& in = inputs_[0];
  llvm::Type* ty = Ty(l.type);
  llvm::Value* first = b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, word, b.getTrue());
  llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), first);
  return Scoped(b.CreateAlignedLoad(ty, b.CreateGEP(ty, in.values, row), llvm::Align(ty->getPrimitiveSizeInBits() / 8)),
                in.values_scope);
}

// One word of the vector form (EmitColumnWords): its accumulator sets, its index and fold mask,
// and the carried values every path through it starts from.
struct KernelBuilder::ColumnWord {
  std::vector<FoldAccs>& sets;
  const FoldLayout& layout;
  llvm::Value* w;
  llvm::Value* word;
  std::vector<llvm::Value*> counted;  // Flatten(sets, count) after the word's popcount
  llvm::Value* mask_bits = nullptr;   // <64 x i1>: the word's fold mask, read as a mask register
};

// The word's groups folded, each under its lanes of the word (`full`: every lane folds), with
// `fill` (FoldGroup) where given; returns the carried values after them.
std::vector<llvm::Value*> KernelBuilder::FoldWordGroups(ColumnWord& cw, bool full, llvm::Value* fill) {
  const int lanes = GroupLanes(cw.layout), set_count = static_cast<int>(cw.sets.size());
  llvm::Value* count = Unflatten(cw.sets, cw.counted);
  llvm::Value* bits = cw.mask_bits ? cw.mask_bits : b.CreateBitCast(cw.word, llvm::FixedVectorType::get(b.getInt1Ty(), 64));
  for (int g = 0; g < 64 / lanes; ++g) {
    llvm::SmallVector<int, 16> picked;
    for (int i = 0; i < lanes; ++i) picked.push_back(g * lanes + i);
    llvm::Value* m = full ? llvm::Constant::getAllOnesValue(llvm::FixedVectorType::get(b.getInt1Ty(), lanes))
                     : mask_registers_ ? b.CreateShuffleVector(bits, picked)
                                       : LaneTest(b, cw.word, g, lanes);
    llvm::Value* row = b.CreateAdd(b.CreateShl(cw.w, 6), b.getInt64(g * lanes));
    FoldGroup(cw.sets[static_cast<size_t>(g % set_count)], cw.layout, row, m, fill);
  }
  return Flatten(cw.sets, count);
}

// A word with rows that do not fold, without mask registers (a masked lane costs a lane test and
// a blend): min_max lanes read the word's first folded value (MinMaxFill) instead, save in a
// float fold that skips NaNs when that value is a NaN.
std::vector<llvm::Value*> KernelBuilder::FoldPartialWord(ColumnWord& cw) {
  const FoldLayout& l = cw.layout;
  llvm::Value* fill = MinMaxFill(l, cw.w, cw.word);
  if (fill == nullptr || !l.is_float || l.keep_nan) return FoldWordGroups(cw, false, fill);
  return ChoosePath(b.CreateFCmpORD(fill, fill), [&] { return FoldWordGroups(cw, false, fill); },
                    [&] { return FoldWordGroups(cw, false, nullptr); });
}

// `cond` ? yes() : no(), each path's carried values joined after them.
template <typename Yes, typename No>
std::vector<llvm::Value*> KernelBuilder::ChoosePath(llvm::Value* cond, Yes yes, No no) {
  llvm::BasicBlock* yes_bb = llvm::BasicBlock::Create(ctx_, "word.yes", fn_);
  llvm::BasicBlock* no_bb = llvm::BasicBlock::Create(ctx_, "word.no", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "word.paths", fn_);
  b.CreateCondBr(cond, yes_bb, no_bb);
  b.SetInsertPoint(yes_bb);
  const std::vector<llvm::Value*> a = yes();
  llvm::BasicBlock* a_end = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(no_bb);
  const std::vector<llvm::Value*> c = no();
  llvm::BasicBlock* c_end = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return JoinPaths(b, a, a_end, c, c_end);
}

// The one input whose validity words are a word fold's mask, where there is exactly one (and no
// null constant): nullptr otherwise.
const KernelBuilder::Input* KernelBuilder::OneValidityInput() const {
  if (!shape_.reads_lane_validity()) return nullptr;
  const Input* only = nullptr;
  for (const Input& in : inputs_) {
    if (in.spec.shape == ir::InputShape::kNullConstant) return nullptr;
    if (in.valid == nullptr) continue;
    if (only != nullptr) return nullptr;
    only = &in;
  }
  return only;
}

// Words [first, end) of the vector form, folded into `sets` group by group; returns the count
// after them. With mask registers and one input's validity as the mask, the loop is versioned on
// `last_mask`: all ones (every call but a padded last word's), each word's mask is loaded from
// the validity words into a mask register directly.
llvm::Value* KernelBuilder::EmitColumnWords(std::vector<FoldAccs>& sets, const FoldLayout& l, llvm::Value* count,
                                            llvm::Value* first, llvm::Value* end, llvm::Value* last_mask) {
  const Input* direct = mask_registers_ ? OneValidityInput() : nullptr;
  if (direct == nullptr) return EmitColumnWordLoop(sets, l, count, first, end, last_mask, nullptr);
  auto version = [&](const Input* in, llvm::Value* mask) {
    std::vector<FoldAccs> s = sets;
    llvm::Value* c = EmitColumnWordLoop(s, l, count, first, end, mask, in);
    return Flatten(s, c);
  };
  const std::vector<llvm::Value*> out =
      ChoosePath(b.CreateICmpEQ(last_mask, b.getInt64(~uint64_t{0})), [&] { return version(direct, b.getInt64(~uint64_t{0})); },
                 [&] { return version(nullptr, last_mask); });
  return Unflatten(sets, out);
}

// The values `kWordFoldPrefetchBytes` past word `w`'s, asked for ahead of the loop that will read
// them (a prefetch never faults, so past the column's end too). The masked word loop that loads
// its masks from the validity words runs behind the hardware prefetcher over columns from the L3
// cache; the prefetch shortens `min_max` over 8-byte values and leaves i32 folds and `sum(i64)`
// as they are (bench: `fold_1m/{min_max,sum}_{i32,i64,f64}_scattered_0.5/jit`).
void KernelBuilder::PrefetchWordValues(const Input& in, llvm::Value* w) {
  const int64_t word_bytes = 64 * ByteWidth(in.spec.type);
  llvm::Value* at = b.CreateGEP(b.getInt8Ty(), in.values,
                                b.CreateAdd(b.CreateMul(w, b.getInt64(word_bytes)), b.getInt64(kWordFoldPrefetchBytes)));
  // Read, keep in every cache level, data.
  b.CreateIntrinsic(llvm::Intrinsic::prefetch, {at->getType()}, {at, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
}

// One version of EmitColumnWords' loop; `direct`: the input whose validity words are loaded into
// mask registers as they are (`last_mask` all ones), or nullptr.
llvm::Value* KernelBuilder::EmitColumnWordLoop(std::vector<FoldAccs>& sets, const FoldLayout& l, llvm::Value* count,
                                               llvm::Value* first, llvm::Value* end, llvm::Value* last_mask,
                                               const Input* direct) {
  LoopScaffold loop = LoopScaffold::Open(b, "words", first, Flatten(sets, count), b.CreateICmpSLT(first, end));
  const std::vector<llvm::Value*> before = loop.carried();
  count = Unflatten(sets, before);
  llvm::Value* w = loop.index();
  LoadWordState(w);
  llvm::Value* word = row_valid_word_ ? b.CreateAnd(row_valid_word_, last_mask) : last_mask;
  llvm::BasicBlock* head = b.GetInsertBlock();
  llvm::BasicBlock* work = llvm::BasicBlock::Create(ctx_, "word.fold", fn_);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "word.join", fn_);
  b.CreateCondBr(b.CreateICmpNE(word, b.getInt64(0)), work, join);
  b.SetInsertPoint(work);
  if (CountsByPopcount(l)) count = b.CreateAdd(count, b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, word));
  ColumnWord cw{sets, l, w, word, Flatten(sets, count)};
  if (direct != nullptr) {
    // Loaded again, volatile so that it is not merged with the load the test and the popcount
    // read: a load straight into a mask register (`kmovq k, m64`). Moved from the word in a
    // general register (`kmovq k, r64`), the masked loop is slower (bench:
    // `fold_1m/*_scattered_0.5/jit` on an AVX-512 host).
    llvm::LoadInst* again = b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), direct->valid, w), llvm::Align(1));
    again->setVolatile(true);
    cw.mask_bits = b.CreateBitCast(again, llvm::FixedVectorType::get(b.getInt1Ty(), 64));
    PrefetchWordValues(*direct, w);
  }
  // A word whose rows all fold (every word of a column without nulls, where the test unswitches
  // the loop) skips the lane tests and blends. With mask registers a masked instruction costs
  // what an unmasked one does.
  const std::vector<llvm::Value*> after =
      mask_registers_ ? FoldWordGroups(cw, false, nullptr)
                      : ChoosePath(b.CreateICmpEQ(word, b.getInt64(~uint64_t{0})),
                                   [&] { return FoldWordGroups(cw, true, nullptr); },
                                   [&] { return FoldPartialWord(cw); });
  llvm::BasicBlock* work_end = b.GetInsertBlock();
  b.CreateBr(join);
  b.SetInsertPoint(join);
  const std::vector<llvm::Value*> merged = JoinPaths(b, before, head, after, work_end);
  llvm::Value* next = b.CreateAdd(w, b.getInt64(1));
  return Unflatten(sets, loop.Close(next, merged, b.CreateICmpSLT(next, end)));
}

std::vector<llvm::Value*> KernelBuilder::FoldCarried(const FoldAccs& accs) const {
  std::vector<llvm::Value*> v = accs.count;
  v.insert(v.end(), accs.a.begin(), accs.a.end());
  v.insert(v.end(), accs.b.begin(), accs.b.end());
  for (llvm::Value* e : EvidenceValues()) v.push_back(e);
  return v;
}

void KernelBuilder::SetFoldCarried(FoldAccs& accs, std::span<llvm::Value* const> values) {
  assert(values.size() == accs.count.size() + accs.a.size() + accs.b.size() + evidence_.size() &&
         "carried values are the accumulators, then the evidence");
  size_t i = 0;
  for (auto& x : accs.count) x = values[i++];
  for (auto& x : accs.a) x = values[i++];
  for (auto& x : accs.b) x = values[i++];
  SetEvidence(values.subspan(i));
}

// Folds one row: `fold_it` says whether it may be folded, `row_valid` whether its inputs are all
// non-null (for evidence), `byte_mask` (row folds) its mask byte, 0xff or 0, which integer sums
// AND in directly where there are no mask registers (with them a masked add costs nothing more).
Status KernelBuilder::FoldLane(FoldAccs& accs, const FoldLayout& l, llvm::Value* row, llvm::Value* lane,
                               llvm::Value* fold_it, int acc_lane, llvm::Value* row_valid,
                               llvm::Value* byte_mask) {
  row_valid_ = row_valid;
  ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(*key_.expr, row, lane));
  llvm::Value* x = v.v;
  if (l.canonical_nan) x = b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantFP::getQNaN(x->getType()), x);
  llvm::Value* fv = v.valid ? b.CreateAnd(v.valid, fold_it) : fold_it;
  auto keep = [&](llvm::Value* e) -> llvm::Value* {
    if (byte_mask != nullptr && v.valid == nullptr && !mask_registers_) return b.CreateAnd(e, b.CreateSExt(byte_mask, b.getInt64Ty()));
    return b.CreateSelect(fv, e, Zero(e));
  };
  const bool min_max = IsMinMax(l.kind);
  if (l.is_float && !l.keep_nan && min_max) fv = b.CreateAnd(fv, b.CreateFCmpORD(x, x));
  if (l.counts_rows) accs.count[0] = b.CreateAdd(accs.count[0], b.CreateZExt(fv, b.getInt64Ty()));
  if (l.kind == AggKind::kSum) {
    StepSum(b, l, accs, x, v.wide, fv, acc_lane, keep);
  } else if (min_max) {
    StepMinMax(b, l, accs, x, fv);
  } else if (l.kind != AggKind::kCount) {
    StepFlag(b, l, accs, x, fv);
  }
  return Status::OK();
}

Status KernelBuilder::BuildFold(const std::string& name) {
  assert(shape_.fold && "row kernels are built by Build");
  BeginFunction(name);
  ROWJIT_RETURN_NOT_OK(SetUpInputs(fn_->getArg(0)));
  const FoldLayout layout = MakeLayout(b, shape_, *key_.expr, Ty(key_.expr->type().id));
  if (FoldsColumnVectors(layout)) {
    fn_->addFnAttr(kFoldKindAttribute, "column");
  } else if (layout.kind == AggKind::kSum && !layout.is_float) {
    fn_->addFnAttr(kFoldKindAttribute, "sum-int");
  }
  llvm::Value* state = fn_->getArg(1);
  FoldAccs accs = LoadAccs(b, layout, state);
  // sum(x * y) over narrow integers folds the exact product, which equals the row's value
  // whenever no row fails; its evidence is kept at the product's width (WideProductBits).
  if (const int bits = WideProductBits(*key_.expr, shape_); bits != 0) {
    wide_call_ = key_.expr.get();
    if (facts_.can_fail) evidence_.try_emplace(static_cast<unsigned>(bits), b.getIntN(static_cast<unsigned>(bits), 0));
  }
  if (shape_.loop == KernelLoop::kRows) {
    ROWJIT_RETURN_NOT_OK(EmitRowFold(accs, layout, fn_->getArg(3), fn_->getArg(4)));
  } else if (FoldsColumnVectors(layout)) {
    ROWJIT_RETURN_NOT_OK(EmitColumnVectorFold(accs, layout, fn_->getArg(3), fn_->getArg(4)));
  } else {
    ROWJIT_RETURN_NOT_OK(EmitWordFold(accs, layout, fn_->getArg(3), fn_->getArg(4)));
  }
  StoreAccs(b, layout, state, accs);
  return FinishKernel();  // the evidence (of this call), then verification
}

// One loop over `rows` rows when no input has nulls. Otherwise `rows` is whole words and the
// kernel reads the inputs' validity words itself, kRowFoldBlock rows at a time: the block's words
// ANDed (and with `last_mask`, which keeps a padded last word's padding out), counted and spread
// to a byte a row (0xff: fold) in a stack buffer, which the block's vectorized row loop reads as
// its mask. With mask registers, after vectorization, the loop reads the words' bits instead
// (jit/compile/mask_bits.cc, which finds the buffer by its kFoldMaskName mark). A strict expression's
// failing row raises its error (its evidence is masked by the same byte), so no per-call
// validity is computed.
Status KernelBuilder::EmitRowFold(FoldAccs& accs, const FoldLayout& layout, llvm::Value* rows,
                                  llvm::Value* last_mask) {
  assert(!shape_.writes_validity && "a row fold folds by its mask; it computes no validity");
  assert(facts_.StrictRows() && "a row fold's mask decides which rows fold: strict rows only");
  bool masked = false;
  for (const Input& in : inputs_) masked = masked || in.valid != nullptr;
  if (!masked) return EmitRowLoop(accs, layout, b.getInt64(0), rows, nullptr);
  llvm::Type* block_ty = llvm::ArrayType::get(b.getInt8Ty(), kRowFoldBlock);
  llvm::AllocaInst* mask = [&] {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::AllocaInst* a = entry.CreateAlloca(block_ty, nullptr, "fold.mask");
    a->setAlignment(llvm::Align(64));
    a->setMetadata(kFoldMaskName, llvm::MDNode::get(ctx_, {}));  // what jit/compile/mask_bits.cc looks for
    return a;
  }();
  LoopScaffold blocks = LoopScaffold::Open(b, "blocks", b.getInt64(0), FoldCarried(accs),
                                           b.CreateICmpSGT(rows, b.getInt64(0)));
  SetFoldCarried(accs, blocks.carried());
  llvm::Value* start = blocks.index();
  llvm::Value* n = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateSub(rows, start), b.getInt64(kRowFoldBlock));
  // The block's words (n / 64 of them; n is whole words): each spread to 64 mask bytes.
  llvm::Value* first_word = b.CreateLShr(start, 6);
  const std::array<llvm::Value*, 1> counted{accs.count[0]};
  LoopScaffold words = LoopScaffold::Open(b, "mask.words", b.getInt64(0), counted);
  llvm::Value* w = words.index();
  llvm::Value* word = last_mask;
  for (const Input& in : inputs_) {
    if (in.valid == nullptr) continue;
    llvm::Value* at = b.CreateGEP(b.getInt64Ty(), in.valid, b.CreateAdd(first_word, w));
    word = b.CreateAnd(word, Scoped(b.CreateAlignedLoad(b.getInt64Ty(), at, llvm::Align(1)), in.valid_scope));
  }
  llvm::Value* count = words.carried()[0];
  if (!layout.counts_rows) count = b.CreateAdd(count, b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, word));
  b.CreateAlignedStore(MaskBytes(b, word, mask_registers_), b.CreateGEP(b.getInt8Ty(), mask, b.CreateShl(w, 6)),
                       llvm::Align(64));
  llvm::Value* next_word = b.CreateAdd(w, b.getInt64(1));
  const std::array<llvm::Value*, 1> updated{count};
  accs.count[0] = words.Close(next_word, updated, b.CreateICmpSLT(b.CreateShl(next_word, 6), n), "mask.done")[0];
  ROWJIT_RETURN_NOT_OK(EmitRowLoop(accs, layout, start, n, mask));
  llvm::Value* next = b.CreateAdd(start, b.getInt64(kRowFoldBlock));
  SetFoldCarried(accs, blocks.Close(next, FoldCarried(accs), b.CreateICmpSLT(next, rows)));
  return Status::OK();
}

// Rows [first, first + n) folded in one loop; with `mask`, row first + i only where its byte i is
// 0xff.
Status KernelBuilder::EmitRowLoop(FoldAccs& accs, const FoldLayout& layout, llvm::Value* first, llvm::Value* n,
                                  llvm::Value* mask) {
  LoopScaffold loop = LoopScaffold::Open(b, "rows", b.getInt64(0), FoldCarried(accs),
                                         b.CreateICmpSGT(n, b.getInt64(0)));
  SetFoldCarried(accs, loop.carried());
  llvm::Value* i = loop.index();
  llvm::Value* fold_row = b.getTrue();
  llvm::Value* byte = nullptr;
  if (mask != nullptr) {
    byte = b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), mask, i));
    fold_row = b.CreateICmpSLT(byte, b.getInt8(0));  // 0xff: the sign bit is the lane mask
  }
  llvm::Value* row = b.CreateAdd(first, i);
  ROWJIT_RETURN_NOT_OK(FoldLane(accs, layout, row, nullptr, fold_row, 0, mask ? fold_row : nullptr, byte));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  SetFoldCarried(accs, loop.Close(next, FoldCarried(accs), b.CreateICmpSLT(next, n)));
  return Status::OK();
}

// Whole words, tested at the head; `last_mask` keeps the padding rows of a padded last word out.
Status KernelBuilder::EmitWordFold(FoldAccs& accs, const FoldLayout& layout, llvm::Value* words,
                                   llvm::Value* last_mask) {
  LoopScaffold loop = LoopScaffold::Open(b, "words", b.getInt64(0), FoldCarried(accs));
  SetFoldCarried(accs, loop.carried());
  llvm::Value* w = loop.index();
  llvm::BasicBlock* word = llvm::BasicBlock::Create(ctx_, "word", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b.CreateCondBr(b.CreateICmpSLT(w, words), word, exit);
  b.SetInsertPoint(word);
  LoadWordState(w);
  llvm::Value* inputs_valid = row_valid_word_ ? b.CreateAnd(row_valid_word_, last_mask) : last_mask;
  row_valid_word_ = inputs_valid;
  // Rows that may be folded: for strict-row expressions only rows with every input non-null.
  llvm::Value* fold_word = facts_.StrictRows() ? inputs_valid : last_mask;
  for (int h = 0; h < 2; ++h) ROWJIT_RETURN_NOT_OK(EmitFoldHalf(accs, layout, w, fold_word, h));
  const std::vector<llvm::Value*> at_head =
      loop.Close(b.CreateAdd(w, b.getInt64(1)), FoldCarried(accs), nullptr);
  b.SetInsertPoint(exit);
  SetFoldCarried(accs, at_head);
  return Status::OK();
}

// Half `h` of word `w`: skipped when no row of it folds; otherwise a loop over its 32 lanes (float
// sums: over its two 16-lane groups, the lanes of a group unrolled).
Status KernelBuilder::EmitFoldHalf(FoldAccs& accs, const FoldLayout& layout, llvm::Value* w,
                                   llvm::Value* fold_word, int h) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* half = b.CreateTrunc(b.CreateLShr(fold_word, 32 * h), i32);
  LoopScaffold loop = LoopScaffold::Open(b, "lanes", b.getInt64(0), FoldCarried(accs),
                                         b.CreateICmpNE(half, b.getInt32(0)));
  SetFoldCarried(accs, loop.carried());
  llvm::Value* j = loop.index();
  if (layout.float_sum) {
    llvm::Value* group = b.CreateLShr(half, b.CreateTrunc(b.CreateShl(j, 4), i32));
    for (int l = 0; l < 16; ++l) {
      llvm::Value* lane = b.CreateAdd(b.getInt64(32 * h + l), b.CreateShl(j, 4));
      llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), lane);
      llvm::Value* in_half = b.CreateICmpNE(b.CreateAnd(group, b.getInt32(1u << l)), b.getInt32(0));
      ROWJIT_RETURN_NOT_OK(FoldLane(accs, layout, row, lane, in_half, l, LaneBit(b, row_valid_word_, lane), nullptr));
    }
  } else {
    llvm::Value* lane = b.CreateAdd(b.getInt64(32 * h), j);
    llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), lane);
    llvm::Value* bit = b.CreateShl(b.getInt32(1), b.CreateTrunc(j, i32));
    llvm::Value* in_half = b.CreateICmpNE(b.CreateAnd(half, bit), b.getInt32(0));
    ROWJIT_RETURN_NOT_OK(FoldLane(accs, layout, row, lane, in_half, 0, LaneBit(b, row_valid_word_, lane), nullptr));
  }
  llvm::Value* next = b.CreateAdd(j, b.getInt64(1));
  const int trips = layout.float_sum ? 2 : 32;
  SetFoldCarried(accs, loop.Close(next, FoldCarried(accs), b.CreateICmpULT(next, b.getInt64(trips)), "half.join"));
  return Status::OK();
}

}  // namespace rowjit::jit::internal
