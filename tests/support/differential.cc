// Test support: the engine against the reference evaluator for one expression (tests).
#include "support/differential.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "ir/top_k.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"

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

void ExpectShapesEqualReference(jit::Engine& engine, const Schema& schema, std::span<const ArrayPtr> columns,
                                int64_t length, std::span<const char* const> outputs, const char* filter,
                                std::span<const char* const> folds, const char* top_k) {
  std::vector<ir::ExprPtr> outs;
  for (const char* text : outputs) {
    auto e = ir::ParseAndBind(text, schema);
    ASSERT_TRUE(e.ok()) << text << ": " << e.error().ToString();
    outs.push_back(*e);
  }
  auto projected = engine.Project(outs, columns, length);
  ASSERT_TRUE(projected.ok()) << projected.error().ToString();
  for (size_t k = 0; k < outs.size(); ++k) {
    auto ref = ir::EvaluateReference(*outs[k], columns, length);
    ASSERT_TRUE(ref.ok()) << ref.error().ToString();
    EXPECT_EQ(FirstDifference(*(*projected)[k], **ref), -1) << outs[k]->ToString();
  }
  auto predicate = ir::ParseAndBind(filter, schema);
  ASSERT_TRUE(predicate.ok()) << predicate.error().ToString();
  auto kept = engine.Filter(*predicate, columns, length);
  auto flags = ir::EvaluateReference(**predicate, columns, length);
  ASSERT_TRUE(kept.ok() && flags.ok()) << filter;
  int64_t want = 0;
  for (int64_t i = 0; i < length; ++i) want += !(*flags)->GetScalar(i).is_null() && (*flags)->GetScalar(i).value<bool>();
  EXPECT_EQ(kept->size(), want) << filter;
  for (const char* text : folds) {
    auto agg = ir::ParseAndBindAggregate(text, schema);
    ASSERT_TRUE(agg.ok()) << text << ": " << agg.error().ToString();
    auto got = engine.Aggregate(*agg, columns, length);
    auto ref = ir::EvaluateAggregateReference(*agg, columns, length);
    ASSERT_TRUE(got.ok() && ref.ok()) << text;
    EXPECT_EQ(got->value.ToString(), ref->value.ToString()) << text;
  }
  auto top = ir::ParseAndBindTopK(top_k, schema);
  ASSERT_TRUE(top.ok()) << top_k << ": " << top.error().ToString();
  ir::TopKState state(*top);
  ASSERT_TRUE(engine.TopK(*top, columns, length, state).ok()) << top_k;
  auto got = state.Finish();
  auto ref = ir::TopKReference(*top, columns, length);
  ASSERT_TRUE(got.ok() && ref.ok()) << top_k;
  EXPECT_TRUE(ArraysEqual(*got->rows, *ref->rows)) << top_k;
}

ArrayPtr ListOf(const DataType& type, const std::vector<std::optional<std::vector<Scalar>>>& rows) {
  std::vector<int32_t> offsets{0};
  std::vector<Scalar> elements;
  for (const auto& row : rows) {
    if (row) elements.insert(elements.end(), row->begin(), row->end());
    offsets.push_back(static_cast<int32_t>(elements.size()));
  }
  const ArrayPtr child = *MakeArray(ListElement(type), elements);
  BufferPtr buffer = *Buffer::Allocate(static_cast<int64_t>(offsets.size() * 4));
  std::memcpy(buffer->mutable_data(), offsets.data(), offsets.size() * 4);
  BufferPtr bits = *AllocateBitmap(static_cast<int64_t>(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) kernels::SetBitTo(bits->mutable_data(), static_cast<int64_t>(i), rows[i].has_value());
  const Validity validity = *Validity::FromBitmap(bits, 0, static_cast<int64_t>(rows.size()));
  return *ListArray::Make(type, static_cast<int64_t>(rows.size()), false, buffer, child, validity);
}

}  // namespace rowjit::test
