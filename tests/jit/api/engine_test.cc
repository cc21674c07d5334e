// Engine: errors behind nulls, error rows, strategies, constants, Arrow inputs, the kernel cache
// under concurrency and eviction (jit).
#include "jit/api/engine.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>

#include "ir/aggregate.h"
#include "jit/compile/compiler.h"
#include "jit/base/host.h"
#include "jit/base/target.h"
#include "kernels/dispatch.h"
#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/reference.h"
#include "runtime/arrow_c.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

// Synchronous compiles: these tests are about what the kernels and strategies do (the tiers
// have their own tests).
std::unique_ptr<Engine> NewEngine(EngineOptions options = {.compile = EngineOptions::Compile::kSynchronous}) {
  options.compile = EngineOptions::Compile::kSynchronous;
  return std::move(Engine::Make(options)).value();
}

ArrayPtr Col(DataType t, std::string_view text) {
  auto a = ArrayFromText(t, text);
  EXPECT_TRUE(a.ok()) << a.error().ToString();
  return *a;
}

const DataType kI32(TypeId::kI32), kI32N(TypeId::kI32, true);

TEST(Engine, ErrorsOnlyBehindNullsNeverSurface) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b", schema);
  // Row 1 overflows but a is null there; every policy must hide it.
  std::vector<ArrayPtr> cols = {Col(kI32N, "[2, null, 3]"), Col(kI32, "[5, 2147483647, 7]")};
  for (ir::Policy p : {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                       ir::Policy::kBranchSkip, ir::Policy::kFilterScatter}) {
    EvalReport report;
    auto out = engine->Evaluate(expr, cols, 3, EvalOptions{p}, &report);
    ASSERT_TRUE(out.ok()) << ir::PolicyName(p) << ": " << out.error().ToString();
    EXPECT_EQ((*out)->ToString(), "[10, null, 21]") << ir::PolicyName(p);
  }
}

TEST(Engine, ErrorInAValidRowSurfacesWithItsRow) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b", schema);
  std::vector<ArrayPtr> cols = {Col(kI32N, "[2, null, 3, 65536, 65536]"),
                                Col(kI32, "[5, 2147483647, 7, 65536, 1]")};
  for (ir::Policy p : {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                       ir::Policy::kBranchSkip, ir::Policy::kFilterScatter}) {
    EvalReport report;
    auto out = engine->Evaluate(expr, cols, 5, EvalOptions{p}, &report);
    ASSERT_FALSE(out.ok()) << ir::PolicyName(p);
    EXPECT_EQ(out.error().code(), ErrorCode::kOverflow);
    EXPECT_EQ(out.error().function(), "mul");
    EXPECT_EQ(out.error().row(), 3) << ir::PolicyName(p);
    EXPECT_TRUE(report.cold_pass);
  }
}

TEST(Engine, DenseRetryRerunsOverValidRows) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b", schema);
  std::vector<ArrayPtr> cols = {Col(kI32N, "[2, null, 3]"), Col(kI32, "[5, 2147483647, 7]")};
  // Behind the null in row 1 the value buffer holds 0 (MakeArray zeroes it): give it a value
  // that overflows by building the array from a buffer directly.
  auto values = *Buffer::Allocate(12);
  const int32_t raw[] = {2, 1 << 20, 3};
  std::memcpy(values->mutable_data(), raw, 12);
  auto bits = *AllocateBitmap(3);
  kernels::SetBitTo(bits->mutable_data(), 0, true);
  kernels::SetBitTo(bits->mutable_data(), 2, true);
  cols[0] = *PrimitiveArray::Make(kI32N, 3, values, *Validity::FromBitmap(bits, 0, 3));
  EvalReport report;
  auto out = engine->Evaluate(expr, cols, 3, EvalOptions{ir::Policy::kDenseRetry}, &report);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  EXPECT_EQ((*out)->ToString(), "[10, null, 21]");
  EXPECT_EQ(report.strategy, Strategy::kDenseRetry);
  EXPECT_TRUE(report.retried);
  EXPECT_FALSE(report.cold_pass);
}

// Policy auto: a fallible expression over a batch with nulls runs dense with retry; when rows
// behind nulls keep raising evidence it runs valid-only for a few batches, then tries dense
// again. Every result is the same.
TEST(Engine, AutoFallsBackToValidOnlyWhileRowsBehindNullsKeepFailing) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b", schema);
  auto values = *Buffer::Allocate(12);
  const int32_t raw[] = {2, 1 << 20, 3};  // row 1 is null and overflows behind its null
  std::memcpy(values->mutable_data(), raw, 12);
  auto bits = *AllocateBitmap(3);
  kernels::SetBitTo(bits->mutable_data(), 0, true);
  kernels::SetBitTo(bits->mutable_data(), 2, true);
  std::vector<ArrayPtr> garbage = {*PrimitiveArray::Make(kI32N, 3, values, *Validity::FromBitmap(bits, 0, 3)),
                                   Col(kI32, "[5, 2147483647, 7]")};
  std::vector<ArrayPtr> clean = {Col(kI32N, "[2, null, 3]"), Col(kI32, "[5, 2147483647, 7]")};
  std::vector<std::string> strategies;
  auto run = [&](const std::vector<ArrayPtr>& cols) {
    EvalReport report;
    auto out = engine->Evaluate(expr, cols, 3, {}, &report);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    EXPECT_EQ((*out)->ToString(), "[10, null, 21]");
    EXPECT_FALSE(report.cold_pass);
    strategies.push_back(std::string(StrategyName(report.strategy)) + (report.retried ? "+retried" : ""));
  };
  run(clean);    // nothing behind the null fails: dense, no retry
  run(garbage);  // evidence behind the null: retried
  for (int i = 0; i < 4; ++i) run(garbage);  // valid-only while the pressure lasts
  run(garbage);  // dense again, and retried again
  EXPECT_EQ(strategies, (std::vector<std::string>{"dense-retry", "dense-retry+retried", "branch-skip",
                                                  "branch-skip", "branch-skip", "branch-skip",
                                                  "dense-retry+retried"}));
}

TEST(Engine, ConstantsAndNullConstants) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b + 1", schema);
  EvalReport report;
  std::vector<ArrayPtr> all_const = {*ConstantArray::Make(Scalar::Of<int32_t>(6), 4),
                                     *ConstantArray::Make(Scalar::Of<int32_t>(7), 4)};
  auto out = engine->Evaluate(expr, all_const, 4, {}, &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(report.strategy, Strategy::kConstant);
  EXPECT_EQ((*out)->encoding(), Encoding::kConstant);
  EXPECT_EQ((*out)->ToString(), "[43, 43, 43, 43]");

  std::vector<ArrayPtr> null_const = {*ConstantArray::Make(Scalar::Null(TypeId::kI32), 3),
                                      Col(kI32, "[1, 2, 3]")};
  out = engine->Evaluate(expr, null_const, 3, {}, &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(report.strategy, Strategy::kNullConstant);
  EXPECT_EQ((*out)->ToString(), "[null, null, null]");

  // A batch constant in one argument: read at stride 0 by the kernel.
  std::vector<ArrayPtr> one_const = {Col(kI32N, "[1, null, 3]"),
                                     *ConstantArray::Make(Scalar::Of<int32_t>(10), 3)};
  out = engine->Evaluate(expr, one_const, 3, {}, &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->ToString(), "[11, null, 31]");

  // All-constant that fails: the error names row 0.
  std::vector<ArrayPtr> failing = {*ConstantArray::Make(Scalar::Of<int32_t>(1 << 20), 4),
                                   *ConstantArray::Make(Scalar::Of<int32_t>(1 << 20), 4)};
  out = engine->Evaluate(expr, failing, 4);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().row(), 0);
}

TEST(Engine, BadInputsAreErrors) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, b:i32");
  auto expr = *ir::ParseAndBind("a + b", schema);
  std::vector<ArrayPtr> short_col = {Col(kI32, "[1, 2]"), Col(kI32, "[1]")};
  auto out = engine->Evaluate(expr, short_col, 2);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code(), ErrorCode::kInvalidInput);
  std::vector<ArrayPtr> wrong_type = {Col(kI32, "[1]"), Col(DataType(TypeId::kF64), "[1]")};
  auto typed = engine->Evaluate(expr, wrong_type, 1);
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.error().code(), ErrorCode::kTypeError);
  auto codes = std::static_pointer_cast<const PrimitiveArray>(Col(DataType(TypeId::kU8), "[0, 5]"));
  std::vector<ArrayPtr> bad_dict = {Col(kI32, "[1, 2]"),
                                    *DictionaryArray::Make(codes, Col(kI32, "[1, 2]"))};
  auto dict = engine->Evaluate(expr, bad_dict, 2);
  ASSERT_FALSE(dict.ok());
  EXPECT_EQ(dict.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(dict.error().message().find("outside a dictionary"), std::string::npos);
  auto unbound = *ir::Parse("a + b");
  EXPECT_FALSE(engine->Evaluate(unbound, short_col, 2).ok());
  EXPECT_FALSE(engine->Evaluate(nullptr, short_col, 2).ok());
}

TEST(Engine, ArrowInputsZeroCopy) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto batch = *RandomBatch(schema, 1000, 0.5, 3);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array, &c_schema).ok());
  auto imported = ImportRecordBatch(&c_array, &c_schema);
  ASSERT_TRUE(imported.ok());
  // The imported columns are the exported buffers, not copies.
  for (int c = 0; c < 2; ++c) {
    const auto& before = static_cast<const PrimitiveArray&>(*batch.columns[c]);
    const auto& after = static_cast<const PrimitiveArray&>(*imported->columns[c]);
    EXPECT_EQ(after.raw_values(), before.raw_values()) << "column " << c;
  }
  const Validity before = ValidityOf(*batch.columns[0]), after = ValidityOf(*imported->columns[0]);
  ASSERT_TRUE(before.has_bitmap() && after.has_bitmap());
  EXPECT_EQ(after.bitmap()->data(), before.bitmap()->data());
  auto expr = *ir::ParseAndBind("(a - b) * 3 >= b", imported->schema);
  auto out = engine->Evaluate(expr, *imported);
  auto ref = ir::EvaluateReference(*expr, imported->columns, imported->length);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  ASSERT_TRUE(ref.ok()) << ref.error().ToString();
  EXPECT_EQ(FirstDifference(**out, **ref), -1);
}

TEST(KernelCache, EvictionFreesAndRecompiles) {
  auto engine = NewEngine(EngineOptions{.cache_capacity = 2});
  const Schema schema = *ParseSchema("a:i32, b:i32");
  auto batch = *RandomBatch(schema, 100, 1.0, 7);
  std::weak_ptr<const CompiledKernel> first;  // the kernel of "a + b", compiled first
  for (int round = 0; round < 2; ++round) {
    for (const char* t : {"a + b", "a - b", "a * b"}) {
      EvalReport report;
      auto out = engine->Evaluate(*ir::ParseAndBind(t, schema), batch, {}, &report);
      ASSERT_TRUE(out.ok()) << out.error().ToString();
      if (round == 0 && std::string_view(t) == "a + b") {
        ASSERT_TRUE(report.kernel.has_value());
        auto kernel = engine->KernelFor(*report.kernel);  // a hit: the cached kernel itself
        ASSERT_TRUE(kernel.ok()) << kernel.error().ToString();
        first = *kernel;
      }
    }
    // Evicted by the two after it and used by nothing: its machine code is gone.
    if (round == 0) {
      EXPECT_TRUE(first.expired());
    }
  }
  const CacheStats s = engine->cache_stats();
  EXPECT_EQ(s.size, 2);
  EXPECT_EQ(s.compiles, 6);  // LRU order with capacity 2 evicts each before its reuse
  EXPECT_EQ(s.evictions, 4);
}

// Engine::Evaluate and Aggregate called again with the same ExprPtr run on a handle the engine
// holds (EngineOptions::held_expressions): from the third call on a layout, no lookup. Results
// and errors equal the reference's on every path, batch layouts and options included.
TEST(HeldHandles, RepeatedExpressionsRunHeldAndEqualTheReference) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?");
  const ir::ExprPtr expr = *ir::ParseAndBind("a * b + 1", schema);
  const ir::Aggregate agg = *ir::ParseAndBindAggregate("sum(a * b)", schema);
  const ir::Aggregate min = *ir::ParseAndBindAggregate("min(a * b)", schema);
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    // Alternating layouts: nulls or none, a short batch or whole words.
    const double valid = seed % 3 == 0 ? 1.0 : 0.7;
    const int64_t rows = seed % 2 ? 200 : 50;
    auto batch = *RandomBatch(schema, rows, valid, seed);
    for (ir::Policy policy : {ir::Policy::kAuto, ir::Policy::kDense}) {
      auto out = engine->Evaluate(expr, batch, EvalOptions{policy});
      auto ref = ir::EvaluateReference(*expr, batch.columns, batch.length);
      ASSERT_EQ(out.ok(), ref.ok()) << "seed " << seed;
      if (out.ok()) {
        EXPECT_EQ(FirstDifference(**out, **ref), -1) << "seed " << seed;
      } else {
        EXPECT_EQ(out.error().row(), ref.error().row()) << "seed " << seed;
      }
    }
    for (const ir::Aggregate* a : {&agg, &min}) {
      auto got = engine->Aggregate(*a, batch.columns, batch.length);
      auto want = ir::EvaluateAggregateReference(*a, batch.columns, batch.length);
      ASSERT_EQ(got.ok(), want.ok()) << "seed " << seed;
      if (got.ok()) {
        EXPECT_EQ(*got, *want) << a->ToString() << " seed " << seed;
      }
    }
  }
  EXPECT_GT(engine->cache_stats().held, 0);
}

// Engine::Project holds its handle by the first expression and runs it only for the same
// objects: a projection that starts with the same expression is another projection.
TEST(HeldHandles, ProjectionsAreHeldForTheSameExpressions) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32, c:i32?");
  const ir::ExprPtr shared = *ir::ParseAndBind("a * b", schema);
  const std::vector<ir::ExprPtr> one = {shared, *ir::ParseAndBind("a * b + c", schema)};
  const std::vector<ir::ExprPtr> other = {shared, *ir::ParseAndBind("c - b", schema), *ir::ParseAndBind("a < c", schema)};
  const std::vector<ir::ExprPtr> same_size = {shared, *ir::ParseAndBind("b + c", schema)};
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    auto batch = *RandomBatch(schema, seed % 2 ? 130 : 40, seed % 3 ? 0.8 : 1.0, seed);
    for (const auto* exprs : {&one, &other, &same_size}) {
      auto out = engine->Project(*exprs, batch.columns, batch.length);
      ASSERT_TRUE(out.ok()) << out.error().ToString();
      ASSERT_EQ(out->size(), exprs->size());
      for (size_t k = 0; k < exprs->size(); ++k) {
        auto ref = ir::EvaluateReference(*(*exprs)[k], batch.columns, batch.length);
        ASSERT_TRUE(ref.ok());
        EXPECT_EQ(FirstDifference(*(*out)[k], **ref), -1) << (*exprs)[k]->ToString() << " seed " << seed;
      }
    }
  }
  EXPECT_GT(engine->cache_stats().held, 0);
}

// What Evaluate answers outside the kernels (a string literal, a string column, string-valued
// calls) it answers so on every call, held or not, alone or as a projection's output; a host's
// own prepared handle too.
TEST(HeldHandles, StringResultsAnswerEveryCall) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, s:utf8");
  auto batch = *RandomBatch(schema, 70, 1.0, 8);
  const std::vector<ir::ExprPtr> exprs = {*ir::ParseAndBind("'x'", schema), *ir::ParseAndBind("s", schema),
                                          *ir::ParseAndBind("cast(cast('2024-02-29' as date32) as utf8)", schema),
                                          *ir::ParseAndBind("upper(s)", schema)};
  for (const ir::ExprPtr& e : exprs) {
    auto ref = ir::EvaluateReference(*e, batch.columns, batch.length);
    ASSERT_TRUE(ref.ok()) << e->ToString();
    auto prepared = engine->PrepareExpression(e);
    ASSERT_TRUE(prepared.ok());
    for (int call = 0; call < 3; ++call) {
      auto out = engine->Evaluate(e, batch);
      ASSERT_TRUE(out.ok()) << e->ToString() << " call " << call << ": " << out.error().ToString();
      EXPECT_EQ(FirstDifference(**out, **ref), -1) << e->ToString();
      auto held = (*prepared)->Evaluate(batch.columns, batch.length);
      ASSERT_TRUE(held.ok()) << e->ToString() << " call " << call << ": " << held.error().ToString();
      EXPECT_EQ(FirstDifference(**held, **ref), -1) << e->ToString();
    }
  }
  const std::vector<ir::ExprPtr> projection = {exprs[0], *ir::ParseAndBind("a + 1", schema)};
  for (int call = 0; call < 3; ++call) {
    auto out = engine->Project(projection, batch.columns, batch.length);
    ASSERT_TRUE(out.ok()) << "call " << call << ": " << out.error().ToString();
    EXPECT_EQ((*out)[0]->length(), batch.length);
  }
}

TEST(HeldHandles, HeldCountIsBounded) {
  auto bad = Engine::Make(EngineOptions{.held_expressions = kMaxHeldExpressions + 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("held_expressions"), std::string::npos) << bad.error().ToString();
  EXPECT_TRUE(Engine::Make(EngineOptions{.held_expressions = kMaxHeldExpressions}).ok());
}

TEST(HeldHandles, HeldCallsSkipTheLookup) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, b:i32");
  const ir::ExprPtr expr = *ir::ParseAndBind("a - b", schema);
  auto batch = *RandomBatch(schema, 100, 1.0, 3);
  ASSERT_OK(engine->Evaluate(expr, batch).status());  // compiles; the expression is noted
  ASSERT_OK(engine->Evaluate(expr, batch).status());  // its handle plans the layout (a hit)
  const CacheStats before = engine->cache_stats();
  EXPECT_EQ(before.compiles, 1);
  EXPECT_EQ(before.hits, 1);
  EXPECT_EQ(before.held, 0);
  EvalReport report;
  for (int i = 0; i < 5; ++i) ASSERT_OK(engine->Evaluate(expr, batch, {}, &report).status());
  const CacheStats after = engine->cache_stats();
  EXPECT_EQ(after.hits, 1);
  EXPECT_EQ(after.held, 5);
  ASSERT_TRUE(report.kernel.has_value());  // the report names the kernel as before
  EXPECT_EQ(report.strategy, Strategy::kDense);
}

// Equal expressions bound afresh are other objects: never held, even when one lands at the
// address of one that died (noted by a weak reference). Holding can be turned off.
TEST(HeldHandles, OnlyTheSameObjectIsHeld) {
  for (size_t capacity : {size_t{64}, size_t{0}}) {
    auto engine = NewEngine(EngineOptions{.held_expressions = capacity});
    const Schema schema = *ParseSchema("a:i32, b:i32");
    auto batch = *RandomBatch(schema, 100, 1.0, 4);
    for (int i = 0; i < 50; ++i) {
      ASSERT_OK(engine->Evaluate(*ir::ParseAndBind("a + b", schema), batch).status());  // noted, then freed
      // Likely at the address of the one just freed: its first call is a first call still, so
      // its second makes its handle and runs nothing held.
      const ir::ExprPtr fresh = *ir::ParseAndBind("a + b", schema);
      ASSERT_OK(engine->Evaluate(fresh, batch).status());
      ASSERT_OK(engine->Evaluate(fresh, batch).status());
    }
    EXPECT_EQ(engine->cache_stats().held, 0);
    EXPECT_EQ(engine->cache_stats().compiles, 1);
    const int64_t before = engine->cache_stats().held;
    const ir::ExprPtr kept = *ir::ParseAndBind("a + b", schema);
    for (int i = 0; i < 4; ++i) ASSERT_OK(engine->Evaluate(kept, batch).status());
    EXPECT_EQ(engine->cache_stats().held - before, capacity == 0 ? 0 : 2) << capacity;
  }
}

// More expressions than the engine holds: the least recently used handle is dropped (and its
// expression freed), and every result stays right.
TEST(HeldHandles, DroppedHandlesFreeTheirExpressions) {
  // A kernel cache of one kernel: its keys (which own their expressions) do not outlive the test's
  // loop either.
  auto engine = NewEngine(EngineOptions{.cache_capacity = 1, .held_expressions = 2});
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto batch = *RandomBatch(schema, 130, 0.8, 6);
  std::vector<ir::ExprPtr> exprs;
  for (const char* t : {"a + b", "a - b", "a * b"}) exprs.push_back(*ir::ParseAndBind(t, schema));
  std::weak_ptr<const ir::Expr> first = exprs[0];
  for (int round = 0; round < 4; ++round) {
    for (const ir::ExprPtr& e : exprs) {
      auto out = engine->Evaluate(e, batch);
      auto ref = ir::EvaluateReference(*e, batch.columns, batch.length);
      ASSERT_TRUE(out.ok() && ref.ok());
      EXPECT_EQ(FirstDifference(**out, **ref), -1) << e->ToString();
    }
  }
  exprs.erase(exprs.begin());
  for (int round = 0; round < 2; ++round) {
    for (const ir::ExprPtr& e : exprs) ASSERT_OK(engine->Evaluate(e, batch).status());
  }
  EXPECT_TRUE(first.expired());  // "a + b" was the least recently used: dropped
  EXPECT_GT(engine->cache_stats().held, 0);
}

TEST(Engine, CompileTimesAreReported) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, b:i32, c:i32, d:i32");
  auto batch = *RandomBatch(schema, 64, 1.0, 9);
  for (const char* t : {"a * b + c", "a * b + c < d", "(a + b) * (c - d)"}) {
    EvalReport report;
    ASSERT_TRUE(engine->Evaluate(*ir::ParseAndBind(t, schema), batch, {}, &report).ok());
    EXPECT_TRUE(report.compiled) << t;
    EXPECT_GT(report.compile_ms, 0.0) << t;
    ASSERT_TRUE(engine->Evaluate(*ir::ParseAndBind(t, schema), batch, {}, &report).ok());
    EXPECT_FALSE(report.compiled) << t;  // a cache hit
    EXPECT_EQ(report.compile_ms, 0.0) << t;
  }
}

// A strict call whose argument is null (a null literal under a null-aware function) is never
// evaluated: its placeholder input must not fail (`a / null` and `a % null` are null, not a
// division by zero), in validity kernels and in folds.
TEST(Engine, StrictCallsOverNullArgumentsDoNotFail) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32");
  auto batch = *RandomBatch(schema, 1000, 1.0, 3);
  for (const char* t : {"a / if(a > 0, a, null:i32)", "a % if(a > 0, a, null:i32)",
                        "cast(if(a > 100, a, null:i32) - 1:i32, u8)"}) {
    auto expr = *ir::ParseAndBind(t, schema);
    auto ref = ir::EvaluateReference(*expr, batch.columns, batch.length);
    EvalReport report;
    auto out = engine->Evaluate(expr, batch, {}, &report);
    ASSERT_EQ(out.ok(), ref.ok()) << t << ": " << (out.ok() ? ref.error().ToString() : out.error().ToString());
    if (out.ok()) {
      EXPECT_EQ((*out)->ToString(), (*ref)->ToString()) << t;
    } else {
      EXPECT_EQ(out.error().ToString(), ref.error().ToString()) << t;
    }
    EXPECT_EQ(report.strategy, Strategy::kValidity) << t;
  }
  auto agg = *ir::ParseAndBindAggregate("sum(a / if(a > 0, a, null:i32))", schema);
  auto got = engine->Aggregate(agg, batch.columns, batch.length);
  auto want = ir::EvaluateAggregateReference(agg, batch.columns, batch.length);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  ASSERT_TRUE(want.ok()) << want.error().ToString();
  EXPECT_EQ(*got, *want);
}

// --- checked multiply (64-bit, unsigned 8-bit): operand-range suspects, exact recheck per block

// Columns of `n` rows: a[i] = `a`, b[i] = `b`, except the rows named in `a_at` (row, value).
std::vector<ArrayPtr> MulColumns(TypeId t, int64_t n, uint64_t a, uint64_t b,
                                 const std::vector<std::pair<int64_t, uint64_t>>& a_at = {}) {
  std::vector<Scalar> as, bs;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = a;
    for (const auto& [row, value] : a_at) v = row == i ? value : v;
    as.push_back(Scalar::FromBits(t, v));
    bs.push_back(Scalar::FromBits(t, b));
  }
  return {*MakeArray(DataType(t), as), *MakeArray(DataType(t), bs)};
}

// Every pair of 8-bit operands, signed and unsigned (the 16-bit product's high byte, or that of
// the product plus 128, is the evidence): the pairs whose product fits, through a selection, give
// the reference's values without an error; the pairs just past the range and a spread of the
// others each fail alone; the whole table fails at its first overflowing row.
TEST(CheckedMul8, EveryPairOfOperands) {
  auto engine = NewEngine();
  for (TypeId t : {TypeId::kI8, TypeId::kU8}) {
    std::vector<Scalar> xs, ys;
    for (int x = 0; x < 256; ++x) {
      for (int y = 0; y < 256; ++y) {
        xs.push_back(Scalar::FromBits(t, static_cast<uint64_t>(x)));
        ys.push_back(Scalar::FromBits(t, static_cast<uint64_t>(y)));
      }
    }
    const std::vector<ArrayPtr> cols = {*MakeArray(DataType(t), xs), *MakeArray(DataType(t), ys)};
    const Schema schema{{{"a", DataType(t)}, {"b", DataType(t)}}};
    const bool is_signed = t == TypeId::kI8;
    // The products that fit, by the reference; then the checked product over exactly those rows
    // (a selection), which must not fail, and over each row that does not fit alone, which must.
    std::vector<uint32_t> fit;
    std::vector<uint32_t> past, edge;
    for (uint32_t i = 0; i < 65536; ++i) {
      const int x = is_signed ? static_cast<int8_t>(i >> 8) : static_cast<int>(i >> 8);
      const int y = is_signed ? static_cast<int8_t>(i & 255) : static_cast<int>(i & 255);
      const int p = x * y;
      ((is_signed ? p >= -128 && p <= 127 : p <= 255) ? fit : past).push_back(i);
      if (is_signed ? p == 128 || p == -129 : p == 256) edge.push_back(i);  // just past the range
    }
    auto expr = *ir::ParseAndBind("a * b", schema);
    const SelectionVector kept = *SelectionVector::FromIndices(fit, 65536);
    auto out = engine->Evaluate(expr, cols, 65536, kept);
    ASSERT_TRUE(out.ok()) << TypeIdName(t) << ": " << out.error().ToString();
    const std::vector<ArrayPtr> taken = {*Take(*cols[0], kept), *Take(*cols[1], kept)};
    auto want = ir::EvaluateReference(*expr, taken, kept.size());
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(FirstDifference(**out, **want), -1) << TypeIdName(t);
    int failed = 0;
    std::vector<uint32_t> probes = edge;  // the edges, and a spread of the other overflowing pairs
    for (size_t k = 0; k < past.size(); k += 97) probes.push_back(past[k]);
    for (uint32_t row : probes) {
      const std::vector<ArrayPtr> one = {*cols[0]->Slice(row, 1), *cols[1]->Slice(row, 1)};
      auto r = engine->Evaluate(expr, one, 1);
      EXPECT_FALSE(r.ok()) << TypeIdName(t) << " pair " << row;
      failed += !r.ok();
    }
    EXPECT_GT(edge.size(), 3u);
    EXPECT_GT(failed, 100);
    // The whole table at once fails, at the first overflowing row.
    auto all = engine->Evaluate(expr, cols, 65536);
    ASSERT_FALSE(all.ok());
    EXPECT_EQ(all.error().row(), std::optional<int64_t>(past[0])) << TypeIdName(t);
  }
}

TEST(CheckedMulRecheck, SuspectRowsThatFitAreNotErrorsInAnyBlock) {
  auto engine = NewEngine();
  // Every operand wider than half the width (signed: outside [-2^(w/2-1), 2^(w/2-1))), so every
  // row a suspect, and every product in range: 5,000 rows, five blocks rechecked, no error.
  for (auto [t, a, b] : {std::tuple{TypeId::kI64, uint64_t{1} << 40, uint64_t{2}},
                         std::tuple{TypeId::kU64, uint64_t{1} << 40, uint64_t{2}},
                         std::tuple{TypeId::kU8, uint64_t{255}, uint64_t{1}},
                         std::tuple{TypeId::kU8, uint64_t{16}, uint64_t{15}}}) {
    const Schema schema{{{"a", DataType(t)}, {"b", DataType(t)}}};
    auto expr = *ir::ParseAndBind("a * b", schema);
    const auto cols = MulColumns(t, 5000, a, b);
    auto out = engine->Evaluate(expr, cols, 5000);
    ASSERT_TRUE(out.ok()) << TypeIdName(t) << ": " << out.error().ToString();
    auto ref = ir::EvaluateReference(*expr, cols, 5000);
    ASSERT_TRUE(ref.ok());
    EXPECT_EQ(FirstDifference(**out, **ref), -1) << TypeIdName(t);
  }
}

// An overflow anywhere is reported with its row: every row a suspect (the first block switches the
// call to exact blocks), or moderate rows with one suspect that fits in an earlier block (fast
// blocks, then exact ones), or the overflow alone among moderate rows.
TEST(CheckedMulRecheck, AnOverflowInAnyBlockIsReportedWithItsRow) {
  auto engine = NewEngine();
  struct Case {
    TypeId t;
    uint64_t fits_a, b, overflows_a;
    uint64_t moderate_a;  // below half the width: no suspect (times b)
  };
  for (const Case& c : {Case{TypeId::kI64, uint64_t{1} << 40, 2, uint64_t{1} << 62, 123456},
                        Case{TypeId::kU64, uint64_t{1} << 33, uint64_t{1} << 30, uint64_t{1} << 34, 789},
                        Case{TypeId::kU8, 100, 2, 128, 15}}) {
    const Schema schema{{{"a", DataType(c.t)}, {"b", DataType(c.t)}}};
    auto expr = *ir::ParseAndBind("a * b + b", schema);
    for (int64_t at : {int64_t{0}, int64_t{1023}, int64_t{1024}, int64_t{3100}, int64_t{4999}}) {
      const std::vector<std::vector<ArrayPtr>> layouts = {
          MulColumns(c.t, 5000, c.fits_a, c.b, {{at, c.overflows_a}}),
          MulColumns(c.t, 5000, c.moderate_a, c.b, {{at / 2, c.fits_a}, {at, c.overflows_a}}),
          MulColumns(c.t, 5000, c.moderate_a, c.b, {{at, c.overflows_a}})};
      for (size_t l = 0; l < layouts.size(); ++l) {
        auto out = engine->Evaluate(expr, layouts[l], 5000);
        ASSERT_FALSE(out.ok()) << TypeIdName(c.t) << " row " << at << " layout " << l;
        EXPECT_EQ(out.error().code(), ErrorCode::kOverflow);
        EXPECT_EQ(out.error().row(), at) << TypeIdName(c.t) << " layout " << l << ": " << out.error().ToString();
      }
    }
    // Moderate operands everywhere (no suspect at all), and moderate blocks after a suspect one:
    // values as the reference's.
    for (const auto& cols : {MulColumns(c.t, 5000, c.moderate_a, c.b),
                             MulColumns(c.t, 5000, c.moderate_a, c.b, {{10, c.fits_a}, {2500, c.fits_a}})}) {
      auto out = engine->Evaluate(expr, cols, 5000);
      ASSERT_TRUE(out.ok()) << TypeIdName(c.t) << ": " << out.error().ToString();
      EXPECT_EQ(FirstDifference(**out, **ir::EvaluateReference(*expr, cols, 5000)), -1) << TypeIdName(c.t);
    }
  }
}

// The overflows nearest the operand range that passes without suspicion: both operands 2^(w/2)
// (signed: also -2^(w/2)), just past half the width, alone in a batch of moderate rows. A looser
// range lets them through unrechecked.
TEST(CheckedMulRecheck, TheSmallestOverflowsPastTheRangeAreCaught) {
  auto engine = NewEngine();
  for (auto [t, edge] : {std::pair{TypeId::kI64, ~uint64_t{0} << 32}, std::pair{TypeId::kI64, uint64_t{1} << 32},
                         std::pair{TypeId::kU64, uint64_t{1} << 32}, std::pair{TypeId::kU8, uint64_t{16}}}) {
    const Schema schema{{{"a", DataType(t)}, {"b", DataType(t)}}};
    auto expr = *ir::ParseAndBind("a * b", schema);
    for (int64_t at : {int64_t{5}, int64_t{2047}}) {
      std::vector<Scalar> as, bs;
      for (int64_t i = 0; i < 3000; ++i) {
        as.push_back(Scalar::FromBits(t, i == at ? edge : 3));
        bs.push_back(Scalar::FromBits(t, i == at ? edge : 5));
      }
      const std::vector<ArrayPtr> cols = {*MakeArray(DataType(t), as), *MakeArray(DataType(t), bs)};
      auto out = engine->Evaluate(expr, cols, 3000);
      ASSERT_FALSE(out.ok()) << TypeIdName(t) << " row " << at;
      EXPECT_EQ(out.error().row(), at) << TypeIdName(t);
    }
  }
}

// Checked 32-bit multiplies speculate (KernelShape::speculative_mul): a batch without nulls runs
// the wrapped product with an operand-range test; operands within it give the reference's values
// from the speculative kernel itself.
TEST(SpeculativeMul, ModerateOperandsRunTheSpeculativeKernel) {
  auto engine = NewEngine();
  for (auto [t, lo, hi] : {std::tuple{TypeId::kI32, -32768, 32767}, std::tuple{TypeId::kU32, 0, 65535}}) {
    const Schema schema{{{"a", DataType(t)}, {"b", DataType(t)}, {"c", DataType(t)}}};
    auto expr = *ir::ParseAndBind("a * b + c", schema);
    std::mt19937_64 rng(11);
    std::vector<Scalar> as, bs, cs;
    for (int64_t i = 0; i < 5000; ++i) {
      // The range's ends in the first rows, then random operands within it.
      const int64_t x = i == 0 ? lo : i == 1 ? hi : lo + static_cast<int64_t>(rng() % (hi - lo + 1));
      const int64_t y = i < 2 ? lo + (hi - lo) / 2 : lo + static_cast<int64_t>(rng() % (hi - lo + 1));
      as.push_back(Scalar::FromBits(t, static_cast<uint64_t>(x)));
      bs.push_back(Scalar::FromBits(t, static_cast<uint64_t>(y)));
      cs.push_back(Scalar::FromBits(t, static_cast<uint64_t>(i % 7)));
    }
    const std::vector<ArrayPtr> cols = {*MakeArray(DataType(t), as), *MakeArray(DataType(t), bs),
                                        *MakeArray(DataType(t), cs)};
    auto want = ir::EvaluateReference(*expr, cols, 5000);
    ASSERT_TRUE(want.ok()) << want.error().ToString();
    EvalReport report;
    auto got = engine->Evaluate(expr, cols, 5000, {}, &report);
    ASSERT_TRUE(got.ok()) << TypeIdName(t) << ": " << got.error().ToString();
    EXPECT_EQ(FirstDifference(**got, **want), -1) << TypeIdName(t);
    ASSERT_TRUE(report.kernel.has_value());
    EXPECT_TRUE(report.kernel->shape.speculative_mul) << report.kernel->ToString();
    EXPECT_FALSE(report.rechecked) << TypeIdName(t);
  }
}

// A wide operand whose product fits: the speculative kernel's evidence is no error, the batch
// reruns through the exact twin (values as the reference's), the next kExactBatchesAfterWide
// batches run the twin directly, and then the kernel speculates again; through Evaluate and a
// prepared expression (whose layout holds the twin). A batch with nulls never speculates (its
// dense kernel retries).
TEST(SpeculativeMul, WideOperandsRerunExactlyForAWhileThenSpeculateAgain) {
  const Schema schema = *ParseSchema("a:i32, b:i32, c:i32");
  auto expr = *ir::ParseAndBind("a * b + c", schema);
  auto columns = [](uint64_t a, uint64_t b, std::vector<std::pair<int64_t, uint64_t>> a_at) {
    std::vector<ArrayPtr> cols = MulColumns(TypeId::kI32, 3000, a, b, a_at);
    cols.push_back(cols[1]);
    return cols;
  };
  const std::vector<ArrayPtr> moderate = columns(1234, 5678, {});
  const std::vector<ArrayPtr> wide = columns(1234, 5678, {{2999, 300000}});  // 300000 * 5678 fits
  auto moderate_want = ir::EvaluateReference(*expr, moderate, 3000);
  auto wide_want = ir::EvaluateReference(*expr, wide, 3000);
  ASSERT_TRUE(moderate_want.ok() && wide_want.ok());
  // Pass 2: a prepared expression whose first batch is the wide one (its layout is planned then).
  for (int pass = 0; pass < 3; ++pass) {
    auto engine = NewEngine();
    auto made = engine->PrepareExpression(expr);
    ASSERT_TRUE(made.ok());
    auto run = [&](const std::vector<ArrayPtr>& cols, EvalReport& report) {
      return pass == 0 ? engine->Evaluate(expr, cols, 3000, {}, &report) : (*made)->Evaluate(cols, 3000, &report);
    };
    const std::string how = pass == 0 ? "Evaluate" : pass == 1 ? "prepared" : "prepared, wide first";
    EvalReport report;
    if (pass < 2) {
      ASSERT_TRUE(run(moderate, report).ok());
      EXPECT_TRUE(report.kernel->shape.speculative_mul) << how;
    }
    auto got = run(wide, report);
    ASSERT_TRUE(got.ok()) << how << ": " << got.error().ToString();
    EXPECT_EQ(FirstDifference(**got, **wide_want), -1) << how;
    EXPECT_TRUE(report.rechecked) << how;
    EXPECT_FALSE(report.cold_pass) << how;
    EXPECT_FALSE(report.kernel->shape.speculative_mul) << how << ": " << report.kernel->ToString();
    for (int k = 1; k <= CompiledKernel::kExactBatchesAfterWide + 1; ++k) {
      auto after = run(moderate, report);
      ASSERT_TRUE(after.ok()) << how;
      EXPECT_EQ(FirstDifference(**after, **moderate_want), -1) << how << " batch " << k;
      EXPECT_FALSE(report.rechecked) << how << " batch " << k;
      const bool exact = k <= CompiledKernel::kExactBatchesAfterWide;
      EXPECT_EQ(report.kernel->shape.speculative_mul, !exact) << how << " batch " << k;
    }
    if (pass > 0) {
      EXPECT_EQ((*made)->layouts(), 1u) << how;
    }
  }
  auto engine = NewEngine();
  const Schema nullable = *ParseSchema("a:i32?, b:i32, c:i32");
  auto over_nulls = *ir::ParseAndBind("a * b + c", nullable);
  std::vector<std::optional<int32_t>> a;
  for (int64_t i = 0; i < 3000; ++i) a.push_back(i % 3 == 0 ? std::nullopt : std::optional<int32_t>(1234));
  std::vector<ArrayPtr> cols = {*MakeArray(a), moderate[1], moderate[2]};
  EvalReport report;
  auto got = engine->Evaluate(over_nulls, cols, 3000, {}, &report);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  EXPECT_EQ(FirstDifference(**got, **ir::EvaluateReference(*over_nulls, cols, 3000)), -1);
  EXPECT_FALSE(report.kernel->shape.speculative_mul) << report.kernel->ToString();
}

// The overflows nearest the speculated range, alone among moderate rows in any position: the
// speculative kernel's evidence sends the batch to the exact twin, whose error names the row,
// through Evaluate and a prepared expression. Products at the type's very ends fit: -2^15 * 2^16
// = -2^31 (signed), 65535 * 65537 = 2^32 - 1 (unsigned). A looser range lets the overflows
// through as wrapped values.
TEST(SpeculativeMul, TheSmallestOverflowsAreReportedWithTheirRow) {
  struct Case {
    TypeId t;
    uint64_t a, b;
    bool overflows;
  };
  const uint64_t m46341 = static_cast<uint32_t>(-46341);
  for (const Case& c : {Case{TypeId::kI32, 46341, 46341, true}, Case{TypeId::kI32, m46341, 46341, true},
                        Case{TypeId::kI32, 65536, 32768, true}, Case{TypeId::kI32, 0xffff8000u, 65536, false},
                        Case{TypeId::kU32, 65536, 65536, true}, Case{TypeId::kU32, 65535, 65537, false},
                        Case{TypeId::kU32, 131072, 32768, true}}) {
    const Schema schema{{{"a", DataType(c.t)}, {"b", DataType(c.t)}}};
    auto expr = *ir::ParseAndBind("a * b", schema);
    for (int64_t at : {int64_t{0}, int64_t{1023}, int64_t{4999}}) {
      std::vector<Scalar> as, bs;
      for (int64_t i = 0; i < 5000; ++i) {
        as.push_back(Scalar::FromBits(c.t, i == at ? c.a : 300));
        bs.push_back(Scalar::FromBits(c.t, i == at ? c.b : 7));
      }
      const std::vector<ArrayPtr> cols = {*MakeArray(DataType(c.t), as), *MakeArray(DataType(c.t), bs)};
      const std::string what = fmt::format("{} {} * {} at row {}", TypeIdName(c.t), c.a, c.b, at);
      for (int pass = 0; pass < 2; ++pass) {
        auto engine = NewEngine();  // no memory of wide operands: the speculative kernel runs first
        auto made = engine->PrepareExpression(expr);
        ASSERT_TRUE(made.ok());
        EvalReport report;
        auto out = pass == 0 ? engine->Evaluate(expr, cols, 5000, {}, &report) : (*made)->Evaluate(cols, 5000, &report);
        EXPECT_TRUE(report.rechecked) << what;
        if (c.overflows) {
          ASSERT_FALSE(out.ok()) << what;
          EXPECT_EQ(out.error().code(), ErrorCode::kOverflow) << what;
          EXPECT_EQ(out.error().row(), std::optional<int64_t>(at)) << what << ": " << out.error().ToString();
        } else {
          ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
          EXPECT_EQ(FirstDifference(**out, **ir::EvaluateReference(*expr, cols, 5000)), -1) << what;
        }
      }
    }
  }
}

// Speculative multiplies against the reference over random batches: operands moderate (within
// the speculated range), moderate with a few wide rows (products that may or may not fit), or
// mixed with the type's edge values; lengths around 64; through Evaluate and a prepared
// expression on fresh engines, value for value, error for error at the same row.
TEST(SpeculativeMul, RandomBatchesMatchTheReference) {
  int speculated = 0, rechecked = 0, failed = 0;
  for (TypeId t : {TypeId::kI32, TypeId::kU32}) {
    const Schema schema{{{"a", DataType(t)}, {"b", DataType(t)}, {"c", DataType(t)}}};
    for (const char* text : {"a * b + c", "a * b * c", "(a - b) * c < a", "a * 7 - b * c"}) {
      auto expr = *ir::ParseAndBind(text, schema);
      for (uint64_t seed = 0; seed < 18; ++seed) {
        std::mt19937_64 rng(seed * 7919 + static_cast<uint64_t>(t));
        const int64_t n = std::array<int64_t, 6>{64, 65, 127, 128, 1000, 3000}[seed % 6];
        const int mode = static_cast<int>(seed / 6);  // 0 moderate, 1 a few wide rows, 2 mixed
        std::vector<ArrayPtr> cols;
        for (int k = 0; k < 3; ++k) {
          std::vector<Scalar> v;
          for (int64_t i = 0; i < n; ++i) {
            if (mode == 2) {
              v.push_back(RandomValue(t, rng));
            } else if (mode == 1 && rng() % 50 == 0) {
              v.push_back(Scalar::FromBits(t, (uint64_t{1} << 15) + rng() % (uint64_t{1} << 17)));
            } else {
              v.push_back(ModerateValue(t, rng));
            }
          }
          cols.push_back(*MakeArray(DataType(t), v));
        }
        const std::string where = fmt::format("{} over {} rows of {}, seed {}", text, n, TypeIdName(t), seed);
        auto want = ir::EvaluateReference(*expr, cols, n);
        for (int pass = 0; pass < 2; ++pass) {
          auto engine = NewEngine();
          auto made = engine->PrepareExpression(expr);
          ASSERT_TRUE(made.ok());
          EvalReport report;
          auto got = pass == 0 ? engine->Evaluate(expr, cols, n, {}, &report) : (*made)->Evaluate(cols, n, &report);
          ASSERT_EQ(got.ok(), want.ok()) << where << " pass " << pass << ": "
                                         << (got.ok() ? want.error().ToString() : got.error().ToString());
          if (want.ok()) {
            EXPECT_EQ(FirstDifference(**got, **want), -1) << where << " pass " << pass;
          } else {
            EXPECT_EQ(got.error().code(), want.error().code()) << where;
            EXPECT_EQ(got.error().row(), want.error().row()) << where << ": " << got.error().ToString();
          }
          speculated += report.kernel.has_value() && (report.kernel->shape.speculative_mul || report.rechecked);
          rechecked += report.rechecked;
          failed += !want.ok();
        }
      }
    }
  }
  // Every kind of case was met: speculative runs, reruns by the twin, errors.
  EXPECT_GT(speculated, 200);
  EXPECT_GT(rechecked, 50);
  EXPECT_GT(failed, 20);
}

// Batches under 64 rows run a short batch's kernel (in place, no padded word): at every length
// 1..63, through Evaluate and a prepared expression, values as the reference's, and an overflow in
// the last row (or the first) reported with its row.
TEST(ShortBatch, EveryLengthUnder64MatchesTheReferenceInPlace) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, b:i32, c:i32");
  auto expr = *ir::ParseAndBind("a * b + c", schema);
  auto made = engine->PrepareExpression(expr);
  ASSERT_TRUE(made.ok());
  PreparedExpression& prepared = **made;
  std::mt19937_64 rng(7);
  for (int64_t n = 1; n < 64; ++n) {
    std::vector<Scalar> as, bs, cs;
    for (int64_t i = 0; i < n; ++i) {
      as.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(rng() % 20001) - 10000));
      bs.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(rng() % 20001) - 10000));
      cs.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(rng() % 2001) - 1000));
    }
    const std::vector<ArrayPtr> cols = {*MakeArray(DataType(TypeId::kI32), as), *MakeArray(DataType(TypeId::kI32), bs),
                                        *MakeArray(DataType(TypeId::kI32), cs)};
    auto want = ir::EvaluateReference(*expr, cols, n);
    ASSERT_TRUE(want.ok());
    EvalReport report;
    auto got = engine->Evaluate(expr, cols, n, {}, &report);
    ASSERT_TRUE(got.ok()) << n << ": " << got.error().ToString();
    EXPECT_EQ(FirstDifference(**got, **want), -1) << "length " << n;
    ASSERT_TRUE(report.kernel.has_value());
    EXPECT_TRUE(report.kernel->shape.short_batch) << report.kernel->ToString();
    auto again = prepared.Evaluate(cols, n);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(FirstDifference(**again, **want), -1) << "prepared, length " << n;
    for (int64_t at : {int64_t{0}, n - 1}) {
      std::vector<Scalar> wide = as;
      wide[static_cast<size_t>(at)] = Scalar::Of<int32_t>(std::numeric_limits<int32_t>::max());
      std::vector<Scalar> two = bs;
      two[static_cast<size_t>(at)] = Scalar::Of<int32_t>(2);
      const std::vector<ArrayPtr> bad = {*MakeArray(DataType(TypeId::kI32), wide), *MakeArray(DataType(TypeId::kI32), two),
                                         cols[2]};
      for (bool through_prepared : {false, true}) {
        auto r = through_prepared ? prepared.Evaluate(bad, n) : engine->Evaluate(expr, bad, n);
        ASSERT_FALSE(r.ok()) << "length " << n << " row " << at;
        EXPECT_EQ(r.error().row(), std::optional<int64_t>(at)) << "length " << n << ": " << r.error().ToString();
      }
    }
  }
  // 64 rows and more run the whole-word kernel.
  for (int64_t n : {int64_t{64}, int64_t{65}, int64_t{127}}) {
    auto batch = RandomBatch(schema, n, 1.0, 11);
    ASSERT_TRUE(batch.ok());
    EvalReport report;
    auto got = engine->Evaluate(expr, batch->columns, n, {}, &report);
    ASSERT_TRUE(got.ok()) << got.error().ToString();
    EXPECT_EQ(FirstDifference(**got, **ir::EvaluateReference(*expr, batch->columns, n)), -1);
    ASSERT_TRUE(report.kernel.has_value());
    EXPECT_FALSE(report.kernel->shape.short_batch) << n;
  }
}

// --- Prepared expressions ------------------------------------------------------------------

TEST(PreparedExpression, AnswersAsEvaluateAndRunsAHeldLayoutWithoutTheCache) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a * b + 1", schema);
  auto prepared = engine->PrepareExpression(expr);
  ASSERT_TRUE(prepared.ok()) << prepared.error().ToString();
  PreparedExpression& p = **prepared;
  EXPECT_EQ(p.expr(), expr);
  EXPECT_EQ(p.layouts(), 0u);
  const std::vector<ArrayPtr> dense = {Col(kI32N, "[1, 2, 3]"), Col(kI32, "[4, 5, 6]")};
  const std::vector<ArrayPtr> nulls = {Col(kI32N, "[1, null, 3]"), Col(kI32, "[4, 5, 6]")};
  EvalReport report;
  auto first = p.Evaluate(dense, 3, &report);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ((*first)->ToString(), "[5, 11, 19]");
  EXPECT_TRUE(report.compiled);
  EXPECT_EQ(p.layouts(), 1u);
  const CacheStats before = engine->cache_stats();
  for (int i = 0; i < 3; ++i) {
    auto again = p.Evaluate(dense, 3, &report);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ((*again)->ToString(), "[5, 11, 19]");
    EXPECT_FALSE(report.compiled);
    EXPECT_EQ(report.strategy, Strategy::kDense);
    ASSERT_TRUE(report.kernel.has_value());
    EXPECT_EQ(report.tier, Tier::kOptimized);
  }
  // The held layout ran its kernel: the cache saw no lookup at all.
  EXPECT_EQ(engine->cache_stats().hits, before.hits);
  // A batch with nulls is another layout (its rows' AND is mixed).
  auto mixed = p.Evaluate(nulls, 3, &report);
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ((*mixed)->ToString(), "[5, null, 19]");
  EXPECT_EQ(report.strategy, Strategy::kDenseRetry);
  EXPECT_EQ(p.layouts(), 2u);
  // Errors are Evaluate's, with their rows, on a held layout too.
  const std::vector<ArrayPtr> overflow = {Col(kI32N, "[1, 65536, 3]"), Col(kI32, "[4, 65536, 6]")};
  auto failed = p.Evaluate(overflow, 3);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), engine->Evaluate(expr, overflow, 3).error());
  EXPECT_EQ(failed.error().row(), 1);
}

TEST(PreparedExpression, EveryLayoutMetInTurnAnswersAsTheReference) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i64?");
  auto expr = *ir::ParseAndBind("a + 1", schema);
  auto p = std::move(engine->PrepareExpression(expr)).value();
  // Five layouts (flat, flat with nulls, all null, a constant, a null constant), met in turn:
  // each is planned once and later rounds run what was held.
  std::vector<std::vector<ArrayPtr>> batches;
  const ArrayPtr flat = Col(DataType(TypeId::kI64, true), "[1, 2, 3, 4]");
  batches.push_back({flat});
  batches.push_back({Col(DataType(TypeId::kI64, true), "[1, null, 3, 4]")});
  batches.push_back({Col(DataType(TypeId::kI64, true), "[null, null, null, null]")});
  batches.push_back({*ConstantArray::Make(Scalar::Of<int64_t>(5), 4, true)});
  batches.push_back({*ConstantArray::Make(Scalar::Null(TypeId::kI64), 4, true)});
  for (int round = 0; round < 3; ++round) {
    for (const auto& cols : batches) {
      auto got = p->Evaluate(cols, 4);
      auto want = ir::EvaluateReference(*expr, cols, 4);
      ASSERT_TRUE(got.ok() && want.ok());
      EXPECT_EQ((*got)->ToString(), (*want)->ToString());
    }
  }
  EXPECT_EQ(p->layouts(), 5u);
  // Length 0 is planned by its length: answered, never held as a layout of its own.
  const size_t held = p->layouts();
  const std::vector<ArrayPtr> empty = {Col(DataType(TypeId::kI64, true), "[]")};
  auto none = p->Evaluate(empty, 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->length(), 0);
  EXPECT_EQ(p->layouts(), held);
}

// More referenced columns than the executor's inline tail storage (8), over lengths with a
// partial last word: the padded tail copies come from the heap, aligned as the kernels read them.
TEST(PreparedExpression, ManyColumnsWithAPartialLastWord) {
  auto engine = NewEngine();
  std::vector<Field> fields;
  std::string text;
  for (int c = 0; c < 12; ++c) {
    fields.push_back({fmt::format("c{}", c), DataType(c % 2 ? TypeId::kI64 : TypeId::kI32)});
    text += (c ? " + " : "") + fmt::format("cast(c{}, i64)", c);
  }
  const Schema schema{fields};
  auto expr = *ir::ParseAndBind(text, schema);
  auto p = std::move(engine->PrepareExpression(expr)).value();
  for (int64_t rows : {int64_t{1}, int64_t{7}, int64_t{63}, int64_t{65}, int64_t{130}}) {
    auto batch = *RandomBatch(schema, rows, 1.0, static_cast<uint64_t>(rows));
    for (int round = 0; round < 2; ++round) {  // planned, then held
      auto got = p->Evaluate(batch.columns, rows);
      auto want = ir::EvaluateReference(*expr, batch.columns, rows);
      ASSERT_EQ(got.ok(), want.ok()) << rows;
      if (got.ok()) {
        EXPECT_EQ(FirstDifference(**got, **want), -1) << rows;
      }
    }
  }
}

// The direct call (a held dense kernel run with no routing or planning) answers as the reference
// over lengths around a word and a 2,048-row vector, sliced columns whose bits start mid-byte,
// nulls in one column (its bitmap shared) or several (their AND), a constant column, and both
// fresh and lent outputs; the report says the direct call ran once the layout was held.
TEST(PreparedExpression, DirectCallsAnswerAsTheReference) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i16?, b:i16?, c:i32?");
  auto expr = *ir::ParseAndBind("cast(a, i64) * cast(b, i64) + cast(c, i64)", schema);  // cannot fail
  uint64_t seed = 7;
  int64_t direct = 0;
  for (double valid : {1.0, 0.5}) {
    for (int64_t offset : {int64_t{0}, int64_t{3}}) {
      for (bool constant : {false, true}) {
        for (bool one_nullable : {false, true}) {
          // A handle per combination: its layouts (a short batch's, a longer one's) stay within
          // the ones a handle keeps.
          auto p = std::move(engine->PrepareExpression(expr)).value();
          for (int64_t length : {int64_t{1}, int64_t{7}, int64_t{63}, int64_t{64}, int64_t{65}, int64_t{130},
                                 int64_t{2048}}) {
            auto batch = *RandomBatch(schema, length + offset, valid, ++seed);
            std::vector<ArrayPtr> cols;
            for (const ArrayPtr& c : batch.columns) cols.push_back(*c->Slice(offset, length));
            if (constant) cols[1] = *ConstantArray::Make(Scalar::Of<int16_t>(-3), length, true);
            // Nulls in one column only: its bitmap is the result's, shared.
            if (one_nullable) {
              auto dense = *RandomBatch(schema, length, 1.0, seed);
              cols[0] = dense.columns[0];
              if (!constant) cols[1] = dense.columns[1];
            }
            const std::string what = fmt::format("seed {} length {} valid {} offset {} constant {} one nullable {}", seed,
                                                 length, valid, offset, constant, one_nullable);
            auto want = ir::EvaluateReference(*expr, cols, length);
            ASSERT_TRUE(want.ok()) << what;
            std::vector<uint64_t> values(static_cast<size_t>(length) + 1), validity(static_cast<size_t>(length) / 64 + 1);
            const OutputBuffers out{values.data(), static_cast<int64_t>(values.size() * 8), validity.data(),
                                    static_cast<int64_t>(validity.size() * 8)};
            for (int round = 0; round < 3; ++round) {  // planned, then held: direct
              EvalReport report;
              auto got = round == 2 ? p->EvaluateInto(cols, length, out, &report) : p->Evaluate(cols, length, &report);
              ASSERT_TRUE(got.ok()) << what << ": " << got.error().ToString();
              EXPECT_EQ(FirstDifference(**got, **want), -1) << what << " round " << round;
              if (round == 2) {  // the values are in the lent memory
                EXPECT_EQ(static_cast<const PrimitiveArray&>(**got).raw_values(),
                          reinterpret_cast<const uint8_t*>(values.data())) << what;
              }
              // A held dense layout answers directly (a batch whose rows are all null is planned
              // otherwise: no kernel runs).
              const bool dense = report.strategy == Strategy::kDense || report.strategy == Strategy::kDenseRetry;
              if (round > 0 && dense) {
                EXPECT_TRUE(report.direct) << what << " round " << round;
              }
              direct += report.direct;
            }
          }
        }
      }
    }
  }
  EXPECT_GE(direct, 150);  // of 224 held calls
}

// 16-byte decimals (DuckDB's export) go direct as columns; a 16-byte constant (its kernel input
// a buffer of two halves) takes the engine's path. Both answer as the reference.
TEST(PreparedExpression, DirectCallsOverSixteenByteDecimals) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:decimal(12,2)?, b:decimal(30,2)");
  auto expr = *ir::ParseAndBind("round(a, 1) * 3 + b", schema);
  uint64_t seed = 40;
  int64_t direct = 0;
  for (bool constant : {false, true}) {
    auto p = std::move(engine->PrepareExpression(expr)).value();
    for (int64_t length : {int64_t{7}, int64_t{64}, int64_t{130}, int64_t{2048}}) {
      for (double valid : {1.0, 0.5}) {
        auto batch = *RandomBatch(schema, length, valid, ++seed);
        std::vector<ArrayPtr> cols = batch.columns;
        if (constant) {
          cols[1] = *ConstantArray::Make(Scalar::Int128(12345, schema.fields[1].type), length, false);
        }
        const std::string what = fmt::format("seed {} length {} valid {} constant {}", seed, length, valid, constant);
        auto want = ir::EvaluateReference(*expr, cols, length);
        for (int round = 0; round < 2; ++round) {
          EvalReport report;
          auto got = p->Evaluate(cols, length, &report);
          ASSERT_EQ(got.ok(), want.ok()) << what;
          if (!got.ok()) {
            EXPECT_EQ(got.error(), want.error()) << what;
            continue;
          }
          EXPECT_EQ(FirstDifference(**got, **want), -1) << what << " round " << round;
          if (constant) {
            EXPECT_FALSE(report.direct) << what;
          }
          direct += report.direct;
        }
      }
    }
  }
  EXPECT_GE(direct, 4);
}

// What the direct call does not take goes the engine's way, with the engine's answers: a row
// that fails (the kernel's evidence), inputs to decode (values not aligned to their width), a
// batch past the memory limit, a wrong column.
TEST(PreparedExpression, DirectCallsLeaveTheRestToTheEngine) {
  auto engine = NewEngine({.max_evaluation_bytes = 64 << 10});
  const Schema schema = *ParseSchema("a:i32, b:i32");
  auto expr = *ir::ParseAndBind("a * b + 1", schema);
  auto p = std::move(engine->PrepareExpression(expr)).value();
  const std::vector<ArrayPtr> good = {Col(kI32, "[1, 2, 3]"), Col(kI32, "[4, 5, 6]")};
  for (int round = 0; round < 2; ++round) ASSERT_TRUE(p->Evaluate(good, 3).ok());
  EvalReport report;
  ASSERT_TRUE(p->Evaluate(good, 3, &report).ok());
  EXPECT_TRUE(report.direct);
  // Evidence: the row's error, as Engine::Evaluate gives it, and the call was not direct.
  const std::vector<ArrayPtr> overflow = {Col(kI32, "[1, 65536, 3]"), Col(kI32, "[4, 65536, 6]")};
  auto failed = p->Evaluate(overflow, 3, &report);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), engine->Evaluate(expr, overflow, 3).error());
  EXPECT_EQ(failed.error().row(), 1);
  EXPECT_FALSE(report.direct);
  // Values one byte off their width's alignment: decoded by the engine's path.
  auto bytes = *Buffer::Allocate(4 * 3 + 1);
  const int32_t raw[3] = {7, 8, 9};
  std::memcpy(bytes->mutable_data() + 1, raw, sizeof(raw));
  auto odd = *PrimitiveArray::Make(kI32, 3, Buffer::Borrow(bytes->data() + 1, 12, bytes), Validity::AllValid());
  auto decoded = p->Evaluate(std::vector<ArrayPtr>{odd, good[1]}, 3, &report);
  ASSERT_TRUE(decoded.ok()) << decoded.error().ToString();
  EXPECT_EQ((*decoded)->ToString(), "[29, 41, 55]");
  EXPECT_FALSE(report.direct);
  // Past EngineOptions::max_evaluation_bytes: the engine's error, though the layout is held.
  const int64_t big = 8192;
  auto a = *RandomBatch(schema, big, 1.0, 3);
  auto limit = p->Evaluate(a.columns, big);
  ASSERT_FALSE(limit.ok());
  EXPECT_EQ(limit.error().code(), ErrorCode::kOutOfMemory);
  EXPECT_EQ(limit.error(), engine->Evaluate(expr, a.columns, big).error());
  // A column of another type, or missing: the engine's errors.
  EXPECT_EQ(p->Evaluate(std::vector<ArrayPtr>{good[0], Col(DataType(TypeId::kI64), "[3, 4, 5]")}, 3).error(),
            engine->Evaluate(expr, std::vector<ArrayPtr>{good[0], Col(DataType(TypeId::kI64), "[3, 4, 5]")}, 3).error());
  EXPECT_FALSE(p->Evaluate(std::vector<ArrayPtr>{good[0]}, 3).ok());
  ASSERT_TRUE(p->Evaluate(good, 3, &report).ok());
  EXPECT_TRUE(report.direct);
}

TEST(PreparedExpression, BadInputGetsTheEnginesErrors) {
  auto engine = NewEngine();
  EXPECT_FALSE(engine->PrepareExpression(nullptr).ok());
  EXPECT_FALSE(engine->PrepareExpression(*ir::Parse("a + 1")).ok());  // not bound
  const Schema schema = *ParseSchema("a:i32, b:i32");
  auto p = std::move(engine->PrepareExpression(*ir::ParseAndBind("a + b", schema))).value();
  const std::vector<ArrayPtr> good = {Col(kI32, "[1, 2]"), Col(kI32, "[3, 4]")};
  ASSERT_TRUE(p->Evaluate(good, 2).ok());
  EXPECT_FALSE(p->Evaluate(good, 3).ok());                                  // wrong length
  EXPECT_FALSE(p->Evaluate(std::vector<ArrayPtr>{good[0]}, 2).ok());         // missing column
  EXPECT_FALSE(p->Evaluate(std::vector<ArrayPtr>{good[0], nullptr}, 2).ok());
  EXPECT_FALSE(p->Evaluate(std::vector<ArrayPtr>{good[0], Col(DataType(TypeId::kI64), "[3, 4]")}, 2).ok());
  EXPECT_FALSE(p->Evaluate(good, -1).ok());
  ASSERT_TRUE(p->Evaluate(good, 2).ok());  // and the handle still works
}

TEST(PreparedExpression, ATieredEngineHoldsTheOptimizedKernelOnceReady) {
  auto engine = std::move(Engine::Make(EngineOptions{})).value();  // tiered
  const Schema schema = *ParseSchema("a:i32, b:i32");
  auto expr = *ir::ParseAndBind("a * b - 3", schema);
  auto p = std::move(engine->PrepareExpression(expr)).value();
  const std::vector<ArrayPtr> cols = {Col(kI32, "[1, 2, 3]"), Col(kI32, "[4, 5, 6]")};
  EvalReport report;
  ASSERT_TRUE(p->Evaluate(cols, 3, &report).ok());
  EXPECT_NE(report.tier, Tier::kOptimized);  // the static chain or the fast kernel answered
  EXPECT_EQ(p->layouts(), 0u);               // and neither is held
  engine->WaitForCompiles();
  auto out = p->Evaluate(cols, 3, &report);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->ToString(), "[1, 7, 15]");
  EXPECT_EQ(report.tier, Tier::kOptimized);
  EXPECT_EQ(p->layouts(), 1u);
}

}  // namespace

// Bitmaps owned by the caller and sized to their last byte (not padded to a 64-bit word), at byte
// offsets: kernels read whole words in place and the partial last word byte by byte, so nothing
// past the last byte is read (ASan builds would report it), and results match the reference.
TEST(Engine, UnpaddedBitmapsAreReadToTheirLastByte) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:bool?");
  std::mt19937_64 rng(2024);
  int compared = 0;
  for (int64_t length : {1, 7, 8, 9, 63, 64, 65, 100, 127, 128, 129, 200}) {
    for (int64_t offset : {0, 8, 24}) {
      const uint64_t seed = rng();
      std::mt19937_64 fill(seed);
      const int64_t bytes = offset / 8 + (length + 7) / 8;
      // Exactly sized heap blocks: a read past the end is a heap overflow under ASan.
      auto a_valid = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(bytes));
      auto b_valid = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(bytes));
      auto b_bits = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(bytes));
      auto a_values = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(length));
      for (auto* v : {a_valid.get(), b_valid.get(), b_bits.get()}) {
        for (auto& x : *v) x = static_cast<uint8_t>(fill());
      }
      for (auto& x : *a_values) x = static_cast<int32_t>(fill() % 2001) - 1000;
      auto borrow = [](const auto& v) {
        return Buffer::Borrow(v->data(), static_cast<int64_t>(v->size() * sizeof((*v)[0])), v);
      };
      ArrayPtr a = *PrimitiveArray::Make(DataType(TypeId::kI32, true), length, borrow(a_values),
                                         *Validity::FromBitmap(borrow(a_valid), offset, length));
      ArrayPtr b = *BoolArray::Make(length, borrow(b_bits), *Validity::FromBitmap(borrow(b_valid), offset, length),
                                    offset, true);
      const std::vector<ArrayPtr> cols = {a, b};
      for (const char* text : {"a + 1", "not b", "if(b, a, 0)"}) {
        auto expr = *ir::ParseAndBind(text, schema);
        auto ref = ir::EvaluateReference(*expr, cols, length);
        auto out = engine->Evaluate(expr, cols, length);
        ASSERT_TRUE(ref.ok() && out.ok()) << text << " seed " << seed;
        EXPECT_EQ((*out)->ToString(), (*ref)->ToString()) << text << " length " << length << " seed " << seed;
        ++compared;
      }
      for (const char* text : {"sum(a)", "min_max(a)", "count(a)", "any(b)", "sum(a * 2)"}) {
        auto agg = *ir::ParseAndBindAggregate(text, schema);
        auto ref = ir::EvaluateAggregateReference(agg, cols, length);
        auto out = engine->Aggregate(agg, cols, length);
        ASSERT_TRUE(ref.ok() && out.ok()) << text << " seed " << seed;
        EXPECT_EQ(out->ToString(agg.kind), ref->ToString(agg.kind)) << text << " length " << length << " seed " << seed;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 12 * 3 * 8);
}

// A kernel level forced below the host's best (kernels::SetKernelLevel, as ROWJIT_KERNEL_LEVEL)
// holds for the JIT too: "native" resolves to that x86-64 level (no mask registers, 256-bit
// vectors), `rowjit info` says so, and an engine made meanwhile evaluates and folds as the
// reference does; back at the best level, native is the host again.
TEST(Engine, AForcedKernelLevelHoldsForTheJit) {
  using kernels::KernelLevel;
  if (kernels::BestKernelLevel() != KernelLevel::kV4) {
    GTEST_SKIP() << "needs an x86-64-v4 (AVX-512) host, to force x86-64-v3 below its best";
  }
  struct RestoreLevel {
    KernelLevel level = kernels::ActiveKernelLevel();
    ~RestoreLevel() { (void)kernels::SetKernelLevel(level); }
  } restore;
  ASSERT_TRUE(kernels::SetKernelLevel(KernelLevel::kV3));
  ASSERT_OK_AND_ASSIGN(TargetSpec forced, ResolveTarget("native"));
  EXPECT_EQ(forced.cpu, "x86-64-v3");
  EXPECT_TRUE(forced.native);
  EXPECT_FALSE(forced.mask_registers);
  EXPECT_EQ(forced.sum_fold_vector_width, 256);
  EXPECT_EQ(GetHostInfo().kernel_target, "x86-64-v3");
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i32");
  for (uint64_t seed = 0; seed < 6; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t n = std::array<int64_t, 3>{63, 1000, 70000}[seed % 3];
    std::vector<ArrayPtr> cols;
    for (const Field& f : schema.fields) {
      cols.push_back(RandomFlatArray({f.type, n, seed < 3 ? 0.5 : 0.97, 0, NullLayout::kScattered,
                                      ValueMode::kModerate}, rng));
    }
    for (const char* text : {"a * b + c", "a * b < c"}) {
      auto expr = *ir::ParseAndBind(text, schema);
      auto ref = ir::EvaluateReference(*expr, cols, n);
      auto out = engine->Evaluate(expr, cols, n);
      ASSERT_TRUE(ref.ok() && out.ok()) << text << " seed " << seed;
      EXPECT_EQ(FirstDifference(**out, **ref), -1) << text << " seed " << seed;
    }
    for (const char* text : {"sum(a * b)", "min_max(a)", "sum(c)"}) {
      auto agg = *ir::ParseAndBindAggregate(text, schema);
      auto ref = ir::EvaluateAggregateReference(agg, cols, n);
      auto out = engine->Aggregate(agg, cols, n);
      ASSERT_TRUE(ref.ok() && out.ok()) << text << " seed " << seed;
      EXPECT_EQ(out->ToString(agg.kind), ref->ToString(agg.kind)) << text << " seed " << seed;
    }
  }
  ASSERT_TRUE(kernels::SetKernelLevel(KernelLevel::kV4));
  ASSERT_OK_AND_ASSIGN(TargetSpec best, ResolveTarget("native"));
  EXPECT_NE(best.cpu, "x86-64-v3");
  EXPECT_TRUE(best.mask_registers);
  EXPECT_EQ(GetHostInfo().kernel_target, "native");
}

}  // namespace rowjit::jit
