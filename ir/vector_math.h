// The arithmetic of the vector functions (ir layer): one order of summation, which the reference
// evaluator and the JIT's vector kernels (jit/codegen/codegen_vectors.cc) both follow, so that a
// float result is the same bits on every target and in both.
//
// Element j of a row adds into accumulator j % kVectorAccumulators (all +0.0 to start); then the
// accumulators are added pairwise, acc[i] += acc[i + h] for h = 16, 8, 4, 2, 1. Products and
// differences are rounded in the element type (f32 in f32, f64 in f64) and never fused into an
// add (no FMA): a target without FMA computes the same bits. Integer (i8) sums are exact in i32
// (the functions refuse i8 vectors longer than kMaxI8VectorSize).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rowjit::ir {

inline constexpr int kVectorAccumulators = 32;
// 32-bit sums of 8-bit products are exact up to this many elements: (2 * 128)^2 * 32,768 = 2^31.
inline constexpr int64_t kMaxI8VectorSize = 32768;

enum class VectorScore : uint8_t {
  kDot,               // sum a[j] * b[j]
  kL2Squared,         // sum (a[j] - b[j])^2
  kL2Distance,        // sqrt of l2_squared
  kCosineSimilarity,  // dot / sqrt(sum a^2 * sum b^2), within [-1, 1]; NaN for a zero vector
  kCosineDistance,    // 1 - cosine_similarity
};

// Sum of term(j) for j in [0, n) in the order above; Acc is the element type (float, double) or
// int32_t for i8 elements.
template <typename Acc, typename Term>
Acc StridedSum(int64_t n, Term term) {
  Acc acc[kVectorAccumulators] = {};
  for (int64_t j = 0; j < n; ++j) acc[j % kVectorAccumulators] = static_cast<Acc>(acc[j % kVectorAccumulators] + term(j));
  for (int h = kVectorAccumulators / 2; h >= 1; h /= 2) {
    for (int i = 0; i < h; ++i) acc[i] = static_cast<Acc>(acc[i] + acc[i + h]);
  }
  return acc[0];
}

// The sum a vector function reads, over elements of type T (float, double, int8_t).
template <typename T>
using VectorSum = std::conditional_t<std::is_floating_point_v<T>, T, int32_t>;

template <typename T>
VectorSum<T> DotOf(const T* a, const T* b, int64_t n) {
  using S = VectorSum<T>;
  return StridedSum<S>(n, [&](int64_t j) { return static_cast<S>(static_cast<S>(a[j]) * static_cast<S>(b[j])); });
}

template <typename T>
VectorSum<T> SquaresOf(const T* a, int64_t n) {
  return DotOf(a, a, n);
}

template <typename T>
VectorSum<T> L2SquaredOf(const T* a, const T* b, int64_t n) {
  using S = VectorSum<T>;
  return StridedSum<S>(n, [&](int64_t j) {
    const S d = static_cast<S>(static_cast<S>(a[j]) - static_cast<S>(b[j]));
    return static_cast<S>(d * d);
  });
}

// The float a score of integer sums is computed in: f32.
template <typename T>
using VectorFloat = std::conditional_t<std::is_floating_point_v<T>, T, float>;

// cosine similarity from its three sums, as DuckDB and pgvector compute it, clamped to [-1, 1]
// (NaN stays NaN).
template <typename F>
F CosineOf(F dot, F aa, F bb) {
  F r = dot / std::sqrt(aa * bb);
  if (r > F(1)) r = F(1);
  if (r < F(-1)) r = F(-1);
  return r;
}

}  // namespace rowjit::ir
