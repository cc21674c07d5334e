// Temporal functions (bench). `temporal/<function>/<impl>` over 65,536 and 1M timestamp(us) rows
// between 1900 and 2100 (all valid): `jit` (Engine::Evaluate of year(t), month(t),
// day_of_week(t), date_trunc('month', t), date_trunc('hour', t)); `static`, the same civil
// arithmetic (H. Hinnant's algorithm) as a C++ loop compiled -O3 for the build's target into a
// preallocated output, with i64 floor divisions as the compiler emits them; and `floor`, the
// memory floor of any of them: `t + 1` over the same column into a preallocated output (one
// 8-byte read and one 8-byte write a row). Targets, at 1M rows: `temporal/year/jit` ≤ 1 ns/row,
// `temporal/date_trunc_month/jit` ≤ 1.5 ns/row. Interval arithmetic beside them: `t + '1 month'`
// (the civil form: split, move the month count, clamp the day, join) and `t + '1 day'` (one
// checked add of a constant), `static` the same with the overflow test; `jit_paris`, the fields
// and truncation in Europe/Paris's local time. `interval/compare` and `interval/add`: intervals
// with each other. `temporal/{year,month,day}_date32/*`: the fields of the same days as date32
// (RunJitDate32).
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = int64_t{1} << 20;  // the most rows a case uses
constexpr int64_t kPerDay = 86'400'000'000;

// Microseconds between 1900-01-01 and 2100-01-01 (the range hosts' timestamps live in).
const std::vector<int64_t>& Micros() {
  static const std::vector<int64_t> v = [] {
    std::mt19937_64 rng(41);
    std::vector<int64_t> out(kRows);
    const int64_t lo = -2'208'988'800'000'000, hi = 4'102'444'800'000'000;
    for (int64_t& x : out) x = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    return out;
  }();
  return v;
}

// The same values as timestamp(us), or in `zone` (Europe/Paris: its local time).
ArrayPtr Column(const char* type = "timestamp(us)") {
  static BufferPtr b = [] {
    BufferPtr out = *Buffer::Allocate(kRows * 8);
    std::memcpy(out->mutable_data(), Micros().data(), kRows * 8);
    return out;
  }();
  return ArrayPtr(*PrimitiveArray::Make(*ParseDataType(type), kRows, b, Validity::AllValid()));
}

int64_t FloorDiv(int64_t x, int64_t d) { return x / d - (x % d < 0); }

struct Ymd {
  int64_t y;
  int64_t m, d;
};

inline Ymd CivilFromDays(int64_t days) {
  const int64_t z = days + 719'468;
  const int64_t era = FloorDiv(z, 146'097);
  const auto doe = static_cast<uint32_t>(z - era * 146'097);
  const uint32_t yoe = (doe - doe / 1460 + doe / 36'524 - doe / 146'096) / 365;
  const uint32_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const uint32_t mp = (5 * doy + 2) / 153;
  const uint32_t d = doy - (153 * mp + 2) / 5 + 1;
  const uint32_t m = mp < 10 ? mp + 3 : mp - 9;
  return {era * 400 + yoe + (m <= 2), m, d};
}

inline int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const auto yoe = static_cast<uint32_t>(y - era * 400);
  const uint32_t doy = static_cast<uint32_t>((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1);
  const uint32_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146'097 + static_cast<int64_t>(doe) - 719'468;
}

enum class Fn : uint8_t { kYear, kMonth, kDay, kDayOfWeek, kTruncMonth, kTruncHour, kAddMonth, kAddDay, kFloor };

inline int64_t LastDay(int64_t y, int64_t m) {
  if (m != 2) return m == 4 || m == 6 || m == 9 || m == 11 ? 30 : 31;
  return (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 29 : 28;
}

void RunStatic(benchmark::State& state, Fn fn) {
  const std::vector<int64_t>& in = Micros();
  const int64_t rows = state.range(0);
  std::vector<int64_t> out(rows);
  bool overflow = false;
  for (auto _ : state) {
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t t = in[i];
      const int64_t days = FloorDiv(t, kPerDay);
      switch (fn) {
        case Fn::kYear: out[i] = CivilFromDays(days).y; break;
        case Fn::kMonth: out[i] = CivilFromDays(days).m; break;
        case Fn::kDay: out[i] = CivilFromDays(days).d; break;
        case Fn::kDayOfWeek: out[i] = (days + 4) % 7 + ((days + 4) % 7 < 0 ? 7 : 0); break;
        case Fn::kTruncMonth: {
          const Ymd c = CivilFromDays(days);
          out[i] = DaysFromCivil(c.y, c.m, 1) * kPerDay;
          break;
        }
        case Fn::kTruncHour: out[i] = t - (t - days * kPerDay) % 3'600'000'000; break;
        case Fn::kAddMonth: {
          const Ymd c = CivilFromDays(days);
          const int64_t y = c.m == 12 ? c.y + 1 : c.y, m = c.m == 12 ? 1 : c.m + 1;
          const int64_t moved = DaysFromCivil(y, m, std::min(c.d, LastDay(y, m)));
          overflow |= __builtin_mul_overflow(moved, kPerDay, &out[i]) | __builtin_add_overflow(out[i], t - days * kPerDay, &out[i]);
          break;
        }
        case Fn::kAddDay: overflow |= __builtin_add_overflow(t, kPerDay, &out[i]); break;
        case Fn::kFloor: out[i] = t + 1; break;
      }
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::DoNotOptimize(overflow);
    benchmark::ClobberMemory();
  }
  SetCounters(state, rows, 16 * 8);
}

// Engine::Evaluate of `expr` over `cols`; `row_bits`: the bits a row reads and writes.
void RunJitOver(benchmark::State& state, const ir::ExprPtr& expr, const std::vector<ArrayPtr>& cols, int64_t row_bits) {
  const int64_t rows = state.range(0);
  jit::Engine& engine = SharedEngine();
  jit::EvalReport report;
  if (Status warm = engine.Evaluate(expr, cols, rows, {}, &report).status(); !warm.ok()) {
    state.SkipWithError(warm.error().ToString().c_str());
    return;
  }
  state.SetLabel(std::string(jit::StrategyName(report.strategy)));
  for (auto _ : state) benchmark::DoNotOptimize(engine.Evaluate(expr, cols, rows));
  SetCounters(state, rows, row_bits);
}

void RunJit(benchmark::State& state, const ir::ExprPtr& expr, const char* type) {
  RunJitOver(state, expr, {*Column(type)->Slice(0, state.range(0))}, 16 * 8);
}

// The same instants' days as date32 (`temporal/*_date32`): year(d), month(d), day(d) through
// the JIT, the static civil arithmetic over i32 days, and `temporal/floor_date32/static`, the
// copy floor (each day widened to i64 plus one: a 4-byte read and an 8-byte write a row).
const std::vector<int32_t>& Days() {
  static const std::vector<int32_t> v = [] {
    std::vector<int32_t> out(kRows);
    for (int64_t i = 0; i < kRows; ++i) out[i] = static_cast<int32_t>(FloorDiv(Micros()[i], kPerDay));
    return out;
  }();
  return v;
}

void RunJitDate32(benchmark::State& state, const ir::ExprPtr& expr) {
  static BufferPtr b = [] {
    BufferPtr out = *Buffer::Allocate(kRows * 4);
    std::memcpy(out->mutable_data(), Days().data(), kRows * 4);
    return out;
  }();
  const int64_t rows = state.range(0);
  RunJitOver(state, expr, {ArrayPtr(*PrimitiveArray::Make(*ParseDataType("date32"), rows, b, Validity::AllValid()))}, 12 * 8);
}

void RunStaticDate32(benchmark::State& state, Fn fn) {
  const std::vector<int32_t>& in = Days();
  const int64_t rows = state.range(0);
  std::vector<int64_t> out(rows);
  for (auto _ : state) {
    for (int64_t i = 0; i < rows; ++i) {
      switch (fn) {
        case Fn::kYear: out[i] = CivilFromDays(in[i]).y; break;
        case Fn::kMonth: out[i] = CivilFromDays(in[i]).m; break;
        case Fn::kDay: out[i] = CivilFromDays(in[i]).d; break;
        default: out[i] = int64_t{in[i]} + 1; break;
      }
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, rows, 12 * 8);
}

// Two interval_month_day_nano columns (months within ±10 years, days ±400, nanoseconds ±2 days):
// `interval/compare` is `i < j` (PostgreSQL's order: interval_compare against 0), `interval/add`
// `i + j` (part by part, checked); `static` the same semantics as a C++ loop: exact 128-bit
// lengths compared into bool bytes, parts added with __builtin_add_overflow.
struct Mdn {
  int32_t months, days;
  int64_t nanos;
};

std::vector<Mdn> MakeIntervals(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Mdn> out(kRows);
  constexpr int64_t kDay = 86'400'000'000'000;
  for (Mdn& x : out) {
    x = {static_cast<int32_t>(rng() % 241) - 120, static_cast<int32_t>(rng() % 801) - 400,
         static_cast<int64_t>(rng() % (4 * kDay)) - 2 * kDay};
  }
  return out;
}

const std::vector<Mdn>& Intervals(int which) {
  static const std::vector<Mdn> i = MakeIntervals(43), j = MakeIntervals(44);
  return which == 0 ? i : j;
}

ArrayPtr IntervalColumn(int which) {
  static BufferPtr b[2] = {nullptr, nullptr};
  if (b[which] == nullptr) {
    b[which] = *Buffer::Allocate(kRows * sizeof(Mdn));
    std::memcpy(b[which]->mutable_data(), Intervals(which).data(), kRows * sizeof(Mdn));
  }
  return ArrayPtr(*PrimitiveArray::Make(*ParseDataType("interval_month_day_nano"), kRows, b[which], Validity::AllValid()));
}

void RunIntervalJit(benchmark::State& state, const ir::ExprPtr& expr) {
  const int64_t rows = state.range(0);
  const std::vector<ArrayPtr> cols = {*IntervalColumn(0)->Slice(0, rows), *IntervalColumn(1)->Slice(0, rows)};
  jit::Engine& engine = SharedEngine();
  if (Status warm = engine.Evaluate(expr, cols, rows).status(); !warm.ok()) {
    state.SkipWithError(warm.error().ToString().c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(engine.Evaluate(expr, cols, rows));
  SetCounters(state, rows, 32 * 8);
}

__int128 Length(const Mdn& x) {
  return (static_cast<__int128>(x.months) * 30 + x.days) * 86'400'000'000'000 + x.nanos;
}

void RunIntervalStatic(benchmark::State& state, bool add) {
  const int64_t rows = state.range(0);
  const Mdn* i = Intervals(0).data();
  const Mdn* j = Intervals(1).data();
  std::vector<Mdn> sums(add ? rows : 0);
  std::vector<uint8_t> less(add ? 0 : rows);
  for (auto _ : state) {
    bool overflow = false;
    if (add) {
      for (int64_t r = 0; r < rows; ++r) {
        overflow |= __builtin_add_overflow(i[r].months, j[r].months, &sums[r].months);
        overflow |= __builtin_add_overflow(i[r].days, j[r].days, &sums[r].days);
        overflow |= __builtin_add_overflow(i[r].nanos, j[r].nanos, &sums[r].nanos);
      }
    } else {
      for (int64_t r = 0; r < rows; ++r) less[r] = Length(i[r]) < Length(j[r]);
    }
    benchmark::DoNotOptimize(sums.data());
    benchmark::DoNotOptimize(less.data());
    benchmark::DoNotOptimize(overflow);
    benchmark::ClobberMemory();
  }
  SetCounters(state, rows, 32 * 8);
}

const bool kRegistered = [] {
  for (const auto& [name, text] : {std::pair{"compare", "i < j"}, std::pair{"add", "i + j"}}) {
    const LazyExpr expr(text, "i:interval_month_day_nano, j:interval_month_day_nano");
    benchmark::RegisterBenchmark(fmt::format("interval/{}/jit", name).c_str(),
                                 [expr](benchmark::State& state) { RunIntervalJit(state, expr.get()); })
        ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
    const bool add = std::string_view(name) == "add";
    benchmark::RegisterBenchmark(fmt::format("interval/{}/static", name).c_str(),
                                 [add](benchmark::State& state) { RunIntervalStatic(state, add); })
        ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  }

  const std::pair<Fn, const char*> fns[] = {{Fn::kYear, "year(t)"},
                                            {Fn::kMonth, "month(t)"},
                                            {Fn::kDayOfWeek, "day_of_week(t)"},
                                            {Fn::kTruncMonth, "date_trunc('month', t)"},
                                            {Fn::kTruncHour, "date_trunc('hour', t)"},
                                            {Fn::kAddMonth, "t + '1 month'"},
                                            {Fn::kAddDay, "t + '1 day'"}};
  const char* names[] = {"year", "month", "day_of_week", "date_trunc_month", "date_trunc_hour", "add_month", "add_day"};
  for (size_t k = 0; k < std::size(fns); ++k) {
    const auto [fn, text] = fns[k];
    const LazyExpr expr(text, "t:timestamp(us)");
    benchmark::RegisterBenchmark(fmt::format("temporal/{}/jit", names[k]).c_str(),
                                 [expr](benchmark::State& state) { RunJit(state, expr.get(), "timestamp(us)"); })
        ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
    if (k < 4) {  // in a zone's local time: its offset looked up in the kernel's tables each row
      const LazyExpr zoned(text, "t:timestamp(us, Europe/Paris)");
      benchmark::RegisterBenchmark(fmt::format("temporal/{}/jit_paris", names[k]).c_str(), [zoned](benchmark::State& state) {
        RunJit(state, zoned.get(), "timestamp(us, Europe/Paris)");
      })->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
    }
    benchmark::RegisterBenchmark(fmt::format("temporal/{}/static", names[k]).c_str(),
                                 [fn](benchmark::State& state) { RunStatic(state, fn); })
        ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("temporal/floor/static", [](benchmark::State& state) { RunStatic(state, Fn::kFloor); })
      ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  for (const auto& [fn, name] : {std::pair{Fn::kYear, "year"}, std::pair{Fn::kMonth, "month"}, std::pair{Fn::kDay, "day"}}) {
    const LazyExpr expr(fmt::format("{}(d)", name), "d:date32");
    benchmark::RegisterBenchmark(fmt::format("temporal/{}_date32/jit", name).c_str(),
                                 [expr](benchmark::State& state) { RunJitDate32(state, expr.get()); })
        ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(fmt::format("temporal/{}_date32/static", name).c_str(),
                                 [fn](benchmark::State& state) { RunStaticDate32(state, fn); })
        ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("temporal/floor_date32/static", [](benchmark::State& state) { RunStaticDate32(state, Fn::kFloor); })
      ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
