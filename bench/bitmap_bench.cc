// Bitmap kernel benchmarks: AND of two offset bitmaps and popcount (bench).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kernels/bitmap.h"

namespace {

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

void BM_BitmapAnd(benchmark::State& state) {
  const int64_t bits = state.range(0);
  const int64_t offset = state.range(1);
  auto a = RandomBytes(static_cast<size_t>(bits / 8 + 16), 1);
  auto b = RandomBytes(static_cast<size_t>(bits / 8 + 16), 2);
  std::vector<uint8_t> out(static_cast<size_t>(bits / 8 + 16));
  for (auto _ : state) {
    rowjit::kernels::BitmapAnd({a.data(), offset, bits}, {b.data(), 0, bits}, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * bits);
  state.SetBytesProcessed(state.iterations() * bits / 4);
}
BENCHMARK(BM_BitmapAnd)->Name("bitmap/and/static")->Args({65536, 0})->Args({65536, 3});

void BM_CountSetBits(benchmark::State& state) {
  const int64_t bits = state.range(0);
  auto a = RandomBytes(static_cast<size_t>(bits / 8 + 16), 1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(rowjit::kernels::CountSetBits({a.data(), state.range(1), bits}));
  }
  state.SetItemsProcessed(state.iterations() * bits);
  state.SetBytesProcessed(state.iterations() * bits / 8);
}
BENCHMARK(BM_CountSetBits)->Name("bitmap/popcount/static")->Args({65536, 0})->Args({65536, 3});

}  // namespace
