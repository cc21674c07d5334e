// The transcendental float functions (exp, expm1, ln, log2, log10, log1p, power, sin, cos, tan,
// sinh, cosh, tanh, atan, atan2, asin, acos, asinh, acosh, atanh, cbrt, degrees, radians) through
// the JIT
// against the reference evaluator: bit for bit (the sign of zero included; NaN for NaN), over
// f32 and f64 columns mixing every regime and the special values, constant arguments, nested
// calls, lengths around 64, slices, all-null / mixed / all-valid batches, every policy and both
// tiers (jit).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/sanitized.h"

namespace rowjit::jit {
namespace {

double Draw(std::mt19937_64& rng) {
  static const double kSpecial[] = {0.0,  -0.0,    1.0,     -1.0,    INFINITY, -INFINITY, NAN,   0x1p-1074,
                                    -0x1p-1074, 0x1p-1022, 2.0, 0.5, 709.78, -745.13, 1e300, -1e300, 10.0, 3.0};
  std::uniform_real_distribution<double> u(0, 1);
  switch (rng() % 6) {
    case 0: return kSpecial[rng() % std::size(kSpecial)];
    case 1: return std::ldexp(u(rng) + 1, static_cast<int>(rng() % 2100) - 1075) * (rng() % 4 == 0 ? -1 : 1);
    case 2: return u(rng) * 1500 - 750;                 // exp's whole range
    case 3: return 1 + (u(rng) - 0.5) * 1e-6;            // near one
    case 4: return std::round(u(rng) * 20 - 10);         // integers (power's signs)
    default: return u(rng) * 20 - 10;
  }
}

ArrayPtr Column(TypeId type, int64_t offset, int64_t length, double valid, std::mt19937_64& rng) {
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < offset + length; ++i) {
    const double v = Draw(rng);
    if (std::uniform_real_distribution<>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(type));
    } else {
      rows.push_back(type == TypeId::kF32 ? Scalar::Of<float>(static_cast<float>(v)) : Scalar::Of<double>(v));
    }
  }
  auto full = MakeArray(DataType(type, true), rows);
  EXPECT_TRUE(full.ok());
  return *(*full)->Slice(offset, length);
}

// Bit-for-bit: numbers by their bits (so +0 is not -0), NaN for NaN, null for null.
void ExpectSameBits(const Array& got, const Array& want, const std::string& what) {
  ASSERT_EQ(got.length(), want.length());
  for (int64_t i = 0; i < got.length(); ++i) {
    const Scalar g = got.GetScalar(i), w = want.GetScalar(i);
    ASSERT_EQ(g.is_null(), w.is_null()) << what << " row " << i;
    if (g.is_null()) continue;
    if (g.type_id() == TypeId::kF64) {
      const double a = g.value<double>(), b = w.value<double>();
      ASSERT_TRUE((a != a && b != b) || std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b))
          << what << " row " << i << ": " << a << " vs " << b;
    } else {
      const float a = g.value<float>(), b = w.value<float>();
      ASSERT_TRUE((a != a && b != b) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b))
          << what << " row " << i << ": " << a << " vs " << b;
    }
  }
}

constexpr int64_t kAllLengths[] = {1, 63, 64, 65, 1000};
constexpr int64_t kSanitizedLengths[] = {1, 64, 65};
constexpr std::span<const int64_t> kLengths =
    testing::kSanitized ? std::span<const int64_t>(kSanitizedLengths) : std::span<const int64_t>(kAllLengths);

TEST(Math, EqualsTheReferenceBitForBit) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kTexts[] = {
      "exp(x)", "ln(x)", "log2(x)", "log10(x)", "log1p(x)", "power(x, y)",
      "power(x, 2.5)", "power(2, y)", "power(x, -3)", "power(x, 0.5)", "exp(ln(x) * y)",
      "log1p(exp(x)) - power(y, 2)", "if(x > 0, ln(x), exp(y))", "log10(power(x, y)) + log2(y)",
      "sin(x)", "cos(x)", "tan(x)", "sin(x) ** 2 + cos(y) ** 2", "tan(x * 1e10)",
      "expm1(x)", "sinh(x)", "cosh(x)", "tanh(x)", "tanh(x / 20) + sinh(y / 10)",
      "atan(x)", "asin(x)", "acos(y)", "atan2(x, y)", "asin(sin(x)) + acos(cos(y / 4))",
      "asinh(x)", "acosh(y)", "atanh(x / 20)", "cbrt(x)", "degrees(x) + radians(y)", "arctan2(y, x)",
  };
  int compared = 0;
  for (const char* type : {"f64", "f32"}) {
    ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(fmt::format("x:{0}?,y:{0}?", type)));
    const TypeId id = schema.fields[0].type.id;
    for (const char* text : kTexts) {
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      // Under a sanitizer (each kernel's compile several times slower) the lengths around 64 only.
      for (int64_t length : kLengths) {
        for (double valid : {0.0, 0.8, 1.0}) {
          const int64_t offset = rng() % 2 ? 5 : 0;
          const std::vector<ArrayPtr> cols = {Column(id, offset, length, valid, rng), Column(id, offset, length, valid, rng)};
          ASSERT_NE(test::CompareWithReference(*engine, e, cols, length, rng), test::Compared::kMismatch)
              << type << " " << text << " length " << length;
          ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length));
          ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
          ExpectSameBits(*got, *want, fmt::format("{} {} length {}", type, text, length));
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 2 * 35 * static_cast<int>(std::size(kLengths)) * 3);
}

// sin, cos and tan in a dense row loop skip the table reduction of arguments of 2^20 π/2 and
// more, and rerun a block of 1,024 rows exactly when it holds one: batches of small arguments,
// one huge argument in the middle (its block and the rest rerun), at the last row, and in the
// first block, all equal to the reference bit for bit.
TEST(Math, TrigBlocksWithLargeArgumentsAreRerunExactly) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("x:f64"));
  std::mt19937_64 rng(9);
  std::vector<double> small(5000);
  for (double& v : small) v = std::uniform_real_distribution<double>(-10, 10)(rng);
  const std::vector<std::vector<std::pair<int, double>>> placements = {
      {}, {{2500, 1e22}}, {{4999, -3e300}}, {{7, 1647100.0}, {3000, 0x1p1023}}};
  for (const auto& large : placements) {
    std::vector<Scalar> rows;
    for (double v : small) rows.push_back(Scalar::Of<double>(v));
    for (const auto& [at, v] : large) rows[at] = Scalar::Of<double>(v);
    ASSERT_OK_AND_ASSIGN(ArrayPtr col, MakeArray(DataType(TypeId::kF64), rows));
    const std::vector<ArrayPtr> cols = {col};
    for (const char* text : {"sin(x)", "cos(x) * 2", "tan(x)", "sin(x) + cos(x)"}) {
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, 5000));
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, 5000));
      ExpectSameBits(*got, *want, fmt::format("{} with {} large", text, large.size()));
    }
  }
}

// A kernel of these functions is vectorized (its IR gates pass) and specialized per constant:
// power(x, 2) and power(x, 3) are different kernels with the same answers as the reference.
TEST(Math, ConstantsAndBatchConstants) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("x:f64"));
  std::mt19937_64 rng(3);
  const std::vector<ArrayPtr> cols = {Column(TypeId::kF64, 0, 300, 1.0, rng)};
  for (const char* text : {"power(x, 2)", "power(x, 3)", "power(-8, x)", "exp(2.0) + x", "ln(-1.0) + x"}) {
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, 300));
    ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, 300));
    ExpectSameBits(*got, *want, text);
  }
}

}  // namespace
}  // namespace rowjit::jit
