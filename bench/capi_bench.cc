// The C API's cost a batch (bench). `capi/i32_mul_add/{evaluate,prepared}`: a C host's batch loop
// over `a * b + c` (i32, all valid) at 8, 64 and 65,536 rows: import the batch (a struct
// ArrowArray and its schema, moved in), rowjit_evaluate or rowjit_prepared_evaluate, release the
// result, free the batch. `prepared_imported`: the batch imported once, the loop evaluates and
// releases the result (what a second expression over the same batch costs). `prepared_into`: the
// batch imported each call, the result written into memory the host allocated once
// (rowjit_prepared_evaluate_into: no export, no release). `prepared_buffers`: the same from the
// host's column buffers as they are (rowjit_prepared_evaluate_buffers: no import). The host's batch is
// structs over buffers made once, whose release only marks them released, so the figure is
// rowjit's side of the call; `jit_prepared` in the `into` family is the same work through the
// C++ API without the import and export.
#include <benchmark/benchmark.h>

#include <array>

#include "bench_support.h"
#include "capi/rowjit.h"

namespace rowjit::bench {
namespace {

// A struct batch of three i32 columns as a C producer lays it out, refilled before every import.
class HostBatch {
 public:
  explicit HostBatch(std::vector<ArrayPtr> cols) : cols_(std::move(cols)), length_(cols_[0]->length()) {
    for (size_t i = 0; i < 3; ++i) {
      values_[i] = static_cast<const PrimitiveArray&>(*cols_[i]).values<int32_t>();
    }
  }

  // Fresh structs (the previous import released them): the batch and its schema.
  void Fill() {
    for (size_t i = 0; i < 3; ++i) {
      buffers_[i] = {nullptr, values_[i]};
      children_[i] = ArrowArray{.length = length_, .null_count = 0, .offset = 0, .n_buffers = 2, .n_children = 0,
                                .buffers = buffers_[i].data(), .children = nullptr, .dictionary = nullptr,
                                .release = ReleaseArray, .private_data = nullptr};
      child_ptrs_[i] = &children_[i];
      fields_[i] = ArrowSchema{.format = "i", .name = kNames[i], .metadata = nullptr, .flags = 0, .n_children = 0,
                               .children = nullptr, .dictionary = nullptr, .release = ReleaseSchema,
                               .private_data = nullptr};
      field_ptrs_[i] = &fields_[i];
    }
    batch_ = ArrowArray{.length = length_, .null_count = 0, .offset = 0, .n_buffers = 1, .n_children = 3,
                        .buffers = no_validity_.data(), .children = child_ptrs_.data(), .dictionary = nullptr,
                        .release = ReleaseArray, .private_data = nullptr};
    schema_ = ArrowSchema{.format = "+s", .name = "", .metadata = nullptr, .flags = 0, .n_children = 3,
                          .children = field_ptrs_.data(), .dictionary = nullptr, .release = ReleaseSchema,
                          .private_data = nullptr};
  }
  ArrowArray* batch() { return &batch_; }
  const int32_t* values(size_t i) const { return values_[i]; }
  ArrowSchema* schema() { return &schema_; }

 private:
  static constexpr const char* kNames[3] = {"a", "b", "c"};
  static void ReleaseArray(ArrowArray* a) {
    for (int64_t i = 0; i < a->n_children; ++i) {
      if (a->children[i]->release != nullptr) a->children[i]->release(a->children[i]);
    }
    a->release = nullptr;
  }
  static void ReleaseSchema(ArrowSchema* s) {
    for (int64_t i = 0; i < s->n_children; ++i) {
      if (s->children[i]->release != nullptr) s->children[i]->release(s->children[i]);
    }
    s->release = nullptr;
  }

  std::vector<ArrayPtr> cols_;  // the buffers the batch points into
  int64_t length_;
  std::array<const int32_t*, 3> values_{};
  std::array<std::array<const void*, 2>, 3> buffers_{};
  std::array<const void*, 1> no_validity_{nullptr};
  std::array<ArrowArray, 3> children_{};
  std::array<ArrowArray*, 3> child_ptrs_{};
  std::array<ArrowSchema, 3> fields_{};
  std::array<ArrowSchema*, 3> field_ptrs_{};
  ArrowArray batch_{};
  ArrowSchema schema_{};
};

enum class How : uint8_t { kEvaluate, kPrepared, kPreparedImported, kPreparedInto, kPreparedBuffers };

void RunCapi(benchmark::State& state, How how) {
  const int64_t rows = state.range(0);
  const std::vector<ColumnSpec> specs(3, ColumnSpec{TypeId::kI32, false, false});
  HostBatch host(MakeColumns(specs, rows, 1.0, NullLayout::kScattered, 37));
  rowjit_engine_options options;
  rowjit_engine_options_init(&options);
  options.synchronous = 1;
  rowjit_engine* engine = nullptr;
  rowjit_expr* expr = nullptr;
  rowjit_prepared* handle = nullptr;
  rowjit_error err;
  host.Fill();
  bool ok = rowjit_engine_create(&options, &engine, &err) == ROWJIT_OK &&
            rowjit_expr_parse(engine, "a * b + c", host.schema(), &expr, &err) == ROWJIT_OK &&
            rowjit_prepare(engine, expr, &handle, &err) == ROWJIT_OK;
  std::vector<int32_t> values(static_cast<size_t>(rows));  // kPreparedInto's result memory
  const rowjit_output into{values.data(), rows * 4, nullptr, 0};
  // Evaluates over an imported batch and releases the result.
  auto evaluate = [&](const rowjit_batch* batch) -> rowjit_status {
    if (how == How::kPreparedInto) return rowjit_prepared_evaluate_into(handle, batch, &into, nullptr, &err);
    ArrowArray out;
    ArrowSchema out_schema;
    const rowjit_status s = how == How::kEvaluate ? rowjit_evaluate(engine, expr, batch, &out, &out_schema, &err)
                                                  : rowjit_prepared_evaluate(handle, batch, &out, &out_schema, &err);
    if (s == ROWJIT_OK) {
      out.release(&out);
      out_schema.release(&out_schema);
    }
    return s;
  };
  rowjit_batch* imported = nullptr;  // kPreparedImported's batch
  // kPreparedBuffers' columns: the host's buffers as they are, nothing imported.
  const std::array<rowjit_column, 3> raw = {rowjit_column{host.values(0), nullptr}, rowjit_column{host.values(1), nullptr},
                                            rowjit_column{host.values(2), nullptr}};
  // One call: import (unless imported once, or raw buffers), evaluate, free the batch.
  auto call = [&]() -> rowjit_status {
    if (how == How::kPreparedImported) return evaluate(imported);
    if (how == How::kPreparedBuffers) {
      return rowjit_prepared_evaluate_buffers(handle, raw.data(), raw.size(), rows, &into, nullptr, &err);
    }
    host.Fill();
    rowjit_batch* batch = nullptr;
    rowjit_status s = rowjit_batch_import(host.batch(), host.schema(), &batch, &err);
    if (s == ROWJIT_OK) s = evaluate(batch);
    rowjit_batch_free(batch);
    return s;
  };
  if (ok && how == How::kPreparedImported) {
    host.Fill();
    ok = rowjit_batch_import(host.batch(), host.schema(), &imported, &err) == ROWJIT_OK;
  }
  ok = ok && call() == ROWJIT_OK;
  if (!ok) {
    state.SkipWithError(err.message);
  } else {
    for (auto _ : state) benchmark::DoNotOptimize(call());
    SetCounters(state, rows, 16 * 8);
  }
  rowjit_batch_free(imported);
  rowjit_prepared_free(handle);
  rowjit_expr_free(expr);
  rowjit_engine_free(engine);
}

const bool kRegistered = [] {
  const std::pair<How, const char*> impls[] = {
      {How::kEvaluate, "evaluate"}, {How::kPrepared, "prepared"}, {How::kPreparedImported, "prepared_imported"},
      {How::kPreparedInto, "prepared_into"}, {How::kPreparedBuffers, "prepared_buffers"}};
  for (const auto& [how, name] : impls) {
    auto* b = benchmark::RegisterBenchmark(fmt::format("capi/i32_mul_add/{}", name).c_str(),
                                           [how](benchmark::State& state) { RunCapi(state, how); });
    for (int64_t rows : {int64_t{8}, int64_t{64}, kSmallRows}) b->Args({rows});
    b->ArgNames({"rows"});
  }
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
