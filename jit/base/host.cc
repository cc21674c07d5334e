// Host detection through LLVM (jit layer).
#include "jit/base/host.h"

#include <algorithm>
#include <vector>

#include "jit/base/llvm_internal.h"
#include "jit/base/target.h"

namespace rowjit::jit {

HostInfo GetHostInfo() {
  HostInfo info;
  info.llvm_version = LLVM_VERSION_STRING;
  info.target_triple = llvm::sys::getProcessTriple();
  info.cpu_name = llvm::sys::getHostCPUName().str();
  std::vector<std::string> enabled;
  for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
    if (feature.second) enabled.push_back(feature.first().str());
  }
  std::sort(enabled.begin(), enabled.end());
  for (const auto& f : enabled) {
    info.features.append(info.features.empty() ? "+" : ",+").append(f);
  }
  info.kernel_target = ForcedKernelLevel().value_or("native");
  return info;
}

}  // namespace rowjit::jit
