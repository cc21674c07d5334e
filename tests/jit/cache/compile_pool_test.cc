// The background compile pool and the kernel cache's background compiles (tests, cache room):
// thread counts clamped, a thread that cannot start is an error, a bounded queue that refuses
// and drops jobs without leaving a waiter waiting, compiles of evicted keys dropped, and a flood
// of one-off expressions through a tiered engine.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <limits>
#include <mutex>
#include <thread>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/cache/compile_pool.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/sanitized.h"

namespace rowjit::jit {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The process's resident set now, in bytes.
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// A latch a test opens: jobs (or optimized compiles) that reach it wait until then.
class Gate {
 public:
  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    ++arrived_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  void WaitForArrivals(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return arrived_ >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  bool open_ = false;
};

TEST(CompilePool, ThreadCountsAreClampedToTheHardware) {
  EXPECT_GE(CompilePool::MaxThreads(), 1);
  EXPECT_LE(CompilePool::MaxThreads(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  for (const auto& [asked, got] : std::vector<std::pair<int, int>>{
           {100000, CompilePool::MaxThreads()}, {1, 1}, {0, 1}, {-5, 1}}) {
    ASSERT_OK_AND_ASSIGN(auto pool, CompilePool::Make(asked, 4));
    EXPECT_EQ(pool->threads(), got) << asked;
  }
  ASSERT_OK_AND_ASSIGN(auto pool, CompilePool::Make(1, 0));
  EXPECT_EQ(pool->max_queued(), 1u);
}

// A process whose address space has no room for a thread's stack: Make returns an error; the
// std::system_error of std::thread never escapes (a pool left with joinable threads would end
// the process).
TEST(CompilePool, AThreadTheSystemCannotStartIsAnError) {
  if (testing::kSanitized) GTEST_SKIP() << "a sanitizer's runtime reserves its own address space";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Threads get stacks larger than any the process freed before (glibc keeps those for reuse),
    // and the address space has room for none.
    pthread_attr_t attr;
    if (::pthread_attr_init(&attr) != 0 || ::pthread_attr_setstacksize(&attr, size_t{1} << 30) != 0 ||
        ::pthread_setattr_default_np(&attr) != 0) {
      ::_exit(3);
    }
    std::ifstream statm("/proc/self/statm");
    int64_t pages = 0;
    statm >> pages;
    const rlim_t room = static_cast<rlim_t>(pages * ::sysconf(_SC_PAGESIZE) + (int64_t{64} << 20));
    const struct rlimit limit = {room, room};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(3);
    Result<std::unique_ptr<CompilePool>> pool = CompilePool::Make(2, 4);
    if (pool.ok()) ::_exit(1);
    ::_exit(pool.error().message().find("cannot start compile thread") != std::string::npos ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a pool was made; 2: another error; 3: no limits set";
}

TEST(CompilePool, AFullQueueRefusesAJobAndDestroysItUnrun) {
  Gate gate;
  auto pool = std::move(CompilePool::Make(1, 2)).value();
  std::atomic<int> ran{0};
  ASSERT_TRUE(pool->Submit([&] { gate.Pass(); ++ran; }));
  gate.WaitForArrivals(1);  // running: the queue is empty again
  ASSERT_TRUE(pool->Submit([&] { ++ran; }));
  ASSERT_TRUE(pool->Submit([&] { ++ran; }));
  auto witness = std::make_shared<int>(0);
  std::weak_ptr<int> seen = witness;
  EXPECT_FALSE(pool->Submit([&ran, w = std::move(witness)] { ++ran; }));
  EXPECT_TRUE(seen.expired()) << "a refused job outlived Submit";
  EXPECT_EQ(pool->queued(), 2);
  EXPECT_EQ(pool->queued_peak(), 2);
  gate.Open();
  pool->WaitIdle();
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(pool->queued(), 0);
  // Destroying the pool drops what is queued, unrun, and waits for what runs.
  Gate second;
  ASSERT_TRUE(pool->Submit([&] { second.Pass(); ++ran; }));
  second.WaitForArrivals(1);
  ASSERT_TRUE(pool->Submit([&] { ++ran; }));
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    second.Open();
  });
  pool.reset();
  opener.join();
  EXPECT_EQ(ran.load(), 4);
}

// compile_threads past the hardware gives an engine (clamped); the queue's bound and the claim
// wait are checked.
TEST(CompilePool, EngineOptionsPastTheHardwareGiveAnEngineOrAnError) {
  const Schema schema = *ParseSchema("a:i32");
  const RecordBatch batch = *RandomBatch(schema, 100, 1.0, 1);
  const ir::ExprPtr expr = *ir::ParseAndBind("a + 1", schema);
  for (int threads : {100000, std::numeric_limits<int>::max(), 0, -1}) {
    ASSERT_OK_AND_ASSIGN(auto engine, Engine::Make({.compile_threads = threads}));
    ASSERT_OK(engine->Evaluate(expr, batch));
    engine->WaitForCompiles();
    EXPECT_EQ(engine->cache_stats().compiles, 1) << threads;
  }
  auto no_queue = Engine::Make({.max_queued_compiles = 0});
  ASSERT_FALSE(no_queue.ok());
  EXPECT_EQ(no_queue.error().code(), ErrorCode::kInvalidInput);
  auto negative_wait = Engine::Make({.claim_wait_ms = -1});
  ASSERT_FALSE(negative_wait.ok());
  EXPECT_NE(negative_wait.error().message().find("claim_wait_ms"), std::string::npos);
}

// The real compiler, whose optimized compiles wait at a gate the test opens.
class GatedCompiler final : public JitCompiler {
 public:
  explicit GatedCompiler(Gate& gate) : real_(std::move(JitCompiler::Make()).value()), gate_(gate) {}
  Result<KernelObject> Emit(const CacheKey& key, Tier tier) override {
    if (tier == Tier::kOptimized) gate_.Pass();
    return real_->Emit(key, tier);
  }
  Result<std::shared_ptr<const CompiledKernel>> Link(const KernelObject& object, const KernelShape& shape,
                                                    Tier tier) override {
    return real_->Link(object, shape, tier);
  }
  std::string ObjectEnvironment() const override { return real_->ObjectEnvironment(); }

 private:
  std::unique_ptr<JitCompiler> real_;
  Gate& gate_;
};

// One-off expressions the static tier answers while their optimized kernels queue, over an
// engine whose optimized compiles wait at a gate (opened before the engine goes).
struct GatedEngine {
  explicit GatedEngine(EngineOptions options) {
    options.held_expressions = 0;
    options.compile_threads = 1;
    engine = std::move(Engine::Make(options, std::make_unique<GatedCompiler>(gate))).value();
  }
  ~GatedEngine() {
    gate.Open();
    engine.reset();
  }
  // Evaluates expression `i`, checked against the reference; returns its report.
  EvalReport Evaluate(int i, EvalOptions options = {}) {
    const ir::ExprPtr expr = *ir::ParseAndBind(fmt::format("a * b + {}", i), schema);
    EvalReport report;
    Result<ArrayPtr> out = engine->Evaluate(expr, batch, options, &report);
    EXPECT_TRUE(out.ok()) << i << ": " << out.error().ToString();
    if (out.ok()) {
      EXPECT_EQ(FirstDifference(**out, **ir::EvaluateReference(*expr, batch.columns, batch.length)), -1) << i;
    }
    return report;
  }

  Gate gate;
  Schema schema = *ParseSchema("a:i32?, b:i32");
  RecordBatch batch = *RandomBatch(schema, 200, 0.9, 7);
  std::unique_ptr<Engine> engine;
};

// Queued compiles whose keys the cache evicted are dropped when they come up, not compiled; a
// later lookup of such a key starts its compile again.
TEST(CompilePool, AQueuedCompileWhoseKeyWasEvictedIsDroppedAndStartsAgainLater) {
  GatedEngine g({.cache_capacity = 4});
  EXPECT_EQ(g.Evaluate(0).tier, Tier::kStatic);
  g.gate.WaitForArrivals(1);  // key 0 compiles (and waits); keys 1..9 queue behind it
  for (int i = 1; i < 10; ++i) EXPECT_EQ(g.Evaluate(i).tier, Tier::kStatic) << i;
  EXPECT_EQ(g.engine->cache_stats().compile_queue, 9);
  g.gate.Open();
  g.engine->WaitForCompiles();
  CacheStats s = g.engine->cache_stats();
  EXPECT_EQ(s.background_compiles, 10);
  EXPECT_EQ(s.compiles, 5);  // key 0 (running when it was evicted) and the four cached keys 6..9
  EXPECT_EQ(s.background_dropped, 5);  // keys 1..5
  EXPECT_EQ(s.compile_queue, 0);
  EXPECT_EQ(g.Evaluate(1).tier, Tier::kStatic);
  g.engine->WaitForCompiles();
  EXPECT_EQ(g.Evaluate(1).tier, Tier::kOptimized);
  s = g.engine->cache_stats();
  EXPECT_EQ(s.background_compiles, 11);
  EXPECT_EQ(s.compiles, 6);
}

// A full queue refuses a key's compile: the key answers through its lower tier, the refusal is
// counted, and a later lookup queues the compile again.
TEST(CompilePool, AFullQueueLeavesAKeyOnItsLowerTierUntilALaterLookup) {
  GatedEngine g({.max_queued_compiles = 2});
  EXPECT_EQ(g.Evaluate(0).tier, Tier::kStatic);
  g.gate.WaitForArrivals(1);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(g.Evaluate(i).tier, Tier::kStatic) << i;
  CacheStats s = g.engine->cache_stats();
  EXPECT_EQ(s.background_compiles, 3);
  EXPECT_EQ(s.background_refused, 1);  // key 3
  EXPECT_EQ(s.compile_queue, 2);
  EXPECT_EQ(s.compile_queue_peak, 2);
  g.gate.Open();
  g.engine->WaitForCompiles();
  EXPECT_EQ(g.engine->cache_stats().compiles, 3);
  EXPECT_EQ(g.Evaluate(3).tier, Tier::kStatic);  // queued now
  g.engine->WaitForCompiles();
  EXPECT_EQ(g.Evaluate(3).tier, Tier::kOptimized);
  s = g.engine->cache_stats();
  EXPECT_EQ(s.compiles, 4);
  EXPECT_EQ(s.background_refused, 1);
  EXPECT_EQ(s.compile_queue_peak, 2);
}

// A caller that waits for the optimized kernel a queued job was to make, when that job is dropped
// (its key evicted), gets the kernel all the same: it makes it itself.
TEST(CompilePool, AWaiterOnADroppedCompileMakesTheKernelItself) {
  GatedEngine g({.cache_capacity = 2});
  g.Evaluate(0);
  g.gate.WaitForArrivals(1);
  g.Evaluate(1);  // queued behind key 0
  auto waiter = std::async(std::launch::async, [&] { return g.Evaluate(1, {.tier = Tier::kOptimized}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // waiting on key 1's job
  g.Evaluate(2);
  g.Evaluate(3);  // keys 0 and 1 evicted
  g.gate.Open();
  ASSERT_EQ(waiter.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "a waiter was left waiting";
  const EvalReport report = waiter.get();
  EXPECT_EQ(report.tier, Tier::kOptimized);
  g.engine->WaitForCompiles();
  EXPECT_GE(g.engine->cache_stats().background_dropped, 1);
}

// A flood of one-off expressions through a tiered engine with one compile thread: the queue never
// holds more than its bound, the rest are refused (their calls answered by the static tier), the
// process's memory stays flat, and destroying the engine does not wait for the backlog.
TEST(CompilePool, AFloodOfOneOffExpressionsKeepsTheQueueBounded) {
  constexpr int kExpressions = 2000;
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  const RecordBatch batch = *RandomBatch(schema, 64, 0.9, 3);
  auto engine = std::move(Engine::Make({.compile_threads = 1})).value();
  ASSERT_OK(engine->Evaluate(*ir::ParseAndBind("a * b - 1", schema), batch));  // warm: the JIT is up
  const int64_t resident_before = ResidentBytes();
  const auto start = Clock::now();
  for (int i = 0; i < kExpressions; ++i) {
    const ir::ExprPtr expr = *ir::ParseAndBind(fmt::format("a * b + {}", i), schema);
    Result<ArrayPtr> out = engine->Evaluate(expr, batch);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    if (i % 250 == 0) {
      EXPECT_EQ(FirstDifference(**out, **ir::EvaluateReference(*expr, batch.columns, batch.length)), -1) << i;
      EXPECT_LE(engine->cache_stats().compile_queue, 256) << i;
    }
  }
  const double flood_seconds = SecondsSince(start);
  const int64_t grown = ResidentBytes() - resident_before;
  const CacheStats s = engine->cache_stats();
  EXPECT_LE(s.compile_queue_peak, 256);
  EXPECT_GT(s.background_refused, 0);
  EXPECT_EQ(s.background_compiles + s.background_refused, kExpressions + 1);  // and the warm-up's
  // (A sanitizer's quarantine keeps freed memory resident: there only the queue is checked.)
  if (!testing::kSanitized) {
    EXPECT_LT(grown, int64_t{64} << 20) << "resident set grew by " << grown << " bytes";
  }
  const auto destroying = Clock::now();
  engine.reset();
  EXPECT_LT(SecondsSince(destroying), 5.0);
  RecordProperty("flood_ms", static_cast<int>(flood_seconds * 1000));
  RecordProperty("resident_growth_kib", static_cast<int>(grown >> 10));
  RecordProperty("queue_peak", static_cast<int>(s.compile_queue_peak));
}

}  // namespace
}  // namespace rowjit::jit
