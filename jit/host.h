// What the JIT compiles for: the host CPU as LLVM sees it (jit layer, public).
#pragma once

#include <string>

namespace rowjit::jit {

struct HostInfo {
  std::string llvm_version;  // "19.1.7"
  std::string target_triple;
  std::string cpu_name;      // LLVM's name; may be an older model than the CPU really is
  std::string features;      // "+avx2,+fma,..." from sys::getHostCPUFeatures (reliable)
};

HostInfo GetHostInfo();

}  // namespace rowjit::jit
