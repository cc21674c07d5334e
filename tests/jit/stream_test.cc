// Streaming output stores (tests): with a threshold small enough to stream every batch, dense
// kernels take the streaming shape where the output is aligned (and only there), answer as the
// reference over every numeric type, null pattern, length and offset, through Evaluate,
// EvaluateInto and prepared expressions; the optimized IR of a streaming kernel stores whole
// aligned vectors marked non-temporal.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/gates/gates.h"
#include "jit/gates/kernel_request.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

#if defined(__x86_64__)
constexpr bool kStreams = true;
#else
constexpr bool kStreams = false;  // the streaming form is x86's
#endif

std::unique_ptr<Engine> StreamingEngine(int64_t threshold) {
  return std::move(Engine::Make({.stream_output_bytes = threshold, .compile = EngineOptions::Compile::kSynchronous}))
      .value();
}

bool Streamed(const EvalReport& r) { return r.kernel.has_value() && r.kernel->shape.stream_output; }

TEST(Stream, DenseKernelsStreamPastTheThresholdAndAnswerAsTheReference) {
  auto engine = StreamingEngine(1);  // every batch is "large"
  auto never = StreamingEngine(-1);
  const char* texts[] = {"a * b + c", "a - b * 3", "if(a < b, a, c)", "a / b", "cast(a, f64) * 0.5"};
  int streamed = 0, cases = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId t = kAllTypeIds[1 + rng() % (std::size(kAllTypeIds) - 1)];  // numeric types
    const std::string type(TypeIdName(t));
    const bool nulls = seed % 3 == 0;
    const Schema schema = *ParseSchema(fmt::format("a:{}{}, b:{}, c:{}", type, nulls ? "?" : "", type, type));
    const int64_t length = std::array<int64_t, 6>{1, 63, 64, 65, 1000, 4099}[rng() % 6];
    ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, length, 0.8, rng()));
    for (const char* text : texts) {
      auto bound = ir::ParseAndBind(text, schema);
      if (!bound.ok()) continue;  // e.g. cast of f64 to f64 is fine; a type error is not a case
      const ir::ExprPtr expr = *bound;
      EvalReport report;
      auto got = engine->Evaluate(expr, batch, {}, &report);
      auto plain = never->Evaluate(expr, batch);
      auto want = ir::EvaluateReference(*expr, batch.columns, batch.length);
      ++cases;
      ASSERT_EQ(got.ok(), want.ok()) << text << " seed " << seed;
      ASSERT_EQ(plain.ok(), want.ok()) << text << " seed " << seed;
      if (!want.ok()) {
        EXPECT_EQ(got.error(), want.error()) << text << " seed " << seed;
        continue;
      }
      EXPECT_EQ(FirstDifference(**got, **want), -1) << text << " seed " << seed;
      EXPECT_EQ(FirstDifference(**plain, **want), -1) << text << " seed " << seed;
      if (Streamed(report)) ++streamed;
      if (report.strategy == Strategy::kDense && expr->type().id != TypeId::kBool) {
        EXPECT_EQ(Streamed(report), kStreams) << text << " seed " << seed;
      }
    }
  }
  EXPECT_GT(cases, 150);
  if (kStreams) {
    EXPECT_GT(streamed, 40);
  }
}

TEST(Stream, CallerOutputsStreamOnlyWhenAligned) {
  auto engine = StreamingEngine(1);
  const Schema schema = *ParseSchema("a:i32, b:i32");
  const int64_t n = 1000;
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, n, 1.0, 3));
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind("a * 3 + b", schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*expr, batch.columns, n));
  alignas(64) static int32_t memory[1000 + 16];
  for (int shift : {0, 1, 4}) {  // int32 offsets: 0 bytes (aligned), 4 and 16 bytes (not)
    std::memset(memory, 0, sizeof(memory));
    const OutputBuffers out{memory + shift, n * 4, nullptr, 0};
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->EvaluateInto(expr, batch.columns, n, out, {}, &report));
    EXPECT_EQ(FirstDifference(*got, *want), -1) << shift;
    EXPECT_EQ(Streamed(report), kStreams && shift == 0) << shift;
    EXPECT_FALSE(report.output_copied);
    EXPECT_EQ(static_cast<const PrimitiveArray&>(*got).raw_values(), reinterpret_cast<uint8_t*>(memory + shift));
  }
  // A prepared expression holds a layout per streaming decision.
  ASSERT_OK_AND_ASSIGN(auto prepared, engine->PrepareExpression(expr));
  for (int shift : {0, 1, 0, 1}) {
    const OutputBuffers out{memory + shift, n * 4, nullptr, 0};
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, prepared->EvaluateInto(batch.columns, n, out));
    EXPECT_EQ(FirstDifference(*got, *want), -1) << shift;
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr fresh, prepared->Evaluate(batch.columns, n));
  EXPECT_EQ(FirstDifference(*fresh, *want), -1);
  EXPECT_EQ(prepared->layouts(), kStreams ? 2u : 1u);
}

TEST(Stream, SmallBatchesKeepOrdinaryStores) {
  auto engine = StreamingEngine(int64_t{1} << 30);
  const Schema schema = *ParseSchema("a:i64, b:i64");
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RandomBatch(schema, 4096, 1.0, 5));
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr expr, ir::ParseAndBind("a + b", schema));
  EvalReport report;
  ASSERT_OK(engine->Evaluate(expr, batch, {}, &report).status());
  EXPECT_FALSE(Streamed(report));
}

TEST(Stream, TheOptimizedIrStoresAlignedNonTemporalVectors) {
  if (!kStreams) GTEST_SKIP() << "streaming stores are x86's";
  for (const char* schema : {"a:i32, b:i32, c:i32", "a:f64, b:f64, c:f64", "a:u8, b:u8, c:u8"}) {
    ASSERT_OK_AND_ASSIGN(PlannedKernel k, PlanRequest({.expr = "a * b + c", .schema = schema, .constants = {}, .policy = "dense"}));
    k.key.shape.stream_output = true;
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckPlanned(k));
    EXPECT_TRUE(check.result.violations.empty()) << schema << "\n" << check.code.optimized_ir;
    const std::string& ir = check.code.optimized_ir;
    bool vector_nt_store = false;
    for (size_t at = ir.find("store <"); at != std::string::npos; at = ir.find("store <", at + 1)) {
      const std::string line = ir.substr(at, ir.find('\n', at) - at);
      if (line.find("!nontemporal") == std::string::npos) continue;
      vector_nt_store = true;
      EXPECT_EQ(line.find("align 4,"), std::string::npos) << line;  // whole aligned vectors
      EXPECT_EQ(line.find("align 1,"), std::string::npos) << line;
    }
    EXPECT_TRUE(vector_nt_store) << schema << "\n" << ir;
    EXPECT_NE(ir.find("llvm.x86.sse.sfence"), std::string::npos) << schema;
  }
}

}  // namespace
}  // namespace rowjit::jit
