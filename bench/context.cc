// What the kernels of a run were compiled for, in the JSON's context (bench): the host CPU as LLVM
// names it, and "native" or the x86-64 level ROWJIT_KERNEL_LEVEL holds every kernel to.
#include <benchmark/benchmark.h>

#include "jit/base/host.h"
#include "runtime/environment.h"

namespace {

const bool kContext = [] {
  rowjit::ApplyKernelLevelVariable();  // the static kernels' benchmarks too, before any engine
  const rowjit::jit::HostInfo host = rowjit::jit::GetHostInfo();
  benchmark::AddCustomContext("rowjit_cpu", host.cpu_name);
  benchmark::AddCustomContext("rowjit_kernels", host.kernel_target);
  return true;
}();

}  // namespace
