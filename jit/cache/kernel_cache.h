// The kernel cache (jit layer, cache room, above compile and under plan: this cache, the disk
// cache and the background compile pool): each specialization made once even when many threads
// ask at once, in up to two tiers (a fast kernel that answers while the optimized one compiles in
// the background), from the disk cache or the compiler, and at most `capacity` keys kept, least
// recently used out first.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "jit/compile/compiler.h"

namespace rowjit::jit {

struct CacheStats {
  int64_t compiles = 0;       // optimized kernels compiled (each key once while it stays cached)
  int64_t fast_compiles = 0;  // fast-tier kernels compiled
  int64_t disk_loads = 0;     // optimized kernels read from the disk cache instead
  int64_t hits = 0;           // lookups served by a kernel in memory or in flight
  // Engine calls answered by a kernel a held handle keeps (EngineOptions::held_expressions),
  // with no lookup (Engine::cache_stats; a host's own prepared handles count nothing)
  int64_t held = 0;
  int64_t evictions = 0;
  int64_t size = 0;
  int64_t background_compiles = 0;  // optimized compiles queued on the background pool
  int64_t background_failures = 0;  // of those, failed: the key stays on its fast kernel
  // Of those, dropped when they came up: their key had left the cache (or the engine was
  // closing). A later lookup of the key starts it again.
  int64_t background_dropped = 0;
  // Optimized compiles not queued because the pool's queue was full: the key stays on its lower
  // tier and starts the compile again at a later lookup.
  int64_t background_refused = 0;
  int64_t tier_switches = 0;  // keys whose optimized kernel replaced their fast one
  // The background pool's queue (filled in by the engine): jobs waiting now, and the most that
  // waited at once (never above EngineOptions::max_queued_compiles).
  int64_t compile_queue = 0;
  int64_t compile_queue_peak = 0;
};

// Where a lookup's kernel came from.
enum class KernelSource : uint8_t {
  kMemory,    // the cache (or a compile another thread had in flight)
  kDisk,      // the disk cache, by this call
  kCompiled,  // compiled by this call
};
std::string_view KernelSourceName(KernelSource source);

// Which tier a lookup wants.
enum class TierWant : uint8_t {
  kOptimized,  // the optimized kernel, compiled (or loaded) now if need be
  kTiered,     // the optimized kernel if ready; else the fast one, while the optimized one is
               // made in the background (after `optimize_after_uses` lookups of the key)
  kFast,       // the fast kernel, never the optimized one (tests, comparisons); not counted
               // as a use
  kOptimizedIfReady,  // as kTiered, but a null kernel instead of a fast one (the engine's
                      // static tier answers)
};

class KernelCache {
 public:
  using KernelPtr = std::shared_ptr<const CompiledKernel>;
  // How kernels are made: the engine's disk cache and compiler behind them.
  struct Makers {
    // The optimized kernel from disk; a null kernel when it is not there.
    std::function<Result<KernelPtr>(const CacheKey&)> load;
    // Compiles a kernel (an optimized one is also stored on disk).
    std::function<Result<KernelPtr>(const CacheKey&, Tier)> compile;
    // Queues a job on the background pool; false when it is refused (a full queue, no pool),
    // and then the job has been destroyed unrun.
    std::function<bool(std::function<void()>)> submit;
    // Claims the optimized compile of a key across processes (DiskCache::Claim): held while it
    // compiles; null when there is nothing to claim (no disk cache). May be empty.
    std::function<std::shared_ptr<void>(const CacheKey&)> claim;
  };
  struct Lookup {
    KernelPtr kernel;
    KernelSource source = KernelSource::kMemory;
  };

  KernelCache(size_t capacity, int optimize_after_uses, Makers makers)
      : capacity_(capacity == 0 ? 1 : capacity),
        optimize_after_uses_(optimize_after_uses < 1 ? 1 : optimize_after_uses),
        makers_(std::move(makers)) {}

  // The kernel for `key` in the tier asked for. A failed compile is not cached (a failed
  // background compile is remembered: the key keeps its fast kernel).
  Result<Lookup> Get(const CacheKey& key, TierWant want);
  // Starts making the optimized kernel of `key` (from disk, or compiled in the background)
  // ahead of its first lookup.
  void Prefetch(const CacheKey& key);
  // The engine is going away: background jobs that come up from now on are dropped, and a
  // running one that has not begun its compile drops it after its claim (whose wait
  // DiskCache::Abandon ends). Called before the pool is destroyed.
  void Close() { closing_.store(true, std::memory_order_relaxed); }
  CacheStats stats() const;

 private:
  // What a kernel's promise holds: the kernel or its error, or nullopt when the background job
  // that was to make it was dropped unrun (its key left the cache, the queue was full, the
  // engine is closing): a waiter then makes the kernel itself.
  using Made = std::optional<Result<KernelPtr>>;
  using Future = std::shared_future<Made>;
  class Promised;
  struct Entry {
    Future optimized;  // valid once started
    Future fast;       // valid once started; dropped when the optimized kernel takes over
    uint64_t job = 0;  // the background job making `optimized` (0: none)
    int64_t uses = 0;
    std::list<CacheKey>::iterator lru;
  };

  Entry& Touch(const CacheKey& key);  // under mu_
  // Under mu_: forgets an optimized kernel whose job was dropped, so that it starts again.
  static void ForgetDropped(Entry& e);
  // Waits (unlocked) for a kernel another thread is making.
  Result<Lookup> Await(Future f, std::unique_lock<std::mutex>& lock);
  Result<Lookup> GetOptimized(const CacheKey& key, std::unique_lock<std::mutex>& lock);
  // GetOptimized for an entry nobody is making: made by this thread.
  Result<Lookup> MakeOptimizedHere(const CacheKey& key, std::unique_lock<std::mutex>& lock);
  // The optimized kernel (unlocked): from disk (when `disk_first`), else compiled under the
  // cross-process claim, unless another process stored it while this one waited for the claim.
  Result<Lookup> MakeOptimized(const CacheKey& key, bool disk_first);
  Result<Lookup> GetFast(const CacheKey& key, std::unique_lock<std::mutex>& lock);
  // Under mu_: starts the optimized kernel of an entry that has none; `lock` is released while
  // the disk is read. Returns a disk hit (then the entry holds it).
  std::optional<Lookup> StartOptimized(const CacheKey& key, std::unique_lock<std::mutex>& lock);
  // A background job (unlocked): the optimized kernel of `key`, unless the job is dropped.
  void RunBackground(const CacheKey& key, Promised& promise, uint64_t job);
  static bool Ready(const Future& f) {
    return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  size_t capacity_;
  int optimize_after_uses_;
  Makers makers_;
  std::atomic<bool> closing_{false};
  mutable std::mutex mu_;
  std::unordered_map<CacheKey, Entry, CacheKeyHash> entries_;
  std::list<CacheKey> lru_;  // most recently used first
  uint64_t last_job_ = 0;
  CacheStats stats_;
};

}  // namespace rowjit::jit
