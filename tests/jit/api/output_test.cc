// Caller outputs (jit): EvaluateInto and ProjectInto write results into memory the caller lends.
// Against the reference over random expressions, policies, tiers, lengths around 64, offsets,
// nulls, encodings and selections: the array returned lies in the caller's memory, its bytes
// and validity bits are the reference's, nothing past the buffers or in the inputs is touched,
// kernels over whole batches write there directly, and bad buffers are refused before anything
// is written.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ir/binder.h"
#include "ir/projection.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/random_data.h"
#include "support/result_text.h"

namespace rowjit::jit {
namespace {

constexpr uint8_t kCanary = 0xA5;
constexpr size_t kGuardBytes = 64;

std::unique_ptr<Engine> NewEngine() { return std::move(Engine::Make()).value(); }

int64_t ValuesBytes(DataType type, int64_t n) {
  return type.id == TypeId::kBool ? kernels::NumWords(n) * 8 : n * ByteWidth(type.id);
}

// Caller memory for one output: each buffer followed by guard bytes that must survive the call.
// The buffers start filled with the canary too, so that a row left unwritten shows.
struct Lent {
  std::vector<uint64_t> values, validity;  // 8-byte aligned storage
  int64_t values_bytes = 0, validity_bytes = 0;

  Lent(DataType type, int64_t n, bool with_validity)
      : values_bytes(ValuesBytes(type, n)), validity_bytes(with_validity ? kernels::NumWords(n) * 8 : 0) {
    values.resize(static_cast<size_t>(values_bytes + kGuardBytes) / 8 + 1);
    validity.resize(static_cast<size_t>(validity_bytes + kGuardBytes) / 8 + 1);
    std::memset(values.data(), kCanary, values.size() * 8);
    std::memset(validity.data(), kCanary, validity.size() * 8);
  }
  OutputBuffers buffers() {
    return {.values = values.data(), .values_bytes = values_bytes,
            .validity = validity_bytes > 0 ? validity.data() : nullptr, .validity_bytes = validity_bytes};
  }
  static bool Guarded(const std::vector<uint64_t>& v, int64_t from) {
    const auto* b = reinterpret_cast<const uint8_t*>(v.data());
    for (size_t i = static_cast<size_t>(from); i < v.size() * 8; ++i) {
      if (b[i] != kCanary) return false;
    }
    return true;
  }
  bool GuardsIntact() const { return Guarded(values, values_bytes) && Guarded(validity, validity_bytes); }
  bool Untouched() const { return Guarded(values, 0) && Guarded(validity, 0); }
};

// What the caller's memory must hold after a call that returned `got`: the array lies in it, and
// the validity bits (when lent) say which rows are valid, bits past the last row zero.
void ExpectInCallerMemory(const ArrayPtr& got, Lent& lent, const std::string& where) {
  const int64_t n = got->length();
  EXPECT_TRUE(lent.GuardsIntact()) << where;
  if (n == 0) return;
  if (got->encoding() == Encoding::kBool) {
    const auto& b = static_cast<const BoolArray&>(*got);
    EXPECT_EQ(b.bits_buffer()->data(), reinterpret_cast<const uint8_t*>(lent.values.data())) << where;
    EXPECT_EQ(b.offset(), 0) << where;
    EXPECT_EQ(lent.values[static_cast<size_t>(n - 1) / 64] & ~kernels::LowBits(n % 64 == 0 ? 64 : n % 64), 0u)
        << where;
  } else {
    ASSERT_EQ(got->encoding(), Encoding::kPrimitive) << where;
    EXPECT_EQ(static_cast<const PrimitiveArray&>(*got).raw_values(),
              reinterpret_cast<const uint8_t*>(lent.values.data())) << where;
  }
  if (lent.validity_bytes == 0) return;
  const auto* bits = reinterpret_cast<const uint8_t*>(lent.validity.data());
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(kernels::GetBit(bits, i), !got->IsNull(i)) << where << " row " << i;
  }
  for (int64_t i = n; i < kernels::NumWords(n) * 64; ++i) ASSERT_FALSE(kernels::GetBit(bits, i)) << where;
}

// The reference under a selection: over the taken rows, a row error named by its batch row.
Result<ArrayPtr> ReferenceSelected(const ir::Expr& e, std::span<const ArrayPtr> cols, const SelectionVector& sel) {
  std::vector<ArrayPtr> taken(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) taken[c] = *Take(*cols[c], sel);
  Result<ArrayPtr> want = ir::EvaluateReference(e, taken, sel.size());
  if (want.ok() || !want.error().row()) return want;
  Error err = std::move(want).TakeError();
  std::string f = err.function();
  const int64_t row = sel[*err.row()];
  return std::move(err).WithRow(std::move(f), row);
}

const ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};

TEST(Output, EvaluateIntoMatchesTheReferenceInCallerMemory) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int cases = 0, direct = 0, failing = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId t = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    const std::string text = testing::RandomExpression(t, schema, 1 + static_cast<int>(rng() % 3), rng);
    auto expr = ir::ParseAndBind(text, schema);
    ASSERT_TRUE(expr.ok()) << "seed " << seed << ": " << text;
    for (int k = 0; k < 4; ++k) {
      const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 700, 4100}[rng() % 7];
      const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
      const std::vector<std::string> before = [&] {
        std::vector<std::string> s;
        for (const ArrayPtr& c : cols) s.push_back(c->ToString(1 << 20));
        return s;
      }();
      const EvalOptions o{.policy = kPolicies[rng() % std::size(kPolicies)],
                          .tier = rng() % 3 == 0 ? std::optional<Tier>(Tier::kFast) : std::nullopt};
      const bool with_validity = (*expr)->type().nullable || rng() % 2 == 0;
      const std::string where = fmt::format("seed {} case {} length {} policy {}: {}", seed, k, length,
                                            ir::PolicyName(o.policy), text);
      Lent lent((*expr)->type(), length, with_validity);
      EvalReport report;
      const Result<ArrayPtr> got = engine->EvaluateInto(*expr, cols, length, lent.buffers(), o, &report);
      const Result<ArrayPtr> want = ir::EvaluateReference(**expr, cols, length);
      ASSERT_EQ(testing::ResultText(got), testing::ResultText(want)) << where;
      if (got.ok()) ExpectInCallerMemory(*got, lent, where);
      // Kernels run over the whole batch write the caller's memory themselves.
      const bool kernel_path = report.tier != Tier::kStatic && report.strategy != Strategy::kConstant &&
                               report.strategy != Strategy::kNullConstant && report.route != Route::kStaged;
      if (got.ok() && length > 0 && kernel_path) {
        EXPECT_FALSE(report.output_copied) << where << " " << StrategyName(report.strategy);
        ++direct;
      }
      for (size_t c = 0; c < cols.size(); ++c) ASSERT_EQ(cols[c]->ToString(1 << 20), before[c]) << where;
      // Under a selection: selection.size() rows.
      const SelectionVector sel = testing::RandomSelection(length, rng);
      Lent lent_sel((*expr)->type(), sel.size(), with_validity);
      const Result<ArrayPtr> got_sel = engine->EvaluateInto(*expr, cols, length, sel, lent_sel.buffers(), o);
      ASSERT_EQ(testing::ResultText(got_sel), testing::ResultText(ReferenceSelected(**expr, cols, sel))) << where << " (selection)";
      if (got_sel.ok()) ExpectInCallerMemory(*got_sel, lent_sel, where + " (selection)");
      ++cases;
      failing += !want.ok();
    }
  }
  EXPECT_EQ(cases, 600);
  EXPECT_GT(direct, 200);
  EXPECT_GT(failing, 10);
}

TEST(Output, ProjectIntoMatchesTheReferenceInCallerMemory) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int cases = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId t = kAllTypeIds[1 + rng() % (std::size(kAllTypeIds) - 1)];  // numeric
    const std::string shared = testing::RandomExpression(t, schema, 2, rng);
    const std::vector<std::string> texts = {shared, fmt::format("({0}) + ({0})", shared),
                                            testing::RandomExpression(TypeId::kBool, schema, 2, rng),
                                            fmt::format("is_null({})", shared)};
    std::vector<ir::ExprPtr> exprs;
    for (const std::string& text : texts) exprs.push_back(*ir::ParseAndBind(text, schema));
    for (int k = 0; k < 3; ++k) {
      const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 700}[rng() % 6];
      const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
      const EvalOptions o{.policy = kPolicies[rng() % std::size(kPolicies)]};
      const std::string where = fmt::format("seed {} case {} length {}: {}", seed, k, length, fmt::join(texts, " | "));
      const bool with_selection = rng() % 2 == 0;
      const SelectionVector sel = with_selection ? testing::RandomSelection(length, rng) : *SelectionVector::All(length);
      std::vector<Lent> lents;
      std::vector<OutputBuffers> outs;
      for (const ir::ExprPtr& e : exprs) lents.emplace_back(e->type(), sel.size(), e->type().nullable || rng() % 2);
      for (Lent& l : lents) outs.push_back(l.buffers());
      EvalReport report;
      const auto got = with_selection ? engine->ProjectInto(exprs, cols, length, sel, outs, o, &report)
                                      : engine->ProjectInto(exprs, cols, length, outs, o, &report);
      const auto plain = with_selection ? engine->Project(exprs, cols, length, sel, o)
                                        : engine->Project(exprs, cols, length, o);
      ASSERT_EQ(got.ok(), plain.ok()) << where;
      if (!got.ok()) {
        EXPECT_EQ(got.error().ToString(), plain.error().ToString()) << where;
        continue;
      }
      for (size_t i = 0; i < exprs.size(); ++i) {
        ASSERT_EQ(testing::ResultText((*got)[i]), testing::ResultText((*plain)[i])) << where << " output " << i;
        ASSERT_EQ(testing::ResultText((*got)[i]), testing::ResultText(ReferenceSelected(*exprs[i], cols, sel))) << where << " output " << i;
        ExpectInCallerMemory((*got)[i], lents[i], where + fmt::format(" output {}", i));
      }
      ++cases;
    }
  }
  EXPECT_GT(cases, 150);
}

TEST(Output, DenseKernelsWriteTheCallerMemoryDirectly) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i32");
  auto expr = *ir::ParseAndBind("a * b + c", schema);
  const std::vector<ArrayPtr> cols = RandomBatch(schema, 10000, 0.5, 7)->columns;
  for (ir::Policy policy : kPolicies) {
    Lent lent(expr->type(), 10000, true);
    EvalReport report;
    auto got = engine->EvaluateInto(expr, cols, 10000, lent.buffers(), {.policy = policy, .tier = Tier::kOptimized},
                                    &report);
    ASSERT_TRUE(got.ok()) << got.error().ToString();
    EXPECT_FALSE(report.output_copied) << ir::PolicyName(policy);
    EXPECT_EQ(testing::ResultText(got), testing::ResultText(ir::EvaluateReference(*expr, cols, 10000))) << ir::PolicyName(policy);
    ExpectInCallerMemory(*got, lent, std::string(ir::PolicyName(policy)));
  }
  // A constant result is copied in, and says so.
  auto constant = *ir::ParseAndBind("c - c + 4", *ParseSchema("c:i32"));
  const std::vector<ArrayPtr> one = {*ConstantArray::Make(Scalar::Of<int32_t>(3), 100)};
  Lent lent(constant->type(), 100, false);
  EvalReport report;
  auto got = engine->EvaluateInto(constant, one, 100, lent.buffers(), {}, &report);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  EXPECT_TRUE(report.output_copied);
  EXPECT_EQ((*got)->ToString(3), "[4, 4, 4, ...]");
}

// A prepared EvaluateInto hands its last result object out again when the caller dropped it and
// lends the same memory: the values, validity and null count are still this call's.
TEST(Output, PreparedEvaluateIntoReusesADroppedResult) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i32");
  auto expr = *ir::ParseAndBind("a * b + c", schema);
  auto handle = engine->PrepareExpression(expr, {.tier = Tier::kOptimized}).value();
  constexpr int64_t kN = 1000;
  Lent lent(expr->type(), kN, true);
  auto check = [&](const std::vector<ArrayPtr>& cols, int64_t n, Lent& into, const std::string& where) {
    auto got = handle->EvaluateInto(cols, n, into.buffers());
    auto want = ir::EvaluateReference(*expr, cols, n);
    EXPECT_EQ(testing::ResultText(got), testing::ResultText(want)) << where;
    if (!got.ok() || !want.ok()) return ArrayPtr{};
    EXPECT_EQ((*got)->NullCount(), (*want)->NullCount()) << where;
    ExpectInCallerMemory(*got, into, where);
    return *got;
  };
  std::vector<std::vector<ArrayPtr>> batches;
  for (uint64_t seed : {1, 2, 3, 4}) batches.push_back(RandomBatch(schema, kN, 0.5, seed)->columns);
  check(batches[0], kN, lent, "first call");  // plans the layout
  const Array* second = check(batches[1], kN, lent, "second call").get();
  const ArrayPtr third = check(batches[2], kN, lent, "third call");
  EXPECT_EQ(third.get(), second) << "the dropped result is handed out again";
  ASSERT_NE(ir::EvaluateReference(*expr, batches[1], kN).value()->NullCount(), third->NullCount())
      << "the batches' null counts differ, so a stale count would show";
  // Still held: the next call builds its own.
  const ArrayPtr fourth = check(batches[3], kN, lent, "a call while the last result is held");
  EXPECT_NE(fourth.get(), third.get());
  // Other memory, a shorter batch, a batch without nulls: each result is this call's.
  Lent other(expr->type(), kN, true);
  check(batches[0], kN, other, "other memory");
  const std::vector<ArrayPtr> dense = RandomBatch(schema, kN, 1.0, 5)->columns;
  check(dense, kN, other, "a batch without nulls");
  std::vector<ArrayPtr> shorter;
  for (const ArrayPtr& c : batches[1]) shorter.push_back(*c->Slice(0, kN / 2));
  Lent half(expr->type(), kN / 2, true);
  check(shorter, kN / 2, half, "a shorter batch");
}

TEST(Output, BadBuffersAreRefusedBeforeAnythingIsWritten) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto expr = *ir::ParseAndBind("a + b", schema);
  auto strict = *ir::ParseAndBind("b * 2", schema);
  const std::vector<ArrayPtr> cols = {*MakeArray<int32_t>({1, std::nullopt, 3, 4}),
                                      *MakeArray<int32_t>({1, 2, 3, 4}, false)};
  // Refused by the one-shot call, and by a prepared handle's calls (EvaluateInto and WriteInto) on
  // a layout it holds (its direct call checks the output itself).
  auto refused = [&](const ir::ExprPtr& e, auto&& edit, std::string_view message) {
    auto handle = engine->PrepareExpression(e).value();
    Lent good(e->type(), 4, true);
    ASSERT_TRUE(handle->EvaluateInto(cols, 4, good.buffers()).ok()) << message;
    for (int how = 0; how < 3; ++how) {
      Lent lent(e->type(), 4, true);
      OutputBuffers out = lent.buffers();
      edit(out, lent);
      EvalReport report;
      const Status r = how == 0   ? engine->EvaluateInto(e, cols, 4, out).status()
                       : how == 1 ? handle->EvaluateInto(cols, 4, out, &report).status()
                                  : handle->WriteInto(cols, 4, out, &report).status();
      ASSERT_FALSE(r.ok()) << message << " " << how;
      EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput) << message;
      EXPECT_NE(r.error().ToString().find(message), std::string::npos) << r.error().ToString();
      EXPECT_TRUE(lent.Untouched()) << message << " " << how;
      EXPECT_FALSE(report.direct) << message << " " << how;
    }
  };
  refused(expr, [](OutputBuffers& o, Lent&) { o.values_bytes = 15; }, "the values buffer holds 15 bytes; 16 are needed");
  refused(expr, [](OutputBuffers& o, Lent&) { o.values = static_cast<uint8_t*>(o.values) + 2; },
          "values buffer is not aligned to 4 bytes");
  refused(expr, [](OutputBuffers& o, Lent&) { o.values = nullptr; }, "no values buffer for 16 bytes");
  refused(expr, [](OutputBuffers& o, Lent&) { o.validity = nullptr; }, "no validity buffer");
  refused(expr, [](OutputBuffers& o, Lent&) { o.validity_bytes = 4; }, "the validity buffer holds 4 bytes; 8 are needed");
  refused(expr, [](OutputBuffers& o, Lent&) { o.validity = static_cast<uint8_t*>(o.validity) + 4; },
          "validity buffer is not aligned to 8 bytes");
  refused(expr, [](OutputBuffers& o, Lent&) { o.values_bytes = -1; }, "values capacity -1 is negative");
  refused(expr, [](OutputBuffers& o, Lent&) { o.validity = static_cast<uint8_t*>(o.values) + 8; },
          "its values and validity buffers overlap");
  // Over an input's buffer: the caller's column is never written.
  const auto& b = static_cast<const PrimitiveArray&>(*cols[1]);
  auto over_input = engine->EvaluateInto(
      strict, cols, 4, {.values = const_cast<uint8_t*>(b.raw_values()), .values_bytes = 16});
  ASSERT_FALSE(over_input.ok());
  EXPECT_NE(over_input.error().ToString().find("overlap an input's"), std::string::npos);
  EXPECT_EQ(cols[1]->ToString(), "[1, 2, 3, 4]");
  auto held = engine->PrepareExpression(strict).value();
  std::vector<int32_t> apart(4);
  ASSERT_EQ(*held->WriteInto(cols, 4, {.values = apart.data(), .values_bytes = 16}), 0);
  const Status over_held = held->WriteInto(cols, 4, {.values = const_cast<uint8_t*>(b.raw_values()), .values_bytes = 16}).status();
  ASSERT_FALSE(over_held.ok());
  EXPECT_NE(over_held.error().ToString().find("overlap an input's"), std::string::npos);
  EXPECT_EQ(cols[1]->ToString(), "[1, 2, 3, 4]");
  EXPECT_EQ(apart, (std::vector<int32_t>{2, 4, 6, 8}));
  // A non-nullable result needs no validity buffer.
  std::vector<int32_t> values(4);
  auto ok = engine->EvaluateInto(strict, cols, 4, {.values = values.data(), .values_bytes = 16});
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(values, (std::vector<int32_t>{2, 4, 6, 8}));
  // Projections: one OutputBuffers per expression, and the outputs apart.
  const std::vector<ir::ExprPtr> exprs = {expr, strict};
  Lent l0(expr->type(), 4, true), l1(strict->type(), 4, false);
  const std::vector<OutputBuffers> one = {l0.buffers()};
  EXPECT_NE(engine->ProjectInto(exprs, cols, 4, one).error().ToString().find("1 output buffers for 2 expressions"),
            std::string::npos);
  const std::vector<OutputBuffers> same = {l0.buffers(), {.values = l0.values.data(), .values_bytes = 16}};
  EXPECT_NE(engine->ProjectInto(exprs, cols, 4, same).error().ToString().find("output 1: its buffers overlap"),
            std::string::npos);
  EXPECT_TRUE(l0.Untouched());
  // A row error is Evaluate's, in the caller's memory or not.
  auto failing = *ir::ParseAndBind("b / (b - 3)", schema);
  Lent lf(failing->type(), 4, false);
  EXPECT_EQ(testing::ResultText(engine->EvaluateInto(failing, cols, 4, lf.buffers())), testing::ResultText(engine->Evaluate(failing, cols, 4)));
}

// WriteBuffers: a host's raw column buffers, each batch's validity ANDed into the output, the
// direct call on a held layout (report.direct), the null count returned, and clear errors.
TEST(Output, WriteBuffersReadsRawColumns) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i64, s:utf8, d:decimal(15,2)?, f:bool?");
  auto handle = engine->PrepareExpression(*ir::ParseAndBind("a * b + c", schema), {.tier = Tier::kOptimized}).value();
  std::mt19937_64 rng(11);
  int direct = 0;
  for (int batch = 0; batch < 40; ++batch) {
    const int64_t n = std::vector<int64_t>{1, 63, 64, 65, 130, 2048, 2049}[rng() % 7];
    std::vector<int32_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    std::vector<int64_t> c(static_cast<size_t>(n));
    const size_t words = static_cast<size_t>(kernels::NumWords(n));
    std::vector<uint64_t> va(words), vb(words);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<int32_t>(rng() % 2000) - 1000, b[i] = static_cast<int32_t>(rng() % 2000) - 1000;
      c[i] = static_cast<int64_t>(rng() % 100000);
      if (rng() % 4 != 0) va[i / 64] |= uint64_t{1} << (i % 64);
      if (rng() % 3 != 0) vb[i / 64] |= uint64_t{1} << (i % 64);
    }
    const bool a_nulls = batch % 3 != 0, b_nulls = batch % 2 == 0;  // each layout in turn
    const std::vector<ColumnBuffers> raw = {{a.data(), a_nulls ? va.data() : nullptr},
                                            {b.data(), b_nulls ? vb.data() : nullptr},
                                            {c.data(), nullptr}};
    // The same batch as arrays, for the reference.
    auto column = [&](const void* values, int64_t width, const uint64_t* valid, DataType t) -> ArrayPtr {
      Validity v = valid != nullptr ? *Validity::FromBitmap(Buffer::Borrow(valid, static_cast<int64_t>(words) * 8, nullptr), 0, n)
                                    : Validity::AllValid();
      return *PrimitiveArray::Make(t, n, Buffer::Borrow(values, n * width, nullptr), v);
    };
    const std::vector<ArrayPtr> arrays = {column(a.data(), 4, raw[0].validity, DataType(TypeId::kI32, true)),
                                          column(b.data(), 4, raw[1].validity, DataType(TypeId::kI32, true)),
                                          column(c.data(), 8, nullptr, DataType(TypeId::kI64))};
    const ArrayPtr want = *ir::EvaluateReference(*handle->expr(), arrays, n);
    Lent lent(handle->expr()->type(), n, true);
    EvalReport report;
    const Result<int64_t> nulls = handle->WriteBuffers(raw, n, lent.buffers(), &report);
    const std::string where = fmt::format("batch {} rows {}", batch, n);
    ASSERT_TRUE(nulls.ok()) << where << ": " << nulls.error().ToString();
    EXPECT_EQ(*nulls, want->NullCount()) << where;
    EXPECT_TRUE(lent.GuardsIntact()) << where;
    const auto* got = reinterpret_cast<const int64_t*>(lent.values.data());
    const auto* bits = reinterpret_cast<const uint8_t*>(lent.validity.data());
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(kernels::GetBit(bits, i), !want->IsNull(i)) << where << " row " << i;
      if (!want->IsNull(i)) {
        ASSERT_EQ(got[i], static_cast<const PrimitiveArray&>(*want).values<int64_t>()[i]) << where << " row " << i;
      }
    }
    for (int64_t i = n; i < kernels::NumWords(n) * 64; ++i) ASSERT_FALSE(kernels::GetBit(bits, i)) << where;
    direct += report.direct;
  }
  EXPECT_GE(direct, 30) << "batches of a held layout run the held kernel directly";

  // Other types through their raw forms: 16-byte decimals, bool bits (not a direct layout).
  auto dec = engine->PrepareExpression(*ir::ParseAndBind("d > 1.50 and f", schema)).value();
  const std::vector<__int128> d = {100, 151, 200, 149};
  const std::vector<uint64_t> f = {0b1110}, vd = {0b0111};
  std::vector<ColumnBuffers> raw(6);
  raw[4] = {d.data(), vd.data()};
  raw[5] = {f.data(), nullptr};
  Lent out(DataType(TypeId::kBool, true), 4, true);
  // 1.00 > 1.50 and false: false; 1.51 and 2.00 (> 1.50, and true): true; null and true: null.
  ASSERT_EQ(*dec->WriteBuffers(raw, 4, out.buffers()), 1);
  EXPECT_EQ(out.values[0] & out.validity[0], 0b0110u);
  EXPECT_EQ(out.validity[0], 0b0111u);

  // Errors, before anything is written.
  auto refused = [&](std::vector<ColumnBuffers> cols, int64_t n, std::string_view message, bool overlap_out = false) {
    Lent lent(handle->expr()->type(), n, true);
    OutputBuffers o = lent.buffers();
    if (overlap_out) o.values = const_cast<void*>(cols[0].values);
    const Status s = handle->WriteBuffers(cols, n, o).status();
    ASSERT_FALSE(s.ok()) << message;
    EXPECT_NE(s.error().ToString().find(message), std::string::npos) << s.error().ToString();
    if (!overlap_out) {
      EXPECT_TRUE(lent.Untouched()) << message;
    }
  };
  std::vector<int64_t> wide(8);
  std::vector<int32_t> narrow(8);
  const std::vector<uint64_t> all = {0xff};
  refused({{narrow.data(), nullptr}, {narrow.data(), nullptr}}, 8, "2 column buffers given; the expression reads column 2 (from 0)");
  refused({{narrow.data(), nullptr}, {narrow.data(), nullptr}, {wide.data(), all.data()}}, 8,
          "column 2: a validity bitmap for a column bound not nullable");
  refused({{nullptr, nullptr}, {narrow.data(), nullptr}, {wide.data(), nullptr}}, 8, "column 0: no values");
  refused({{narrow.data(), nullptr}, {narrow.data(), nullptr}, {wide.data(), nullptr}}, -1,
          "length -1 is negative or too large");
  refused({{narrow.data(), nullptr}, {narrow.data(), nullptr}, {wide.data(), nullptr}}, 8, "overlap an input's",
          /*overlap_out=*/true);
  auto text = engine->PrepareExpression(*ir::ParseAndBind("length(s)", schema)).value();
  std::vector<ColumnBuffers> with_text(4);
  with_text[3] = {narrow.data(), nullptr};
  EXPECT_NE(text->WriteBuffers(with_text, 8, out.buffers()).error().ToString().find("column 3: a utf8 column has no "
                                                                                     "raw-buffer form"),
            std::string::npos);
}

}  // namespace
}  // namespace rowjit::jit
