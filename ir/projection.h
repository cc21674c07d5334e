// Projections (ir layer): several bound expressions over one batch as one kernel's root,
// `project(e1, ..., en)`, each argument one output. Not a catalog function (the parser cannot
// name it): Engine::Project builds it, and the kernel builder stores each argument as an output.
#pragma once

#include <span>

#include "ir/expr.h"

namespace rowjit::ir {

// The root of a projection of `outputs` (bound, at least one). Its type is the first output's;
// its facts cover every output (columns, evidence widths, decode cost).
Result<ExprPtr> MakeProjection(std::span<const ExprPtr> outputs);
bool IsProjection(const Expr& e);

}  // namespace rowjit::ir
