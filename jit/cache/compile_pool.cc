// The background compile pool (jit layer, cache room): threads started without letting
// std::system_error escape, and a queue that refuses jobs past its bound.
#include "jit/cache/compile_pool.h"

#include <algorithm>
#include <system_error>

namespace rowjit::jit {

int CompilePool::MaxThreads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

Result<std::unique_ptr<CompilePool>> CompilePool::Make(int threads, size_t max_queued) {
  const int count = std::clamp(threads, 1, MaxThreads());
  std::unique_ptr<CompilePool> pool(new CompilePool(std::max<size_t>(max_queued, 1)));
  pool->threads_.reserve(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    try {
      pool->threads_.emplace_back([p = pool.get()] { p->Work(); });
    } catch (const std::system_error& e) {  // no thread to be had (a process or memory limit)
      pool->Stop();
      return MakeError(ErrorCode::kInternal, "cannot start compile thread {} of {}: {}", i + 1, count, e.what());
    }
  }
  return pool;
}

CompilePool::~CompilePool() { Stop(); }

void CompilePool::Stop() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  dropped.clear();  // outside the lock: a job's captures may answer its waiters as they go
  wake_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();  // Make may have stopped the pool already
  }
}

bool CompilePool::Submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_ && queue_.size() < max_queued_) {
      queue_.push_back(std::move(job));
      queued_peak_ = std::max(queued_peak_, static_cast<int64_t>(queue_.size()));
      wake_.notify_one();
      return true;
    }
  }
  job = nullptr;  // refused: dropped here, outside the lock
  return false;
}

void CompilePool::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

int64_t CompilePool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(queue_.size());
}

int64_t CompilePool::queued_peak() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_peak_;
}

void CompilePool::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    try {
      job();
    } catch (...) {  // a job that throws (out of memory) is dropped, never the process
    }
    job = nullptr;  // its captures go before the pool reports idle
    lock.lock();
    --running_;
    if (queue_.empty() && running_ == 0) idle_.notify_all();
  }
}

}  // namespace rowjit::jit
