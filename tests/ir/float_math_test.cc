// The transcendental float functions of ir/float_math.h (what the reference evaluates and the
// JIT emits) against glibc's long double functions (64-bit mantissas on x86: 11 bits beyond a
// double's, so the error of a result is measured to a fraction of an ulp): ulps over random arguments in every regime (the whole range, near
// 1, tiny, subnormal arguments and results, near overflow), the special values of C99 Annex F,
// exact results (log2 of powers of two), and f32 rounded once from f64 (ir).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "ir/float_math.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"

namespace rowjit::ir {
namespace {

using math::ScalarMath;

// The distance in ulps of two floats (0 for two NaNs; very large for NaN against a number).
int64_t UlpsF(float a, float b) {
  if (a != a || b != b) return (a != a && b != b) ? 0 : INT64_MAX / 2;
  auto ordered = [](float x) {
    const int32_t i = std::bit_cast<int32_t>(x);
    return static_cast<int64_t>(i < 0 ? INT32_MIN - i : i);
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

double Uniform(std::mt19937_64& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
// Positive doubles with uniformly drawn exponents in [lo, hi] (powers of two) and mantissas.
double LogUniform(std::mt19937_64& rng, int lo, int hi) {
  return std::ldexp(Uniform(rng, 1.0, 2.0), lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1)));
}

// The error of `got` in ulps of the double nearest `exact` (0 when both are NaN or the same
// infinity; 1e9 for NaN against a number or a wrong infinity).
double ErrorUlps(double got, long double exact) {
  const double rounded = static_cast<double>(exact);
  if (got != got || rounded != rounded) return (got != got && rounded != rounded) ? 0 : 1e9;
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : 1e9;
  int e = 0;
  std::frexp(rounded == 0 ? got : rounded, &e);
  const double ulp = std::ldexp(1.0, std::max(e - 53, -1074));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

struct Regime {
  const char* name;
  double (*draw)(std::mt19937_64&);
};

// The worst error in ulps of `ours` against `exact` over `n` draws of each regime; prints it
// and its argument.
double WorstUlps(const char* fn, double (*ours)(ScalarMath&, double), long double (*exact)(long double),
                 std::initializer_list<Regime> regimes, int n = 200000) {
  ScalarMath m;
  double worst = 0;
  for (const Regime& r : regimes) {
    std::mt19937_64 rng(7);
    double regime_worst = 0, at = 0;
    for (int i = 0; i < n; ++i) {
      const double x = r.draw(rng);
      const double u = ErrorUlps(ours(m, x), exact(x));
      if (u > regime_worst) regime_worst = u, at = x;
    }
    std::printf("%s %-14s max %.3f ulps (at %a)\n", fn, r.name, regime_worst, at);
    worst = std::max(worst, regime_worst);
  }
  return worst;
}

// Every function is faithfully rounded (below one ulp); the figures printed are those
// ir/float_math.h lists (docs/semantics.md, "Transcendental functions", states the bounds).
TEST(FloatMath, ExpWithinOneUlp) {
  EXPECT_LT(WorstUlps("exp", math::Exp<ScalarMath>, [](long double x) { return expl(x); },
                      {{"whole", [](std::mt19937_64& g) { return Uniform(g, -745.2, 709.8); }},
                       {"unit", [](std::mt19937_64& g) { return Uniform(g, -1, 1); }},
                       {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-9, 1e-9); }},
                       {"subnormal", [](std::mt19937_64& g) { return Uniform(g, -745.2, -708.3); }},
                       {"overflow", [](std::mt19937_64& g) { return Uniform(g, 700, 709.79); }}}),
            1.0);
}

TEST(FloatMath, LogarithmsWithinOneUlp) {
  const std::initializer_list<Regime> positive = {
      {"whole", [](std::mt19937_64& g) { return LogUniform(g, -1022, 1023); }},
      {"near-one", [](std::mt19937_64& g) { return Uniform(g, 0.999, 1.001); }},
      {"sqrt2", [](std::mt19937_64& g) { return Uniform(g, 0.70, 0.72) * (g() % 2 ? 2 : 1); }},
      {"subnormal", [](std::mt19937_64& g) { return std::ldexp(Uniform(g, 0, 1), -1022); }}};
  EXPECT_LT(WorstUlps("ln", math::Ln<ScalarMath>, [](long double x) { return logl(x); }, positive), 1.0);
  EXPECT_LT(WorstUlps("log2", math::Log2<ScalarMath>, [](long double x) { return log2l(x); }, positive), 1.0);
  EXPECT_LT(WorstUlps("log10", math::Log10<ScalarMath>, [](long double x) { return log10l(x); }, positive), 1.0);
  EXPECT_LT(WorstUlps("log1p", math::Log1p<ScalarMath>, [](long double x) { return log1pl(x); },
                      {{"unit", [](std::mt19937_64& g) { return Uniform(g, -1, 1); }},
                       {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-12, 1e-12); }},
                       {"near-minus-one", [](std::mt19937_64& g) { return -1 + LogUniform(g, -60, -1); }},
                       {"large", [](std::mt19937_64& g) { return LogUniform(g, 0, 1023); }}}),
            1.0);
}

TEST(FloatMath, TrigonometryWithinOneUlp) {
  const std::initializer_list<Regime> regimes = {
      {"kernel", [](std::mt19937_64& g) { return Uniform(g, -0.785, 0.785); }},
      {"moderate", [](std::mt19937_64& g) { return Uniform(g, -100, 100); }},
      {"medium", [](std::mt19937_64& g) { return Uniform(g, -1.647e6, 1.647e6); }},
      {"large", [](std::mt19937_64& g) { return LogUniform(g, 21, 1023) * (g() % 2 ? 1 : -1); }},
      // The doubles nearest k π/2: the reduction's cancellation, and results near 0 and ±1.
      {"near-k-pi/2", [](std::mt19937_64& g) { return static_cast<double>(g() % 2000000) * 1.5707963267948966; }},
      {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-8, 1e-8); }}};
  EXPECT_LT(WorstUlps("sin", math::Sin<ScalarMath>, [](long double x) { return sinl(x); }, regimes), 1.0);
  EXPECT_LT(WorstUlps("cos", math::Cos<ScalarMath>, [](long double x) { return cosl(x); }, regimes), 1.0);
  EXPECT_LT(WorstUlps("tan", math::Tan<ScalarMath>, [](long double x) { return tanl(x); }, regimes), 1.0);
  // The double closest to a multiple of π/2 (Muller's table): sin of it is 4.687e-19, which a
  // reduction short of about 120 bits of 2/π gets wrong in its leading digits.
  ScalarMath m;
  const double hardest = std::ldexp(6381956970095103.0, 797);
  EXPECT_LT(ErrorUlps(math::Sin(m, hardest), sinl(hardest)), 1.0) << math::Sin(m, hardest);
  EXPECT_LT(ErrorUlps(math::Cos(m, hardest), cosl(hardest)), 1.0);
}

TEST(FloatMath, HyperbolicWithinOneUlp) {
  const std::initializer_list<Regime> regimes = {
      {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-9, 1e-9); }},
      {"unit", [](std::mt19937_64& g) { return Uniform(g, -1, 1); }},
      {"moderate", [](std::mt19937_64& g) { return Uniform(g, -30, 30); }},
      {"large", [](std::mt19937_64& g) { return Uniform(g, -710.47, 710.47); }},
      {"near-zero", [](std::mt19937_64& g) { return std::ldexp(Uniform(g, -1, 1), -static_cast<int>(g() % 60)); }}};
  EXPECT_LT(WorstUlps("expm1", math::Expm1<ScalarMath>, [](long double x) { return expm1l(x); }, regimes), 1.0);
  EXPECT_LT(WorstUlps("sinh", math::Sinh<ScalarMath>, [](long double x) { return sinhl(x); }, regimes), 1.0);
  EXPECT_LT(WorstUlps("cosh", math::Cosh<ScalarMath>, [](long double x) { return coshl(x); }, regimes), 1.0);
  EXPECT_LT(WorstUlps("tanh", math::Tanh<ScalarMath>, [](long double x) { return tanhl(x); }, regimes), 1.0);
}

TEST(FloatMath, InverseTrigonometryWithinOneUlp) {
  const std::initializer_list<Regime> unit = {
      {"unit", [](std::mt19937_64& g) { return Uniform(g, -1, 1); }},
      {"near-one", [](std::mt19937_64& g) { return (1 - LogUniform(g, -53, -2)) * (g() % 2 ? 1 : -1); }},
      {"middle", [](std::mt19937_64& g) { return Uniform(g, 0.5, 0.975) * (g() % 2 ? 1 : -1); }},
      {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-9, 1e-9); }}};
  EXPECT_LT(WorstUlps("asin", math::Asin<ScalarMath>, [](long double x) { return asinl(x); }, unit), 1.0);
  EXPECT_LT(WorstUlps("acos", math::Acos<ScalarMath>, [](long double x) { return acosl(x); }, unit), 1.0);
  EXPECT_LT(WorstUlps("atan", math::Atan<ScalarMath>, [](long double x) { return atanl(x); },
                      {{"unit", [](std::mt19937_64& g) { return Uniform(g, -3, 3); }},
                       {"whole", [](std::mt19937_64& g) { return LogUniform(g, -1022, 1023) * (g() % 2 ? 1 : -1); }},
                       {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-9, 1e-9); }}}),
            1.0);
  ScalarMath m;
  double worst = 0;
  std::mt19937_64 rng(13);
  for (int i = 0; i < 200000; ++i) {
    const double y = LogUniform(rng, -30, 30) * (rng() % 2 ? 1 : -1), x = LogUniform(rng, -30, 30) * (rng() % 2 ? 1 : -1);
    worst = std::max(worst, ErrorUlps(math::Atan2(m, y, x), atan2l(y, x)));
  }
  std::printf("atan2 max %.3f ulps\n", worst);
  EXPECT_LT(worst, 1.5);  // π - atan|y/x| rounds twice more: the one function above one ulp
}

// Composed of ln and log1p, as fdlibm's: asinh and atanh within two ulps, acosh 2.5 (near 1); cbrt,
// degrees and radians within one.
TEST(FloatMath, ComposedFunctions) {
  const std::initializer_list<Regime> any = {
      {"unit", [](std::mt19937_64& g) { return Uniform(g, -1, 1); }},
      {"whole", [](std::mt19937_64& g) { return LogUniform(g, -1022, 1023) * (g() % 2 ? 1 : -1); }},
      {"moderate", [](std::mt19937_64& g) { return Uniform(g, -10, 10); }},
      {"subnormal", [](std::mt19937_64& g) { return std::ldexp(Uniform(g, -1, 1), -1022); }}};
  EXPECT_LT(WorstUlps("asinh", math::Asinh<ScalarMath>, [](long double x) { return asinhl(x); }, any), 2.0);
  EXPECT_LT(WorstUlps("acosh", math::Acosh<ScalarMath>, [](long double x) { return acoshl(x); },
                      {{"near-one", [](std::mt19937_64& g) { return 1 + LogUniform(g, -50, 0); }},
                       {"whole", [](std::mt19937_64& g) { return 1 + LogUniform(g, -10, 1023); }}}),
            2.5);
  EXPECT_LT(WorstUlps("atanh", math::Atanh<ScalarMath>, [](long double x) { return atanhl(x); },
                      {{"unit", [](std::mt19937_64& g) { return Uniform(g, -1, 1); }},
                       {"near-one", [](std::mt19937_64& g) { return 1 - LogUniform(g, -53, -2); }},
                       {"tiny", [](std::mt19937_64& g) { return Uniform(g, -1e-9, 1e-9); }}}),
            2.0);
  EXPECT_LT(WorstUlps("cbrt", math::Cbrt<ScalarMath>, [](long double x) { return cbrtl(x); }, any), 1.0);
  EXPECT_LT(WorstUlps("degrees", math::Degrees<ScalarMath>, [](long double x) { return x * (180 / (long double)M_PIl); }, any), 1.0);
  EXPECT_LT(WorstUlps("radians", math::Radians<ScalarMath>, [](long double x) { return x * ((long double)M_PIl / 180); }, any), 1.0);
  ScalarMath m;
  // Exact cubes give their roots exactly (glibc's cbrt(-27) is -3.0000000000000004).
  const std::pair<double, double> cubes[] = {{0.0, 0.0},   {-0.0, -0.0},       {INFINITY, INFINITY}, {-INFINITY, -INFINITY},
                                             {8.0, 2.0},   {-27.0, -3.0},      {0x1p999, 0x1p333},   {0x1p-1074, 0x1p-358},
                                             {1e-300, 1e-100}, {-125e21, -5e7}};
  for (const auto& [v, want] : cubes) {
    EXPECT_EQ(std::bit_cast<uint64_t>(math::Cbrt(m, v)), std::bit_cast<uint64_t>(want)) << v << " " << math::Cbrt(m, v);
  }
  EXPECT_TRUE(std::isnan(math::Cbrt(m, NAN)));
  EXPECT_TRUE(std::isnan(math::Acosh(m, 0.5)));
  EXPECT_EQ(math::Atanh(m, 1.0), INFINITY);
  EXPECT_EQ(math::Atanh(m, -1.0), -INFINITY);
  EXPECT_TRUE(std::isnan(math::Atanh(m, 1.5)));
  EXPECT_EQ(math::Degrees(m, M_PI), 180.0);
  EXPECT_EQ(math::Radians(m, 180.0), M_PI);
}

TEST(FloatMath, PowerWithinOneUlp) {
  ScalarMath m;
  struct PowRegime {
    const char* name;
    std::pair<double, double> (*draw)(std::mt19937_64&);
  };
  const PowRegime regimes[] = {
      {"moderate", [](std::mt19937_64& g) { return std::pair(LogUniform(g, -10, 10), Uniform(g, -50, 50)); }},
      {"near-one", [](std::mt19937_64& g) { return std::pair(1 + Uniform(g, -1e-6, 1e-6), Uniform(g, -1e8, 1e8)); }},
      // y ln x near the overflow and subnormal thresholds, where the error of ln x is multiplied.
      {"overflow", [](std::mt19937_64& g) {
         const double x = Uniform(g, 1.5, 3);
         return std::pair(x, Uniform(g, 690, 709.7) / std::log(x));
       }},
      {"subnormal", [](std::mt19937_64& g) {
         const double x = Uniform(g, 1.5, 3);
         return std::pair(x, -Uniform(g, 708.5, 745) / std::log(x));
       }},
      {"negative-int", [](std::mt19937_64& g) {
         return std::pair(-LogUniform(g, -4, 4), static_cast<double>(static_cast<int>(g() % 121) - 60));
       }},
      {"whole", [](std::mt19937_64& g) {
         return std::pair(LogUniform(g, -1022, 1023), Uniform(g, -2, 2));
       }},
  };
  double worst = 0;
  for (const PowRegime& r : regimes) {
    std::mt19937_64 rng(11);
    double regime_worst = 0;
    std::pair<double, double> at;
    for (int i = 0; i < 200000; ++i) {
      const auto [x, y] = r.draw(rng);
      const double u = ErrorUlps(math::Pow(m, x, y), powl(x, y));
      if (u > regime_worst) regime_worst = u, at = {x, y};
    }
    std::printf("power %-14s max %.3f ulps (at %a, %a)\n", r.name, regime_worst, at.first, at.second);
    worst = std::max(worst, regime_worst);
  }
  EXPECT_LT(worst, 1.0);
}

// C99 Annex F and IEEE 754's special cases, and exact values (not glibc's word for them).
TEST(FloatMath, SpecialValues) {
  ScalarMath m;
  const double inf = INFINITY, nan = NAN;
  auto same = [](double got, double want) {
    return (got != got && want != want) || (got == want && std::signbit(got) == std::signbit(want));
  };
  struct Unary {
    double (*fn)(ScalarMath&, double);
    const char* name;
    double x, want;
  };
  const Unary unary[] = {
      {math::Exp<ScalarMath>, "exp", 0.0, 1.0},        {math::Exp<ScalarMath>, "exp", -0.0, 1.0},
      {math::Exp<ScalarMath>, "exp", inf, inf},        {math::Exp<ScalarMath>, "exp", -inf, 0.0},
      {math::Exp<ScalarMath>, "exp", nan, nan},        {math::Exp<ScalarMath>, "exp", 710, inf},
      {math::Exp<ScalarMath>, "exp", -746, 0.0},       {math::Exp<ScalarMath>, "exp", -745.1, 0x1p-1074},
      {math::Exp<ScalarMath>, "exp", 1.0, 2.718281828459045},
      {math::Ln<ScalarMath>, "ln", 1.0, 0.0},          {math::Ln<ScalarMath>, "ln", 0.0, -inf},
      {math::Ln<ScalarMath>, "ln", -0.0, -inf},        {math::Ln<ScalarMath>, "ln", -1.0, nan},
      {math::Ln<ScalarMath>, "ln", inf, inf},          {math::Ln<ScalarMath>, "ln", -inf, nan},
      {math::Ln<ScalarMath>, "ln", nan, nan},          {math::Ln<ScalarMath>, "ln", 0x1p-1074, -744.4400719213812},
      {math::Log2<ScalarMath>, "log2", 0.0, -inf},     {math::Log2<ScalarMath>, "log2", -2.0, nan},
      {math::Log2<ScalarMath>, "log2", inf, inf},      {math::Log2<ScalarMath>, "log2", 1.0, 0.0},
      {math::Log10<ScalarMath>, "log10", 0.0, -inf},   {math::Log10<ScalarMath>, "log10", -2.0, nan},
      {math::Log10<ScalarMath>, "log10", inf, inf},    {math::Log10<ScalarMath>, "log10", 1.0, 0.0},
      {math::Log1p<ScalarMath>, "log1p", -1.0, -inf},  {math::Log1p<ScalarMath>, "log1p", -0.0, -0.0},
      {math::Log1p<ScalarMath>, "log1p", 0.0, 0.0},    {math::Log1p<ScalarMath>, "log1p", -2.0, nan},
      {math::Log1p<ScalarMath>, "log1p", inf, inf},    {math::Log1p<ScalarMath>, "log1p", 0x1p-1074, 0x1p-1074},
      {math::Sin<ScalarMath>, "sin", 0.0, 0.0},        {math::Sin<ScalarMath>, "sin", -0.0, -0.0},
      {math::Sin<ScalarMath>, "sin", inf, nan},        {math::Sin<ScalarMath>, "sin", -inf, nan},
      {math::Sin<ScalarMath>, "sin", nan, nan},        {math::Sin<ScalarMath>, "sin", 0x1p-1074, 0x1p-1074},
      {math::Cos<ScalarMath>, "cos", 0.0, 1.0},        {math::Cos<ScalarMath>, "cos", -0.0, 1.0},
      {math::Cos<ScalarMath>, "cos", inf, nan},        {math::Cos<ScalarMath>, "cos", nan, nan},
      {math::Tan<ScalarMath>, "tan", 0.0, 0.0},        {math::Tan<ScalarMath>, "tan", -0.0, -0.0},
      {math::Tan<ScalarMath>, "tan", -inf, nan},       {math::Tan<ScalarMath>, "tan", -1e-300, -1e-300},
      {math::Expm1<ScalarMath>, "expm1", -0.0, -0.0},  {math::Expm1<ScalarMath>, "expm1", inf, inf},
      {math::Expm1<ScalarMath>, "expm1", -inf, -1.0},  {math::Expm1<ScalarMath>, "expm1", nan, nan},
      {math::Expm1<ScalarMath>, "expm1", 710, inf},    {math::Sinh<ScalarMath>, "sinh", nan, nan},
      {math::Sinh<ScalarMath>, "sinh", inf, inf},      {math::Sinh<ScalarMath>, "sinh", -inf, -inf},
      {math::Sinh<ScalarMath>, "sinh", -711, -inf},    {math::Sinh<ScalarMath>, "sinh", -0.0, -0.0},
      {math::Cosh<ScalarMath>, "cosh", nan, nan},      {math::Cosh<ScalarMath>, "cosh", -inf, inf},
      {math::Cosh<ScalarMath>, "cosh", 711, inf},      {math::Cosh<ScalarMath>, "cosh", -0.0, 1.0},
      {math::Tanh<ScalarMath>, "tanh", nan, nan},      {math::Tanh<ScalarMath>, "tanh", -inf, -1.0},
      {math::Tanh<ScalarMath>, "tanh", inf, 1.0},      {math::Tanh<ScalarMath>, "tanh", -0.0, -0.0},
      {math::Atan<ScalarMath>, "atan", -0.0, -0.0},    {math::Atan<ScalarMath>, "atan", inf, M_PI / 2},
      {math::Atan<ScalarMath>, "atan", -inf, -M_PI / 2}, {math::Atan<ScalarMath>, "atan", nan, nan},
      {math::Atan<ScalarMath>, "atan", 1.0, M_PI / 4}, {math::Asin<ScalarMath>, "asin", 1.0, M_PI / 2},
      {math::Asin<ScalarMath>, "asin", -1.0, -M_PI / 2}, {math::Asin<ScalarMath>, "asin", 1.5, nan},
      {math::Asin<ScalarMath>, "asin", -0.0, -0.0},    {math::Asin<ScalarMath>, "asin", nan, nan},
      {math::Acos<ScalarMath>, "acos", 1.0, 0.0},      {math::Acos<ScalarMath>, "acos", -1.0, M_PI},
      {math::Acos<ScalarMath>, "acos", 0.0, M_PI / 2}, {math::Acos<ScalarMath>, "acos", -1.5, nan},
  };
  for (const Unary& u : unary) {
    EXPECT_TRUE(same(u.fn(m, u.x), u.want)) << u.name << "(" << u.x << ") = " << u.fn(m, u.x) << ", want " << u.want;
  }
  // log2 of every power of two, and of 1.5 · 2^k (k + log2 1.5 rounded).
  for (int k = -1074; k <= 1023; ++k) {
    ASSERT_EQ(math::Log2(m, std::ldexp(1.0, k)), k) << k;
  }
  struct Binary {
    double x, y, want;
  };
  const Binary pow_cases[] = {
      {nan, 0.0, 1.0},    {nan, -0.0, 1.0},   {1.0, nan, 1.0},    {1.0, inf, 1.0},     {-1.0, inf, 1.0},
      {-1.0, -inf, 1.0},  {0.0, -3.0, inf},   {-0.0, -3.0, -inf}, {0.0, -2.0, inf},    {-0.0, -2.0, inf},
      {-0.0, -0.5, inf},  {0.0, 3.0, 0.0},    {-0.0, 3.0, -0.0},  {-0.0, 2.0, 0.0},    {-0.0, 0.5, 0.0},
      {0.5, -inf, inf},   {2.0, -inf, 0.0},   {0.5, inf, 0.0},    {2.0, inf, inf},     {-0.5, inf, 0.0},
      {-inf, -3.0, -0.0}, {-inf, -2.0, 0.0},  {-inf, 3.0, -inf},  {-inf, 2.0, inf},    {-inf, 0.5, inf},
      {inf, -1.0, 0.0},   {inf, 0.5, inf},    {-2.0, 0.5, nan},   {-2.0, 3.0, -8.0},   {-2.0, 2.0, 4.0},
      {nan, 1.0, nan},    {2.0, nan, nan},    {2.0, 10.0, 1024},  {10.0, 22.0, 1e22},  {2.0, -1074, 0x1p-1074},
      {2.0, 1024, inf},   {-2.0, 1023, -0x1p1023}, {9.0, 0.5, 3.0}, {0x1p-1074, 1.0, 0x1p-1074},
  };
  // C99's atan2 table (F.9.1.4).
  const Binary atan2_cases[] = {
      {0.0, -0.0, M_PI},   {-0.0, -0.0, -M_PI},   {0.0, 0.0, 0.0},           {-0.0, 0.0, -0.0},
      {0.0, -2.0, M_PI},   {-0.0, -2.0, -M_PI},   {0.0, 2.0, 0.0},           {-0.0, 2.0, -0.0},
      {-2.0, 0.0, -M_PI / 2}, {2.0, -0.0, M_PI / 2}, {2.0, -inf, M_PI},      {-2.0, -inf, -M_PI},
      {2.0, inf, 0.0},     {-2.0, inf, -0.0},     {inf, 2.0, M_PI / 2},      {-inf, -2.0, -M_PI / 2},
      {inf, -inf, 3 * M_PI / 4}, {-inf, -inf, -3 * M_PI / 4}, {inf, inf, M_PI / 4}, {-inf, inf, -M_PI / 4},
      {nan, 1.0, nan},     {1.0, nan, nan},       {1.0, 1.0, M_PI / 4},      {1e300, 1e-300, M_PI / 2},
  };
  for (const Binary& c : atan2_cases) {
    EXPECT_TRUE(same(math::Atan2(m, c.x, c.y), c.want))
        << "atan2(" << c.x << ", " << c.y << ") = " << math::Atan2(m, c.x, c.y) << ", want " << c.want;
  }
  for (const Binary& c : pow_cases) {
    EXPECT_TRUE(same(math::Pow(m, c.x, c.y), c.want))
        << "power(" << c.x << ", " << c.y << ") = " << math::Pow(m, c.x, c.y) << ", want " << c.want;
  }
}

// The catalog's f32 functions compute in f64 and round once: within one f32 ulp of glibc's f64
// result rounded, every f32 exponent and the specials.
TEST(FloatMath, F32RoundsOnce) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("x:f32,y:f32"));
  std::mt19937_64 rng(5);
  std::vector<std::optional<float>> xs, ys;
  for (int i = 0; i < 20000; ++i) {
    xs.push_back(static_cast<float>(i % 3 == 0 ? Uniform(rng, -110, 90) : LogUniform(rng, -149, 127)));
    ys.push_back(static_cast<float>(Uniform(rng, -8, 8)));
  }
  for (float s : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0x1p-149f}) xs.push_back(s), ys.push_back(s);
  ASSERT_OK_AND_ASSIGN(ArrayPtr xcol, MakeArray<float>(xs, false));
  ASSERT_OK_AND_ASSIGN(ArrayPtr ycol, MakeArray<float>(ys, false));
  const std::vector<ArrayPtr> cols = {xcol, ycol};
  struct Case {
    const char* text;
    double (*libm)(double, double);
  };
  const Case cases[] = {{"exp(x)", [](double x, double) { return std::exp(x); }},
                        {"ln(x)", [](double x, double) { return std::log(x); }},
                        {"log2(x)", [](double x, double) { return std::log2(x); }},
                        {"log10(x)", [](double x, double) { return std::log10(x); }},
                        {"log1p(x)", [](double x, double) { return std::log1p(x); }},
                        {"sin(x)", [](double x, double) { return std::sin(x); }},
                        {"cos(x)", [](double x, double) { return std::cos(x); }},
                        {"tan(x)", [](double x, double) { return std::tan(x); }},
                        {"atan2(x, y)", [](double x, double y) { return std::atan2(x, y); }},
                        {"tanh(x)", [](double x, double) { return std::tanh(x); }},
                        {"power(x, y)", [](double x, double y) { return std::pow(x, y); }}};
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseAndBind(c.text, schema));
    ASSERT_EQ(e->type().id, TypeId::kF32);
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, EvaluateReference(*e, cols, static_cast<int64_t>(xs.size())));
    int64_t worst = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const float want = static_cast<float>(c.libm(*xs[i], *ys[i]));
      worst = std::max(worst, UlpsF(got->GetScalar(static_cast<int64_t>(i)).value<float>(), want));
    }
    EXPECT_LE(worst, 1) << c.text;
  }
}

TEST(FloatMath, CatalogNames) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("x:f64,y:f64,i:i32"));
  ASSERT_OK_AND_ASSIGN(ExprPtr pow_alias, ParseAndBind("pow(x, y)", schema));
  EXPECT_EQ(pow_alias->name(), "power");
  ASSERT_OK_AND_ASSIGN(ExprPtr numpy_name, ParseAndBind("arctan2(x, y)", schema));
  EXPECT_EQ(numpy_name->name(), "atan2");
  // numpy's log is natural, SQL's base 10: neither is guessed.
  auto log = ParseAndBind("log(x)", schema);
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message().find("write ln (natural) or log10"), std::string::npos) << log.error().ToString();
  // Floats only: an integer is taken as f64 (SQL's implicit cast), and refused by strict binding.
  ASSERT_OK_AND_ASSIGN(ExprPtr exp_of_int, ParseAndBind("exp(i)", schema));
  EXPECT_EQ(exp_of_int->ToString(), "exp(cast(i, f64))");
  EXPECT_FALSE(ParseAndBind("exp(i)", schema, BindOptions{.implicit_casts = false}).ok());
  EXPECT_TRUE(ParseAndBind("exp(cast(i as f64))", schema, BindOptions{.implicit_casts = false}).ok());
}

}  // namespace
}  // namespace rowjit::ir
