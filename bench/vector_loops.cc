// Hand-written vector scoring loops and the read floor (bench): bench/vector_loops.h.
#include "vector_loops.h"

#include <cmath>
#include <cstring>

namespace rowjit::bench::vectors {

void L2DistanceLoop(const float* v, const float* q, int64_t rows, int64_t dim, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = v + r * dim;
    float acc[16] = {};
    int64_t j = 0;
    for (; j + 16 <= dim; j += 16) {
      for (int k = 0; k < 16; ++k) {
        const float d = x[j + k] - q[j + k];
        acc[k] += d * d;
      }
    }
    for (; j < dim; ++j) acc[j % 16] += (x[j] - q[j]) * (x[j] - q[j]);
    float s = 0;
    for (float a : acc) s += a;
    out[r] = std::sqrt(s);
  }
}

void CosineLoop(const float* v, const float* q, int64_t rows, int64_t dim, float* out) {
  float qq = 0;
  for (int64_t j = 0; j < dim; ++j) qq += q[j] * q[j];
  const float qn = std::sqrt(qq);
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = v + r * dim;
    float dot[16] = {}, xx[16] = {};
    int64_t j = 0;
    for (; j + 16 <= dim; j += 16) {
      for (int k = 0; k < 16; ++k) {
        dot[k] += x[j + k] * q[j + k];
        xx[k] += x[j + k] * x[j + k];
      }
    }
    for (; j < dim; ++j) {
      dot[j % 16] += x[j] * q[j];
      xx[j % 16] += x[j] * x[j];
    }
    float d = 0, n = 0;
    for (int k = 0; k < 16; ++k) {
      d += dot[k];
      n += xx[k];
    }
    out[r] = d / (std::sqrt(n) * qn);
  }
}

uint64_t ReadFloor(const void* data, int64_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t acc[8] = {};
  int64_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    for (int k = 0; k < 8; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      acc[k] += w;
    }
  }
  uint64_t s = 0;
  for (uint64_t a : acc) s += a;
  for (; i < bytes; ++i) s += p[i];
  return s;
}

}  // namespace rowjit::bench::vectors
