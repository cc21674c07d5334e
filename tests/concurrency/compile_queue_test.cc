// Concurrency of background compiles (tests): threads whose lookups race a full compile queue,
// queued compiles dropped because their keys were evicted, and callers waiting for optimized
// kernels those dropped compiles were to make. Built alone for ThreadSanitizer (tools/test).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/random.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

// Four threads evaluate twelve expressions through an engine that keeps three kernels and queues
// two compiles, half the calls waiting for the optimized kernel: every call answers, right, and
// the engine ends idle.
TEST(CompileQueue, ThreadsRaceRefusalsDropsAndWaitersAndEveryCallAnswers) {
  const Schema schema = *ParseSchema("a:i32?, b:i32, c:f64");
  const RecordBatch batch = *RandomBatch(schema, 500, 0.9, 17);
  struct Case {
    ir::ExprPtr expr;
    ArrayPtr expected;
  };
  std::vector<Case> cases;
  for (int i = 0; i < 12; ++i) {
    // Static-tier arithmetic and casts only the fast tier answers, in turn.
    const std::string text = i % 2 ? fmt::format("a * b + {}", i) : fmt::format("cast(a, f64) * c + {}", i);
    Case c;
    ASSERT_OK_AND_ASSIGN(c.expr, ir::ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(c.expected, ir::EvaluateReference(*c.expr, batch.columns, batch.length));
    cases.push_back(std::move(c));
  }
  auto engine = std::move(Engine::Make({.cache_capacity = 3,
                                        .held_expressions = 0,
                                        .compile_threads = 2,
                                        .max_queued_compiles = 2}))
                    .value();
  std::atomic<int> wrong{0}, calls{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300 && std::chrono::steady_clock::now() < deadline; ++i) {
        const Case& c = cases[(t * 5 + i * 7) % cases.size()];
        EvalOptions options;
        if ((t + i) % 2 == 0) options.tier = Tier::kOptimized;
        Result<ArrayPtr> out = engine->Evaluate(c.expr, batch, options);
        if (!out.ok() || FirstDifference(**out, *c.expected) != -1) ++wrong;
        ++calls;
      }
    });
  }
  for (auto& th : threads) th.join();
  engine->WaitForCompiles();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GE(calls.load(), 40);
  const CacheStats s = engine->cache_stats();
  EXPECT_EQ(s.compile_queue, 0);
  EXPECT_LE(s.compile_queue_peak, 2);
  EXPECT_GT(s.evictions, 0);
  EXPECT_GT(s.background_refused + s.background_dropped, 0);
}

}  // namespace
}  // namespace rowjit::jit
