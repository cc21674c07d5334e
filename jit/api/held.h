// Held handles (jit layer, api room, internal): the prepared handles Engine::Evaluate, EvaluateInto
// and Aggregate keep for an expression a host passes again (the same ExprPtr, not an equal one), so
// that a batch loop over Engine's one-shot calls costs what a prepared handle's call costs: no
// planning, no cache lookup on a layout already met. An expression is noted on its first call
// through a weak reference (one that died is not mistaken for a new one at its address) and held
// from its second; a handle owns its expression, so no address in the table is reused while it
// is there. At most `capacity` handles; the least recently used is dropped first.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ir/expr.h"

namespace rowjit::jit::internal {

template <typename Handle>
class HeldHandles {
 public:
  explicit HeldHandles(size_t capacity) : capacity_(capacity), noted_(capacity) {}

  // The handle of (`expr`, `tag`: what else sets calls on one expression apart, such as their
  // options), made by `make` (a Result of a unique_ptr) on the expression's second call. Null on
  // its first call, when holding is off, or when `make` fails: the engine's own path runs.
  template <typename Make>
  std::shared_ptr<Handle> Find(const ir::ExprPtr& expr, uint64_t tag, Make make) {
    if (capacity_ == 0) return nullptr;
    const Key key{expr.get(), tag};
    std::lock_guard lock(mu_);
    if (auto it = held_.find(key); it != held_.end()) {
      it->second.last_use = ++clock_;
      return it->second.handle;
    }
    Noted* seen = nullptr;
    for (Noted& n : noted_) {
      if (n.key == key && !n.expr.expired()) seen = &n;
    }
    if (seen == nullptr) {
      noted_[next_noted_++ % noted_.size()] = Noted{key, expr};
      return nullptr;
    }
    *seen = Noted{};
    auto made = make();
    if (!made.ok()) return nullptr;
    if (held_.size() >= capacity_) DropLeastRecent();
    std::shared_ptr<Handle> handle(std::move(made).value());
    held_.emplace(key, Entry{expr, handle, ++clock_});
    return handle;
  }

  size_t size() const {
    std::lock_guard lock(mu_);
    return held_.size();
  }

 private:
  struct Key {
    const ir::Expr* expr = nullptr;
    uint64_t tag = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>{}(k.expr) ^ (k.tag + 1) * 0x9e3779b97f4a7c15ULL;
    }
  };
  struct Entry {
    ir::ExprPtr expr;  // owned: its address stays this entry's
    std::shared_ptr<Handle> handle;
    uint64_t last_use = 0;
  };
  struct Noted {
    Key key;
    std::weak_ptr<const ir::Expr> expr;
  };

  void DropLeastRecent() {
    auto oldest = held_.begin();
    for (auto it = held_.begin(); it != held_.end(); ++it) {
      if (it->second.last_use < oldest->second.last_use) oldest = it;
    }
    held_.erase(oldest);  // a call still running it keeps its own reference
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<Key, Entry, KeyHash> held_;
  std::vector<Noted> noted_;  // the last `capacity_` expressions met once
  size_t next_noted_ = 0;
  uint64_t clock_ = 0;
};

}  // namespace rowjit::jit::internal
