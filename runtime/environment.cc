// The process environment (runtime layer): runtime/environment.h.
#include "runtime/environment.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "kernels/dispatch.h"

namespace rowjit {
namespace {

std::optional<std::string> Variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

}  // namespace

std::optional<std::string> ZoneDirectoryVariable() { return Variable("TZDIR"); }

void ApplyKernelLevelVariable() {
  static std::once_flag once;
  std::call_once(once, [] {
    const std::optional<std::string> text = Variable("ROWJIT_KERNEL_LEVEL");
    if (!text) return;
    const std::optional<kernels::KernelLevel> level = kernels::ParseKernelLevel(*text);
    if (level && kernels::SetKernelLevel(*level)) return;
    std::fprintf(stderr, "rowjit: ROWJIT_KERNEL_LEVEL=%s is %s; using %s\n", text->c_str(),
                 level ? "not supported by this CPU" : "not a level (baseline|v2|v3|v4)",
                 kernels::KernelLevelName(kernels::ActiveKernelLevel()).data());
  });
}

std::string DefaultCacheDir() {
  if (std::optional<std::string> dir = Variable("ROWJIT_CACHE_DIR")) return *dir;
  if (std::optional<std::string> xdg = Variable("XDG_CACHE_HOME"); xdg && xdg->front() == '/') return *xdg + "/rowjit";
  if (std::optional<std::string> home = Variable("HOME"); home && home->front() == '/') return *home + "/.cache/rowjit";
  return "";
}

}  // namespace rowjit
