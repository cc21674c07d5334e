// The lineitem generator (bench): dbgen's distributions for the columns Q1 and Q6 read, and the
// arrays over its vectors.
#include "tpch_lineitem.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "runtime/string_array.h"

namespace rowjit::bench::tpch {
namespace {

// splitmix64: fast and good enough for uniform draws. Two streams, as dbgen keeps one per column:
// the lines per order apart from the rest, so that the row count is known without the rows.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  // Uniform in [lo, hi]: the high half of a 64 x 64-bit product (Lemire), bias below 2^-40 here.
  int64_t Uniform(int64_t lo, int64_t hi) {
    const auto span = static_cast<unsigned __int128>(static_cast<uint64_t>(hi - lo) + 1);
    return lo + static_cast<int64_t>((static_cast<unsigned __int128>(Next()) * span) >> 64);
  }

 private:
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
};

// TPC-H 4.2.3: P_RETAILPRICE = (90000 + ((P_PARTKEY/10) modulo 20001) + 100 * (P_PARTKEY modulo
// 1000)) / 100, here in cents.
int64_t RetailPriceCents(int64_t partkey) { return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000); }

// One order's lines: O_ORDERDATE uniform in [STARTDATE, ENDDATE - 151 days], `lines` lines (1 to
// 7, drawn from their own stream), each with L_QUANTITY 1..50, L_PARTKEY 1..SF * 200,000,
// L_DISCOUNT 0.00..0.10, L_TAX 0.00..0.08, L_SHIPDATE = O_ORDERDATE + 1..121, L_COMMITDATE =
// O_ORDERDATE + 30..90 (drawn, not kept), L_RECEIPTDATE = L_SHIPDATE + 1..30, L_RETURNFLAG R or
// A at random when L_RECEIPTDATE <= CURRENTDATE (1995-06-17) else N, L_LINESTATUS O when
// L_SHIPDATE > CURRENTDATE else F.
void AddOrder(Rng& rng, int64_t lines, int64_t parts, LineitemData& d) {
  static const int32_t kStart = DaysFromCivil(1992, 1, 1);
  static const int32_t kEnd = DaysFromCivil(1998, 12, 31);
  static const int32_t kCurrent = DaysFromCivil(1995, 6, 17);
  const auto orderdate = static_cast<int32_t>(rng.Uniform(kStart, kEnd - 151));
  for (int64_t line = 0; line < lines; ++line) {
    const int64_t quantity = rng.Uniform(1, 50);
    const int64_t partkey = rng.Uniform(1, parts);
    d.quantity.push_back(quantity * 100);
    d.extendedprice.push_back(quantity * RetailPriceCents(partkey));
    d.discount.push_back(rng.Uniform(0, 10));
    d.tax.push_back(rng.Uniform(0, 8));
    const auto shipdate = static_cast<int32_t>(orderdate + rng.Uniform(1, 121));
    (void)rng.Uniform(30, 90);  // L_COMMITDATE: Q1 and Q6 do not read it
    const auto receiptdate = static_cast<int32_t>(shipdate + rng.Uniform(1, 30));
    d.shipdate.push_back(shipdate);
    // Codes: kReturnFlags is {A, N, R}, kLineStatuses {F, O}.
    d.returnflag.push_back(receiptdate <= kCurrent ? (rng.Uniform(0, 1) == 0 ? 2 : 0) : 1);
    d.linestatus.push_back(shipdate > kCurrent ? 1 : 0);
  }
}

template <typename T>
ArrayPtr Borrowed(const std::shared_ptr<const LineitemData>& owner, const std::vector<T>& v, DataType type) {
  const auto n = static_cast<int64_t>(v.size());
  BufferPtr buffer = Buffer::Borrow(v.data(), n * static_cast<int64_t>(sizeof(T)), owner);
  auto array = PrimitiveArray::Make(type, n, std::move(buffer), Validity::AllValid());
  if (!array.ok()) {
    std::fprintf(stderr, "tpch: %s\n", array.error().ToString().c_str());
    std::abort();
  }
  return *array;
}

template <size_t N>
ArrayPtr Dictionary(const std::shared_ptr<const LineitemData>& owner, const std::vector<uint8_t>& codes,
                    const char* const (&values)[N]) {
  std::vector<std::optional<std::string_view>> rows(values, values + N);
  auto strings = MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, rows);
  auto code_array = std::static_pointer_cast<const PrimitiveArray>(Borrowed(owner, codes, DataType(TypeId::kU8)));
  auto dict = strings.ok() ? DictionaryArray::Make(code_array, *strings)
                           : Result<std::shared_ptr<const DictionaryArray>>(strings.error());
  if (!dict.ok()) {
    std::fprintf(stderr, "tpch: %s\n", dict.error().ToString().c_str());
    std::abort();
  }
  return *dict;
}

int64_t Orders(double scale_factor) { return std::llround(1'500'000 * scale_factor); }

}  // namespace

// Howard Hinnant's days_from_civil.
int32_t DaysFromCivil(int year, int month, int day) {
  year -= month <= 2;
  const int era = (year >= 0 ? year : year - 399) / 400;
  const int yoe = year - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int64_t LineitemRows(double scale_factor, uint64_t seed) {
  const int64_t orders = Orders(scale_factor);
  Rng lines(seed);
  int64_t rows = 0;
  for (int64_t o = 0; o < orders; ++o) rows += lines.Uniform(1, 7);
  return rows;
}

Lineitem MakeLineitem(double scale_factor, uint64_t seed) {
  const int64_t orders = Orders(scale_factor);
  const int64_t parts = std::max<int64_t>(1, std::llround(200'000 * scale_factor));
  const int64_t rows = LineitemRows(scale_factor, seed);
  auto data = std::make_shared<LineitemData>();
  for (auto* v : {&data->quantity, &data->extendedprice, &data->discount, &data->tax}) v->reserve(rows);
  data->shipdate.reserve(rows);
  data->returnflag.reserve(rows);
  data->linestatus.reserve(rows);
  Rng lines(seed), rng(seed ^ 0x5DEECE66Dull);
  for (int64_t o = 0; o < orders; ++o) AddOrder(rng, lines.Uniform(1, 7), parts, *data);

  Lineitem out;
  out.data = data;
  out.rows = data->rows();
  const DataType money = *DataType::Decimal(15, 2, TypeId::kI64);
  out.columns = {Borrowed(data, data->quantity, money),
                 Borrowed(data, data->extendedprice, money),
                 Borrowed(data, data->discount, money),
                 Borrowed(data, data->tax, money),
                 Borrowed(data, data->shipdate, *DataType::Temporal(LogicalKind::kDate, TimeUnit::kDay)),
                 Dictionary(data, data->returnflag, kReturnFlags),
                 Dictionary(data, data->linestatus, kLineStatuses),
                 Borrowed(data, data->returnflag, DataType(TypeId::kU8)),
                 Borrowed(data, data->linestatus, DataType(TypeId::kU8))};
  return out;
}

double ScaleFactorFromEnvironment() {
  const char* text = std::getenv("ROWJIT_TPCH_SF");
  if (text == nullptr || *text == '\0') return 1.0;
  char* end = nullptr;
  const double sf = std::strtod(text, &end);
  if (*end != '\0' || !(sf > 0) || sf > 100) {
    std::fprintf(stderr, "tpch: ROWJIT_TPCH_SF=%s: want a scale factor in (0, 100]\n", text);
    std::exit(2);
  }
  return sf;
}

const Lineitem& SharedLineitem() {
  static const Lineitem lineitem = MakeLineitem(ScaleFactorFromEnvironment());
  return lineitem;
}

}  // namespace rowjit::bench::tpch
