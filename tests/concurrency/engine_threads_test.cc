// Concurrency: many threads through one Engine (kernel cache single-flight, compile reporting) and
// a soak test with constant eviction, compared with a single-threaded run. Built alone for
// ThreadSanitizer (tools/test), and run under ASan + UBSan with the other tests (concurrency).
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <chrono>
#include <random>
#include <thread>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/query.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/random_data.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine(EngineOptions options = {}) {
  return std::move(Engine::Make(options)).value();  // aborts with the error's text on failure
}

const EngineOptions kSynchronous{.compile = EngineOptions::Compile::kSynchronous};

// Eight threads evaluate four expressions through one engine, each the expressions of the
// others: every result is right and every key is compiled once per tier it needs.
void EightThreads(Engine& engine) {
  const Schema schema = *ParseSchema("a:i32?, b:i32, c:u8");
  const std::vector<std::string> texts = {"a * b + 1", "a - b", "cast(c, i32) * b", "b * b < a"};
  std::vector<ir::ExprPtr> exprs;
  for (const auto& t : texts) exprs.push_back(*ir::ParseAndBind(t, schema));
  auto batch = *RandomBatch(schema, 5000, 0.9, 5);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        const auto& e = exprs[(t + k) % exprs.size()];
        auto out = engine.Evaluate(e, batch, EvalOptions{ir::Policy::kDense});
        auto ref = ir::EvaluateReference(*e, batch.columns, batch.length);
        if (!out.ok() || !ref.ok() || FirstDifference(**out, **ref) != -1) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(KernelCache, EightThreadsCompileEachKeyOnce) {
  auto engine = NewEngine(kSynchronous);
  EightThreads(*engine);
  const CacheStats s = engine->cache_stats();
  EXPECT_EQ(s.compiles, 4);  // exactly one compile per key
  EXPECT_EQ(s.fast_compiles, 0);
  // Every other call found its kernel: by a cache lookup, or (an expression passed again) on a
  // handle the engine holds for it, with no lookup.
  EXPECT_EQ(s.hits + s.held, 8 * 20 - 4);
  EXPECT_GT(s.held, 0);
}

TEST(KernelCache, EightThreadsTieredCompileEachKeyOncePerTier) {
  auto engine = NewEngine();
  EightThreads(*engine);
  engine->WaitForCompiles();
  const CacheStats s = engine->cache_stats();
  // The static tier answers three of the four before their optimized kernels are ready; the
  // cast has no static kernel, and the first lookups of its key share one fast compile.
  EXPECT_EQ(s.fast_compiles, 1);
  EXPECT_EQ(s.background_compiles, 4);
  EXPECT_EQ(s.compiles, 4);
  EXPECT_EQ(s.background_failures, 0);
}

// Under concurrency each call says whether it compiled: of many threads evaluating one new
// expression at once, exactly one compiled it, and only that one reports a compile time.
TEST(Engine, ExactlyOneConcurrentCallReportsTheCompile) {
  auto engine = NewEngine(kSynchronous);
  const Schema schema = *ParseSchema("a:i32, b:i32, c:i32");
  auto batch = *RandomBatch(schema, 256, 1.0, 5);
  for (int round = 0; round < 3; ++round) {
    auto expr = *ir::ParseAndBind(fmt::format("a * b + c * {}", round + 2), schema);
    constexpr int kThreads = 8;
    std::vector<EvalReport> reports(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] { ASSERT_TRUE(engine->Evaluate(expr, batch, {}, &reports[t]).ok()); });
    }
    for (auto& th : threads) th.join();
    int compiled = 0;
    for (const EvalReport& r : reports) {
      compiled += r.compiled;
      EXPECT_EQ(r.compile_ms > 0, r.compiled);
    }
    EXPECT_EQ(compiled, 1) << "round " << round;
  }
}

// Eight threads share one prepared expression on a tiered engine, over batches of three layouts
// (no nulls, nulls, a dictionary): layouts are planned and published while other threads read
// them, the static or fast tier answering until the optimized kernels are ready. Every result is
// right, and once the compiles are done all three layouts are held.
TEST(PreparedExpression, EightThreadsShareOneHandle) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b + 7", schema);
  auto prepared = std::move(engine->PrepareExpression(expr)).value();
  std::vector<RecordBatch> batches = {*RandomBatch(schema, 300, 1.0, 1), *RandomBatch(schema, 300, 0.7, 2)};
  RecordBatch dict = batches[0];
  std::mt19937_64 rng(3);
  dict.columns[1] = AsDictionary(dict.columns[1], rng);
  batches.push_back(dict);
  std::vector<std::string> want;
  for (const RecordBatch& b : batches) {
    auto r = ir::EvaluateReference(*expr, b.columns, b.length);
    want.push_back(r.ok() ? (*r)->ToString(1'000'000) : r.error().ToString());
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 60; ++k) {
        const size_t i = static_cast<size_t>(t + k) % batches.size();
        auto r = prepared->Evaluate(batches[i].columns, batches[i].length);
        if ((r.ok() ? (*r)->ToString(1'000'000) : r.error().ToString()) != want[i]) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  engine->WaitForCompiles();
  for (const RecordBatch& b : batches) ASSERT_TRUE(prepared->Evaluate(b.columns, b.length).ok());
  EXPECT_EQ(prepared->layouts(), 3u);
}

// Eight threads share one handle's EvaluateInto, each into its own memory, dropping each result
// (the handle's last result is handed out again only to a call into that same memory, when
// nobody holds it): every result lies in the caller's memory and equals the reference, null
// count included.
TEST(PreparedExpression, EightThreadsEvaluateIntoTheirOwnMemory) {
  auto engine = NewEngine(kSynchronous);
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b + 7", schema);
  auto prepared = std::move(engine->PrepareExpression(expr)).value();
  constexpr int64_t kRows = 300;
  const std::vector<RecordBatch> batches = {*RandomBatch(schema, kRows, 0.5, 1), *RandomBatch(schema, kRows, 0.7, 2),
                                            *RandomBatch(schema, kRows, 1.0, 3)};
  std::vector<std::string> want;
  std::vector<int64_t> nulls;
  for (const RecordBatch& b : batches) {
    auto r = ir::EvaluateReference(*expr, b.columns, b.length).value();
    want.push_back(r->ToString(1'000'000));
    nulls.push_back(r->NullCount());
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<int32_t> values(kRows);
      std::vector<uint64_t> validity((kRows + 63) / 64);
      const OutputBuffers out{values.data(), kRows * 4, validity.data(), static_cast<int64_t>(validity.size() * 8)};
      for (int k = 0; k < 60; ++k) {
        const size_t i = static_cast<size_t>(t + k) % batches.size();
        auto r = prepared->EvaluateInto(batches[i].columns, kRows, out);
        const bool right = r.ok() && (*r)->ToString(1'000'000) == want[i] && (*r)->NullCount() == nulls[i] &&
                           static_cast<const PrimitiveArray&>(**r).raw_values() ==
                               reinterpret_cast<const uint8_t*>(values.data());
        if (!right) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Eight threads share two prepared aggregates on a tiered engine, over batches of four layouts
// (no nulls, nulls, an all-null column, and a batch longer than a fold slice, which the sum takes
// through the engine's path every call and min_max through the nulls' layout): layouts are
// planned and published while other threads fold through
// them, the fast tier answering until the optimized kernels are ready. Every result equals the
// reference fold, and once the compiles are done the three single-kernel layouts are held.
TEST(PreparedAggregate, EightThreadsShareOneHandle) {
  auto engine = NewEngine(EngineOptions{.fold_slice_rows = 2048});
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  std::vector<std::unique_ptr<PreparedAggregate>> handles;
  std::vector<ir::Aggregate> aggs;
  for (const char* text : {"sum(a * b)", "min_max(a - b)"}) {
    aggs.push_back(*ir::ParseAndBindAggregate(text, schema));
    handles.push_back(std::move(engine->PrepareAggregate(aggs.back())).value());
  }
  std::vector<RecordBatch> batches = {*RandomBatch(schema, 300, 1.0, 1), *RandomBatch(schema, 300, 0.7, 2),
                                      *RandomBatch(schema, 300, 0.0, 3), *RandomBatch(schema, 5000, 0.9, 4)};
  std::vector<std::vector<std::string>> want(aggs.size());
  for (size_t h = 0; h < aggs.size(); ++h) {
    for (const RecordBatch& b : batches) {
      auto r = ir::EvaluateAggregateReference(aggs[h], b.columns, b.length);
      want[h].push_back(r.ok() ? r->ToString(aggs[h].kind) : r.error().ToString());
    }
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 60; ++k) {
        const size_t i = static_cast<size_t>(t + k) % batches.size(), h = static_cast<size_t>(t + k / 4) % aggs.size();
        auto r = handles[h]->Aggregate(batches[i].columns, batches[i].length);
        if ((r.ok() ? r->ToString(aggs[h].kind) : r.error().ToString()) != want[h][i]) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  engine->WaitForCompiles();
  for (const auto& handle : handles) {
    for (const RecordBatch& b : batches) ASSERT_TRUE(handle->Aggregate(b.columns, b.length).ok());
    EXPECT_EQ(handle->layouts(), 3u);
  }
}

// Eight threads fold batches of one query object into states of their own through one tiered
// engine (the query's plan, its slot-codes hint and its remembered kernels shared, the kernel
// compiled fast then optimized while they run); the merged states equal the reference's fold of
// every batch (integer sums: the order does not matter).
TEST(Query, EightThreadsFoldOneQuery) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, b:i32, g:u8");
  const auto query = std::make_shared<const ir::Query>(
      *ir::ParseAndBindQuery("sum(a), sum(b * a), count(*) group by g where b > 0", schema));
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 4; ++i) {
    RecordBatch batch = *RandomBatch(schema, 3000 + 1000 * i, 1.0, 10 + i);
    std::vector<Scalar> g;
    for (int64_t r = 0; r < batch.length; ++r) g.push_back(Scalar::Of<uint8_t>(static_cast<uint8_t>((r * 7 + i) % (3 + i))));
    batch.columns[2] = *MakeArray(DataType(TypeId::kU8, false), g);
    batches.push_back(std::move(batch));
  }
  constexpr int kThreads = 8, kBatches = 24;
  std::vector<ir::QueryState> states(kThreads, ir::QueryState(query));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kBatches; ++k) {
        const RecordBatch& b = batches[static_cast<size_t>(t + k) % batches.size()];
        if (!engine->FoldQuery(states[t], b.columns, b.length).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ir::QueryState reference(query);
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kBatches; ++k) {
      const RecordBatch& b = batches[static_cast<size_t>(t + k) % batches.size()];
      ASSERT_OK(ir::FoldQueryReference(reference, b.columns, b.length));
    }
  }
  for (int t = 1; t < kThreads; ++t) ASSERT_OK(states[0].Merge(states[t]));
  auto got = states[0].Finish();
  auto want = reference.Finish();
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(got->ToString(), want->ToString());
}

// One projection handle and one predicate handle shared by eight threads, each writing into its
// own caller memory: every result equals the single-threaded reference.
TEST(PreparedProjection, EightThreadsShareOneHandleWritingTheirOwnMemory) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  const std::vector<ir::ExprPtr> exprs = {*ir::ParseAndBind("a * b + 7", schema), *ir::ParseAndBind("b - 1", schema)};
  auto projection = std::move(engine->PrepareProjection(exprs)).value();
  auto filter = std::move(engine->PrepareExpression(*ir::ParseAndBind("a > b", schema))).value();
  const std::vector<RecordBatch> batches = {*RandomBatch(schema, 300, 1.0, 1), *RandomBatch(schema, 300, 0.7, 2)};
  std::vector<std::string> want;
  for (const RecordBatch& b : batches) {
    std::string text;
    for (const ir::ExprPtr& e : exprs) {
      auto r = ir::EvaluateReference(*e, b.columns, b.length);
      text += r.ok() ? (*r)->ToString(1'000'000) : r.error().ToString();
    }
    want.push_back(text + fmt::format(" {}", engine->Filter(filter->expr(), b.columns, b.length)->size()));
  }
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<uint64_t> memory(4 * 300);  // values and validity of both outputs
      const std::vector<OutputBuffers> outs = {{&memory[0], 1200, &memory[300], 40}, {&memory[600], 1200, &memory[900], 40}};
      for (int k = 0; k < 40; ++k) {
        const size_t i = static_cast<size_t>(t + k) % batches.size();
        auto r = k % 2 ? projection->ProjectInto(batches[i].columns, batches[i].length, outs)
                       : projection->Project(batches[i].columns, batches[i].length);
        auto kept = filter->Filter(batches[i].columns, batches[i].length);
        std::string text;
        if (r.ok()) {
          for (const ArrayPtr& a : *r) text += a->ToString(1'000'000);
        } else {
          text = r.error().ToString();
        }
        if (!kept.ok() || text + fmt::format(" {}", kept->size()) != want[i]) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// One case of the soak: an expression or an aggregate over a batch, and its single-threaded
// result as text (values, or the error with its row).
struct SoakCase {
  ir::ExprPtr expr;
  std::optional<ir::Aggregate> aggregate;
  RecordBatch batch;
  std::string expected;
};

std::string Outcome(Engine& engine, const SoakCase& c) {
  if (c.aggregate) {
    auto r = engine.Aggregate(*c.aggregate, c.batch.columns, c.batch.length);
    return r.ok() ? r->ToString(c.aggregate->kind) : r.error().ToString();
  }
  auto r = engine.Evaluate(c.expr, c.batch);
  return r.ok() ? (*r)->ToString(1'000'000) : r.error().ToString();
}

// Four threads evaluate and aggregate random expressions through one engine whose cache holds
// three kernels (every lookup races an eviction); each result equals the single-threaded one.
// Bounded by time, so it fits the sanitizer runs.
TEST(Soak, ThreadsThroughOneEngineWithConstantEvictionMatchASingleThread) {
  Schema schema;
  for (TypeId id : {TypeId::kI16, TypeId::kI32, TypeId::kI64, TypeId::kF64, TypeId::kBool}) {
    schema.fields.push_back(Field{"n_" + std::string(TypeIdName(id)), DataType(id, true)});
    schema.fields.push_back(Field{"c_" + std::string(TypeIdName(id)), DataType(id, false)});
  }
  std::vector<SoakCase> cases;
  auto single = NewEngine();
  for (uint64_t seed = 1; cases.size() < 24; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId want = std::vector<TypeId>{TypeId::kI32, TypeId::kI64, TypeId::kF64, TypeId::kBool}[rng() % 4];
    const std::string text = testing::RandomExpression(want, schema, 3, rng);
    SoakCase c;
    ASSERT_OK_AND_ASSIGN(c.expr, ir::ParseAndBind(text, schema));
    if (seed % 3 == 0 && want != TypeId::kBool) {
      ASSERT_OK_AND_ASSIGN(c.aggregate, ir::ParseAndBindAggregate("sum(" + text + ")", schema));
    }
    ASSERT_OK_AND_ASSIGN(c.batch, RandomBatch(schema, 1 + static_cast<int64_t>(rng() % 2000), 0.8, seed));
    c.expected = Outcome(*single, c);
    cases.push_back(std::move(c));
  }
  auto shared = NewEngine(EngineOptions{.cache_capacity = 3});
  std::atomic<int> mismatches{0}, runs{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 order(static_cast<uint64_t>(t) + 100);
      for (int i = 0; i < 400 && std::chrono::steady_clock::now() < deadline; ++i) {
        const SoakCase& c = cases[order() % cases.size()];
        const std::string got = Outcome(*shared, c);
        if (got != c.expected && ++mismatches <= 3) {
          ADD_FAILURE() << c.expr->ToString() << "\n got " << got.substr(0, 300) << "\n expected "
                        << c.expected.substr(0, 300);
        }
        ++runs;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_GE(runs.load(), 40);
  EXPECT_GT(shared->cache_stats().evictions, 0);
}

}  // namespace
}  // namespace rowjit::jit
