// Transcendental float functions (ir layer): one algorithm per function, written once over a
// backend `M`, so that the reference evaluator (M = ScalarMath: doubles) and the JIT (M = the IR
// backend in jit/codegen/lower/math.cc: the same operations emitted as LLVM IR, one row at a time, which
// the loop vectorizer widens) compute bit-identical results. Nothing here calls libm: libm's
// scalar results are not what a vector kernel computes, and value-for-value agreement between the
// kernels and the reference is the contract.
//
// Every operation is IEEE 754 binary64 with round-to-nearest: + - * / and fma round once, the
// comparisons are C++'s (== and the orderings false on NaN, != true), `Trunc` is exact. The
// algorithms are branch-free (special inputs are chosen by selects), so a lane never depends on
// another and the loop has no control flow. A backend must not contract a * b + c into an fma
// (the JIT sets no fast-math flags; ir/ is compiled with -ffp-contract=off).
//
// Accuracy (worst errors measured against glibc's long double functions by
// tests/ir/float_math_test.cc, in ulps of the result; docs/semantics.md, "Transcendental
// functions"):
//   exp (0.76): a Taylor polynomial after fdlibm's Cody–Waite reduction, 1 + r exact;
//     expm1 (0.93) the same parts; sinh (0.81), cosh (0.75), tanh (0.77) over them.
//   ln (0.85), log2 (0.84), log10 (0.67), log1p (0.76): fdlibm's (k_log1p's minimax
//     polynomial, log2 and log10 in extra precision); log2 exact at powers of two.
//   sin (0.76), cos (0.77), tan (0.81): fdlibm's kernels on [-π/4, π/4] after a reduction by
//     π/2 that is exact enough everywhere: fdlibm's three-step Cody–Waite below 2^20 π/2, and
//     above it a Payne–Hanek reduction by a table of 2/π indexed by the exponent (no loop).
//   atan (0.76), asin (0.83), acos (0.89): fdlibm's (argument ranges chosen by selects);
//     atan2 (1.23): atan of the quotient, corrected, placed in its quadrant.
//   power (0.82): exp of y · ln|x| with ln|x| a double-double series carried to 2^-66 and the
//     product kept in double-double.
//   asinh, acosh, atanh: fdlibm's forms over ln and log1p; cbrt: e^(ln|x|/3) and a Newton
//     step; degrees, radians: a double-double product.
// Polynomials are evaluated with fma (one rounding per step, and half the operations): targets
// without FMA (x86-64 before v3) compute the same bits through a libm call per lane.
// f32 arguments are computed in f64 and rounded once.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace rowjit::ir::math {

constexpr double FromHex(uint64_t bits) { return std::bit_cast<double>(bits); }

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^21 (fdlibm's ln2_hi / ln2_lo).
inline constexpr double kLn2Hi = FromHex(0x3fe62e42fee00000);
inline constexpr double kLn2Lo = FromHex(0x3dea39ef35793c76);
inline constexpr double kInvLn2 = FromHex(0x3ff71547652b82fe);
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// (2^(e-52) 2/π) mod 4 for every exponent e from kTwoOverPiMinExponent to 1023, four doubles of
// 53 bits each (ir/float_math.cc): the reduction of trigonometric arguments of 2^20 π/2 and
// more reads the four of its row's exponent.
inline constexpr int kTwoOverPiMinExponent = 20;
inline constexpr int kTwoOverPiExponents = 1024 - kTwoOverPiMinExponent;
std::span<const double> TwoOverPiTable();

// The scalar backend: the reference evaluator's. Integers are 64-bit two's complement with
// wrapping + and -, arithmetic >>.
struct ScalarMath {
  struct I {
    int64_t v;
    friend I operator+(I a, I b) { return {static_cast<int64_t>(static_cast<uint64_t>(a.v) + static_cast<uint64_t>(b.v))}; }
    friend I operator-(I a, I b) { return {static_cast<int64_t>(static_cast<uint64_t>(a.v) - static_cast<uint64_t>(b.v))}; }
    friend I operator&(I a, I b) { return {a.v & b.v}; }
    friend I operator|(I a, I b) { return {a.v | b.v}; }
    friend I operator<<(I a, int s) { return {static_cast<int64_t>(static_cast<uint64_t>(a.v) << s)}; }
    friend I operator>>(I a, int s) { return {a.v >> s}; }
    friend bool operator<(I a, I b) { return a.v < b.v; }
    friend bool operator>(I a, I b) { return a.v > b.v; }
    friend bool operator==(I a, I b) { return a.v == b.v; }
  };
  using F = double;
  using B = bool;

  static F Const(double v) { return v; }
  static I Int(int64_t v) { return {v}; }
  static F Fma(F a, F b, F c) { return std::fma(a, b, c); }
  static F Trunc(F x) { return std::trunc(x); }
  static F Abs(F x) { return std::fabs(x); }
  static F Sqrt(F x) { return std::sqrt(x); }
  static F Select(B c, F a, F b) { return c ? a : b; }
  static I Select(B c, I a, I b) { return c ? a : b; }
  static I Bits(F x) { return {std::bit_cast<int64_t>(x)}; }
  static F FromBits(I x) { return std::bit_cast<double>(x.v); }
  // A small integer (|x| < 2^31) as a float.
  static F ToF(I x) { return static_cast<double>(static_cast<int32_t>(x.v)); }
  // TwoOverPiTable()[i] (i always in range).
  static F TableLoad(I i) { return TwoOverPiTable()[static_cast<size_t>(i.v)]; }
};

// Double-double helpers: (hi, lo) with |lo| ≤ ulp(hi) / 2 represent hi + lo exactly.
template <class M>
struct DD {
  typename M::F hi, lo;
};

template <class M, class F = typename M::F>
DD<M> TwoSum(M&, F a, F b) {
  F s = a + b;
  F bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
template <class M, class F = typename M::F>
DD<M> FastTwoSum(M&, F a, F b) {  // |a| >= |b| (or a == 0)
  F s = a + b;
  return {s, b - (s - a)};
}

// 2^k for an integer k in [-1022, 1023].
template <class M>
typename M::F Pow2(M& m, typename M::I k) {
  return m.FromBits((k + m.Int(1023)) << 52);
}

// x rounded to the nearest integer, ties to even, for |x| < 2^51, as a float and as an integer:
// adding 1.5 · 2^52 leaves no fraction bits and puts the integer in the low bits, so no float to
// integer conversion is needed (they do not vectorize everywhere).
template <class M>
struct Rounded {
  typename M::F f;
  typename M::I i;
};
template <class M, class F = typename M::F>
Rounded<M> RoundToInt(M& m, F x) {
  constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52
  F shifted = x + kShift;
  return {shifted - kShift, m.Bits(shifted) - m.Int(std::bit_cast<int64_t>(kShift))};
}

// The core of exp: x + xl = k ln 2 + r + r_err with the Cody–Waite split of ln 2 (fdlibm's),
// |r| ≤ ln 2 / 2, and e^r - 1 = r + h + tail with h = r²/2 as rounded and tail the rest: r³ Q(r),
// Q the Taylor series to r^13 (truncation below 2^-58) by Estrin's scheme with fma (no
// division), r_err and the rounding error of r². For |x| < 746 and |xl| ≤ 2^-40 |x|.
template <class M>
struct ExpParts {
  Rounded<M> k;
  typename M::F r, h, tail;  // e^(x + xl) = 2^k (1 + r + h + tail)
};
template <class M, class F = typename M::F>
ExpParts<M> ExpReduce(M& m, F x, F xl) {
  Rounded<M> k = RoundToInt(m, x * kInvLn2);
  F hi = x - k.f * kLn2Hi;  // exact: k * kLn2Hi has at most 43 bits and is close to x
  F lo = k.f * kLn2Lo - xl;
  F r = hi - lo;
  F r_err = (hi - r) - lo;  // hi - lo = r + r_err exactly
  double inv[14] = {1.0};
  for (int n = 1; n < 14; ++n) inv[n] = inv[n - 1] / n;  // 1 / n! within a few ulps
  auto pair = [&](int n) { return m.Fma(m.Const(inv[n + 1]), r, m.Const(inv[n])); };
  F r2 = r * r;
  F r2_err = m.Fma(r, r, -r2);
  F r4 = r2 * r2;
  F b0 = m.Fma(pair(5), r2, pair(3));
  F b1 = m.Fma(pair(9), r2, pair(7));
  F b2 = m.Fma(m.Const(inv[13]), r2, pair(11));
  F q = m.Fma(b2, r4 * r4, m.Fma(b1, r4, b0));  // 1/3! + r/4! + ... + r^10/13!
  return {k, r, 0.5 * r2, m.Fma(r2 * r, q, m.Fma(m.Const(0.5), r2_err, r_err))};
}

// base + scale (r + h + tail) + extra with base + scale (r + h) summed exactly, as a
// double-double: e^x / 2^k with base 1 and scale 1; e^x - 1 with scale 2^k and base 2^k - 1
// (exact up to k = 53; beyond, base 2^k and extra -1).
template <class M, class F = typename M::F>
DD<M> SumExpParts(M& m, const ExpParts<M>& e, F base, F scale, F extra) {
  DD<M> a = TwoSum(m, base, scale * e.r);
  DD<M> b = TwoSum(m, a.hi, scale * e.h);
  return FastTwoSum(m, b.hi, a.lo + b.lo + (scale * e.tail + extra));
}

// Arguments whose result is 0, inf or NaN are computed as 0 (and replaced by the callers), so
// that no lane makes subnormal intermediates: x86 takes a microcode assist for each.
template <class M, class F = typename M::F>
ExpParts<M> ExpReduceInRange(M& m, F x, F xl) {
  const typename M::B in_range = (x > -746.0) & (x < 711.0);
  return ExpReduce(m, m.Select(in_range, x, m.Const(0.0)), m.Select(in_range, xl, m.Const(0.0)));
}

// v · 2^k in two exact halves (k in [-1078, 1025]), so a subnormal result rounds once.
template <class M, class F = typename M::F>
F ScaleBy(M& m, F v, typename M::I k) {
  typename M::I k1 = k >> 1;
  return v * Pow2(m, k1) * Pow2(m, k - k1);
}

// exp(x + xl) · 2^scale (scale 0 or -1: sinh and cosh take e^x / 2 without overflowing first),
// xl = 0 for plain exp; 1 + r exact, the rest added to it.
template <class M, class F = typename M::F>
F ExpDD(M& m, F x, F xl, int scale = 0) {
  // e^x 2^scale overflows above ln(DBL_MAX) (709.782712893384) - scale ln 2; 0 below -745.13.
  const double overflow = scale == 0 ? FromHex(0x40862E42FEFA39EF) : FromHex(0x408633CE8FB9F87D);
  constexpr double kUnderflow = FromHex(0xc0874910D52D3051);  // -745.1332191019411
  ExpParts<M> e = ExpReduceInRange(m, x, xl);
  DD<M> one_r = FastTwoSum(m, m.Const(1.0), e.r);  // 1 + r exactly, then the rest (h ≤ 0.06)
  F y = one_r.hi + (one_r.lo + (e.h + e.tail));
  F res = ScaleBy(m, y, e.k.i + m.Int(scale));
  res = m.Select(x > overflow, m.Const(kInf), res);
  res = m.Select(x < kUnderflow, m.Const(0.0), res);
  return m.Select(x != x, x, res);
}

// e^x / 2 as a double-double, for 0 ≤ x ≤ 710.47 (sinh and cosh); inf above.
template <class M, class F = typename M::F>
DD<M> HalfExp(M& m, F x) {
  ExpParts<M> e = ExpReduceInRange(m, x, m.Const(0.0));
  DD<M> y = SumExpParts(m, e, m.Const(1.0), m.Const(1.0), m.Const(0.0));
  typename M::I k = e.k.i - m.Int(1);
  const typename M::B overflow = x > FromHex(0x408633CE8FB9F87D);
  return {m.Select(overflow, m.Const(kInf), ScaleBy(m, y.hi, k)), m.Select(overflow, m.Const(0.0), ScaleBy(m, y.lo, k))};
}

// e^x - 1 as a double-double for |x| ≤ 40 (k ≤ 58).
template <class M, class F = typename M::F>
DD<M> Expm1DD(M& m, F x) {
  ExpParts<M> e = ExpReduce(m, x, m.Const(0.0));
  F scale = Pow2(m, e.k.i);
  const typename M::B wide = m.Int(53) < e.k.i;
  return SumExpParts(m, e, m.Select(wide, scale, scale - 1.0), scale, m.Select(wide, m.Const(-1.0), m.Const(0.0)));
}

// -1 below -40, exp(x) above 40 (the -1 below half an ulp).
template <class M, class F = typename M::F>
F Expm1(M& m, F x) {
  const typename M::B moderate = m.Abs(x) <= 40.0;
  F res = Expm1DD(m, m.Select(moderate, x, m.Const(0.0))).hi;
  res = m.Select(moderate, res, m.Select(x < 0.0, m.Const(-1.0), ExpDD(m, x, m.Const(0.0))));
  res = m.Select(x == 0.0, x, res);  // keeps -0
  return m.Select(x != x, x, res);
}

// sinh |x| = e^|x|/2 - 1/(4 (e^|x|/2)) with e^|x|/2 a double-double; below 1, where that
// cancels, the Taylor series x + x³/3! + ... + x^19/19! (truncation below 2^-56 of x).
template <class M, class F = typename M::F>
F Sinh(M& m, F x) {
  F ax = m.Abs(x);
  const typename M::B below_one = ax < 1.0;
  DD<M> h = HalfExp(m, m.Select(below_one, m.Const(1.0), ax));
  F c = 0.25 / h.hi;
  DD<M> d = TwoSum(m, h.hi, -c);
  F large = d.hi + (d.lo + h.lo);
  double inv[20] = {1.0};
  for (int n = 1; n < 20; ++n) inv[n] = inv[n - 1] / n;
  F z = ax * ax;
  F z2 = z * z;
  auto pair = [&](int n) { return m.Fma(m.Const(inv[n + 2]), z, m.Const(inv[n])); };
  F z4 = z2 * z2;
  F p = m.Fma(z4 * z4, m.Const(inv[19]), m.Fma(z4, m.Fma(z2, pair(15), pair(11)), m.Fma(z2, pair(7), pair(3))));
  F small = m.Fma(ax * z, p, ax);
  F res = m.Select(below_one, small, m.Select(h.hi == kInf, h.hi, large));
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(x != x, x, res);
}

// cosh |x| = e^|x|/2 + 1/(4 (e^|x|/2)); below ln 2 / 2 fdlibm's 1 + t²/(2 (1 + t)), t = expm1 |x|.
template <class M, class F = typename M::F>
F Cosh(M& m, F x) {
  F ax = m.Abs(x);
  const typename M::B small = ax < 0.5 * kLn2Hi;
  F t = Expm1DD(m, m.Select(small, ax, m.Const(0.0))).hi;
  F w = 1.0 + t;
  DD<M> h = HalfExp(m, m.Select(small, m.Const(1.0), ax));
  F c = 0.25 / h.hi;
  DD<M> d = TwoSum(m, h.hi, c);
  F res = m.Select(small, 1.0 + (t * t) / (w + w), m.Select(h.hi == kInf, h.hi, d.hi + (d.lo + h.lo)));
  return m.Select(x != x, x, res);
}

// tanh |x| = t / (t + 2) with t = e^(2|x|) - 1 a double-double and the quotient corrected once;
// 1 from 22 on, where it rounds to 1.
template <class M, class F = typename M::F>
F Tanh(M& m, F x) {
  F ax = m.Abs(x);
  DD<M> t = Expm1DD(m, 2.0 * m.Select(ax < 22.0, ax, m.Const(22.0)));
  DD<M> d = TwoSum(m, m.Const(2.0), t.hi);
  d = FastTwoSum(m, d.hi, d.lo + t.lo);
  F q = t.hi / d.hi;
  F res = q + (m.Fma(-q, d.hi, t.hi) + (t.lo - q * d.lo)) / d.hi;
  res = m.Select(ax < 22.0, res, m.Const(1.0));
  res = m.Select(ax < 0x1p-30, ax, res);
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(x != x, x, res);
}

template <class M, class F = typename M::F>
F Exp(M& m, F x) {
  return ExpDD(m, x, m.Const(0.0));
}

// x > 0 finite as 2^k m with m in [√2/2, √2) (subnormals scaled first); f = m - 1 exactly.
template <class M>
struct Reduced {
  typename M::F k, f;
};
template <class M, class F = typename M::F>
Reduced<M> ReduceLog(M& m, F x) {
  const typename M::B sub = x < 0x1p-1022;
  F xs = m.Select(sub, x * 0x1p54, x);
  typename M::I u = m.Bits(xs) + m.Int(0x3ff0000000000000 - 0x3fe6a09e667f3bcd);
  F k = m.ToF((u >> 52) - m.Int(1023)) - m.Select(sub, m.Const(54.0), m.Const(0.0));
  F mm = m.FromBits((u & m.Int(0x000fffffffffffff)) + m.Int(0x3fe6a09e667f3bcd));
  return {k, mm - 1.0};
}

// The value of ln at ±0, +inf, NaN and negative x (where `ok` = 0 < x < inf is false).
template <class M, class F = typename M::F>
F LogSpecial(M& m, F x) {
  return m.Select(x == 0.0, m.Const(-kInf), m.Select(x == kInf, x, m.Const(std::nan(""))));
}

// fdlibm's k_log1p (Sun, 1993): ln(1 + f) = f - hfsq + tail, s = f / (2 + f), the minimax
// polynomial R(s²) of ln(1+f) = 2s + s R; error below 2^-58.45.
template <class M>
struct LogKernel {
  typename M::F k, f, hfsq, tail;
};
template <class M, class F = typename M::F>
LogKernel<M> LogOfReduced(M& m, F x) {
  constexpr double kLg1 = FromHex(0x3FE5555555555593), kLg2 = FromHex(0x3FD999999997FA04),
                   kLg3 = FromHex(0x3FD2492494229359), kLg4 = FromHex(0x3FCC71C51D8E78AF),
                   kLg5 = FromHex(0x3FC7466496CB03DE), kLg6 = FromHex(0x3FC39A09D078C69F),
                   kLg7 = FromHex(0x3FC2F112DF3E5244);
  Reduced<M> r = ReduceLog(m, x);
  F f = r.f;
  F hfsq = 0.5 * f * f;
  F s = f / (2.0 + f);
  F z = s * s;
  F w = z * z;
  F t1 = w * m.Fma(w, m.Fma(w, m.Const(kLg6), m.Const(kLg4)), m.Const(kLg2));
  F t2 = z * m.Fma(w, m.Fma(w, m.Fma(w, m.Const(kLg7), m.Const(kLg5)), m.Const(kLg3)), m.Const(kLg1));
  return {r.k, f, hfsq, s * (hfsq + (t2 + t1))};
}

// f - hfsq + tail split as hi + lo, hi with 21 significant bits (fdlibm's log2/log10), so that
// products of hi with the 32-bit high halves of constants are exact.
template <class M, class F = typename M::F>
DD<M> SplitLog(M& m, const LogKernel<M>& l) {
  F hi = m.FromBits(m.Bits(l.f - l.hfsq) & m.Int(static_cast<int64_t>(0xffffffff00000000ull)));
  return {hi, ((l.f - hi) - l.hfsq) + l.tail};
}

// fdlibm's e_log.c, < 1 ulp.
template <class M, class F = typename M::F>
F Ln(M& m, F x) {
  LogKernel<M> l = LogOfReduced(m, x);
  F res = l.k * kLn2Hi - ((l.hfsq - (l.tail + l.k * kLn2Lo)) - l.f);
  return m.Select((x > 0.0) & (x < kInf), res, LogSpecial(m, x));
}

// fdlibm's e_log2.c (FreeBSD's, with the extra-precise f - hfsq); exact at powers of two.
template <class M, class F = typename M::F>
F Log2(M& m, F x) {
  constexpr double kIvLn2Hi = FromHex(0x3ff7154765200000), kIvLn2Lo = FromHex(0x3de705fc2eefa200);
  LogKernel<M> l = LogOfReduced(m, x);
  DD<M> v = SplitLog(m, l);
  F val_hi = v.hi * kIvLn2Hi;
  F val_lo = (v.lo + v.hi) * kIvLn2Lo + v.lo * kIvLn2Hi;
  F w = l.k + val_hi;
  val_lo = val_lo + ((l.k - w) + val_hi);
  return m.Select((x > 0.0) & (x < kInf), val_lo + w, LogSpecial(m, x));
}

// fdlibm's e_log10.c (FreeBSD's).
template <class M, class F = typename M::F>
F Log10(M& m, F x) {
  constexpr double kIvLn10Hi = FromHex(0x3fdbcb7b15200000), kIvLn10Lo = FromHex(0x3dbb9438ca9aadd5),
                   kLog10_2Hi = FromHex(0x3FD34413509F6000), kLog10_2Lo = FromHex(0x3D59FEF311F12B36);
  LogKernel<M> l = LogOfReduced(m, x);
  DD<M> v = SplitLog(m, l);
  F val_hi = v.hi * kIvLn10Hi;
  F y2 = l.k * kLog10_2Hi;
  F val_lo = l.k * kLog10_2Lo + (v.lo + v.hi) * kIvLn10Lo + v.lo * kIvLn10Hi;
  F w = y2 + val_hi;
  val_lo = val_lo + ((y2 - w) + val_hi);
  return m.Select((x > 0.0) & (x < kInf), val_lo + w, LogSpecial(m, x));
}

// ln(1 + x): 1 + x = u + e exactly, ln(u + e) = ln(u) + e / u to well below an ulp.
template <class M, class F = typename M::F>
F Log1p(M& m, F x) {
  DD<M> u = TwoSum(m, m.Const(1.0), x);
  LogKernel<M> l = LogOfReduced(m, u.hi);
  F res = l.k * kLn2Hi - ((l.hfsq - ((l.tail + u.lo / u.hi) + l.k * kLn2Lo)) - l.f);
  res = m.Select((u.hi > 0.0) & (u.hi < kInf), res, LogSpecial(m, u.hi));
  return m.Select(x == 0.0, x, res);  // keeps −0
}

// ln(x) for x > 0 finite as a double-double accurate to about 2^-66 relative, what power needs
// (|y ln x| up to 745 multiplies the error of ln x): ln(m) = 2 atanh(s), s = f / (2 + f)
// carried as a double-double, |s| ≤ 0.1716, the series 2s + 2s³/3 + ... summed to s^25
// (relative truncation below 2^-63.5) with its s³ term in double-double. (−inf, 0) at ±0,
// (+inf, 0) at +inf, NaN below zero.
template <class M, class F = typename M::F>
DD<M> LogDD(M& m, F x) {
  Reduced<M> r = ReduceLog(m, x);
  F f = r.f;
  // s = f / (2 + f): d = 2 + f + dl exactly, then one correction step of the quotient.
  F d = 2.0 + f;
  F dl = f - (d - 2.0);
  F sh = f / d;
  F sl = (m.Fma(-sh, d, f) - sh * dl) * ((1.0 - sh) * 0.5);  // 1 / (2 + f) = (1 - s) / 2
  F z = sh * sh;
  F ze = m.Fma(sh, sh, -z);
  F s3 = z * sh;
  F s3e = m.Fma(z, sh, -s3) + ze * sh + 3.0 * z * sl;  // s³ - s3, to first order in sl
  constexpr double kTwoThirdsHi = FromHex(0x3FE5555555555555);  // 2/3 = hi + lo
  constexpr double kTwoThirdsLo = FromHex(0x3C85555555555555);
  F p = s3 * kTwoThirdsHi;
  F pe = m.Fma(s3, m.Const(kTwoThirdsHi), -p) + s3e * kTwoThirdsHi + s3 * kTwoThirdsLo;
  // 2/5 s^5 + 2/7 s^7 + ... + 2/25 s^25 = s³ z Q(z), Q by Estrin's scheme.
  auto c = [&](int n) { return m.Const(2.0 / n); };
  F z2 = z * z;
  F z4 = z2 * z2;
  F q0 = m.Fma(m.Fma(c(11), z, c(9)), z2, m.Fma(c(7), z, c(5)));
  F q1 = m.Fma(m.Fma(c(19), z, c(17)), z2, m.Fma(c(15), z, c(13)));
  F q2 = m.Fma(c(25), z2, m.Fma(c(23), z, c(21)));
  F q = m.Fma(q2, z4 * z4, m.Fma(q1, z4, q0));
  F rest = s3 * z * q;
  DD<M> a = TwoSum(m, 2.0 * sh, p);
  DD<M> lnm = FastTwoSum(m, a.hi, a.lo + (2.0 * sl + pe + rest));
  DD<M> b = TwoSum(m, r.k * kLn2Hi, lnm.hi);
  DD<M> res = FastTwoSum(m, b.hi, b.lo + lnm.lo + r.k * kLn2Lo);
  const typename M::B ok = (x > 0.0) & (x < kInf);
  return {m.Select(ok, res.hi, LogSpecial(m, x)), m.Select(ok, res.lo, m.Const(0.0))};
}

// x^y (C99 Annex F's special cases): |x|^y = exp(y ln|x|) with y ln|x| a double-double, the
// sign from an odd integer y.
template <class M, class F = typename M::F>
F Pow(M& m, F x, F y) {
  using B = typename M::B;
  F ax = m.Abs(x);
  DD<M> l = LogDD(m, ax);
  F ph = y * l.hi;
  F pl = m.Fma(y, l.hi, -ph) + y * l.lo;
  F mag = ExpDD(m, ph, pl);
  const B y_int = m.Trunc(y) == y;  // ±inf counts as an even integer
  F half = y * 0.5;
  const B y_odd = y_int & (m.Trunc(half) != half);
  const B x_neg = m.Bits(x) < m.Int(0);  // the sign bit: −0 too
  F res = m.Select(x_neg & y_odd, -mag, mag);
  // A negative finite base to a non-integer power.
  res = m.Select((x < 0.0) & (x > -kInf) & !y_int, m.Const(std::nan("")), res);
  // (±1)^±inf = 1; 1^y = 1 and x^±0 = 1 even for NaN.
  res = m.Select((ax == 1.0) & (m.Abs(y) == kInf), m.Const(1.0), res);
  res = m.Select((x == 1.0) | (y == 0.0), m.Const(1.0), res);
  // The exponents with a correctly rounded form, which C99's special cases agree with: x² as
  // x·x, x^-1 as 1/x, x^0.5 as sqrt(x) (but +0 at -0 and +inf at -inf), x^1 as x. With a
  // constant y (a literal: the kernel is specialized on it) LLVM folds these selects and drops
  // the general computation: power(x, 2) costs one multiply.
  F root = m.Select(x == -kInf, m.Const(kInf), m.Sqrt(x) + 0.0);  // + 0.0: -0 becomes +0
  res = m.Select(y == 0.5, root, res);
  res = m.Select(y == -1.0, 1.0 / x, res);
  res = m.Select(y == 2.0, x * x, res);
  return m.Select(y == 1.0, x, res);
}

// x = n π/2 + y0 + y1 for x ≥ 0 (NaN and inf give garbage, replaced by the callers), with
// |y0 + y1| ≤ about π/4 and y1 below half an ulp of y0; n mod 4.
template <class M>
struct Quadrant {
  typename M::I n;
  typename M::F y0, y1;
};

// fdlibm's e_rem_pio2.c medium case for x < 2^20 π/2, its conditional second and third steps
// (taken when the first cancelled more than 16 / 49 bits) computed always and chosen by selects.
template <class M, class F = typename M::F>
Quadrant<M> ReduceMedium(M& m, F x) {
  using I = typename M::I;
  constexpr double kInvPio2 = FromHex(0x3FE45F306DC9C883);
  constexpr double kP1 = FromHex(0x3FF921FB54400000), kP1t = FromHex(0x3DD0B4611A626331);
  constexpr double kP2 = FromHex(0x3DD0B4611A600000), kP2t = FromHex(0x3BA3198A2E037073);
  constexpr double kP3 = FromHex(0x3BA3198A2E000000), kP3t = FromHex(0x397B839A252049C1);
  auto exponent = [&](F v) { return (m.Bits(v) >> 52) & m.Int(0x7ff); };
  Rounded<M> fn = RoundToInt(m, x * kInvPio2);
  F r1 = x - fn.f * kP1;  // exact: fn < 2^20 and kP1 has 33 bits
  F w1 = fn.f * kP1t;
  F y_1 = r1 - w1;
  auto step = [&](F t, double p, double pt, F& w) {
    F pw = fn.f * p;
    F r = t - pw;
    w = fn.f * pt - ((t - r) - pw);
    return r;
  };
  F w2 = m.Const(0.0), w3 = m.Const(0.0);
  F r2 = step(r1, kP2, kP2t, w2);
  F y_2 = r2 - w2;
  F r3 = step(r2, kP3, kP3t, w3);
  F y_3 = r3 - w3;
  const I ex = exponent(x);
  const typename M::B second = (ex - exponent(y_1)) > m.Int(16);
  const typename M::B third = second & ((ex - exponent(y_2)) > m.Int(49));
  F r = m.Select(third, r3, m.Select(second, r2, r1));
  F w = m.Select(third, w3, m.Select(second, w2, w1));
  F y0 = m.Select(third, y_3, m.Select(second, y_2, y_1));
  return {fn.i & m.Int(3), y0, (r - y0) - w};
}

// Payne–Hanek for x ≥ 2^20 π/2: x = M 2^(e-52) with M a 53-bit integer, so x 2/π ≡ M K_e
// (mod 4) with K_e = (2^(e-52) 2/π) mod 4 from the table (four pieces k0..k3). Each M k_i is
// split exactly by fma; M k0's rounded part is reduced mod 4 exactly, the rest summed with
// error-free additions to about 2^-150, then the fraction times π/2 as a double-double.
template <class M, class F = typename M::F>
Quadrant<M> ReduceLarge(M& m, F x) {
  using I = typename M::I;
  I e = ((m.Bits(x) >> 52) & m.Int(0x7ff)) - m.Int(1023);
  e = m.Select(e < m.Int(kTwoOverPiMinExponent), m.Int(kTwoOverPiMinExponent), e);
  e = m.Select(e > m.Int(1023), m.Int(1023), e);  // inf and NaN: any row of the table
  F mant = x * Pow2(m, m.Int(52) - e);          // exact: only the exponent changes
  I row = (e - m.Int(kTwoOverPiMinExponent)) << 2;
  F k0 = m.TableLoad(row), k1 = m.TableLoad(row + m.Int(1)), k2 = m.TableLoad(row + m.Int(2)),
    k3 = m.TableLoad(row + m.Int(3));
  F p0 = mant * k0, e0 = m.Fma(mant, k0, -p0);
  F p1 = mant * k1, e1 = m.Fma(mant, k1, -p1);
  F p2 = mant * k2, e2 = m.Fma(mant, k2, -p2);
  F p3 = mant * k3;
  F c0 = p0 - 4.0 * m.Trunc(p0 * 0.25);  // p0 mod 4, exactly (p0 ≥ 0)
  DD<M> t = TwoSum(m, c0, e0);
  DD<M> u = TwoSum(m, t.hi, p1);
  Rounded<M> q = RoundToInt(m, u.hi);
  F f = u.hi - q.f;  // exact
  DD<M> a = TwoSum(m, p2, e1);
  DD<M> b = TwoSum(m, a.hi, t.lo);
  DD<M> c = TwoSum(m, b.hi, u.lo);
  F rest = a.lo + b.lo + c.lo + e2 + p3;
  DD<M> h = TwoSum(m, f, c.hi);
  DD<M> frac = TwoSum(m, h.hi, h.lo + rest);
  constexpr double kPio2Hi = FromHex(0x3FF921FB54442D18), kPio2Lo = FromHex(0x3C91A62633145C07);
  F rh = frac.hi * kPio2Hi;
  F rl = m.Fma(frac.hi, m.Const(kPio2Hi), -rh) + (frac.hi * kPio2Lo + frac.lo * kPio2Hi);
  F y0 = rh + rl;
  return {q.i & m.Int(3), y0, (rh - y0) + rl};
}

inline constexpr double kMediumLimit = 1647099.0;  // ReduceMedium's arguments: below 2^20 π/2 = 1647099.36

template <class M, class F = typename M::F>
Quadrant<M> ReducePio2(M& m, F ax) {
  // Each path gets a harmless argument in the other's rows (no subnormal products: x86 takes
  // a microcode assist for each).
  const typename M::B large = ax > kMediumLimit;
  Quadrant<M> med = ReduceMedium(m, m.Select(large, m.Const(0.0), ax));
  Quadrant<M> big = ReduceLarge(m, m.Select(large, ax, m.Const(0x1p21)));
  return {m.Select(large, big.n, med.n), m.Select(large, big.y0, med.y0), m.Select(large, big.y1, med.y1)};
}

// fdlibm's k_sin.c and k_cos.c (musl's forms) on [-π/4, π/4], x + y the argument.
template <class M, class F = typename M::F>
F KernelSin(M& m, F x, F y) {
  constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                   kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                   kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
  F z = x * x;
  F v = z * x;
  F r = m.Fma(z, m.Fma(z, m.Fma(z, m.Fma(z, m.Const(kS6), m.Const(kS5)), m.Const(kS4)), m.Const(kS3)), m.Const(kS2));
  return x - ((z * (0.5 * y - v * r) - y) - v * kS1);
}
template <class M, class F = typename M::F>
F KernelCos(M& m, F x, F y) {
  constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                   kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                   kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
  F z = x * x;
  F w = z * z;
  F r = z * m.Fma(z, m.Fma(z, m.Const(kC3), m.Const(kC2)), m.Const(kC1)) +
        w * w * m.Fma(z, m.Fma(z, m.Const(kC6), m.Const(kC5)), m.Const(kC4));
  F hz = 0.5 * z;
  F one_hz = 1.0 - hz;
  return one_hz + (((1.0 - one_hz) - hz) + (z * r - x * y));
}

// sin, cos and tan of |x| by quadrant, both kernels computed for every row; the sign of x
// applied after (sin and tan are odd, so sin(-0.0) is -0.0). NaN at ±inf and NaN.
template <class M>
struct SinCos {
  typename M::F sin, cos;
};
// `large_args` false: fdlibm's medium reduction alone, right for |x| below 2^20 π/2 (and the
// same bits there as with the table) — a dense row loop's fast pass, whose blocks with a larger
// argument are rerun with it (jit/codegen/lower/math.cc).
template <class M, class F = typename M::F>
SinCos<M> SinCosOfAbs(M& m, F x, bool large_args) {
  F ax = m.Abs(x);
  Quadrant<M> q = large_args ? ReducePio2(m, ax) : ReduceMedium(m, m.Select(ax > kMediumLimit, m.Const(0.0), ax));
  F s = KernelSin(m, q.y0, q.y1);
  F c = KernelCos(m, q.y0, q.y1);
  const typename M::B odd = (q.n & m.Int(1)) == m.Int(1);
  const typename M::B upper = (q.n & m.Int(2)) == m.Int(2);  // quadrants 2 and 3
  F sin = m.Select(odd, c, s);
  F cos = m.Select(odd, -s, c);
  return {m.Select(upper, -sin, sin), m.Select(upper, -cos, cos)};
}
template <class M, class F = typename M::F>
F SinOf(M& m, F x, bool large_args) {
  SinCos<M> r = SinCosOfAbs(m, x, large_args);
  F res = m.Select(m.Bits(x) < m.Int(0), -r.sin, r.sin);
  return m.Select(m.Abs(x) < kInf, res, m.Const(std::nan("")));
}
template <class M, class F = typename M::F>
F Sin(M& m, F x) {
  return SinOf(m, x, true);
}
template <class M, class F = typename M::F>
F CosOf(M& m, F x, bool large_args) {
  SinCos<M> r = SinCosOfAbs(m, x, large_args);
  return m.Select(m.Abs(x) < kInf, r.cos, m.Const(std::nan("")));
}
template <class M, class F = typename M::F>
F Cos(M& m, F x) {
  return CosOf(m, x, true);
}
// fdlibm's k_tan.c (musl's form) on [-π/4, π/4], x + y the argument, `odd` for -1/tan: above
// 0.6744 the argument is taken from π/4, and the odd quadrants' -1/(x + r) computed in two
// parts; every case computed and chosen by selects.
template <class M, class F = typename M::F>
F KernelTan(M& m, F x, F y, typename M::B odd) {
  constexpr double kT[] = {3.33333333333334091986e-01,  1.33333333333201242699e-01, 5.39682539762260521377e-02,
                           2.18694882948595424599e-02,  8.86323982359930005737e-03, 3.59207910759131235356e-03,
                           1.45620945432529025516e-03,  5.88041240820264096874e-04, 2.46463134818469906812e-04,
                           7.81794442939557092300e-05,  7.14072491382608190305e-05, -1.85586374855275456654e-05,
                           2.59073051863633712884e-05};
  constexpr double kPio4 = FromHex(0x3FE921FB54442D18), kPio4Lo = FromHex(0x3C81A62633145C07);
  auto c = [&](int i) { return m.Const(kT[i]); };
  auto high_word = [&](F v) { return m.FromBits(m.Bits(v) & m.Int(static_cast<int64_t>(0xffffffff00000000ull))); };
  const typename M::B big = m.Abs(x) >= FromHex(0x3FE5942800000000);  // 0.6744
  const typename M::B negative = x < 0.0;
  F ax = m.Select(negative, -x, x), ay = m.Select(negative, -y, y);
  x = m.Select(big, (kPio4 - ax) + (kPio4Lo - ay), x);
  y = m.Select(big, m.Const(0.0), y);
  F z = x * x;
  F w = z * z;
  F r = m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, c(11), c(9)), c(7)), c(5)), c(3)), c(1));
  F v = z * m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, c(12), c(10)), c(8)), c(6)), c(4)), c(2));
  F s = z * x;
  r = y + z * (s * (r + v) + y) + s * kT[0];
  w = x + r;
  // Above 0.6744.
  F sign = m.Select(odd, m.Const(-1.0), m.Const(1.0));
  F vb = sign - 2.0 * (x + (r - w * w / (w + sign)));
  F big_result = m.Select(negative, -vb, vb);
  // -1 / (x + r) accurately: w0 + v = x + r with w0 short, a0 short.
  F w0 = high_word(w);
  F v_odd = r - (w0 - x);
  F a = -1.0 / w;
  F a0 = high_word(a);
  F odd_result = a0 + a * (1.0 + a0 * w0 + a0 * v_odd);
  return m.Select(big, big_result, m.Select(odd, odd_result, w));
}

template <class M, class F = typename M::F>
F TanOf(M& m, F x, bool large_args) {
  F ax = m.Abs(x);
  Quadrant<M> q = large_args ? ReducePio2(m, ax) : ReduceMedium(m, m.Select(ax > kMediumLimit, m.Const(0.0), ax));
  F res = KernelTan(m, q.y0, q.y1, (q.n & m.Int(1)) == m.Int(1));
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(m.Abs(x) < kInf, res, m.Const(std::nan("")));
}
template <class M, class F = typename M::F>
F Tan(M& m, F x) {
  return TanOf(m, x, true);
}

// fdlibm's s_atan.c: |x| reduced to t by one of five forms (chosen by selects, one division),
// atan(t) by its odd polynomial, plus atan(0.5), atan(1), atan(1.5) or atan(inf) in two parts.
template <class M, class F = typename M::F>
F Atan(M& m, F x) {
  constexpr double kAtanHi[] = {4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
                                1.57079632679489655800e+00};
  constexpr double kAtanLo[] = {2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
                                6.12323399573676603587e-17};
  constexpr double kAT[] = {3.33333333333329318027e-01,  -1.99999999998764832476e-01, 1.42857142725034663711e-01,
                            -1.11111104054623557880e-01, 9.09088713343650656196e-02,  -7.69187620504482999495e-02,
                            6.66107313738753120669e-02,  -5.83357013379057348645e-02, 4.97687799461593236017e-02,
                            -3.65315727442169155270e-02, 1.62858201153657823623e-02};
  using B = typename M::B;
  F ax = m.Abs(x);
  const B id_none = ax < 0.4375, id0 = ax < 0.6875, id1 = ax < 1.1875, id2 = ax < 2.4375;
  auto pick = [&](F none, F v0, F v1, F v2, F v3) {
    return m.Select(id_none, none, m.Select(id0, v0, m.Select(id1, v1, m.Select(id2, v2, v3))));
  };
  F one = m.Const(1.0);
  F num = pick(ax, 2.0 * ax - 1.0, ax - 1.0, ax - 1.5, m.Const(-1.0));
  F den = pick(one, 2.0 + ax, ax + 1.0, 1.0 + 1.5 * ax, ax);
  F t = num / den;
  F z = t * t;
  F w = z * z;
  auto c = [&](int i) { return m.Const(kAT[i]); };
  F s1 = z * m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, c(10), c(8)), c(6)), c(4)), c(2)), c(0));
  F s2 = w * m.Fma(w, m.Fma(w, m.Fma(w, m.Fma(w, c(9), c(7)), c(5)), c(3)), c(1));
  auto k = [&](const double* table) {
    return pick(m.Const(0.0), m.Const(table[0]), m.Const(table[1]), m.Const(table[2]), m.Const(table[3]));
  };
  F res = m.Select(id_none, t - t * (s1 + s2), k(kAtanHi) - ((t * (s1 + s2) - k(kAtanLo)) - t));
  return m.Select(m.Bits(x) < m.Int(0), -res, res);
}

// fdlibm's e_atan2.c: atan |y/x| placed in its quadrant, with C99's special cases by selects;
// the quotient's rounding error corrected to first order. Below 1.25 ulp (π - atan|y/x| rounds
// twice more than atan).
template <class M, class F = typename M::F>
F Atan2(M& m, F y, F x) {
  using B = typename M::B;
  constexpr double kPi = FromHex(0x400921FB54442D18), kPiLo = FromHex(0x3CA1A62633145C07);  // π = hi + lo
  const B y_neg = m.Bits(y) < m.Int(0), x_neg = m.Bits(x) < m.Int(0);
  auto signed_y = [&](double v) { return m.Select(y_neg, m.Const(-v), m.Const(v)); };
  // atan(q + e) = atan(q) + e / (1 + q²) to first order, where q + e = |y/x| exactly.
  F ax = m.Abs(x), ay = m.Abs(y);
  F q = ay / ax;
  F e = m.Fma(-q, ax, ay) / ax;
  F z = Atan(m, q) + m.Select(q < kInf, e / m.Fma(q, q, m.Const(1.0)), m.Const(0.0));
  F res = m.Select(x_neg, m.Select(y_neg, (z - kPiLo) - kPi, kPi - (z - kPiLo)), m.Select(y_neg, -z, z));
  const B y_inf = m.Abs(y) == kInf, x_inf = m.Abs(x) == kInf;
  res = m.Select(y_inf, signed_y(kPi / 2), res);
  F quarter = m.Select(x_neg, m.Const(3 * kPi / 4), m.Const(kPi / 4));
  res = m.Select(x_inf, m.Select(y_inf, m.Select(y_neg, -quarter, quarter), m.Select(x_neg, signed_y(kPi), signed_y(0.0))),
                 res);
  res = m.Select(x == 0.0, signed_y(kPi / 2), res);
  res = m.Select(y == 0.0, m.Select(x_neg, signed_y(kPi), y), res);
  return m.Select((x != x) | (y != y), x + y, res);
}

// fdlibm's rational approximation of (asin(x) - x) / x³ on [0, 0.5] as a function of z = x²
// (e_asin.c's R, |error| < 2^-58.75).
template <class M, class F = typename M::F>
F AsinR(M& m, F z) {
  constexpr double kP[] = {1.66666666666666657415e-01, -3.25565818622400915405e-01, 2.01212532134862925881e-01,
                           -4.00555345006794114027e-02, 7.91534994289814532176e-04, 3.47933107596021167570e-05};
  constexpr double kQ[] = {-2.40339491173441421878e+00, 2.02094576023350569471e+00, -6.88283971605453293030e-01,
                           7.70381505559019352791e-02};
  auto p = [&](int i) { return m.Const(kP[i]); };
  auto q = [&](int i) { return m.Const(kQ[i]); };
  F num = z * m.Fma(z, m.Fma(z, m.Fma(z, m.Fma(z, m.Fma(z, p(5), p(4)), p(3)), p(2)), p(1)), p(0));
  F den = m.Fma(z, m.Fma(z, m.Fma(z, m.Fma(z, q(3), q(2)), q(1)), q(0)), m.Const(1.0));
  return num / den;
}

template <class M>
struct AsinParts {
  typename M::F ax, z, s, r;  // |x|, the argument of R, sqrt(z) (above 0.5), R(z)
};
template <class M, class F = typename M::F>
AsinParts<M> AsinReduce(M& m, F x) {
  F ax = m.Abs(x);
  F z = m.Select(ax < 0.5, x * x, (1.0 - ax) * 0.5);
  return {ax, z, m.Sqrt(z), AsinR(m, z)};
}

constexpr double kPio2Hi = FromHex(0x3FF921FB54442D18), kPio2Lo = FromHex(0x3C91A62633145C07);

// fdlibm's e_asin.c: below 0.5 x + x R(x²); above, π/2 - 2 asin(sqrt((1 - |x|)/2)) with sqrt's
// value split in two below 0.975.
template <class M, class F = typename M::F>
F Asin(M& m, F x) {
  AsinParts<M> a = AsinReduce(m, x);
  F small = a.ax + a.ax * a.r;
  F near_one = kPio2Hi - (2.0 * (a.s + a.s * a.r) - kPio2Lo);
  F f = m.FromBits(m.Bits(a.s) & m.Int(static_cast<int64_t>(0xffffffff00000000ull)));
  F c = (a.z - f * f) / (a.s + f);
  F middle = 0.5 * kPio2Hi - (2.0 * a.s * a.r - (kPio2Lo - 2.0 * c) - (0.5 * kPio2Hi - 2.0 * f));
  F res = m.Select(a.ax < 0.5, small, m.Select(a.ax >= 0.975, near_one, middle));
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(a.ax <= 1.0, res, m.Const(std::nan("")));  // NaN and |x| > 1: NaN
}

// fdlibm's e_acos.c.
template <class M, class F = typename M::F>
F Acos(M& m, F x) {
  AsinParts<M> a = AsinReduce(m, x);
  F small = kPio2Hi - (x - (kPio2Lo - x * a.r));
  F negative = 2.0 * (kPio2Hi - (a.s + (a.r * a.s - kPio2Lo)));
  F df = m.FromBits(m.Bits(a.s) & m.Int(static_cast<int64_t>(0xffffffff00000000ull)));
  F c = (a.z - df * df) / (a.s + df);
  F positive = 2.0 * (df + (a.r * a.s + c));
  F res = m.Select(a.ax < 0.5, small, m.Select(x < 0.0, negative, positive));
  res = m.Select(x == 1.0, m.Const(0.0), res);
  return m.Select(a.ax <= 1.0, res, m.Const(std::nan("")));
}

// fdlibm's s_asinh.c: ln(2|x|) above 2^28, ln(2|x| + 1/(sqrt(x² + 1) + |x|)) above 2, and
// log1p(|x| + x²/(1 + sqrt(1 + x²))) below (each computed, chosen by selects).
template <class M, class F = typename M::F>
F Asinh(M& m, F x) {
  F ax = m.Abs(x);
  F x2 = ax * ax;
  F huge = Ln(m, ax) + kLn2Hi + kLn2Lo;
  F large = Ln(m, 2.0 * ax + 1.0 / (m.Sqrt(m.Fma(ax, ax, m.Const(1.0))) + ax));
  F small = Log1p(m, ax + x2 / (1.0 + m.Sqrt(1.0 + x2)));
  F res = m.Select(ax > 0x1p28, huge, m.Select(ax > 2.0, large, small));
  res = m.Select(ax < 0x1p-28, ax, res);
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(x != x, x, res);
}

// fdlibm's e_acosh.c: ln(2x) above 2^28, ln(2x - 1/(x + sqrt(x² - 1))) above 2, and
// log1p(t + sqrt(2t + t²)) with t = x - 1 below; NaN below 1.
template <class M, class F = typename M::F>
F Acosh(M& m, F x) {
  F huge = Ln(m, x) + kLn2Hi + kLn2Lo;
  F large = Ln(m, 2.0 * x - 1.0 / (x + m.Sqrt(m.Fma(x, x, m.Const(-1.0)))));
  F t = x - 1.0;
  F small = Log1p(m, t + m.Sqrt(2.0 * t + t * t));
  F res = m.Select(x > 0x1p28, huge, m.Select(x > 2.0, large, small));
  return m.Select(x >= 1.0, res, m.Const(std::nan("")));  // NaN below 1 and for NaN
}

// fdlibm's e_atanh.c: ½ log1p(2x + 2x²/(1 - x)) below 0.5, ½ log1p(2x/(1 - x)) above; ±inf at
// ±1, NaN beyond.
template <class M, class F = typename M::F>
F Atanh(M& m, F x) {
  F ax = m.Abs(x);
  F t = ax + ax;
  F below = 0.5 * Log1p(m, t + t * ax / (1.0 - ax));
  F above = 0.5 * Log1p(m, t / (1.0 - ax));
  F res = m.Select(ax < 0.5, below, above);
  res = m.Select(ax < 0x1p-28, ax, res);
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(ax <= 1.0, res, m.Const(std::nan("")));
}

// The cube root: t = e^(ln|x| / 3) (within a few hundred ulps), then one Newton step
// t - (t³ - |x|)/(3t²) with t³ - |x| from fma in extra precision: within an ulp. Arguments
// beyond 2^±900 are scaled by 2^∓999 / 2^900 first (exact, undone on the result) so t³ neither
// overflows nor underflows; ±0, ±inf and NaN are kept.
template <class M, class F = typename M::F>
F Cbrt(M& m, F x) {
  F ax = m.Abs(x);
  const typename M::B big = ax > 0x1p900, tiny = ax < 0x1p-900;
  F a = m.Select(big, ax * 0x1p-999, m.Select(tiny, ax * 0x1p900, ax));
  F t = ExpDD(m, Ln(m, a) * (1.0 / 3), m.Const(0.0));
  F u = t * t;
  F ue = m.Fma(t, t, -u);
  F residual = m.Fma(u, t, -a) + ue * t;  // t³ - a
  F root = t - residual / (3.0 * u);
  F res = root * m.Select(big, m.Const(0x1p333), m.Select(tiny, m.Const(0x1p-300), m.Const(1.0)));
  res = m.Select((ax == 0.0) | (ax == kInf), ax, res);
  res = m.Select(m.Bits(x) < m.Int(0), -res, res);
  return m.Select(x != x, x, res);
}

// Degrees and radians: x times 180/π (or π/180) as a double-double, rounded once.
template <class M, class F = typename M::F>
F Degrees(M& m, F x) {
  constexpr double kHi = FromHex(0x404CA5DC1A63C1F8), kLo = FromHex(0xBCE1E7AB456405F9);  // 180/π
  F h = x * kHi;
  return m.Select(m.Abs(h) == kInf, h, h + (m.Fma(x, m.Const(kHi), -h) + x * kLo));
}
template <class M, class F = typename M::F>
F Radians(M& m, F x) {
  constexpr double kHi = FromHex(0x3F91DF46A2529D39), kLo = FromHex(0x3C15C1D8BECDD291);  // π/180
  F h = x * kHi;
  return h + (m.Fma(x, m.Const(kHi), -h) + x * kLo);
}

}  // namespace rowjit::ir::math
