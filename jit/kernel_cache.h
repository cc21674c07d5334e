// The kernel cache: compiles each specialization once, even when many threads ask at once, and
// keeps at most `capacity` kernels, least recently used out first (jit layer).
#pragma once

#include <functional>
#include <future>
#include <list>
#include <mutex>
#include <unordered_map>

#include "jit/compiler.h"

namespace rowjit::jit {

struct CacheKey {
  ir::SpecializationKey spec;
  KernelShape shape;
  bool operator==(const CacheKey& o) const { return shape == o.shape && spec == o.spec; }
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const {
    return k.spec.hash() ^ (static_cast<size_t>(k.shape.writes_validity) << 1 |
                            static_cast<size_t>(k.shape.mask_evidence) << 2 |
                            static_cast<size_t>(k.shape.skip_empty_words) << 3 |
                            static_cast<size_t>(k.shape.fold + 1) << 4 |
                            static_cast<size_t>(k.shape.fold_keep_nan) << 9) * 0x9e3779b97f4a7c15ULL;
  }
};

struct CacheStats {
  int64_t compiles = 0;   // kernels compiled (each key once while it stays cached)
  int64_t hits = 0;       // lookups served by a compiled or in-flight kernel
  int64_t evictions = 0;
  int64_t size = 0;
};

class KernelCache {
 public:
  using KernelPtr = std::shared_ptr<const CompiledKernel>;
  using CompileFn = std::function<Result<KernelPtr>()>;

  explicit KernelCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // The kernel for `key`: cached, being compiled by another thread (waits for it), or compiled
  // now by `compile` on this thread. A failed compile is not cached.
  Result<KernelPtr> GetOrCompile(const CacheKey& key, const CompileFn& compile);
  CacheStats stats() const;

 private:
  struct Entry {
    std::shared_future<Result<KernelPtr>> kernel;
    std::list<CacheKey>::iterator lru;
  };

  size_t capacity_;
  mutable std::mutex mu_;
  std::unordered_map<CacheKey, Entry, CacheKeyHash> entries_;
  std::list<CacheKey> lru_;  // most recently used first
  CacheStats stats_;
};

}  // namespace rowjit::jit
