// Host detection through LLVM (jit layer, base room).
#include "jit/base/host.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
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

int64_t LastLevelCacheBytes() {
  if (FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r")) {
    long long size = 0;
    char unit = 0;
    const int got = std::fscanf(f, "%lld%c", &size, &unit);
    std::fclose(f);
    if (got >= 1 && size > 0) return size << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
  }
  const long llc = ::sysconf(_SC_LEVEL3_CACHE_SIZE);  // 0 or -1 where the host does not say
  return llc > 0 ? llc : int64_t{32} << 20;
}

}  // namespace rowjit::jit
