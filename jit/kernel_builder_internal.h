// The kernel builder shared by row kernels (jit/codegen.cc) and fold kernels
// (jit/codegen_fold.cc) (jit layer, internal).
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "jit/codegen_internal.h"

namespace rowjit::jit::internal {

constexpr unsigned kInputValues = 0, kInputCodes = 1, kInputValid = 2, kInputScalar = 3;

llvm::Value* LaneBit(llvm::IRBuilder<>& b, llvm::Value* word, llvm::Value* lane);

class KernelBuilder final : public LowerContext {
 public:
  KernelBuilder(const ir::SpecializationKey& key, const KernelShape& shape, llvm::Module& m,
                llvm::IRBuilder<>& b)
      : LowerContext(b, *key.expr), key_(key), shape_(shape), m_(m), ctx_(m.getContext()) {}

  Status Build(const std::string& name);
  // The fold kernel of a reduction template (jit/codegen_fold.cc).
  Status BuildFold(const std::string& name);

  void Evidence(llvm::Value* ev) override {
    auto it = acc_.find(ev->getType()->getIntegerBitWidth());
    if (it == acc_.end()) {
      // A lowering reported evidence of another width: normalise to one bit of the narrowest.
      const unsigned w = acc_.begin()->first;
      ev = b.CreateZExt(b.CreateICmpNE(ev, llvm::ConstantInt::get(ev->getType(), 0)),
                        b.getIntNTy(w));
      it = acc_.find(w);
    }
    if (shape_.writes_validity) {
      // A failing call yields null in rows whose errors are not raised (rows with a null input).
      llvm::Value* fail = b.CreateICmpNE(ev, Zero(ev));
      call_fail_ = call_fail_ ? b.CreateOr(call_fail_, fail) : fail;
    }
    if (shape_.mask_evidence && row_valid_ != nullptr) ev = b.CreateSelect(row_valid_, ev, Zero(ev));
    it->second.current = b.CreateOr(it->second.current, ev);
  }

 private:
  struct Input {
    int column = -1;
    ir::InputSpec spec;
    llvm::Value* values = nullptr;  // pointer
    llvm::Value* codes = nullptr;   // pointer
    llvm::Value* valid = nullptr;   // pointer to words
    llvm::Value* scalar = nullptr;  // i64
    llvm::Value* valid_word = nullptr;  // this word's validity
    llvm::Value* bits_word = nullptr;   // this word's bool values
    llvm::MDNode* values_scope = nullptr;
    llvm::MDNode* codes_scope = nullptr;
    llvm::MDNode* valid_scope = nullptr;
  };
  struct Acc {
    llvm::PHINode* outer = nullptr;
    llvm::PHINode* inner = nullptr;
    llvm::Value* current = nullptr;
  };

  static llvm::Value* Zero(llvm::Value* like) { return llvm::Constant::getNullValue(like->getType()); }
  bool NeedsLaneValidity() const {
    return shape_.writes_validity || shape_.mask_evidence || shape_.skip_empty_words;
  }

  void CollectEvidenceWidths(const ir::Expr& e) {
    for (const auto& a : e.args()) CollectEvidenceWidths(*a);
    if (e.is_call() && e.function()->fallible && e.args()[0]->type().id != TypeId::kBool) {
      acc_.emplace(static_cast<unsigned>(BitWidth(e.args()[0]->type().id)), Acc{});
    }
  }

  // Loads and stores carry scoped no-alias metadata so the vectorizer needs no runtime checks.
  template <typename Inst>
  Inst* Scoped(Inst* inst, llvm::MDNode* scope) {
    inst->setMetadata(llvm::LLVMContext::MD_alias_scope, llvm::MDNode::get(ctx_, {scope}));
    llvm::SmallVector<llvm::Metadata*, 16> others;
    for (llvm::MDNode* s : scopes_) {
      if (s != scope) others.push_back(s);
    }
    inst->setMetadata(llvm::LLVMContext::MD_noalias, llvm::MDNode::get(ctx_, others));
    return inst;
  }
  llvm::MDNode* NewScope(const char* what) {
    llvm::MDNode* s = mdb_->createAnonymousAliasScope(domain_, what);
    scopes_.push_back(s);
    return s;
  }

  llvm::Value* FromBits(llvm::Value* bits64, TypeId t) {
    llvm::Type* ty = Ty(t);
    if (t == TypeId::kF64) return b.CreateBitCast(bits64, ty);
    if (t == TypeId::kF32) return b.CreateBitCast(b.CreateTrunc(bits64, b.getInt32Ty()), ty);
    return b.CreateTrunc(bits64, ty);
  }

  Status SetUpInputs(llvm::Value* inputs);
  void LoadWordState(llvm::Value* w);
  Val LoadLane(Input& in, llvm::Value* row, llvm::Value* lane);
  Result<Val> EmitNode(const ir::Expr& e, llvm::Value* row, llvm::Value* lane);
  Status EmitWord(llvm::Value* w, llvm::Value* count, bool constant_count);
  llvm::Function* BeginFunction(const std::string& name);
  Status EmitFlatRows(llvm::Value* words);
  Status FinishKernel();

  const ir::SpecializationKey& key_;
  KernelShape shape_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::Function* fn_ = nullptr;
  llvm::Value* out_values_ = nullptr;
  llvm::Value* out_valid_ = nullptr;
  std::vector<Input> inputs_;  // referenced columns only
  std::map<unsigned, Acc> acc_;
  llvm::Value* row_valid_ = nullptr;       // this lane: every input non-null (nullptr: always)
  llvm::Value* row_valid_word_ = nullptr;  // this word's AND of input validity
  llvm::Value* call_fail_ = nullptr;       // the call being lowered failed in this lane (i1)
  const ir::Expr* wide_call_ = nullptr;    // the call whose exact widened value a fold sums
  std::unique_ptr<llvm::MDBuilder> mdb_;
  llvm::MDNode* domain_ = nullptr;
  std::vector<llvm::MDNode*> scopes_;
  llvm::MDNode* out_values_scope_ = nullptr;
  llvm::MDNode* out_valid_scope_ = nullptr;
};

}  // namespace rowjit::jit::internal
