// A kernel named the way a person names it: expression text, schema text, batch constants,
// policy and target, planned into the specialization the executor would compile (jit layer, gates
// room). What `rowjit ir`, `check` and `explain` and the gate tests start from.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/expr.h"
#include "jit/compile/compiler.h"
#include "jit/cache/kernel_cache.h"
#include "jit/base/target.h"

namespace rowjit::jit {

struct KernelRequest {
  std::string expr;    // "a * b + c"
  std::string schema;  // "a:i32?, b:i32, c:i32"
  std::vector<std::pair<std::string, std::string>> constants;  // column → batch-constant value
  std::string policy = "auto";  // auto | dense | dense-retry | branch-skip | filter-scatter
  std::string target = "native";
  VectorWidths vector_widths = {};  // the native target's widths instead of its own choice
  // A speculative kernel's exact twin (KernelShape::speculative_mul cleared): what the executor
  // runs for a batch with wide operands, so the catalog gates it too.
  bool exact_twin = false;
  // A query ("sum(a), count(*) group by g where p"): the slot count of its grouped fold kernel
  // when it has keys (a query without keys folds into one slot).
  int grouped_slots = 4;
};

struct PlannedKernel {
  ir::ExprPtr expr;  // bound (an aggregate's argument for a reduction template)
  std::string fold;  // the aggregate's name ("sum", "min_max_nan") for a reduction template
  CacheKey key;      // specialization and kernel shape, as the executor plans them
  TargetSpec target;

  // "mul(a, b) [a:u8 flat, b:u8 const; dense; native]": names the kernel in gate output.
  std::string Name() const;
};

// Parses, binds and plans; errors are input errors (invalid input or type error). An aggregate
// ("sum(a * b)") plans the fold kernel of its reduction template; a query ("sum(a), count(*)
// group by g where p") its grouped fold kernel (jit/plan/planner.h PlanQueryFold).
Result<PlannedKernel> PlanRequest(const KernelRequest& request);

// Codegen only (no execution), for any target; `want_assembly` adds the assembly.
Result<KernelCode> GenerateCode(const PlannedKernel& kernel, bool want_assembly);

}  // namespace rowjit::jit
