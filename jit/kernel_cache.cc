// Kernel cache: single-flight compilation and LRU eviction (jit layer).
#include "jit/kernel_cache.h"

namespace rowjit::jit {

size_t CacheKeyHash::operator()(const CacheKey& k) const {
  const KernelShape& s = k.shape;
  const uint64_t shape_bits =
      static_cast<uint64_t>(s.loop) | uint64_t{s.writes_validity} << 2 |
      uint64_t{s.mask_evidence} << 3 | uint64_t{s.skip_empty_words} << 4 |
      (s.fold ? static_cast<uint64_t>(*s.fold) + 1 : 0) << 5 | uint64_t{s.fold_keep_nan} << 10 |
      uint64_t{s.fold_counts_rows} << 11;
  return k.spec.hash() ^ (shape_bits + 1) * 0x9e3779b97f4a7c15ULL;
}

std::string CacheKey::ToString() const {
  std::string out = spec.ToString();
  if (shape.fold) out += fmt::format(" fold={}", static_cast<int>(*shape.fold));
  if (shape.writes_validity) out += " kernel=validity";
  if (shape.skip_empty_words) out += " skip-empty-words";
  if (shape.loop == KernelLoop::kRows) out += " loop=rows";
  return out;
}

Result<KernelCache::Lookup> KernelCache::GetOrCompile(const CacheKey& key,
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
  if (existing.valid()) {  // waits while another thread compiles it
    const Result<KernelPtr>& r = existing.get();
    if (!r.ok()) return r.error();
    return Lookup{*r, false};
  }
  Result<KernelPtr> r = compile();
  promise.set_value(r);
  if (!r.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      lru_.erase(it->second.lru);
      entries_.erase(it);
    }
    return std::move(r).TakeError();
  }
  return Lookup{std::move(r).value(), true};
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  CacheStats s = stats_;
  s.size = static_cast<int64_t>(entries_.size());
  return s;
}

}  // namespace rowjit::jit
