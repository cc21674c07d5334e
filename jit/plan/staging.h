// Staged evaluation (jit layer, plan room, internal): an expression too large for one kernel is cut
// into stages of bounded size, each compiled as its own kernel, its result materialized as a column
// the later stages read. Compile work then grows linearly with the expression instead of with
// what LLVM's passes do to one huge function, and no kernel nests deeper than a stage.
#pragma once

#include <vector>

#include "ir/expr.h"

namespace rowjit::jit::internal {

struct Stages {
  // Each stage reads the schema's columns and the outputs of the stages before it: stage k's
  // output is column `num_columns + k`.
  std::vector<ir::ExprPtr> stages;
  ir::ExprPtr root;  // the expression over the same columns, the stages replaced by their outputs
};

// Cuts `expr` (over `num_columns` columns) so that every stage and the root has at most about
// `max_nodes` nodes (a call whose arguments together pass the budget materializes them). A
// subtree shared by several parents is one stage. No recursion: any depth.
Stages SplitIntoStages(const ir::ExprPtr& expr, int num_columns, int64_t max_nodes);

}  // namespace rowjit::jit::internal
