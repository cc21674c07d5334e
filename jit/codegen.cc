// The kernel builder: one fused loop for a bound expression, specialized per input shape, type
// and nullability (jit layer). Rows are processed 64 at a time so that validity and bool words
// are loaded once per word and every lane tests a bit of a loop-invariant word.
#include <unordered_map>

#include "jit/kernel_builder_internal.h"

namespace rowjit::jit::internal {

llvm::Type* LlvmType(llvm::LLVMContext& ctx, TypeId id) {
  switch (id) {
    case TypeId::kBool: return llvm::Type::getInt1Ty(ctx);
    case TypeId::kF32: return llvm::Type::getFloatTy(ctx);
    case TypeId::kF64: return llvm::Type::getDoubleTy(ctx);
    default: return llvm::Type::getIntNTy(ctx, static_cast<unsigned>(BitWidth(id)));
  }
}

// --- LowerContext helpers ---------------------------------------------------------------------

llvm::Value* LowerContext::And(llvm::Value* x, llvm::Value* y) {
  if (x == nullptr) return y;
  if (y == nullptr) return x;
  return b.CreateAnd(x, y);
}

llvm::Value* LowerContext::Or(llvm::Value* x, llvm::Value* y) {
  if (x == nullptr || y == nullptr) return nullptr;  // always valid
  return b.CreateOr(x, y);
}

llvm::Value* LowerContext::Less(llvm::Value* x, llvm::Value* y, TypeId t) {
  if (IsFloat(t)) {
    // x < y, where NaN is greater than every number: ordered less, or x a number and y NaN.
    llvm::Value* lt = b.CreateFCmpOLT(x, y);
    llvm::Value* y_nan_x_not = b.CreateAnd(b.CreateFCmpORD(x, x), b.CreateFCmpUNO(y, y));
    return b.CreateOr(lt, y_nan_x_not);
  }
  return IsSignedInt(t) ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
}

llvm::Value* LowerContext::Equal(llvm::Value* x, llvm::Value* y, TypeId t) {
  if (IsFloat(t)) {
    llvm::Value* both_nan = b.CreateAnd(b.CreateFCmpUNO(x, x), b.CreateFCmpUNO(y, y));
    return b.CreateOr(b.CreateFCmpOEQ(x, y), both_nan);
  }
  return b.CreateICmpEQ(x, y);
}

Val LowerContext::KleeneAnd(const Val& x, const Val& y) {
  // False when a valid side is false; valid when both are valid or one is a valid false.
  if (x.valid == nullptr && y.valid == nullptr) return {b.CreateAnd(x.v, y.v), nullptr};
  llvm::Value* vx = x.valid ? x.valid : b.getTrue();
  llvm::Value* vy = y.valid ? y.valid : b.getTrue();
  llvm::Value* x_false = b.CreateAnd(vx, b.CreateNot(x.v));
  llvm::Value* y_false = b.CreateAnd(vy, b.CreateNot(y.v));
  llvm::Value* valid = b.CreateOr(b.CreateAnd(vx, vy), b.CreateOr(x_false, y_false));
  return {b.CreateAnd(x.v, y.v), valid};
}

Val LowerContext::KleeneOr(const Val& x, const Val& y) {
  if (x.valid == nullptr && y.valid == nullptr) return {b.CreateOr(x.v, y.v), nullptr};
  llvm::Value* vx = x.valid ? x.valid : b.getTrue();
  llvm::Value* vy = y.valid ? y.valid : b.getTrue();
  llvm::Value* x_true = b.CreateAnd(vx, x.v);
  llvm::Value* y_true = b.CreateAnd(vy, y.v);
  llvm::Value* valid = b.CreateOr(b.CreateAnd(vx, vy), b.CreateOr(x_true, y_true));
  // Where valid, either both sides are valid or one is a valid true: x | y is right then, and
  // a garbage value behind a null side can only matter where the result is null.
  return {b.CreateOr(b.CreateAnd(x.v, vx), b.CreateAnd(y.v, vy)), valid};
}

const Lowering* FindLowering(std::string_view name) {
  static const std::unordered_map<std::string_view, const Lowering*> index = [] {
    std::unordered_map<std::string_view, const Lowering*> m;
    for (auto family : {ArithmeticLowerings(), LogicLowerings(), CastFloatLowerings()}) {
      for (const Lowering& l : family) m.emplace(l.name, &l);
    }
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

// --- the kernel builder -----------------------------------------------------------------------


Status KernelBuilder::SetUpInputs(llvm::Value* inputs) {
  llvm::StructType* input_ty = llvm::StructType::get(
      ctx_, {b.getPtrTy(), b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()});
  for (int column : ir::ReferencedColumns(*key_.expr)) {
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

// Per 64-row word: validity words, bool value words, and their AND.
void KernelBuilder::LoadWordState(llvm::Value* w) {
  row_valid_word_ = nullptr;
  for (Input& in : inputs_) {
    in.valid_word = nullptr;
    in.bits_word = nullptr;
    if (in.valid != nullptr && NeedsLaneValidity()) {
      in.valid_word = Scoped(b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), in.valid, w),
                                                 llvm::Align(1)),
                             in.valid_scope);
      row_valid_word_ = row_valid_word_ ? b.CreateAnd(row_valid_word_, in.valid_word) : in.valid_word;
    }
    if (in.spec.shape == ir::InputShape::kNullConstant && NeedsLaneValidity()) {
      row_valid_word_ = b.getInt64(0);
    }
    if (in.spec.shape == ir::InputShape::kFlat && in.spec.type == TypeId::kBool) {
      in.bits_word = Scoped(b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), in.values, w),
                                                llvm::Align(1)),
                            in.values_scope);
    }
  }
}

llvm::Value* LaneBit(llvm::IRBuilder<>& b, llvm::Value* word, llvm::Value* lane) {
  return b.CreateTrunc(b.CreateLShr(word, lane), b.getInt1Ty());
}

Val KernelBuilder::LoadLane(Input& in, llvm::Value* row, llvm::Value* lane) {
  const TypeId t = in.spec.type;
  llvm::Type* ty = Ty(t);
  Val out;
  switch (in.spec.shape) {
    case ir::InputShape::kConstant:
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

Result<Val> KernelBuilder::EmitNode(const ir::Expr& e, llvm::Value* row, llvm::Value* lane) {
  switch (e.kind()) {
    case ir::ExprKind::kColumn:
      for (Input& in : inputs_) {
        if (in.column == e.column_index()) return LoadLane(in, row, lane);
      }
      return MakeError(ErrorCode::kInternal, "column {} not set up", e.column_index());
    case ir::ExprKind::kLiteral: {
      const Scalar& s = e.value();
      llvm::Value* v = s.is_null() ? llvm::Constant::getNullValue(Ty(s.type_id()))
                                   : FromBits(b.getInt64(s.bits()), s.type_id());
      return Val{v, s.is_null() ? b.getFalse() : nullptr};
    }
    case ir::ExprKind::kCall:
      break;
  }
  std::vector<Val> args;
  for (const auto& a : e.args()) {
    ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(*a, row, lane));
    args.push_back(v);
  }
  const Lowering* lowering = FindLowering(e.name());
  if (lowering == nullptr) {
    return MakeError(ErrorCode::kUnsupported, "no lowering for function '{}'", e.name());
  }
  struct CallContext final : LowerContext {
    CallContext(KernelBuilder& k, const ir::Expr& call) : LowerContext(k.b, call), k(k) {}
    void Evidence(llvm::Value* ev) override { k.Evidence(ev); }
    KernelBuilder& k;
  } ctx(*this, e);
  ctx.wide_wanted = &e == wide_call_;
  call_fail_ = nullptr;
  Val out = lowering->lower(ctx, args);
  if (e.function()->strict()) {
    llvm::Value* valid = nullptr;
    for (const Val& a : args) valid = And(valid, a.valid);
    out.valid = valid;
  }
  if (call_fail_ != nullptr) out.valid = And(out.valid, b.CreateNot(call_fail_));
  call_fail_ = nullptr;
  return out;
}

// One word: `count` rows (64, or the tail) starting at row 64 * w.
Status KernelBuilder::EmitWord(llvm::Value* w, llvm::Value* count, bool constant_count) {
  LoadWordState(w);
  llvm::BasicBlock* pre = b.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, constant_count ? "lanes" : "tail.lanes", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, constant_count ? "word.done" : "tail.done", fn_);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, constant_count ? "word.join" : "tail.join", fn_);
  if (shape_.skip_empty_words && row_valid_word_ != nullptr) {
    b.CreateCondBr(b.CreateICmpEQ(row_valid_word_, b.getInt64(0)), join, body);
  } else {
    b.CreateBr(body);
  }
  std::map<unsigned, llvm::Value*> before;
  for (auto& [width, acc] : acc_) before[width] = acc.current;

  b.SetInsertPoint(body);
  llvm::PHINode* lane = b.CreatePHI(b.getInt64Ty(), 2, "lane");
  llvm::PHINode* out_bits = b.CreatePHI(b.getInt64Ty(), 2, "out.bits");
  llvm::PHINode* out_valid = b.CreatePHI(b.getInt64Ty(), 2, "out.valid");
  lane->addIncoming(b.getInt64(0), pre);
  out_bits->addIncoming(b.getInt64(0), pre);
  out_valid->addIncoming(b.getInt64(0), pre);
  for (auto& [width, acc] : acc_) {
    acc.inner = b.CreatePHI(b.getIntNTy(width), 2, "evidence");
    acc.inner->addIncoming(acc.current, pre);
    acc.current = acc.inner;
  }
  llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), lane, "row");
  row_valid_ = nullptr;
  if (NeedsLaneValidity() && row_valid_word_ != nullptr) row_valid_ = LaneBit(b, row_valid_word_, lane);

  ROWJIT_ASSIGN_OR_RETURN(Val root, EmitNode(*key_.expr, row, lane));
  const TypeId result = key_.expr->type().id;
  llvm::Value* next_bits = out_bits;
  if (result == TypeId::kBool) {
    next_bits = b.CreateOr(out_bits, b.CreateShl(b.CreateZExt(root.v, b.getInt64Ty()), lane));
  } else {
    llvm::Type* ty = Ty(result);
    Scoped(b.CreateStore(root.v, b.CreateGEP(ty, out_values_, row)), out_values_scope_);
  }
  llvm::Value* next_valid = out_valid;
  if (shape_.writes_validity) {
    llvm::Value* valid = root.valid ? root.valid : b.getTrue();
    next_valid = b.CreateOr(out_valid, b.CreateShl(b.CreateZExt(valid, b.getInt64Ty()), lane));
  }
  llvm::Value* next_lane = b.CreateAdd(lane, b.getInt64(1));
  llvm::BasicBlock* latch = b.GetInsertBlock();
  lane->addIncoming(next_lane, latch);
  out_bits->addIncoming(next_bits, latch);
  out_valid->addIncoming(next_valid, latch);
  for (auto& [width, acc] : acc_) acc.inner->addIncoming(acc.current, latch);
  b.CreateCondBr(b.CreateICmpULT(next_lane, count), body, done);

  b.SetInsertPoint(done);
  llvm::PHINode* bits_final = b.CreatePHI(b.getInt64Ty(), 1);
  bits_final->addIncoming(next_bits, latch);
  llvm::PHINode* valid_final = b.CreatePHI(b.getInt64Ty(), 1);
  valid_final->addIncoming(next_valid, latch);
  std::map<unsigned, llvm::Value*> after;
  for (auto& [width, acc] : acc_) {
    llvm::PHINode* p = b.CreatePHI(b.getIntNTy(width), 1);
    p->addIncoming(acc.current, latch);
    after[width] = p;
  }
  if (result == TypeId::kBool) {
    Scoped(b.CreateStore(bits_final, b.CreateGEP(b.getInt64Ty(), out_values_, w)), out_values_scope_);
  }
  if (shape_.writes_validity) {
    Scoped(b.CreateStore(valid_final, b.CreateGEP(b.getInt64Ty(), out_valid_, w)), out_valid_scope_);
  }
  b.CreateBr(join);

  b.SetInsertPoint(join);
  for (auto& [width, acc] : acc_) {
    llvm::PHINode* p = b.CreatePHI(b.getIntNTy(width), 2);
    p->addIncoming(after[width], done);
    if (shape_.skip_empty_words && row_valid_word_ != nullptr) p->addIncoming(before[width], pre);
    acc.current = p;
  }
  return Status::OK();
}

llvm::Function* KernelBuilder::BeginFunction(const std::string& name) {
  // uint64_t (const KernelInput* inputs, void* out_or_state, uint64_t* out_valid, int64_t words,
  //           uint64_t last_word_mask)
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
  out_values_ = fn_->getArg(1);
  out_valid_ = fn_->getArg(2);
  mdb_ = std::make_unique<llvm::MDBuilder>(ctx_);
  domain_ = mdb_->createAnonymousAliasScopeDomain("rowjit");
  out_values_scope_ = NewScope("out values");
  out_valid_scope_ = NewScope("out validity");
  CollectEvidenceWidths(*key_.expr);
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b.SetInsertPoint(entry);
  return fn_;
}

Status KernelBuilder::Build(const std::string& name) {
  BeginFunction(name);
  llvm::BasicBlock* entry = b.GetInsertBlock();
  ROWJIT_RETURN_NOT_OK(SetUpInputs(fn_->getArg(0)));
  llvm::Value* words = fn_->getArg(3);
  for (auto& [width, acc] : acc_) acc.current = b.getIntN(width, 0);

  // Whole words only: the executor runs the last partial word through padded scratch inputs.
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "words", fn_);
  llvm::BasicBlock* word = llvm::BasicBlock::Create(ctx_, "word", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b.CreateBr(header);

  b.SetInsertPoint(header);
  llvm::PHINode* w = b.CreatePHI(b.getInt64Ty(), 2, "w");
  w->addIncoming(b.getInt64(0), entry);
  for (auto& [width, acc] : acc_) {
    acc.outer = b.CreatePHI(b.getIntNTy(width), 2, "evidence.words");
    acc.outer->addIncoming(acc.current, entry);
    acc.current = acc.outer;
  }
  b.CreateCondBr(b.CreateICmpSLT(w, words), word, exit);

  b.SetInsertPoint(word);
  std::vector<int> refs;
  for (const Input& in : inputs_) refs.push_back(in.column);
  if (UsesFlatLoop(shape_, key_.inputs, refs)) {
    ROWJIT_RETURN_NOT_OK(EmitFlatRows(words));
    w->addIncoming(words, b.GetInsertBlock());
    for (auto& [width, acc] : acc_) acc.outer->addIncoming(acc.current, b.GetInsertBlock());
    b.CreateBr(header);
    b.SetInsertPoint(exit);
    for (auto& [width, acc] : acc_) acc.current = acc.outer;
    return FinishKernel();
  }
  ROWJIT_RETURN_NOT_OK(EmitWord(w, b.getInt64(64), true));
  llvm::Value* next_w = b.CreateAdd(w, b.getInt64(1));
  w->addIncoming(next_w, b.GetInsertBlock());
  for (auto& [width, acc] : acc_) acc.outer->addIncoming(acc.current, b.GetInsertBlock());
  b.CreateBr(header);

  b.SetInsertPoint(exit);
  for (auto& [width, acc] : acc_) acc.current = acc.outer;
  return FinishKernel();
}

// A flat loop over every row of the call (entered once from the word loop, which it ends).
Status KernelBuilder::EmitFlatRows(llvm::Value* words) {
  llvm::BasicBlock* pre = b.GetInsertBlock();
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "rows", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "rows.done", fn_);
  llvm::Value* n = b.CreateShl(words, 6);
  b.CreateBr(body);
  b.SetInsertPoint(body);
  llvm::PHINode* row = b.CreatePHI(b.getInt64Ty(), 2, "row");
  row->addIncoming(b.getInt64(0), pre);
  for (auto& [width, acc] : acc_) {
    acc.inner = b.CreatePHI(b.getIntNTy(width), 2, "evidence");
    acc.inner->addIncoming(acc.current, pre);
    acc.current = acc.inner;
  }
  row_valid_ = nullptr;
  ROWJIT_ASSIGN_OR_RETURN(Val root, EmitNode(*key_.expr, row, nullptr));
  const TypeId result = key_.expr->type().id;
  if (result == TypeId::kBool) {
    Scoped(b.CreateStore(b.CreateZExt(root.v, b.getInt8Ty()), b.CreateGEP(b.getInt8Ty(), out_values_, row)),
           out_values_scope_);
  } else {
    Scoped(b.CreateStore(root.v, b.CreateGEP(Ty(result), out_values_, row)), out_values_scope_);
  }
  llvm::Value* next = b.CreateAdd(row, b.getInt64(1));
  llvm::BasicBlock* latch = b.GetInsertBlock();
  row->addIncoming(next, latch);
  for (auto& [width, acc] : acc_) acc.inner->addIncoming(acc.current, latch);
  b.CreateCondBr(b.CreateICmpULT(next, n), body, done);
  b.SetInsertPoint(done);
  for (auto& [width, acc] : acc_) {
    llvm::PHINode* p = b.CreatePHI(b.getIntNTy(width), 1);
    p->addIncoming(acc.current, latch);
    acc.current = p;
  }
  return Status::OK();
}

Status KernelBuilder::FinishKernel() {
  llvm::Value* evidence = b.getInt64(0);
  for (auto& [width, acc] : acc_) {
    evidence = b.CreateOr(evidence, b.CreateZExt(b.CreateICmpNE(acc.current, b.getIntN(width, 0)),
                                                 b.getInt64Ty()));
  }
  b.CreateRet(evidence);

  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyFunction(*fn_, &os)) {
    return MakeError(ErrorCode::kInternal, "generated kernel does not verify: {}", os.str());
  }
  return Status::OK();
}

Status EmitKernel(const ir::SpecializationKey& key, const KernelShape& shape, llvm::Module& module,
                  const std::string& name) {
  if (key.expr == nullptr || !key.expr->bound()) {
    return MakeError(ErrorCode::kInvalidInput, "kernels are built from bound expressions");
  }
  llvm::IRBuilder<> b(module.getContext());
  KernelBuilder builder(key, shape, module, b);
  if (shape.fold >= 0) return builder.BuildFold(name);
  return builder.Build(name);
}

}  // namespace rowjit::jit::internal
