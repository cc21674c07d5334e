// The catalog gate (jit layer, gates room, public, LLVM-free): every catalog function × every type
// its type rule accepts × every constant pattern of its arguments × each applicable policy, as
// kernel requests, and a runner that checks them all for one target (codegen only).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "jit/gates/gates.h"

namespace rowjit::jit {

struct CatalogKernel {
  std::string function;  // canonical name
  KernelRequest request;
};

// Policies per function: dense over non-null inputs always; branch-skip over nullable inputs for
// strict fallible functions; the validity kernel over nullable inputs for null-aware functions.
// Variadic functions (coalesce) are enumerated with 2 and 3 arguments. A call whose arguments
// are all constant is no kernel (the executor evaluates it once) and is left out.
std::vector<CatalogKernel> CatalogKernels(const std::string& target);

struct CatalogFailure {
  std::string kernel;
  std::vector<Violation> violations;  // failing ones only
};

struct CatalogSummary {
  std::string target;
  int kernels = 0, passed = 0, failed = 0;
  std::vector<CatalogFailure> failures;
  // "RULE KERNEL TARGET: REASON" → how many kernels it excused.
  std::map<std::string, int> exceptions_used;
  double seconds = 0;
};

// Checks every catalog kernel for `target`, calling `on_kernel` after each (in catalog order).
// `threads` 0: as many as the machine has cores, at most 4.
Result<CatalogSummary> RunCatalogGate(const std::string& target,
                                      const std::function<void(const KernelCheck&)>& on_kernel = {},
                                      int threads = 0);

// Exceptions used (one line each), then "N kernels: N passed, N failed".
std::string FormatCatalogSummary(const CatalogSummary& summary);
std::string FormatCatalogJson(const CatalogSummary& summary);

}  // namespace rowjit::jit
