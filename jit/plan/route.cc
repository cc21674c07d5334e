// The route of a call (jit layer, plan room): how a call runs, decided once (jit/plan/route.h).
#include "jit/plan/route.h"

#include "ir/analysis.h"
#include "ir/projection.h"

namespace rowjit::jit {
namespace {

// An expression over one dictionary-encoded string column of at most one value per this many
// rows runs once per dictionary value. The alternative is not a flat column but decoding this
// one, which reads the values at the codes' (random) rows, a cache miss or two a row; up to one
// value a row the values cost no more than the rows would (bench: `str_dict`).
constexpr int64_t kDictionaryRowsPerValue = 1;

// From this fraction of the batch selected on, every row is computed and the selected rows of the
// result taken; below it, the selected rows of each input are taken and only they computed
// (inputs with a decode cost are compacted by the take, so the gathered way pays off further).
// Calibrated by the `selection` benchmark family (`a * b + c` over 65,536 i32 rows, flat inputs
// and one dictionary input).
double WholeFrom(int decode_cost) { return decode_cost <= 0 ? 0.2 : 0.8; }

// The column `c` of a call, or null where the call lacks it: routes are decided before a call's
// inputs are checked (which then refuses them), so they read only the columns that are there.
const Array* ColumnOf(std::span<const ArrayPtr> columns, int c) {
  const auto i = static_cast<size_t>(c);
  return i < columns.size() ? columns[i].get() : nullptr;
}

// Whether a batch runs no kernel whatever the expression's size (the planner answers it with a
// strategy of no kernel): no rows, every input constant, or a strict expression over a null
// constant. Such a batch is never staged.
bool NeedsNoKernel(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length) {
  if (length == 0) return true;
  const ir::ExprFacts& f = expr.facts();
  bool all_constant = true;
  for (int c : f.columns) {
    const Array* a = ColumnOf(columns, c);
    if (a == nullptr) return false;
    if (a->encoding() != Encoding::kConstant) {
      all_constant = false;
      continue;
    }
    if (f.strict && static_cast<const ConstantArray&>(*a).value().is_null()) return true;
  }
  return all_constant;
}

}  // namespace

std::string_view RouteName(Route route) {
  switch (route) {
    case Route::kKernel: return "kernel";
    case Route::kAsIs: return "as-is";
    case Route::kStrings: return "strings";
    case Route::kNested: return "nested";
    case Route::kOverDictionary: return "over-dictionary";
    case Route::kStaged: return "staged";
    case Route::kFold: return "fold";
    case Route::kFoldIntervals: return "fold-intervals";
    case Route::kFoldSixteenByte: return "fold-sixteen-byte";
    case Route::kFoldStringValues: return "fold-string-values";
    case Route::kFoldSliced: return "fold-sliced";
    case Route::kFoldStrings: return "fold-strings";
    case Route::kFoldStaged: return "fold-staged";
    case Route::kProjectOneKernel: return "project-one-kernel";
    case Route::kProjectDenseWithNulls: return "project-dense-with-nulls";
    case Route::kProjectSeparately: return "project-separately";
    case Route::kProjectStrings: return "project-strings";
  }
  return "?";
}

bool NeedsColumnsFirst(const ir::Expr& expr) {
  return (IsString(expr.type().id) && expr.is_call()) || expr.facts().builds_strings || expr.facts().reads_nested();
}

std::optional<int> OverDictionaryColumn(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length) {
  const ir::ExprFacts& f = expr.facts();
  if (f.columns.size() != 1 || f.can_fail) return std::nullopt;  // a value no row uses must not fail
  const int c = f.columns[0];
  const Array* a = ColumnOf(columns, c);
  // Strings only: kernels read numbers through the codes for less than the gather costs here.
  if (a == nullptr || a->encoding() != Encoding::kDictionary || !IsString(a->type().id)) return std::nullopt;
  const int64_t values = static_cast<const DictionaryArray&>(*a).values()->length();
  if (values == 0 || values * kDictionaryRowsPerValue > length) return std::nullopt;
  return c;
}

Route RouteEvaluation(const ir::Expr& expr, const CallFacts& call) {
  if (expr.facts().reads_nested() && !expr.facts().builds_strings) return Route::kNested;
  if (NeedsColumnsFirst(expr)) return Route::kStrings;
  if (IsString(expr.type().id) && (expr.is_column() || expr.is_literal())) return Route::kAsIs;
  if (expr.type().id == TypeId::kFixedList && expr.is_column()) return Route::kAsIs;
  // Over a dictionary: the caller's output memory holds rows, which the gather would copy into.
  if (!call.into && call.policy == ir::Policy::kAuto && OverDictionaryColumn(expr, call.columns, call.length)) {
    return Route::kOverDictionary;
  }
  if (expr.facts().kernel_nodes > call.max_kernel_nodes && !NeedsNoKernel(expr, call.columns, call.length)) {
    return Route::kStaged;
  }
  return Route::kKernel;
}

Route RouteDescribed(const ir::Expr& expr, int64_t max_kernel_nodes) {
  return expr.facts().kernel_nodes > max_kernel_nodes ? Route::kStaged : Route::kKernel;
}

Route RouteAggregate(const ir::Aggregate& agg, const CallFacts& call) {
  const ir::Expr& arg = *agg.arg;
  const bool counts = agg.kind == ir::AggKind::kCount;
  if (arg.type().logical == LogicalKind::kInterval && !counts) return Route::kFoldIntervals;
  if (arg.type().id == TypeId::kI128 && !counts) return Route::kFoldSixteenByte;  // 19-38 digits
  if (agg.kind == ir::AggKind::kSum && !IsFloat(arg.type().id) && call.length > call.fold_slice_rows) {
    return Route::kFoldSliced;
  }
  if (IsString(arg.type().id) && !counts) return Route::kFoldStringValues;  // min/max of strings
  if (NeedsColumnsFirst(arg) && !arg.is_column()) return Route::kFoldStrings;  // lower(s), concat(a, b), ...
  if (arg.facts().kernel_nodes > call.max_kernel_nodes) return Route::kFoldStaged;
  return Route::kFold;
}

std::optional<Route> RouteProjectionStrings(std::span<const ir::ExprPtr> outputs) {
  for (const ir::ExprPtr& e : outputs) {
    if (IsString(e->type().id) || NeedsColumnsFirst(*e)) return Route::kProjectStrings;
  }
  return std::nullopt;
}

ProjectionRoute RouteProjection(const ir::ExprPtr& root, const BatchFacts& batch, ir::Policy policy,
                                int64_t max_kernel_nodes) {
  ProjectionRoute out;
  if (RouteDescribed(*root, max_kernel_nodes) == Route::kStaged) return out;  // outputs one by one
  out.plan = PlanEvaluation(root, batch, policy);
  // The strategies whose kernel a projection runs: dense (no input has a null and no output can
  // make one) or the kernel computing validity row by row.
  const Strategy s = out.plan.strategy;
  if (!out.plan.kernel || (s != Strategy::kDense && s != Strategy::kDenseRetry && s != Strategy::kValidity)) {
    return out;  // constants, empty batches: outputs one by one
  }
  out.route = Route::kProjectOneKernel;
  if (s != Strategy::kValidity) return out;
  // Outputs that are all strict-row expressions over inputs with nulls: each output's rows are
  // null exactly where one of its own columns is, so the dense kernel (no validity computed in
  // the loop) serves them, each output taking the AND of its columns' validity. Null constants
  // aside.
  for (const ir::ExprPtr& e : root->args()) {
    if (!e->facts().StrictRows()) return out;
    for (int c : e->facts().columns) {
      if (batch.inputs[static_cast<size_t>(c)].shape == ir::InputShape::kNullConstant) return out;
    }
  }
  std::vector<ir::InputSpec> specs = batch.inputs;
  for (ir::InputSpec& spec : specs) spec.has_nulls = false;
  out.route = Route::kProjectDenseWithNulls;
  out.exact = std::move(out.plan);
  // Planned for a full-size batch of these inputs (not a short batch's kernel): a prepared
  // projection holds it for every batch of its layout, whatever the length.
  out.plan = PlanEvaluation(root, DescribeSpecs(root->facts(), std::move(specs)), ir::Policy::kDense);
  return out;
}

SelectionWay RouteSelection(const ir::Expr& expr, std::span<const ArrayPtr> columns, int64_t length,
                            int64_t selected) {
  // The decode cost as the planner counts it: the functions', and one per dictionary input.
  int decode_cost = expr.facts().decode_cost;
  for (int c : expr.facts().columns) {
    const auto i = static_cast<size_t>(c);
    decode_cost += i < columns.size() && columns[i] != nullptr && columns[i]->encoding() == Encoding::kDictionary;
  }
  const double fraction = length > 0 ? static_cast<double>(selected) / static_cast<double>(length) : 0;
  return selected > 0 && fraction >= WholeFrom(decode_cost) ? SelectionWay::kWhole : SelectionWay::kGathered;
}

}  // namespace rowjit::jit
