// The kernel builder's shared half (jit layer, codegen room): the kernel's signature, its inputs,
// one row of the expression (loads, calls through their lowerings, validity of strict calls) and
// the failure evidence. Row loops are jit/codegen/codegen_rows.cc, fold loops are
// jit/codegen/codegen_fold.cc.
#include <algorithm>
#include <cassert>
#include <optional>

#include "jit/codegen/kernel_builder_internal.h"
#include "jit/codegen/prefilter.h"
#include "jit/codegen/string_helpers.h"

namespace rowjit::jit::internal {

// --- the loop scaffold ------------------------------------------------------------------------

LoopScaffold LoopScaffold::Open(llvm::IRBuilder<>& b, const char* name, llvm::Value* start,
                                std::span<llvm::Value* const> carried, llvm::Value* guard) {
  LoopScaffold s(b);
  llvm::LLVMContext& ctx = b.getContext();
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  s.pre_ = b.GetInsertBlock();
  s.initial_.assign(carried.begin(), carried.end());
  s.head_ = llvm::BasicBlock::Create(ctx, name, fn);
  if (guard != nullptr) {
    s.guard_exit_ = llvm::BasicBlock::Create(ctx, "", fn);
    b.CreateCondBr(guard, s.head_, s.guard_exit_);
  } else {
    b.CreateBr(s.head_);
  }
  b.SetInsertPoint(s.head_);
  s.index_ = b.CreatePHI(b.getInt64Ty(), 2, name);
  s.index_->addIncoming(start, s.pre_);
  for (llvm::Value* v : carried) {
    llvm::PHINode* p = b.CreatePHI(v->getType(), 2);
    p->addIncoming(v, s.pre_);
    s.phis_.push_back(p);
  }
  return s;
}

std::vector<llvm::Value*> LoopScaffold::Close(llvm::Value* next_index,
                                              std::span<llvm::Value* const> updated,
                                              llvm::Value* again, const char* exit_name) {
  assert(updated.size() == phis_.size() && "a loop closes with as many values as it carries");
  llvm::IRBuilder<>& b = *b_;
  llvm::BasicBlock* latch = b.GetInsertBlock();
  index_->addIncoming(next_index, latch);
  for (size_t i = 0; i < phis_.size(); ++i) phis_[i]->addIncoming(updated[i], latch);
  if (again == nullptr) {
    assert(guard_exit_ == nullptr && "a loop tested at its head takes no guard");
    b.CreateBr(head_);
    return carried();
  }
  llvm::BasicBlock* exit = guard_exit_;
  if (exit == nullptr) exit = llvm::BasicBlock::Create(b.getContext(), "", head_->getParent());
  exit->setName(exit_name);
  exit->moveAfter(latch);
  b.CreateCondBr(again, head_, exit);
  b.SetInsertPoint(exit);
  std::vector<llvm::Value*> out;
  for (size_t i = 0; i < phis_.size(); ++i) {
    llvm::PHINode* p = b.CreatePHI(updated[i]->getType(), guard_exit_ ? 2 : 1);
    p->addIncoming(updated[i], latch);
    if (guard_exit_ != nullptr) p->addIncoming(initial_[i], pre_);
    out.push_back(p);
  }
  return out;
}

// --- evidence ---------------------------------------------------------------------------------

std::vector<llvm::Value*> KernelBuilder::EvidenceValues() const {
  std::vector<llvm::Value*> out;
  for (const auto& [width, value] : evidence_) out.push_back(value);
  return out;
}

void KernelBuilder::SetEvidence(std::span<llvm::Value* const> values) {
  assert(values.size() == evidence_.size() && "one value per evidence width");
  size_t i = 0;
  for (auto& [width, value] : evidence_) value = values[i++];
}

void KernelBuilder::Suspect(llvm::Value* ev) {
  auto it = suspects_.find(ev->getType()->getIntegerBitWidth());
  assert(it != suspects_.end() && "conservative evidence outside a rechecking row loop, or of a width it has not");
  assert(!shape_.writes_validity && !shape_.mask_evidence && "suspects are for dense row loops");
  if (guard_ != nullptr) ev = b.CreateSelect(guard_, ev, Zero(ev));
  it->second = b.CreateOr(it->second, ev);
}

void KernelBuilder::SetSuspects(std::span<llvm::Value* const> values) {
  assert(values.size() == suspects_.size() && "one value per suspect width");
  size_t i = 0;
  for (auto& [width, value] : suspects_) value = values[i++];
}

void KernelBuilder::Evidence(llvm::Value* ev) {
  if (auto* c = llvm::dyn_cast<llvm::Constant>(ev); c != nullptr && c->isNullValue()) return;
  if (evidence_.empty()) {
    stray_evidence_ = true;  // the analysis said no call here can fail
    return;
  }
  auto it = evidence_.find(ev->getType()->getIntegerBitWidth());
  if (it == evidence_.end()) {
    // A lowering reported evidence of another width: normalise to one bit of the narrowest.
    const unsigned w = evidence_.begin()->first;
    ev = b.CreateZExt(b.CreateICmpNE(ev, Zero(ev)), b.getIntNTy(w));
    it = evidence_.find(w);
  }
  // A strict call with a null argument is never evaluated (its placeholder inputs must not fail).
  if (call_valid_ != nullptr) ev = b.CreateSelect(call_valid_, ev, Zero(ev));
  if (shape_.writes_validity) {
    // A failing call yields null in rows whose errors are not raised (rows with a null input).
    llvm::Value* fail = b.CreateICmpNE(ev, Zero(ev));
    call_fail_ = call_fail_ ? b.CreateOr(call_fail_, fail) : fail;
  }
  if (shape_.mask_evidence && row_valid_ != nullptr) ev = b.CreateSelect(row_valid_, ev, Zero(ev));
  // A call in an argument not taken in this lane (a guard: ir/reference.h) raises nothing there;
  // its value still goes null above, as the reference's.
  if (guard_ != nullptr) ev = b.CreateSelect(guard_, ev, Zero(ev));
  it->second = b.CreateOr(it->second, ev);
}

// --- the function and its inputs --------------------------------------------------------------

llvm::MDNode* KernelBuilder::NewScope(const char* what) {
  llvm::MDNode* s = mdb_->createAnonymousAliasScope(domain_, what);
  scopes_.push_back(s);
  return s;
}

llvm::Value* KernelBuilder::FromBits(llvm::Value* bits64, TypeId t) {
  llvm::Type* ty = Ty(t);
  if (t == TypeId::kF64) return b.CreateBitCast(bits64, ty);
  if (t == TypeId::kF32) return b.CreateBitCast(b.CreateTrunc(bits64, b.getInt32Ty()), ty);
  return b.CreateTrunc(bits64, ty);
}

Status KernelBuilder::SetUpInputs(llvm::Value* inputs) {
  llvm::StructType* input_ty = llvm::StructType::get(
      ctx_, {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()});
  for (int column : facts_.columns) {
    if (column < 0 || static_cast<size_t>(column) >= key_.inputs.size()) {
      return MakeError(ErrorCode::kInternal, "column {} has no input spec", column);
    }
    Input in;
    in.column = column;
    in.spec = key_.inputs[column];
    auto field = [&](unsigned f, llvm::Type* ty) {
      llvm::Value* p = b.CreateConstInBoundsGEP2_32(input_ty, inputs, column, f);
      return b.CreateLoad(ty, p);
    };
    switch (in.spec.shape) {
      case ir::InputShape::kConstant:
      case ir::InputShape::kNullConstant:
        in.scalar = field(kInputScalar, b.getInt64Ty());
        // A string's bytes; a 16-byte value's two halves.
        if (IsString(in.spec.type) || in.spec.type == TypeId::kI128) in.values = field(kInputValues, b.getPtrTy());
        break;
      case ir::InputShape::kDictionary:
        in.values = field(kInputValues, b.getPtrTy());
        in.codes = field(kInputCodes, b.getPtrTy());
        in.scalar = field(kInputScalar, b.getInt64Ty());
        in.values_scope = NewScope("dict values");
        in.codes_scope = NewScope("codes");
        break;
      default:
        in.values = field(kInputValues, b.getPtrTy());
        in.values_scope = NewScope("values");
        if (IsString(in.spec.type)) {  // the data, or the view layout's data buffer table
          in.codes = field(kInputCodes, b.getPtrTy());
          in.codes_scope = NewScope("string data");
        }
        break;
    }
    if (in.spec.has_nulls && in.spec.shape != ir::InputShape::kConstant &&
        in.spec.shape != ir::InputShape::kNullConstant) {
      in.valid = field(kInputValid, b.getPtrTy());
      in.valid_scope = NewScope("validity");
    }
    inputs_.push_back(in);
  }
  return Status::OK();
}

// Per 64-row word: validity words, bool value words, and their AND; the word's searches.
void KernelBuilder::LoadWordState(llvm::Value* w) {
  row_valid_word_ = nullptr;
  LoadWordSearches(w);
  for (Input& in : inputs_) {
    in.valid_word = nullptr;
    in.bits_word = nullptr;
    if (in.valid != nullptr && shape_.reads_lane_validity()) {
      in.valid_word = Scoped(b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), in.valid, w),
                                                 llvm::Align(1)),
                             in.valid_scope);
      row_valid_word_ = row_valid_word_ ? b.CreateAnd(row_valid_word_, in.valid_word) : in.valid_word;
    }
    if (in.spec.shape == ir::InputShape::kNullConstant && shape_.reads_lane_validity()) {
      row_valid_word_ = b.getInt64(0);
    }
    if (in.spec.shape == ir::InputShape::kFlat && in.spec.type == TypeId::kBool) {
      in.bits_word = Scoped(b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), in.values, w),
                                                llvm::Align(1)),
                            in.values_scope);
    }
  }
}

// The rows of word `w` that hold each word search's needle (jit/codegen/prefilter.h WordSearch):
// one helper call a word, whose bits the lanes read in place of a search a row (EmitCall).
void KernelBuilder::LoadWordSearches(llvm::Value* w) {
  word_searches_.clear();
  word_code_points_.clear();
  std::vector<const ir::Expr*> stack{key_.expr.get()};
  while (!stack.empty()) {
    const ir::Expr* e = stack.back();
    stack.pop_back();
    for (const ir::ExprPtr& a : e->args()) stack.push_back(a.get());
    if (const ir::Expr* col = WordCodePointsOf(*e, key_.inputs); col != nullptr && !word_code_points_.contains(e)) {
      LoadWordCodePoints(w, *e, *col);
      continue;
    }
    std::optional<WordSearch> search = WordSearchOf(*e, key_.inputs);
    if (!search || word_searches_.contains(e)) continue;
    auto in = std::find_if(inputs_.begin(), inputs_.end(), [&](const Input& i) { return i.column == search->column->column_index(); });
    if (in == inputs_.end()) continue;
    const StringLayout layout = in->spec.layout;
    // A word's 65 offsets, or its 64 views (16 bytes each), and the data or the views' buffer table.
    llvm::Type* row_ty = llvm::ArrayType::get(b.getInt8Ty(), kViewBytes);
    if (layout != StringLayout::kViews) row_ty = layout == StringLayout::kOffsets32 ? b.getInt32Ty() : b.getInt64Ty();
    llvm::Value* rows = b.CreateGEP(row_ty, in->values, b.CreateShl(w, 6));
    llvm::Value* needle = b.CreateExtractValue(StringConstant(m_, search->needle), 0);
    const std::string_view name = layout == StringLayout::kOffsets32   ? kHelperRowsContaining32
                                  : layout == StringLayout::kOffsets64 ? kHelperRowsContaining64
                                                                       : kHelperRowsContainingViews;
    llvm::Type* i64 = b.getInt64Ty();
    llvm::FunctionCallee f = m_.getOrInsertFunction(
        llvm::StringRef(name.data(), name.size()),
        llvm::FunctionType::get(i64, {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), i64, b.getInt32Ty()}, false));
    if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
      fn->setDoesNotThrow();
      fn->setWillReturn();
      if (layout != StringLayout::kViews) fn->setOnlyAccessesArgMemory();
      fn->setOnlyReadsMemory();
    }
    word_searches_[e] = b.CreateCall(f, {rows, in->codes, needle, b.getInt64(static_cast<int64_t>(search->needle.size())),
                                         b.getInt32(search->fold_case ? 1 : 0)});
  }
}

// The code points of word `w`'s 64 rows of `col` (WordCodePointsOf), counted by one helper call
// into a stack array the lanes of `call` read.
void KernelBuilder::LoadWordCodePoints(llvm::Value* w, const ir::Expr& call, const ir::Expr& col) {
  auto in = std::find_if(inputs_.begin(), inputs_.end(), [&](const Input& i) { return i.column == col.column_index(); });
  if (in == inputs_.end()) return;
  const StringLayout layout = in->spec.layout;
  llvm::Type* row_ty = llvm::ArrayType::get(b.getInt8Ty(), kViewBytes);
  if (layout != StringLayout::kViews) row_ty = layout == StringLayout::kOffsets32 ? b.getInt32Ty() : b.getInt64Ty();
  llvm::Value* rows = b.CreateGEP(row_ty, in->values, b.CreateShl(w, 6));
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* counts = entry.CreateAlloca(llvm::ArrayType::get(b.getInt64Ty(), 64));
  counts->setAlignment(llvm::Align(64));
  const std::string_view name = layout == StringLayout::kOffsets32   ? kHelperCodePoints32
                                : layout == StringLayout::kOffsets64 ? kHelperCodePoints64
                                                                     : kHelperCodePointsViews;
  llvm::FunctionCallee f = m_.getOrInsertFunction(
      llvm::StringRef(name.data(), name.size()),
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy()}, false));
  // No memory attribute: the counts run through the static kernels' dispatch table (a global the
  // helper reads), so even over offsets the helper is not argument memory only.
  if (auto* helper = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    helper->setDoesNotThrow();
    helper->setWillReturn();
  }
  b.CreateCall(f, {rows, in->codes, counts});
  word_code_points_[&call] = counts;
}

std::vector<llvm::Value*> JoinPaths(llvm::IRBuilder<>& b, std::span<llvm::Value* const> a, llvm::BasicBlock* from_a,
                                    std::span<llvm::Value* const> other, llvm::BasicBlock* from_other) {
  assert(a.size() == other.size() && "both paths carry the same values");
  std::vector<llvm::Value*> joined;
  for (size_t i = 0; i < a.size(); ++i) {
    llvm::PHINode* phi = b.CreatePHI(a[i]->getType(), 2);
    phi->addIncoming(a[i], from_a);
    phi->addIncoming(other[i], from_other);
    joined.push_back(phi);
  }
  return joined;
}

llvm::Value* LaneBit(llvm::IRBuilder<>& b, llvm::Value* word, llvm::Value* lane) {
  return b.CreateTrunc(b.CreateLShr(word, lane), b.getInt1Ty());
}

Val KernelBuilder::LoadLane(Input& in, llvm::Value* row, llvm::Value* lane) {
  assert((lane != nullptr || in.bits_word == nullptr) && "a bool word's bit needs its lane");
  const TypeId t = in.spec.type;
  llvm::Type* ty = Ty(t);
  Val out;
  if (IsString(t) && in.spec.shape == ir::InputShape::kFlat) {
    out = LoadString(in, row);
    if (in.valid_word != nullptr) out.valid = LaneBit(b, in.valid_word, lane);
    return out;
  }
  if (t == TypeId::kI128) {
    out = LoadHalves(in, row);
    if (in.valid_word != nullptr) out.valid = LaneBit(b, in.valid_word, lane);
    if (in.spec.shape == ir::InputShape::kNullConstant) out.valid = b.getFalse();
    return out;
  }
  switch (in.spec.shape) {
    case ir::InputShape::kConstant:
      if (IsString(t)) return {MakeString(in.values, in.scalar), nullptr};
      return {FromBits(in.scalar, t), nullptr};
    case ir::InputShape::kNullConstant:
      return {llvm::Constant::getNullValue(ty), b.getFalse()};
    case ir::InputShape::kByteBool: {
      llvm::Value* byte = Scoped(b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), in.values, row)),
                                 in.values_scope);
      out.v = b.CreateICmpNE(byte, b.getInt8(0));
      break;
    }
    case ir::InputShape::kDictionary: {
      llvm::Type* code_ty = Ty(in.spec.code_type);
      llvm::Value* code = Scoped(b.CreateLoad(code_ty, b.CreateGEP(code_ty, in.codes, row)),
                                 in.codes_scope);
      code = IsSignedInt(in.spec.code_type) ? b.CreateSExt(code, b.getInt64Ty())
                                            : b.CreateZExt(code, b.getInt64Ty());
      // Codes of null rows are not checked: clamp so that no row reads outside the values.
      llvm::Value* safe = b.CreateSelect(b.CreateICmpULT(code, in.scalar), code, b.getInt64(0));
      out.v = Scoped(b.CreateLoad(ty, b.CreateGEP(ty, in.values, safe)), in.values_scope);
      break;
    }
    case ir::InputShape::kFlat:
      if (t == TypeId::kBool) {
        out.v = LaneBit(b, in.bits_word, lane);
      } else {
        out.v = Scoped(b.CreateLoad(ty, b.CreateGEP(ty, in.values, row)), in.values_scope);
      }
      break;
  }
  if (in.valid_word != nullptr) out.valid = LaneBit(b, in.valid_word, lane);
  return out;
}

// Row `row` of a 16-byte input (decimal128) as its low and high 64 bits: two i64 loads a row,
// which the vectorizer turns into one interleaved load, so no i128 value exists in the kernel.
// A constant's halves are behind its values pointer; a dictionary's row is its code's.
Val KernelBuilder::LoadHalves(Input& in, llvm::Value* row) {
  if (in.spec.shape == ir::InputShape::kNullConstant) return {b.getInt64(0), nullptr, nullptr, nullptr, b.getInt64(0)};
  llvm::Value* index = row;
  llvm::MDNode* scope = in.values_scope;
  if (in.spec.shape == ir::InputShape::kConstant) {
    index = b.getInt64(0);
  } else if (in.spec.shape == ir::InputShape::kDictionary) {
    llvm::Type* code_ty = Ty(in.spec.code_type);
    llvm::Value* code = Scoped(b.CreateLoad(code_ty, b.CreateGEP(code_ty, in.codes, row)), in.codes_scope);
    code = IsSignedInt(in.spec.code_type) ? b.CreateSExt(code, b.getInt64Ty()) : b.CreateZExt(code, b.getInt64Ty());
    index = b.CreateSelect(b.CreateICmpULT(code, in.scalar), code, b.getInt64(0));
  }
  auto half = [&](int h) {
    llvm::Value* at = b.CreateAdd(b.CreateShl(index, 1, "", true, true), b.getInt64(h), "", true, true);
    llvm::LoadInst* v = b.CreateLoad(b.getInt64Ty(), b.CreateInBoundsGEP(b.getInt64Ty(), in.values, at));
    return scope != nullptr ? Scoped(v, scope) : v;
  };
  Val out;
  out.v = half(0);
  out.high = half(1);
  return out;
}

llvm::Value* KernelBuilder::MakeString(llvm::Value* ptr, llvm::Value* len) {
  llvm::Value* pair = llvm::UndefValue::get(Ty(TypeId::kUtf8));
  pair = b.CreateInsertValue(pair, ptr, 0);
  return b.CreateInsertValue(pair, len, 1);
}

// Row `row` of a flat string input. Offsets layouts: [offsets[row], offsets[row + 1]) of the
// data. Views: the length, then the bytes inline (up to 12) or in a data buffer, chosen by a
// select, the buffer index clamped to 0 for inline rows (whose index field holds bytes); the
// executor gives every view input a buffer table of at least one entry. Arrays are checked when
// made (runtime/string_array.h), so every row's range is inside its buffer.
Val KernelBuilder::LoadString(Input& in, llvm::Value* row) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  if (in.spec.layout != StringLayout::kViews) {
    llvm::Type* off_ty = in.spec.layout == StringLayout::kOffsets32 ? i32 : i64;
    auto load = [&](llvm::Value* r) {
      llvm::Value* v = Scoped(b.CreateAlignedLoad(off_ty, b.CreateGEP(off_ty, in.values, r), llvm::Align(1)),
                              in.values_scope);
      return b.CreateSExt(v, i64);
    };
    llvm::Value* start = load(row);
    llvm::Value* end = load(b.CreateAdd(row, b.getInt64(1)));
    return {MakeString(b.CreateGEP(b.getInt8Ty(), in.codes, start), b.CreateSub(end, start))};
  }
  llvm::Value* view = b.CreateGEP(b.getInt8Ty(), in.values, b.CreateMul(row, b.getInt64(kViewBytes)));
  auto field = [&](int at) {
    return Scoped(b.CreateAlignedLoad(i32, b.CreateConstGEP1_64(b.getInt8Ty(), view, at), llvm::Align(1)),
                  in.values_scope);
  };
  llvm::Value* len = b.CreateZExt(field(0), i64);
  llvm::Value* is_inline = b.CreateICmpULE(len, b.getInt64(kViewInlineMax));
  llvm::Value* index = b.CreateSelect(is_inline, b.getInt64(0), b.CreateZExt(field(8), i64));
  llvm::Value* buffer = Scoped(b.CreateLoad(b.getPtrTy(), b.CreateGEP(b.getPtrTy(), in.codes, index)),
                               in.codes_scope);
  llvm::Value* out_of_line = b.CreateGEP(b.getInt8Ty(), buffer, b.CreateZExt(field(12), i64));
  llvm::Value* bytes = b.CreateSelect(is_inline, b.CreateConstGEP1_64(b.getInt8Ty(), view, 4), out_of_line);
  Val out{MakeString(bytes, len)};
  out.view = view;
  return out;
}

Result<Val> KernelBuilder::EmitNode(const ir::Expr& e, llvm::Value* row, llvm::Value* lane) {
  switch (e.kind()) {
    case ir::ExprKind::kColumn:
      for (Input& in : inputs_) {
        if (in.column == e.column_index()) return LoadLane(in, row, lane);
      }
      return MakeError(ErrorCode::kInternal, "column {} not set up", e.column_index());
    case ir::ExprKind::kLiteral: {
      const Scalar& s = e.value();
      if (IsString(s.type_id()) && !s.is_null()) return Val{StringConstant(m_, s.str()), nullptr};
      if (s.type_id() == TypeId::kI128) {  // decimal128: its halves
        const Int128 v = Const128(b, s.is_null() ? 0 : s.int128());
        Val out{v.lo, s.is_null() ? b.getFalse() : nullptr};
        out.high = v.hi;
        return out;
      }
      llvm::Value* v = s.is_null() ? llvm::Constant::getNullValue(Ty(s.type_id()))
                                   : FromBits(b.getInt64(s.bits()), s.type_id());
      return Val{v, s.is_null() ? b.getFalse() : nullptr};
    }
    case ir::ExprKind::kCall:
      return EmitCall(e, row, lane);
  }
  return MakeError(ErrorCode::kInternal, "unknown expression kind");
}

// The lanes where argument `i` of a call with guard `guard` is taken, given the arguments before it
// (the guards of ir/reference.h), or nullptr where it always is: `if`'s then branch where the
// condition is true, its else branch where it is false or null; a `coalesce` argument where every
// earlier one is null; the right operand of `and` where the left is not false, of `or` where it
// is not true. Values stay computed in every lane; only the evidence is masked.
llvm::Value* KernelBuilder::TakenLanes(ir::Guard guard, size_t i, std::span<const Val> before) {
  if (i == 0) return nullptr;
  switch (guard) {
    case ir::Guard::kNone: return nullptr;
    case ir::Guard::kIf: {
      llvm::Value* take = before[0].valid ? b.CreateAnd(before[0].valid, before[0].v) : before[0].v;
      return i == 1 ? take : b.CreateNot(take);
    }
    case ir::Guard::kCoalesce: {
      llvm::Value* all_null = b.getTrue();
      for (const Val& a : before) all_null = a.valid ? b.CreateAnd(all_null, b.CreateNot(a.valid)) : b.getFalse();
      return all_null;
    }
    case ir::Guard::kAnd:
    case ir::Guard::kOr: {
      llvm::Value* decides = guard == ir::Guard::kAnd ? b.CreateNot(before[0].v) : before[0].v;
      if (before[0].valid) decides = b.CreateAnd(before[0].valid, decides);
      return b.CreateNot(decides);
    }
  }
  return nullptr;
}

// A call: its arguments, then its lowering. A strict call is valid where all its arguments are;
// in kernels that compute validity, a failing call is null where its error is not raised.
Result<Val> KernelBuilder::EmitCall(const ir::Expr& e, llvm::Value* row, llvm::Value* lane) {
  std::vector<Val> args;
  llvm::Value* const outer = guard_;
  const bool in_list = e.function()->literal_set;
  for (size_t i = 0; i < e.args().size(); ++i) {
    if (in_list && i > 0 && e.args()[i]->is_literal()) {  // in the constant set InList builds
      args.push_back(Val{});
      continue;
    }
    guard_ = And(outer, TakenLanes(e.function()->guard, i, args));
    Result<Val> v = EmitNode(*e.args()[i], row, lane);
    guard_ = outer;
    if (!v.ok()) return std::move(v).TakeError();
    args.push_back(*v);
  }
  const LowerFn lower = LoweringFor(*e.function());
  if (lower == nullptr) {
    return MakeError(ErrorCode::kUnsupported, "no lowering for function '{}'", e.name());
  }
  const bool strict = e.function()->strict();
  llvm::Value* args_valid = nullptr;
  if (strict) {
    for (const Val& a : args) args_valid = And(args_valid, a.valid);
  }
  struct CallContext final : LowerContext {
    CallContext(KernelBuilder& k, const ir::Expr& call) : LowerContext(k.b, call), k(k) {}
    void Evidence(llvm::Value* ev) override { k.Evidence(ev); }
    bool TakesSuspects(unsigned width) const override { return k.suspects_.contains(width); }
    void Suspect(llvm::Value* ev) override { k.Suspect(ev); }
    KernelBuilder& k;
  } ctx(*this, e);
  ctx.wide_wanted = &e == wide_call_;
  call_fail_ = nullptr;
  call_valid_ = strict && shape_.writes_validity ? args_valid : nullptr;
  auto searched = lane != nullptr ? word_searches_.find(&e) : word_searches_.end();
  auto counted = lane != nullptr ? word_code_points_.find(&e) : word_code_points_.end();
  Val out;
  if (searched != word_searches_.end()) {
    out = Val{LaneBit(b, searched->second, lane)};
  } else if (counted != word_code_points_.end()) {
    out = Val{b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), counted->second, lane), llvm::Align(8))};
  } else {
    out = lower(ctx, args);
  }
  call_valid_ = nullptr;
  if (strict) out.valid = args_valid;
  if (call_fail_ != nullptr) out.valid = And(out.valid, b.CreateNot(call_fail_));
  call_fail_ = nullptr;
  return out;
}

llvm::Function* KernelBuilder::BeginFunction(const std::string& name) {
  // The one machine signature of every kernel kind (jit/base/kernel_abi.h): (ptr inputs, ptr out
  // values or fold state, ptr out validity or row mask, i64 words or rows, i64 last-word mask).
  auto* fn_ty = llvm::FunctionType::get(
      b.getInt64Ty(), {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()},
      false);
  fn_ = llvm::Function::Create(fn_ty, llvm::Function::ExternalLinkage, name, m_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  for (unsigned i = 0; i < 3; ++i) {
    fn_->addParamAttr(i, llvm::Attribute::NoAlias);
    fn_->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  fn_->addParamAttr(0, llvm::Attribute::ReadOnly);
  // Streaming stores need whole aligned vectors: the executor passes 64-byte aligned outputs.
  if (shape_.stream_output) fn_->addParamAttr(1, llvm::Attribute::getWithAlignment(ctx_, llvm::Align(64)));
  out_values_ = fn_->getArg(1);
  out_valid_ = fn_->getArg(2);
  mdb_ = std::make_unique<llvm::MDBuilder>(ctx_);
  domain_ = mdb_->createAnonymousAliasScopeDomain("rowjit");
  out_values_scope_ = NewScope("out values");
  out_valid_scope_ = NewScope("out validity");
  for (int width : facts_.evidence_widths) evidence_[static_cast<unsigned>(width)] = nullptr;
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b.SetInsertPoint(entry);
  for (auto& [width, value] : evidence_) value = b.getIntN(width, 0);
  return fn_;
}

Status KernelBuilder::FinishKernel() {
  if (stray_evidence_) {
    return MakeError(ErrorCode::kInternal,
                     "a lowering in {} reported failure evidence for a call that cannot fail",
                     key_.expr->ToString());
  }
  llvm::Value* evidence = b.getInt64(0);
  for (auto& [width, acc] : evidence_) {
    evidence = b.CreateOr(evidence, b.CreateZExt(b.CreateICmpNE(acc, b.getIntN(width, 0)),
                                                 b.getInt64Ty()));
  }
  // Streaming stores are weakly ordered: fenced before the caller (or another thread) reads them.
  if (shape_.stream_output && llvm::Triple(m_.getTargetTriple()).isX86()) {
    const llvm::Intrinsic::ID sfence = llvm::Function::lookupIntrinsicID("llvm.x86.sse.sfence");
    b.CreateCall(llvm::Intrinsic::getDeclaration(&m_, sfence));
  }
  b.CreateRet(evidence);

  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyFunction(*fn_, &os)) {
    return MakeError(ErrorCode::kInternal, "generated kernel does not verify: {}", os.str());
  }
  return Status::OK();
}

}  // namespace rowjit::jit::internal
