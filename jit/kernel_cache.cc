// Kernel cache: single-flight compilation and LRU eviction (jit layer).
#include "jit/kernel_cache.h"

namespace rowjit::jit {

Result<KernelCache::KernelPtr> KernelCache::GetOrCompile(const CacheKey& key,
                                                         const CompileFn& compile) {
  std::promise<Result<KernelPtr>> promise;
  std::shared_future<Result<KernelPtr>> existing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      ++stats_.hits;
      lru_.splice(lru_.begin(), lru_, it->second.lru);
      existing = it->second.kernel;
    } else {
      ++stats_.compiles;
      lru_.push_front(key);
      entries_.emplace(key, Entry{promise.get_future().share(), lru_.begin()});
      while (entries_.size() > capacity_) {
        // Dropping the entry drops the cache's reference; the machine code is freed when the
        // last evaluation using it finishes.
        entries_.erase(lru_.back());
        lru_.pop_back();
        ++stats_.evictions;
      }
    }
  }
  if (existing.valid()) return existing.get();  // waits while another thread compiles it
  Result<KernelPtr> r = compile();
  promise.set_value(r);
  if (!r.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      lru_.erase(it->second.lru);
      entries_.erase(it);
    }
  }
  return r;
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  CacheStats s = stats_;
  s.size = static_cast<int64_t>(entries_.size());
  return s;
}

}  // namespace rowjit::jit
