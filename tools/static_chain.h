// The static chain (tools): an expression evaluated the way an engine without fusion does it,
// one static kernel per operator (kernels/arith.h) with every intermediate materialized, for
// `rowjit eval` to print beside the JIT's time and to check against the JIT's result.
#pragma once

#include <memory>
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
// Intermediates and the result come from `pool` (null: the system allocator): pass the same pool
// to a second run to time it on memory already faulted in, as a batch loop would.
Result<StaticChainRun> RunStaticChain(const ir::Expr& expr, const RecordBatch& batch,
                                      std::shared_ptr<MemoryPool> pool = nullptr);

}  // namespace rowjit::cli
