// Reduction templates (jit layer): the bound expression computed in registers and folded in the
// same pass, never materialized. Each 64-row word is two 32-lane halves; every lane is tested
// against a constant bit of its half (the half's lanes are unrolled in the IR, so the bit is a
// constant and the SLP vectorizer packs the lanes), halves without a row to fold are skipped,
// null lanes read the fold's identity, and each lane keeps its own accumulator across words,
// so the accumulators stay vectors. Float sums use 16 accumulators, row i into i % 16, the
// fixed order of kernels/fold.h, so results are bit-identical to the static folds.
#include "ir/aggregate.h"
#include "jit/kernel_builder_internal.h"

namespace rowjit::jit::internal {
namespace {

using ir::AggKind;

// Signed key whose order is IEEE totalOrder (kernels/total_order.h).
llvm::Value* TotalOrderKey(llvm::IRBuilder<>& b, llvm::Value* x) {
  const unsigned w = x->getType()->getPrimitiveSizeInBits();
  llvm::Value* bits = b.CreateBitCast(x, b.getIntNTy(w));
  return b.CreateXor(bits, b.CreateLShr(b.CreateAShr(bits, w - 1), 1));
}

}  // namespace

Status KernelBuilder::BuildFold(const std::string& name) {
  const auto kind = static_cast<AggKind>(shape_.fold);
  const TypeId t = key_.expr->type().id;
  const bool is_float = IsFloat(t);
  const bool keep_nan = shape_.fold_keep_nan;
  BeginFunction(name);
  llvm::BasicBlock* entry = b.GetInsertBlock();
  ROWJIT_RETURN_NOT_OK(SetUpInputs(fn_->getArg(0)));
  llvm::Value* state = fn_->getArg(1);
  llvm::Value* words = fn_->getArg(3);
  llvm::Value* last_mask = fn_->getArg(4);
  bool strict_only = true;
  std::vector<const ir::Expr*> stack = {key_.expr.get()};
  while (!stack.empty()) {
    const ir::Expr* e = stack.back();
    stack.pop_back();
    if (e->is_call() && !e->function()->strict()) strict_only = false;
    if (e->is_literal() && e->value().is_null()) strict_only = false;  // rows null without a mask
    for (const auto& a : e->args()) stack.push_back(a.get());
  }

  // Accumulators: one lane each (LLVM's loop vectorizer widens them into vector accumulators)
  // except the float sum, whose 16 lanes fix the order of its additions.
  //   A: sum (64-bit sums: the low 32 bits of each value), min, nan_count, any, all
  //   B: the high 32 bits of each value of a 64-bit sum, max
  const bool float_sum = kind == AggKind::kSum && is_float;
  const bool sum64 = kind == AggKind::kSum && !is_float && BitWidth(t) == 64;
  const int a_lanes = float_sum ? 16 : 1;
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* a_ty = nullptr;
  llvm::Type* b_ty = nullptr;
  llvm::Type* key_ty = is_float ? b.getIntNTy(BitWidth(t)) : Ty(t);
  switch (kind) {
    case AggKind::kSum:
      a_ty = is_float ? b.getDoubleTy() : i64;
      if (sum64) b_ty = i64;
      break;
    case AggKind::kMin: a_ty = key_ty; break;
    case AggKind::kMax: b_ty = key_ty; break;
    case AggKind::kMinMax: a_ty = key_ty; b_ty = key_ty; break;
    case AggKind::kNanCount: a_ty = i64; break;
    case AggKind::kAny: case AggKind::kAll: a_ty = b.getInt8Ty(); break;
    case AggKind::kCount: break;
  }
  const bool signed_order = is_float || IsSignedInt(t);
  // NaNs computed by arithmetic have no fixed sign or payload; a fold over an expression reads
  // them all as the canonical quiet NaN (a plain column keeps its NaNs bit for bit).
  const bool canonical_nan = is_float && !key_.expr->is_column();

  struct Accs {
    std::vector<llvm::Value*> count, a, b;
  } cur;
  auto slot = [&](int array, int lane) {
    return b.CreateConstInBoundsGEP2_32(llvm::ArrayType::get(i64, 3 * kFoldLanes), state, 0,
                                        array * kFoldLanes + lane);
  };
  auto load_slot = [&](int array, int lane, llvm::Type* ty) -> llvm::Value* {
    llvm::Value* raw = b.CreateLoad(i64, slot(array, lane));
    if (ty->isDoubleTy()) return b.CreateBitCast(raw, ty);
    return ty == i64 ? raw : b.CreateTrunc(raw, ty);
  };
  auto store_slot = [&](int array, int lane, llvm::Value* v) {
    if (v->getType()->isDoubleTy()) {
      v = b.CreateBitCast(v, i64);
    } else if (v->getType() != i64) {
      const bool sext = array != 0 && signed_order &&
                        (kind == AggKind::kMin || kind == AggKind::kMax || kind == AggKind::kMinMax);
      v = sext ? b.CreateSExt(v, i64) : b.CreateZExt(v, i64);
    }
    b.CreateStore(v, slot(array, lane));
  };
  cur.count.push_back(load_slot(0, 0, i64));
  if (a_ty) for (int l = 0; l < a_lanes; ++l) cur.a.push_back(load_slot(1, l, a_ty));
  if (b_ty) cur.b.push_back(load_slot(2, 0, b_ty));
  for (auto& [width, acc] : acc_) acc.current = b.getIntN(width, 0);

  auto all_values = [&](const Accs& s) {
    std::vector<llvm::Value*> v = s.count;
    v.insert(v.end(), s.a.begin(), s.a.end());
    v.insert(v.end(), s.b.begin(), s.b.end());
    for (auto& [width, acc] : acc_) v.push_back(acc.current);
    return v;
  };
  auto assign = [&](Accs& s, const std::vector<llvm::Value*>& v) {
    size_t i = 0;
    for (auto& x : s.count) x = v[i++];
    for (auto& x : s.a) x = v[i++];
    for (auto& x : s.b) x = v[i++];
    for (auto& [width, acc] : acc_) acc.current = v[i++];
  };
  auto make_phis = [&](const std::vector<llvm::Value*>& from, llvm::BasicBlock* pred) {
    std::vector<llvm::PHINode*> phis;
    for (llvm::Value* v : from) {
      llvm::PHINode* p = b.CreatePHI(v->getType(), 2);
      p->addIncoming(v, pred);
      phis.push_back(p);
    }
    return phis;
  };
  auto values_of = [](const std::vector<llvm::PHINode*>& phis) {
    return std::vector<llvm::Value*>(phis.begin(), phis.end());
  };

  bool count_rows = true;  // flat folds leave counting to the executor where they can
  // sum(x * y) over narrow integers folds the exact product (one widening multiply, shared by
  // the overflow test), which equals the row's value whenever no row fails.
  if (kind == AggKind::kSum && !is_float && BitWidth(t) < 64 && key_.expr->is_call() &&
      key_.expr->name() == "mul") {
    wide_call_ = key_.expr.get();
  }
  // Folds one lane: `lane` is its row within the word, `in_half` whether it may be folded.
  // `byte_mask` (flat folds): the row's mask byte, 0xff or 0, which integer sums AND in directly.
  auto fold_lane = [&](llvm::Value* row, llvm::Value* lane, llvm::Value* in_half, int acc_lane,
                       llvm::Value* row_valid, llvm::Value* byte_mask) -> Status {
    row_valid_ = row_valid;
    ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(*key_.expr, row, lane));
    llvm::Value* x = v.v;
    if (canonical_nan) {
      x = b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantFP::getQNaN(x->getType()), x);
    }
    llvm::Value* fv = v.valid ? b.CreateAnd(v.valid, in_half) : in_half;
    // Keeps a 64-bit integer where the row is folded, 0 elsewhere.
    auto keep = [&](llvm::Value* e) -> llvm::Value* {
      if (byte_mask != nullptr && v.valid == nullptr) return b.CreateAnd(e, b.CreateSExt(byte_mask, i64));
      return b.CreateSelect(fv, e, b.getInt64(0));
    };
    if (is_float && !keep_nan &&
        (kind == AggKind::kMin || kind == AggKind::kMax || kind == AggKind::kMinMax)) {
      fv = b.CreateAnd(fv, b.CreateFCmpORD(x, x));
    }
    if (count_rows) cur.count[0] = b.CreateAdd(cur.count[0], b.CreateZExt(fv, i64));
    switch (kind) {
      case AggKind::kSum:
        if (is_float) {
          llvm::Value* d = t == TypeId::kF32 ? b.CreateFPExt(x, b.getDoubleTy()) : x;
          d = b.CreateSelect(fv, d, llvm::ConstantFP::get(b.getDoubleTy(), 0.0));
          cur.a[acc_lane] = b.CreateFAdd(cur.a[acc_lane], d);
        } else if (!sum64) {
          llvm::Value* wide = v.wide != nullptr ? v.wide : x;  // the exact product (see wide_call_)
          llvm::Value* e = IsSignedInt(t) ? b.CreateSExt(wide, i64) : b.CreateZExt(wide, i64);
          cur.a[0] = b.CreateAdd(cur.a[0], keep(e));
        } else {
          // Exact 64-bit sums: the low and high 32 bits of each value summed apart (neither can
          // overflow below 2^31 rows); total = high * 2^32 + low, checked once at the end.
          llvm::Value* e = keep(x);
          cur.a[0] = b.CreateAdd(cur.a[0], b.CreateAnd(e, b.getInt64(0xffffffffULL)));
          cur.b[0] = b.CreateAdd(cur.b[0], IsSignedInt(t) ? b.CreateAShr(e, 32) : b.CreateLShr(e, 32));
        }
        break;
      case AggKind::kMin:
      case AggKind::kMax:
      case AggKind::kMinMax: {
        llvm::Value* k = is_float ? TotalOrderKey(b, x) : x;
        const unsigned kw = k->getType()->getIntegerBitWidth();
        if (kind != AggKind::kMax) {
          llvm::Value* ident = llvm::ConstantInt::get(
              k->getType(), signed_order ? llvm::APInt::getSignedMaxValue(kw) : llvm::APInt::getMaxValue(kw));
          cur.a[0] = b.CreateBinaryIntrinsic(signed_order ? llvm::Intrinsic::smin : llvm::Intrinsic::umin,
                                             cur.a[0], b.CreateSelect(fv, k, ident));
        }
        if (kind != AggKind::kMin) {
          llvm::Value* ident = llvm::ConstantInt::get(
              k->getType(), signed_order ? llvm::APInt::getSignedMinValue(kw) : llvm::APInt(kw, 0));
          cur.b[0] = b.CreateBinaryIntrinsic(signed_order ? llvm::Intrinsic::smax : llvm::Intrinsic::umax,
                                             cur.b[0], b.CreateSelect(fv, k, ident));
        }
        break;
      }
      case AggKind::kNanCount:
        cur.a[0] = b.CreateAdd(cur.a[0], b.CreateZExt(b.CreateAnd(fv, b.CreateFCmpUNO(x, x)), i64));
        break;
      case AggKind::kAny:
        cur.a[0] = b.CreateOr(cur.a[0], b.CreateZExt(b.CreateAnd(fv, x), b.getInt8Ty()));
        break;
      case AggKind::kAll:
        cur.a[0] = b.CreateAnd(cur.a[0], b.CreateZExt(b.CreateOr(b.CreateNot(fv), x), b.getInt8Ty()));
        break;
      case AggKind::kCount:
        break;
    }
    return Status::OK();
  };

  auto finish = [&]() -> Status {
    store_slot(0, 0, cur.count[0]);
    for (size_t l = 0; l < cur.a.size(); ++l) store_slot(1, static_cast<int>(l), cur.a[l]);
    for (size_t l = 0; l < cur.b.size(); ++l) store_slot(2, static_cast<int>(l), cur.b[l]);
    return FinishKernel();  // the evidence (acc_ holds this block's values), then verification
  };

  std::vector<int> refs;
  bool masked = false;
  for (const Input& in : inputs_) {
    refs.push_back(in.column);
    masked = masked || in.valid != nullptr;
  }
  if (UsesFlatFold(shape_, strict_only, t, key_.inputs, refs)) {
    // One loop over `rows` rows: the loop vectorizer keeps every accumulator a vector for the
    // whole call and reduces it once at the end. A row is folded when its mask byte is nonzero
    // (no mask when no input has nulls).
    // A strict expression's rows are folded by the mask alone; a failing row raises its error
    // (its evidence is masked by the same byte), so no per-call validity is computed.
    shape_.writes_validity = false;
    count_rows = FlatFoldCountsRows(shape_, t);
    llvm::Value* rows = fn_->getArg(3);
    llvm::Value* mask = fn_->getArg(2);
    llvm::MDNode* mask_scope = masked ? NewScope("fold mask") : nullptr;
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "rows", fn_);
    llvm::BasicBlock* exit_block = llvm::BasicBlock::Create(ctx_, "exit", fn_);
    const std::vector<llvm::Value*> initial = all_values(cur);
    b.CreateCondBr(b.CreateICmpSGT(rows, b.getInt64(0)), loop, exit_block);
    b.SetInsertPoint(loop);
    llvm::PHINode* row = b.CreatePHI(i64, 2, "row");
    row->addIncoming(b.getInt64(0), entry);
    auto phis = make_phis(initial, entry);
    assign(cur, values_of(phis));
    llvm::Value* fold_row = b.getTrue();
    llvm::Value* byte = nullptr;
    if (masked) {
      byte = Scoped(b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), mask, row)), mask_scope);
      fold_row = b.CreateICmpSLT(byte, b.getInt8(0));  // 0xff: the sign bit is the lane mask
    }
    ROWJIT_RETURN_NOT_OK(fold_lane(row, nullptr, fold_row, 0, masked ? fold_row : nullptr, byte));
    llvm::Value* next = b.CreateAdd(row, b.getInt64(1));
    llvm::BasicBlock* latch = b.GetInsertBlock();
    row->addIncoming(next, latch);
    const std::vector<llvm::Value*> updated = all_values(cur);
    for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(updated[i], latch);
    b.CreateCondBr(b.CreateICmpSLT(next, rows), loop, exit_block);
    b.SetInsertPoint(exit_block);
    auto out = make_phis(initial, entry);
    for (size_t i = 0; i < out.size(); ++i) out[i]->addIncoming(updated[i], latch);
    assign(cur, values_of(out));
    return finish();
  }

  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "words", fn_);
  llvm::BasicBlock* word = llvm::BasicBlock::Create(ctx_, "word", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* w = b.CreatePHI(i64, 2, "w");
  w->addIncoming(b.getInt64(0), entry);
  auto outer = make_phis(all_values(cur), entry);
  assign(cur, values_of(outer));
  b.CreateCondBr(b.CreateICmpSLT(w, words), word, exit);

  b.SetInsertPoint(word);
  LoadWordState(w);
  llvm::Value* inputs_valid = row_valid_word_ ? b.CreateAnd(row_valid_word_, last_mask) : last_mask;
  row_valid_word_ = inputs_valid;
  // Rows that may be folded: for strict expressions only rows with every input non-null.
  llvm::Value* fold_word = strict_only ? inputs_valid : last_mask;
  for (int h = 0; h < 2; ++h) {
    llvm::Value* half = b.CreateTrunc(b.CreateLShr(fold_word, 32 * h), i32);
    llvm::BasicBlock* pre = b.GetInsertBlock();
    llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "half", fn_);
    llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "half.join", fn_);
    const std::vector<llvm::Value*> before = all_values(cur);
    b.CreateCondBr(b.CreateICmpEQ(half, b.getInt32(0)), join, body);  // no row of the half
    b.SetInsertPoint(body);
    // A loop over the half's lanes (float sums: over its two 16-lane groups, lanes unrolled).
    const int trips = float_sum ? 2 : 32;
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "lanes", fn_);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(ctx_, "half.done", fn_);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode* j = b.CreatePHI(i64, 2, "j");
    j->addIncoming(b.getInt64(0), body);
    auto loop_phis = make_phis(all_values(cur), body);
    assign(cur, values_of(loop_phis));
    if (float_sum) {
      llvm::Value* group = b.CreateTrunc(b.CreateLShr(half, b.CreateTrunc(b.CreateShl(j, 4), i32)), i32);
      for (int l = 0; l < 16; ++l) {
        llvm::Value* lane = b.CreateAdd(b.getInt64(32 * h + l), b.CreateShl(j, 4));
        llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), lane);
        llvm::Value* in_half = b.CreateICmpNE(b.CreateAnd(group, b.getInt32(1u << l)), b.getInt32(0));
        ROWJIT_RETURN_NOT_OK(fold_lane(row, lane, in_half, l, LaneBit(b, row_valid_word_, lane), nullptr));
      }
    } else {
      llvm::Value* lane = b.CreateAdd(b.getInt64(32 * h), j);
      llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), lane);
      llvm::Value* bit = b.CreateShl(b.getInt32(1), b.CreateTrunc(j, i32));
      llvm::Value* in_half = b.CreateICmpNE(b.CreateAnd(half, bit), b.getInt32(0));
      ROWJIT_RETURN_NOT_OK(fold_lane(row, lane, in_half, 0, LaneBit(b, row_valid_word_, lane), nullptr));
    }
    llvm::Value* next_j = b.CreateAdd(j, b.getInt64(1));
    llvm::BasicBlock* loop_end = b.GetInsertBlock();
    j->addIncoming(next_j, loop_end);
    const std::vector<llvm::Value*> updated = all_values(cur);
    for (size_t i = 0; i < loop_phis.size(); ++i) loop_phis[i]->addIncoming(updated[i], loop_end);
    b.CreateCondBr(b.CreateICmpULT(next_j, b.getInt64(trips)), loop, after);
    b.SetInsertPoint(after);
    auto done = make_phis(updated, loop_end);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    auto phis = make_phis(before, pre);
    for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(done[i], after);
    assign(cur, values_of(phis));
  }
  llvm::Value* next_w = b.CreateAdd(w, b.getInt64(1));
  w->addIncoming(next_w, b.GetInsertBlock());
  const std::vector<llvm::Value*> end_of_word = all_values(cur);
  for (size_t i = 0; i < outer.size(); ++i) outer[i]->addIncoming(end_of_word[i], b.GetInsertBlock());
  b.CreateBr(header);

  b.SetInsertPoint(exit);
  assign(cur, values_of(outer));
  return finish();
}

}  // namespace rowjit::jit::internal
