// Transcendental float functions (bench). `math/<fn>_<type>/<impl>` over 65,536 rows (all valid):
// `jit`, Engine::Evaluate of `fn(x)` (ir/float_math.h emitted as IR and vectorized); `libm`, a
// C++ loop compiled -O3 for the build's target calling glibc's scalar function into a
// preallocated output. Inputs: exp over [-20, 20], ln and log10 log-uniform over [1e-3, 1e3],
// log1p over [-0.5, 10], power(x, y) with x log-uniform over [1e-2, 1e2] and y over [-5, 5]; sin, cos and tan
// over [-10, 10];
// `mul_.../jit` is x * y, the cost of Evaluate itself. tools/peers.py runs the same work through
// numpy and numba (`tools/bench-report --peers`).
#include <benchmark/benchmark.h>

#include <cmath>

#include "bench_support.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = 65536;

struct Fn {
  const char* name;
  void (*libm)(const double* x, const double* y, double* out, int64_t n);  // glibc, called directly
  double lo, hi;
  bool log_uniform;
  bool binary;
};
template <double (*kFn)(double, double)>
void Loop(const double* x, const double* y, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = kFn(x[i], y[i]);
}
double Exp(double x, double) { return std::exp(x); }
double Ln(double x, double) { return std::log(x); }
double Log10(double x, double) { return std::log10(x); }
double Log1p(double x, double) { return std::log1p(x); }
double Pow(double x, double y) { return std::pow(x, y); }
double Sin(double x, double) { return std::sin(x); }
double Cos(double x, double) { return std::cos(x); }
double Tan(double x, double) { return std::tan(x); }
double Mul(double x, double y) { return x * y; }
const Fn kFns[] = {
    {"exp", Loop<Exp>, -20, 20, false, false},
    {"ln", Loop<Ln>, 1e-3, 1e3, true, false},
    {"log10", Loop<Log10>, 1e-3, 1e3, true, false},
    {"log1p", Loop<Log1p>, -0.5, 10, false, false},
    {"power", Loop<Pow>, 1e-2, 1e2, true, true},
    {"sin", Loop<Sin>, -10, 10, false, false},
    {"cos", Loop<Cos>, -10, 10, false, false},
    {"tan", Loop<Tan>, -10, 10, false, false},
    {"mul", Loop<Mul>, -20, 20, false, true},  // the floor: Evaluate's own cost
};

template <typename T>
std::vector<T> Draw(double lo, double hi, bool log_uniform, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(log_uniform ? std::log(lo) : lo, log_uniform ? std::log(hi) : hi);
  std::vector<T> out(kRows);
  for (T& x : out) x = static_cast<T>(log_uniform ? std::exp(u(rng)) : u(rng));
  return out;
}

template <typename T>
ArrayPtr Column(const std::vector<T>& rows) {
  BufferPtr b = *Buffer::Allocate(kRows * sizeof(T));
  std::memcpy(b->mutable_data(), rows.data(), kRows * sizeof(T));
  return ArrayPtr(*PrimitiveArray::Make(DataType(TypeIdOf<T>()), kRows, b, Validity::AllValid()));
}

template <typename T>
void RunJit(benchmark::State& state, const Fn& f) {
  const Schema schema = *ParseSchema(std::is_same_v<T, float> ? "x:f32,y:f32" : "x:f64,y:f64");
  const std::string text = std::string_view(f.name) == "mul" ? "x * y"
                           : f.binary                      ? fmt::format("{}(x, y)", f.name)
                                                           : fmt::format("{}(x)", f.name);
  auto expr = ir::ParseAndBind(text, schema);
  if (!expr.ok()) {
    state.SkipWithError(expr.error().ToString().c_str());
    return;
  }
  const std::vector<ArrayPtr> cols = {Column(Draw<T>(f.lo, f.hi, f.log_uniform, 1)), Column(Draw<T>(-5, 5, false, 2))};
  bench::RunJit(state, *expr, cols, kRows);
  state.SetItemsProcessed(state.iterations() * kRows);
}

void RunLibm(benchmark::State& state, const Fn& f) {
  const std::vector<double> x = Draw<double>(f.lo, f.hi, f.log_uniform, 1), y = Draw<double>(-5, 5, false, 2);
  std::vector<double> out(kRows);
  for (auto _ : state) {
    f.libm(x.data(), y.data(), out.data(), kRows);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

const bool kRegistered = [] {
  for (const Fn& f : kFns) {
    benchmark::RegisterBenchmark(fmt::format("math/{}_f64/jit", f.name).c_str(),
                                 [&f](benchmark::State& state) { RunJit<double>(state, f); });
    benchmark::RegisterBenchmark(fmt::format("math/{}_f64/libm", f.name).c_str(),
                                 [&f](benchmark::State& state) { RunLibm(state, f); });
    benchmark::RegisterBenchmark(fmt::format("math/{}_f32/jit", f.name).c_str(),
                                 [&f](benchmark::State& state) { RunJit<float>(state, f); });
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
