// Decimal arithmetic through the JIT against the reference (exact 128-bit arithmetic, then the
// precision test; the kernels compute in 64 bits, or on 128-bit halves, and detect the same
// overflows): add, sub, mul, casts up and down in scale (half away from zero), to and from
// integers and floats, round, comparisons and if/coalesce across scales, literals, folds; every
// precision class (decimal32, decimal64 up to 18 digits, 16-byte decimals of up to 18 digits
// narrowed and of 19 to 38 computed in 128 bits, integers read at scale 0), values small (no
// overflow) and at the storage's limits (errors compared by row and message), nulls, slices,
// constants, every policy and tier; the binder's result types and refusals (jit).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/decimal.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/refusals.h"
#include "support/sanitized.h"

namespace rowjit::jit {
namespace {

// Random values of `type` (a decimal, an integer or a float): with `edges`, RandomLogicalValue's
// (a quarter with all their digits) and one in eight at the storage's limits, past the declared
// precision (Arrow does not check it); without, at most `digits` digits, where little overflows.
ArrayPtr DecimalColumn(DataType type, int64_t length, double valid, bool edges, int digits, std::mt19937_64& rng) {
  const int64_t offset = std::vector<int64_t>{0, 3, 64}[rng() % 3];
  const bool narrow = BitWidth(type.id) == 32;
  // 2^32 squared wraps to 0 and 3037000500 squared just past 2^63: products that wrap into range.
  const int64_t limits[] = {narrow ? INT32_MIN : INT64_MIN, narrow ? INT32_MAX : INT64_MAX, 0, -1, 1,
                            narrow ? 999'999'999 : 999'999'999'999'999'999, narrow ? -1'000'000'000 : -1'000'000'000'000'000'000,
                            narrow ? 65'536 : int64_t{1} << 32, narrow ? -46'341 : -3'037'000'500};
  const double floats[] = {NAN, INFINITY, -INFINITY, 0.5, -0.5, 2.5, -2.5, 1e18, -1e17, 1e-20, 0.125, 99.995};
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < offset + length; ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(type.id).As(type));
    } else if (IsFloat(type.id)) {
      const double v = edges && rng() % 4 == 0 ? floats[rng() % std::size(floats)]
                                               : std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), static_cast<int>(rng() % 40));
      rows.push_back(type.id == TypeId::kF32 ? Scalar::Of(static_cast<float>(v)) : Scalar::Of(v));
    } else if (edges && rng() % 8 == 0 && type.id == TypeId::kI128) {  // past 64 bits, and around them
      const __int128 one = 1, ten38 = ir::Pow10Wide(38);
      const __int128 big[] = {one << 64, -(one << 64) + 5, static_cast<__int128>(INT64_MAX) + 1,
                              static_cast<__int128>(INT64_MIN) - 1, static_cast<__int128>(ir::Pow10(18)) * ir::Pow10(12),
                              INT64_MIN, INT64_MAX, ir::Pow10(18),
                              // 38 digits and past them, the 16-byte limits, halves of a double's rounding
                              ten38 - 1, -(ten38 - 1), ten38, ir::Pow10Wide(37) * 5, ~(one << 127), one << 127,
                              (one << 64) + 2048, (one << 64) + 2049, ((one << 53) + 1) << 70, -(((one << 53) + 3) << 40)};
      rows.push_back(Scalar::Int128(big[rng() % std::size(big)], type));
    } else if (edges && rng() % 8 == 0) {
      rows.push_back(Scalar::FromBits(type.id, static_cast<uint64_t>(limits[rng() % std::size(limits)])).As(type));
    } else if (edges || type.logical != LogicalKind::kDecimal) {
      rows.push_back(RandomLogicalValue(type, rng));
    } else if (type.id == TypeId::kI128) {  // 16 bytes: up to `digits` + 14 digits, products near 38
      const int d = std::min<int>(type.precision, digits + static_cast<int>(rng() % 15));
      __int128 v = static_cast<__int128>(((static_cast<unsigned __int128>(rng()) << 64) | rng()) %
                                         static_cast<unsigned __int128>(ir::Pow10Wide(d)));
      rows.push_back(Scalar::Int128(rng() % 2 ? -v : v, type));
    } else {
      int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(ir::Pow10(std::min<int>(digits, type.precision))));
      if (rng() % 2) v = -v;
      rows.push_back(Scalar::FromBits(type.id, static_cast<uint64_t>(v)).As(type));
    }
  }
  auto full = MakeArray(type.WithNullable(true), rows);
  EXPECT_TRUE(full.ok()) << full.error().ToString();
  return *(*full)->Slice(offset, length);
}

struct Operands {
  const char* x;
  const char* y;
  const char* z;
};
constexpr Operands kOperands[] = {
    {"decimal64(12,2)", "decimal64(12,2)", "decimal64(12,2)"},  // one type: the perf case
    {"decimal64(12,2)", "decimal64(10,3)", "decimal32(7,2)"},   // scales differ
    {"decimal32(9,2)", "decimal32(5,5)", "decimal32(9,0)"},     // 32-bit storage
    {"decimal64(18,4)", "decimal64(18,0)", "decimal64(18,9)"},  // 18 digits
    {"decimal64(6,3)", "i32", "i64"},                           // integers at scale 0
    {"decimal64(15,6)", "i16", "decimal64(3,1)"},
    {"decimal64(10,2)", "f64", "f32"},                          // floats
    {"decimal(12,2)", "decimal(12,2)", "decimal(12,2)"},        // 16-byte storage (DuckDB's export), narrowed
    {"decimal(18,4)", "decimal64(10,3)", "decimal(9,0)"},
    {"decimal(38,10)", "decimal(38,10)", "decimal(38,10)"},     // 128-bit arithmetic
    {"decimal(30,4)", "decimal64(12,2)", "i64"},                // with 64-bit operands
    {"decimal(20,2)", "decimal(25,12)", "decimal32(9,4)"},
    {"decimal(38,0)", "f64", "decimal(19,19)"},
};

constexpr const char* kExprs[] = {
    "x + y", "x - y", "y - x", "x * y", "x * y + z", "x + y * z", "x + 1.25", "2 * x", "x - 0.001",
    "-x", "abs(x)", "round(x)", "round(x, 1)", "cast(x, decimal64(18,6))", "cast(x, decimal64(6,1))",
    "cast(x, decimal32(9,4))", "cast(x, decimal(10,0))", "cast(x, i64)", "cast(x, i16)", "cast(x, u32)",
    "cast(x, f64)", "cast(x, f32)", "cast(y, decimal64(12,3))", "cast(z, decimal64(17,2))",
    "x < y", "x = y", "x >= y", "y != z", "x > 0.5", "x = 7", "between(x, y, z)", "if(x < y, x, y)",
    "coalesce(x, y, z)", "coalesce(x, 0)", "x / y", "x * y < z", "if(y > z, x * 2, x + y)",
    "cast(x, decimal(38,20))", "cast(x, decimal(30,0))", "cast(y, decimal(20,6))", "cast(x, decimal(38,2)) * y",
    "x + 12345678901234567890.5", "cast(x, u64)", "round(x, 7)", "between(x, 1, 123456789012345678901)",
};

TEST(Decimal, KernelsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  int compared = 0, errors = 0, values = 0, bound = 0;
  // Every operand set both ways (edge values or not), twice; once under the sanitizers, whose
  // floors below are half as high.
  constexpr int kRounds = testing::kSanitized ? 2 : 4;
  for (uint64_t seed = 0; seed < kRounds * std::size(kOperands); ++seed) {
    std::mt19937_64 rng(seed);
    const Operands& o = kOperands[seed % std::size(kOperands)];
    const DataType tx = *ParseDataType(o.x), ty = *ParseDataType(o.y), tz = *ParseDataType(o.z);
    const int64_t length = std::vector<int64_t>{1000, 1, 63, 64, 65, 0, 200}[seed % 7];
    const double valid = std::vector<double>{0.9, 1.0, 0.5, 0.0}[seed % 4];
    const bool edges = (seed / std::size(kOperands)) % 2 == 1;  // every operand set both ways
    const ArrayPtr x = DecimalColumn(tx, length, valid, edges, 4, rng);
    const ArrayPtr y = DecimalColumn(ty, length, 0.9, edges, 4, rng);
    ArrayPtr z = DecimalColumn(tz, length, 1.0, edges, 5, rng);
    if (seed % 5 == 4 && length > 0) z = *ConstantArray::Make(z->GetScalar(0), length, true);
    const Schema schema{{{"x", tx.WithNullable(true)}, {"y", ty.WithNullable(true)}, {"z", z->type()}}};
    const std::vector<ArrayPtr> cols = {x, y, z};
    for (const char* text : kExprs) {
      auto e = ir::ParseAndBind(text, schema);
      if (!e.ok()) {  // a rule this operand set has not: a product's scale past 18, a float cast
        EXPECT_TRUE(e.error().code() == ErrorCode::kUnsupported || e.error().code() == ErrorCode::kTypeError)
            << text << " " << e.error().ToString();
        continue;
      }
      ++bound;
      SCOPED_TRACE(fmt::format("seed {} ({}, {}, {}) rows {}: {} = {}", seed, o.x, o.y, o.z, length, text,
                               (*e)->ToString()));
      const test::Compared c = test::CompareWithReference(*engine, *e, cols, length, rng);
      ASSERT_NE(c, test::Compared::kMismatch);
      ++compared;
      errors += c == test::Compared::kError;
      values += c == test::Compared::kValues && length > 1;
    }
    for (const char* text : {"sum(x * y)", "min(x + y)", "max(cast(x, decimal64(18,6)))", "sum(round(x))", "sum(x)",
                             "min_max(x)", "max(x - y)", "sum(z)"}) {
      auto agg = ir::ParseAndBindAggregate(text, schema);
      if (!agg.ok()) continue;
      SCOPED_TRACE(fmt::format("seed {} ({}, {}, {}) rows {}: {}", seed, o.x, o.y, o.z, length, text));
      auto want = ir::EvaluateAggregateReference(*agg, cols, length);
      auto got = engine->Aggregate(*agg, cols, length);
      ASSERT_EQ(got.ok(), want.ok()) << (got.ok() ? want.error().ToString() : got.error().ToString());
      if (want.ok()) {
        EXPECT_EQ(got->ToString(agg->kind), want->ToString(agg->kind));
      }
      ++compared;
    }
  }
  EXPECT_GT(bound, 700 * kRounds / 4);
  EXPECT_GT(compared, 800 * kRounds / 4);
  EXPECT_GT(errors, 100 * kRounds / 4);  // overflows by row: products past 18 digits, casts that lose digits
  EXPECT_GT(values, 250 * kRounds / 4);  // value arrays compared
}

// Errors stop at the first row: `e` over 16-row slices of `x`, each its own error or values,
// against the reference; the number of slices.
int ExpectSlicesEqualTheReference(Engine& engine, const ir::ExprPtr& e, const ArrayPtr& x) {
  int slices = 0;
  for (int64_t start = 0; start < x->length(); start += 16, ++slices) {
    const int64_t n = std::min<int64_t>(16, x->length() - start);
    const std::vector<ArrayPtr> part = {*x->Slice(start, n)};
    auto want = ir::EvaluateReference(*e, part, n);
    auto got = engine.Evaluate(e, part, n, {.policy = ir::Policy::kDense});
    EXPECT_EQ(got.ok(), want.ok()) << "from row " << start;
    if (got.ok() != want.ok()) break;
    if (want.ok()) {
      EXPECT_EQ(FirstDifference(**got, **want), -1) << "from row " << start;
    } else {
      EXPECT_EQ(got.error().ToString(), want.error().ToString());
    }
  }
  return slices;
}

// Every value of a window around each rounding half, both signs, and the largest values:
// rescaling down by every power of ten, against the reference, dense.
TEST(Decimal, RoundingAtEveryHalf) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal64(18,9)");
  std::vector<Scalar> rows;
  for (int64_t center : {int64_t{0}, int64_t{5}, int64_t{500'000'000}, int64_t{2'500'000'000}, ir::Pow10(17) * 5,
                         ir::Pow10(18) - 1, INT64_MAX - 301}) {
    for (int64_t v = center - 300; v <= center + 300; ++v) {
      rows.push_back(Scalar::Of<int64_t>(v).As(d));
      rows.push_back(Scalar::Of<int64_t>(-v).As(d));
    }
  }
  const std::vector<ArrayPtr> cols = {*MakeArray(d, rows)};
  const Schema schema{{{"x", d}}};
  for (int scale = 0; scale < 9; ++scale) {
    for (int precision : {scale == 0 ? 1 : scale, 12, 18}) {
      const std::string text = fmt::format("cast(x, decimal64({},{}))", precision, scale);
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ExpectSlicesEqualTheReference(*engine, e, cols[0]);
    }
  }
}

// The same over 16 bytes: windows around halves at every digit position a stage of the long
// division ends on (10^9, 10^18, 10^27) and the 38-digit limit, rescaled down by every power of
// ten to 16-byte and 64-bit targets.
TEST(Decimal, WideRoundingAtEveryHalf) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal(38,20)");
  std::vector<Scalar> rows;
  std::vector<__int128> centers = {0, ir::Pow10Wide(38) - 1 - 40};
  for (int k : {1, 8, 9, 10, 17, 18, 19, 20, 26, 27, 28, 36, 37}) centers.push_back(ir::Pow10Wide(k) * 5 / 10 * 10);
  for (int k : {9, 18, 27}) centers.push_back(ir::Pow10Wide(k) * 123);
  for (__int128 center : centers) {
    for (__int128 v = center - 40; v <= center + 40; ++v) {
      rows.push_back(Scalar::Int128(v, d));
      rows.push_back(Scalar::Int128(-v, d));
    }
  }
  const std::vector<ArrayPtr> cols = {*MakeArray(d, rows)};
  const Schema schema{{{"x", d}}};
  int compared = 0;
  for (int scale = 0; scale < 20; ++scale) {
    for (const std::string& type : {fmt::format("decimal(38,{})", scale), fmt::format("decimal({},{})", 20 + scale / 2, scale),
                                    fmt::format("decimal64(18,{})", std::min(scale, 18))}) {
      const std::string text = fmt::format("cast(x, {})", type);
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      compared += ExpectSlicesEqualTheReference(*engine, e, cols[0]);
    }
  }
  EXPECT_GT(compared, 5000);
  // Known answers: half away from zero at the 38-digit limit and across a stage's boundary.
  const Schema one{{{"x", d}}};
  auto answer = [&](__int128 v, const char* type) {
    const std::vector<ArrayPtr> c = {*MakeArray(d, {Scalar::Int128(v, d)})};
    auto e = ir::ParseAndBind(fmt::format("cast(x, {})", type), one);
    auto got = engine->Evaluate(*e, c, 1);
    return got.ok() ? (*got)->GetScalar(0).ToString() : got.error().ToString();
  };
  EXPECT_EQ(answer(ir::Pow10Wide(38) - 1, "decimal(38,0)"), "1000000000000000000:decimal(38,0)");
  EXPECT_EQ(answer(-(ir::Pow10Wide(20) * 5), "decimal(38,0)"), "-5:decimal(38,0)");
  EXPECT_EQ(answer(-(ir::Pow10Wide(19) * 5), "decimal(38,0)"), "-1:decimal(38,0)");
  EXPECT_EQ(answer(ir::Pow10Wide(19) * 5 - 1, "decimal(38,0)"), "0:decimal(38,0)");
  EXPECT_EQ(answer(ir::Pow10Wide(10) * 25, "decimal(38,9)"), "0.000000003:decimal(38,9)");
}

TEST(Decimal, BinderTypesAndRefusals) {
  const Schema schema = *ParseSchema(
      "a:decimal64(12,2), b:decimal64(10,3)?, c:decimal32(5,5), w:decimal(30,2), v:decimal(12,2), u:u64, "
      "f:f64, k:i64, s:utf8, t:date32, e:decimal64(18,10)");
  struct Typed {
    const char* text;
    const char* type;
  };
  const Typed typed[] = {
      {"a + b", "decimal64(14,3)?"},           // scale 3, integer digits max(10, 7) + 1
      {"a - c", "decimal64(16,5)"},
      {"a * b", "decimal64(18,5)?"},           // 22 digits capped at 18
      {"c * c", "decimal64(10,10)"},
      {"a + k", "decimal64(18,2)"},            // i64 as decimal(18, 0)
      {"a * 3", "decimal64(13,2)"},            // a literal's own digits
      {"a + 1.5", "decimal64(13,2)"},
      {"a / b", "f64?"},                       // DuckDB's decimal division
      {"a + f", "f64"},
      {"a < b", "bool?"},
      {"-a", "decimal64(12,2)"},
      {"abs(b)", "decimal64(10,3)?"},
      {"round(a)", "decimal64(11,0)"},
      {"round(a, 1)", "decimal64(12,1)"},
      {"round(a, 5)", "decimal64(12,2)"},
      {"cast(a, i32)", "i32"},
      {"cast(a, f32)", "f32"},
      {"cast(f, decimal64(9,3))", "decimal64(9,3)"},
      {"cast(k, decimal32(9,0))", "decimal32(9,0)"},
      {"cast(a, decimal(12,4))", "decimal64(12,4)"},  // computed, and exported, as decimal64
      {"coalesce(b, 0)", "decimal64(10,3)"},
      {"if(a > b, a, b)", "decimal64(13,3)?"},
      {"coalesce(b, a)", "decimal64(13,3)?"},  // a rescale may fail: null where b is (ir/reference.h)
      {"cast(v, decimal64(12,2))", "decimal64(12,2)"},  // decimal128 narrowed by row
      {"cast(w, decimal64(18,2))", "decimal64(18,2)"},
      {"v + a", "decimal64(13,2)"},
      {"v = v", "bool"},
      {"round(v, 1)", "decimal64(12,1)"},
      // 128 bits: an operand of more than 18 digits; precision capped at 38
      {"w + w", "decimal(31,2)"},
      {"w * a", "decimal(38,4)"},
      {"w * c", "decimal(35,7)"},
      {"w + 1.5", "decimal(31,2)"},
      {"a + 1.1234567890123456789", "decimal(30,19)"},  // a literal of 20 digits is 16 bytes
      {"cast(a, decimal(30,2))", "decimal(30,2)"},
      {"cast(a, decimal(38,2)) * a", "decimal(38,4)"},    // 128-bit arithmetic asked for
      {"w < a", "bool"},
      {"-w", "decimal(30,2)"},
      {"abs(w)", "decimal(30,2)"},
      {"round(w)", "decimal(29,0)"},
      {"round(w, 1)", "decimal(30,1)"},
      {"cast(w, i32)", "i32"},
      {"cast(w, u64)", "u64"},
      {"cast(w, f64)", "f64"},
      {"cast(f, decimal(38,10))", "decimal(38,10)"},
      {"if(a > 0, w, a)", "decimal(30,2)"},
      {"coalesce(w, 0)", "decimal(30,2)"},
      {"w / a", "f64"},
  };
  for (const Typed& t : typed) {
    auto e = ir::ParseAndBind(t.text, schema);
    ASSERT_TRUE(e.ok()) << t.text << ": " << e.error().ToString();
    EXPECT_EQ((*e)->type().ToString(), t.type) << t.text << " = " << (*e)->ToString();
  }
  // Literal operands fold: the comparison's literal is rescaled once, at bind time.
  EXPECT_EQ((*ir::ParseAndBind("a > 0.5", schema))->ToString(), "a > cast('0.50', decimal64(12,2))");
  EXPECT_EQ((*ir::ParseAndBind("a = 7", schema))->ToString(), "a = cast('7.00', decimal64(12,2))");
  const test::Refusal refused[] = {
      {"e * e", ErrorCode::kUnsupported, "has scale 20, more than decimal64 holds (cast an operand to decimal(38,S)"},
      {"cast(e, decimal(38,30)) * e", ErrorCode::kUnsupported, "has scale 40, more than decimal(38,S) holds"},
      {"a + u", ErrorCode::kTypeError, "u64 is not a decimal operand"},
      {"a + s", ErrorCode::kTypeError, "utf8 is not a decimal operand"},
      {"a + t", ErrorCode::kTypeError, "date32 is not a decimal operand"},
      {"a % b", ErrorCode::kTypeError, "mod does not take decimal64(12,2)"},
      {"bit_and(a, a)", ErrorCode::kTypeError, "bit_and does not take decimal64(12,2)"},
      {"cast(u, decimal64(10,0))", ErrorCode::kUnsupported, "cast to i64 first"},
      {"cast(a, bool)", ErrorCode::kUnsupported, "decimals cast to integers, floats and decimals"},
      {"cast(cast(s, binary), decimal64(10,0))", ErrorCode::kUnsupported, "cast from binary"},
      {"cast(a, date32)", ErrorCode::kTypeError, "temporal casts take dates, timestamps, times or durations"},
      {"cast(a, interval_months)", ErrorCode::kUnsupported, "an interval is cast from utf8 text"},
      {"round(a, k)", ErrorCode::kTypeError, "integer literal"},
      {"round(a, -1)", ErrorCode::kUnsupported, "digits before the point"},
      {"round(f, 2)", ErrorCode::kTypeError, "rounds a decimal"},
      {"a + 1.123456789012345678901234567890123456789", ErrorCode::kUnsupported, "38 are supported"},
      {"decimal_cast(a)", ErrorCode::kInvalidInput, "cast(x, decimal64(P, S))"},
  };
  // Built through the API rather than parsed: a cast whose second argument is no type text.
  for (const ir::ExprPtr& e : {ir::Expr::Call("cast", {ir::Expr::Column("a"), ir::Expr::Column("b")}),
                               ir::Expr::Call("cast", {ir::Expr::Column("a"), ir::Expr::Literal("7")})}) {
    auto r = ir::Bind(e, schema);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput) << r.error().ToString();
  }
  test::ExpectRefused(schema, refused);
}

// Bound expressions over decimals and temporal types print as text that parses and binds to an
// equal expression, printing the same (the parse fuzz target's property, over logical types):
// casts print with their target, literals as casts of their text or storage.
TEST(Decimal, PrintedExpressionsBindAgain) {
  const Schema schema = *ParseSchema(
      "a:decimal64(12,2)?, b:decimal64(10,3), c:decimal32(5,2), v:decimal(12,2), w:decimal(30,2)?, f:f64, k:i64, d:date32?, "
      "t:timestamp(us, UTC), s:timestamp(s), h:time64(us), u:duration(ms)");
  const char* const kTexts[] = {
      "a * b + c", "a + 1.5", "a - cast('0.001', decimal64(4,3)) * k", "round(a, 1) + round(b)", "cast(a, i32) + 1", "cast(a, f32) * 2",
      "a / b", "cast(f, decimal64(10,2)) < a", "cast(v, decimal64(12,2)) = a", "v * 2", "a < b and b <= c",
      "between(a, 1, 2.5)", "coalesce(a, 0)", "if(a > b, a, null)", "abs(-a)", "cast(k, decimal32(9,0))",
      "cast('12.345', decimal64(6,2))", "d >= '2024-02-29'", "cast(t, date32) = d", "cast(d, timestamp(us, UTC)) < t",
      "t < '2024-02-29 12:34:56.789012Z'", "between(h, '08:00', '17:00')", "cast(s, timestamp(ms)) - cast(s, timestamp(ms))",
      "cast('2024-01-01', timestamp(s)) - s", "s - cast('2024-01-01', timestamp(s)) > cast(cast(u, duration(s)), duration(s))",
      "coalesce(d, '2000-01-01')", "year(cast(s, date32))", "cast(null:i64, decimal64(3,1))", "cast(null:i32, date32)",
      "w * a + 1.5", "cast(w, decimal(38,10)) > 12345678901234567890.5", "round(w, 1)", "cast(w, i64)", "-w < abs(w)",
      "cast(w, f32)", "cast(f, decimal(38,4))", "coalesce(w, a)", "cast(null:i64, decimal(30,1))",
      "cast(cast(d, utf8), date32) = d", "cast(cast(a, utf8), decimal(30,4))", "length(cast(t, utf8))",
      "cast(cast(h, utf8), time64(us))", "cast(' 1.5e1', decimal64(4,1))", "cast('2024-02-30', date32)"};
  for (const char* text : kTexts) {
    auto first = ir::ParseAndBind(text, schema);
    ASSERT_TRUE(first.ok()) << text << ": " << first.error().ToString();
    const std::string printed = (*first)->ToString();
    auto again = ir::ParseAndBind(printed, schema);
    ASSERT_TRUE(again.ok()) << text << " printed " << printed << ": " << again.error().ToString();
    EXPECT_EQ((*again)->ToString(), printed) << text;
    EXPECT_TRUE((*again)->Equals(**first)) << text << " printed " << printed;
  }
}

// Products whose 64-bit wrap lands in range are overflows all the same.
TEST(Decimal, ProductsThatWrapAreOverflows) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal64(18,0)");
  const Schema schema{{{"x", d}, {"y", d}}};
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("x * y", schema));
  const std::pair<int64_t, int64_t> cases[] = {{int64_t{1} << 32, int64_t{1} << 32},     // 2^64: wraps to 0
                                               {3'037'000'500, -3'037'000'500},          // just past -2^63
                                               {int64_t{3} << 61, 2},                    // 3 * 2^62: wraps
                                               {999'999'999, 1'000'000'001}};            // 10^18 - 1: fits
  for (const auto& [a, b] : cases) {
    const std::vector<ArrayPtr> cols = {*MakeArray(d, {Scalar::Of(a).As(d)}), *MakeArray(d, {Scalar::Of(b).As(d)})};
    auto got = engine->Evaluate(e, cols, 1, {.policy = ir::Policy::kDense});
    const __int128 product = static_cast<__int128>(a) * b;
    if (product < ir::Pow10(18) && product > -ir::Pow10(18)) {
      ASSERT_TRUE(got.ok()) << a << " * " << b << ": " << got.error().ToString();
      EXPECT_EQ((*got)->GetScalar(0).ToString(), "999999999999999999:decimal64(18,0)");
    } else {
      ASSERT_FALSE(got.ok()) << a << " * " << b << " gave " << (*got)->GetScalar(0).ToString();
      EXPECT_EQ(got.error().code(), ErrorCode::kOverflow);
    }
  }
}

// 128-bit products that escape a careless overflow test: a carry out of the high word whose
// wrapped value is small (2^65 - 11 times 2^63 + 5), both high halves set, the 16-byte minimum,
// and the 38-digit boundary from both sides.
TEST(Decimal, WideProductsAtTheirLimits) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal(38,0)");
  const Schema schema{{{"x", d}, {"y", d}}};
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("x * y", schema));
  const __int128 one = 1, ten19 = ir::Pow10Wide(19);
  const std::pair<__int128, __int128> cases[] = {
      {(one << 65) - 11, (one << 63) + 5}, {(one << 63) + 5, (one << 65) - 11}, {one << 64, one << 64},
      {-((one << 65) - 11), (one << 63) + 5}, {one << 127, 1}, {1, one << 127}, {~(one << 127), -1},
      {ten19, ten19}, {ten19, ten19 - 1}, {-(ten19 - 1), ten19}, {ir::Pow10Wide(38) - 1, -1}, {(one << 64) - 1, (one << 64) - 1}};
  for (const auto& [a, b] : cases) {
    const std::vector<ArrayPtr> cols = {*MakeArray(d, {Scalar::Int128(a, d)}), *MakeArray(d, {Scalar::Int128(b, d)})};
    __int128 product;
    const bool fits = !__builtin_mul_overflow(a, b, &product) && product < ir::Pow10Wide(38) && product > -ir::Pow10Wide(38);
    for (const auto& got : {engine->Evaluate(e, cols, 1, {.policy = ir::Policy::kDense}), ir::EvaluateReference(*e, cols, 1)}) {
      SCOPED_TRACE(Int128Text(a) + " * " + Int128Text(b));
      ASSERT_EQ(got.ok(), fits) << (got.ok() ? (*got)->GetScalar(0).ToString() : got.error().ToString());
      if (fits) {
        EXPECT_EQ((*got)->GetScalar(0).int128(), product);
      } else {
        EXPECT_EQ(got.error().code(), ErrorCode::kOverflow);
      }
    }
  }
}

// A projection with 16-byte outputs beside 8-byte ones, over lengths around a word (the partial
// last word goes through scratch rows as wide as the widest output).
TEST(Decimal, ProjectionsWithSixteenByteOutputs) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType w = *ParseDataType("decimal(38,10)");
  const DataType d = *ParseDataType("decimal64(12,2)");
  const Schema schema{{{"x", w.WithNullable(true)}, {"k", d.WithNullable(true)}}};
  std::vector<ir::ExprPtr> exprs;
  for (const char* text : {"k + 1", "x * 3", "cast(k, decimal(30,4)) - x", "x > 0"}) exprs.push_back(*ir::ParseAndBind(text, schema));
  std::mt19937_64 rng(11);
  for (int64_t length : {1, 63, 64, 65, 130}) {
    const std::vector<ArrayPtr> cols = {DecimalColumn(w, length, 0.8, false, 12, rng),
                                        DecimalColumn(d, length, 0.9, false, 12, rng)};
    ASSERT_OK_AND_ASSIGN(std::vector<ArrayPtr> got, engine->Project(exprs, cols, length));
    for (size_t i = 0; i < exprs.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*exprs[i], cols, length));
      EXPECT_EQ(FirstDifference(*got[i], *want), -1) << exprs[i]->ToString() << " rows " << length;
    }
  }
}

// Sums of 16-byte decimals are exact whatever their running total does: past 128 bits and back
// (a value, then its negation), across the 2^16-row blocks of the static fold, and an error only
// when the final sum needs more than 38 digits; min and max over the same rows.
TEST(Decimal, WideSumsAreExact) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal(38,4)");
  const Schema schema{{{"x", d.WithNullable(true)}}};
  const __int128 big = ir::Pow10Wide(38) - 1, one = 1;
  struct Case {
    std::vector<__int128> values;
    int64_t repeat;
    std::optional<__int128> sum;  // nullopt: past 38 digits
  };
  const Case cases[] = {
      {{big, big, -big, -big, 7}, 1, 7},                   // 2 * (10^38 - 1) on the way: past 2^127
      {{big, 1}, 1, std::nullopt},                         // 10^38: one digit too many
      {{-big, -1}, 1, std::nullopt},
      {{~(one << 127), ~(one << 127), one << 127, one << 127}, 1, -2},  // the storage's limits (past 38 digits each)
      {{ir::Pow10Wide(33), -ir::Pow10Wide(33), 3}, 70'000, 210'000},   // across blocks of 2^16 rows
      {{ir::Pow10Wide(33)}, 100'001, std::nullopt},        // 1.00001 * 10^38
      {{ir::Pow10Wide(33)}, 99'999, ir::Pow10Wide(33) * 99'999},
      {{-ir::Pow10Wide(37), (one << 64) + 3, -5}, 9, -ir::Pow10Wide(37) * 9 + ((one << 64) - 2) * 9},
  };
  for (const Case& c : cases) {
    std::vector<Scalar> rows;
    for (int64_t r = 0; r < c.repeat; ++r) {
      for (__int128 v : c.values) rows.push_back(Scalar::Int128(v, d));
    }
    rows.push_back(Scalar::Null(d.id).As(d));
    const std::vector<ArrayPtr> cols = {*MakeArray(d.WithNullable(true), rows)};
    const int64_t n = static_cast<int64_t>(rows.size());
    for (const char* text : {"sum(x)", "min_max(x)"}) {
      ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
      auto got = engine->Aggregate(agg, cols, n);
      auto reference = ir::EvaluateAggregateReference(agg, cols, n);
      SCOPED_TRACE(fmt::format("{} over {} rows starting {}", text, n, Int128Text(c.values[0])));
      ASSERT_EQ(got.ok(), reference.ok());
      if (agg.kind == ir::AggKind::kSum) {
        ASSERT_EQ(got.ok(), c.sum.has_value()) << (got.ok() ? got->value.ToString() : got.error().ToString());
        if (c.sum) {
          EXPECT_EQ(got->value.int128(), *c.sum);
        } else {
          EXPECT_EQ(got.error().code(), ErrorCode::kOverflow);
          EXPECT_EQ(got.error().ToString(), reference.error().ToString());
        }
      }
      if (reference.ok()) {
        EXPECT_EQ(got->ToString(agg.kind), reference->ToString(agg.kind));
      }
    }
  }
}

// decimal128 columns under every input shape the executor hands a kernel: flat with a partial
// last word (padding rows repeat a real row's 16 bytes), compacted valid rows (filter-scatter),
// a selection (taken rows, or a view through indices), a dictionary and a batch constant.
TEST(Decimal, SixteenByteInputsInEveryShape) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType t = *ParseDataType("decimal(12,2)");
  std::mt19937_64 rng(5);
  std::vector<Scalar> rows;
  for (int i = 0; i < 300; ++i) {
    const __int128 v = rng() % 7 == 0 ? static_cast<__int128>(1) << 70 : static_cast<__int128>(rng() % 100000) - 50000;
    rows.push_back(rng() % 9 == 0 ? Scalar::Null(t.id).As(t) : Scalar::Int128(v, t));
  }
  rows[0] = Scalar::Int128(-123456, t);
  const ArrayPtr full = *MakeArray(t.WithNullable(true), rows);
  const Schema schema{{{"v", t.WithNullable(true)}}};
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("if(abs(v) < 1000000, v * 2 + 1.5, null)", schema));
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr total, ir::ParseAndBind("cast(v, decimal64(18,2))", schema));
  std::vector<uint32_t> picked;
  for (uint32_t i = 0; i < 300; i += 3) picked.push_back(i);
  const SelectionVector sel = *SelectionVector::FromIndices(picked, 300);
  const std::vector<ArrayPtr> shapes[] = {
      {*full->Slice(0, 130)}, {*full->Slice(7, 61)}, {full},
      {*ConstantArray::Make(Scalar::Int128(-98765, t), 70, true)},
      {*ConstantArray::Make(Scalar::Int128(static_cast<__int128>(1) << 80, t), 70, true)},
      {*ConstantArray::Make(Scalar::Null(t.id).As(t), 70, true)},
      {*DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(*MakeArray(
                                  DataType(TypeId::kI8, true), {Scalar::Of<int8_t>(1), Scalar::Null(TypeId::kI8), Scalar::Of<int8_t>(0)})),
                              *full->Slice(0, 2))}};
  for (const auto& cols : shapes) {
    const int64_t n = cols[0]->length();
    for (const ir::ExprPtr& x : {e, total}) {
      for (ir::Policy policy : {ir::Policy::kDense, ir::Policy::kDenseRetry, ir::Policy::kBranchSkip, ir::Policy::kFilterScatter}) {
        SCOPED_TRACE(fmt::format("{} rows {} {}: {}", cols[0]->encoding() == Encoding::kConstant ? "constant" : "array", n,
                                 ir::PolicyName(policy), x->ToString()));
        auto want = ir::EvaluateReference(*x, cols, n);
        auto got = engine->Evaluate(x, cols, n, {.policy = policy});
        ASSERT_EQ(got.ok(), want.ok()) << (got.ok() ? want.error().ToString() : got.error().ToString());
        if (!want.ok()) {
          EXPECT_EQ(got.error().ToString(), want.error().ToString());
        } else {
          EXPECT_EQ(FirstDifference(**got, **want), -1);
        }
      }
    }
  }
  // Under a selection: the reference over the taken rows.
  const std::vector<ArrayPtr> cols = {full};
  const std::vector<ArrayPtr> taken = {*Take(*full, sel)};
  auto want = ir::EvaluateReference(*e, taken, sel.size());
  auto got = engine->Evaluate(e, cols, 300, sel);
  ASSERT_EQ(got.ok(), want.ok()) << (got.ok() ? want.error().ToString() : got.error().ToString());
  if (want.ok()) {
    EXPECT_EQ(FirstDifference(**got, **want), -1);
  } else {  // the engine names the batch row of the failing selected row
    EXPECT_EQ(got.error().code(), want.error().code());
    EXPECT_EQ(got.error().row(), std::optional<int64_t>(picked[static_cast<size_t>(*want.error().row())]));
  }
  ASSERT_OK_AND_ASSIGN(ir::Aggregate sum, ir::ParseAndBindAggregate("sum(v)", schema));
  EXPECT_EQ(sum.result.ToString(), "decimal(38,2)?");
  const std::vector<ArrayPtr> small = {*full->Slice(0, 6)};
  auto s_want = ir::EvaluateAggregateReference(sum, small, 6);
  auto s_got = engine->Aggregate(sum, small, 6);
  ASSERT_EQ(s_got.ok(), s_want.ok());
  if (s_want.ok()) {
    EXPECT_EQ(s_got->ToString(sum.kind), s_want->ToString(sum.kind));
  } else {
    EXPECT_EQ(s_got.error().ToString(), s_want.error().ToString());
  }
}

// Kernels of different cast targets over the same column are different kernels (the target is
// in the call's type, not its arguments): the in-memory cache and the disk key tell them apart.
TEST(Decimal, CastTargetsAreDistinctKernels) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const DataType d = *ParseDataType("decimal64(12,4)");
  const Schema schema{{{"x", d}}};
  const std::vector<ArrayPtr> cols = {*MakeArray(d, {Scalar::Of<int64_t>(123456).As(d)})};
  std::vector<std::string> seen;
  for (const char* text : {"cast(x, decimal64(12,2))", "cast(x, decimal64(12,1))", "cast(x, decimal64(14,6))"}) {
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, 1));
    seen.push_back(got->GetScalar(0).ToString());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"12.35:decimal64(12,2)", "12.3:decimal64(12,1)", "12.345600:decimal64(14,6)"}));
}

}  // namespace
}  // namespace rowjit::jit
