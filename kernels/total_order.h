// Total-order keys for floats (kernels layer): the float's bits mapped to a signed integer that
// orders exactly as IEEE 754 totalOrder, so float min/max become integer min/max.
#pragma once

#include <bit>
#include <cstdint>

namespace rowjit::kernels {

// Negative floats order by descending magnitude bits, so their magnitude bits are flipped; the
// sign bit stays, which makes the map its own inverse. -NaN < -inf < ... < -0 < +0 < ... < +inf
// < +NaN, NaNs ordered by payload.
constexpr int64_t TotalOrderKey(double x) {
  const int64_t bits = std::bit_cast<int64_t>(x);
  return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
}
constexpr int32_t TotalOrderKey(float x) {
  const int32_t bits = std::bit_cast<int32_t>(x);
  return bits ^ static_cast<int32_t>(static_cast<uint32_t>(bits >> 31) >> 1);
}
constexpr double FromTotalOrderKey(int64_t key) {
  return std::bit_cast<double>(key ^ static_cast<int64_t>(static_cast<uint64_t>(key >> 63) >> 1));
}
constexpr float FromTotalOrderKey(int32_t key) {
  return std::bit_cast<float>(key ^ static_cast<int32_t>(static_cast<uint32_t>(key >> 31) >> 1));
}

}  // namespace rowjit::kernels
