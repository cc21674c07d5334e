// The planner (jit layer, plan room): the one function that turns an expression's facts, a
// batch's facts and a policy into a strategy and the kernel it runs, for the calls whose route
// (jit/plan/route.h) runs one kernel. The engine executes its plans; `rowjit ir`, `check`,
// `explain` and the catalog gate inspect the kernels it names, so what is gated is what runs.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/aggregate.h"
#include "ir/query.h"
#include "ir/analysis.h"
#include "ir/spec_key.h"
#include "jit/base/kernel_abi.h"
#include "runtime/array.h"

namespace rowjit::jit {

// Nodes one kernel may hold; larger expressions run in stages (EngineOptions::max_kernel_nodes).
inline constexpr int64_t kDefaultMaxKernelNodes = 128;
// The fewest nodes a kernel may be limited to (EngineOptions::max_kernel_nodes).
inline constexpr int64_t kMinKernelNodes = 5;

// How the executor lifts a kernel over one batch.
enum class Strategy : uint8_t {
  kEmpty,          // no rows
  kNullConstant,   // a strict expression over a null constant, or rows all null: no kernel
  kConstant,       // every input constant: evaluated once, broadcast
  kDense,          // every row computed, validity the AND of the inputs' (outside the kernel)
  kDenseRetry,     // dense; evidence on a batch with nulls reruns the valid rows for evidence only
  kBranchSkip,     // dense over words with a valid row; evidence only from valid rows
  kFilterScatter,  // the valid rows compacted, computed, scattered back
  kValidity,       // a null-aware kernel computes validity row by row
  kFold,           // a reduction template
};
std::string_view StrategyName(Strategy s);

// What the planner knows of one batch. From arrays (DescribeBatch) or from a described schema
// (the CLI and the gates: DescribeSpecs).
struct BatchFacts {
  int64_t length = 0;
  std::vector<ir::InputSpec> inputs = {};  // one per schema column; only referenced ones read
  // The AND of the referenced inputs' validity, for strict-row expressions (others: all valid).
  enum class Rows : uint8_t { kAllValid, kSomeNull, kAllNull } rows = Rows::kAllValid;
  double surviving = 1.0;  // the fraction of rows in that AND, when rows == kSomeNull
  // The engine saw rows behind nulls fail for this expression recently: policy `auto` runs the
  // valid rows only for a while (jit/plan/retry_pressure.h).
  bool prefer_valid_only = false;
  // The output is larger than the last-level cache and lands 64-byte aligned: a dense row loop
  // writes it with streaming stores (KernelShape::stream_output). Set by the engine.
  bool stream_output = false;
};

// Whether a batch of `length` rows takes a short batch's kernel (KernelShape::short_batch).
inline bool IsShortBatch(int64_t length) { return length > 0 && length < 64; }

// A batch described by input specs: rows with nulls are assumed to hold some valid rows.
BatchFacts DescribeSpecs(const ir::ExprFacts& facts, std::vector<ir::InputSpec> specs,
                         int64_t length = 64 * 1024);

struct Plan {
  Strategy strategy = Strategy::kEmpty;
  std::optional<CacheKey> kernel;  // the kernel the strategy runs (none for empty and constants)
};

// The plan for evaluating `expr` over a batch (its route runs one kernel). Policy kAuto: dense
// for expressions that cannot fail, dense with retry for those that can, valid-only
// (branch-and-skip or filter-and-scatter by surviving fraction and decode cost) while retry
// pressure holds; forced policies are obeyed where they apply (a batch without nulls always runs
// dense).
Plan PlanEvaluation(const ir::ExprPtr& expr, const BatchFacts& batch, ir::Policy policy,
                    const std::string& target = "native");

// The plan of a reduction template: its fold kernel, flat (one row loop) or over words.
Plan PlanAggregate(const ir::Aggregate& aggregate, const BatchFacts& batch,
                   const std::string& target = "native");

// What a query's grouped fold kernel folds: a query whose aggregates are all count(*) and sums and
// averages of integers and decimals (8 to 128 bits), without FILTER. None for other queries.
struct GroupedFoldPlan {
  ir::ExprPtr root;         // project(mask, arg1, ..., argK): WHERE (or true), then the arguments
  std::vector<int> output;  // per aggregate: its argument's output (1..K), or 0 for count(*)
};
std::optional<GroupedFoldPlan> PlanQueryFold(const ir::Query& query);
// The slot count of the kernel that folds a block of `groups` groups (at most kMaxGroupedSlots):
// the next power of two, so that few kernels serve every block.
int GroupedFoldSlots(int64_t groups);

// The grouped fold kernel (KernelShape::grouped_slots) of `root`, the projection of a query's mask
// and its summed arguments, over `slots` slots and dense inputs of the types `specs` name.
Plan PlanGroupedFold(const ir::ExprPtr& root, std::vector<ir::InputSpec> specs, int slots,
                     const std::string& target = "native");

// The kernel an evaluation runs for inputs described by `specs` (one per schema column) under
// `policy`: PlanEvaluation over DescribeSpecs. What `rowjit ir`, `check` and the gates inspect.
// An error when such a batch runs no kernel (every input constant) or no one kernel (an
// expression larger than kDefaultMaxKernelNodes runs staged: RouteDescribed).
Result<CacheKey> PlanKernel(const ir::ExprPtr& expr, std::vector<ir::InputSpec> specs,
                            ir::Policy policy, const std::string& target = "native");
// The same for a real batch, described as the engine describes it (validity counted).
Result<CacheKey> PlanKernel(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                            int64_t length, ir::Policy policy, const std::string& target = "native");

// The vector kernel of a vector function's call (ir::IsVectorScore: KernelShape::vector_score),
// for `specs` describing the schema's columns (only the call's own are kept, as flat vectors):
// strategy dense, every row scored.
Plan PlanVectorScore(const ir::ExprPtr& call, std::vector<ir::InputSpec> specs,
                     const std::string& target = "native");

// The fold kernel of a reduction template for inputs described by `specs`.
CacheKey PlanFold(const ir::Aggregate& aggregate, std::vector<ir::InputSpec> specs,
                  const std::string& target = "native");
// The same for a real batch, described as the engine describes it.
Result<CacheKey> PlanFold(const ir::Aggregate& aggregate, std::span<const ArrayPtr> columns,
                          int64_t length, const std::string& target = "native");

// Valid-only strategies: branch-and-skip while at least this fraction of the rows survives,
// filter-and-scatter below, by the summed decode cost of the expression and its inputs.
double BranchSkipFrom(int decode_cost);

}  // namespace rowjit::jit
