// Vector scoring as a C++ programmer writes it over flat vectors, and the memory floor of reading
// them (bench). Compiled with -O3 -march=native (bench/CMakeLists.txt): the hand-written baseline
// the vector kernels are measured against.
#pragma once

#include <cstdint>

namespace rowjit::bench::vectors {

// out[r] = sqrt(sum_j (v[r * dim + j] - q[j])^2), 16 partial sums a row (what vectorizes without
// -ffast-math).
void L2DistanceLoop(const float* v, const float* q, int64_t rows, int64_t dim, float* out);
// out[r] = dot(v_r, q) / (|v_r| |q|).
void CosineLoop(const float* v, const float* q, int64_t rows, int64_t dim, float* out);
// The floor: every byte read once, summed as 64-bit words (the result keeps the reads).
uint64_t ReadFloor(const void* data, int64_t bytes);

}  // namespace rowjit::bench::vectors
