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
  struct Lookup {
    KernelPtr kernel;
    bool compiled = false;  // this call compiled it (not another thread, not an earlier call)
  };

  explicit KernelCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // The kernel for `key`: cached, being compiled by another thread (waits for it), or compiled
  // now by `compile` on this thread. A failed compile is not cached.
  Result<Lookup> GetOrCompile(const CacheKey& key, const CompileFn& compile);
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
