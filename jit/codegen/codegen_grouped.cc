// Grouped folds (jit layer, codegen room): the aggregates of a query over a few group slots in
// one kernel, their arguments computed in registers and never stored (jit/base/kernel_abi.h,
// GroupedFoldFn). Each loop over the call's rows computes a few arguments and adds each into one
// accumulator per slot by a compare and a select. The first loop also computes the mask (WHERE)
// and each row's slot — the slot holding the row's code where the mask keeps it, else the slot
// count (no slot) — counts the slots' rows and the kept rows no slot holds, and, when loops
// follow, writes the slots to a stack buffer, a byte a row, which the later loops read. The
// slots' codes are the caller's (GroupedCodes), so that a batch's codes need no renumbering.
// Arguments that share a subexpression (Q1's price * (1 - discount), inside two of them) share a
// loop, which computes it once; a loop keeps at most
// LoopAccumulators accumulators live, which the vectorizer holds in vector registers (one loop for
// every argument would spill them: Q1's need 28 at 4 slots). The inputs of a call
// (kGroupedFoldRows rows) stay in L2 between the loops. One slot reads no codes at all.
//
// Costly checked multiplies (jit/codegen/costly.h: 64-bit products, decimal products with a 64-bit
// operand, 32-bit products) and trigonometric arguments take operand-range suspects, as a dense
// row loop's fast pass does, and a suspect is evidence: the executor folds such a call's block on
// the exact path, so the kernel needs no exact form of them (Q1's and Q6's decimal products: one
// multiply and a range test a row).
#include <algorithm>
#include <cstddef>
#include <string>

#include "jit/base/target.h"
#include "jit/codegen/costly.h"
#include "jit/codegen/kernel_builder_internal.h"

namespace rowjit::jit::internal {
namespace {

llvm::Value* SumsAt(llvm::IRBuilder<>& b, llvm::Value* sums, int64_t index) {
  return b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), sums, static_cast<uint64_t>(index));
}

// The argument's value as the 64 bits the fold adds: sign- or zero-extended, a 16-byte value's low
// half.
llvm::Value* Widen64(llvm::IRBuilder<>& b, const Val& v, TypeId t) {
  if (BitWidth(t) >= 64) return v.v;
  return IsUnsignedInt(t) ? b.CreateZExt(v.v, b.getInt64Ty()) : b.CreateSExt(v.v, b.getInt64Ty());
}

// How far ahead of its rows a grouped fold's loops prefetch their inputs (bench: `tpch/q6/jit_query`
// and `tpch/q1/jit` with other distances).
constexpr int64_t kGroupedPrefetchRows = 256;

// Accumulators a loop keeps live: half the vector registers of AVX-512 (32) or of AVX2 (16), the
// rest for the arguments' values and the slots' masks.
int LoopAccumulators(bool mask_registers) { return mask_registers ? 16 : 8; }

// The accumulators an argument takes: per slot, A, B where its type needs it, C where it can be
// null.
int Accumulators(const ir::Expr& arg, int slots) {
  return slots * (1 + GroupedNeedsHigh(arg.type()) + !arg.facts().StrictRows());
}

int LoopCost(const std::vector<ir::ExprPtr>& outputs, const std::vector<size_t>& ks, int slots) {
  int c = 0;
  for (size_t k : ks) c += Accumulators(*outputs[k], slots);
  return c;
}

bool ShareACall(const ir::Expr& x, const ir::Expr& y) {
  for (const ir::Expr* a : x.facts().calls) {
    for (const ir::Expr* b : y.facts().calls) {
      if (a->Equals(*b)) return true;
    }
  }
  return false;
}

// The projection's arguments (outputs 1..K) in loops: arguments that share a call go together
// (transitively), then the groups are packed first-fit, largest first, within `budget`
// accumulators a loop (a group larger than that is a loop of its own).
std::vector<std::vector<size_t>> ArgumentLoops(const std::vector<ir::ExprPtr>& outputs, int slots, int budget) {
  std::vector<std::vector<size_t>> groups;
  for (size_t k = 1; k < outputs.size(); ++k) {
    std::vector<size_t> joined{k};
    for (auto g = groups.begin(); g != groups.end();) {
      bool shares = false;
      for (size_t j : *g) shares = shares || ShareACall(*outputs[j], *outputs[k]);
      if (!shares) {
        ++g;
        continue;
      }
      joined.insert(joined.end(), g->begin(), g->end());
      g = groups.erase(g);
    }
    groups.push_back(std::move(joined));
  }
  auto cost = [&](const std::vector<size_t>& g) { return LoopCost(outputs, g, slots); };
  std::stable_sort(groups.begin(), groups.end(), [&](const auto& x, const auto& y) { return cost(x) > cost(y); });
  std::vector<std::vector<size_t>> loops;
  std::vector<int> used;
  for (const std::vector<size_t>& g : groups) {
    size_t at = 0;
    while (at < loops.size() && used[at] + cost(g) > budget) ++at;
    if (at == loops.size()) {
      loops.emplace_back();
      used.push_back(0);
    }
    loops[at].insert(loops[at].end(), g.begin(), g.end());
    used[at] += cost(g);
  }
  for (std::vector<size_t>& l : loops) std::sort(l.begin(), l.end());
  return loops;
}

}  // namespace

// What every loop of a grouped fold carries besides its accumulators: the evidence, then the
// suspects, by width.
std::vector<llvm::Value*> KernelBuilder::Flags() const {
  std::vector<llvm::Value*> out = EvidenceValues();
  for (const auto& [width, value] : suspects_) out.push_back(value);
  return out;
}

void KernelBuilder::SetFlags(std::span<llvm::Value* const> values) {
  SetEvidence(values.first(evidence_.size()));
  SetSuspects(values.subspan(evidence_.size()));
}

// A loop over the call's rows [start, start + rows) carrying `accumulators` and the flags.
KernelBuilder::GroupedLoop KernelBuilder::OpenGroupedLoop(const char* name, std::vector<llvm::Value*> accumulators,
                                                          llvm::Value* start, llvm::Value* rows) {
  const size_t n = accumulators.size();
  for (llvm::Value* e : Flags()) accumulators.push_back(e);
  LoopScaffold scaffold = LoopScaffold::Open(b, name, b.getInt64(0), accumulators, b.CreateICmpSGT(rows, b.getInt64(0)));
  std::vector<llvm::Value*> carried = scaffold.carried();
  SetFlags(std::span(carried).subspan(n));
  carried.resize(n);
  llvm::Value* i = scaffold.index();
  llvm::Value* row = b.CreateAdd(start, i, "row", /*HasNUW=*/true, /*HasNSW=*/true);
  return {scaffold, std::move(carried), i, row};
}

// Closes the loop with its accumulators' and flags' new values; returns the accumulators after it.
std::vector<llvm::Value*> KernelBuilder::CloseGroupedLoop(GroupedLoop& loop, llvm::Value* rows, const char* exit) {
  std::vector<llvm::Value*> updated = loop.acc;
  for (llvm::Value* e : Flags()) updated.push_back(e);
  llvm::Value* next = b.CreateAdd(loop.i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::BasicBlock* latch = b.GetInsertBlock();
  std::vector<llvm::Value*> out = loop.scaffold.Close(next, updated, b.CreateICmpULT(next, rows), exit);
  // A loop of few live values runs four vector iterations at a time, so that more of its loads
  // are in flight: at memory speed its body is too short to keep them so otherwise (Q6's one
  // loop; bench: tpch/q6/jit_query against the vectorizer's own choice of two). A loop of more
  // would spill.
  const int registers = mask_registers_ ? 32 : 16;  // vector registers
  const auto live = static_cast<int>(updated.size());
  if (4 * live <= registers * 3 / 4) AskLoopHint(latch, "llvm.loop.interleave.count", 4);
  SetFlags(std::span(out).subspan(loop.acc.size()));
  out.resize(loop.acc.size());
  return out;
}

Status KernelBuilder::BuildGrouped(const std::string& name) {
  assert(ir::IsProjection(*key_.expr) && "a grouped fold folds a projection's outputs");
  assert(!shape_.reads_lane_validity() && "a grouped fold runs over dense inputs");
  BeginFunction(name);
  // 64-bit sums: the width of integer sum folds (512 bits where the host has it).
  fn_->addFnAttr(kFoldKindAttribute, "sum-int");
  fn_->addFnAttr(kPrefetchRowsAttribute, std::to_string(kGroupedPrefetchRows));
  ROWJIT_RETURN_NOT_OK(SetUpInputs(fn_->getArg(0)));
  llvm::Value* sums = fn_->getArg(1);
  const int count = shape_.grouped_slots;
  // The rows' codes and each slot's code, read once (one slot reads none).
  llvm::Value* codes_arg = fn_->getArg(2);
  llvm::Value* row_codes = nullptr;
  std::vector<llvm::Value*> slot_codes;
  if (count > 1) {
    row_codes = b.CreateAlignedLoad(b.getPtrTy(), codes_arg, llvm::Align(8), "codes.rows");
    for (int s = 0; s < count; ++s) {
      llvm::Value* at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), codes_arg, offsetof(GroupedCodes, slot) + s);
      slot_codes.push_back(b.CreateLoad(b.getInt8Ty(), at, "codes.slot"));
    }
  }
  llvm::Value* start = fn_->getArg(3);
  llvm::Value* rows = fn_->getArg(4);
  const std::vector<ir::ExprPtr>& outputs = key_.expr->args();
  // A 16-byte argument folds its low half: a value outside 64 bits is evidence.
  for (size_t k = 1; k < outputs.size(); ++k) {
    if (outputs[k]->type().id == TypeId::kI128) evidence_.try_emplace(64, b.getInt64(0));
  }
  CostlyMuls muls;
  ScanCostlyMuls(*key_.expr, muls);
  if (muls.speculates) muls.rechecked.insert(32);
  if (muls.trig) muls.rechecked.insert(64);
  for (unsigned w : muls.rechecked) suspects_[w] = b.getIntN(w, 0);
  llvm::Value* codes = [&] {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::AllocaInst* a = entry.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), kGroupedFoldRows), nullptr,
                                             "grouped.codes");
    a->setAlignment(llvm::Align(64));
    return a;
  }();
  // The first loop computes the slots and counts them beside its arguments: the loop of the
  // fewest accumulators, with room left for the counts.
  std::vector<std::vector<size_t>> loops = ArgumentLoops(outputs, count, LoopAccumulators(mask_registers_) - count);
  if (loops.empty()) loops.emplace_back();
  std::iter_swap(loops.begin(), std::min_element(loops.begin(), loops.end(), [&](const auto& x, const auto& y) {
                   return LoopCost(outputs, x, count) < LoopCost(outputs, y, count);
                 }));
  for (size_t l = 0; l < loops.size(); ++l) {
    const GroupCodes codes_at{
        .buffer = codes, .first = l == 0, .rows = row_codes, .slots = slot_codes, .store = l == 0 && loops.size() > 1};
    ROWJIT_RETURN_NOT_OK(EmitGroupedSums(loops[l], codes_at, start, rows, sums));
  }
  // Suspects (the OR of operands biased into [0, 2^(w/2)) when in range) as evidence.
  for (const auto& [width, value] : suspects_) {
    llvm::Value* suspect = b.CreateZExt(b.CreateICmpUGE(value, b.getIntN(width, uint64_t{1} << (width / 2))), b.getInt64Ty());
    auto [it, fresh] = evidence_.try_emplace(64, suspect);
    if (!fresh) it->second = b.CreateOr(it->second, suspect);
  }
  suspects_.clear();
  return FinishKernel();
}

// A row's slot: the slot holding its code where the mask keeps it, else the slot count (no slot).
// The first loop computes it from the rows' codes (one slot reads none) and also returns whether
// the mask keeps a row no slot holds; with `store`, it writes the slot to `buffer` for the loops
// after it, which read it from there.
Result<std::pair<llvm::Value*, llvm::Value*>> KernelBuilder::EmitGroupCode(const GroupCodes& codes, llvm::Value* i,
                                                                           llvm::Value* row) {
  const int count = shape_.grouped_slots;
  if (!codes.first) return std::pair{b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), codes.buffer, i)), nullptr};
  row_valid_ = nullptr;
  guard_ = nullptr;
  ROWJIT_ASSIGN_OR_RETURN(Val mask, EmitNode(*key_.expr->args()[0], row, nullptr));
  llvm::Value* keep = mask.v->getType()->isIntegerTy(1) ? mask.v : b.CreateICmpNE(mask.v, Zero(mask.v));
  if (mask.valid != nullptr) keep = b.CreateAnd(keep, mask.valid);
  llvm::Value* slot = b.getInt8(0);
  llvm::Value* stray = b.getFalse();
  if (count > 1) {
    llvm::Value* code = b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), codes.rows, i));
    llvm::Value* held = b.getFalse();
    slot = b.getInt8(static_cast<uint8_t>(count));
    for (int s = count - 1; s >= 0; --s) {
      llvm::Value* is = b.CreateICmpEQ(code, codes.slots[s]);
      slot = b.CreateSelect(is, b.getInt8(static_cast<uint8_t>(s)), slot);
      held = b.CreateOr(held, is);
    }
    stray = b.CreateAnd(keep, b.CreateNot(held));
    keep = b.CreateAnd(keep, held);
  }
  llvm::Value* kept = b.CreateSelect(keep, slot, b.getInt8(static_cast<uint8_t>(count)));
  if (codes.store) b.CreateStore(kept, b.CreateGEP(b.getInt8Ty(), codes.buffer, i));
  return std::pair{kept, stray};
}

// One loop over arguments `ks` (outputs of the projection): per argument k and slot, A (the values
// modulo 2^64), B (their high halves) where the type needs it, C (the rows folded) where the
// argument can be null; written to sums[(1 + 3 (k - 1)) S ..], 3S of them. The first loop also
// counts the rows the mask keeps per slot into sums[0 .. S), and those of no slot into the high
// half of sums[0].
Status KernelBuilder::EmitGroupedSums(std::span<const size_t> ks, const GroupCodes& codes, llvm::Value* start,
                                      llvm::Value* rows, llvm::Value* sums) {
  const int count = shape_.grouped_slots;
  const size_t per = 3 * static_cast<size_t>(count);
  const bool first = codes.first;
  const size_t kept = per * ks.size();  // the first loop's counts follow the arguments' accumulators
  GroupedLoop loop = OpenGroupedLoop(first ? "codes" : "sums",
                                     std::vector<llvm::Value*>(kept + (first ? count : 0), b.getInt64(0)), start, rows);
  std::vector<llvm::Value*>& acc = loop.acc;
  llvm::Value* row = loop.row;
  ROWJIT_ASSIGN_OR_RETURN(const auto slot_and_stray, EmitGroupCode(codes, loop.i, row));
  llvm::Value* code = slot_and_stray.first;
  std::vector<llvm::Value*> in_slot;
  for (int s = 0; s < count; ++s) in_slot.push_back(b.CreateICmpEQ(code, b.getInt8(static_cast<uint8_t>(s))));
  if (first) {
    // Slot 0's count also counts the kept rows of no slot, in its high half (a call's rows are
    // fewer than 2^32): one accumulator less, so that the loop keeps as many arguments.
    llvm::Value* one = b.getInt64(1);
    llvm::Value* zero = b.getInt64(0);
    llvm::Value* stray = b.CreateSelect(slot_and_stray.second, b.getInt64(uint64_t{1} << 32), zero);
    acc[kept] = b.CreateAdd(acc[kept], b.CreateSelect(in_slot[0], one, stray));
    for (int s = 1; s < count; ++s) acc[kept + s] = b.CreateAdd(acc[kept + s], b.CreateZExt(in_slot[s], b.getInt64Ty()));
  }
  for (size_t j = 0; j < ks.size(); ++j) {
    const ir::Expr& arg = *key_.expr->args()[ks[j]];
    const TypeId t = arg.type().id;
    const bool high = GroupedNeedsHigh(arg.type());
    const bool counts = !arg.facts().StrictRows();  // dense inputs: only a null-aware call makes a null
    // Rows the mask drops are not evaluated (as the reference's guard): they raise nothing.
    row_valid_ = nullptr;
    guard_ = b.CreateICmpULT(code, b.getInt8(static_cast<uint8_t>(count)));
    ROWJIT_ASSIGN_OR_RETURN(Val v, EmitNode(arg, row, nullptr));
    if (t == TypeId::kI128) {
      Evidence(b.CreateZExt(b.CreateICmpNE(v.high, b.CreateAShr(v.v, b.getInt64(63))), b.getInt64Ty()));
    }
    guard_ = nullptr;
    llvm::Value* x = Widen64(b, v, t);
    llvm::Value* x_high = IsUnsignedInt(t) ? b.CreateLShr(x, b.getInt64(32)) : b.CreateAShr(x, b.getInt64(32));
    llvm::Value* zero = b.getInt64(0);
    llvm::Value** a = &acc[j * per];
    for (int s = 0; s < count; ++s) {
      llvm::Value* in = v.valid != nullptr ? b.CreateAnd(in_slot[s], v.valid) : in_slot[s];
      a[s] = b.CreateAdd(a[s], b.CreateSelect(in, x, zero));
      if (high) a[count + s] = b.CreateAdd(a[count + s], b.CreateSelect(in, x_high, zero));
      if (counts) a[2 * count + s] = b.CreateAdd(a[2 * count + s], b.CreateZExt(in, b.getInt64Ty()));
    }
  }
  const std::vector<llvm::Value*> out = CloseGroupedLoop(loop, rows, first ? "codes.done" : "sums.done");
  if (first) {
    for (int s = 0; s < count; ++s) b.CreateStore(out[kept + s], SumsAt(b, sums, s));
  }
  for (size_t j = 0; j < ks.size(); ++j) {
    const auto base = static_cast<int64_t>((ks[j] - 1) * per) + count;
    for (size_t m = 0; m < per; ++m) b.CreateStore(out[j * per + m], SumsAt(b, sums, base + static_cast<int64_t>(m)));
  }
  return Status::OK();
}

}  // namespace rowjit::jit::internal
