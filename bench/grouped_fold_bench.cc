// Grouped folds over 1M rows (bench): sum i64, i128, f64 and count into 4, 256 and 65536 slots,
// every row valid or 10% null, the kernel (`static`) beside the hand-written per-row loop an
// engine would otherwise run (`scalar`: one accumulator per group, a branch per null). The
// 64-bit sums (exact and bounded) also at 6 slots and 2% null, the shape of TPC-H Q1's groups,
// where five bounded columns fold with counts in one call (`sum_bounded_5cols`) beside five
// calls (`sum_bounded_5calls`).
// Names: grouped/<fold>_slots<N>_<valid fraction>/<impl>.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/grouped_fold.h"

namespace {

namespace k = rowjit::kernels;

constexpr int64_t kRows = int64_t{1} << 20;

enum class Fold { kSumI64, kSumBounded, kSumBounded5Cols, kSumBounded5Calls, kSumI128, kSumF64, kCount };

constexpr int kColumns = 5;

struct Input {
  std::vector<int64_t> ints;
  std::vector<__int128> wide;  // 16-byte decimals
  std::vector<double> floats;
  std::vector<uint32_t> groups;
  std::vector<int64_t> more;  // kColumns - 1 more columns after `ints` (five-column shapes only)
  std::vector<uint8_t> bits;  // empty: no bitmap
  const int64_t* Column(int c) const { return c == 0 ? ints.data() : more.data() + (c - 1) * kRows; }
  k::BitSpan validity() const {
    return bits.empty() ? k::BitSpan{} : k::BitSpan{bits.data(), 0, kRows};
  }
};

Input MakeInput(int64_t slots, double fraction, bool columns) {
  std::mt19937_64 rng(17);
  Input in;
  for (int64_t i = 0; columns && i < (kColumns - 1) * kRows; ++i) {
    in.more.push_back(static_cast<int64_t>(rng() % 2000001) - 1000000);
  }
  for (int64_t i = 0; i < kRows; ++i) {
    in.ints.push_back(static_cast<int64_t>(rng() % 2000001) - 1000000);
    in.wide.push_back(in.ints.back());
    in.floats.push_back(static_cast<double>(in.ints.back()) / 100);
    in.groups.push_back(static_cast<uint32_t>(rng() % slots));
  }
  if (fraction < 1) {
    std::bernoulli_distribution valid(fraction);
    in.bits.assign(k::NumBytes(kRows), 0);
    for (int64_t i = 0; i < kRows; ++i) k::SetBitTo(in.bits.data(), i, valid(rng));
  }
  return in;
}

// Tables are folded into call after call: their reset would be timed too, and at 65536 slots a
// float sum's lanes (8 MB) cost as much to clear as the fold.
struct Tables {
  std::vector<__int128> sums;
  std::vector<int64_t> int_sums;
  std::vector<int64_t> column_sums;
  std::vector<__int128> wide_sums;
  std::vector<double> lanes;
  std::vector<double> float_sums;
  std::vector<int64_t> counts;
  explicit Tables(int64_t slots)
      : sums(slots), int_sums(slots), column_sums(kColumns * slots), wide_sums(slots), lanes(slots * k::kFloatSumLanes), float_sums(slots),
        counts(slots) {}
};

void RunStatic(Fold fold, const Input& in, int64_t slots, Tables& t) {
  switch (fold) {
    case Fold::kSumI64:
      k::GroupedSum(in.ints.data(), in.groups.data(), kRows, in.validity(), slots, t.sums.data(),
                    nullptr);
      break;
    case Fold::kSumBounded:
      k::GroupedSumBounded(in.ints.data(), in.groups.data(), kRows, in.validity(), slots,
                           t.int_sums.data(), nullptr);
      break;
    case Fold::kSumBounded5Cols: {
      const int64_t* cols[kColumns];
      for (int c = 0; c < kColumns; ++c) cols[c] = in.Column(c);
      k::GroupedSumBoundedMany(cols, kColumns, in.groups.data(), kRows, in.validity(), slots,
                               t.column_sums.data(), t.counts.data());
      break;
    }
    case Fold::kSumBounded5Calls:
      for (int c = 0; c < kColumns; ++c) {
        k::GroupedSumBounded(in.Column(c), in.groups.data(), kRows, in.validity(), slots,
                             t.column_sums.data() + c * slots, c == 0 ? t.counts.data() : nullptr);
      }
      break;
    case Fold::kSumI128:
      k::GroupedSum(in.wide.data(), in.groups.data(), kRows, in.validity(), slots, t.sums.data(),
                    nullptr);
      break;
    case Fold::kSumF64:
      k::GroupedFloatSum(in.floats.data(), in.groups.data(), kRows, in.validity(), 0, slots,
                         t.lanes.data(), nullptr);
      break;
    case Fold::kCount:
      k::GroupedCount(in.groups.data(), kRows, in.validity(), slots, t.counts.data());
      break;
  }
}

template <typename T, typename A>
void ScalarSum(const T* v, const Input& in, A* sums) {
  const uint32_t* g = in.groups.data();
  if (in.bits.empty()) {
    for (int64_t i = 0; i < kRows; ++i) sums[g[i]] += v[i];
    return;
  }
  for (int64_t i = 0; i < kRows; ++i) {
    if (k::GetBit(in.bits.data(), i)) sums[g[i]] += v[i];
  }
}

void RunScalar(Fold fold, const Input& in, Tables& t) {
  switch (fold) {
    case Fold::kSumI64:
    case Fold::kSumBounded:
      ScalarSum(in.ints.data(), in, t.int_sums.data());
      break;
    case Fold::kSumBounded5Cols:
    case Fold::kSumBounded5Calls:
      for (int c = 0; c < kColumns; ++c) ScalarSum(in.Column(c), in, t.column_sums.data() + c * t.sums.size());
      break;
    case Fold::kSumI128:
      ScalarSum(in.wide.data(), in, t.wide_sums.data());
      break;
    case Fold::kSumF64:
      ScalarSum(in.floats.data(), in, t.float_sums.data());
      break;
    case Fold::kCount: {
      const uint32_t* g = in.groups.data();
      for (int64_t i = 0; i < kRows; ++i) {
        t.counts[g[i]] += in.bits.empty() || k::GetBit(in.bits.data(), i);
      }
      break;
    }
  }
}

void Register() {
  const std::pair<Fold, const char*> folds[] = {
      {Fold::kSumI64, "sum_i64"}, {Fold::kSumBounded, "sum_bounded_i64"},
      {Fold::kSumBounded5Cols, "sum_bounded_5cols"}, {Fold::kSumBounded5Calls, "sum_bounded_5calls"}, {Fold::kSumI128, "sum_i128"},
      {Fold::kSumF64, "sum_f64"}, {Fold::kCount, "count"}};
  const std::pair<double, const char*> fractions[] = {{1.0, "_1/"}, {0.98, "_0.98/"}, {0.9, "_0.9/"}};
  for (int64_t slots : {4, 6, 256, 65536}) {
    for (auto [fraction, fraction_name] : fractions) {
      const bool q1_shape = slots == 6 || fraction == 0.98;  // 64-bit sums only
      const bool columns = slots <= 6 && fraction >= 0.98;    // and five-column sums
      auto in = std::make_shared<Input>(MakeInput(slots, fraction, columns));
      for (auto [fold, fold_name] : folds) {
        const bool five = fold == Fold::kSumBounded5Cols || fold == Fold::kSumBounded5Calls;
        if (five && !columns) continue;
        if (q1_shape && fold != Fold::kSumI64 && fold != Fold::kSumBounded && !five) continue;
        for (bool scalar : {false, true}) {
          const std::string name = std::string("grouped/") + fold_name + "_slots" +
                                   std::to_string(slots) + fraction_name +
                                   (scalar ? "scalar" : "static");
          benchmark::RegisterBenchmark(name.c_str(), [in, fold, slots, scalar](benchmark::State& state) {
            Tables t(slots);
            for (auto _ : state) {
              if (scalar) {
                RunScalar(fold, *in, t);
              } else {
                RunStatic(fold, *in, slots, t);
              }
              benchmark::ClobberMemory();
            }
            state.SetItemsProcessed(state.iterations() * kRows);
          });
        }
      }
    }
  }
}

const int kRegistered = (Register(), 0);

}  // namespace
