// Retry pressure (jit layer, plan room, internal): the engine's memory of which expressions saw
// rows behind nulls raise evidence recently, read by the planner's choice for policy `auto`
// (BatchFacts::prefer_valid_only).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

#include "ir/expr.h"

namespace rowjit::jit::internal {

// Policy `auto` runs a deferred-error kernel dense over a batch with nulls: rows behind nulls
// are computed too, and their evidence costs a rerun over the valid rows only when it appears.
// When it keeps appearing (zeros behind nulls under a division, garbage that overflows), reruns
// would double the work: the engine then remembers, per expression, to run valid-only
// (branch-and-skip or filter-and-scatter) for a few batches before it tries dense again.
//
// The memory is a fixed table of kSlots words, lock-free: a slot is chosen by the low bits of the
// expression's structural hash and holds the rest of that hash beside the count of valid-only
// batches owed. Only the expression whose hash the slot holds reads or spends that count, so one
// expression's pressure never changes another's strategy: a count shared by every expression of a
// slot would let whatever ran earlier in the engine choose between dense-with-retry and
// branch-and-skip for an unrelated expression, and spend its valid-only batches.
// The bound: at most kSlots expressions are remembered at once; a retry of an expression whose
// slot another holds takes the slot over, and the one dropped only runs dense once more (and
// retries, taking it back). Equal hashes of different expressions (64 bits) share a count: a less
// suited strategy for a while, never a wrong result.
class RetryPressure {
 public:
  static constexpr int kPerRetry = 4;  // a retry buys this many valid-only batches
  static constexpr int kCap = 32;
  static constexpr size_t kSlots = 256;

  // The slot an expression's hash takes (tests find two expressions sharing one).
  static constexpr size_t SlotOf(uint64_t hash) { return hash % kSlots; }

  // Whether valid-only runs are owed, without spending one (PreferValidOnly spends).
  bool Pressured(const ir::Expr& e) const {
    const uint64_t w = slots_[SlotOf(e.hash())].load(std::memory_order_relaxed);
    return Owner(w) == Owner(e.hash()) && Count(w) > 0;
  }
  bool PreferValidOnly(const ir::Expr& e) {
    std::atomic<uint64_t>& slot = slots_[SlotOf(e.hash())];
    uint64_t w = slot.load(std::memory_order_relaxed);
    if (Owner(w) != Owner(e.hash()) || Count(w) == 0) return false;
    slot.compare_exchange_strong(w, w - 1, std::memory_order_relaxed);  // decay toward dense
    return true;
  }
  void Retried(const ir::Expr& e) {
    std::atomic<uint64_t>& slot = slots_[SlotOf(e.hash())];
    const uint64_t owner = Owner(e.hash());
    uint64_t w = slot.load(std::memory_order_relaxed);
    const uint64_t count = Owner(w) == owner ? std::min<uint64_t>(kCap, Count(w) + kPerRetry) : kPerRetry;
    slot.compare_exchange_strong(w, owner | count, std::memory_order_relaxed);
  }

 private:
  // A slot's word: the expression's hash above the low byte (which the slot's index holds), the
  // count in the low byte.
  static constexpr uint64_t kCountBits = 0xff;
  static_assert(kCap <= static_cast<int>(kCountBits) && kSlots <= kCountBits + 1, "the count and index fit a byte");
  static constexpr uint64_t Owner(uint64_t word_or_hash) { return word_or_hash & ~kCountBits; }
  static constexpr uint64_t Count(uint64_t word) { return word & kCountBits; }

  std::array<std::atomic<uint64_t>, kSlots> slots_{};
};

}  // namespace rowjit::jit::internal
