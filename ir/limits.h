// Limits on what one expression may be (ir layer): nesting depth, node count and columns, so
// that no input makes rowjit recurse, allocate or compile without bound. Checked before any pass
// descends (the parser as it nests; Bind and the Engine from the expression's facts), each
// breach an invalid-input error that names the limit. Settable per call and per Engine.
#pragma once

#include <cstdint>

#include "runtime/status.h"

namespace rowjit::ir {

struct ExprFacts;

struct Limits {
  // Calls and operators nested in each other: a CASE of thousands of branches, written as nested
  // `if`, fits. Recursive passes over trees deeper than a few hundred levels run on a stack sized
  // for the depth (runtime/deep_stack.h).
  int64_t max_depth = 50'000;
  // Nodes (columns, literals, calls), a subtree used twice counted twice; every literal item of
  // an IN list too (a kernel's budget, EngineOptions::max_kernel_nodes, counts them as one set).
  int64_t max_nodes = 200'000;
  // Columns a schema (and so an expression) may have.
  int64_t max_columns = 100'000;
  // Bytes of expression text.
  int64_t max_text_bytes = int64_t{64} << 20;
};

// The first limit `facts` breaks, as an invalid-input error naming it; OK when none.
Status CheckLimits(const ExprFacts& facts, const Limits& limits);

}  // namespace rowjit::ir
