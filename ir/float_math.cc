// The table of 2/π that the reduction of large trigonometric arguments reads (ir layer).
#include "ir/float_math.h"

#include <array>

namespace rowjit::ir::math {
namespace {

// 2/π in binary after the point, 1,280 bits as hex (0.a2f9836e... ; computed with Python's
// decimal module from Machin's formula, 500 digits): bits up to 1,182 are read.
constexpr char kTwoOverPiHex[] =
    "a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424dd2e0"
    "06492eea09d1921cfe1deb1cb129a73ee88235f52ebb4484e99c7026b45f7e413991d639835339f4"
    "9c845f8bbdf9283b1ff897ffde05980fef2f118b5a0a6d1f6d367ecf27cb09b74f463f669e5fea2d"
    "7527bac7ebe5f17b3d0739f78a5292ea6bfb5fb11f8d5d0856033046fc7b6babf0cfbc209af4361d";

// Bit j (1-based after the binary point) of 2/π.
int Bit(int j) {
  const char c = kTwoOverPiHex[(j - 1) / 4];
  const int digit = c <= '9' ? c - '0' : c - 'a' + 10;
  return (digit >> (3 - (j - 1) % 4)) & 1;
}

}  // namespace

std::span<const double> TwoOverPiTable() {
  static const std::array<double, kTwoOverPiExponents * 4> table = [] {
    std::array<double, kTwoOverPiExponents * 4> t{};
    for (int e = kTwoOverPiMinExponent; e < kTwoOverPiMinExponent + kTwoOverPiExponents; ++e) {
      // K_e = (2^(e-52) 2/π) mod 4 = the sum over bits j ≥ e - 53 of b_j 2^(e-52-j): four
      // pieces of 53 consecutive bits, each a double exactly.
      const int first = std::max(1, e - 53);
      for (int piece = 0; piece < 4; ++piece) {
        uint64_t v = 0;
        const int from = first + 53 * piece;
        for (int j = from; j < from + 53; ++j) v = (v << 1) | static_cast<uint64_t>(Bit(j));
        t[(e - kTwoOverPiMinExponent) * 4 + piece] = std::ldexp(static_cast<double>(v), e - 52 - (from + 52));
      }
    }
    return t;
  }();
  return table;
}

}  // namespace rowjit::ir::math
