// The background compile pool (jit layer, cache room): a few threads that run optimizing compiles
// while evaluations go on with fast kernels.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rowjit::jit {

class CompilePool {
 public:
  explicit CompilePool(int threads);
  // Stops taking jobs, drops the queued ones and waits for the running ones.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  void Submit(std::function<void()> job);
  // Blocks until no job is queued or running.
  void WaitIdle();

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  int running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rowjit::jit
