// What the JIT compiles for: the host CPU as LLVM sees it (jit layer, base room, public).
#pragma once

#include <cstdint>
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

// The last-level cache one core shares, in bytes: Linux's sysfs for cpu0's L3, which names the
// slice a core sees (glibc's sysconf can report a whole socket's); else sysconf; else 32 MiB.
int64_t LastLevelCacheBytes();

}  // namespace rowjit::jit
