// The static chain (tools): an expression evaluated the way an engine without fusion does it,
// one static kernel per operator (kernels/arith.h) with every intermediate materialized, for
// `rowjit eval` to print beside the JIT's time and to check against the JIT's result.
#pragma once

#include <string>

#include "ir/expr.h"
#include "runtime/array.h"

namespace rowjit::cli {

struct StaticChainRun {
  ArrayPtr result;        // null when a row failed
  int64_t failed_row = -1;
  std::string failed_function;
  int kernels = 0;        // static kernel calls, the validity AND included
  double seconds = 0;     // one run, inputs already decoded
};

// Supported: checked and wrapping add/sub/mul and the six comparisons over numeric columns
// (flat or batch constant) and literals, strict validity (the AND of the referenced columns,
// errors behind nulls ignored as rowjit does). Anything else is an error naming what is missing.
Result<StaticChainRun> RunStaticChain(const ir::Expr& expr, const RecordBatch& batch);

}  // namespace rowjit::cli
