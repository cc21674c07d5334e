// The rowjit command line: subcommand dispatch and help (tools layer; logic lives in libraries).
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "ir/version.h"
#include "jit/host.h"

namespace {

constexpr const char* kUsage = R"(usage: rowjit <command> [options]

JIT-compiles row expressions over columnar arrays into vectorized kernels for this CPU.

commands:
  info        print the host CPU and the LLVM that kernels are compiled with

options:
  --help      show this help (also: rowjit <command> --help)
  --version   print the rowjit and LLVM versions
)";

int Info(const std::vector<std::string_view>& args) {
  for (auto a : args) {
    if (a == "--help" || a == "-h") {
      std::fputs("usage: rowjit info\n\nPrints the target triple, CPU name and CPU features "
                 "that LLVM detects on this host.\n", stdout);
      return 0;
    }
    fmt::print(stderr, "rowjit info: unknown argument '{}'\n", a);
    return 2;
  }
  const auto host = rowjit::jit::GetHostInfo();
  fmt::print("rowjit {}\nllvm {}\ntriple {}\ncpu {}\nfeatures {}\n", rowjit::Version(),
             host.llvm_version, host.target_triple, host.cpu_name, host.features);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string_view command = args[0];
  const std::vector<std::string_view> rest(args.begin() + 1, args.end());
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    fmt::print("rowjit {} (LLVM {})\n", rowjit::Version(), rowjit::jit::GetHostInfo().llvm_version);
    return 0;
  }
  if (command == "info") return Info(rest);
  fmt::print(stderr, "rowjit: unknown command '{}'\n\n{}", command, kUsage);
  return 2;
}
