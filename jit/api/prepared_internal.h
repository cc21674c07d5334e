// Prepared handles (jit layer, api room, internal): the table of batch layouts a handle has
// planned, shared by prepared expressions (jit/api/prepared.cc), projections (jit/api/project.cc)
// and aggregates (jit/api/prepared_aggregate.cc).
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "jit/api/engine_impl.h"

namespace rowjit::jit::internal {

// One batch layout and what runs on it.
struct PreparedLayout {
  std::vector<ir::InputSpec> inputs;  // per referenced column, in ExprFacts::columns order
  BatchFacts::Rows rows = BatchFacts::Rows::kAllValid;
  Route route = Route::kKernel;  // the route it was planned on (its route's kernel: the plan's)
  Strategy strategy = Strategy::kEmpty;
  std::optional<CacheKey> key;                   // the plan's kernel (none without a kernel)
  std::shared_ptr<const CompiledKernel> kernel;  // held: no cache lookup per call
  // Projections: the dense kernel over inputs with nulls, each output taking the AND of its own
  // columns' validity.
  bool output_validity = false;
  bool stream_output = false;  // planned for a batch past the streaming threshold
  bool short_batch = false;    // planned for a batch of fewer than 64 rows (KernelShape::short_batch)
  // A prepared expression's direct call (PreparedExpressionState::RunDirect) may run this layout:
  // its kernel is dense (RunsDirect) over primitive or constant columns.
  bool direct = false;
  int64_t input_row_bytes = 0;       // the bytes a row of the referenced inputs takes (StreamsOutput)
  double evaluation_bytes_per_row = 0;  // Admit's estimate (EngineImpl::EvaluationBytesPerRow)
  // A speculative kernel's exact twin (KernelShape::speculative_mul), once a batch of this layout
  // needed it: held for the batches the kernel sends it. Set once, under `twin_mu`, before
  // `has_twin`.
  mutable std::mutex twin_mu;
  mutable std::shared_ptr<const CompiledKernel> twin_kernel;
  mutable std::optional<CacheKey> twin_key;
  mutable std::atomic<bool> has_twin{false};
};

// Whether the kernel that ran is the one to hold: the tier the options ask for (the fast one
// only when forced), so that a tiered engine's later optimized kernel is not missed.
inline bool Holdable(const CompiledKernel& kernel, const EvalOptions& options) {
  const Tier want = options.tier == Tier::kFast ? Tier::kFast : Tier::kOptimized;
  return kernel.tier() == want;
}

// The referenced columns of a batch as a layout compares them: described in place for the
// common case of up to 16 of them.
struct BatchInputs {
  ir::InputSpec inline_specs[16];
  std::vector<ir::InputSpec> more;  // wider expressions
  bool any_nulls = false;
  bool decode = false;  // a column kernels cannot read as it is: the engine's path decodes it

  BatchInputs(const std::vector<int>& refs, std::span<const ArrayPtr> columns) {
    if (refs.size() > std::size(inline_specs)) more.resize(refs.size());
    ir::InputSpec* specs = more.empty() ? inline_specs : more.data();
    for (size_t k = 0; k < refs.size(); ++k) {
      const Array& a = *columns[refs[k]];
      decode = decode || NeedsDecoding(a);
      specs[k] = ir::DescribeInput(a);
      any_nulls = any_nulls || specs[k].has_nulls;
    }
  }
  const ir::InputSpec& operator[](size_t k) const { return more.empty() ? inline_specs[k] : more[k]; }
};

// Layouts are only ever added (up to kMaxLayouts; batches of further layouts take the engine's
// path) and live as long as the table: a call finds its layout with acquire loads, no lock.
class LayoutTable {
 public:
  static constexpr size_t kMaxLayouts = PreparedExpression::kMaxLayouts;

  // The layout of a batch whose `refs` referenced columns are `inputs`, or null when unseen.
  const PreparedLayout* Find(const BatchInputs& inputs, size_t refs, BatchFacts::Rows rows,
                             bool stream_output = false, bool short_batch = false) const {
    const size_t n = published_.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) {
      const PreparedLayout* layout = slots_[i].load(std::memory_order_acquire);
      bool same = layout->rows == rows && layout->stream_output == stream_output && layout->short_batch == short_batch;
      for (size_t k = 0; k < refs && same; ++k) same = layout->inputs[k] == inputs[k];
      if (same) return layout;
    }
    return nullptr;
  }
  void Keep(std::unique_ptr<PreparedLayout> layout) {
    std::lock_guard lock(mu_);
    for (const auto& held : owned_) {  // another thread planned it meanwhile
      if (held->rows == layout->rows && held->inputs == layout->inputs &&
          held->stream_output == layout->stream_output && held->short_batch == layout->short_batch) {
        return;
      }
    }
    const size_t n = published_.load(std::memory_order_relaxed);
    if (n == kMaxLayouts) return;
    slots_[n].store(layout.get(), std::memory_order_release);
    owned_.push_back(std::move(layout));
    published_.store(n + 1, std::memory_order_release);
  }
  size_t size() const { return published_.load(std::memory_order_acquire); }
  // Layout i < size().
  const PreparedLayout& operator[](size_t i) const { return *slots_[i].load(std::memory_order_acquire); }

 private:
  std::array<std::atomic<const PreparedLayout*>, kMaxLayouts> slots_{};
  std::atomic<size_t> published_{0};  // slots [0, published_) are set
  std::mutex mu_;                     // adding a layout
  std::vector<std::unique_ptr<const PreparedLayout>> owned_;
};

}  // namespace rowjit::jit::internal
