// Shared pieces of the JIT-vs-static benchmark families (bench): random columns built outside the
// timing loop, the `jit` and `jit_kernel` runners, raw views for the static and scalar loops, and
// the items/bytes counters. Names are `family/case/impl`, arguments rows x valid percent.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/binder.h"
#include "jit/api/engine.h"
#include "kernels/bitmap.h"
#include "runtime/array.h"
#include "runtime/random.h"

namespace rowjit::bench {

inline constexpr int64_t kSmallRows = 65536;
inline constexpr int64_t kLargeRows = int64_t{1} << 22;  // 4M
inline constexpr int64_t kHotRows = 2048;  // one engine vector, called again and again: in L1

// Synchronous compiles unless asked: a run-time benchmark measures the optimized kernel from its
// first iteration on.
// ROWJIT_BENCH_VECTOR_WIDTHS ("512", "512/256": row kernels / folds, as the CLI's --vector-width)
// sets EngineOptions::vector_widths, so that one binary compares widths.
inline std::unique_ptr<jit::Engine> MakeEngine(
    jit::EngineOptions options = {.compile = jit::EngineOptions::Compile::kSynchronous}) {
  if (const char* widths = std::getenv("ROWJIT_BENCH_VECTOR_WIDTHS"); widths != nullptr && *widths != 0) {
    auto parsed = jit::ParseVectorWidths(widths);
    if (!parsed.ok()) std::abort();
    options.vector_widths = *parsed;
  }
  auto e = jit::Engine::Make(std::move(options));
  if (!e.ok()) std::abort();
  return std::move(*e);
}

// One engine for every run-time benchmark: kernels compile on the warm-up call and are cached.
inline jit::Engine& SharedEngine() {
  static std::unique_ptr<jit::Engine> engine = MakeEngine();
  return *engine;
}

// Columns for one case. `nullable`: which columns may hold nulls (at `valid_fraction`, laid out
// per `layout`); values are moderate, so a * b + c does not overflow. Fixed seed per column.
struct ColumnSpec {
  TypeId type = TypeId::kI32;
  bool nullable = false;
  bool dictionary = false;   // re-encoded as a dictionary (decode cost 1)
};
// The rows of `flat` as i32 codes (nulls where flat has them) into 1024 distinct values. Built
// here rather than with AsDictionary, which gives i16 codes to 32,769 distinct values.
inline ArrayPtr SmallDictionary(const ArrayPtr& flat, std::mt19937_64& rng) {
  constexpr int64_t kValues = 1024;
  const int64_t n = flat->length();
  BufferPtr codes = *Buffer::Allocate(n * 4);
  auto* c = reinterpret_cast<int32_t*>(codes->mutable_data());
  for (int64_t i = 0; i < n; ++i) c[i] = static_cast<int32_t>(rng() % kValues);
  auto code_array = PrimitiveArray::Make(DataType(TypeId::kI32, flat->type().nullable), n, codes,
                                         static_cast<const PrimitiveArray&>(*flat).validity());
  ArraySpec vs;
  vs.type = DataType(flat->type().id, false);
  vs.length = kValues;
  vs.values = ValueMode::kModerate;
  auto dict = DictionaryArray::Make(*code_array, RandomFlatArray(vs, rng));
  if (!code_array.ok() || !dict.ok()) std::abort();
  return *dict;
}

// RandomFlatArray's moderate numbers (ValueMode::kModerate), written straight into the array's
// buffers: the same draws in the same order, so the same arrays, without a Scalar per row, which
// makes building a 4M-row column take seconds — most of a short benchmark run. Null rows hold 0,
// as MakeArray leaves them.
template <typename T>
ArrayPtr ModerateNumbers(const ArraySpec& spec, std::mt19937_64& rng) {
  const int64_t n = spec.length;
  BufferPtr values = *Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)));
  BufferPtr bits = *AllocateBitmap(n);
  T* v = reinterpret_cast<T*>(values->mutable_data());
  std::uniform_real_distribution<double> unit(0, 1);
  bool in_null_run = false;
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool valid = true;
    if (spec.type.nullable && spec.layout == NullLayout::kScattered) {
      valid = unit(rng) < spec.valid_fraction;
    } else if (spec.type.nullable) {
      if (i % 256 == 0) in_null_run = unit(rng) >= spec.valid_fraction;  // runs of 256 rows
      valid = !in_null_run;
    }
    if (!valid) {
      v[i] = T{};
      ++nulls;
      continue;
    }
    kernels::SetBitTo(bits->mutable_data(), i, true);
    if constexpr (std::is_floating_point_v<T>) {
      v[i] = static_cast<T>(std::uniform_real_distribution<double>(-1000, 1000)(rng));
    } else {  // ModerateValue: within a quarter of the type's bits (less the sign)
      constexpr int kBits = static_cast<int>(sizeof(T)) * 4 - (std::is_signed_v<T> ? 2 : 1);
      constexpr uint64_t kSpan = uint64_t{1} << kBits;
      v[i] = std::is_signed_v<T> ? static_cast<T>(static_cast<int64_t>(rng() % (2 * kSpan + 1)) - static_cast<int64_t>(kSpan))
                                 : static_cast<T>(rng() % (kSpan + 1));
    }
  }
  Validity validity = nulls == 0 ? Validity::AllValid()
                      : nulls == n ? Validity::AllNull()
                                   : *Validity::FromBitmap(bits, 0, n);
  return *PrimitiveArray::Make(spec.type, n, std::move(values), validity);
}

// A random column per `spec`: flat numbers through ModerateNumbers, the rest through
// RandomFlatArray.
inline ArrayPtr RandomColumn(const ArraySpec& spec, std::mt19937_64& rng) {
  const TypeId id = spec.type.id;
  if (spec.values != ValueMode::kModerate || spec.bit_offset != 0 || spec.type.is_logical() || !IsNumeric(id) ||
      spec.length == 0) {
    return RandomFlatArray(spec, rng);
  }
  return VisitType(id, [&]<typename T>(std::type_identity<T>) -> ArrayPtr {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      return ModerateNumbers<T>(spec, rng);
    } else {
      return RandomFlatArray(spec, rng);
    }
  });
}

inline std::vector<ArrayPtr> MakeColumns(const std::vector<ColumnSpec>& specs, int64_t rows,
                                         double valid_fraction, NullLayout layout, uint64_t seed) {
  std::vector<ArrayPtr> cols;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::mt19937_64 rng(seed * 1000 + i);
    ArraySpec spec;
    spec.type = DataType(specs[i].type, specs[i].nullable);
    spec.length = rows;
    spec.valid_fraction = specs[i].nullable ? valid_fraction : 1.0;
    spec.layout = layout;
    spec.values = ValueMode::kModerate;
    ArrayPtr a = RandomColumn(spec, rng);
    if (specs[i].dictionary) a = SmallDictionary(a, rng);
    cols.push_back(std::move(a));
  }
  return cols;
}

inline std::string SchemaText(const std::vector<ColumnSpec>& specs) {
  std::string s;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i) s += ", ";
    s += std::string(1, static_cast<char>('a' + i)) + ":" + std::string(TypeIdName(specs[i].type)) +
         (specs[i].nullable ? "?" : "");
  }
  return s;
}

inline ir::ExprPtr Bind(const std::string& text, const std::string& schema) {
  auto s = ParseSchema(schema);
  if (!s.ok()) std::abort();
  auto e = ir::ParseAndBind(text, *s);
  if (!e.ok()) {
    std::fprintf(stderr, "bench: %s: %s\n", text.c_str(), e.error().ToString().c_str());
    std::abort();
  }
  return *e;
}

// A bound expression made on first use: benchmarks register during static initialization, before
// the function catalog is guaranteed to exist, so binding waits for the first run.
class LazyExpr {
 public:
  LazyExpr(std::string text, std::string schema)
      : text_(std::move(text)), schema_(std::move(schema)), bound_(std::make_shared<ir::ExprPtr>()) {}
  const ir::ExprPtr& get() const {
    if (!*bound_) *bound_ = Bind(text_, schema_);
    return *bound_;
  }

 private:
  std::string text_, schema_;
  std::shared_ptr<ir::ExprPtr> bound_;
};

template <typename T>
const T* Values(const ArrayPtr& a) {
  return static_cast<const PrimitiveArray&>(*a).values<T>();
}
inline kernels::BitSpan ValidSpan(const ArrayPtr& a) {
  const Validity& v = static_cast<const PrimitiveArray&>(*a).validity();
  return v.has_bitmap() ? v.Span(a->length()) : kernels::BitSpan{};
}

// Output storage reused across iterations (the static side's best case: no allocation).
template <typename T>
struct Scratch {
  BufferPtr buffer;
  explicit Scratch(int64_t n) : buffer(*Buffer::Allocate(n * static_cast<int64_t>(sizeof(T)) + 64)) {}
  T* data() { return reinterpret_cast<T*>(buffer->mutable_data()); }
};

inline void SetCounters(benchmark::State& state, int64_t rows, int64_t bytes_per_row_x8) {
  state.SetItemsProcessed(state.iterations() * rows);
  state.SetBytesProcessed(state.iterations() * rows * bytes_per_row_x8 / 8);
}

// `jit`: the public API, Engine::Evaluate, after one warm-up call that compiles the kernel.
// The strategy the executor chose is reported as a label.
inline void RunJit(benchmark::State& state, const ir::ExprPtr& expr,
                   const std::vector<ArrayPtr>& cols, int64_t rows,
                   ir::Policy policy = ir::Policy::kAuto) {
  jit::Engine& engine = SharedEngine();
  jit::EvalReport report;
  {
    // Warm: the kernel compiled and the output's memory faulted in, then freed (to the output
    // pool) before the timed loop, which then runs as a batch loop does.
    auto warm = engine.Evaluate(expr, cols, rows, jit::EvalOptions{policy}, &report);
    if (!warm.ok()) {
      state.SkipWithError(warm.error().ToString().c_str());
      return;
    }
  }
  for (auto _ : state) {
    auto r = engine.Evaluate(expr, cols, rows, jit::EvalOptions{policy});
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(jit::StrategyName(report.strategy)));
}

// `jit_prepared`: the same through a PreparedExpression (planned and held once per layout).
inline void RunJitPrepared(benchmark::State& state, const ir::ExprPtr& expr,
                           const std::vector<ArrayPtr>& cols, int64_t rows) {
  auto prepared = SharedEngine().PrepareExpression(expr);
  if (!prepared.ok()) {
    state.SkipWithError(prepared.error().ToString().c_str());
    return;
  }
  jit::EvalReport report;
  {
    auto warm = (*prepared)->Evaluate(cols, rows, &report);  // freed before the loop, as RunJit's
    if (!warm.ok()) {
      state.SkipWithError(warm.error().ToString().c_str());
      return;
    }
  }
  for (auto _ : state) {
    auto r = (*prepared)->Evaluate(cols, rows);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(jit::StrategyName(report.strategy)));
}

// `jit_prepared_chunks2048`: the same handle called on zero-copy slices of `chunk` rows (made
// before timing), as an engine calls at its vector size: against `jit_prepared` over the whole
// batch, what a call costs beside its kernel.
// `how`: the engine allocates each result (Evaluate), or each chunk's result is written into one
// output the bench lends, as a host reusing its vectors does (WriteInto from the arrays,
// WriteBuffers from their raw buffers).
// A flat column as the raw buffers WriteBuffers reads (its validity at a bit offset that is a
// multiple of 64, or none).
inline jit::ColumnBuffers BuffersOf(const ArrayPtr& a) {
  const auto& p = static_cast<const PrimitiveArray&>(*a);
  const Validity& v = p.validity();
  if (a->encoding() != Encoding::kPrimitive || (v.has_bitmap() && v.bit_offset() % 64 != 0)) std::abort();
  const auto* words = v.has_bitmap() ? reinterpret_cast<const uint64_t*>(v.bitmap()->data()) + v.bit_offset() / 64
                                     : nullptr;
  return {p.raw_values(), words};
}

// How a chunked prepared run is called: Evaluate (a fresh result), WriteInto (into one output
// the bench lends) or WriteBuffers (the same from the columns' raw buffers).
enum class PreparedCall : uint8_t { kEvaluate, kWriteInto, kWriteBuffers };

inline void RunJitPreparedChunks(benchmark::State& state, const ir::ExprPtr& expr,
                                 const std::vector<ArrayPtr>& cols, int64_t rows, int64_t chunk,
                                 PreparedCall how = PreparedCall::kEvaluate) {
  auto prepared = SharedEngine().PrepareExpression(expr);
  if (!prepared.ok()) {
    state.SkipWithError(prepared.error().ToString().c_str());
    return;
  }
  std::vector<std::vector<ArrayPtr>> slices;
  std::vector<std::vector<jit::ColumnBuffers>> raw;
  for (int64_t offset = 0; offset < rows; offset += chunk) {
    std::vector<ArrayPtr> slice;
    for (const ArrayPtr& c : cols) slice.push_back(*c->Slice(offset, std::min(chunk, rows - offset)));
    if (how == PreparedCall::kWriteBuffers) {
      raw.emplace_back();
      for (const ArrayPtr& c : slice) raw.back().push_back(BuffersOf(c));
    }
    slices.push_back(std::move(slice));
  }
  jit::EvalReport report;
  {
    auto warm = (*prepared)->Evaluate(slices[0], slices[0][0]->length(), &report);
    if (!warm.ok()) {
      state.SkipWithError(warm.error().ToString().c_str());
      return;
    }
  }
  const int64_t width = std::max(ByteWidth(expr->type().id), 1);
  Scratch<uint8_t> values(chunk * width + 64), validity(chunk / 8 + 64);
  const jit::OutputBuffers out{values.data(), chunk * width + 64, validity.data(), chunk / 8 + 64};
  for (auto _ : state) {
    for (size_t i = 0; i < slices.size(); ++i) {
      const int64_t n = slices[i][0]->length();
      if (how == PreparedCall::kEvaluate) benchmark::DoNotOptimize((*prepared)->Evaluate(slices[i], n));
      if (how == PreparedCall::kWriteInto) benchmark::DoNotOptimize((*prepared)->WriteInto(slices[i], n, out));
      if (how == PreparedCall::kWriteBuffers) benchmark::DoNotOptimize((*prepared)->WriteBuffers(raw[i], n, out));
    }
  }
  state.SetLabel(std::string(jit::StrategyName(report.strategy)));
}

// Calls a row kernel over whole words.
inline uint64_t CallKernel(jit::RowKernelFn fn, const jit::KernelInput* inputs, void* out, int64_t words) {
  return fn(inputs, out, nullptr, words, 0);
}

// `jit_kernel`: the compiled kernel called directly on flat, all-valid inputs and a reused output
// (rows a multiple of 64): the kernel's own time, without the executor's allocation and setup.
// All rows in one call, or (`chunk` > 0, a multiple of 64) `chunk` rows a call into one output
// of `chunk` rows, as a host calling at its vector size would: the floor of a chunked prepared
// call.
inline void RunJitKernel(benchmark::State& state, const ir::ExprPtr& expr,
                         const std::vector<ArrayPtr>& cols, int64_t rows, int out_width, int64_t chunk = 0) {
  std::vector<ir::InputSpec> specs;
  std::vector<jit::KernelInput> inputs;
  for (const ArrayPtr& c : cols) {
    specs.push_back(ir::DescribeInput(*c));
    inputs.push_back(jit::KernelInput{static_cast<const PrimitiveArray&>(*c).raw_values()});
  }
  auto key = jit::PlanKernel(expr, specs, ir::Policy::kDense);
  if (!key.ok()) {
    state.SkipWithError(key.error().ToString().c_str());
    return;
  }
  auto kernel = SharedEngine().KernelFor(*key);
  if (!kernel.ok()) {
    state.SkipWithError(kernel.error().ToString().c_str());
    return;
  }
  const jit::RowKernelFn fn = (*kernel)->row_fn();
  if (chunk <= 0) {
    Scratch<uint8_t> out(rows * out_width);
    for (auto _ : state) {
      benchmark::DoNotOptimize(CallKernel(fn, inputs.data(), out.data(), rows / 64));
      benchmark::ClobberMemory();
    }
    return;
  }
  Scratch<uint8_t> out(chunk * out_width);
  std::vector<jit::KernelInput> at(inputs.size());
  std::vector<int64_t> widths;
  for (const ArrayPtr& c : cols) widths.push_back(ByteWidth(c->type().id));
  for (auto _ : state) {
    for (int64_t start = 0; start + chunk <= rows; start += chunk) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        at[k].values = static_cast<const uint8_t*>(inputs[k].values) + start * widths[k];
      }
      benchmark::DoNotOptimize(CallKernel(fn, at.data(), out.data(), chunk / 64));
    }
    benchmark::ClobberMemory();
  }
}

inline std::string Name(const std::string& family, const std::string& c, const std::string& impl) {
  return family + "/" + c + "/" + impl;
}

}  // namespace rowjit::bench
