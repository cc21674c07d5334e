// Decimal arithmetic (bench). `decimal/<work>/<impl>/rows:N` over 65,536 and 1M all-valid rows:
//   a*b+c/jit      Engine::Evaluate of a * b + c over decimal64(12,2) columns (values below 10^6
//                  in storage: prices and quantities; the product is decimal64(18,4), the sum
//                  decimal64(18,4); every overflow test runs)
//   a*b+c/jit128   the same over 16-byte decimal(12,2) columns (DuckDB's export), narrowed by row
//   a*b+c/i64      the same storage integers as i64 columns, checked i64 `a * b + c` (the
//                  yardstick: decimal at >= half its speed)
//   a*b+c/static   the decimal semantics as a C++ loop compiled -O3 for the build's target
//                  (rescale, __builtin_mul_overflow, range tests) into a preallocated output
//   round/jit      round(a, 1): a rescale down by 10, half away from zero
//   round128/jit_prepared[_chunks2048]  the same over 16-byte decimal(12,2) columns through a
//                  prepared expression, whole and in 2,048-row calls
//   mul38/jit      a * b over decimal(38,10) columns (16-byte rows, storage values below 10^17:
//                  the product, decimal(38,20), needs 128 bits): the 128-bit kernel
//   mul38/static   the same semantics as a scalar C++ loop over __int128 compiled -O3
//                  (__builtin_mul_overflow and the 38-digit range test) into a preallocated output
//   {max,sum}{12,30}/jit  max(a) and sum(a) over a 16-byte decimal(12,2) or decimal(30,2)
//                  column through Engine::Aggregate; `_chunks2048`: the same rows in 2,048-row
//                  calls
#include <benchmark/benchmark.h>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = int64_t{1} << 20;

// Storage values in [-half, half) by seed (cached): 10^6 for decimal(12,2) prices and
// quantities, 10^17 for decimal(38,10), whose products need 128 bits.
const std::vector<int64_t>& Values(uint64_t seed, int64_t half = 1'000'000) {
  static std::map<std::pair<uint64_t, int64_t>, std::vector<int64_t>> cache;
  auto [it, fresh] = cache.try_emplace({seed, half});
  if (fresh) {
    std::mt19937_64 rng(seed);
    it->second.resize(kRows);
    for (int64_t& x : it->second) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * half)) - half;
  }
  return it->second;
}

const std::vector<int64_t>& WideValues(uint64_t seed) { return Values(seed, 100'000'000'000'000'000); }

ArrayPtr Column(uint64_t seed, const char* type) {
  const DataType t = *ParseDataType(type);
  const std::vector<int64_t>& values = t.id == TypeId::kI128 && t.precision > 18 ? WideValues(seed) : Values(seed);
  BufferPtr b = *Buffer::Allocate(kRows * ByteWidth(t.id));
  if (t.id == TypeId::kI128) {  // 16-byte rows: the value and its sign
    for (int64_t i = 0; i < kRows; ++i) {
      const int64_t halves[2] = {values[i], values[i] < 0 ? -1 : 0};
      std::memcpy(b->mutable_data() + 16 * i, halves, 16);
    }
    return ArrayPtr(*PrimitiveArray::Make(t, kRows, b, Validity::AllValid()));
  }
  std::memcpy(b->mutable_data(), Values(seed).data(), kRows * 8);
  return ArrayPtr(*PrimitiveArray::Make(*ParseDataType(type), kRows, b, Validity::AllValid()));
}

std::vector<ArrayPtr> Columns(const char* type, int64_t rows) {
  std::vector<ArrayPtr> out;
  for (uint64_t seed : {1, 2, 3}) out.push_back(*Column(seed, type)->Slice(0, rows));
  return out;
}

// a * b at scale 4 plus c rescaled from 2 to 4, each within 18 digits, as the kernels define it.
void RunStatic(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const int64_t *a = Values(1).data(), *b = Values(2).data(), *c = Values(3).data();
  std::vector<int64_t> out(rows);
  constexpr int64_t kLimit = 1'000'000'000'000'000'000;
  for (auto _ : state) {
    bool bad = false;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t p;
      bad |= __builtin_mul_overflow(a[i], b[i], &p) || p >= kLimit || p <= -kLimit;
      bad |= c[i] >= kLimit / 100 || c[i] <= -kLimit / 100;
      const int64_t r = static_cast<int64_t>(static_cast<uint64_t>(p) + static_cast<uint64_t>(c[i] * 100));
      bad |= r >= kLimit || r <= -kLimit;
      out[i] = r;
    }
    benchmark::DoNotOptimize(bad);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, rows, 32 * 8);
}

// a * b of decimal(38,10) storage in __int128, checked against 38 digits.
void RunStatic128(benchmark::State& state) {
  const int64_t rows = state.range(0);
  std::vector<__int128> a(rows), b(rows), out(rows);
  for (int64_t i = 0; i < rows; ++i) {
    a[i] = WideValues(1)[i];
    b[i] = WideValues(2)[i];
  }
  const __int128 limit = static_cast<__int128>(10'000'000'000'000'000'000u) * 10'000'000'000'000'000'000u;
  for (auto _ : state) {
    bool bad = false;
    for (int64_t i = 0; i < rows; ++i) {
      __int128 p;
      bad |= __builtin_mul_overflow(a[i], b[i], &p) || p >= limit || p <= -limit;
      out[i] = p;
    }
    benchmark::DoNotOptimize(bad);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, rows, 48 * 8);
}

const bool kRegistered = [] {
  const LazyExpr decimal("a * b + c", "a:decimal64(12,2), b:decimal64(12,2), c:decimal64(12,2)");
  const LazyExpr integer("a * b + c", "a:i64, b:i64, c:i64");
  const LazyExpr wide("a * b + c", "a:decimal(12,2), b:decimal(12,2), c:decimal(12,2)");
  const LazyExpr round("round(a, 1)", "a:decimal64(12,2), b:decimal64(12,2), c:decimal64(12,2)");
  auto jit = [](const char* name, LazyExpr expr, const char* type) {
    benchmark::RegisterBenchmark(name, [expr, type](benchmark::State& state) {
      const int64_t rows = state.range(0);
      RunJit(state, expr.get(), Columns(type, rows), rows);
      SetCounters(state, rows, 32 * 8);
    })->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  };
  jit("decimal/a*b+c/jit", decimal, "decimal64(12,2)");
  jit("decimal/a*b+c/i64", integer, "i64");
  jit("decimal/a*b+c/jit128", wide, "decimal(12,2)");
  benchmark::RegisterBenchmark("decimal/a*b+c/static", RunStatic)
      ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  jit("decimal/round/jit", round, "decimal64(12,2)");
  // round(a, 1) over 16-byte decimal(12,2) columns (DuckDB's export) through a prepared
  // expression: the batch whole, and in 2,048-row calls.
  const LazyExpr round128("round(a, 1)", "a:decimal(12,2), b:decimal(12,2), c:decimal(12,2)");
  for (const int64_t chunk : {int64_t{0}, int64_t{2048}}) {
    benchmark::RegisterBenchmark(chunk ? "decimal/round128/jit_prepared_chunks2048" : "decimal/round128/jit_prepared",
                                 [round128, chunk](benchmark::State& state) {
      const int64_t rows = state.range(0);
      if (chunk) {
        RunJitPreparedChunks(state, round128.get(), Columns("decimal(12,2)", rows), rows, chunk);
      } else {
        RunJitPrepared(state, round128.get(), Columns("decimal(12,2)", rows), rows);
      }
      SetCounters(state, rows, 24 * 8);
    })->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  }
  const LazyExpr mul38("a * b", "a:decimal(38,10), b:decimal(38,10), c:decimal(38,10)");
  jit("decimal/mul38/jit", mul38, "decimal(38,10)");
  benchmark::RegisterBenchmark("decimal/mul38/static", RunStatic128)
      ->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
  // Folds through Engine::Aggregate of a 16-byte decimal(12,2) column (DuckDB's export; the fold
  // kernel narrows its rows) and of a decimal(30,2) one (past 18 digits: a static fold in 128
  // bits): the batch whole, and in 2,048-row calls.
  for (const char* digits : {"12", "30"}) {
    for (const char* text : {"max(a)", "sum(a)"}) {
      for (const int64_t chunk : {int64_t{0}, int64_t{2048}}) {
        const std::string name = fmt::format("decimal/{}{}/jit{}", std::string_view(text).substr(0, 3), digits,
                                             chunk ? "_chunks2048" : "");
        const std::string type = fmt::format("decimal({},2)", digits);
        benchmark::RegisterBenchmark(name.c_str(), [text, chunk, type](benchmark::State& state) {
          const int64_t rows = state.range(0);
          const ir::Aggregate agg = *ir::ParseAndBindAggregate(text, *ParseSchema("a:" + type));
          const ArrayPtr col = Columns(type.c_str(), rows)[0];
          std::vector<std::vector<ArrayPtr>> batches;
          for (int64_t at = 0; at < rows; at += chunk ? chunk : rows) {
            batches.push_back({*col->Slice(at, std::min(chunk ? chunk : rows, rows - at))});
          }
          for (const auto& b : batches) {
            if (!SharedEngine().Aggregate(agg, b, b[0]->length()).ok()) std::abort();
          }
          for (auto _ : state) {
            for (const auto& b : batches) benchmark::DoNotOptimize(SharedEngine().Aggregate(agg, b, b[0]->length()));
          }
          SetCounters(state, rows, 16 * 8);
        })->Arg(65'536)->Arg(kRows)->ArgName("rows")->Unit(benchmark::kMicrosecond);
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
