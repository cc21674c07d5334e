// The rowjit command line: subcommand dispatch and top-level help (tools layer).
#include <cstdio>
#include <exception>
#include <new>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "runtime/environment.h"
#include "runtime/suggest.h"
#include "ir/version.h"
#include "jit/base/host.h"
#include "tools/commands.h"

namespace {

constexpr const char* kUsage = R"(usage: rowjit <command> [options]

JIT-compiles row expressions over columnar arrays into vectorized kernels for this CPU.

commands:
  eval EXPR --schema S ...   evaluate over random inputs and summarise the result
  eval EXPR --input F.csv    evaluate over a CSV file; --print N rows, --output F as CSV
  ir EXPR --schema S ...     the kernel's IR before or after optimization, or its assembly
  check EXPR --schema S ...  run the IR gates on one kernel (exit 1 when a rule fails)
  check --catalog            run the IR gates on every catalog kernel
  explain EXPR --schema S    LLVM's loop-vectorize remarks for the kernel, with reasons
  info                       the host CPU and the LLVM that kernels are compiled with
  functions [--markdown]     the function reference (--markdown: docs/functions.md)

options:
  --help      show this help (also: rowjit <command> --help)
  --version   print the rowjit and LLVM versions
)";

}  // namespace

namespace {

int Run(int argc, char** argv);

}  // namespace

// Nothing escapes: an allocation failure anywhere (a batch of 10^11 rows) is an out-of-memory
// error, any other exception an internal one, printed, exit 2.
int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("rowjit: out of memory\n", stderr);
  } catch (const std::exception& e) {
    fmt::print(stderr, "rowjit: internal error: {}\n", e.what());
  } catch (...) {
    std::fputs("rowjit: internal error\n", stderr);
  }
  return 2;
}

namespace {

int Run(int argc, char** argv) {
  rowjit::ApplyKernelLevelVariable();  // `rowjit info` reports the level it holds the kernels to
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string_view command = args[0];
  const rowjit::cli::Args rest(std::vector<std::string_view>(args.begin() + 1, args.end()));
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    fmt::print("rowjit {} (LLVM {})\n", rowjit::Version(), rowjit::jit::GetHostInfo().llvm_version);
    return 0;
  }
  if (command == "info") return rowjit::cli::Info(rest);
  if (command == "eval") return rowjit::cli::Eval(rest);
  if (command == "ir") return rowjit::cli::Ir(rest);
  if (command == "check") return rowjit::cli::Check(rest);
  if (command == "explain") return rowjit::cli::Explain(rest);
  if (command == "functions") return rowjit::cli::Functions(rest);
  constexpr std::string_view kCommands[] = {"info", "eval", "ir", "check", "explain", "functions", "help"};
  fmt::print(stderr, "rowjit: unknown command '{}'{}\n\n{}", command, rowjit::DidYouMean(command, kCommands), kUsage);
  return 2;
}

}  // namespace
