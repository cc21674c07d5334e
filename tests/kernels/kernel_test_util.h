// Shared helpers for kernel tests (tests, kernels layer): exactly sized random bitmaps, the
// offsets/lengths/densities every kernel runs over, and a guard that visits every kernel level.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/bitmap.h"
#include "kernels/dispatch.h"

namespace rowjit::kernels::testing {

inline constexpr int64_t kOffsets[] = {0, 1, 3, 63};
inline constexpr int64_t kLengths[] = {0, 1, 31, 32, 33, 63, 64, 65, 1000, 15000};
inline constexpr double kDensities[] = {0, 0.01, 0.5, 0.99, 1};

// A bitmap of `length` bits at bit `offset` holding each bit with probability `density`; the
// vector is exactly NumBytes(offset + length) long so ASan sees any read past it. Bits outside
// the span are random too, so a kernel that reads them gets caught.
struct Bits {
  std::vector<uint8_t> bytes;
  int64_t offset = 0;
  int64_t length = 0;
  BitSpan span() const { return BitSpan{bytes.data(), offset, length}; }
  bool operator[](int64_t i) const { return GetBit(bytes.data(), offset + i); }
};

inline Bits RandomBits(int64_t offset, int64_t length, double density, std::mt19937_64& rng) {
  Bits b;
  b.offset = offset;
  b.length = length;
  b.bytes.resize(static_cast<size_t>(NumBytes(offset + length)));
  for (auto& x : b.bytes) x = static_cast<uint8_t>(rng());
  std::bernoulli_distribution bit(density);
  for (int64_t i = 0; i < length; ++i) SetBitTo(b.bytes.data(), offset + i, bit(rng));
  return b;
}

// Runs the body once per kernel level this CPU has, then restores the best level.
class EveryLevel {
 public:
  ~EveryLevel() { (void)SetKernelLevel(BestKernelLevel()); }
  const std::vector<KernelLevel>& levels() const { return AvailableKernelLevels(); }
  static void Use(KernelLevel level) { ASSERT_TRUE(SetKernelLevel(level)) << KernelLevelName(level); }
};

inline std::string Where(KernelLevel level, uint64_t seed, int64_t offset, int64_t length,
                         double density) {
  return "level " + std::string(KernelLevelName(level)) + " seed " + std::to_string(seed) +
         " offset " + std::to_string(offset) + " length " + std::to_string(length) +
         " density " + std::to_string(density);
}

// Calls body(rng, offset, length, density, where) for every kernel level x offset x length x
// density, with a fresh generator per case whose seed `where` names.
template <typename Body>
void ForEachCase(uint64_t seed, Body body) {
  EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    for (int64_t offset : kOffsets) {
      for (int64_t length : kLengths) {
        for (double density : kDensities) {
          std::mt19937_64 rng(++seed);
          body(rng, offset, length, density, Where(level, seed, offset, length, density));
        }
      }
    }
  }
}

}  // namespace rowjit::kernels::testing
