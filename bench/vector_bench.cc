// Vector scores over fixed_size_list columns (bench): `vectors/<score>_<elem>_<dim>/<impl>` over
// `rows` vectors against a literal query, the JIT's vector kernel (`jit`: a prepared expression
// over the whole batch, its result allocated per call; `bottom_k10_...`: the ten nearest rows by
// Engine::TopK, the scores and the selection) beside a hand-written loop compiled with
// -O3 -march=native (`loop`) and the memory floor of reading the same bytes (`read_floor`). The
// vectors are far larger than the caches: the figures that matter are bytes per second and the
// ratio to the floor.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "bench_support.h"
#include "ir/binder.h"
#include "ir/top_k.h"
#include "vector_loops.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kDim = 768;
constexpr int64_t kVectorRows = int64_t{1} << 20;

// `rows` vectors of `dim` elements of `elem` (f32, f16 or i8), values uniform in [-1, 1) (i8:
// [-127, 127]),
// generated in place (a Scalar an element would take minutes at this size).
struct VectorData {
  ArrayPtr column;
  std::string query;        // the literal
  std::vector<float> query_f32;
};

const VectorData& Data(TypeId elem, int64_t rows, int64_t dim) {
  static std::map<std::tuple<TypeId, int64_t, int64_t>, VectorData> cache;
  auto [it, inserted] = cache.try_emplace({elem, rows, dim});
  if (!inserted) return it->second;
  VectorData& d = it->second;
  const DataType type = *DataType::FixedList(elem, dim);
  BufferPtr values = *Buffer::Allocate(rows * type.ListRowBytes());
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int64_t i = 0; i < rows * dim; ++i) {
    const uint64_t r = next();
    if (elem == TypeId::kI8) {
      values->mutable_data()[i] = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int>(r % 255) - 127));
    } else if (elem == TypeId::kF16) {
      const auto h = static_cast<_Float16>(static_cast<double>(r >> 11) / 9007199254740992.0 * 2 - 1);
      std::memcpy(values->mutable_data() + i * 2, &h, 2);
    } else if (elem == TypeId::kBF16) {
      const uint16_t h = Bf16Of(static_cast<double>(r >> 11) / 9007199254740992.0 * 2 - 1);
      std::memcpy(values->mutable_data() + i * 2, &h, 2);
    } else {
      const float f = static_cast<float>(static_cast<double>(r >> 11) / 9007199254740992.0 * 2 - 1);
      std::memcpy(values->mutable_data() + i * 4, &f, 4);
    }
  }
  d.column = *FixedListArray::Make(type, rows, values, Validity::AllValid());
  d.query = "[";
  for (int64_t j = 0; j < dim; ++j) {
    const uint64_t r = next();
    const float f = elem == TypeId::kI8 ? static_cast<float>(static_cast<int>(r % 255) - 127)
                                        : static_cast<float>(static_cast<double>(r >> 11) / 9007199254740992.0 * 2 - 1);
    d.query_f32.push_back(f);
    d.query += fmt::format("{}{}", j ? ", " : "", f);
  }
  d.query += "]";
  return d;
}

void SetBytes(benchmark::State& state, const VectorData& d) {
  const int64_t bytes = d.column->length() * d.column->type().ListRowBytes();
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * d.column->length());
}

void Jit(benchmark::State& state, const char* score, TypeId elem) {
  const VectorData& d = Data(elem, state.range(0), kDim);
  const Schema schema{{{"v", d.column->type()}}};
  auto expr = ir::ParseAndBind(fmt::format("{}(v, {})", score, d.query), schema);
  if (!expr.ok()) {
    state.SkipWithError(expr.error().ToString().c_str());
    return;
  }
  auto prepared = SharedEngine().PrepareExpression(*expr);
  if (!prepared.ok()) {
    state.SkipWithError(prepared.error().ToString().c_str());
    return;
  }
  const ArrayPtr columns[] = {d.column};
  for (auto _ : state) {
    auto out = (*prepared)->Evaluate(columns, d.column->length());
    if (!out.ok()) {
      state.SkipWithError(out.error().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->get());
  }
  SetBytes(state, d);
}

// bottom_k(l2_distance(v, query), 10): the scores and the selection over them (Engine::TopK).
void TopKJit(benchmark::State& state) {
  const VectorData& d = Data(TypeId::kF32, state.range(0), kDim);
  const Schema schema{{{"v", d.column->type()}}};
  auto top = ir::ParseAndBindTopK(fmt::format("bottom_k(l2_distance(v, {}), 10)", d.query), schema);
  if (!top.ok()) {
    state.SkipWithError(top.error().ToString().c_str());
    return;
  }
  const ArrayPtr columns[] = {d.column};
  for (auto _ : state) {
    ir::TopKState kept(*top);
    if (Status s = SharedEngine().TopK(*top, columns, d.column->length(), kept); !s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(kept.size());
  }
  SetBytes(state, d);
}

void Loop(benchmark::State& state, bool cosine) {
  const VectorData& d = Data(TypeId::kF32, state.range(0), kDim);
  const auto* v = reinterpret_cast<const float*>(static_cast<const FixedListArray&>(*d.column).raw_values());
  std::vector<float> out(static_cast<size_t>(d.column->length()));
  for (auto _ : state) {
    if (cosine) {
      vectors::CosineLoop(v, d.query_f32.data(), d.column->length(), kDim, out.data());
    } else {
      vectors::L2DistanceLoop(v, d.query_f32.data(), d.column->length(), kDim, out.data());
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetBytes(state, d);
}

void Floor(benchmark::State& state, TypeId elem) {
  const VectorData& d = Data(elem, state.range(0), kDim);
  const auto& list = static_cast<const FixedListArray&>(*d.column);
  for (auto _ : state) {
    benchmark::DoNotOptimize(vectors::ReadFloor(list.raw_values(), list.length() * list.type().ListRowBytes()));
  }
  SetBytes(state, d);
}

void Register() {
  auto rows = [](benchmark::internal::Benchmark* b) {
    b->ArgName("rows")->Arg(kVectorRows)->Unit(benchmark::kMillisecond)->UseRealTime();
  };
  rows(benchmark::RegisterBenchmark("vectors/read_floor_f32_768/static", Floor, TypeId::kF32));
  rows(benchmark::RegisterBenchmark("vectors/l2_distance_f32_768/jit", Jit, "l2_distance", TypeId::kF32));
  rows(benchmark::RegisterBenchmark("vectors/l2_distance_f32_768/loop", Loop, false));
  rows(benchmark::RegisterBenchmark("vectors/cosine_similarity_f32_768/jit", Jit, "cosine_similarity", TypeId::kF32));
  rows(benchmark::RegisterBenchmark("vectors/cosine_similarity_f32_768/loop", Loop, true));
  rows(benchmark::RegisterBenchmark("vectors/dot_f32_768/jit", Jit, "dot", TypeId::kF32));
  rows(benchmark::RegisterBenchmark("vectors/bottom_k10_l2_distance_f32_768/jit", TopKJit));
  rows(benchmark::RegisterBenchmark("vectors/read_floor_f16_768/static", Floor, TypeId::kF16));
  rows(benchmark::RegisterBenchmark("vectors/l2_distance_f16_768/jit", Jit, "l2_distance", TypeId::kF16));
  // bf16 rows are f16's bytes: read_floor_f16_768 is their floor too.
  rows(benchmark::RegisterBenchmark("vectors/l2_distance_bf16_768/jit", Jit, "l2_distance", TypeId::kBF16));
  rows(benchmark::RegisterBenchmark("vectors/read_floor_i8_768/static", Floor, TypeId::kI8));
  rows(benchmark::RegisterBenchmark("vectors/l2_squared_i8_768/jit", Jit, "l2_squared", TypeId::kI8));
  rows(benchmark::RegisterBenchmark("vectors/dot_i8_768/jit", Jit, "dot", TypeId::kI8));
}

const int registered = (Register(), 0);

}  // namespace
}  // namespace rowjit::bench
