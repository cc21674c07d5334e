// What the JIT compiles for: the host CPU as LLVM sees it (jit layer, public).
#pragma once

#include <string>

namespace rowjit::jit {

struct HostInfo {
  std::string llvm_version;  // "19.1.7"
  std::string target_triple;
  std::string cpu_name;      // LLVM's name; may be an older model than the CPU really is
  std::string features;      // "+avx2,+fma,..." from sys::getHostCPUFeatures (reliable)
  // What engines made now compile kernels for: "native", or the x86-64 level ("x86-64-v3")
  // forced below the host's best by ROWJIT_KERNEL_LEVEL or kernels::SetKernelLevel.
  std::string kernel_target;
};

HostInfo GetHostInfo();

}  // namespace rowjit::jit
