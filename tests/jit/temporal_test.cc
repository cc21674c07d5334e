// Temporal functions through the JIT against the reference (std::chrono, a different algorithm
// from the kernels' civil arithmetic): every field and truncation over every date, timestamp and
// time type, values across ±10,000 years and the storage's limits, nulls, slices, constants,
// every policy and tier, truncation overflow errors by row; fused folds; the binder's rules
// (jit).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "ir/aggregate.h"
#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/function.h"
#include "ir/reference.h"
#include "ir/temporal.h"
#include "runtime/timezone.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/string_array.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/refusals.h"
#include "support/tzif.h"

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
    if (f->family == ir::Family::kTemporal && f->arity() == 1 && f->name != "temporal_cast" && !f->name.starts_with("interval_")) out.push_back(std::string(f->name) + "(t)");
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

// Every day of one 400-year era (the calendar's whole cycle, from 0000-03-01) and the days at both
// ends of date32's range: every field as the reference gives it.
TEST(Temporal, EveryDayOfAnEraAndTheEndsOfDate32) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType date = *ParseDataType("date32");
  std::vector<Scalar> rows;
  auto add = [&](int64_t from, int64_t to) {
    for (int64_t d = from; d <= to; ++d) rows.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(d)).As(date));
  };
  add(-719'468, -719'468 + 146'097);
  add(INT32_MIN, INT32_MIN + 1000);
  add(INT32_MAX - 1000, INT32_MAX);
  const std::vector<ArrayPtr> cols = {*MakeArray(date, rows)};
  const int64_t n = static_cast<int64_t>(rows.size());
  const Schema schema{{{"t", date}}};
  int compared = 0;
  for (const std::string& text : TemporalCalls()) {
    auto e = ir::ParseAndBind(text, schema);
    if (!e.ok() || text.starts_with("date_trunc")) continue;  // truncations fail at the ends
    ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(**e, cols, n));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(*e, cols, n));
    EXPECT_EQ(FirstDifference(*got, *want), -1) << text;
    ++compared;
  }
  EXPECT_GE(compared, 6);  // year, quarter, month, day, day_of_week, day_of_year, epoch
}

// The instants around day boundaries (the day split's corrections either way), across the
// storage's range for every unit: every field as the reference gives it.
TEST(Temporal, InstantsAroundDayBoundaries) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  for (const char* type_text : {"timestamp(s)", "timestamp(ms)", "timestamp(us)", "timestamp(ns)"}) {
    const DataType type = *ParseDataType(type_text);
    const int64_t per_day = int64_t{86'400} * (type.time_unit() == TimeUnit::kSecond ? 1
                                              : type.time_unit() == TimeUnit::kMilli ? 1'000
                                              : type.time_unit() == TimeUnit::kMicro ? 1'000'000
                                                                                     : 1'000'000'000);
    std::vector<Scalar> rows;
    const int64_t max_day = INT64_MAX / per_day - 1;
    for (int64_t day : std::initializer_list<int64_t>{-max_day, -max_day / 3, -146'097 * 3, -1, 0, 1, 10'957, 47'482,
                                                      max_day / 7, max_day}) {
      const int64_t within = std::clamp(day, -max_day, max_day);
      for (int64_t nudge = -3; nudge <= 3; ++nudge) {
        rows.push_back(Scalar::FromBits(type.id, static_cast<uint64_t>(within * per_day + nudge)).As(type));
      }
    }
    const std::vector<ArrayPtr> cols = {*MakeArray(type, rows)};
    const int64_t n = static_cast<int64_t>(rows.size());
    const Schema schema{{{"t", type}}};
    for (const std::string& text : TemporalCalls()) {
      auto e = ir::ParseAndBind(text, schema);
      if (!e.ok()) continue;
      SCOPED_TRACE(fmt::format("{} over {}", text, type_text));
      auto want = ir::EvaluateReference(**e, cols, n);
      auto got = engine->Evaluate(*e, cols, n);
      ASSERT_EQ(got.ok(), want.ok());
      if (want.ok()) {
        EXPECT_EQ(FirstDifference(**got, **want), -1);
      } else {
        EXPECT_EQ(got.error().ToString(), want.error().ToString());
      }
    }
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
      {"a - a", "i32?"},           {"year(t - d) + day(a + n)", "i64?"},
      // Durations scaled (checked i64), measured against each other (an f64 ratio), counted.
      {"d * n", "duration(ns)?"},  {"3 * d", "duration(ns)?"},   {"-d", "duration(ns)?"},     {"abs(d)", "duration(ns)?"},
      {"d / (t - u)", "f64?"},     {"(t - u) / '1 hour'", "f64?"}, {"cast(d, i64)", "i64?"},  {"t - u > '1 day'", "bool?"},
      {"(t - u) * 2 + '1 ms'", "duration(ns)?"}};
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
    // Folds over durations: sum exact into the duration's type (an overflow error past i64).
    for (const char* text : {"sum(d)", "min_max(d)", "sum(t - u)", "max(d * n)"}) {
      SCOPED_TRACE(fmt::format("seed {}: {}", seed, text));
      ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
      EXPECT_TRUE(agg.result.logical == LogicalKind::kDuration) << agg.result.ToString();
      const auto want = ir::EvaluateAggregateReference(agg, cols, length);
      const auto got = engine->Aggregate(agg, cols, length);
      ASSERT_EQ(got.ok(), want.ok()) << (want.ok() ? got.error().ToString() : want.error().ToString());
      if (want.ok()) {
        EXPECT_EQ(got->ToString(agg.kind), want->ToString(agg.kind));
        if (!got->value.is_null()) {
          EXPECT_EQ(got->value.type().ToString(), agg.result.WithNullable(false).ToString());
        }
      } else {
        EXPECT_EQ(got.error().ToString(), want.error().ToString());
      }
    }
  }
  const Schema other = *ParseSchema("t:timestamp(ns), z:timestamp(ns, UTC), m:timestamp(ms), d:duration(ms), a:date32, k:i64");
  for (const char* refused : {"t + t", "t - z", "t - m", "t + d", "d - t", "a + a", "a + k", "a * 2", "t + 1", "d * d",
                              "d / 2", "d * 1.5", "cast(d, date32)", "d / (t - t)", "d < '1 month'"}) {
    auto r = ir::ParseAndBind(refused, other);
    ASSERT_FALSE(r.ok()) << refused;
    EXPECT_EQ(r.error().code(), ErrorCode::kTypeError) << refused << ": " << r.error().ToString();
  }
}

// A zoned timestamp column: instants at and around the zone's transitions (a second and an
// hour either side), anywhere within 1800..2600 and past the generated cycle, and, `with_edges`,
// at the storage's limits (where truncations fail, so such a column mostly compares errors).
ArrayPtr ZonedColumn(DataType type, int64_t length, std::mt19937_64& rng, bool with_edges) {
  const ZoneRules& zone = **LoadZoneRules(TimeZoneName(type.tz));
  const int64_t ps = UnitsPerDay(type.time_unit()) / 86'400;
  std::vector<Scalar> rows;
  auto push = [&](__int128 v) {
    if (v > INT64_MAX || v < INT64_MIN) v = v > 0 ? INT64_MAX : INT64_MIN;
    rows.push_back(Scalar::Of<int64_t>(static_cast<int64_t>(v)).As(type));
  };
  for (int64_t i = 0; i < length; ++i) {
    const uint64_t pick = rng() % 10;
    if (pick == 0) {
      rows.push_back(Scalar::Null(TypeId::kI64));
    } else if (pick <= 4 && !zone.transitions.empty()) {
      const int64_t t = zone.transitions[rng() % zone.transitions.size()];
      const int64_t d[] = {-3600, -1, 0, 1, 3599, 86'400};
      push(static_cast<__int128>(t + d[rng() % std::size(d)]) * ps + static_cast<int64_t>(rng() % static_cast<uint64_t>(ps)));
    } else if (pick <= 7) {
      push((static_cast<__int128>(-5'364'662'400) + static_cast<int64_t>(rng() % 25'000'000'000ull)) * ps);
    } else if (pick == 8 || !with_edges) {
      push(static_cast<int64_t>(rng()) >> 1);
    } else {
      const int64_t edges[] = {INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1};
      push(edges[rng() % std::size(edges)]);
    }
  }
  auto array = MakeArray(type.WithNullable(true), rows);
  EXPECT_TRUE(array.ok()) << array.error().ToString();
  return *array;
}

// Fields and truncations of zoned timestamps in their local time, against the reference: every
// unit, zones north and south, with half-hour and 45-minute offsets, a fixed offset, a zone whose
// rule changed (Sao Paulo) and one of irregular changes (Gaza); values at every kind of instant
// (ZonedColumn); every policy and tier.
TEST(Temporal, ZonedFieldsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  // And a synthetic zone whose clock changes across midnight (an hour forward at 23:30 UTC, then
  // back): local day starts inside a skipped and a repeated hour.
  test::InstallMidnightZone();
  const char* const kZoned[] = {"timestamp(s, Test/Midnight)", "timestamp(us, Test/Midnight)","timestamp(s, Europe/Paris)",      "timestamp(ms, America/New_York)",
                                "timestamp(us, Australia/Sydney)", "timestamp(ns, Europe/Paris)",
                                "timestamp(us, Pacific/Chatham)",  "timestamp(s, +05:30)",
                                "timestamp(ms, America/Sao_Paulo)", "timestamp(us, Asia/Gaza)",
                                "timestamp(us, Asia/Kolkata)",     "timestamp(ns, America/St_Johns)"};
  const std::vector<std::string> calls = TemporalCalls();
  int compared = 0, errors = 0, values = 0;
  for (uint64_t seed = 0; seed < 2 * std::size(kZoned); ++seed) {
    std::mt19937_64 rng(seed);
    const DataType type = *ParseDataType(kZoned[seed % std::size(kZoned)]);
    const int64_t length = std::vector<int64_t>{1000, 63, 65, 200}[seed % 4];
    ArrayPtr t = ZonedColumn(type, length + 5, rng, seed >= std::size(kZoned));
    t = *t->Slice(5, length);
    if (seed == 7) t = *ConstantArray::Make(t->GetScalar(0), length, true);
    const Schema schema{{{"t", t->type().WithNullable(true)}}};
    const std::vector<ArrayPtr> cols = {t};
    for (const std::string& text : calls) {
      auto e = ir::ParseAndBind(text, schema);
      if (!e.ok()) continue;  // fields of times
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, type.ToString(), length, text));
      const test::Compared c = test::CompareWithReference(*engine, *e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      errors += c == test::Compared::kError;
      values += c == test::Compared::kValues;
    }
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(values, 100);
  EXPECT_GT(errors, 5);  // truncations of INT64_MIN and local starts past the storage
}

// Casts between zoned timestamps and zoneless ones or dates (through the zone's local time),
// against the reference: instants at and around every change (ZonedColumn) one way, local times
// at and around the skipped and repeated ranges the other way; every unit and policy.
TEST(Temporal, ZonedCastsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  test::InstallMidnightZone();
  const char* const kZones[] = {"Europe/Paris", "Australia/Sydney", "America/Sao_Paulo", "Test/Midnight", "Pacific/Chatham"};
  const char* const kUnits[] = {"s", "ms", "us", "ns"};
  int compared = 0, values = 0;
  for (uint64_t seed = 0; seed < 2 * std::size(kZones) * std::size(kUnits); ++seed) {
    std::mt19937_64 rng(seed);
    const char* zone = kZones[seed % std::size(kZones)];
    const char* unit = kUnits[(seed / std::size(kZones)) % std::size(kUnits)];
    const bool edges = seed >= std::size(kZones) * std::size(kUnits);
    const DataType zoned = *ParseDataType(fmt::format("timestamp({}, {})", unit, zone));
    const DataType plain = *ParseDataType(fmt::format("timestamp({})", unit));
    const ZoneRules& rules = **LoadZoneRules(zone);
    const int64_t ps = UnitsPerDay(plain.time_unit()) / 86'400;
    // Local times: each change's two clock readings, and a second, half an hour and an hour
    // either side of them.
    std::vector<Scalar> local;
    for (int64_t i = 0; i < 300; ++i) {
      if (rules.transitions.empty() || rng() % 5 == 0) {
        local.push_back(Scalar::Of<int64_t>(static_cast<int64_t>(rng()) >> (edges ? 1 : 30)).As(plain));
        continue;
      }
      const size_t k = rng() % rules.transitions.size();
      const int64_t reading = rules.transitions[k] + rules.offsets[k + rng() % 2];
      const int64_t d[] = {-3600, -1800, -1, 0, 1, 1800, 3599};
      const __int128 v = static_cast<__int128>(reading + d[rng() % std::size(d)]) * ps;
      if (v > INT64_MAX || v < INT64_MIN) continue;
      local.push_back(Scalar::Of<int64_t>(static_cast<int64_t>(v)).As(plain));
    }
    const auto n = static_cast<int64_t>(local.size());
    const std::vector<ArrayPtr> cols = {ZonedColumn(zoned, n, rng, edges), *MakeArray(plain, local),
                                        *MakeArray(*ParseDataType("date32"), std::vector<Scalar>(local.size(), Scalar::Of<int32_t>(0)))};
    const Schema schema{{{"z", zoned.WithNullable(true)}, {"p", plain}, {"d", cols[2]->type()}}};
    for (const std::string& text : {fmt::format("cast(z, timestamp({}))", unit), std::string("cast(z, timestamp(ns))"),
                                   std::string("cast(z, date32)"), std::string("cast(z, date64)"),
                                   std::string("cast(z, timestamp(s))"), fmt::format("cast(p, timestamp({}, {}))", unit, zone),
                                   fmt::format("cast(p, timestamp(ms, {}))", zone),
                                   fmt::format("cast(cast(p, date32), timestamp(s, {}))", zone),
                                   fmt::format("cast(cast(z, timestamp({})), timestamp({}, {})) = z", unit, unit, zone)}) {
      SCOPED_TRACE(fmt::format("seed {} {}: {}", seed, zoned.ToString(), text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      const test::Compared c = test::CompareWithReference(*engine, e, cols, n, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      values += c == test::Compared::kValues;
    }
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(values, 150);
}

// An interval column: RandomLogicalValue's values, and one row in six with parts at or next to
// their storage's limits (where the month arithmetic and the nanoseconds' carry overflow).
ArrayPtr IntervalColumn(DataType type, int64_t length, double valid, std::mt19937_64& rng) {
  const auto unit = static_cast<IntervalUnit>(type.unit);
  const int64_t big[] = {INT32_MIN, INT32_MAX, -1, 0, 1, 12, -12};
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < length; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(type.id));
      continue;
    }
    if (rng() % 6 != 0) {
      rows.push_back(RandomLogicalValue(type, rng));
      continue;
    }
    const auto m = static_cast<uint32_t>(big[rng() % std::size(big)]), d = static_cast<uint32_t>(big[rng() % std::size(big)]);
    const int64_t nanos_edges[] = {INT64_MIN, INT64_MAX, -1, 1, 86'399'999'999'999, -86'400'000'000'000};
    const auto n = static_cast<uint64_t>(nanos_edges[rng() % std::size(nanos_edges)]);
    if (unit == IntervalUnit::kMonths) {
      rows.push_back(Scalar::FromBits(TypeId::kI32, m).As(type));
    } else if (unit == IntervalUnit::kDayTime) {
      rows.push_back(Scalar::FromBits(TypeId::kI64, uint64_t{static_cast<uint32_t>(big[rng() % std::size(big)])} << 32 | d).As(type));
    } else {
      rows.push_back(Scalar::Int128(static_cast<__int128>(static_cast<unsigned __int128>(n) << 64 | (uint64_t{d} << 32 | m)), type));
    }
  }
  auto array = MakeArray(type.WithNullable(true), rows);
  EXPECT_TRUE(array.ok()) << array.error().ToString();
  return *array;
}

// date/timestamp ± interval against the reference (exact 128-bit arithmetic over std::chrono's
// calendar): every date and timestamp unit, the three interval types as columns and as
// constants, literals with and without months (the kernel's two forms), both regimes of values,
// month-end clamping, overflows by row; every policy and tier.
TEST(Temporal, IntervalArithmeticEqualsTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kDated[] = {"date32", "date64", "timestamp(s)", "timestamp(ms)", "timestamp(us)", "timestamp(ns)",
                                "timestamp(us, UTC)"};
  const char* const kIntervals[] = {"interval_months", "interval_day_time", "interval_month_day_nano"};
  const char* const kCalls[] = {"t + i", "i + t", "t - i", "t + '1 month'", "t - '1 month'", "t + '13 months 1 nanosecond'",
                                "t - '-1 year 2 days 3.000000001 seconds'", "t + '2 days'", "t - '3 hours 1 ms'",
                                "t + '1.5 seconds'", "t - '12345 ns'", "t + '1 year -1 day'", "date_trunc('month', t) + '1 month' - '1 day'"};
  int compared = 0, errors = 0, values = 0;
  for (uint64_t seed = 0; seed < 4 * std::size(kDated); ++seed) {
    std::mt19937_64 rng(seed);
    const DataType type = *ParseDataType(kDated[seed % std::size(kDated)]);
    const DataType itype = *ParseDataType(kIntervals[seed % std::size(kIntervals)]);
    const int64_t length = std::vector<int64_t>{1000, 1, 63, 64, 65, 0, 200}[seed % 7];
    const bool edges = (seed / std::size(kDated)) % 2 == 1;
    ArrayPtr t = TemporalColumn(type, length, std::vector<double>{0.9, 1.0, 0.5}[seed % 3], rng, edges);
    ArrayPtr i = IntervalColumn(itype, length, seed % 4 == 0 ? 1.0 : 0.8, rng);
    if (seed % 5 == 4) i = *ConstantArray::Make(RandomLogicalValue(itype, rng), length, true);
    if (seed % 7 == 6) t = *ConstantArray::Make(RandomLogicalValue(type, rng), length, true);
    const Schema schema{{{"t", t->type().WithNullable(true)}, {"i", i->type().WithNullable(true)}}};
    const std::vector<ArrayPtr> cols = {t, i};
    for (const char* text : kCalls) {
      SCOPED_TRACE(fmt::format("seed {} {} {} rows {}: {}", seed, type.ToString(), itype.ToString(), length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      const test::Compared c = test::CompareWithReference(*engine, e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      errors += c == test::Compared::kError;
      values += c == test::Compared::kValues && length > 0;
    }
  }
  EXPECT_GT(compared, 300);
  EXPECT_GT(errors, 20);    // past the storage's range, by row
  EXPECT_GT(values, 150);
}

// Intervals of the same length as i's rows or one nanosecond either side, written differently
// (months as 30 days, a day as 86,400 s of nanoseconds): what the comparisons' low parts decide.
ArrayPtr NearIntervals(const Array& i, std::mt19937_64& rng) {
  constexpr int64_t kDay = 86'400'000'000'000;
  std::vector<Scalar> rows;
  for (int64_t r = 0; r < i.length(); ++r) {
    const Scalar s = i.GetScalar(r);
    if (s.is_null()) {
      rows.push_back(Scalar::Null(TypeId::kI128));
      continue;
    }
    const ir::IntervalParts p = ir::PartsOf(s);
    int64_t m = p.months, d = p.days, n = p.nanos;
    const int64_t nudge = static_cast<int64_t>(rng() % 3) - 1;  // -1, 0 or 1 ns
    if (rng() % 2 == 0 && m * 30 + d <= INT32_MAX && m * 30 + d >= INT32_MIN) d += m * 30, m = 0;
    if (rng() % 2 == 0 && d < INT32_MAX && n >= INT64_MIN + kDay) ++d, n -= kDay;
    if ((nudge >= 0 || n > INT64_MIN) && (nudge <= 0 || n < INT64_MAX)) n += nudge;
    rows.push_back(ir::MonthDayNano(static_cast<int32_t>(m), static_cast<int32_t>(d), n));
  }
  return *MakeArray(DataType::Interval(IntervalUnit::kMonthDayNano).WithNullable(true), rows);
}

// Interval arithmetic and comparisons against the reference (exact 128-bit lengths, where the
// kernels split each length into whole days and nanoseconds): the three interval types as
// columns and constants, pairs of one type and of two, the parts' limits (overflows by row),
// values that compare equal in different forms (a month against 30 days), literals, and an
// integer factor with its limits; every policy and tier.
TEST(Temporal, IntervalCallsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kIntervals[] = {"interval_months", "interval_day_time", "interval_month_day_nano"};
  const char* const kCalls[] = {"i + j", "i - j", "-i", "i * n", "n * j", "i * 3", "i - '1 month 1 ns'",
                                "i < j", "i <= j", "i = j", "i <> j", "i > '1 month'", "i >= '-30 days'",
                                "i = '30 days'", "i between j and '1 year'", "i in (j, '1 day', '1 month')",
                                "coalesce(i, '0 days')", "if(n > 0, i, null)", "i + j = j + i", "i - j < '0 days'",
                                "t + (i + j)", "interval_compare(i, j)", "greatest(i, k)", "least(i, k, null)",
                                "interval_compare(i, e)", "i < e", "e <= i", "i = e", "greatest(e, e - '1 ns')",
                                "least(e, e + '1 ns', null, e - '1 day')", "greatest(k, null, i, k)",
                                "cast('0 days', interval_month_day_nano) * n",
                                "n * cast('0 days', interval_months) + j", "h + i", "h - j", "i + h",
                                "h - '1 hour 30 minutes'", "h + '-1 ns'", "h + '1 month 25 hours'", "h - e",
                                "cast(i, utf8)", "length(cast(e - j, utf8))", "cast(i, interval_month_day_nano)",
                                "cast(t - cast('2000-01-01', timestamp(us)), interval_month_day_nano) < i",
                                // Intervals of mixed types (i and j differ in 6 of the 9 pairs) widened
                                // to interval_month_day_nano; of one type, kept.
                                "coalesce(i, j)", "if(n > 0, i, j)", "greatest(i, j, k)", "least(j, null, i)",
                                "coalesce(i, j) + j"};
  int compared = 0, errors = 0, values = 0, trues = 0;
  for (uint64_t seed = 0; seed < 27; ++seed) {
    std::mt19937_64 rng(seed);
    const DataType itype = *ParseDataType(kIntervals[seed % 3]);
    const DataType jtype = *ParseDataType(kIntervals[(seed / 3) % 3]);
    const int64_t length = std::vector<int64_t>{1000, 1, 63, 64, 65, 0, 200}[seed % 7];
    ArrayPtr i = IntervalColumn(itype, length, seed % 4 == 0 ? 1.0 : 0.8, rng);
    ArrayPtr j = IntervalColumn(jtype, length, seed % 5 == 0 ? 1.0 : 0.7, rng);
    ArrayPtr k = IntervalColumn(itype, length, 0.9, rng);
    if (seed % 5 == 4) i = *ConstantArray::Make(RandomLogicalValue(itype, rng), length, true);
    if (seed % 7 == 3) j = *ConstantArray::Make(RandomLogicalValue(jtype, rng), length, true);
    // Equal lengths in different forms: j's row the same length as i's where both can say it.
    if (seed % 3 == 1) j = i;
    const int64_t factors[] = {0, 1, -1, 2, -3, 12, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    std::vector<Scalar> n_rows;
    for (int64_t r = 0; r < length; ++r) {
      n_rows.push_back(rng() % 10 == 0 ? Scalar::Null(TypeId::kI64)
                       : rng() % 4 == 0 ? Scalar::Of<int64_t>(factors[rng() % std::size(factors)])
                                        : Scalar::Of<int64_t>(static_cast<int64_t>(rng() % 7) - 3));
    }
    const ArrayPtr n = *MakeArray(DataType(TypeId::kI64, true), n_rows);
    const ArrayPtr t = TemporalColumn(*ParseDataType("timestamp(us)"), length, 0.9, rng, false);
    const ArrayPtr e = NearIntervals(*i, rng);
    // Times of day, and now and then any value of the storage (a time column may hold one).
    const DataType htype = *ParseDataType(std::vector<const char*>{"time32(s)", "time32(ms)", "time64(us)", "time64(ns)"}[seed % 4]);
    std::vector<Scalar> h_rows;
    for (int64_t r = 0; r < length; ++r) {
      const int64_t edges[] = {INT64_MIN, INT64_MAX, -1, INT32_MIN, INT32_MAX, 86'400'000'000'000};
      const int64_t edge = edges[rng() % std::size(edges)];
      h_rows.push_back(rng() % 9 == 0   ? Scalar::Null(htype.id)
                       : rng() % 7 == 0 ? Scalar::FromBits(htype.id, static_cast<uint64_t>(edge)).As(htype)
                                        : RandomLogicalValue(htype, rng));
    }
    const ArrayPtr h = *MakeArray(htype.WithNullable(true), h_rows);
    const Schema schema{{{"i", i->type().WithNullable(true)}, {"j", j->type().WithNullable(true)},
                         {"k", k->type().WithNullable(true)}, {"n", n->type()}, {"t", t->type().WithNullable(true)},
                         {"e", e->type()}, {"h", h->type()}}};
    const std::vector<ArrayPtr> cols = {i, j, k, n, t, e, h};
    for (const char* text : kCalls) {
      SCOPED_TRACE(fmt::format("seed {} {} {} rows {}: {}", seed, itype.ToString(), jtype.ToString(), length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      const test::Compared c = test::CompareWithReference(*engine, e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      errors += c == test::Compared::kError;
      values += c == test::Compared::kValues && length > 0;
      if (c == test::Compared::kValues && e->type().id == TypeId::kBool && length > 0) {
        ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length));
        for (int64_t r = 0; r < length; ++r) trues += got->GetScalar(r) == Scalar::Of(true);
      }
    }
  }
  EXPECT_GT(compared, 600);
  EXPECT_GT(errors, 40);  // a part past its storage, by row
  EXPECT_GT(values, 300);
  EXPECT_GT(trues, 1000);
}

// A duration's sum split into slices (EngineOptions::fold_slice_rows) is exact across them: only
// the total must fit i64 (2^62 + 2^62 - 2^62 - 2^62 is 0, not an overflow); a chain of interval
// sums binds in linear size.
// Text columns read as intervals against the reference: the text cast to utf8 writes (the round
// trip), PostgreSQL's abbreviations and spacing, fractions of times, and text that is no value of
// the target (a unit the type does not hold, a part past its storage, garbage), in each string
// layout, with nulls; an invalid row is invalid input in that row.
TEST(Temporal, TextToIntervalEqualsTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kIntervals[] = {"interval_months", "interval_day_time", "interval_month_day_nano",
                                    "duration(s)",     "duration(ms)",      "duration(ns)"};
  const char* const kTexts[] = {"1 mon -2 d 3 us", " 2 hours ", "1.5 seconds", "3 years 2 months", "-7 days 12 h",
                                "0 days", "1 day 1 ms", "12 months", "", "month", "1 fortnight", "99999999999 months",
                                "1 day", "0.0000000001 s", "+4 weeks", "2147483647 months", "1 month 1 month"};
  const StringLayout kLayouts[] = {StringLayout::kOffsets32, StringLayout::kOffsets64, StringLayout::kViews};
  int compared = 0, errors = 0, values = 0;
  for (uint64_t seed = 0; seed < 36; ++seed) {
    std::mt19937_64 rng(seed);
    const DataType itype = *ParseDataType(kIntervals[seed % 6]);
    const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 200, 0, 7}[seed % 7];
    const bool clean = seed % 2 == 0;  // texts of the type alone: whole batches convert
    // A value's text as cast(x, utf8) writes it (a duration's count within 64-bit nanoseconds).
    auto written = [&] {
      if (itype.logical != LogicalKind::kDuration) return ir::IntervalText(RandomLogicalValue(itype, rng));
      return ir::TemporalValueText(Scalar::Of<int64_t>(static_cast<int64_t>(rng() % 2'000'001) - 1'000'000).As(itype));
    };
    std::vector<std::string> texts;
    for (int64_t r = 0; r < length; ++r) {
      texts.push_back(clean || rng() % 3 != 0 ? written() : std::string(kTexts[rng() % std::size(kTexts)]));
    }
    std::vector<std::optional<std::string_view>> rows;
    for (int64_t r = 0; r < length; ++r) {
      rows.push_back(rng() % 6 == 0 ? std::nullopt : std::optional<std::string_view>(texts[static_cast<size_t>(r)]));
    }
    const StringLayout layout = kLayouts[(seed / 6) % 3];
    ASSERT_OK_AND_ASSIGN(auto strings, MakeStringArray(DataType(TypeId::kUtf8, true), layout, rows));
    const std::vector<ArrayPtr> cols = {strings};
    const Schema schema{{{"s", strings->type()}}};
    const std::string text = fmt::format("cast(s, {})", itype.ToString());
    SCOPED_TRACE(fmt::format("seed {} {} rows {} {}", seed, text, length, StringLayoutName(layout)));
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    EXPECT_EQ(e->name(), itype.logical == LogicalKind::kDuration ? "text_to_duration" : "text_to_interval");
    const test::Compared c = test::CompareWithReference(*engine, e, cols, length, rng);
    ASSERT_NE(c, test::Compared::kMismatch);
    ++compared;
    errors += c == test::Compared::kError;
    values += c == test::Compared::kValues && length > 0;
  }
  EXPECT_EQ(compared, 36);
  EXPECT_GT(errors, 6);
  EXPECT_GT(values, 10);
  // A row's text that is no interval of the type is invalid input, named by its row.
  const Schema schema{{{"s", DataType(TypeId::kUtf8)}}};
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("cast(s, interval_months)", schema));
  ASSERT_OK_AND_ASSIGN(auto strings, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32,
                                                     {std::string_view("1 year"), std::string_view("2 days")}));
  const std::vector<ArrayPtr> two = {strings};
  auto got = engine->Evaluate(e, two, 2);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().code(), ErrorCode::kInvalidInput) << got.error().ToString();
  EXPECT_EQ(got.error().row(), 1) << got.error().ToString();
}

TEST(Temporal, SlicedDurationSumsAndIntervalChains) {
  auto engine = std::move(Engine::Make({.fold_slice_rows = 2, .compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("duration(ns)");
  std::vector<Scalar> rows;
  for (int64_t v : {int64_t{1} << 62, int64_t{1} << 62, -(int64_t{1} << 62), -(int64_t{1} << 62), int64_t{5}}) {
    rows.push_back(Scalar::Of<int64_t>(v).As(d));
  }
  const std::vector<ArrayPtr> cols = {*MakeArray(d, rows)};
  const Schema schema{{{"d", d}}};
  ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate("sum(d)", schema));
  ASSERT_OK_AND_ASSIGN(ir::AggregateResult got, engine->Aggregate(agg, cols, 5));
  EXPECT_EQ(got.value, Scalar::Of<int64_t>(5).As(d));
  const Schema intervals = *ParseSchema("i:interval_month_day_nano, j:interval_month_day_nano?");
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr chain, ir::ParseAndBind("i + i + i + i + i + i + i + i + i + i + i + i", intervals));
  EXPECT_LT(chain->facts().nodes, 200) << chain->ToString();
  // greatest and least bind as themselves whatever their number of arguments.
  std::string many = "greatest(i";
  for (int k = 0; k < 40; ++k) many += k % 2 ? ", j" : ", i - '1 day'";
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr widest, ir::ParseAndBind(many + ")", intervals));
  EXPECT_LT(widest->facts().nodes, 400) << widest->ToString();
  // '0 days' times a null factor is null (PostgreSQL), not '0 days'.
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr zero, ir::ParseAndBind("cast('0 days', interval_month_day_nano) * null", intervals));
  EXPECT_TRUE(zero->is_literal() && zero->value().is_null()) << zero->ToString();
  EXPECT_EQ(zero->type().ToString(), "interval_month_day_nano?");
}

// Folds over intervals against the reference: sum part by part (an overflow error when a part's
// total passes its storage), min, max and min_max in PostgreSQL's order, the last of equal
// lengths; each interval type as a column and a constant, expressions of intervals, nulls,
// engine and prepared aggregates; and the answers PostgreSQL gives.
TEST(Temporal, IntervalFoldsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kIntervals[] = {"interval_months", "interval_day_time", "interval_month_day_nano"};
  const char* const kFolds[] = {"sum(i)", "min(i)", "max(i)", "min_max(i)", "count(i)", "sum(i + j)",
                                "min_max(e)", "max(if(e < j, e, j))", "sum(-i)", "min(i * 2)"};
  int values = 0, errors = 0;
  for (uint64_t seed = 0; seed < 18; ++seed) {
    std::mt19937_64 rng(seed);
    const DataType itype = *ParseDataType(kIntervals[seed % 3]);
    const int64_t length = std::vector<int64_t>{1000, 0, 65, 300}[seed % 4];
    // Without edges half the time, so that sums fit; with them, parts overflow.
    ArrayPtr i = IntervalColumn(itype, length, seed % 5 == 0 ? 1.0 : 0.7, rng);
    if (seed % 2 == 0) {
      std::vector<Scalar> rows;
      for (int64_t r = 0; r < length; ++r) rows.push_back(rng() % 4 == 0 ? Scalar::Null(itype.id) : RandomLogicalValue(itype, rng));
      i = *MakeArray(itype.WithNullable(true), rows);
    }
    if (seed % 6 == 5) i = *ConstantArray::Make(RandomLogicalValue(itype, rng), length, true);
    const ArrayPtr j = IntervalColumn(*ParseDataType("interval_month_day_nano"), length, 0.8, rng);
    const ArrayPtr e = NearIntervals(*i, rng);
    const Schema schema{{{"i", itype.WithNullable(true)}, {"j", j->type()}, {"e", e->type()}}};
    const std::vector<ArrayPtr> cols = {i, j, e};
    for (const char* text : kFolds) {
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, itype.ToString(), length, text));
      ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
      const auto want = ir::EvaluateAggregateReference(agg, cols, length);
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<PreparedAggregate> prepared, engine->PrepareAggregate(agg));
      for (const auto& got : {engine->Aggregate(agg, cols, length), prepared->Aggregate(cols, length)}) {
        ASSERT_EQ(got.ok(), want.ok()) << (want.ok() ? got.error().ToString() : want.error().ToString());
        if (want.ok()) {
          EXPECT_EQ(got->ToString(agg.kind), want->ToString(agg.kind));
        } else {
          EXPECT_EQ(got.error().ToString(), want.error().ToString());
        }
      }
      values += want.ok() && !want->value.is_null();
      errors += !want.ok();
    }
  }
  EXPECT_GT(values, 80);
  EXPECT_GT(errors, 5);
  // PostgreSQL: sum('1 mon', '30 days', '-1 day') is '1 mon 29 days'; min and max of '1 mon' and
  // '30 days' are both the later one.
  const Schema one = *ParseSchema("i:interval_month_day_nano");
  const std::vector<ArrayPtr> rows = {*MakeArray(DataType::Interval(IntervalUnit::kMonthDayNano),
                                                 {ir::MonthDayNano(1, 0, 0), ir::MonthDayNano(0, 30, 0), ir::MonthDayNano(0, -1, 0)})};
  const std::vector<ArrayPtr> tie = {*MakeArray(DataType::Interval(IntervalUnit::kMonthDayNano),
                                                {ir::MonthDayNano(1, 0, 0), ir::MonthDayNano(0, 30, 0)})};
  auto fold = [&](const char* text, const std::vector<ArrayPtr>& cols) {
    return engine->Aggregate(*ir::ParseAndBindAggregate(text, one), cols, cols[0]->length())->value;
  };
  EXPECT_EQ(fold("sum(i)", rows), ir::MonthDayNano(1, 29, 0));
  EXPECT_EQ(fold("min(i)", tie), ir::MonthDayNano(0, 30, 0));
  EXPECT_EQ(fold("max(i)", tie), ir::MonthDayNano(0, 30, 0));
  EXPECT_EQ(fold("max(i)", rows), ir::MonthDayNano(0, 30, 0));
  EXPECT_EQ(fold("min(i)", rows), ir::MonthDayNano(0, -1, 0));
  const std::vector<ArrayPtr> big = {*MakeArray(DataType::Interval(IntervalUnit::kMonthDayNano),
                                                {ir::MonthDayNano(INT32_MAX, 0, 0), ir::MonthDayNano(1, 0, 0)})};
  const auto overflow = engine->Aggregate(*ir::ParseAndBindAggregate("sum(i)", one), big, 2);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().code(), ErrorCode::kOverflow);
}

// Zoned timestamps ± intervals against the reference: months and days move the local date
// (the wall-clock time kept, the result read as an instant as casts read a local time), the
// time part is added to the instant; instants at and around every change, days that cross them,
// a zone whose changes cross midnight; interval columns and literals, every policy.
TEST(Temporal, ZonedIntervalArithmeticEqualsTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  test::InstallMidnightZone();
  const char* const kZoned[] = {"timestamp(s, Europe/Paris)", "timestamp(us, America/Sao_Paulo)",
                                "timestamp(ms, Test/Midnight)", "timestamp(ns, Australia/Sydney)",
                                "timestamp(us, Pacific/Chatham)"};
  const char* const kCalls[] = {"t + '1 day'", "t - '1 day'", "t + '1 month'", "t - '1 month 1 day 1 hour'",
                                "t + '2 hours'", "t + '1 day 1.5 seconds'", "t + i", "t - i"};
  int compared = 0, values = 0;
  for (uint64_t seed = 0; seed < 3 * std::size(kZoned); ++seed) {
    std::mt19937_64 rng(seed);
    const DataType type = *ParseDataType(kZoned[seed % std::size(kZoned)]);
    const DataType itype = *ParseDataType(std::vector<const char*>{"interval_months", "interval_day_time",
                                                                   "interval_month_day_nano"}[seed % 3]);
    const int64_t length = std::vector<int64_t>{500, 64, 65}[seed % 3];
    const std::vector<ArrayPtr> cols = {ZonedColumn(type, length, rng, seed >= 2 * std::size(kZoned)),
                                        IntervalColumn(itype, length, 0.9, rng)};
    const Schema schema{{{"t", type.WithNullable(true)}, {"i", itype.WithNullable(true)}}};
    for (const char* text : kCalls) {
      SCOPED_TRACE(fmt::format("seed {} {} {}: {}", seed, type.ToString(), itype.ToString(), text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      const test::Compared c = test::CompareWithReference(*engine, e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      values += c == test::Compared::kValues;
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(values, 40);
}

// Month arithmetic at every day of four years (leap years, month ends, a century) by months
// -25..25, dense, against the reference: the clamping to a shorter month's last day.
TEST(Temporal, MonthsAtEveryDayOfFourYears) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  std::vector<Scalar> days, months;
  for (int32_t d = 10'957 - 366; d < 10'957 + 3 * 365 + 1; ++d) {  // 1999-01-01 .. 2002-12-31 around 2000
    for (int32_t m = -25; m <= 25; m += 3) {
      days.push_back(Scalar::Of<int32_t>(d).As(*ParseDataType("date32")));
      months.push_back(Scalar::Of<int32_t>(m).As(DataType::Interval(IntervalUnit::kMonths)));
    }
  }
  const auto n = static_cast<int64_t>(days.size());
  const std::vector<ArrayPtr> cols = {*MakeArray(*ParseDataType("date32"), days),
                                      *MakeArray(DataType::Interval(IntervalUnit::kMonths), months)};
  const Schema schema{{{"t", cols[0]->type()}, {"i", cols[1]->type()}}};
  std::mt19937_64 rng(7);
  for (const char* text : {"t + i", "t - i", "cast(t, timestamp(s)) + i", "cast(t, timestamp(ns)) - i"}) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    ASSERT_EQ(test::CompareWithReference(*engine, e, cols, n, rng), test::Compared::kValues);
  }
  // The known answers the clamping gives (PostgreSQL's and DuckDB's).
  const Schema one = *ParseSchema("d:date32");
  const std::vector<ArrayPtr> jan31 = {*MakeArray(*ParseDataType("date32"), {*ir::ParseTemporalLiteral("2024-01-31", *ParseDataType("date32"))})};
  for (const auto& [text, want] : std::vector<std::pair<const char*, const char*>>{
           {"d + cast('1 month', interval_months)", "2024-02-29"}, {"d + cast('13 months', interval_months)", "2025-02-28"},
           {"d - cast('2 months', interval_months)", "2023-11-30"}, {"d + cast('-11 months', interval_months)", "2023-02-28"}}) {
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, one));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, jan31, 1));
    EXPECT_EQ(got->GetScalar(0), *ir::ParseTemporalLiteral(want, *ParseDataType("date32"))) << text;
  }
}

// coalesce, if, greatest and least over intervals of mixed types, values worked by hand: each
// interval widened to interval_month_day_nano part by part (a day_time's milliseconds in
// nanoseconds), ordered as PostgreSQL orders intervals (a month 30 days; of equal ones the first
// kept), through Evaluate and a prepared expression, against the reference too.
TEST(Temporal, MixedIntervalsWidenToMonthDayNano) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType months = DataType::Interval(IntervalUnit::kMonths).WithNullable(true);
  const DataType day_time = DataType::Interval(IntervalUnit::kDayTime).WithNullable(true);
  auto value = [](const char* text, const DataType& t) { return *ir::ParseIntervalLiteral(text, t.WithNullable(false)); };
  const Scalar none = Scalar::Null(months.id).As(months);
  const Scalar none_dt = Scalar::Null(day_time.id).As(day_time);
  // Rows: a null beside a value, equal lengths ('1 month' = '30 days'), a longer day_time, a
  // shorter one, negative parts, both null.
  const ArrayPtr a = *MakeArray(months, {none, value("1 month", months), value("1 month", months),
                                         value("2 months", months), value("-1 month", months), none});
  const ArrayPtr b = *MakeArray(day_time, {value("2 days 5 ms", day_time), value("30 days", day_time),
                                           value("30 days 1 ms", day_time), value("59 days", day_time),
                                           value("-31 days", day_time), none_dt});
  const ArrayPtr x = *MakeArray(DataType(TypeId::kI32), {Scalar::Of<int32_t>(1), Scalar::Of<int32_t>(0), Scalar::Of<int32_t>(1),
                                                          Scalar::Of<int32_t>(0), Scalar::Of<int32_t>(1), Scalar::Of<int32_t>(0)});
  const Schema schema{{{"a", months}, {"b", day_time}, {"x", DataType(TypeId::kI32)}}};
  const std::vector<ArrayPtr> cols = {a, b, x};
  const Scalar null_mdn = Scalar::Null(TypeId::kI128).As(DataType::Interval(IntervalUnit::kMonthDayNano));
  const Scalar m1 = ir::MonthDayNano(1, 0, 0), m2 = ir::MonthDayNano(2, 0, 0), m_1 = ir::MonthDayNano(-1, 0, 0);
  const Scalar d2 = ir::MonthDayNano(0, 2, 5'000'000), d30 = ir::MonthDayNano(0, 30, 0);
  const Scalar d30ms = ir::MonthDayNano(0, 30, 1'000'000), d59 = ir::MonthDayNano(0, 59, 0), d_31 = ir::MonthDayNano(0, -31, 0);
  const std::pair<const char*, std::vector<Scalar>> cases[] = {
      {"coalesce(a, b)", {d2, m1, m1, m2, m_1, null_mdn}},
      {"coalesce(b, a)", {d2, d30, d30ms, d59, d_31, null_mdn}},
      {"coalesce(a, b, '3 hours')", {d2, m1, m1, m2, m_1, ir::MonthDayNano(0, 0, 3 * 3'600'000'000'000)}},
      {"if(x > 0, a, b)", {null_mdn, d30, m1, d59, m_1, null_mdn}},
      {"case when x > 0 then b else a end", {d2, m1, d30ms, m2, d_31, null_mdn}},
      {"greatest(a, b)", {d2, m1, d30ms, m2, m_1, null_mdn}},
      {"greatest(b, a)", {d2, d30, d30ms, m2, m_1, null_mdn}},
      {"least(a, b)", {d2, m1, m1, d59, d_31, null_mdn}},
      {"least(a, null, b)", {d2, m1, m1, d59, d_31, null_mdn}}};
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    EXPECT_EQ(e->type().WithNullable(false), DataType::Interval(IntervalUnit::kMonthDayNano));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<PreparedExpression> prepared, engine->PrepareExpression(e));
    for (const auto& got : {engine->Evaluate(e, cols, 6), prepared->Evaluate(cols, 6)}) {
      ASSERT_OK(got.status());
      for (int64_t r = 0; r < 6; ++r) {
        const Scalar g = (*got)->GetScalar(r);
        EXPECT_EQ(g.is_null(), want[r].is_null()) << "row " << r;
        if (!want[r].is_null()) {
          EXPECT_EQ(g, want[r]) << "row " << r << ": " << ir::IntervalText(g);
        }
      }
    }
    for (int64_t r = 0; r < 6; ++r) {
      ASSERT_OK_AND_ASSIGN(Scalar ref, ir::EvaluateRow(*e, cols, r));
      EXPECT_EQ(ref.is_null(), want[r].is_null()) << "reference row " << r;
      if (!want[r].is_null()) {
        EXPECT_EQ(ref, want[r]) << "reference row " << r;
      }
    }
  }
}

TEST(Temporal, IntervalBinderRules) {
  const Schema schema = *ParseSchema(
      "t:timestamp(ms), z:timestamp(us, UTC), p:timestamp(us, Europe/Paris), d:date32, e:date64, h:time64(us), "
      "im:interval_months, dt:interval_day_time?, mdn:interval_month_day_nano, k:i64, u:duration(s)");
  const std::pair<const char*, const char*> typed[] = {
      {"t + im", "timestamp(ms)"},       {"im + t", "timestamp(ms)"},      {"t - dt", "timestamp(ms)?"},
      {"z + mdn", "timestamp(us, UTC)"}, {"d + im", "date32"},             {"e - im", "date64"},
      {"d + dt", "timestamp(ms)?"},      {"d - mdn", "timestamp(us)"},     {"d + '1 month'", "timestamp(us)"},
      {"t + '1 day'", "timestamp(ms)"},  {"'2 hours' + z", "timestamp(us, UTC)"},
      // Interval arithmetic: an interval_month_day_nano whatever the operands' interval types;
      // comparisons a bool; coalesce, if, greatest and least keep their arguments' type.
      {"im + dt", "interval_month_day_nano?"}, {"mdn - '1 day'", "interval_month_day_nano"},
      {"-im", "interval_month_day_nano"},      {"k * dt", "interval_month_day_nano?"},
      {"im < dt", "bool?"},                    {"mdn = '1 day'", "bool"},
      {"im between dt and '1 year'", "bool?"}, {"greatest(im, '1 year')", "interval_months"},
      {"coalesce(dt, '1 day')", "interval_day_time"}, {"u > '1 day'", "bool"},
      {"t - t > '1 hour'", "bool"},            {"u + '1 minute'", "duration(s)"},
      {"'1 hour' / u", "f64"},                 {"u / '1 hour'", "f64"},
      {"greatest(dt, '1 day', null)", "interval_day_time"}, {"least(mdn, mdn * k)", "interval_month_day_nano"},
      {"cast('0 days', interval_months) * k", "interval_month_day_nano"},
      {"cast('0 days', interval_months) * if(k > 0, k, null)", "interval_month_day_nano?"},
      {"h + '1 hour'", "time64(us)"}, {"dt + h", "time64(us)?"}, {"h - mdn", "time64(us)"},
      {"cast(cast(mdn, utf8), interval_month_day_nano)", "interval_month_day_nano"},
      {"cast(cast(dt, utf8), interval_day_time)", "interval_day_time?"},
      {"cast(u, interval_month_day_nano)", "interval_month_day_nano"}, {"cast(dt, interval_month_day_nano)", "interval_month_day_nano?"},
      // coalesce, if (case), greatest and least of intervals of mixed types: interval_month_day_nano,
      // a literal or null among them one too.
      {"coalesce(dt, im)", "interval_month_day_nano"},   {"coalesce(dt, im, '1 day')", "interval_month_day_nano"},
      {"coalesce(dt, null, mdn)", "interval_month_day_nano"}, {"if(k > 0, im, dt)", "interval_month_day_nano?"},
      {"case when k > 0 then im when k < 0 then mdn else dt end", "interval_month_day_nano?"},
      {"greatest(im, dt)", "interval_month_day_nano"},   {"least(dt, null, im, '1 day 1 ms')", "interval_month_day_nano"},
      {"greatest(im, im, '1 year')", "interval_months"}};
  for (const auto& [text, type] : typed) {
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    EXPECT_EQ(e->type().ToString(), type) << text;
    // The canonical text binds to the same expression.
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr again, ir::ParseAndBind(e->ToString(), schema));
    EXPECT_EQ(again->ToString(), e->ToString()) << text;
  }
  EXPECT_EQ((*ir::ParseAndBind("t + '1 year 2 months 3 weeks 4 days 5 hours 6.5 seconds'", schema))->ToString(),
            "add_interval(t, 14:i32, 25:i32, 18006500000000:i64)");
  EXPECT_EQ((*ir::ParseAndBind("t - mdn", schema))->ToString(),
            "sub_interval(t, interval_months(mdn), interval_days(mdn), interval_nanos(mdn))");
  EXPECT_EQ((*ir::ParseAndBind("d + dt", schema))->ToString(),
            "add_interval(cast(d, timestamp(ms)), 0:i32, interval_days(dt), interval_nanos(dt))");
  EXPECT_EQ((*ir::ParseAndBind("cast('1 mon -2 d 3 us', interval_month_day_nano)", schema))->ToString(),
            "cast('1 months -2 days 3000 nanoseconds', interval_month_day_nano)");
  EXPECT_EQ((*ir::ParseAndBind("is_null(cast('1 day 1 ms', interval_day_time))", schema))->ToString(), "false");
  EXPECT_EQ((*ir::ParseAndBind("im + dt", schema))->ToString(),
            "interval_from_parts(interval_months(im), interval_days(dt), interval_nanos(dt))");
  EXPECT_EQ((*ir::ParseAndBind("mdn < '1 day'", schema))->ToString(),
            "interval_compare(mdn, cast('1 days', interval_month_day_nano)) < 0:i32");
  EXPECT_EQ((*ir::ParseAndBind("im * 3", schema))->ToString(),
            "interval_from_parts(cast(cast(interval_months(im), i64) * 3:i64, i32), 0:i32, 0:i64)");
  EXPECT_EQ((*ir::ParseAndBind("u > '1 day'", schema))->ToString(), "u > cast(86400:i64, duration(s))");
  EXPECT_EQ((*ir::ParseAndBind("h - '1 day 2 hours'", schema))->ToString(), "time_sub_interval(h, 7200000000000:i64)");
  EXPECT_EQ((*ir::ParseAndBind("im + h", schema))->ToString(), "time_add_interval(h, 0:i64)");
  const test::Refusal refused[] = {
      {"im - t", ErrorCode::kTypeError, "added to an interval, a date or a timestamp"},
      {"im - h", ErrorCode::kTypeError, "added to an interval, a date or a timestamp"},
      {"k + mdn", ErrorCode::kTypeError, "added to an interval, a date or a timestamp"},
      {"im * 1.5", ErrorCode::kTypeError, "multiplied by an integer"},
      {"1.5e0 * mdn", ErrorCode::kTypeError, "multiplied by an integer"},
      {"u * 2.5", ErrorCode::kTypeError, "multiplied by an integer"},
      {"im * dt", ErrorCode::kTypeError, "multiplied by an integer"},
      {"im * cast(k, f64)", ErrorCode::kTypeError, "multiplied by an integer"},
      {"im / 2", ErrorCode::kUnsupported, "div of intervals is not supported"},
      {"im < k", ErrorCode::kTypeError, "compares with an interval"},
      {"im in (1, 2)", ErrorCode::kTypeError, "compares an interval with intervals"},
      {"greatest(im, dt, k)", ErrorCode::kTypeError, "greatest(interval_months, interval_day_time, i64): greatest and least take intervals of one type"},
      {"greatest(im, '1 day')", ErrorCode::kTypeError, "months only"},
      {"coalesce(dt, im, k)", ErrorCode::kTypeError, "coalesce of interval_day_time and i64: coalesce's arguments must share"},
      {"if(k > 0, im, k)", ErrorCode::kTypeError, "if of interval_months and i64"},
      {"u = '1 month'", ErrorCode::kTypeError, "no months"},
      {"u < '1 ms'", ErrorCode::kTypeError, "a fraction of its unit"},
      {"u < '300000000000 days'", ErrorCode::kTypeError, "past its storage"},
      {"p + cast('1 month', interval_months) + cast(k, timestamp(s, UTC))", ErrorCode::kTypeError, "temporal casts take"},
      {"t + '1 fortnight'", ErrorCode::kTypeError, "unknown unit"},
      {"t + '1.5 days'", ErrorCode::kTypeError, "only times have fractions"},
      {"t + '0.0000000001 s'", ErrorCode::kTypeError, "finer than a nanosecond"},
      {"t + '3000000000 months'", ErrorCode::kTypeError, "past its storage"},
      {"t + ''", ErrorCode::kTypeError, "empty"},
      {"t + 'month'", ErrorCode::kTypeError, "a number and a unit"},
      {"cast(k, interval_month_day_nano)", ErrorCode::kUnsupported, "written as a literal"},
      {"cast(mdn, interval_months)", ErrorCode::kUnsupported, "another interval to interval_month_day_nano"},
      {"add_interval(t, 1, 2, 3)", ErrorCode::kTypeError, "nanoseconds:i64"},
      {"add_interval(h, 1:i32, 2:i32, 3:i64)", ErrorCode::kTypeError, "a date or timestamp"},
  };
  test::ExpectRefused(schema, refused);
  // A cast of text that is no interval of the type binds, and fails where the same text in a
  // column fails: in its row, as invalid input (as a date's cast of such text does).
  const std::pair<const char*, const char*> invalid[] = {
      {"cast('1 day', interval_months)", "months only"},
      {"cast('1 month', interval_day_time)", "days and 32-bit milliseconds"},
      {"cast('1 us', interval_day_time)", "days and 32-bit milliseconds"},
      {"cast('2024-02-29', interval_months)", "is not a interval_months literal"}};
  for (const auto& [text, why] : invalid) {
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    EXPECT_EQ(e->name(), "text_to_interval") << text;
    const Result<Scalar> r = ir::EvaluateRow(*e, {}, 0);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput) << text;
    EXPECT_NE(r.error().message().find(why), std::string::npos) << r.error().ToString();
  }
}

TEST(Temporal, BinderRules) {
  // m's zone is unknown to the tz database: the schema text refuses it (runtime/type_names.cc),
  // but an imported Arrow column carries its zone as given, so the schema is built as import
  // builds it, and what needs the zone's rules refuses the column.
  Schema schema = *ParseSchema("t:timestamp(us, Europe/Paris), u:timestamp(ns, +00:00), d:date32, h:time64(us), k:i64");
  EXPECT_FALSE(ParseSchema("m:timestamp(s, Mars/Olympus)").ok());
  schema.fields.push_back({"m", *DataType::Temporal(LogicalKind::kTimestamp, TimeUnit::kSecond, *InternTimeZone("Mars/Olympus"))});
  const test::Refusal refused[] = {
      {"year(m)", ErrorCode::kUnsupported, "time zone Mars/Olympus: unknown"},
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
      {"cast(m, timestamp(us))", ErrorCode::kUnsupported, "Mars/Olympus: unknown"},
      // Text into a zone and a zone to text read its rules too (else both sides would read UTC).
      {"cast(cast(k, utf8), timestamp(s, Mars/Olympus))", ErrorCode::kInvalidInput, "unknown time zone 'Mars/Olympus'"},
      {"cast(m, utf8)", ErrorCode::kUnsupported, "Mars/Olympus: unknown"},
      {"h = '12:34.5'", ErrorCode::kTypeError, "is not a time64(us) literal"},
  };
  test::ExpectRefused(schema, refused);
  EXPECT_EQ((*ir::ParseAndBind("date_trunc('day', t)", schema))->type().ToString(), "timestamp(us, Europe/Paris)");
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
  EXPECT_EQ((*ir::ParseAndBind("cast(t, timestamp(us))", schema))->type().ToString(), "timestamp(us)");  // local time
  EXPECT_EQ((*ir::ParseAndBind("t + '1 day'", schema))->type().ToString(), "timestamp(us, Europe/Paris)");
  // A literal without an offset is the zone's local time: 2024-07-01 12:00 in Paris is 10:00 UTC.
  EXPECT_EQ((*ir::ParseAndBind("t = '2024-07-01 12:00'", schema))->ToString(),
            "t = cast(1719828000000000:i64, timestamp(us, Europe/Paris))");
  EXPECT_EQ((*ir::ParseAndBind("t = '2024-07-01 12:00Z'", schema))->ToString(),
            "t = cast(1719835200000000:i64, timestamp(us, Europe/Paris))");
}

}  // namespace
}  // namespace rowjit::jit
