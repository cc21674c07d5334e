// Test support: the engine against the reference evaluator for one expression (tests).
#include "support/differential.h"

#include <gtest/gtest.h>

#include "ir/reference.h"

namespace rowjit::test {

Compared CompareWithReference(jit::Engine& engine, const ir::ExprPtr& e, std::span<const ArrayPtr> columns,
                              int64_t length, std::mt19937_64& rng) {
  constexpr ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                      ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  const ir::Policy policy = kPolicies[rng() % std::size(kPolicies)];
  const jit::Tier tier = rng() % 3 == 0 ? jit::Tier::kFast : jit::Tier::kOptimized;
  const std::string how = fmt::format("policy {}, {} tier", ir::PolicyName(policy), tier == jit::Tier::kFast ? "fast" : "optimized");
  auto want = ir::EvaluateReference(*e, columns, length);
  auto got = engine.Evaluate(e, columns, length, {.policy = policy, .tier = tier});
  if (got.ok() != want.ok()) {
    ADD_FAILURE() << how << ": " << (got.ok() ? "the reference fails: " + want.error().ToString()
                                              : "the engine fails: " + got.error().ToString());
    return Compared::kMismatch;
  }
  if (!want.ok()) {
    if (got.error().ToString() == want.error().ToString()) return Compared::kError;
    ADD_FAILURE() << how << ": got " << got.error().ToString() << ", want " << want.error().ToString();
    return Compared::kMismatch;
  }
  if ((*got)->type().ToString() != (*want)->type().ToString()) {
    ADD_FAILURE() << how << ": type " << (*got)->type().ToString() << ", want " << (*want)->type().ToString();
    return Compared::kMismatch;
  }
  const int64_t diff = FirstDifference(**got, **want);
  if (diff < 0) return Compared::kValues;
  std::string inputs;
  for (size_t c = 0; c < columns.size(); ++c) {
    inputs += fmt::format("{}column {} = {}", c ? ", " : "", c, columns[c]->GetScalar(diff).ToString());
  }
  ADD_FAILURE() << how << ": row " << diff << ": got " << (*got)->GetScalar(diff).ToString() << ", want "
                << (*want)->GetScalar(diff).ToString() << " (" << inputs << ")";
  return Compared::kMismatch;
}

}  // namespace rowjit::test
