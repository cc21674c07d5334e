// Bool zip of 65,536 rows, non-nullable and nullable, alternating and random masks, beside a
// memcpy of the bytes it reads (bench).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/zip.h"

namespace {

namespace k = rowjit::kernels;
constexpr int64_t kRows = 65536;
constexpr int64_t kBytes = kRows / 8;

std::vector<uint8_t> RandomBitmap(uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(kBytes);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// The per-run builder's worst case: every row is its own run.
std::vector<uint8_t> AlternatingBitmap() { return std::vector<uint8_t>(kBytes, 0x55); }

void BoolZip(benchmark::State& state, bool alternating, bool nullable) {
  const auto mask = alternating ? AlternatingBitmap() : RandomBitmap(1);
  const auto t = RandomBitmap(2), f = RandomBitmap(3), tv = RandomBitmap(4), fv = RandomBitmap(5);
  std::vector<uint8_t> out(kBytes), out_valid(kBytes);
  const k::BitSpan m{mask.data(), 0, kRows};
  for (auto _ : state) {
    k::BoolZip(m, {t.data(), 0, kRows}, {f.data(), 0, kRows}, out.data());
    if (nullable) {
      k::ZipValidity(m, {k::ValiditySide::Kind::kBitmap, {tv.data(), 0, kRows}},
                     {k::ValiditySide::Kind::kBitmap, {fv.data(), 0, kRows}}, out_valid.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::DoNotOptimize(out_valid.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.SetBytesProcessed(state.iterations() * kBytes * (nullable ? 6 : 3));
}
BENCHMARK_CAPTURE(BoolZip, nonnull_alternating, true, false)->Name("bool_zip/nonnull_alternating/static");
BENCHMARK_CAPTURE(BoolZip, nonnull_random, false, false)->Name("bool_zip/nonnull_random/static");
BENCHMARK_CAPTURE(BoolZip, nullable_alternating, true, true)->Name("bool_zip/nullable_alternating/static");
BENCHMARK_CAPTURE(BoolZip, nullable_random, false, true)->Name("bool_zip/nullable_random/static");

// The floor: copying the bytes the zip reads (24 KiB non-nullable, 48 KiB nullable).
void Memcpy(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> src(n, 1), dst(n);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(Memcpy)->Name("bool_zip/memcpy_24KiB/memcpy")->Arg(3 * kBytes);

// A second floor: at these sizes glibc's memcpy may take its `rep movsb` path, which on some
// hosts (virtual machines among them) copies far below the memory's speed, so a plain 64-bit word
// copy loop is timed beside it (bench: `bool_zip/memcpy_24KiB/memcpy` against
// `bool_zip/copy_24KiB/word_loop`).
[[gnu::noinline]] void CopyWords(const uint64_t* src, uint64_t* dst, size_t words) {
  for (size_t i = 0; i < words; ++i) dst[i] = src[i];
}
void WordCopy(benchmark::State& state) {
  const size_t words = static_cast<size_t>(state.range(0)) / 8;
  std::vector<uint64_t> src(words, 1), dst(words);
  for (auto _ : state) {
    CopyWords(src.data(), dst.data(), words);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(words * 8));
}
BENCHMARK(WordCopy)->Name("bool_zip/copy_24KiB/word_loop")->Arg(3 * kBytes);
BENCHMARK(WordCopy)->Name("bytebool_pack/copy_64KiB/word_loop")->Arg(kRows);
BENCHMARK(Memcpy)->Name("bool_zip/memcpy_48KiB/memcpy")->Arg(6 * kBytes);
BENCHMARK(Memcpy)->Name("bytebool_pack/memcpy_64KiB/memcpy")->Arg(kRows);

}  // namespace
