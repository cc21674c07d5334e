// The planner: strategy and kernel for a batch, decided once (jit layer, plan room).
#include "jit/plan/planner.h"

#include "ir/projection.h"
#include "jit/plan/batch.h"
#include "jit/plan/route.h"
#include "jit/codegen/costly.h"
#include "jit/codegen/prefilter.h"

namespace rowjit::jit {
namespace {

using ir::InputShape;
using Rows = BatchFacts::Rows;

bool IsFlatBool(const ir::InputSpec& s) { return s.shape == InputShape::kFlat && s.type == TypeId::kBool; }

bool AnyReferenced(const ir::ExprFacts& f, const BatchFacts& b, bool (*pred)(const ir::InputSpec&)) {
  for (int c : f.columns) {
    if (static_cast<size_t>(c) < b.inputs.size() && pred(b.inputs[c])) return true;
  }
  return false;
}

bool AllConstant(const ir::ExprFacts& f, const BatchFacts& b) {
  for (int c : f.columns) {
    const InputShape s = b.inputs[c].shape;
    if (s != InputShape::kConstant && s != InputShape::kNullConstant) return false;
  }
  return true;
}

// The decode cost of a batch: the expression's functions plus one per dictionary input.
int DecodeCost(const ir::ExprFacts& f, const BatchFacts& b) {
  int cost = f.decode_cost;
  for (int c : f.columns) cost += b.inputs[c].shape == InputShape::kDictionary;
  return cost;
}

// Rows behind nulls: how a strict expression treats them on this batch.
Strategy ChooseNullStrategy(const ir::ExprFacts& f, const BatchFacts& b, ir::Policy policy) {
  if (b.rows == Rows::kAllValid) return Strategy::kDense;
  switch (policy) {
    case ir::Policy::kBranchSkip: return Strategy::kBranchSkip;
    case ir::Policy::kFilterScatter: return Strategy::kFilterScatter;
    case ir::Policy::kDense:
    case ir::Policy::kDenseRetry:
      // Evidence from rows behind nulls must not become an error: a fallible kernel retries.
      return f.can_fail ? Strategy::kDenseRetry : Strategy::kDense;
    case ir::Policy::kAuto:
      break;
  }
  if (!f.can_fail) return Strategy::kDense;
  if (!b.prefer_valid_only) return Strategy::kDenseRetry;
  return b.surviving >= BranchSkipFrom(DecodeCost(f, b)) ? Strategy::kBranchSkip
                                                          : Strategy::kFilterScatter;
}

// Whether `e` has a checked multiply that speculates and none that its kernel rechecks.
bool SpeculatesMuls(const ir::Expr& e) {
  CostlyMuls muls;
  ScanCostlyMuls(e, muls);
  return muls.speculates && muls.rechecked.empty();
}

// Whether the kernels of `target` are x86 code, where dense bool kernels pack their results in
// word loops (PacksInWords; NEON and SVE keep their row loops).
bool X86Target(const std::string& target) {
#if defined(__x86_64__)
  if (target == "native") return true;
#endif
  return target.starts_with("x86-64");
}

// Whether a dense kernel of `e` runs over words to write its bool result as bits (RowKernel).
bool PacksInWords(const ir::Expr& e, bool short_batch, const std::string& target) {
  if (e.type().id != TypeId::kBool || short_batch || ir::IsProjection(e) || !X86Target(target)) return false;
  CostlyMuls muls;
  ScanCostlyMuls(e, muls);
  return !muls.speculates && muls.rechecked.empty() && !muls.trig;
}

// The row kernel a strategy runs. Dense kernels leave validity to the executor, so whether an
// input has nulls does not enter their key (a null constant still does: it is a value).
CacheKey RowKernel(const ir::ExprPtr& expr, std::vector<ir::InputSpec> specs, Strategy s,
                   const std::string& target, bool stream_output = false, bool short_batch = false) {
  KernelShape shape;
  ir::Policy tag = ir::Policy::kDense;
  if (s == Strategy::kValidity) {
    shape = {.writes_validity = true, .mask_evidence = true};
  } else if (s == Strategy::kBranchSkip) {
    shape = {.mask_evidence = true, .skip_empty_words = true};
    tag = ir::Policy::kBranchSkip;
  } else {
    for (ir::InputSpec& spec : specs) {
      if (spec.shape != InputShape::kNullConstant) spec.has_nulls = false;
    }
    // One loop over rows unless a lane needs a bit of a bool word, or the result is bool: a
    // word loop packs a word's results as the lanes compute them, where a row loop writes a
    // byte a row that the executor packs in a second pass (bench: `single/i32_lt/jit`). Short
    // batches, and the checked multiplies that a row loop speculates on or rechecks by blocks,
    // keep the row loop; so do NEON and SVE, where the word forms do not pass their catalog
    // gates (docs/performance.md, "Word loops and bool packing").
    const BatchFacts described{.inputs = specs};
    if (!AnyReferenced(expr->facts(), described, IsFlatBool) && !PacksInWords(*expr, short_batch, target)) {
      shape.loop = KernelLoop::kRows;
    }
    if (!ir::IsProjection(*expr) && internal::UsesLengthPrefilter(*expr, specs)) {
      shape.loop = KernelLoop::kWords;
      shape.length_prefilter = true;
    }
    // A substring search over offsets is made once for a word's rows (jit/codegen/prefilter.h),
    // with the SSE2 filter that x86 has.
    if (X86Target(target) && internal::UsesWordSearch(*expr, specs)) shape.loop = KernelLoop::kWords;
    // Streaming stores for a large output of one flat value a row (bools are packed from bytes
    // the executor reads back at once; a projection's outputs are left as they are).
    shape.stream_output = stream_output && shape.loop == KernelLoop::kRows && (s == Strategy::kDense ||
                          s == Strategy::kDenseRetry) && expr->type().id != TypeId::kBool && !ir::IsProjection(*expr);
    shape.short_batch = short_batch && shape.loop == KernelLoop::kRows && !shape.stream_output;
    // Speculative multiplies in the whole-word dense loop over valid rows (kDense of a fallible
    // expression: a batch without nulls), whose evidence the executor can answer with the exact
    // twin.
    shape.speculative_mul = s == Strategy::kDense && shape.loop == KernelLoop::kRows && !shape.short_batch &&
                            !ir::IsProjection(*expr) && SpeculatesMuls(*expr);
  }
  return CacheKey{ir::SpecializationKey{expr, std::move(specs), tag, target}, shape};
}

bool IsNullConstant(const ir::InputSpec& s) { return s.shape == InputShape::kNullConstant; }

// A plain flat numeric column folds in the vector form of the word fold (jit/codegen/codegen_fold.cc):
// its validity words become lane masks, no byte mask is unpacked.
bool PlainFlatColumn(const ir::Aggregate& agg, const BatchFacts& b) {
  using ir::AggKind;
  if (!agg.arg->is_column() || agg.kind == AggKind::kAny || agg.kind == AggKind::kAll ||
      agg.kind == AggKind::kCount) {
    return false;
  }
  const ir::InputSpec& s = b.inputs[static_cast<size_t>(agg.arg->column_index())];
  return s.shape == InputShape::kFlat && s.type != TypeId::kBool;
}

// Flat folds (one row loop, folding by a byte mask a row spread from the validity words where
// inputs have nulls; vector accumulators for the whole call) serve strict-row
// expressions other than plain columns, except float sums, whose fixed 16-lane order the word form keeps, and inputs a
// mask cannot describe: flat bool columns (read as words) and null constants (every row null
// without a mask saying so).
bool FoldsFlat(const ir::Aggregate& agg, const BatchFacts& b) {
  const ir::ExprFacts& f = agg.arg->facts();
  if (!f.StrictRows() || PlainFlatColumn(agg, b)) return false;
  if (agg.kind == ir::AggKind::kSum && IsFloat(agg.arg->type().id)) return false;
  return !AnyReferenced(f, b, IsFlatBool) && !AnyReferenced(f, b, IsNullConstant);
}

}  // namespace

std::string_view StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kEmpty: return "empty";
    case Strategy::kNullConstant: return "null-constant";
    case Strategy::kConstant: return "constant";
    case Strategy::kDense: return "dense";
    case Strategy::kDenseRetry: return "dense-retry";
    case Strategy::kBranchSkip: return "branch-skip";
    case Strategy::kFilterScatter: return "filter-scatter";
    case Strategy::kValidity: return "validity";
    case Strategy::kFold: return "fold";
  }
  return "?";
}

// Filter-and-scatter pays only at low survival; the more decoding it compacts (one dictionary,
// two), the higher the survival it still pays at. Calibrated by the `strategy` family over
// `valid:P` (bench: `strategy/cost{0,1,2}_i32_mul_add/{jit_branch_skip,jit_filter_scatter}`).
double BranchSkipFrom(int decode_cost) {
  return decode_cost <= 0 ? 0.05 : decode_cost == 1 ? 0.10 : 0.25;
}

BatchFacts DescribeSpecs(const ir::ExprFacts& facts, std::vector<ir::InputSpec> specs,
                         int64_t length) {
  BatchFacts b{.length = length, .inputs = std::move(specs)};
  if (facts.StrictRows() && AnyReferenced(facts, b, [](const ir::InputSpec& s) { return s.has_nulls; })) {
    b.rows = Rows::kSomeNull;
    b.surviving = 0.5;
  }
  return b;
}

Plan PlanEvaluation(const ir::ExprPtr& expr, const BatchFacts& batch, ir::Policy policy,
                    const std::string& target) {
  const ir::ExprFacts& f = expr->facts();
  if (batch.length == 0) return {Strategy::kEmpty, std::nullopt};
  if (f.strict && AnyReferenced(f, batch, IsNullConstant)) return {Strategy::kNullConstant, std::nullopt};
  if (AllConstant(f, batch)) return {Strategy::kConstant, std::nullopt};
  // A null-aware expression computes its validity row by row, unless no row can be null: no
  // input has a null and no null literal makes one (a guarded `if(b != 0, a / b, 0)` over
  // columns without nulls runs the dense kernel, as the unguarded `a / b` does).
  const bool null_free = !f.has_null_literal && !AnyReferenced(f, batch, [](const ir::InputSpec& s) {
    return s.has_nulls || s.shape == InputShape::kNullConstant;
  });
  if (!f.StrictRows() && !null_free) {
    return {Strategy::kValidity, RowKernel(expr, batch.inputs, Strategy::kValidity, target)};
  }
  if (batch.rows == Rows::kAllNull) return {Strategy::kNullConstant, std::nullopt};
  const Strategy s = ChooseNullStrategy(f, batch, policy);
  return {s, RowKernel(expr, batch.inputs, s, target, batch.stream_output, IsShortBatch(batch.length))};
}

Plan PlanAggregate(const ir::Aggregate& agg, const BatchFacts& batch, const std::string& target) {
  // A substring search over offsets is made once for a word's rows: word folds on x86.
  const bool flat = FoldsFlat(agg, batch) && !(X86Target(target) && internal::UsesWordSearch(*agg.arg, batch.inputs));
  const TypeId t = agg.arg->type().id;
  const bool min_max = agg.kind == ir::AggKind::kMin || agg.kind == ir::AggKind::kMax ||
                       agg.kind == ir::AggKind::kMinMax;
  KernelShape shape{.loop = flat ? KernelLoop::kRows : KernelLoop::kWords,
                    .writes_validity = !flat,
                    .mask_evidence = true,
                    .fold = agg.kind,
                    .fold_keep_nan = agg.keep_nan,
                    // Flat folds count by popcounts where the mask alone decides which rows fold.
                    .fold_counts_rows = !flat || (min_max && !agg.keep_nan && IsFloat(t))};
  return {Strategy::kFold,
          CacheKey{ir::SpecializationKey{agg.arg, batch.inputs, ir::Policy::kDense, target}, shape}};
}

std::optional<GroupedFoldPlan> PlanQueryFold(const ir::Query& q) {
  GroupedFoldPlan p;
  std::vector<ir::ExprPtr> outputs{q.where != nullptr ? q.where : ir::Expr::BoundLiteral(Scalar::Of<bool>(true))};
  for (const ir::QueryAggregate& a : q.aggregates) {
    if (a.filter != nullptr) return std::nullopt;
    if (a.count_star) {
      p.output.push_back(0);
      continue;
    }
    const DataType t = a.arg->type();
    const bool integral = (IsInteger(t.id) || t.id == TypeId::kI128) &&
                          (t.logical == LogicalKind::kNone || t.logical == LogicalKind::kDecimal);
    if (a.fold.kind != ir::AggKind::kSum || !integral) return std::nullopt;
    size_t k = 1;
    while (k < outputs.size() && !outputs[k]->Equals(*a.arg)) ++k;
    if (k == outputs.size()) outputs.push_back(a.arg);
    p.output.push_back(static_cast<int>(k));
  }
  // One kernel reads every output: none may need columns made first (strings built, vectors
  // scored, struct fields or list functions read).
  for (const ir::ExprPtr& e : outputs) {
    if (NeedsColumnsFirst(*e)) return std::nullopt;
  }
  auto root = ir::MakeProjection(outputs);
  if (!root.ok()) return std::nullopt;
  p.root = std::move(*root);
  return p;
}

int GroupedFoldSlots(int64_t groups) {
  int s = 1;
  while (s < groups) s *= 2;
  return s;
}

Plan PlanGroupedFold(const ir::ExprPtr& root, std::vector<ir::InputSpec> specs, int slots,
                     const std::string& target) {
  for (ir::InputSpec& spec : specs) spec.has_nulls = false;
  const KernelShape shape{.loop = KernelLoop::kRows, .grouped_slots = slots};
  return {Strategy::kDense, CacheKey{ir::SpecializationKey{root, std::move(specs), ir::Policy::kDense, target}, shape}};
}

Plan PlanVectorScore(const ir::ExprPtr& call, std::vector<ir::InputSpec> specs, const std::string& target) {
  // One kernel whatever the nulls and encodings of the columns it does not read (it reads flat
  // vectors only): the columns it reads are flat and described as holding none.
  std::vector<ir::InputSpec> read(specs.size());
  for (int c : call->facts().columns) {
    read[static_cast<size_t>(c)] = {.shape = ir::InputShape::kFlat, .type = TypeId::kFixedList};
  }
  const KernelShape shape{.loop = KernelLoop::kRows, .vector_score = true};
  return {Strategy::kDense, CacheKey{ir::SpecializationKey{call, std::move(read), ir::Policy::kDense, target}, shape}};
}

Result<CacheKey> PlanKernel(const ir::ExprPtr& expr, std::vector<ir::InputSpec> specs,
                            ir::Policy policy, const std::string& target) {
  if (expr == nullptr) return MakeError(ErrorCode::kInvalidInput, "null expression");

  for (int c : expr->facts().columns) {  // one description a column the expression reads
    if (c < 0 || static_cast<size_t>(c) >= specs.size()) {
      return MakeError(ErrorCode::kInvalidInput, "{} reads column {}, but {} input descriptions were given",
                       expr->ToString(), c, specs.size());
    }
  }
  if (ir::IsVectorScore(*expr)) return std::move(*PlanVectorScore(expr, std::move(specs), target).kernel);
  if (expr->facts().scores_vectors) {
    return MakeError(ErrorCode::kInvalidInput, "{} runs its vector functions as kernels of their own: inspect one "
                                               "of them (dot(v, [...]), l2_distance(v, w), ...)", expr->ToString());
  }
  if (expr->facts().reads_fields) {
    return MakeError(ErrorCode::kInvalidInput, "no kernel is planned from a schema alone for an expression that reads "
                                               "struct fields, lists or maps: their columns come with a batch");
  }
  if (const Route route = RouteDescribed(*expr, kDefaultMaxKernelNodes); route != Route::kKernel) {
    return MakeError(ErrorCode::kInvalidInput, "{} runs no single kernel (route {})", expr->ToString(),
                     RouteName(route));
  }
  Plan plan = PlanEvaluation(expr, DescribeSpecs(expr->facts(), std::move(specs)), policy, target);
  if (!plan.kernel) {
    return MakeError(ErrorCode::kInvalidInput, "{} over these inputs runs no kernel (strategy {})",
                     expr->ToString(), StrategyName(plan.strategy));
  }
  return std::move(*plan.kernel);
}

Result<CacheKey> PlanKernel(const ir::ExprPtr& expr, std::span<const ArrayPtr> columns,
                            int64_t length, ir::Policy policy, const std::string& target) {
  const Route route = RouteEvaluation(*expr, CallFacts{.columns = columns, .length = length, .policy = policy});
  if (route != Route::kKernel) {
    return MakeError(ErrorCode::kInvalidInput, "{} over this batch runs no single kernel (route {})",
                     expr->ToString(), RouteName(route));
  }
  ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch, internal::ReadBatch(*expr, columns, length));
  Plan plan = PlanEvaluation(expr, batch.facts, policy, target);
  if (!plan.kernel) {
    return MakeError(ErrorCode::kInvalidInput, "{} over this batch runs no kernel (strategy {})",
                     expr->ToString(), StrategyName(plan.strategy));
  }
  return std::move(*plan.kernel);
}

CacheKey PlanFold(const ir::Aggregate& agg, std::vector<ir::InputSpec> specs,
                  const std::string& target) {
  return *PlanAggregate(agg, DescribeSpecs(agg.arg->facts(), std::move(specs)), target).kernel;
}

Result<CacheKey> PlanFold(const ir::Aggregate& agg, std::span<const ArrayPtr> columns,
                          int64_t length, const std::string& target) {
  ROWJIT_ASSIGN_OR_RETURN(internal::Batch batch,
                          internal::ReadBatch(*agg.arg, columns, length, nullptr, /*defer_rows=*/true));
  return *PlanAggregate(agg, batch.facts, target).kernel;
}

}  // namespace rowjit::jit
