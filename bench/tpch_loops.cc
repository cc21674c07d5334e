// Q1 and Q6 as a C++ programmer writes them over the lineitem vectors, and the queries' memory
// floors (bench). Compiled with -O3 -march=native (bench/CMakeLists.txt): the static baseline is
// the best this compiler makes of plain loops on this host.
#include <algorithm>

#include "tpch_lineitem.h"

namespace rowjit::bench::tpch {
namespace {

// Rows per block of 64-bit partial sums, added into the 128-bit totals after each block: Q1's
// largest row term (price * (1 - discount) * (1 + tax) at scale 6) is below 1.2e11, so a block's
// sum stays below 2^63 with room to spare, and the loop body stays 64-bit (vectorizable).
constexpr int64_t kBlock = 65536;

struct Q1Partial {
  int64_t sum_qty = 0, sum_price = 0, sum_disc_price = 0, sum_charge = 0, sum_disc = 0, count = 0;
};

inline void AddRow(Q1Partial& a, int64_t qty, int64_t price, int64_t disc, int64_t tax) {
  const int64_t disc_price = price * (100 - disc);
  a.sum_qty += qty;
  a.sum_price += price;
  a.sum_disc_price += disc_price;
  a.sum_charge += disc_price * (100 + tax);
  a.sum_disc += disc;
  a.count += 1;
}

void Flush(const Q1Partial& p, Q1Group& g) {
  g.sum_qty += p.sum_qty;
  g.sum_price += p.sum_price;
  g.sum_disc_price += p.sum_disc_price;
  g.sum_charge += p.sum_charge;
  g.sum_disc += p.sum_disc;
  g.count += p.count;
}

}  // namespace

__int128 Q6Loop(const LineitemData& d) {
  const int32_t lo = DaysFromCivil(1994, 1, 1), hi = DaysFromCivil(1995, 1, 1);
  const int64_t* qty = d.quantity.data();
  const int64_t* price = d.extendedprice.data();
  const int64_t* disc = d.discount.data();
  const int32_t* ship = d.shipdate.data();
  __int128 total = 0;
  for (int64_t begin = 0; begin < d.rows(); begin += kBlock) {
    const int64_t end = std::min(d.rows(), begin + kBlock);
    int64_t sum = 0;
    for (int64_t i = begin; i < end; ++i) {
      // `&` rather than `&&`: every test computed, no branch, so the loop vectorizes.
      const bool keep = (ship[i] >= lo) & (ship[i] < hi) & (disc[i] >= 5) & (disc[i] <= 7) & (qty[i] < 2400);
      sum += keep ? price[i] * disc[i] : 0;
    }
    total += sum;
  }
  return total;
}

Q1Answer Q1Loop(const LineitemData& d) {
  const int32_t cutoff = DaysFromCivil(1998, 9, 2);
  const int64_t* qty = d.quantity.data();
  const int64_t* price = d.extendedprice.data();
  const int64_t* disc = d.discount.data();
  const int64_t* tax = d.tax.data();
  const int32_t* ship = d.shipdate.data();
  const uint8_t* flag = d.returnflag.data();
  const uint8_t* status = d.linestatus.data();
  Q1Answer out;
  for (int64_t begin = 0; begin < d.rows(); begin += kBlock) {
    const int64_t end = std::min(d.rows(), begin + kBlock);
    // Four tables of partial sums, row i into table i % 4: consecutive rows of one group would
    // otherwise wait on each other's stores to the same slot. A row past the cutoff goes to a
    // slot of its own, never read: no branch on the data.
    Q1Partial acc[4][kQ1Slots + 1];
    for (int64_t i = begin; i < end; ++i) {
      const int slot = ship[i] > cutoff ? kQ1Slots : flag[i] * 2 + status[i];
      AddRow(acc[i & 3][slot], qty[i], price[i], disc[i], tax[i]);
    }
    for (int g = 0; g < kQ1Slots; ++g) {
      for (const auto& table : acc) Flush(table[g], out.groups[g]);
    }
  }
  return out;
}

// One loop over the rows reading every column at once, as the queries do (one stream per column
// in flight; a pass per column would leave the memory system idler than the query keeps it).
uint64_t Q6Floor(const LineitemData& d) {
  const int64_t* qty = d.quantity.data();
  const int64_t* price = d.extendedprice.data();
  const int64_t* disc = d.discount.data();
  const int32_t* ship = d.shipdate.data();
  uint64_t sum = 0;
  for (int64_t i = 0; i < d.rows(); ++i) sum += static_cast<uint64_t>(qty[i] + price[i] + disc[i] + ship[i]);
  return sum;
}

uint64_t Q1Floor(const LineitemData& d) {
  const int64_t* qty = d.quantity.data();
  const int64_t* price = d.extendedprice.data();
  const int64_t* disc = d.discount.data();
  const int64_t* tax = d.tax.data();
  const int32_t* ship = d.shipdate.data();
  const uint8_t* flag = d.returnflag.data();
  const uint8_t* status = d.linestatus.data();
  uint64_t sum = 0;
  for (int64_t i = 0; i < d.rows(); ++i) {
    sum += static_cast<uint64_t>(qty[i] + price[i] + disc[i] + tax[i] + ship[i] + flag[i] + status[i]);
  }
  return sum;
}

}  // namespace rowjit::bench::tpch
