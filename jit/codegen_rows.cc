// Row kernels (jit layer): one fused loop for a bound expression, specialized per input shape,
// type and nullability. Over 64-row words (KernelLoop::kWords) validity and bool words are loaded
// once per word and every lane tests a bit of a loop-invariant word; where no lane needs a bit
// (KernelLoop::kRows) one flat loop runs over every row of the call.
#include <cassert>

#include "jit/kernel_builder_internal.h"

namespace rowjit::jit::internal {

Status KernelBuilder::Build(const std::string& name) {
  assert(!shape_.fold && "fold kernels are built by BuildFold");
  BeginFunction(name);
  ROWJIT_RETURN_NOT_OK(SetUpInputs(fn_->getArg(0)));
  llvm::Value* words = fn_->getArg(3);
  if (shape_.loop == KernelLoop::kRows) {
    ROWJIT_RETURN_NOT_OK(EmitRowLoop(words));
  } else {
    ROWJIT_RETURN_NOT_OK(EmitWordLoop(words));
  }
  return FinishKernel();
}

// Stores one row's value: bits are collected by the word loop, other values stored by row (bool
// results a byte a row in a row loop).
void KernelBuilder::StoreRowValue(const Val& root, llvm::Value* row, bool bool_as_byte) {
  llvm::Value* v = root.v;
  llvm::Type* ty = Ty(key_.expr->type().id);
  if (bool_as_byte) {
    v = b.CreateZExt(v, b.getInt8Ty());
    ty = b.getInt8Ty();
  }
  Scoped(b.CreateStore(v, b.CreateGEP(ty, out_values_, row)), out_values_scope_);
}

// Whole words only, tested at the head: the executor runs a last partial word through padded
// scratch inputs.
Status KernelBuilder::EmitWordLoop(llvm::Value* words) {
  LoopScaffold loop = LoopScaffold::Open(b, "words", b.getInt64(0), EvidenceValues());
  SetEvidence(loop.carried());
  llvm::BasicBlock* word = llvm::BasicBlock::Create(ctx_, "word", fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b.CreateCondBr(b.CreateICmpSLT(loop.index(), words), word, exit);
  b.SetInsertPoint(word);
  ROWJIT_RETURN_NOT_OK(EmitWord(loop.index()));
  const std::vector<llvm::Value*> at_head =
      loop.Close(b.CreateAdd(loop.index(), b.getInt64(1)), EvidenceValues(), nullptr);
  b.SetInsertPoint(exit);
  SetEvidence(at_head);
  return Status::OK();
}

// One word: its 64 lanes starting at row 64 * w. Bool results and validity are collected into
// one word each and stored after the lanes; branch-and-skip kernels skip a word with no valid row
// (its outputs stay zero).
Status KernelBuilder::EmitWord(llvm::Value* w) {
  assert(shape_.loop == KernelLoop::kWords && "a word of lanes in a kernel planned as a row loop");
  LoadWordState(w);
  llvm::Value* guard = nullptr;
  if (shape_.skip_empty_words && row_valid_word_ != nullptr) {
    guard = b.CreateICmpNE(row_valid_word_, b.getInt64(0));
  }
  std::vector<llvm::Value*> carried = EvidenceValues();
  const size_t bits_at = carried.size();
  carried.push_back(b.getInt64(0));  // the word's result bits
  carried.push_back(b.getInt64(0));  // the word's validity bits
  LoopScaffold lanes = LoopScaffold::Open(b, "lanes", b.getInt64(0), carried, guard);
  std::vector<llvm::Value*> in = lanes.carried();
  SetEvidence(std::span(in).first(bits_at));
  llvm::Value* lane = lanes.index();
  llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6), lane, "row");
  row_valid_ = nullptr;
  if (shape_.reads_lane_validity() && row_valid_word_ != nullptr) row_valid_ = LaneBit(b, row_valid_word_, lane);

  ROWJIT_ASSIGN_OR_RETURN(Val root, EmitNode(*key_.expr, row, lane));
  const bool bool_result = key_.expr->type().id == TypeId::kBool;
  llvm::Value* bits = in[bits_at];
  if (bool_result) {
    bits = b.CreateOr(bits, b.CreateShl(b.CreateZExt(root.v, b.getInt64Ty()), lane));
  } else {
    StoreRowValue(root, row, false);
  }
  llvm::Value* valid = in[bits_at + 1];
  if (shape_.writes_validity) {
    llvm::Value* lane_valid = root.valid ? root.valid : b.getTrue();
    valid = b.CreateOr(valid, b.CreateShl(b.CreateZExt(lane_valid, b.getInt64Ty()), lane));
  }
  std::vector<llvm::Value*> updated = EvidenceValues();
  updated.push_back(bits);
  updated.push_back(valid);
  llvm::Value* next = b.CreateAdd(lane, b.getInt64(1));
  const std::vector<llvm::Value*> out =
      lanes.Close(next, updated, b.CreateICmpULT(next, b.getInt64(64)), "word.done");
  SetEvidence(std::span(out).first(bits_at));
  if (bool_result) {
    Scoped(b.CreateStore(out[bits_at], b.CreateGEP(b.getInt64Ty(), out_values_, w)), out_values_scope_);
  }
  if (shape_.writes_validity) {
    Scoped(b.CreateStore(out[bits_at + 1], b.CreateGEP(b.getInt64Ty(), out_valid_, w)), out_valid_scope_);
  }
  return Status::OK();
}

// One flat loop over the 64 * words rows of the call, entered when there is a row.
Status KernelBuilder::EmitRowLoop(llvm::Value* words) {
  assert(!shape_.reads_lane_validity() && "a row loop has no validity words to read lanes of");
  // 64 * words rows, written max(64, 64 * max(words, 1)) (the loop is entered only when words >
  // 0, and batches are far too small for the product to wrap): the same number, in a form from
  // which the vectorizer proves a trip count of at least 64 and a multiple of every vector step,
  // so that it emits neither a minimum-count check with a scalar fallback loop nor a remainder.
  llvm::Value* at_least_one = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, words, b.getInt64(1));
  llvm::Value* product = b.CreateShl(at_least_one, 6, "", /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::Value* n = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, product, b.getInt64(64), nullptr, "rows.count");
  LoopScaffold rows = LoopScaffold::Open(b, "rows", b.getInt64(0), EvidenceValues(),
                                         b.CreateICmpSGT(words, b.getInt64(0)));
  SetEvidence(rows.carried());
  llvm::Value* row = rows.index();
  row_valid_ = nullptr;
  ROWJIT_ASSIGN_OR_RETURN(Val root, EmitNode(*key_.expr, row, nullptr));
  StoreRowValue(root, row, key_.expr->type().id == TypeId::kBool);
  llvm::Value* next = b.CreateAdd(row, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  SetEvidence(rows.Close(next, EvidenceValues(), b.CreateICmpULT(next, n), "rows.done"));
  return Status::OK();
}

}  // namespace rowjit::jit::internal
