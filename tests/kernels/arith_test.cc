// Checked/wrapping add, sub, mul and comparisons against scalar references over every type,
// kernel level, operand arm and length, with overflow rows and nulls hiding them (kernels).
#include "kernels/arith.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace rowjit::kernels {
namespace {

using testing::Bits;
using testing::EveryLevel;
using testing::RandomBits;

constexpr int64_t kArithLengths[] = {0, 1, 63, 64, 65, 1000, 3000};  // 3000: several blocks
constexpr ArithOp kOps[] = {ArithOp::kAdd, ArithOp::kSub, ArithOp::kMul};
constexpr CompareOp kCompares[] = {CompareOp::kEq, CompareOp::kNe, CompareOp::kLt,
                                   CompareOp::kLe, CompareOp::kGt, CompareOp::kGe};
enum class Arm { kFlatFlat, kFlatConst, kConstFlat, kConstConst };
constexpr Arm kArms[] = {Arm::kFlatFlat, Arm::kFlatConst, Arm::kConstFlat, Arm::kConstConst};

template <typename T>
T Lim(bool max) {
  return max ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
}

// Full-range values (overflow is common), small ones (it is not), and edge values.
template <typename T>
T Value(std::mt19937_64& rng, bool small) {
  if constexpr (std::is_floating_point_v<T>) {
    const T edges[] = {T(0), T(-0.0), T(1), T(-1), std::numeric_limits<T>::infinity(),
                       -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN(),
                       -std::numeric_limits<T>::quiet_NaN(), Lim<T>(true), Lim<T>(false)};
    if (rng() % 4 == 0) return edges[rng() % std::size(edges)];
    return static_cast<T>(static_cast<int>(rng() % 2001) - 1000) / T(8);
  } else {
    if (!small && rng() % 8 == 0) {
      const T edges[] = {Lim<T>(true), Lim<T>(false), T(0), T(1), static_cast<T>(-1)};
      return edges[rng() % std::size(edges)];
    }
    if (small) {
      // |x| < 2^(bits/2 - 1): products, sums and differences of two fit.
      const uint64_t span = uint64_t{1} << (4 * sizeof(T) - 1);
      const uint64_t v = rng() % span;
      return std::is_signed_v<T> && rng() % 2 ? static_cast<T>(-static_cast<int64_t>(v))
                                              : static_cast<T>(v);
    }
    return static_cast<T>(rng());
  }
}

template <typename T>
bool Fails(ArithOp op, T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return false;
  } else {
    T r{};
    return op == ArithOp::kAdd   ? __builtin_add_overflow(x, y, &r)
           : op == ArithOp::kSub ? __builtin_sub_overflow(x, y, &r)
                                 : __builtin_mul_overflow(x, y, &r);
  }
}

template <typename T>
T Wrapped(ArithOp op, T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return op == ArithOp::kAdd ? x + y : op == ArithOp::kSub ? x - y : x * y;
  } else {
    T r{};
    if (op == ArithOp::kAdd) {
      (void)__builtin_add_overflow(x, y, &r);
    } else if (op == ArithOp::kSub) {
      (void)__builtin_sub_overflow(x, y, &r);
    } else {
      (void)__builtin_mul_overflow(x, y, &r);
    }
    return r;
  }
}

// SQL comparison: NaN equals NaN and is above every number; -0.0 equals 0.0.
template <typename T>
int Cmp(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
  }
  return x < y ? -1 : y < x ? 1 : 0;
}
bool Holds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

template <typename T>
bool Same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

// Two operands for an arm: flat vectors, and the constant each side reads when it is constant.
template <typename T>
struct Inputs {
  std::vector<T> a, b;
  Arm arm;
  Operand<T> A() const {
    return arm == Arm::kConstFlat || arm == Arm::kConstConst ? Operand<T>::Constant(a[0])
                                                              : Operand<T>::Flat(a.data());
  }
  Operand<T> B() const {
    return arm == Arm::kFlatConst || arm == Arm::kConstConst ? Operand<T>::Constant(b[0])
                                                              : Operand<T>::Flat(b.data());
  }
  T x(int64_t i) const { return A().is_constant() ? a[0] : a[i]; }
  T y(int64_t i) const { return B().is_constant() ? b[0] : b[i]; }
};

template <typename T>
Inputs<T> MakeInputs(Arm arm, int64_t length, bool small, std::mt19937_64& rng) {
  Inputs<T> in{std::vector<T>(std::max<int64_t>(length, 1)), std::vector<T>(std::max<int64_t>(length, 1)), arm};
  for (auto& v : in.a) v = Value<T>(rng, small);
  for (auto& v : in.b) v = Value<T>(rng, small);
  return in;
}

std::string Case(KernelLevel level, int op, Arm arm, int64_t length, uint64_t seed) {
  return "level " + std::string(KernelLevelName(level)) + " op " + std::to_string(int(op)) +
         " arm " + std::to_string(int(arm)) + " length " + std::to_string(length) + " seed " +
         std::to_string(seed);
}

// Calls body(op, arm, length, rng, where) for every kernel level x op x arm x length, with a
// fresh generator per case whose seed `where` names.
template <typename Op, size_t kN, typename Body>
void ForEachCase(uint64_t seed, const Op (&ops)[kN], Body body) {
  EveryLevel guard;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    for (Op op : ops) {
      for (Arm arm : kArms) {
        for (int64_t length : kArithLengths) {
          std::mt19937_64 rng(++seed);
          body(op, arm, length, rng, Case(level, static_cast<int>(op), arm, length, seed));
        }
      }
    }
  }
}

// Runs the checked kernel and checks the failing row and every row written before it.
template <typename T>
void CheckChecked(ArithOp op, const Inputs<T>& in, int64_t length, const Bits* validity,
                  const std::string& where) {
  int64_t want = -1;
  for (int64_t i = 0; i < length && want < 0; ++i) {
    if ((validity == nullptr || (*validity)[i]) && Fails(op, in.x(i), in.y(i))) want = i;
  }
  std::vector<T> out(std::max<int64_t>(length, 1));
  const int64_t got = CheckedArith(op, in.A(), in.B(), length, out.data(),
                                   validity ? validity->span() : BitSpan{});
  ASSERT_EQ(got, want) << where;
  const int64_t rows = want < 0 ? length : want;
  for (int64_t i = 0; i < rows; ++i) {
    ASSERT_TRUE(Same(out[i], Wrapped(op, in.x(i), in.y(i)))) << where << " row " << i;
  }
}

template <typename T>
class ArithTest : public ::testing::Test {};
using Types = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                               uint64_t, float, double>;
TYPED_TEST_SUITE(ArithTest, Types);

TYPED_TEST(ArithTest, CheckedMatchesReference) {
  using T = TypeParam;
  ForEachCase(100, kOps, [](ArithOp op, Arm arm, int64_t length, std::mt19937_64& rng,
                             const std::string& where) {
    // Small values: no row fails, every row is compared.
    CheckChecked(op, MakeInputs<T>(arm, length, true, rng), length, nullptr, where + " small");
    // Full range: failures where they fall, with and without nulls (at bit offset 3).
    const Inputs<T> wide = MakeInputs<T>(arm, length, false, rng);
    CheckChecked(op, wide, length, nullptr, where + " wide");
    const Bits valid = RandomBits(3, length, 0.5, rng);
    CheckChecked(op, wide, length, &valid, where + " wide nullable");
  });
}

// One overflowing row planted among small values: found where it is, ignored when it is null.
// Floats never fail (IEEE 754): the same rows give +inf (max + max, max * 2) or stay finite
// (lowest - 1), and no row is reported.
TYPED_TEST(ArithTest, PlantedOverflowRow) {
  using T = TypeParam;
  EveryLevel guard;
  uint64_t seed = 200;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    for (ArithOp op : kOps) {
      for (int64_t length : {1, 64, 65, 1000, 3000}) {
        std::mt19937_64 rng(++seed);
        Inputs<T> in = MakeInputs<T>(Arm::kFlatFlat, length, true, rng);
        const int64_t row = static_cast<int64_t>(rng() % static_cast<uint64_t>(length));
        // max + max, min - 1 (unsigned: 0 - 1), max * 2 all overflow.
        in.a[row] = op == ArithOp::kSub ? Lim<T>(false) : Lim<T>(true);
        in.b[row] = op == ArithOp::kAdd ? Lim<T>(true) : op == ArithOp::kSub ? T(1) : T(2);
        ASSERT_EQ(Fails(op, in.a[row], in.b[row]), std::is_integral_v<T>);  // the reference agrees
        const std::string where = Case(level, static_cast<int>(op), Arm::kFlatFlat, length, seed);
        ASSERT_NO_FATAL_FAILURE(CheckChecked(op, in, length, nullptr, where));
        Bits valid = RandomBits(0, length, 1.0, rng);
        SetBitTo(valid.bytes.data(), row, false);
        ASSERT_NO_FATAL_FAILURE(CheckChecked(op, in, length, &valid, where + " null"));
      }
    }
  }
}

// Wrapping arithmetic is defined for integers only (WrappingArith requires an integral type).
template <typename T>
class WrappingTest : public ::testing::Test {};
using IntegerTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                                      uint32_t, uint64_t>;
TYPED_TEST_SUITE(WrappingTest, IntegerTypes);

TYPED_TEST(WrappingTest, WrappingMatchesReference) {
  using T = TypeParam;
  ForEachCase(300, kOps, [](ArithOp op, Arm arm, int64_t length, std::mt19937_64& rng,
                             const std::string& where) {
    const Inputs<T> in = MakeInputs<T>(arm, length, false, rng);
    std::vector<T> out(std::max<int64_t>(length, 1));
    WrappingArith(op, in.A(), in.B(), length, out.data());
    for (int64_t i = 0; i < length; ++i) {
      ASSERT_EQ(out[i], Wrapped(op, in.x(i), in.y(i))) << where << " row " << i;
    }
  });
}

TYPED_TEST(ArithTest, CompareMatchesReference) {
  using T = TypeParam;
  ForEachCase(400, kCompares, [](CompareOp op, Arm arm, int64_t length,
                                 std::mt19937_64& rng, const std::string& where) {
    Inputs<T> in = MakeInputs<T>(arm, length, false, rng);
    // Equal rows are common enough to test eq/le/ge.
    for (int64_t i = 0; i < length; ++i) {
      if (rng() % 4 == 0) in.b[i] = in.a[i];
    }
    const int64_t bytes = NumBytes(length);
    std::vector<uint8_t> out(static_cast<size_t>(bytes), 0xa5);
    Compare(op, in.A(), in.B(), length, out.data());
    for (int64_t i = 0; i < bytes * 8; ++i) {
      const bool want = i < length && Holds(op, Cmp(in.x(i), in.y(i)));
      ASSERT_EQ(GetBit(out.data(), i), want) << where << " row " << i;
    }
  });
}

// Multiplies whose operands are wider than half the type but whose products fit: 64-bit
// multiplies take such a row as a suspect (an operand past 32 bits) and rescan its block exactly,
// so every row must still come out wrapped-equal and no row may be reported; then one overflowing
// row planted after suspect blocks is found where it is, and ignored when it is null.
template <typename T>
class CheckedMulTest : public ::testing::Test {};
TYPED_TEST_SUITE(CheckedMulTest, IntegerTypes);

TYPED_TEST(CheckedMulTest, WideOperandsWhoseProductsFit) {
  using T = TypeParam;
  constexpr int kBits = 8 * sizeof(T);
  EveryLevel guard;
  uint64_t seed = 300;
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(EveryLevel::Use(level));
    for (int64_t length : {1, 64, 65, 1000, 3000}) {
      for (double wide_share : {0.01, 0.5, 1.0}) {
        std::mt19937_64 rng(++seed);
        const std::string where = Case(level, static_cast<int>(ArithOp::kMul), Arm::kFlatFlat, length, seed) +
                                  " wide share " + std::to_string(wide_share);
        // |a| < 2^(bits - bits/4 - 1), |b| < 2^(bits/4): |a * b| < 2^(bits - 1), which fits.
        auto draw = [&](int magnitude_bits) {
          const uint64_t v = rng() % (uint64_t{1} << magnitude_bits);
          return std::is_signed_v<T> && rng() % 2 ? static_cast<T>(-static_cast<int64_t>(v)) : static_cast<T>(v);
        };
        Inputs<T> in = MakeInputs<T>(Arm::kFlatFlat, length, true, rng);
        for (int64_t i = 0; i < length; ++i) {
          if (std::uniform_real_distribution<>(0, 1)(rng) >= wide_share) continue;
          in.a[i] = draw(kBits - kBits / 4 - 1);
          in.b[i] = draw(kBits / 4);
        }
        for (int64_t i = 0; i < length; ++i) ASSERT_FALSE(Fails(ArithOp::kMul, in.a[i], in.b[i])) << where;
        ASSERT_NO_FATAL_FAILURE(CheckChecked(ArithOp::kMul, in, length, nullptr, where));
        // The last row overflows with the narrowest operands that can: 2^(bits/2) squared. Found
        // after every suspect block, skipped when null.
        in.a[length - 1] = in.b[length - 1] = static_cast<T>(uint64_t{1} << (kBits / 2));
        ASSERT_TRUE(Fails(ArithOp::kMul, in.a[length - 1], in.b[length - 1])) << where;
        ASSERT_NO_FATAL_FAILURE(CheckChecked(ArithOp::kMul, in, length, nullptr, where + " planted"));
        Bits valid = RandomBits(0, length, 1.0, rng);
        SetBitTo(valid.bytes.data(), length - 1, false);
        ASSERT_NO_FATAL_FAILURE(CheckChecked(ArithOp::kMul, in, length, &valid, where + " planted null"));
      }
    }
  }
}

}  // namespace
}  // namespace rowjit::kernels
