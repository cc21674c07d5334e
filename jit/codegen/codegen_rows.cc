// Row kernels (jit layer, codegen room): one fused loop for a bound expression, specialized per
// input shape, type and nullability. Over 64-row words (KernelLoop::kWords) validity and bool words
// are loaded once per word and every lane tests a bit of a loop-invariant word; where no lane needs
// a bit (KernelLoop::kRows) one flat loop runs over every row of the call.
#include <algorithm>
#include <cassert>

#include "ir/projection.h"
#include "ir/temporal.h"
#include "jit/base/target.h"
#include "jit/codegen/costly.h"
#include "jit/codegen/kernel_builder_internal.h"
#include "jit/codegen/prefilter.h"

namespace rowjit::jit::internal {

bool ReadsZoneTablesAnywhere(const ir::Expr& e);
bool AllNarrow(const ir::Expr& e);
void AskVectorWidth(llvm::BasicBlock* latch, int width);
bool HasTemporal(const ir::Expr& e);

// Whether every value the expression computes is a plain integer or a bool (a comparison may read
// plain floats as they are) — no float arithmetic, no logical type, no string.
bool IntegerValues(const ir::Expr& e) {
  const DataType t = e.type();
  if (t.is_logical() || !(IsInteger(t.id) || t.id == TypeId::kBool)) return false;
  if (!e.is_call()) return true;
  for (const ir::ExprPtr& a : e.args()) {
    if (IntegerValues(*a)) continue;
    if (t.id == TypeId::kBool && !a->is_call() && IsFloat(a->type().id) && !a->type().is_logical()) continue;
    return false;
  }
  return true;
}

// A row kernel that the host's integer-row width takes (TargetSpec::integer_rows_vector_width):
// integer values only, and more than a multiply of two inputs, which loses at 512 bits where a
// chain of integer operations and a comparison gain (bench: `single/i32_mul/jit` against
// `ordinary/i32_mul_add/jit_prepared` and `single/{i32,f64}_lt/jit` at both widths).
bool IntegerRowKernel(const ir::Expr& e) {
  if (ir::IsProjection(e) || !IntegerValues(e)) return false;
  const bool lone_multiply = e.is_call() && e.function()->name.find("mul") != std::string_view::npos &&
                             std::none_of(e.args().begin(), e.args().end(), [](const ir::ExprPtr& a) { return a->is_call(); });
  return !lone_multiply;
}

// Whether a flat input the expression reads holds 16-byte rows.
bool ReadsWideRows(const ir::SpecializationKey& key) {
  for (int c : key.expr->facts().columns) {
    const ir::InputSpec& in = key.inputs[static_cast<size_t>(c)];
    if (in.shape == ir::InputShape::kFlat && in.type == TypeId::kI128) return true;
  }
  return false;
}

Status KernelBuilder::Build(const std::string& name) {
  assert(!shape_.fold && "fold kernels are built by BuildFold");
  BeginFunction(name);
  ROWJIT_RETURN_NOT_OK(SetUpInputs(fn_->getArg(0)));
  SetUpOutputs();
  llvm::Value* words = fn_->getArg(3);
  if (IntegerRowKernel(*key_.expr)) fn_->addFnAttr(kIntegerRowsAttribute);
  if (shape_.short_batch) {
    assert(shape_.loop == KernelLoop::kRows && "short batches are dense row loops");
    ROWJIT_RETURN_NOT_OK(EmitShortBatch(fn_->getArg(4)));
  } else if (shape_.loop == KernelLoop::kRows) {
    // A row loop over 16-byte rows (decimals as DuckDB exports them) or through the calendar,
    // called on a host's vectors, prefetches its inputs 1,024 rows ahead: past the end of one
    // call's rows into the next call's, which the hardware prefetchers, restarted at every call,
    // leave to fetch on demand (bench: `duckdb/{decimal_add,day_date}/jit_chunks2048`); the
    // calendar's thirty instructions a vector hide the prefetches' cost in cache
    // (`temporal/day_date32/jit`). A kernel that streams its output runs on whole batches, where
    // the hardware prefetchers keep up.
    if (!shape_.stream_output && (ReadsWideRows(key_) || HasTemporal(*key_.expr))) fn_->addFnAttr(kPrefetchRowsAttribute, "1024");
    ROWJIT_RETURN_NOT_OK(EmitRowLoop(words));
  } else {
    ROWJIT_RETURN_NOT_OK(EmitWordLoop(words));
  }
  return FinishKernel();
}

// The kernel's outputs: the expression's one, or each output of a projection
// (ir/projection.h), whose value and validity pointers arrive as arrays of pointers (kernel_abi.h).
void KernelBuilder::SetUpOutputs() {
  outputs_.clear();
  if (!ir::IsProjection(*key_.expr)) {
    outputs_.push_back({key_.expr.get(), out_values_, out_valid_});
    return;
  }
  const auto& exprs = key_.expr->args();
  for (size_t k = 0; k < exprs.size(); ++k) {
    auto pointer = [&](llvm::Value* array) -> llvm::Value* {
      return b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), array, k));
    };
    outputs_.push_back({exprs[k].get(), pointer(out_values_), shape_.writes_validity ? pointer(out_valid_) : nullptr});
  }
}

// Stores one row's value: bits are collected by the word loop, other values stored by row (bool
// results a byte a row in a row loop).
void KernelBuilder::StoreRowValue(const Output& o, const Val& v, llvm::Value* row, bool bool_as_byte,
                                  llvm::Value* word, llvm::Value* lane) {
  llvm::Value* x = v.v;
  llvm::Type* ty = Ty(o.expr->type().id);
  if (o.expr->type().id == TypeId::kI128) {  // decimal128: its halves, low first
    // In bounds and without wrap, so that the vectorizer needs no pointer-wrap check.
    llvm::Type* pair = llvm::ArrayType::get(b.getInt64Ty(), 2);
    llvm::Value* base = o.values;
    if (word != nullptr) {
      base = b.CreateInBoundsGEP(pair, o.values, b.CreateShl(word, 6, "", true, true));
      row = lane;
    }
    for (int h = 0; h < 2; ++h) {
      llvm::Value* at = b.CreateInBoundsGEP(pair, base, {row, b.getInt32(static_cast<uint32_t>(h))});
      Scoped(b.CreateStore(h == 0 ? v.v : v.high, at), out_values_scope_);
    }
    return;
  }
  if (bool_as_byte) {
    x = b.CreateZExt(x, b.getInt8Ty());
    ty = b.getInt8Ty();
  }
  Scoped(b.CreateStore(x, b.CreateGEP(ty, o.values, row)), out_values_scope_);
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
// (its outputs stay zero). On x86 a bool result is stored a byte a lane into 64 bytes of the
// stack and packed after the lanes (PackLaneBytes), unless the kernel writes validity; elsewhere,
// and for validity, each lane's bit is ORed into place: beside validity bits the bytes run and
// compile slower (`coalesce(a < b, c)`, `a < b or a > 5` over nullable i32 at 1M rows, as
// `rowjit eval` times them).
Status KernelBuilder::EmitWord(llvm::Value* w) {
  assert(shape_.loop == KernelLoop::kWords && "a word of lanes in a kernel planned as a row loop");
  if (shape_.length_prefilter) return EmitPrefilteredWord(w);
  LoadWordState(w);
  llvm::Value* guard = nullptr;
  if (shape_.skip_empty_words && row_valid_word_ != nullptr) {
    guard = b.CreateICmpNE(row_valid_word_, b.getInt64(0));
  }
  std::vector<llvm::Value*> carried = EvidenceValues();
  const size_t bits_at = carried.size();
  for (size_t k = 0; k < outputs_.size(); ++k) {
    carried.push_back(b.getInt64(0));  // output k's result bits
    carried.push_back(b.getInt64(0));  // its validity bits
  }
  const std::vector<llvm::Value*> row_valid_words = OutputRowValidWords();
  const bool x86 = llvm::Triple(m_.getTargetTriple()).isX86();
  const bool packs = x86 && !shape_.writes_validity;  // bool results from lane bytes (PackLaneBytes)
  std::vector<llvm::Value*> lane_bytes(outputs_.size(), nullptr);
  for (size_t k = 0; k < outputs_.size(); ++k) {
    if (packs && outputs_[k].expr->type().id == TypeId::kBool) lane_bytes[k] = LaneBytes(*fn_);
  }
  LoopScaffold lanes = LoopScaffold::Open(b, "lanes", b.getInt64(0), carried, guard);
  std::vector<llvm::Value*> in = lanes.carried();
  SetEvidence(std::span(in).first(bits_at));
  llvm::Value* lane = lanes.index();
  llvm::Value* row = b.CreateAdd(b.CreateShl(w, 6, "", true, true), lane, "row", true, true);  // no wrap: rows fit i64
  std::vector<llvm::Value*> updated;
  for (size_t k = 0; k < outputs_.size(); ++k) {
    row_valid_ = nullptr;
    if (shape_.reads_lane_validity() && row_valid_words[k] != nullptr) row_valid_ = LaneBit(b, row_valid_words[k], lane);
    ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(*outputs_[k].expr, row, lane));
    llvm::Value* bits = in[bits_at + 2 * k];
    if (lane_bytes[k] != nullptr) {
      b.CreateStore(b.CreateZExt(v.v, b.getInt8Ty()), b.CreateInBoundsGEP(b.getInt8Ty(), lane_bytes[k], lane));
    } else if (outputs_[k].expr->type().id == TypeId::kBool) {
      bits = b.CreateOr(bits, b.CreateShl(b.CreateZExt(v.v, b.getInt64Ty()), lane));
    } else {
      StoreRowValue(outputs_[k], v, row, false, w, lane);
    }
    llvm::Value* valid = in[bits_at + 2 * k + 1];
    if (shape_.writes_validity) {
      llvm::Value* lane_valid = v.valid ? v.valid : b.getTrue();
      valid = b.CreateOr(valid, b.CreateShl(b.CreateZExt(lane_valid, b.getInt64Ty()), lane));
    }
    updated.push_back(bits);
    updated.push_back(valid);
  }
  const std::vector<llvm::Value*> evidence = EvidenceValues();
  updated.insert(updated.begin(), evidence.begin(), evidence.end());
  llvm::Value* next = b.CreateAdd(lane, b.getInt64(1));
  llvm::BasicBlock* latch = b.GetInsertBlock();
  const std::vector<llvm::Value*> out =
      lanes.Close(next, updated, b.CreateICmpULT(next, b.getInt64(64)), "word.done");
  AskLaneWidth(latch, x86, lane_bytes);
  SetEvidence(std::span(out).first(bits_at));
  for (size_t k = 0; k < outputs_.size(); ++k) {
    if (outputs_[k].expr->type().id == TypeId::kBool) {
      llvm::Value* bits = lane_bytes[k] != nullptr ? PackLaneBytes(lane_bytes[k], guard) : out[bits_at + 2 * k];
      Scoped(b.CreateStore(bits, b.CreateGEP(b.getInt64Ty(), outputs_[k].values, w)), out_values_scope_);
    }
    if (shape_.writes_validity) {
      Scoped(b.CreateStore(out[bits_at + 2 * k + 1], b.CreateGEP(b.getInt64Ty(), outputs_[k].valid, w)),
             out_valid_scope_);
    }
  }
  return Status::OK();
}

// 64 bytes in the entry block's frame for one word's bool results, a byte a lane.
llvm::Value* KernelBuilder::LaneBytes(llvm::Function& fn) {
  llvm::IRBuilder<> entry(&fn.getEntryBlock(), fn.getEntryBlock().begin());
  return entry.CreateAlloca(llvm::ArrayType::get(entry.getInt8Ty(), 64), nullptr, "lane.bytes");
}

// The word of bits of a word's 64 lane bytes (nonzero: set), or 0 where `guard` skipped the lanes.
// Once the vectorizer has unrolled the lanes, SROA drops the bytes and the lanes' compare masks
// are joined directly: kunpck on AVX-512, packs and pmovmskb on AVX2. An OR of each lane's bit
// shifted into place vectorizes in 64-bit lanes instead, four or eight to a vector: about 100
// instructions a word for `(a < b) and c` over i32 at x86-64-v4, where `a < b` from lane bytes is
// 24 (eight loads, eight compares, seven kunpck, one kmovq store; `rowjit ir --stage asm`).
llvm::Value* KernelBuilder::PackLaneBytes(llvm::Value* lane_bytes, llvm::Value* guard) {
  auto* bytes_ty = llvm::FixedVectorType::get(b.getInt8Ty(), 64);
  llvm::Value* bytes = b.CreateAlignedLoad(bytes_ty, lane_bytes, llvm::Align(1));  // the array's alignment
  llvm::Value* bits = b.CreateBitCast(b.CreateICmpNE(bytes, llvm::Constant::getNullValue(bytes_ty)), b.getInt64Ty());
  return guard != nullptr ? b.CreateSelect(guard, bits, b.getInt64(0)) : bits;
}

// A zone's table lookups are loads the cost model prices as scalar on x86 without fast gathers:
// asked, the lane loop vectorizes around them as the row loop does. A word whose bool results
// are packed from lane bytes is asked for all 64 lanes in one vector iteration, so that every
// lane's byte is a lane of one compare's mask (at the cost model's own width the bytes of two or
// four iterations are shuffled together before the pack; bench: `single/i32_lt/jit`); narrow
// values only, since a 64-bit value of 64 lanes takes eight AVX-512 registers.
void KernelBuilder::AskLaneWidth(llvm::BasicBlock* latch, bool x86, std::span<llvm::Value* const> lane_bytes) {
  if (!x86) return;
  const bool packs = std::any_of(lane_bytes.begin(), lane_bytes.end(), [](llvm::Value* v) { return v != nullptr; });
  if (ReadsZoneTablesAnywhere(*key_.expr)) {
    AskVectorWidth(latch, 16);
  } else if (packs && AllNarrow(*key_.expr)) {
    AskVectorWidth(latch, 64);
  }
}

// A prefiltered word (KernelShape::length_prefilter): the lanes whose lengths pass, from a
// vectorized lane loop over the offsets, then the whole expression for each of them in a loop
// over the set bits. Lanes that fail the test are false, as the expression is there.
Status KernelBuilder::EmitPrefilteredWord(llvm::Value* w) {
  assert(outputs_.size() == 1 && evidence_.empty() && !shape_.writes_validity && "a dense bool kernel");
  LoadWordState(w);
  row_valid_ = nullptr;
  const ir::Expr& e = *outputs_[0].expr;
  llvm::Type* i64 = b.getInt64Ty();
  LoopScaffold lanes = LoopScaffold::Open(b, "lanes", b.getInt64(0), std::vector<llvm::Value*>{b.getInt64(0)});
  llvm::Value* lane = lanes.index();
  ROWJIT_ASSIGN_OR_RETURN(llvm::Value* pass, EmitLengthPrefilter(e, b.CreateAdd(b.CreateShl(w, 6), lane), lane));
  if (pass == nullptr) return MakeError(ErrorCode::kInternal, "{} has no length prefilter", e.ToString());
  llvm::Value* bits = b.CreateOr(lanes.carried()[0], b.CreateShl(b.CreateZExt(pass, i64), lane));
  llvm::Value* next = b.CreateAdd(lane, b.getInt64(1));
  llvm::Value* candidates =
      lanes.Close(next, std::vector<llvm::Value*>{bits}, b.CreateICmpULT(next, b.getInt64(64)), "candidates")[0];
  // The remaining candidates are the loop's index, tested at the head.
  LoopScaffold matches = LoopScaffold::Open(b, "matches", candidates, std::vector<llvm::Value*>{b.getInt64(0)});
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "match", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "word.done", fn_);
  llvm::Value* rest = matches.index();
  b.CreateCondBr(b.CreateICmpNE(rest, b.getInt64(0)), body, done);
  b.SetInsertPoint(body);
  llvm::Value* at = b.CreateIntrinsic(llvm::Intrinsic::cttz, {i64}, {rest, b.getTrue()});
  ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(e, b.CreateAdd(b.CreateShl(w, 6), at), at));
  llvm::Value* result = b.CreateOr(matches.carried()[0], b.CreateShl(b.CreateZExt(v.v, i64), at));
  const std::vector<llvm::Value*> at_head =
      matches.Close(b.CreateAnd(rest, b.CreateSub(rest, b.getInt64(1))), std::vector<llvm::Value*>{result}, nullptr);
  b.SetInsertPoint(done);
  Scoped(b.CreateStore(at_head[0], b.CreateGEP(i64, outputs_[0].values, w)), out_values_scope_);
  return Status::OK();
}

// The length prefilter of `e` in this lane (jit/codegen/prefilter.h), or nullptr where it has none.
Result<llvm::Value*> KernelBuilder::EmitLengthPrefilter(const ir::Expr& e, llvm::Value* row, llvm::Value* lane) {
  if (std::optional<LengthTest> t = EqualityLengthTest(e)) {
    ROWJIT_ASSIGN_OR_RETURN(Val s, EmitNode(*t->column, row, lane));
    return b.CreateICmpEQ(b.CreateExtractValue(s.v, 1), b.getInt64(t->length));
  }
  if (std::optional<LengthSet> set = InListLengths(e)) {
    ROWJIT_ASSIGN_OR_RETURN(Val s, EmitNode(*set->column, row, lane));
    llvm::Value* len = b.CreateExtractValue(s.v, 1);
    llvm::Value* any = b.getFalse();
    for (int64_t n : set->lengths) any = b.CreateOr(any, b.CreateICmpEQ(len, b.getInt64(n)));
    return any;
  }
  const ir::Guard connective = e.is_call() ? e.function()->guard : ir::Guard::kNone;
  if (e.args().size() != 2 || (connective != ir::Guard::kAnd && connective != ir::Guard::kOr)) return nullptr;
  ROWJIT_ASSIGN_OR_RETURN(llvm::Value* x, EmitLengthPrefilter(*e.args()[0], row, lane));
  ROWJIT_ASSIGN_OR_RETURN(llvm::Value* y, EmitLengthPrefilter(*e.args()[1], row, lane));
  if (connective == ir::Guard::kAnd) return x == nullptr ? y : y == nullptr ? x : b.CreateAnd(x, y);
  return x == nullptr || y == nullptr ? nullptr : b.CreateOr(x, y);
}

// Per output, the word's AND of the validity of the inputs it reads (the rows whose errors it
// raises); the whole kernel's AND for a single output.
std::vector<llvm::Value*> KernelBuilder::OutputRowValidWords() {
  if (outputs_.size() == 1) return {row_valid_word_};
  std::vector<llvm::Value*> words;
  for (const Output& o : outputs_) {
    llvm::Value* word = nullptr;
    for (const Input& in : inputs_) {
      const std::vector<int>& cols = o.expr->facts().columns;
      if (!std::binary_search(cols.begin(), cols.end(), in.column)) continue;
      if (in.spec.shape == ir::InputShape::kNullConstant && shape_.reads_lane_validity()) word = b.getInt64(0);
      if (in.valid_word != nullptr) word = word ? b.CreateAnd(word, in.valid_word) : in.valid_word;
    }
    words.push_back(word);
  }
  return words;
}

namespace {

// Rows a rechecking row loop takes per block: a block with a suspect row is rerun exactly, so
// a rare wide operand costs one block, not the call.
constexpr int64_t kRecheckBlock = 1024;

}  // namespace

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
  llvm::Value* any = b.CreateICmpSGT(words, b.getInt64(0));
  // The checked multiplies whose exact evidence costs well over the wrapping multiply: a
  // speculative loop (the planner's choice) or blocks rechecked in the kernel.
  CostlyMuls muls;
  ScanCostlyMuls(*key_.expr, muls);
  if (shape_.speculative_mul && !evidence_.empty()) {
    assert(muls.rechecked.empty() && "the planner speculates only without rechecked multiplies");
    return EmitSpeculativeRowLoop(n, any);
  }
  // Rechecked multiplies when the kernel has evidence; trigonometric rows in a dense loop
  // (suspects are for loops that write no validity).
  std::set<unsigned> widths = evidence_.empty() ? std::set<unsigned>{} : muls.rechecked;
  if (muls.trig && !shape_.writes_validity && !shape_.mask_evidence) widths.insert(64);
  if (!widths.empty()) return EmitRecheckedRowLoop(n, any, widths);
  ROWJIT_ASSIGN_OR_RETURN(std::vector<llvm::Value*> ev, EmitRowRange(nullptr, n, true, any));
  SetEvidence(ev);
  return Status::OK();
}

bool ReadsZoneTablesAnywhere(const ir::Expr& e) {
  if (!e.is_call()) return false;
  if (ir::ReadsZoneTables(e)) return true;
  for (const ir::ExprPtr& a : e.args()) {
    if (ReadsZoneTablesAnywhere(*a)) return true;
  }
  return false;
}

// Whether every value of the expression, and every input it reads, is at most 32 bits wide.
bool AllNarrow(const ir::Expr& e) {
  const TypeId t = e.type().id;
  if (IsString(t) || BitWidth(t) > 32) return false;
  for (const ir::ExprPtr& a : e.args()) {
    if (!AllNarrow(*a)) return false;
  }
  return true;
}

// Whether the expression calls a temporal function, whose calendar runs in i32 lanes after a day
// split in i64 or double lanes (jit/codegen/lower/temporal.cc).
bool HasTemporal(const ir::Expr& e) {
  if (!e.is_call()) return false;
  if (e.function()->family == ir::Family::kTemporal) return true;
  for (const ir::ExprPtr& a : e.args()) {
    if (HasTemporal(*a)) return true;
  }
  return false;
}

// Asks the loop vectorizer for `width` lanes on the loop whose latch this is. Its cost model sizes
// a loop by its widest type: a temporal kernel's i64 day split would make it four lanes on AVX2,
// leaving the i32 calendar after it at half a vector. Sixteen lanes (the i64 part in four
// registers, the i32 part in two) keep the calendar in full vectors (bench, on an AVX2 host:
// `temporal/{year,date_trunc_month}/jit`). x86 only: NEON keeps these loops scalar anyway (no
// 64-bit lane multiply) and a forced width there only adds code.
void AskVectorWidth(llvm::BasicBlock* latch, int width) { AskLoopHint(latch, "llvm.loop.vectorize.width", width); }

void AskLoopHint(llvm::BasicBlock* latch, const char* name, int value) {
  llvm::LLVMContext& ctx = latch->getContext();
  llvm::Metadata* hint[] = {llvm::MDString::get(ctx, name),
                            llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
  llvm::Metadata* ops[] = {nullptr, llvm::MDNode::get(ctx, hint)};
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  latch->getTerminator()->setMetadata(llvm::LLVMContext::MD_loop, id);
}

// A short batch's kernel (KernelShape::short_batch): its `rows` rows (fewer than 64) in place, in
// one loop that the vectorizer folds its tail into (masked loads, stores and reductions where the
// target has them: AVX-512, SVE; a scalar loop elsewhere), so that a short batch costs about one
// vector word and no padded copies of its inputs. The loop carries kShortBatchLoop.
Status KernelBuilder::EmitShortBatch(llvm::Value* rows) {
  ROWJIT_ASSIGN_OR_RETURN(std::vector<llvm::Value*> ev,
                          EmitRowRange(nullptr, rows, true, b.CreateICmpSGT(rows, b.getInt64(0)), /*short_batch=*/true));
  SetEvidence(ev);
  return Status::OK();
}

// Marks the loop whose latch this is as a short batch's loop (EmitShortBatch): vectorized with its
// tail folded into masks, one vector at a time (no interleave, no unroll: it runs fewer than 64
// rows).
void AskTailFolding(llvm::BasicBlock* latch) {
  llvm::LLVMContext& ctx = latch->getContext();
  auto flag = [&](const char* name, llvm::Metadata* value) -> llvm::Metadata* {
    if (value == nullptr) return llvm::MDNode::get(ctx, llvm::MDString::get(ctx, name));
    llvm::Metadata* ops[] = {llvm::MDString::get(ctx, name), value};
    return llvm::MDNode::get(ctx, ops);
  };
  llvm::Metadata* ops[] = {
      nullptr,
      flag("llvm.loop.vectorize.enable", llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(ctx))),
      flag("llvm.loop.vectorize.predicate.enable", llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(ctx))),
      flag("llvm.loop.interleave.count", llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))),
      flag("llvm.loop.unroll.disable", nullptr),
      flag(kShortBatchLoop, nullptr)};
  llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  latch->getTerminator()->setMetadata(llvm::LLVMContext::MD_loop, id);
}

// Rows [start, start + count) in one loop (`start` nullptr: 0), tested at its latch (`guard`,
// when given, at its entry): the expression's values stored when `store`, its evidence
// accumulated (and its suspects, while a rechecking loop's fast pass collects them). The loop
// counts from 0 to `count`, so that the vectorizer sees the trip count as `count` itself (a
// multiple of 64 in every vectorized caller). Returns the evidence after the loop.
Result<std::vector<llvm::Value*>> KernelBuilder::EmitRowRange(llvm::Value* start, llvm::Value* count, bool store,
                                                              llvm::Value* guard, bool short_batch) {
  std::vector<llvm::Value*> carried = EvidenceValues();
  for (const auto& [width, value] : suspects_) carried.push_back(value);
  LoopScaffold rows = LoopScaffold::Open(b, "rows", b.getInt64(0), carried, guard);
  std::vector<llvm::Value*> in = rows.carried();
  SetEvidence(std::span(in).first(evidence_.size()));
  SetSuspects(std::span(in).subspan(evidence_.size()));
  llvm::Value* i = rows.index();
  llvm::Value* row = start == nullptr ? i : b.CreateAdd(start, i, "row", /*HasNUW=*/true, /*HasNSW=*/true);
  row_valid_ = nullptr;
  for (const Output& o : outputs_) {
    ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(*o.expr, row, nullptr));
    if (store) StoreRowValue(o, v, row, o.expr->type().id == TypeId::kBool);
  }
  std::vector<llvm::Value*> updated = EvidenceValues();
  for (const auto& [width, value] : suspects_) updated.push_back(value);
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::BasicBlock* latch = b.GetInsertBlock();
  std::vector<llvm::Value*> out = rows.Close(next, updated, b.CreateICmpULT(next, count), "rows.done");
  if (short_batch) {
    AskTailFolding(latch);
  } else if (HasTemporal(*key_.expr) && llvm::Triple(b.GetInsertBlock()->getModule()->getTargetTriple()).isX86()) {
    AskVectorWidth(latch, 16);
  }
  SetSuspects(std::span(out).subspan(evidence_.size()));
  out.resize(evidence_.size());
  return out;
}

// The row loop of an expression with a costly checked multiply (RecheckedMulWidths), in blocks
// of kRecheckBlock rows: a fast pass stores the values (the same wrapped product either way)
// with every other call's exact evidence and the multiplies' operand-range suspects, one OR
// accumulator a width whose high half is nonzero when a row may fail; a block with a suspect row
// is run again exactly, and so is every later block of the call without a fast pass first
// (operands that are wide once tend to stay wide). Moderate operands never pay the exact form;
// wide ones pay it plus one fast block a call.
Status KernelBuilder::EmitRecheckedRowLoop(llvm::Value* n, llvm::Value* any, const std::set<unsigned>& widths) {
  std::vector<llvm::Value*> carried = EvidenceValues();
  carried.push_back(b.getFalse());  // exact: a block of this call was suspect
  LoopScaffold blocks = LoopScaffold::Open(b, "blocks", b.getInt64(0), carried, any);
  std::vector<llvm::Value*> in = blocks.carried();
  llvm::Value* exact_mode = in.back();
  in.pop_back();
  llvm::Value* start = blocks.index();
  // The block's rows as 64 times a word count of at least one (n and start are multiples of 64):
  // the vectorizer then proves a trip count of at least 64 and a multiple of every vector step,
  // and emits no remainder, epilogue or minimum-count check for either pass.
  llvm::Value* words_left = b.CreateLShr(b.CreateSub(n, start), 6);
  llvm::Value* words = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, words_left, b.getInt64(kRecheckBlock / 64));
  words = b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, words, b.getInt64(1));
  llvm::Value* count = b.CreateShl(words, 6, "block.rows", /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::BasicBlock* entry = b.GetInsertBlock();
  llvm::BasicBlock* fast_pass = llvm::BasicBlock::Create(ctx_, "fast", fn_);
  llvm::BasicBlock* exact_pass = llvm::BasicBlock::Create(ctx_, "exact", fn_);
  llvm::BasicBlock* joined = llvm::BasicBlock::Create(ctx_, "block.done", fn_);
  b.CreateCondBr(exact_mode, exact_pass, fast_pass);

  b.SetInsertPoint(fast_pass);
  SetEvidence(in);
  for (unsigned w : widths) suspects_[w] = b.getIntN(w, 0);
  ROWJIT_ASSIGN_OR_RETURN(std::vector<llvm::Value*> fast, EmitRowRange(start, count, true, nullptr));
  llvm::Value* suspect = b.getFalse();
  for (const auto& [width, value] : suspects_) {
    suspect = b.CreateOr(suspect, b.CreateICmpUGE(value, b.getIntN(width, uint64_t{1} << (width / 2))));
  }
  suspects_.clear();
  llvm::BasicBlock* after_fast = b.GetInsertBlock();
  b.CreateCondBr(suspect, exact_pass, joined);

  b.SetInsertPoint(exact_pass);
  SetEvidence(JoinPaths(b, in, entry, fast, after_fast));
  ROWJIT_ASSIGN_OR_RETURN(std::vector<llvm::Value*> exact, EmitRowRange(start, count, true, nullptr));
  llvm::BasicBlock* after_exact = b.GetInsertBlock();
  b.CreateBr(joined);

  b.SetInsertPoint(joined);
  fast.push_back(b.getFalse());
  exact.push_back(b.getTrue());
  const std::vector<llvm::Value*> merged = JoinPaths(b, fast, after_fast, exact, after_exact);
  llvm::Value* next = b.CreateAdd(start, b.getInt64(kRecheckBlock), "", /*HasNUW=*/true, /*HasNSW=*/true);
  std::vector<llvm::Value*> out = blocks.Close(next, merged, b.CreateICmpULT(next, n), "blocks.done");
  out.pop_back();
  SetEvidence(out);
  return Status::OK();
}

// The row loop of a speculative kernel (KernelShape::speculative_mul): one pass, its checked
// 32-bit multiplies wrapped and their operands ORed into one suspect accumulator, whose high half
// becomes evidence after the loop. A batch with a wide operand thus reports evidence whether or
// not a row fails, and the executor reruns it through the exact twin.
Status KernelBuilder::EmitSpeculativeRowLoop(llvm::Value* n, llvm::Value* any) {
  suspects_[32] = b.getInt32(0);
  ROWJIT_ASSIGN_OR_RETURN(std::vector<llvm::Value*> ev, EmitRowRange(nullptr, n, true, any));
  SetEvidence(ev);
  llvm::Value* wide = b.CreateICmpUGE(suspects_[32], b.getInt32(1u << 16), "wide.operands");
  suspects_.clear();
  // Into any evidence accumulator (the kernel returns their OR): the 32-bit one the multiply's
  // own evidence would have used, when there is one.
  auto it = evidence_.find(32);
  if (it == evidence_.end()) it = evidence_.begin();
  it->second = b.CreateOr(it->second, b.CreateZExt(wide, it->second->getType()));
  return Status::OK();
}

}  // namespace rowjit::jit::internal
