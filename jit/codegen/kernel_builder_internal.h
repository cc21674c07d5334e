// The kernel builder shared by row kernels (jit/codegen/codegen_rows.cc) and fold kernels
// (jit/codegen/codegen_fold.cc), and the loop scaffold every kernel loop is built from (jit layer,
// codegen room, internal).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "ir/analysis.h"
#include "ir/function.h"
#include "jit/codegen/codegen_internal.h"

namespace rowjit::jit::internal {

constexpr unsigned kInputValues = 0, kInputCodes = 1, kInputValid = 2, kInputScalar = 3;

llvm::Value* LaneBit(llvm::IRBuilder<>& b, llvm::Value* word, llvm::Value* lane);

// Sets the loop hint `name` ("llvm.loop.interleave.count", ...) to `value` on the loop whose latch
// this is, as its only hint.
void AskLoopHint(llvm::BasicBlock* latch, const char* name, int value);

// Phis in the current block joining two paths: value i is `a[i]` from block `from_a`, `b[i]`
// from `from_b`.
std::vector<llvm::Value*> JoinPaths(llvm::IRBuilder<>& b, std::span<llvm::Value* const> a, llvm::BasicBlock* from_a,
                                    std::span<llvm::Value* const> other, llvm::BasicBlock* from_other);

// A loop that carries values around its back edge in phis. Every loop of a kernel is one:
//   Open:   the current block branches to a new `head` block holding the index and carried phis;
//           the caller emits the body (and, for a loop tested at its head, the test);
//   Close:  from the current block (the latch) the phis get their next values, and the latch
//           branches back to `head` while `again` holds (unconditionally when `again` is null:
//           a loop tested at its head). A loop tested at its latch leaves through `exit`, whose
//           phis (one incoming each) Close returns.
class LoopScaffold {
 public:
  // `guard`, when given, is tested before the first iteration: false goes straight to the exit
  // (whose phis then also take the initial values). Only loops tested at their latch take one.
  static LoopScaffold Open(llvm::IRBuilder<>& b, const char* name, llvm::Value* start,
                           std::span<llvm::Value* const> carried, llvm::Value* guard = nullptr);
  llvm::PHINode* index() const { return index_; }
  llvm::BasicBlock* head() const { return head_; }
  // The carried values as the body sees them (the head's phis).
  std::vector<llvm::Value*> carried() const { return {phis_.begin(), phis_.end()}; }
  // Closes the loop. With `again`: branches to a new exit block and returns the carried values
  // there. Without: branches back to the head and returns the head's phis (the values a test at
  // the head leaves with).
  std::vector<llvm::Value*> Close(llvm::Value* next_index, std::span<llvm::Value* const> updated,
                                  llvm::Value* again, const char* exit_name = "exit");

 private:
  explicit LoopScaffold(llvm::IRBuilder<>& b) : b_(&b) {}
  llvm::IRBuilder<>* b_;
  llvm::BasicBlock* pre_ = nullptr;
  llvm::BasicBlock* head_ = nullptr;
  llvm::BasicBlock* guard_exit_ = nullptr;  // the exit a guard branches to
  std::vector<llvm::Value*> initial_;
  llvm::PHINode* index_ = nullptr;
  std::vector<llvm::PHINode*> phis_;
};

// A fold's accumulators and layout (jit/codegen/codegen_fold.cc).
struct FoldAccs;
struct FoldLayout;

class KernelBuilder final : public LowerContext {
 public:
  KernelBuilder(const CacheKey& key, llvm::Module& m, llvm::IRBuilder<>& b, bool mask_registers)
      : LowerContext(b, *key.spec.expr),
        mask_registers_(mask_registers),
        key_(key.spec),
        shape_(key.shape),
        facts_(key.spec.expr->facts()),
        m_(m),
        ctx_(m.getContext()) {}

  // A row kernel (jit/codegen/codegen_rows.cc).
  Status Build(const std::string& name);
  // The fold kernel of a reduction template (jit/codegen/codegen_fold.cc).
  Status BuildFold(const std::string& name);
  // A grouped fold of a projection's arguments into slots (jit/codegen/codegen_grouped.cc).
  Status BuildGrouped(const std::string& name);

  void Evidence(llvm::Value* ev) override;
  void Suspect(llvm::Value* ev) override;

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
  static llvm::Value* Zero(llvm::Value* like) { return llvm::Constant::getNullValue(like->getType()); }
  // One output of a row kernel: the expression's, or one of a projection's.
  struct Output {
    const ir::Expr* expr;
    llvm::Value* values;  // pointer
    llvm::Value* valid;   // pointer to words (kernels that write validity)
  };

  // The evidence accumulators' current values, one per width (ascending), and setting them.
  std::vector<llvm::Value*> EvidenceValues() const;
  void SetEvidence(std::span<llvm::Value* const> values);
  void SetSuspects(std::span<llvm::Value* const> values);

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
  llvm::MDNode* NewScope(const char* what);
  llvm::Value* FromBits(llvm::Value* bits64, TypeId t);

  // --- shared by row and fold kernels (jit/codegen/kernel_builder.cc)
  llvm::Function* BeginFunction(const std::string& name);
  Status SetUpInputs(llvm::Value* inputs);
  void LoadWordState(llvm::Value* w);
  void LoadWordSearches(llvm::Value* w);
  void LoadWordCodePoints(llvm::Value* w, const ir::Expr& call, const ir::Expr& col);
  Val LoadLane(Input& in, llvm::Value* row, llvm::Value* lane);
  Val LoadHalves(Input& in, llvm::Value* row);
  Val LoadString(Input& in, llvm::Value* row);
  llvm::Value* MakeString(llvm::Value* ptr, llvm::Value* len);
  Result<Val> EmitNode(const ir::Expr& e, llvm::Value* row, llvm::Value* lane);
  Result<Val> EmitCall(const ir::Expr& e, llvm::Value* row, llvm::Value* lane);
  llvm::Value* TakenLanes(ir::Guard guard, size_t i, std::span<const Val> before);
  Status FinishKernel();

  // --- row kernels (jit/codegen/codegen_rows.cc)
  Status EmitWordLoop(llvm::Value* words);
  Status EmitWord(llvm::Value* w);
  static llvm::Value* LaneBytes(llvm::Function& fn);
  llvm::Value* PackLaneBytes(llvm::Value* lane_bytes, llvm::Value* guard);
  void AskLaneWidth(llvm::BasicBlock* latch, bool x86, std::span<llvm::Value* const> lane_bytes);
  Status EmitPrefilteredWord(llvm::Value* w);
  Result<llvm::Value*> EmitLengthPrefilter(const ir::Expr& e, llvm::Value* row, llvm::Value* lane);
  Status EmitRowLoop(llvm::Value* words);
  Status EmitRecheckedRowLoop(llvm::Value* n, llvm::Value* any, const std::set<unsigned>& widths);
  Status EmitSpeculativeRowLoop(llvm::Value* n, llvm::Value* any);
  Result<std::vector<llvm::Value*>> EmitRowRange(llvm::Value* start, llvm::Value* count, bool store,
                                                 llvm::Value* guard, bool short_batch = false);
  Status EmitShortBatch(llvm::Value* rows);
  void SetUpOutputs();
  std::vector<llvm::Value*> OutputRowValidWords();
  // `word`: in a word's lane loop, the word (row = word * 64 + lane), so that 16-byte rows are
  // addressed from the word's first row by the lane alone (no pointer-wrap check for the
  // vectorizer's stride-2 stores).
  void StoreRowValue(const Output& o, const Val& v, llvm::Value* row, bool bool_as_byte,
                     llvm::Value* word = nullptr, llvm::Value* lane = nullptr);

  // --- grouped folds (jit/codegen/codegen_grouped.cc)
  std::vector<llvm::Value*> Flags() const;
  void SetFlags(std::span<llvm::Value* const> values);
  struct GroupedLoop {
    LoopScaffold scaffold;
    std::vector<llvm::Value*> acc;  // the accumulators as the body sees them; the body updates them
    llvm::Value* i;                 // the loop's index
    llvm::Value* row;               // start + i
  };
  GroupedLoop OpenGroupedLoop(const char* name, std::vector<llvm::Value*> accumulators, llvm::Value* start,
                              llvm::Value* rows);
  std::vector<llvm::Value*> CloseGroupedLoop(GroupedLoop& loop, llvm::Value* rows, const char* exit);
  struct GroupCodes {
    llvm::Value* buffer;                     // a slot a row of the call, on the stack
    bool first;                              // the first loop computes the slots; later ones read them
    llvm::Value* rows;                       // the first loop: the rows' codes (more than one slot)
    std::span<llvm::Value* const> slots;     // the first loop: each slot's code
    bool store;                              // the first loop writes the slots to `buffer` (loops follow it)
  };
  // A row's slot, and (the first loop) whether the mask keeps it with no slot holding its code.
  Result<std::pair<llvm::Value*, llvm::Value*>> EmitGroupCode(const GroupCodes& codes, llvm::Value* i, llvm::Value* row);
  Status EmitGroupedSums(std::span<const size_t> ks, const GroupCodes& codes, llvm::Value* start, llvm::Value* rows,
                         llvm::Value* sums);

  // --- fold kernels (jit/codegen/codegen_fold.cc)
  std::vector<llvm::Value*> FoldCarried(const FoldAccs& accs) const;  // accumulators + evidence
  void SetFoldCarried(FoldAccs& accs, std::span<llvm::Value* const> values);
  Status FoldLane(FoldAccs& accs, const FoldLayout& layout, llvm::Value* row, llvm::Value* lane,
                  llvm::Value* fold_it, int acc_lane, llvm::Value* row_valid, llvm::Value* byte_mask);
  Status EmitRowFold(FoldAccs& accs, const FoldLayout& layout, llvm::Value* rows, llvm::Value* last_mask);
  Status EmitRowLoop(FoldAccs& accs, const FoldLayout& layout, llvm::Value* first, llvm::Value* n,
                     llvm::Value* mask);
  Status EmitWordFold(FoldAccs& accs, const FoldLayout& layout, llvm::Value* words,
                      llvm::Value* last_mask);
  Status EmitFoldHalf(FoldAccs& accs, const FoldLayout& layout, llvm::Value* w, llvm::Value* fold_word,
                      int h);
  bool FoldsColumnVectors(const FoldLayout& layout) const;
  Status EmitColumnVectorFold(FoldAccs& accs, const FoldLayout& layout, llvm::Value* words,
                              llvm::Value* last_mask);
  llvm::Value* EmitColumnWords(std::vector<FoldAccs>& sets, const FoldLayout& layout, llvm::Value* count,
                               llvm::Value* first, llvm::Value* end, llvm::Value* last_mask);
  llvm::Value* EmitColumnWordLoop(std::vector<FoldAccs>& sets, const FoldLayout& layout, llvm::Value* count,
                                  llvm::Value* first, llvm::Value* end, llvm::Value* last_mask, const Input* direct);
  const Input* OneValidityInput() const;
  void PrefetchWordValues(const Input& in, llvm::Value* w);
  void FoldGroup(FoldAccs& set, const FoldLayout& layout, llvm::Value* row, llvm::Value* m,
                 llvm::Value* fill = nullptr);
  llvm::Value* MinMaxFill(const FoldLayout& layout, llvm::Value* w, llvm::Value* word);
  struct ColumnWord;  // one word of EmitColumnWords (jit/codegen/codegen_fold.cc)
  std::vector<llvm::Value*> FoldWordGroups(ColumnWord& cw, bool full, llvm::Value* fill);
  std::vector<llvm::Value*> FoldPartialWord(ColumnWord& cw);
  template <typename Yes, typename No>
  std::vector<llvm::Value*> ChoosePath(llvm::Value* cond, Yes yes, No no);  // defined where used

  const bool mask_registers_;  // TargetSpec::mask_registers
  const ir::SpecializationKey& key_;
  const KernelShape shape_;
  const ir::ExprFacts& facts_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::Function* fn_ = nullptr;
  llvm::Value* out_values_ = nullptr;
  llvm::Value* out_valid_ = nullptr;
  std::vector<Input> inputs_;               // referenced columns only
  std::vector<Output> outputs_;             // row kernels: one, or a projection's
  std::map<unsigned, llvm::Value*> evidence_;  // width → this point's accumulated evidence
  bool stray_evidence_ = false;             // a lowering reported evidence the analysis did not
                                            // expect (an internal error, reported by Finish)
  llvm::Value* row_valid_ = nullptr;        // this lane: every input non-null (nullptr: always)
  llvm::Value* row_valid_word_ = nullptr;   // this word's AND of input validity
  // This word's rows holding each word search's needle (LoadWordSearches), by call.
  std::map<const ir::Expr*, llvm::Value*> word_searches_;
  // This word's code point counts of each char_length over a string column (LoadWordSearches):
  // 64 i64 on the stack, by call; a lane reads its row's.
  std::map<const ir::Expr*, llvm::Value*> word_code_points_;
  llvm::Value* call_valid_ = nullptr;       // the strict call being lowered: its arguments' validity
  llvm::Value* call_fail_ = nullptr;        // the call being lowered failed in this lane (i1)
  llvm::Value* guard_ = nullptr;            // lanes where the node being emitted is taken (i1;
                                            // nullptr: every lane), for guarded arguments
  const ir::Expr* wide_call_ = nullptr;     // the call whose exact widened value a fold sums
  std::map<unsigned, llvm::Value*> suspects_;  // a rechecking row loop's fast pass or a speculative
                                               // loop: its suspects' OR accumulators, by width
                                               // (empty elsewhere)
  std::unique_ptr<llvm::MDBuilder> mdb_;
  llvm::MDNode* domain_ = nullptr;
  std::vector<llvm::MDNode*> scopes_;
  llvm::MDNode* out_values_scope_ = nullptr;
  llvm::MDNode* out_valid_scope_ = nullptr;
};

}  // namespace rowjit::jit::internal
