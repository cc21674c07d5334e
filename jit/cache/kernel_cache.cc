// Kernel cache: single-flight kernels in two tiers, disk loads, background compiles, LRU
// eviction (jit layer, cache room).
#include "jit/cache/kernel_cache.h"

#include <algorithm>
#include <cassert>

#include "ir/analysis.h"
#include "runtime/timezone.h"

namespace rowjit::jit {

size_t CacheKeyHash::operator()(const CacheKey& k) const {
  const KernelShape& s = k.shape;
  const uint64_t shape_bits =
      static_cast<uint64_t>(s.loop) | uint64_t{s.writes_validity} << 2 |
      uint64_t{s.mask_evidence} << 3 | uint64_t{s.skip_empty_words} << 4 |
      (s.fold ? static_cast<uint64_t>(*s.fold) + 1 : 0) << 5 | uint64_t{s.fold_keep_nan} << 10 |
      uint64_t{s.fold_counts_rows} << 11 | uint64_t{s.stream_output} << 12 | uint64_t{s.length_prefilter} << 13 |
      uint64_t{s.short_batch} << 14 | uint64_t{s.speculative_mul} << 15 |
      static_cast<uint64_t>(s.grouped_slots) << 16 | uint64_t{s.vector_score} << 24;
  return k.spec.hash() ^ (shape_bits + 1) * 0x9e3779b97f4a7c15ULL;
}

std::string CacheKey::ToString() const {
  std::string out = spec.ToString();
  if (shape.fold) out += fmt::format(" fold={}", static_cast<int>(*shape.fold));
  if (shape.writes_validity) out += " kernel=validity";
  if (shape.skip_empty_words) out += " skip-empty-words";
  if (shape.loop == KernelLoop::kRows) out += " loop=rows";
  if (shape.stream_output) out += " stream-output";
  if (shape.length_prefilter) out += " length-prefilter";
  if (shape.short_batch) out += " short-batch";
  if (shape.speculative_mul) out += " speculative-mul";
  if (shape.grouped_slots != 0) out += fmt::format(" grouped-slots={}", shape.grouped_slots);
  if (shape.vector_score) out += " vector-score";
  return out;
}

std::string CacheKey::Serialize() const {
  std::string out = spec.ToString();
  if (spec.expr != nullptr) {
    out += "\ncolumns:";
    for (const ir::Expr* c : spec.expr->facts().column_nodes) {
      out += fmt::format(" {}#{}:{}", c->name(), c->column_index(), c->type().ToString());
    }
    // A call's logical type is not always implied by its arguments' (a cast to decimal(12,2)).
    out += "\ncalls:";
    std::vector<uint16_t> zones;
    for (const ir::Expr* c : spec.expr->facts().calls) {
      if (c->type().is_logical()) out += fmt::format(" {}:{}", c->name(), c->type().ToString());
      // The zones of its arguments and of its result (a cast into a zone: text_to_temporal, temporal_cast).
      for (const ir::ExprPtr& a : c->args()) {
        if (a->type().tz != 0 && std::find(zones.begin(), zones.end(), a->type().tz) == zones.end()) zones.push_back(a->type().tz);
      }
      if (c->type().tz != 0 && std::find(zones.begin(), zones.end(), c->type().tz) == zones.end()) zones.push_back(c->type().tz);
    }
    // A kernel over a zone holds the zone's offsets: the data it was built from is part of its
    // key (a tzdata update changes the fingerprint, and a disk-cached kernel is not reused).
    for (uint16_t tz : zones) {
      auto rules = LoadZoneRules(TimeZoneName(tz));
      out += fmt::format("\nzone {} {:016x}", TimeZoneName(tz), rules.ok() ? (*rules)->fingerprint : 0);
    }
  }
  for (const ir::InputSpec& in : spec.inputs) {
    out += fmt::format("\ninput {} {} codes {} nulls {}", ir::InputShapeName(in.shape), TypeIdName(in.type),
                       TypeIdName(in.code_type), in.has_nulls);
  }
  out += fmt::format("\nshape loop {} validity {} mask {} skip {} fold {} keep-nan {} counts {} stream {} prefilter {} short {} speculative {} grouped {} vector {}",
                     static_cast<int>(shape.loop), shape.writes_validity, shape.mask_evidence,
                     shape.skip_empty_words, shape.fold ? static_cast<int>(*shape.fold) : -1,
                     shape.fold_keep_nan, shape.fold_counts_rows, shape.stream_output, shape.length_prefilter,
                     shape.short_batch, shape.speculative_mul, shape.grouped_slots, shape.vector_score);
  return out;
}

std::string_view KernelSourceName(KernelSource source) {
  switch (source) {
    case KernelSource::kMemory: return "memory";
    case KernelSource::kDisk: return "disk";
    case KernelSource::kCompiled: return "compiled";
  }
  return "?";
}

// A promise of a kernel that answers "dropped" (nullopt) when it goes unset: a background job
// the pool drops unrun (a full queue, a pool shutting down), or a maker that threw, never leaves
// a waiter waiting.
class KernelCache::Promised {
 public:
  Promised() = default;
  Promised(const Promised&) = delete;
  Promised& operator=(const Promised&) = delete;
  ~Promised() {
    if (!set_) promise_.set_value(std::nullopt);
  }
  Future future() { return promise_.get_future().share(); }
  void Set(Made made) {
    assert(!set_ && "a kernel's promise is kept once");
    set_ = true;
    promise_.set_value(std::move(made));
  }

 private:
  std::promise<Made> promise_;
  bool set_ = false;
};

namespace {

KernelCache::Lookup Found(const Result<KernelCache::KernelPtr>& r, KernelSource source) { return {*r, source}; }

}  // namespace

KernelCache::Entry& KernelCache::Touch(const CacheKey& key) {
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second;
  }
  lru_.push_front(key);
  Entry& e = entries_.emplace(key, Entry{}).first->second;
  e.lru = lru_.begin();
  while (entries_.size() > capacity_) {
    // Dropping the entry drops the cache's references; the machine code is freed when the last
    // evaluation using it finishes (a compile in flight completes into a promise nobody reads; a
    // background job still queued for it is dropped when it comes up).
    entries_.erase(lru_.back());
    lru_.pop_back();
    ++stats_.evictions;
  }
  return e;
}

void KernelCache::ForgetDropped(Entry& e) {
  if (Ready(e.optimized) && !e.optimized.get().has_value()) {
    e.optimized = Future();
    e.job = 0;
  }
}

Result<KernelCache::Lookup> KernelCache::Get(const CacheKey& key, TierWant want) {
  std::unique_lock<std::mutex> lock(mu_);
  Entry& e = Touch(key);
  if (want != TierWant::kFast) ++e.uses;
  ForgetDropped(e);
  if (Ready(e.optimized) && e.optimized.get()->ok()) {
    ++stats_.hits;
    if (e.fast.valid()) {  // the optimized kernel takes over; the fast one is freed
      e.fast = Future();
      ++stats_.tier_switches;
    }
    return Found(*e.optimized.get(), KernelSource::kMemory);
  }
  if (want == TierWant::kOptimized) return GetOptimized(key, lock);
  if (want != TierWant::kFast && !e.optimized.valid() && e.uses >= optimize_after_uses_) {
    if (std::optional<Lookup> from_disk = StartOptimized(key, lock)) return *from_disk;
  }
  if (want == TierWant::kOptimizedIfReady) return Lookup{nullptr, KernelSource::kMemory};
  return GetFast(key, lock);
}

Result<KernelCache::Lookup> KernelCache::Await(Future f, std::unique_lock<std::mutex>& lock) {
  ++stats_.hits;
  lock.unlock();
  const Made& made = f.get();
  if (!made) return MakeError(ErrorCode::kInternal, "the kernel's compile was abandoned");
  if (!made->ok()) return made->error();
  return Found(*made, KernelSource::kMemory);
}

Result<KernelCache::Lookup> KernelCache::GetOptimized(const CacheKey& key, std::unique_lock<std::mutex>& lock) {
  for (;;) {
    Entry& e = Touch(key);  // found again: the lock may have been released since the lookup began
    ForgetDropped(e);
    if (!e.optimized.valid()) return MakeOptimizedHere(key, lock);
    const Future f = e.optimized;  // in flight elsewhere, or failed
    lock.unlock();
    const Made& made = f.get();
    lock.lock();
    if (made) {
      ++stats_.hits;
      if (!made->ok()) return made->error();
      return Found(*made, KernelSource::kMemory);
    }
    // Its background job was dropped: the entry forgets it, and this thread makes the kernel
    // (or waits for another that started since).
  }
}

Result<KernelCache::Lookup> KernelCache::MakeOptimizedHere(const CacheKey& key, std::unique_lock<std::mutex>& lock) {
  Promised promise;
  Entry& e = Touch(key);
  e.optimized = promise.future();
  e.job = 0;
  lock.unlock();
  Result<Lookup> made = MakeOptimized(key, true);
  promise.Set(made.ok() ? Made(made->kernel) : Made(made.error()));
  lock.lock();
  if (made.ok()) {
    ++(made->source == KernelSource::kDisk ? stats_.disk_loads : stats_.compiles);
    return std::move(made).value();
  }
  auto it = entries_.find(key);  // a failed compile is not cached
  if (it != entries_.end() && Ready(it->second.optimized) && it->second.optimized.get().has_value() &&
      !it->second.optimized.get()->ok()) {
    it->second.optimized = Future();
  }
  return std::move(made).TakeError();
}

Result<KernelCache::Lookup> KernelCache::MakeOptimized(const CacheKey& key, bool disk_first) {
  if (disk_first) {
    Result<KernelPtr> loaded = makers_.load(key);
    if (loaded.ok() && *loaded != nullptr) return Lookup{std::move(loaded).value(), KernelSource::kDisk};
  }
  const std::shared_ptr<void> claim = makers_.claim ? makers_.claim(key) : nullptr;
  if (closing_.load(std::memory_order_relaxed)) {
    return MakeError(ErrorCode::kInternal, "the engine is being destroyed");
  }
  if (claim != nullptr) {  // another process may have compiled and stored it while this one waited
    Result<KernelPtr> loaded = makers_.load(key);
    if (loaded.ok() && *loaded != nullptr) return Lookup{std::move(loaded).value(), KernelSource::kDisk};
  }
  ROWJIT_ASSIGN_OR_RETURN(KernelPtr kernel, makers_.compile(key, Tier::kOptimized));
  return Lookup{std::move(kernel), KernelSource::kCompiled};
}

Result<KernelCache::Lookup> KernelCache::GetFast(const CacheKey& key, std::unique_lock<std::mutex>& lock) {
  Entry& e = Touch(key);  // found again: the lock may have been released since the lookup began
  if (Ready(e.fast) && !e.fast.get().has_value()) e.fast = Future();  // its maker threw
  if (e.fast.valid()) return Await(e.fast, lock);
  Promised promise;
  e.fast = promise.future();
  lock.unlock();
  Result<KernelPtr> r = makers_.compile(key, Tier::kFast);
  promise.Set(r);
  lock.lock();
  if (r.ok()) {
    ++stats_.fast_compiles;
    return Lookup{std::move(r).value(), KernelSource::kCompiled};
  }
  auto it = entries_.find(key);
  if (it != entries_.end() && Ready(it->second.fast) && it->second.fast.get().has_value() &&
      !it->second.fast.get()->ok()) {
    it->second.fast = Future();
  }
  return std::move(r).TakeError();
}

std::optional<KernelCache::Lookup> KernelCache::StartOptimized(const CacheKey& key,
                                                              std::unique_lock<std::mutex>& lock) {
  auto promise = std::make_shared<Promised>();
  Entry& e = Touch(key);
  e.optimized = promise->future();
  const uint64_t job = e.job = ++last_job_;
  lock.unlock();
  // A disk hit costs less than a fast compile: it answers now.
  Result<KernelPtr> loaded = makers_.load(key);
  if (loaded.ok() && *loaded != nullptr) {
    promise->Set(loaded);
    lock.lock();
    ++stats_.disk_loads;
    return Lookup{std::move(loaded).value(), KernelSource::kDisk};
  }
  const bool queued = makers_.submit([this, key, promise, job] { RunBackground(key, *promise, job); });
  lock.lock();
  if (queued) {
    ++stats_.background_compiles;
    return std::nullopt;
  }
  // The queue is full: the key stays on its lower tier and a later lookup starts it again; a
  // waiter on this promise hears "dropped" and makes the kernel itself.
  ++stats_.background_refused;
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.job == job) {
    it->second.optimized = Future();
    it->second.job = 0;
  }
  promise->Set(std::nullopt);
  return std::nullopt;
}

void KernelCache::RunBackground(const CacheKey& key, Promised& promise, uint64_t job) {
  {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = entries_.find(key);
    // Compiled for nobody: the key left the cache (a later lookup starts it again) or the engine
    // is going away.
    if (closing_.load(std::memory_order_relaxed) || it == entries_.end() || it->second.job != job) {
      ++stats_.background_dropped;
      promise.Set(std::nullopt);
      return;
    }
  }
  Result<Lookup> made = MakeOptimized(key, false);  // the disk was just asked
  // Failed because the engine began closing while it waited for the claim: dropped, not failed.
  const bool dropped = !made.ok() && closing_.load(std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> guard(mu_);
    if (dropped) ++stats_.background_dropped;
    else if (made.ok()) ++(made->source == KernelSource::kDisk ? stats_.disk_loads : stats_.compiles);
    else ++stats_.background_failures;
  }
  if (dropped) return promise.Set(std::nullopt);
  promise.Set(made.ok() ? Made(made->kernel) : Made(made.error()));
}

void KernelCache::Prefetch(const CacheKey& key) {
  std::unique_lock<std::mutex> lock(mu_);
  Entry& e = Touch(key);
  ForgetDropped(e);
  if (!e.optimized.valid()) StartOptimized(key, lock);
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  CacheStats s = stats_;
  s.size = static_cast<int64_t>(entries_.size());
  return s;
}

}  // namespace rowjit::jit
