// rowjit_tpch_export DIR: writes the lineitem columns the tpch benchmarks read (the generator of
// bench/tpch_lineitem.h at the scale factor ROWJIT_TPCH_SF names) into DIR, so that the Python
// peers (bench/tpch_peers.py) run on exactly the rows rowjit runs on, and the C++ loop's answers
// they are checked against:
//   l_quantity.i64 l_extendedprice.i64 l_discount.i64 l_tax.i64  unscaled decimals, scale 2
//   l_shipdate.i32                                                days since 1970-01-01
//   l_returnflag.u8 l_linestatus.u8                               codes into A N R and F O
//   lineitem.csv   the same rows as text (DuckDB reads it with the columns' SQL types)
//   answers.json   rows, scale factor, Q6's sum and Q1's groups as exact decimal text
// Raw files are little-endian, as the generator's vectors are in memory on x86-64.
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/types.h"
#include "tpch_lineitem.h"

namespace {

namespace tpch = rowjit::bench::tpch;

template <typename T>
bool WriteRaw(const std::string& path, const std::vector<T>& v) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(v.data(), sizeof(T), v.size(), f) == v.size();
  return std::fclose(f) == 0 && ok;
}

// "YYYY-MM-DD" of a date32 day (Howard Hinnant's civil_from_days).
void DateText(int32_t days, char (&out)[32]) {
  const int z = days + 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const int doe = z - era * 146097;
  const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int mp = (5 * doy + 2) / 153;
  const int day = doy - (153 * mp + 2) / 5 + 1;
  const int month = mp < 10 ? mp + 3 : mp - 9;
  std::snprintf(out, sizeof out, "%04d-%02d-%02d", yoe + era * 400 + (month <= 2), month, day);
}

bool WriteCsv(const std::string& path, const tpch::LineitemData& d) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  std::fputs("l_quantity,l_extendedprice,l_discount,l_tax,l_shipdate,l_returnflag,l_linestatus\n", f);
  char date[32];
  for (int64_t i = 0; i < d.rows(); ++i) {
    DateText(d.shipdate[i], date);
    std::fprintf(f, "%s,%s,%s,%s,%s,%s,%s\n", rowjit::DecimalText(d.quantity[i], 2).c_str(),
                 rowjit::DecimalText(d.extendedprice[i], 2).c_str(), rowjit::DecimalText(d.discount[i], 2).c_str(),
                 rowjit::DecimalText(d.tax[i], 2).c_str(), date, tpch::kReturnFlags[d.returnflag[i]],
                 tpch::kLineStatuses[d.linestatus[i]]);
  }
  return std::fclose(f) == 0;
}

// Q1's groups in its ORDER BY (return flag, line status), the sums at their SQL scales.
bool WriteAnswers(const std::string& path, const tpch::LineitemData& d, double sf) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  std::fprintf(f, "{\"rows\": %lld, \"scale_factor\": %.17g, \"q6\": \"%s\", \"q1\": [", static_cast<long long>(d.rows()),
               sf, rowjit::DecimalText(tpch::Q6Loop(d), 4).c_str());
  const tpch::Q1Answer q1 = tpch::Q1Loop(d);
  const char* sep = "";
  for (int slot = 0; slot < tpch::kQ1Slots; ++slot) {
    const tpch::Q1Group& g = q1.groups[slot];
    if (g.count == 0) continue;
    std::fprintf(f, "%s\n  {\"l_returnflag\": \"%s\", \"l_linestatus\": \"%s\", \"sum_qty\": \"%s\", "
                 "\"sum_base_price\": \"%s\", \"sum_disc_price\": \"%s\", \"sum_charge\": \"%s\", \"sum_disc\": \"%s\", "
                 "\"count_order\": %lld}", sep, tpch::kReturnFlags[slot / 2], tpch::kLineStatuses[slot % 2],
                 rowjit::DecimalText(g.sum_qty, 2).c_str(), rowjit::DecimalText(g.sum_price, 2).c_str(),
                 rowjit::DecimalText(g.sum_disc_price, 4).c_str(), rowjit::DecimalText(g.sum_charge, 6).c_str(),
                 rowjit::DecimalText(g.sum_disc, 2).c_str(), static_cast<long long>(g.count));
    sep = ",";
  }
  std::fputs("]}\n", f);
  return std::fclose(f) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rowjit_tpch_export DIR (the scale factor from ROWJIT_TPCH_SF, default 1)\n");
    return 2;
  }
  const std::string dir = argv[1];
  const double sf = tpch::ScaleFactorFromEnvironment();
  const tpch::Lineitem table = tpch::MakeLineitem(sf);
  const tpch::LineitemData& d = *table.data;
  const bool ok = WriteRaw(dir + "/l_quantity.i64", d.quantity) && WriteRaw(dir + "/l_extendedprice.i64", d.extendedprice) &&
                  WriteRaw(dir + "/l_discount.i64", d.discount) && WriteRaw(dir + "/l_tax.i64", d.tax) &&
                  WriteRaw(dir + "/l_shipdate.i32", d.shipdate) && WriteRaw(dir + "/l_returnflag.u8", d.returnflag) &&
                  WriteRaw(dir + "/l_linestatus.u8", d.linestatus) && WriteCsv(dir + "/lineitem.csv", d) &&
                  WriteAnswers(dir + "/answers.json", d, sf);
  if (!ok) {
    std::fprintf(stderr, "rowjit_tpch_export: cannot write into %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
