// The static chain (jit layer, exec room): an expression evaluated the way an engine without fusion
// does it, one static kernel per operator (kernels/arith.h) with every intermediate materialized.
// It is the engine's static tier (a never-seen expression it covers is answered without any compile
// while the optimized kernel compiles), and `rowjit eval` prints it beside the JIT's time.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "ir/expr.h"
#include "runtime/array.h"

namespace rowjit::jit {

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
Result<StaticChainRun> RunStaticChain(const ir::Expr& expr, std::span<const ArrayPtr> columns,
                                      int64_t length, std::shared_ptr<MemoryPool> pool = nullptr);

// Whether the chain covers `expr` over `columns` (every operator has a static kernel, inputs are
// flat or batch constants, no null literal): a check of the expression and the inputs' encodings
// only, before anything runs.
bool StaticChainCovers(const ir::Expr& expr, std::span<const ArrayPtr> columns);

}  // namespace rowjit::jit
