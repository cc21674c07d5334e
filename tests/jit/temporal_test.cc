// Temporal functions through the JIT against the reference (std::chrono, a different algorithm
// from the kernels' civil arithmetic): every field and truncation over every date, timestamp and
// time type, values across ±10,000 years and the storage's limits, nulls, slices, constants,
// every policy and tier, truncation overflow errors by row; fused folds; the binder's rules
// (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/function.h"
#include "ir/reference.h"
#include "jit/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/differential.h"

namespace rowjit::jit {
namespace {

constexpr const char* kTypes[] = {"date32",        "date64",        "timestamp(s)", "timestamp(ms)",
                                  "timestamp(us)", "timestamp(ns)", "timestamp(us, UTC)", "time32(s)",
                                  "time32(ms)",    "time64(us)",    "time64(ns)"};

// Random values of `type`: with edges, RandomLogicalValue's and one in eight at the storage's
// limits or around the epoch (where truncations fail, so such a column mostly compares errors);
// without, anywhere within a quarter of the storage's range (where none fails).
ArrayPtr TemporalColumn(DataType type, int64_t length, double valid, std::mt19937_64& rng, bool with_edges = true) {
  const int64_t offset = std::vector<int64_t>{0, 5, 64}[rng() % 3];
  const bool narrow = type.id == TypeId::kI32;
  const int64_t edges[] = {narrow ? INT32_MIN : INT64_MIN, narrow ? INT32_MAX : INT64_MAX, -1, 0, 1,
                           narrow ? INT32_MIN + 1 : INT64_MIN + 1};
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < offset + length; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(type.id));
    } else if (with_edges && rng() % 8 == 0 && type.logical != LogicalKind::kTime) {
      const int64_t v = edges[rng() % std::size(edges)];
      rows.push_back(Scalar::FromBits(type.id, static_cast<uint64_t>(v)).As(type));
    } else if (!with_edges && type.logical != LogicalKind::kTime) {  // anywhere but near the limits
      const int64_t v = static_cast<int64_t>(rng()) >> (narrow ? 34 : 2);
      rows.push_back(Scalar::FromBits(type.id, static_cast<uint64_t>(v)).As(type));
    } else {
      rows.push_back(RandomLogicalValue(type, rng));
    }
  }
  auto full = MakeArray(type.WithNullable(true), rows);
  EXPECT_TRUE(full.ok()) << full.error().ToString();
  return *(*full)->Slice(offset, length);
}

std::vector<std::string> TemporalCalls() {
  std::vector<std::string> out;
  for (const ir::Function* f : ir::AllFunctions()) {
    if (f->family == ir::Family::kTemporal && f->name != "temporal_cast") out.push_back(std::string(f->name) + "(t)");
  }
  return out;
}

TEST(Temporal, KernelsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const std::vector<std::string> calls = TemporalCalls();
  ASSERT_EQ(calls.size(), 20u);
  int compared = 0, errors = 0;
  int values = 0;
  for (uint64_t seed = 0; seed < 4 * std::size(kTypes); ++seed) {
    std::mt19937_64 rng(seed);
    const DataType type = *ParseDataType(kTypes[seed % std::size(kTypes)]);
    const int64_t length = std::vector<int64_t>{1000, 1, 63, 64, 65, 0, 200}[seed % 7];
    const double valid = std::vector<double>{0.9, 1.0, 0.5}[seed % 3];
    const bool edges = (seed / std::size(kTypes)) % 2 == 1;  // every type both ways
    ArrayPtr t = TemporalColumn(type, length, valid, rng, edges);
    if (seed % 6 == 5) t = *ConstantArray::Make(RandomLogicalValue(type, rng), length, true);
    const Schema schema{{{"t", t->type().WithNullable(true)}}};
    const std::vector<ArrayPtr> cols = {t};
    for (const std::string& text : calls) {
      auto e = ir::ParseAndBind(text, schema);
      if (!e.ok()) {  // a field this type does not have (year of a time, hour truncation of a date)
        EXPECT_EQ(e.error().code(), ErrorCode::kTypeError) << text << " " << type.ToString();
        continue;
      }
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, type.ToString(), length, text));
      const test::Compared c = test::CompareWithReference(*engine, *e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      errors += c == test::Compared::kError;
      values += c == test::Compared::kValues && length > 0;
    }
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(errors, 5);    // truncations below the storage's range, by row
  EXPECT_GT(values, 300);  // value arrays compared (not errors, not empty)
}

// Casts between every pair of temporal types a cast converts (and the refusal of the others),
// values anywhere and at the storage's limits (where finer units overflow), against the
// reference (exact 128-bit arithmetic), every policy and tier.
TEST(Temporal, CastsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kTargets[] = {"date32", "date64", "timestamp(s)", "timestamp(ms)", "timestamp(us)", "timestamp(ns)",
                                  "timestamp(ms, UTC)", "timestamp(ns, Europe/Paris)", "time32(s)", "time32(ms)",
                                  "time64(us)", "time64(ns)", "duration(s)", "duration(ns)"};
  const char* const kSources[] = {"date32", "date64", "timestamp(s)", "timestamp(ms)", "timestamp(us)", "timestamp(ns)",
                                  "timestamp(us, UTC)", "time32(s)", "time32(ms)", "time64(us)", "time64(ns)",
                                  "duration(ms)", "duration(us)"};
  int compared = 0, errors = 0, refused = 0;
  for (uint64_t seed = 0; seed < 2 * std::size(kSources); ++seed) {
    std::mt19937_64 rng(seed);
    const DataType type = *ParseDataType(kSources[seed % std::size(kSources)]);
    const int64_t length = std::vector<int64_t>{1000, 1, 63, 64, 65, 0, 200}[seed % 7];
    const bool edges = seed >= std::size(kSources);
    ArrayPtr t = TemporalColumn(type, length, std::vector<double>{0.9, 1.0, 0.5}[seed % 3], rng, edges);
    if (type.logical == LogicalKind::kDuration && !edges) {  // durations: RandomLogicalValue's range
      t = TemporalColumn(type, length, 0.9, rng, true);
    }
    const Schema schema{{{"t", t->type().WithNullable(true)}}};
    const std::vector<ArrayPtr> cols = {t};
    for (const char* target : kTargets) {
      const std::string text = fmt::format("cast(t, {})", target);
      auto e = ir::ParseAndBind(text, schema);
      if (!e.ok()) {
        EXPECT_EQ(e.error().code(), ErrorCode::kTypeError) << text << " " << type.ToString() << ": " << e.error().ToString();
        ++refused;
        continue;
      }
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, type.ToString(), length, text));
      EXPECT_EQ((*e)->type().WithNullable(false).ToString(), ParseDataType(target)->ToString());
      const test::Compared c = test::CompareWithReference(*engine, *e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      errors += c == test::Compared::kError;
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(errors, 20);   // finer units past the storage's range
  EXPECT_GT(refused, 100);  // times to dates, durations to timestamps, zones to none
}

// Every value of a small window around each 400-year boundary and month end, against the
// reference, dense: the civil arithmetic's corners (leap days, centuries, negative eras).
TEST(Temporal, EveryDayAroundCalendarCorners) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  std::vector<Scalar> rows;
  const DataType date = *ParseDataType("date32");
  for (int64_t center : {-719'468, -146'097 - 719'468, 0, 10'957, 11'016, 47'482, -25'567, 2'932'896}) {
    for (int64_t d = center - 400; d <= center + 400; ++d) rows.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(d)).As(date));
  }
  const std::vector<ArrayPtr> cols = {*MakeArray(date, rows)};
  const int64_t n = static_cast<int64_t>(rows.size());
  const Schema schema{{{"t", date}}};
  for (const std::string& text : TemporalCalls()) {
    auto e = ir::ParseAndBind(text, schema);
    if (!e.ok()) continue;
    ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(**e, cols, n));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(*e, cols, n));
    EXPECT_EQ(FirstDifference(*got, *want), -1) << text;
  }
}

TEST(Temporal, FoldsOverFields) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  std::mt19937_64 rng(5);
  const DataType type = *ParseDataType("timestamp(us)");
  const ArrayPtr t = TemporalColumn(type, 5000, 0.7, rng);
  const Schema schema{{{"t", type.WithNullable(true)}}};
  const std::vector<ArrayPtr> cols = {t};
  for (const char* text : {"sum(year(t))", "min_max(month(t))", "count(date_trunc_day(t))", "max(date_trunc('month', t))",
                           "sum(if(day_of_week(t) = 0, 1, 0))"}) {
    auto agg = ir::ParseAndBindAggregate(text, schema);
    ASSERT_TRUE(agg.ok()) << text << ": " << agg.error().ToString();
    auto want = ir::EvaluateAggregateReference(*agg, cols, 5000);
    auto got = engine->Aggregate(*agg, cols, 5000);
    ASSERT_EQ(got.ok(), want.ok()) << text;
    if (want.ok()) {
      EXPECT_EQ(got->ToString(agg->kind), want->ToString(agg->kind)) << text;
    } else {
      EXPECT_EQ(got.error().ToString(), want.error().ToString()) << text;
    }
  }
}

// Timestamp and date arithmetic through the storage's checked add and sub: values and overflow
// rows against the reference, result types, and the pairs refused.
TEST(Temporal, ArithmeticOverTheStorage) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const Schema schema = *ParseSchema("t:timestamp(ns)?, u:timestamp(ns), d:duration(ns)?, a:date32?, n:i32");
  const std::pair<const char*, const char*> typed[] = {
      {"t + d", "timestamp(ns)?"}, {"d + t", "timestamp(ns)?"}, {"t - d", "timestamp(ns)?"}, {"t - u", "duration(ns)?"},
      {"d - d", "duration(ns)?"},  {"a + n", "date32?"},        {"n + a", "date32?"},        {"a - 7", "date32?"},
      {"a - a", "i32?"},           {"year(t - d) + day(a + n)", "i64?"}};
  for (uint64_t seed = 0; seed < 8; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{1000, 65, 64, 7}[seed % 4];
    const bool edges = seed % 2 == 1;  // with the limits: overflow rows
    std::vector<ArrayPtr> cols;
    for (const Field& f : schema.fields) {
      cols.push_back(f.type.is_logical() ? TemporalColumn(f.type, length, f.type.nullable ? 0.8 : 1.0, rng, edges)
                                         : RandomFlatArray({f.type, length, 1.0, 0, NullLayout::kScattered, ValueMode::kModerate}, rng));
    }
    for (const auto& [text, type] : typed) {
      SCOPED_TRACE(fmt::format("seed {}: {}", seed, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      EXPECT_EQ(e->type().ToString(), type);
      auto want = ir::EvaluateReference(*e, cols, length);
      auto got = engine->Evaluate(e, cols, length, {.policy = seed % 3 == 0 ? ir::Policy::kBranchSkip : ir::Policy::kAuto});
      ASSERT_EQ(got.ok(), want.ok());
      if (!want.ok()) {
        EXPECT_EQ(got.error().ToString(), want.error().ToString());
        continue;
      }
      EXPECT_EQ((*got)->type(), (*want)->type());
      EXPECT_EQ(FirstDifference(**got, **want), -1);
    }
  }
  const Schema other = *ParseSchema("t:timestamp(ns), z:timestamp(ns, UTC), m:timestamp(ms), d:duration(ms), a:date32, k:i64");
  for (const char* refused : {"t + t", "t - z", "t - m", "t + d", "d - t", "a + a", "a + k", "a * 2", "t + 1"}) {
    auto r = ir::ParseAndBind(refused, other);
    ASSERT_FALSE(r.ok()) << refused;
    EXPECT_EQ(r.error().code(), ErrorCode::kTypeError) << refused << ": " << r.error().ToString();
  }
}

TEST(Temporal, BinderRules) {
  const Schema schema = *ParseSchema("t:timestamp(us, Europe/Paris), u:timestamp(ns, +00:00), d:date32, h:time64(us), k:i64");
  struct Case {
    const char* text;
    ErrorCode code;
    const char* fragment;
  };
  const Case refused[] = {
      {"year(t)", ErrorCode::kUnsupported, "time zones other than UTC"},
      {"year(h)", ErrorCode::kTypeError, "a date or timestamp"},
      {"year(k)", ErrorCode::kTypeError, "year(i64)"},
      {"date_trunc('hour', d)", ErrorCode::kTypeError, "a timestamp"},
      {"date_part('fortnight', d)", ErrorCode::kInvalidInput, "unknown part"},
      {"date_part(d, d)", ErrorCode::kInvalidInput, "string literal"},
      {"date_trunc('month')", ErrorCode::kInvalidInput, "string literal"},
      {"d = '2024-02-30'", ErrorCode::kTypeError, "is not a date32 literal"},
      {"d = '2024-2-3'", ErrorCode::kTypeError, "is not a date32 literal"},
      {"u = '2024-02-29 12:00:00.1234567891'", ErrorCode::kTypeError, "is not a timestamp(ns, +00:00) literal"},
      {"h = '25:00'", ErrorCode::kTypeError, "is not a time64(us) literal"},
      {"h = '12:00+01:00'", ErrorCode::kTypeError, "is not a time64(us) literal"},
      {"cast(k, date32)", ErrorCode::kTypeError, "temporal casts take"},
      {"cast(h, timestamp(us))", ErrorCode::kTypeError, "temporal casts convert"},
      {"cast(t, timestamp(us))", ErrorCode::kTypeError, "temporal casts convert"},  // a zone to none
      {"cast('2024-02-29', interval_months)", ErrorCode::kUnsupported, "not supported yet"},
  };
  for (const Case& c : refused) {
    auto r = ir::ParseAndBind(c.text, schema);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().code(), c.code) << c.text << ": " << r.error().ToString();
    EXPECT_NE(r.error().message().find(c.fragment), std::string::npos) << c.text << ": " << r.error().ToString();
  }
  EXPECT_EQ((*ir::ParseAndBind("date_part('DOW', u)", schema))->ToString(), "day_of_week(u)");
  EXPECT_EQ((*ir::ParseAndBind("extract(year from u) + extract(DOY from d)", schema))->ToString(),
            "year(u) + day_of_year(d)");
  EXPECT_FALSE(ir::ParseAndBind("extract(year u)", schema).ok());
  EXPECT_FALSE(ir::ParseAndBind("extract(eon from u)", schema).ok());
  EXPECT_EQ((*ir::ParseAndBind("date_trunc('week', d)", schema))->type().ToString(), "date32");
  EXPECT_EQ((*ir::ParseAndBind("date_trunc('second', u)", schema))->type().ToString(), "timestamp(ns, +00:00)");
  EXPECT_EQ((*ir::ParseAndBind("hour(h) + minute(h)", schema))->type().ToString(), "i64");
  // Literals and casts bind to values of the column's type (folded).
  // A temporal literal prints as the cast of its storage that binds to it again.
  EXPECT_EQ((*ir::ParseAndBind("d >= '2024-02-29'", schema))->ToString(), "d >= cast(19782:i32, date32)");
  EXPECT_EQ((*ir::ParseAndBind("u < '1970-01-01 00:00:01.5Z'", schema))->ToString(),
            "u < cast(1500000000:i64, timestamp(ns, +00:00))");
  EXPECT_EQ((*ir::ParseAndBind("cast('2024-02-29 01:00', timestamp(s))", schema))->value().ToString(), "1709168400:timestamp(s)");
  EXPECT_EQ((*ir::ParseAndBind("cast(d, timestamp(ms, UTC))", schema))->type().ToString(), "timestamp(ms, UTC)");
}

}  // namespace
}  // namespace rowjit::jit
