// Test support: one expression through the engine against the reference evaluator, under a
// policy and tier drawn at random (tests).
#pragma once

#include <random>
#include <span>

#include "ir/expr.h"
#include "jit/api/engine.h"
#include "runtime/array.h"

namespace rowjit::test {

enum class Compared { kValues, kError, kMismatch };

// Evaluates `e` under a policy and tier drawn from `rng` and compares it with the reference: the
// same error (row and message), or the same type and values, null for null. A difference adds
// a gtest failure naming the policy, tier, first differing row and the inputs there, and returns
// kMismatch (callers ASSERT_NE on it to stop).
Compared CompareWithReference(jit::Engine& engine, const ir::ExprPtr& e, std::span<const ArrayPtr> columns,
                              int64_t length, std::mt19937_64& rng);

// The engine's projection of `outputs`, filter on `filter`, folds of `folds` (aggregate texts)
// and top-k `top_k` over a batch under `schema`, each against the reference's (gtest failures).
// A list column of `type` from rows written out (a null row is nullopt).
ArrayPtr ListOf(const DataType& type, const std::vector<std::optional<std::vector<Scalar>>>& rows);

void ExpectShapesEqualReference(jit::Engine& engine, const Schema& schema, std::span<const ArrayPtr> columns,
                                int64_t length, std::span<const char* const> outputs, const char* filter,
                                std::span<const char* const> folds, const char* top_k);

}  // namespace rowjit::test
