// Planning a kernel from text: parse, bind, describe the inputs, plan as the executor does
// (jit layer, gates room).
#include "jit/gates/kernel_request.h"

#include <algorithm>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/query.h"
#include "ir/top_k.h"
#include "jit/plan/planner.h"
#include "runtime/builder.h"

namespace rowjit::jit {

std::string PlannedKernel::Name() const {
  std::string name = key.spec.ToString();
  if (!fold.empty()) return name + " fold=" + fold;
  if (key.shape.writes_validity) name += " kernel=validity";
  if (key.shape.speculative_mul) name += " speculative-mul";
  return name;
}

Result<PlannedKernel> PlanRequest(const KernelRequest& request) {
  ROWJIT_ASSIGN_OR_RETURN(Schema schema, ParseSchema(request.schema));
  ROWJIT_ASSIGN_OR_RETURN(ir::Policy policy, ir::ParsePolicy(request.policy));
  ROWJIT_ASSIGN_OR_RETURN(TargetSpec target, ResolveTarget(request.target, request.vector_widths));
  std::vector<ir::InputSpec> specs;
  for (const Field& f : schema.fields) {
    ir::InputSpec s;
    s.type = f.type.id;
    s.has_nulls = f.type.nullable;
    s.layout = f.layout;
    specs.push_back(s);
  }
  for (const auto& [name, value] : request.constants) {
    const int index = schema.FieldIndex(name);
    if (index < 0) return MakeError(ErrorCode::kInvalidInput, "constant for unknown column '{}'", name);
    ROWJIT_ASSIGN_OR_RETURN(Scalar scalar, ParseScalar(schema.fields[index].type.id, value));
    if (scalar.is_null() && !schema.fields[index].type.nullable) {
      return MakeError(ErrorCode::kInvalidInput, "column '{}' is not nullable; it cannot be null",
                       name);
    }
    // A batch constant is passed to the kernel as a scalar; its value is not part of the key.
    specs[index].shape = scalar.is_null() ? ir::InputShape::kNullConstant : ir::InputShape::kConstant;
    specs[index].has_nulls = false;
  }
  PlannedKernel out;
  if (ir::IsQueryText(request.expr)) {  // a query: its grouped fold kernel
    ROWJIT_ASSIGN_OR_RETURN(ir::Query query, ir::ParseAndBindQuery(request.expr, schema));
    const std::optional<GroupedFoldPlan> plan = PlanQueryFold(query);
    if (!plan) {
      return MakeError(ErrorCode::kInvalidInput,
                       "{}: no grouped fold kernel (its aggregates are not all count(*) and sums and averages "
                       "of integers and decimals without FILTER)", query.ToString());
    }
    out.expr = plan->root;
    out.fold = "grouped";
    // A query without keys folds into one slot, as the executor runs it.
    const int slots = query.keys.empty() ? 1 : request.grouped_slots;
    out.key = *PlanGroupedFold(plan->root, std::move(specs), slots, target.name).kernel;
    out.target = std::move(target);
    return out;
  }
  if (ir::IsTopKText(request.expr)) {  // a top-k selection: the kernel that scores its rows
    ROWJIT_ASSIGN_OR_RETURN(ir::TopK top, ir::ParseAndBindTopK(request.expr, schema));
    // A vector score is a kernel of its own (the predicate's runs after it); any other score
    // runs with its predicate in one kernel.
    out.expr = ir::IsVectorScore(*top.score) ? top.score : top.selected;
    ROWJIT_ASSIGN_OR_RETURN(out.key, PlanKernel(out.expr, std::move(specs), policy, target.name));
    out.target = std::move(target);
    return out;
  }
  if (ir::IsAggregateText(request.expr)) {
    ROWJIT_ASSIGN_OR_RETURN(ir::Aggregate agg, ir::ParseAndBindAggregate(request.expr, schema));
    out.expr = agg.arg;
    out.fold = agg.name();
    out.key = PlanFold(agg, std::move(specs), target.name);
    out.target = std::move(target);
    return out;
  }
  ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr expr, ir::ParseAndBind(request.expr, schema));
  out.expr = expr;
  ROWJIT_ASSIGN_OR_RETURN(out.key, PlanKernel(expr, std::move(specs), policy, target.name));
  if (request.exact_twin) {
    if (!out.key.shape.speculative_mul) {
      return MakeError(ErrorCode::kInvalidInput, "{} does not speculate: it has no exact twin", out.key.ToString());
    }
    out.key.shape.speculative_mul = false;
  }
  out.target = std::move(target);
  return out;
}

Result<KernelCode> GenerateCode(const PlannedKernel& kernel, bool want_assembly) {
  return GenerateCode(kernel.key, kernel.target, want_assembly);
}

}  // namespace rowjit::jit
