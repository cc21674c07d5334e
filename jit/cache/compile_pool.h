// The background compile pool (jit layer, cache room): a few threads that run optimizing compiles
// while evaluations go on with lower-tier kernels, behind a bounded queue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/status.h"

namespace rowjit::jit {

class CompilePool {
 public:
  // The most threads a pool runs: the host's hardware threads (std::thread::hardware_concurrency,
  // at least 1). More compile threads than cores would only take turns on them.
  static int MaxThreads();

  // A pool of `threads` threads, clamped to [1, MaxThreads()], that queues at most `max_queued`
  // jobs (at least 1). An error, not an exception, when the system cannot start a thread.
  static Result<std::unique_ptr<CompilePool>> Make(int threads, size_t max_queued);
  // Stops taking jobs, drops the queued ones (unrun) and waits for the running ones.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Queues `job`; false when `max_queued` jobs already wait or the pool is stopping, and then
  // `job` is destroyed unrun before Submit returns (its owner must expect either).
  bool Submit(std::function<void()> job);
  // Blocks until no job is queued or running.
  void WaitIdle();

  int threads() const { return static_cast<int>(threads_.size()); }
  size_t max_queued() const { return max_queued_; }
  int64_t queued() const;       // jobs waiting now
  int64_t queued_peak() const;  // the most jobs that waited at once

 private:
  explicit CompilePool(size_t max_queued) : max_queued_(max_queued) {}
  void Work();
  void Stop();  // drops the queue, wakes and joins every thread

  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  int64_t queued_peak_ = 0;
  int running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rowjit::jit
