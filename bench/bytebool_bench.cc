// Byte-bool to bitmap packing of 65,536 rows (bench); bytebool_pack/memcpy_64KiB (in
// bool_zip_bench.cc) is the floor it is compared with.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kernels/bitmap.h"
#include "kernels/bytebool.h"

namespace {

void PackByteBools(benchmark::State& state) {
  const int64_t rows = 65536;
  std::mt19937 rng(3);
  std::vector<uint8_t> bytes(rows);
  for (auto& b : bytes) b = rng() % 2 ? static_cast<uint8_t>(rng() | 1) : 0;
  std::vector<uint8_t> out(rowjit::kernels::NumBytes(rows));
  for (auto _ : state) {
    rowjit::kernels::PackByteBools(bytes.data(), rows, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * rows);
}
BENCHMARK(PackByteBools)->Name("bytebool_pack/65536/static");

}  // namespace
