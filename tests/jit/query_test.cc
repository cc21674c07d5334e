// Aggregate queries: the engine's grouped, multi-aggregate folds against the reference value for
// value and error row for error row, over random queries, key types, group counts, nulls,
// selections and predicates; partial states merged and serialized; hand-checked answers (jit).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "ir/query.h"
#include "jit/api/engine.h"
#include "jit/plan/planner.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"
#include "support/random_data.h"
#include "support/result_text.h"
#include "support/sanitized.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine() {
  return std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
}

// Results compare as text: every column's values bit for bit (Scalar::ToString), or the error's
// code and row (the engine's message names the projection's output; the reference's does not).
std::string Text(const Result<ir::QueryResult>& r) {
  if (!r.ok()) {
    return fmt::format("error {} row {}", static_cast<int>(r.error().code()), r.error().row().value_or(-1));
  }
  return r->ToString();
}

ir::Query Bind(std::string_view text, const Schema& schema) {
  auto q = ir::ParseAndBindQuery(text, schema);
  EXPECT_TRUE(q.ok()) << text << ": " << (q.ok() ? "" : FormatError(text, q.error()));
  return q.ok() ? std::move(*q) : ir::Query{};
}

ArrayPtr Column(DataType type, std::string_view text) { return std::move(ArrayFromText(type, text)).value(); }

TEST(Query, HandCheckedGroups) {
  const Schema schema{{Field{"g", DataType(TypeId::kU8, true)}, Field{"x", DataType(TypeId::kI32, true)},
                       Field{"y", DataType(TypeId::kF64, true)}}};
  std::vector<ArrayPtr> cols = {Column(DataType(TypeId::kU8, true), "[2, 1, 2, null, 1, 2]"),
                                Column(DataType(TypeId::kI32, true), "[10, 20, null, 40, 50, 60]"),
                                Column(DataType(TypeId::kF64, true), "[1.5, 2.5, 3.5, 4.5, null, 0.5]")};
  auto engine = NewEngine();
  const ir::Query q = Bind("sum(x), avg(y), count(*), count(x), min(x), max(y) filter (where x > 10) group by g", schema);
  auto r = engine->Query(q, cols, 6);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->groups, 3);
  // g=1: x 20, 50; y 2.5, null. g=2: x 10, null, 60; y 1.5, 3.5, 0.5. null: x 40, y 4.5.
  EXPECT_EQ(r->columns[0]->ToString(), "[1, 2, null]");
  EXPECT_EQ(r->columns[1]->ToString(), "[70, 70, 40]");
  EXPECT_EQ(r->columns[2]->ToString(), "[2.5, 1.8333333333333333, 4.5]");
  EXPECT_EQ(r->columns[3]->ToString(), "[2, 3, 1]");
  EXPECT_EQ(r->columns[4]->ToString(), "[2, 2, 1]");
  EXPECT_EQ(r->columns[5]->ToString(), "[20, 10, 40]");
  EXPECT_EQ(r->columns[6]->ToString(), "[2.5, 0.5, 4.5]");  // rows with x > 10 only
  EXPECT_EQ(Text(r), Text(ir::EvaluateQueryReference(q, cols, 6)));
}

TEST(Query, WhereDropsRowsBeforeArgumentsRun) {
  const Schema schema{{Field{"a", DataType(TypeId::kI32, false)}, Field{"b", DataType(TypeId::kI32, false)}}};
  std::vector<ArrayPtr> cols = {Column(DataType(TypeId::kI32, false), "[6, 7, 8, 9]"),
                                Column(DataType(TypeId::kI32, false), "[2, 0, 4, 3]")};
  auto engine = NewEngine();
  // a / b fails at row 1 (b = 0); WHERE b != 0 drops that row first.
  const ir::Query kept = Bind("sum(a / b), count(*) where b != 0", schema);
  auto r = engine->Query(kept, cols, 4);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->columns[0]->ToString(), "[8]");  // 3 + 2 + 3
  EXPECT_EQ(r->columns[1]->ToString(), "[3]");
  const ir::Query failing = Bind("count(*), sum(a / b)", schema);
  auto e = engine->Query(failing, cols, 4);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code(), ErrorCode::kDivisionByZero);
  EXPECT_EQ(e.error().row(), 1);
  EXPECT_EQ(Text(e), Text(ir::EvaluateQueryReference(failing, cols, 4)));
}

TEST(Query, NoGroupByGivesOneRowOverNoRows) {
  const Schema schema{{Field{"x", DataType(TypeId::kI64, true)}}};
  std::vector<ArrayPtr> cols = {Column(DataType(TypeId::kI64, true), "[1, 2, 3]")};
  auto engine = NewEngine();
  const ir::Query q = Bind("sum(x), count(*), avg(x) where x > 5", schema);
  auto r = engine->Query(q, cols, 3);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->groups, 1);
  EXPECT_EQ(r->columns[0]->ToString(), "[null]");
  EXPECT_EQ(r->columns[1]->ToString(), "[0]");
  EXPECT_EQ(r->columns[2]->ToString(), "[null]");
  const ir::Query grouped = Bind("sum(x) group by x where x > 5", schema);
  auto g = engine->Query(grouped, cols, 3);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->groups, 0);
}

// Key columns of every kind the slots are made from: direct (u8, bool, dictionary codes, an i32
// of a small range), hashed (wide i64, strings, floats with -0.0 and NaN).
Schema KeySchema() {
  return Schema{{Field{"k_u8", DataType(TypeId::kU8, true)}, Field{"k_bool", DataType(TypeId::kBool, true)},
                 Field{"k_i32", DataType(TypeId::kI32, true)}, Field{"k_i64", DataType(TypeId::kI64, true)},
                 Field{"k_str", DataType(TypeId::kUtf8, true)}, Field{"k_f64", DataType(TypeId::kF64, true)}}};
}

std::vector<ArrayPtr> KeyColumns(int64_t length, int groups, std::mt19937_64& rng) {
  std::vector<Scalar> u8, b, i32, i64, str, f64;
  const double f[] = {0.0, -0.0, 1.5, std::nan(""), -std::nan(""), 2.0};
  for (int64_t i = 0; i < length; ++i) {
    const bool null = rng() % 11 == 0;
    const uint64_t g = rng() % groups;
    u8.push_back(null ? Scalar::Null(TypeId::kU8) : Scalar::Of<uint8_t>(static_cast<uint8_t>(g)));
    b.push_back(null ? Scalar::Null(TypeId::kBool) : Scalar::Of<bool>(g % 2));
    i32.push_back(null ? Scalar::Null(TypeId::kI32) : Scalar::Of<int32_t>(static_cast<int32_t>(g) * 3 - 1000));
    i64.push_back(null ? Scalar::Null(TypeId::kI64) : Scalar::Of<int64_t>(static_cast<int64_t>(g) << 40));
    str.push_back(null ? Scalar::Null(TypeId::kUtf8) : Scalar::String("s" + std::to_string(g % 7)));
    f64.push_back(null ? Scalar::Null(TypeId::kF64) : Scalar::Of<double>(f[g % 6]));
  }
  auto make = [](TypeId t, const std::vector<Scalar>& rows) { return std::move(MakeArray(DataType(t, true), rows)).value(); };
  std::vector<ArrayPtr> cols = {make(TypeId::kU8, u8), make(TypeId::kBool, b), make(TypeId::kI32, i32),
                                make(TypeId::kI64, i64), make(TypeId::kUtf8, str), make(TypeId::kF64, f64)};
  if (rng() % 2) cols[4] = testing::AsDictionary(cols[4], rng);
  return cols;
}

constexpr const char* kKeys[] = {"k_u8", "k_bool", "k_i32", "k_i64", "k_str", "k_f64"};

// A random aggregate over the wide schema's columns (which follow the key columns).
std::string RandomAggregate(const Schema& schema, std::mt19937_64& rng) {
  static constexpr const char* kNumeric[] = {"sum", "avg", "min", "max", "count", "min_nan", "max_nan", "nan_count"};
  const int pick = static_cast<int>(rng() % 10);
  if (pick == 0) return "count(*)";
  if (pick == 1) return std::string(rng() % 2 ? "any" : "all") + "(" + testing::RandomExpression(TypeId::kBool, schema, 1, rng) + ")";
  const std::string fold = kNumeric[rng() % std::size(kNumeric)];
  const bool float_only = fold == "min_nan" || fold == "max_nan" || fold == "nan_count";
  static constexpr TypeId kArgs[] = {TypeId::kI8, TypeId::kI32, TypeId::kI64, TypeId::kU16, TypeId::kU64, TypeId::kF32, TypeId::kF64};
  const TypeId t = float_only ? (rng() % 2 ? TypeId::kF32 : TypeId::kF64) : kArgs[rng() % std::size(kArgs)];
  return fold + "(" + testing::RandomExpression(t, schema, static_cast<int>(rng() % 3), rng) + ")";
}

std::string RandomQuery(const Schema& schema, std::mt19937_64& rng) {
  std::string text;
  const int n = 1 + static_cast<int>(rng() % 4);
  for (int a = 0; a < n; ++a) {
    text += (a ? ", " : "") + RandomAggregate(schema, rng);
    if (rng() % 5 == 0) text += " filter (where " + testing::RandomExpression(TypeId::kBool, schema, 1, rng) + ")";
  }
  const int keys = static_cast<int>(rng() % 3);
  for (int k = 0; k < keys; ++k) text += std::string(k ? ", " : " group by ") + kKeys[rng() % std::size(kKeys)];
  if (rng() % 3 == 0) text += " where " + testing::RandomExpression(TypeId::kBool, schema, 1, rng);
  return text;
}

Schema QuerySchema() {
  std::vector<Field> fields = KeySchema().fields;
  for (const Field& f : testing::WideSchema().fields) fields.push_back(f);
  return Schema{fields};
}

TEST(Query, RandomQueriesMatchReference) {
  auto engine = NewEngine();
  const Schema schema = QuerySchema();
  const int cases = testing::kSanitized ? 60 : 300;
  int with_groups = 0, errors = 0;
  for (int c = 0; c < cases; ++c) {
    const uint64_t seed = 1000 + c;
    std::mt19937_64 rng(seed);
    const std::string text = RandomQuery(schema, rng);
    auto q = ir::ParseAndBindQuery(text, schema);
    if (!q.ok()) continue;  // a random text the binder refuses (types): not this test's subject
    const int64_t length = std::vector<int64_t>{0, 1, 17, 64, 200, 3000}[rng() % 6];
    const int groups = std::vector<int>{1, 4, 255, 256, 1000}[rng() % 5];
    std::vector<ArrayPtr> cols = KeyColumns(length, groups, rng);
    for (const ArrayPtr& w : testing::RandomColumns(testing::WideSchema(), length, rng)) cols.push_back(w);
    auto ref = ir::EvaluateQueryReference(*q, cols, length);
    auto jit = engine->Query(*q, cols, length);
    ASSERT_EQ(Text(jit), Text(ref)) << text << "\nlength " << length << " seed " << seed;
    with_groups += ref.ok() && ref->groups > 1;
    errors += !ref.ok();
    // Under a selection: the reference over the taken rows, an error's row mapped back.
    const SelectionVector sel = testing::RandomSelection(length, rng);
    std::vector<ArrayPtr> taken;
    for (const ArrayPtr& col : cols) taken.push_back(std::move(Take(*col, sel)).value());
    auto ref_sel = ir::EvaluateQueryReference(*q, taken, sel.size());
    auto jit_sel = engine->Query(*q, cols, length, sel);
    std::string want = Text(ref_sel);
    if (!ref_sel.ok() && ref_sel.error().row()) {
      want = fmt::format("error {} row {}", static_cast<int>(ref_sel.error().code()), sel[*ref_sel.error().row()]);
    }
    ASSERT_EQ(Text(jit_sel), want) << text << "\nselection of " << sel.size() << " from " << length << " seed " << seed;
  }
  EXPECT_GT(with_groups, cases / 4);
  EXPECT_GT(errors, 0);
}

// One key of exactly `groups` values over rows that each group gets (the first `groups` rows in
// order, the rest at random), an i32 and an f64 column beside it, 10 % null.
std::vector<ArrayPtr> GroupClassColumns(int64_t groups, int64_t length, std::mt19937_64& rng) {
  std::vector<Scalar> g;
  g.reserve(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) g.push_back(Scalar::Of<int64_t>(i < groups ? i : static_cast<int64_t>(rng() % groups)));
  return {std::move(MakeArray(DataType(TypeId::kI64, false), g)).value(),
          testing::RandomFlatArray({DataType(TypeId::kI32, true), length, 0.9}, rng),
          testing::RandomFlatArray({DataType(TypeId::kF64, true), length, 0.9}, rng)};
}

Schema GroupClassSchema() {
  return Schema{{Field{"g", DataType(TypeId::kI64, false)}, Field{"x", DataType(TypeId::kI32, true)},
                 Field{"y", DataType(TypeId::kF64, true)}}};
}

// Group-count classes: one key of exactly G values; every aggregate kind.
TEST(Query, GroupCountClasses) {
  auto engine = NewEngine();
  const ir::Query q = Bind("sum(x), count(*), min(y), max(x), avg(y), sum(y) group by g", GroupClassSchema());
  for (int64_t groups : {1, 4, 255, 256, 65536}) {
    const uint64_t seed = 77 + groups;
    std::mt19937_64 rng(seed);
    const int64_t length = std::max<int64_t>(groups + groups / 2, 5000);
    const std::vector<ArrayPtr> cols = GroupClassColumns(groups, length, rng);
    auto jit = engine->Query(q, cols, length);
    ASSERT_TRUE(jit.ok()) << jit.error().ToString();
    EXPECT_EQ(jit->groups, groups);
    ASSERT_EQ(Text(jit), Text(ir::EvaluateQueryReference(q, cols, length))) << "groups " << groups << " seed " << seed;
  }
}

// 2^20 groups over 1.5 M rows, folded as two batches into one state (the second batch's groups
// met again and new): an integer sum, a count, a float average. Not under the sanitizers (the
// state of a million groups is their slowest case; the 65,536-group class runs there).
TEST(Query, MillionGroups) {
  if (testing::kSanitized) GTEST_SKIP() << "the million-group class runs in the release suite";
  auto engine = NewEngine();
  const auto q = std::make_shared<const ir::Query>(Bind("sum(x), count(*), avg(y) group by g", GroupClassSchema()));
  const int64_t groups = int64_t{1} << 20;
  const uint64_t seed = 1234;
  std::mt19937_64 rng(seed);
  const int64_t length = groups + groups / 2;
  const std::vector<ArrayPtr> cols = GroupClassColumns(groups, length, rng);
  // The reference folds the same batches (a batch's float sums keep lanes of their own).
  ir::QueryState state(q), reference(q);
  const int64_t half = length / 2 + 7;
  for (auto [begin, n] : {std::pair{int64_t{0}, half}, std::pair{half, length - half}}) {
    std::vector<ArrayPtr> part;
    for (const ArrayPtr& c : cols) part.push_back(std::move(c->Slice(begin, n)).value());
    ASSERT_OK(engine->FoldQuery(state, part, n));
    ASSERT_OK(ir::FoldQueryReference(reference, part, n));
  }
  auto jit = state.Finish();
  ASSERT_TRUE(jit.ok()) << jit.error().ToString();
  EXPECT_EQ(jit->groups, groups);
  // Compared group by group, so that a difference prints as one line (not a diff of 2^20).
  const std::string got = Text(jit), want = Text(reference.Finish());
  const auto [at, _] = std::mismatch(got.begin(), got.end(), want.begin(), want.end());
  ASSERT_EQ(got.size(), want.size()) << "seed " << seed;
  ASSERT_TRUE(at == got.end()) << "seed " << seed << ": differs at byte " << (at - got.begin()) << ": "
                                 << got.substr(at - got.begin(), 80) << " against " << want.substr(at - got.begin(), 80);
}

// A batch longer than the engine's blocks: float sums keep the batch's lanes, errors name the
// batch's row.
TEST(Query, LongBatchesMatchReference) {
  auto engine = NewEngine();
  const Schema schema{{Field{"g", DataType(TypeId::kU16, true)}, Field{"x", DataType(TypeId::kI32, true)},
                       Field{"y", DataType(TypeId::kF64, true)}}};
  std::mt19937_64 rng(91);
  const int64_t length = 40000 + 13;
  std::vector<ArrayPtr> cols = {testing::RandomFlatArray({DataType(TypeId::kU16, true), length, 0.97, 3}, rng),
                                testing::RandomFlatArray({DataType(TypeId::kI32, true), length, 0.9}, rng),
                                testing::RandomFlatArray({DataType(TypeId::kF64, true), length, 0.9}, rng)};
  const ir::Query q = Bind("sum(y), avg(y), sum(x), max(y), count(*) group by g where x % 5 != 1", schema);
  ASSERT_EQ(Text(engine->Query(q, cols, length)), Text(ir::EvaluateQueryReference(q, cols, length)));
  // One group: every lane holds rows of every block.
  const ir::Query one = Bind("sum(y), avg(y), min(y), count(*) where x % 5 != 1", schema);
  ASSERT_EQ(Text(engine->Query(one, cols, length)), Text(ir::EvaluateQueryReference(one, cols, length)));
  // d is 0 at rows 20 and 35000; WHERE drops row 20, so the batch fails at row 35000.
  std::vector<Scalar> d(length, Scalar::Of<int32_t>(1)), k(length, Scalar::Of<int32_t>(1));
  d[20] = d[35000] = Scalar::Of<int32_t>(0);
  k[20] = Scalar::Of<int32_t>(0);
  const Schema divisors{{Field{"d", DataType(TypeId::kI32, false)}, Field{"k", DataType(TypeId::kI32, false)}}};
  std::vector<ArrayPtr> dk = {std::move(MakeArray(DataType(TypeId::kI32, false), d)).value(),
                              std::move(MakeArray(DataType(TypeId::kI32, false), k)).value()};
  const ir::Query failing = Bind("count(*), sum(k / d) group by k where k > 0", divisors);
  auto jit = engine->Query(failing, dk, length);
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.error().row(), 35000);
  EXPECT_EQ(Text(jit), Text(ir::EvaluateQueryReference(failing, dk, length)));
  // A failing batch leaves a state as it was, though blocks before the failing row folded.
  auto shared = std::make_shared<const ir::Query>(failing);
  ir::QueryState state(shared);
  std::vector<ArrayPtr> head;
  for (const ArrayPtr& c : dk) head.push_back(std::move(c->Slice(0, 10)).value());
  ASSERT_OK(engine->FoldQuery(state, head, 10));
  const std::string before = Text(state.Finish());
  EXPECT_FALSE(engine->FoldQuery(state, dk, length).ok());
  EXPECT_EQ(Text(state.Finish()), before);
  // A GROUP BY column of another type than the bound one is refused.
  std::vector<ArrayPtr> wrong = {dk[0], testing::RandomFlatArray({DataType(TypeId::kI64, false), length}, rng)};
  auto refused = engine->Query(failing, wrong, length);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code(), ErrorCode::kTypeError);
}

// The grouped fold kernel (count(*), sums and averages of integers and decimals over dense inputs
// and at most 8 groups): against the reference over blocks longer than a kernel call, WHERE
// predicates, nullable results of dense inputs, 16-byte values outside 64 bits and sums past 64
// bits (the exact path), failing rows behind WHERE and in front of it.
Schema DenseSchema() {
  return Schema{{Field{"g", DataType(TypeId::kU8, false)}, Field{"h", DataType(TypeId::kI32, false)},
                 Field{"a", DataType(TypeId::kI8, false)}, Field{"b", DataType(TypeId::kI32, false)},
                 Field{"c", DataType(TypeId::kI64, false)}, Field{"u", DataType(TypeId::kU64, false)},
                 Field{"p", std::move(DataType::Decimal(15, 2, TypeId::kI64)).value()},
                 Field{"q", std::move(DataType::Decimal(18, 3, TypeId::kI64)).value()},
                 Field{"w", std::move(DataType::Decimal(30, 2, TypeId::kI128)).value()}}};
}

std::vector<ArrayPtr> DenseColumns(const Schema& schema, int64_t length, int groups, std::mt19937_64& rng) {
  std::vector<ArrayPtr> cols;
  std::vector<Scalar> g, h;
  for (int64_t i = 0; i < length; ++i) {
    g.push_back(Scalar::Of<uint8_t>(static_cast<uint8_t>(rng() % groups)));
    h.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(rng() % 1000) - 500));
  }
  cols.push_back(std::move(MakeArray(schema.fields[0].type, g)).value());
  cols.push_back(std::move(MakeArray(schema.fields[1].type, h)).value());
  for (size_t f = 2; f < schema.fields.size(); ++f) {
    const ValueMode mode = rng() % 3 == 0 ? ValueMode::kMixed : ValueMode::kModerate;
    cols.push_back(testing::RandomFlatArray({.type = schema.fields[f].type, .length = length, .values = mode}, rng));
  }
  return cols;
}

TEST(Query, GroupedFoldKernelMatchesReference) {
  auto engine = NewEngine();
  const Schema schema = DenseSchema();
  static constexpr const char* kArgs[] = {"a", "b", "c", "u", "p", "q", "w", "b * a", "c + b", "p * (1 - q)",
                                          "p * (1 + p) * (1 - q)", "w * 2", "nullif(b, 3)", "b / (h % 7)",
                                          "u * 3", "c * c"};
  static constexpr const char* kWhere[] = {"", " where h > 0", " where h % 3 != 1 and b > 0", " where c % 2 = 0",
                                           " where 100 / (h % 50) > 1"};
  const int cases = testing::kSanitized ? 40 : 160;
  int failed = 0;
  for (int c = 0; c < cases; ++c) {
    const uint64_t seed = 5000 + c;
    std::mt19937_64 rng(seed);
    std::string text;
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int a = 0; a < n; ++a) {
      const int pick = static_cast<int>(rng() % 8);
      text += a ? ", " : "";
      text += pick == 0 ? std::string("count(*)")
                        : std::string(pick < 3 ? "avg(" : "sum(") + kArgs[rng() % std::size(kArgs)] + ")";
    }
    const int groups = 1 + static_cast<int>(rng() % 9);  // 9: past the kernel's slots
    text += rng() % 4 ? " group by g" : "";
    text += kWhere[rng() % std::size(kWhere)];
    const ir::Query q = Bind(text, schema);
    ASSERT_TRUE(PlanQueryFold(q).has_value()) << text;
    const int64_t length = std::vector<int64_t>{1, 63, 8192, 8193, 20000, 40013}[rng() % 6];
    const std::vector<ArrayPtr> cols = DenseColumns(schema, length, groups, rng);
    auto ref = ir::EvaluateQueryReference(q, cols, length);
    ASSERT_EQ(Text(engine->Query(q, cols, length)), Text(ref)) << text << "\nlength " << length << " seed " << seed;
    failed += !ref.ok();
  }
  EXPECT_GT(failed, 0);  // error rows compared too
}

// The grouped fold kernel's exact-path cases by hand: a 16-byte value outside 64 bits, a sum past
// 2^63, a failing row that WHERE drops and one it keeps. First, that a dense query of 3 groups
// runs the kernel: its key (4 slots) is in the engine's cache afterwards.
TEST(Query, GroupedFoldKernelLeavesEdgesToTheExactPath) {
  auto engine = NewEngine();
  const Schema schema = DenseSchema();
  std::mt19937_64 rng(17);
  const int64_t length = 20000;
  std::vector<ArrayPtr> cols = DenseColumns(schema, length, 3, rng);
  {
    const ir::Query sums = Bind("sum(b), avg(p), count(*) group by g where h > 0", schema);
    auto fresh = NewEngine();
    ASSERT_TRUE(fresh->Query(sums, cols, length).ok());
    const ir::ExprPtr root = PlanQueryFold(sums)->root;
    std::vector<ir::InputSpec> specs(cols.size());
    for (int c : root->facts().columns) specs[c] = ir::DescribeInput(*cols[c]);
    const Plan plan = PlanGroupedFold(root, specs, GroupedFoldSlots(3));
    const CacheStats before = fresh->cache_stats();
    ASSERT_TRUE(fresh->KernelFor(*plan.kernel).ok());
    EXPECT_EQ(fresh->cache_stats().compiles, before.compiles);
    EXPECT_EQ(fresh->cache_stats().hits, before.hits + 1);
  }
  std::vector<Scalar> w(length, Scalar::Int128(5, schema.fields[8].type)), c(length, Scalar::Of<int64_t>(int64_t{1} << 61));
  w[12345] = Scalar::Int128(static_cast<__int128>(1) << 100, schema.fields[8].type);
  cols[8] = std::move(MakeArray(schema.fields[8].type, w)).value();
  cols[4] = std::move(MakeArray(schema.fields[4].type, c)).value();
  for (const char* text : {"sum(w), count(*) group by g", "sum(c), avg(c) group by g", "sum(w * 3), sum(c + c)"}) {
    const ir::Query q = Bind(text, schema);
    auto jit = engine->Query(q, cols, length);
    ASSERT_TRUE(jit.ok()) << text << ": " << jit.error().ToString();
    EXPECT_EQ(Text(jit), Text(ir::EvaluateQueryReference(q, cols, length))) << text;
  }
  std::vector<Scalar> h(length, Scalar::Of<int32_t>(1));
  h[100] = Scalar::Of<int32_t>(0);   // WHERE drops it: b / h never runs there
  h[15000] = Scalar::Of<int32_t>(-0);
  std::vector<Scalar> b(length, Scalar::Of<int32_t>(6));
  b[15000] = Scalar::Of<int32_t>(7);  // WHERE keeps it: the division by zero fails at row 15000
  cols[1] = std::move(MakeArray(schema.fields[1].type, h)).value();
  cols[3] = std::move(MakeArray(schema.fields[3].type, b)).value();
  const ir::Query q = Bind("count(*), sum(b / h) group by g where h > 0 or b = 7", schema);
  auto jit = engine->Query(q, cols, length);
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.error().row(), 15000);
  EXPECT_EQ(Text(jit), Text(ir::EvaluateQueryReference(q, cols, length)));
}

// One query object folded batch after batch through the grouped fold kernel while its groups
// change: keys that code in a byte (u8, a nullable i64 of a small range far from 0, a nullable
// dictionary) and keys that do not (strings), batches whose groups differ from the last batch's
// (the kernel's slots start from them), a group first met past the first kernel call, and a
// batch of more groups than the kernel's slots (the general path).
TEST(Query, GroupedFoldKernelFollowsChangingGroups) {
  auto engine = NewEngine();
  const Schema schema{{Field{"g", DataType(TypeId::kU8, false)}, Field{"k", DataType(TypeId::kI64, true)},
                       Field{"s", DataType(TypeId::kUtf8, true)}, Field{"b", DataType(TypeId::kI32, false)},
                       Field{"p", std::move(DataType::Decimal(15, 2, TypeId::kI64)).value()}}};
  std::mt19937_64 rng(23);
  // Regions of rows and the group values their rows take: [begin, end) → values.
  struct Region {
    int64_t begin, end;
    std::vector<int> values;
  };
  const std::vector<Region> regions = {{0, 10000, {0, 1, 2}},
                                       {10000, 19000, {3, 4}},
                                       {19000, 30000, {3, 4, 5, 6}},
                                       {30000, 40000, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
                                       {40000, 50000, {7}}};
  // The second batch meets 5 and 6 at its row 9000, in its second kernel call.
  const std::vector<std::pair<int64_t, int64_t>> batches = {{0, 10000}, {10000, 30000}, {30000, 40000}, {40000, 50000}};
  const int64_t length = 50000;
  std::vector<Scalar> g, k, str, b;
  for (const Region& r : regions) {
    for (int64_t i = r.begin; i < r.end; ++i) {
      const int v = r.values[rng() % r.values.size()];
      const bool null = rng() % 13 == 0;
      g.push_back(Scalar::Of<uint8_t>(static_cast<uint8_t>(v % 3)));
      k.push_back(null ? Scalar::Null(TypeId::kI64) : Scalar::Of<int64_t>(1000000000000 + v / 3));
      str.push_back(null ? Scalar::Null(TypeId::kUtf8) : Scalar::String("v" + std::to_string(v)));
      b.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(rng() % 2000) - 1000));
    }
  }
  ArrayPtr strings = std::move(MakeArray(schema.fields[2].type, str)).value();
  std::vector<ArrayPtr> cols = {std::move(MakeArray(schema.fields[0].type, g)).value(),
                                std::move(MakeArray(schema.fields[1].type, k)).value(), strings,
                                std::move(MakeArray(schema.fields[3].type, b)).value(),
                                testing::RandomFlatArray({.type = schema.fields[4].type, .length = length}, rng)};
  for (const char* text : {"sum(b), avg(p), count(*) group by g, k where b % 5 != 0",
                           "count(*), sum(p) group by s", "sum(b) group by s, g where b > -500"}) {
    for (const bool dictionary : {false, true}) {
      cols[2] = dictionary ? testing::AsDictionary(strings, rng) : strings;
      auto query = std::make_shared<const ir::Query>(Bind(text, schema));
      ir::QueryState state(query);
      for (const auto& [begin, end] : batches) {
        std::vector<ArrayPtr> part;
        for (const ArrayPtr& c : cols) part.push_back(std::move(c->Slice(begin, end - begin)).value());
        ASSERT_OK(engine->FoldQuery(state, part, end - begin));
      }
      EXPECT_EQ(Text(state.Finish()), Text(ir::EvaluateQueryReference(*query, cols, length)))
          << text << (dictionary ? " (dictionary strings)" : "");
    }
  }
}

// A dictionary key whose codes leave the dictionary (DictionaryArray::Make does not check them):
// such rows are null keys, through the grouped fold kernel as in the reference.
TEST(Query, DictionaryCodesOutsideTheDictionaryAreNullKeys) {
  auto engine = NewEngine();
  const Schema schema{{Field{"s", DataType(TypeId::kUtf8, true)}, Field{"x", DataType(TypeId::kI32, false)}}};
  const int64_t length = 20000;
  std::vector<Scalar> codes, x;
  for (int64_t i = 0; i < length; ++i) {
    // 0 and 1 name "a" and "b"; 2, 200 and 257 (whose low byte is 1) name nothing.
    const int64_t pick[] = {0, 1, 2, 200, 257};
    codes.push_back(Scalar::Of<int16_t>(static_cast<int16_t>(pick[(i * 7 + i / 3) % 5])));
    x.push_back(Scalar::Of<int32_t>(static_cast<int32_t>(i % 1000)));
  }
  auto code_array = std::static_pointer_cast<const PrimitiveArray>(std::move(MakeArray(DataType(TypeId::kI16, false), codes)).value());
  ArrayPtr dictionary = std::move(DictionaryArray::Make(code_array, Column(DataType(TypeId::kUtf8, false), "['a', 'b']"))).value();
  std::vector<ArrayPtr> cols = {dictionary, std::move(MakeArray(DataType(TypeId::kI32, false), x)).value()};
  const ir::Query q = Bind("sum(x), count(*) group by s", schema);
  auto jit = engine->Query(q, cols, length);
  ASSERT_TRUE(jit.ok()) << jit.error().ToString();
  EXPECT_EQ(jit->groups, 3);  // a, b, null
  EXPECT_EQ(Text(jit), Text(ir::EvaluateQueryReference(q, cols, length)));
}

// Partial states: batches folded apart and merged (and sent through bytes) give the one-pass
// answer (integer arguments: exact in any order).
TEST(Query, MergedStatesEqualOnePass) {
  auto engine = NewEngine();
  const Schema schema{{Field{"g", DataType(TypeId::kU8, true)}, Field{"x", DataType(TypeId::kI64, true)},
                       Field{"d", DataType::Decimal(15, 2)->WithNullable(true)}}};
  auto query = std::make_shared<const ir::Query>(
      Bind("sum(x), avg(x), min(x), max(d), count(*), sum(d), count(d) group by g where x % 3 != 0", schema));
  std::mt19937_64 rng(5);
  const int64_t length = 10000;
  std::vector<ArrayPtr> cols = {testing::RandomFlatArray({DataType(TypeId::kU8, true), length, 0.95}, rng),
                                testing::RandomFlatArray({DataType(TypeId::kI64, true), length, 0.9}, rng),
                                testing::RandomFlatArray({DataType::Decimal(15, 2)->WithNullable(true), length, 0.9}, rng)};
  ir::QueryState whole(query);
  ASSERT_OK(engine->FoldQuery(whole, cols, length));
  ir::QueryState merged(query);
  for (int64_t begin = 0; begin < length; begin += 3000) {
    const int64_t n = std::min<int64_t>(3000, length - begin);
    std::vector<ArrayPtr> part;
    for (const ArrayPtr& c : cols) part.push_back(std::move(c->Slice(begin, n)).value());
    ir::QueryState partial(query);
    ASSERT_OK(engine->FoldQuery(partial, part, n));
    auto back = ir::QueryState::Deserialize(query, partial.Serialize());
    ASSERT_TRUE(back.ok()) << back.error().ToString();
    ASSERT_OK(merged.Merge(*back));
  }
  EXPECT_EQ(Text(merged.Finish()), Text(whole.Finish()));
  EXPECT_EQ(Text(whole.Finish()), Text(ir::EvaluateQueryReference(*query, cols, length)));
  EXPECT_FALSE(ir::QueryState::Deserialize(query, "not a state").ok());
  EXPECT_FALSE(ir::QueryState::Deserialize(query, whole.Serialize().substr(0, 40)).ok());
}

}  // namespace
}  // namespace rowjit::jit
