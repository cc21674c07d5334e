// `rowjit check` and `rowjit explain`: the IR gates over one kernel or the whole catalog, and
// LLVM's loop-vectorize remarks (tools layer: codegen only, nothing runs).
#include <cstdio>

#include "jit/gates/gate_catalog.h"
#include "jit/gates/gate_report.h"
#include "tools/commands.h"
#include "tools/progress.h"

namespace rowjit::cli {

namespace {

constexpr const char* kCheckHelp = R"(usage: rowjit check EXPR --schema 'a:i32?,b:i32' [options]
       rowjit check --catalog [--target T] [--json]

Runs the IR gates on the optimized IR of the kernel EXPR would run (codegen only, nothing runs):
  main-loop-vectorized          every loop holds vector operations, or is the scalar remainder
                                of a vector loop, or encloses a vectorized loop
  evidence-vector-or            fallible kernels on 8/16/32-bit integers OR-reduce their failure
                                evidence from vectors whose element is as wide as the element
  no-overflow-intrinsic         no *.with.overflow intrinsic inside a loop
  no-i128                       no i128 or <N x i128> operation inside a loop
  reduction-vector-accumulator  reduction templates keep a vector accumulator in the main loop
  fold-mask-from-bitmap         folds over inputs with nulls read no byte mask: their lanes'
                                mask comes from the inputs' validity words
Exceptions, by rule, kernel and target, with reasons, are listed in jit/gates/gate_exceptions.txt.

Prints per loop whether it is vectorized, its widths, interleave and reductions, then each
violation with the IR lines that break it. With --catalog: every catalog function x every type
it accepts x every constant pattern of its arguments x each applicable policy; one line per
failure, then "N kernels: N passed, N failed".

Exit status: 0 every rule holds, 1 a rule fails, 2 usage, parse or type error.

options (--schema is not needed with --catalog):
)" ROWJIT_KERNEL_OPTIONS_HELP R"(  --catalog          check every catalog kernel instead of one expression
  --json             print one JSON document instead of text
)";

constexpr const char* kExplainHelp = R"(usage: rowjit explain EXPR --schema 'a:i32?,b:i32' [options]

Prints LLVM's loop-vectorize remarks for the kernel EXPR would run — passed, missed and
analysis, with their reasons — after one line per loop saying whether it vectorized. Codegen
only, nothing runs.

options:
)" ROWJIT_KERNEL_OPTIONS_HELP;

int CheckCatalog(const Args& args) {
  static const std::vector<std::string_view> kKnown = {"--catalog", "--target", "--json", "--help"};
  if (auto u = args.Unknown(kKnown); !u.empty()) {
    fmt::print(stderr, "rowjit: unknown option '{}' with --catalog\n\n{}", u, kCheckHelp);
    return 2;
  }
  if (!args.Positionals({"--target"}).empty()) {
    fmt::print(stderr, "rowjit: --catalog takes no expression\n\n{}", kCheckHelp);
    return 2;
  }
  if (!args.MissingValue({"--target"}).empty()) return Usage("--target takes a value", kCheckHelp);
  const std::string target = args.Value("--target").value_or("native");
  if (int rc = RejectUnknownTarget(target, kCheckHelp); rc >= 0) return rc;
  const bool json = args.Has("--json");
  // A minute of codegen: progress on stderr, the report alone on stdout.
  Progress progress("rowjit check --catalog --target " + target,
                    static_cast<int64_t>(jit::CatalogKernels(target).size()));
  auto summary = jit::RunCatalogGate(target, [&](const jit::KernelCheck& check) {
    if (!json && !check.result.passed()) {
      progress.Clear();
      for (const jit::Violation& v : check.result.violations) {
        if (v.exception == nullptr) {
          fmt::print("FAIL {}: {}: {}\n", check.context.kernel, v.rule, v.message);
        }
      }
      std::fflush(stdout);
    }
    progress.Advance(check.context.kernel);
  });
  progress.Finish(summary.ok() ? "" : "stopped by an error");
  if (!summary.ok()) return Fail(summary.error());
  if (json) {
    std::fputs(jit::FormatCatalogJson(*summary).c_str(), stdout);
  } else {
    std::fputs(jit::FormatCatalogSummary(*summary).c_str(), stdout);
  }
  return summary->failed == 0 ? 0 : 1;
}

// Parses the options of check/explain and checks the one kernel they name.
Result<jit::KernelCheck> CheckOne(const EvalOptions& o) {
  ROWJIT_ASSIGN_OR_RETURN(jit::PlannedKernel kernel, PlanFromOptions(o));
  return jit::CheckPlanned(kernel);
}

}  // namespace

int Check(const Args& args) {
  if (args.Has("--help")) return PrintHelp(kCheckHelp);
  if (args.Has("--catalog")) return CheckCatalog(args);
  EvalOptions o;
  if (int rc = ParseEvalOptions(args, o, kCheckHelp); rc >= 0) return rc;
  if (int rc = RejectEvalOnlyOptions(o, kCheckHelp); rc >= 0) return rc;
  auto check = CheckOne(o);
  if (!check.ok()) return FailBinding(o, check.error());
  std::string out = o.json ? jit::FormatCheckJson(*check) : jit::FormatCheckText(*check);
  std::fputs(out.c_str(), stdout);
  return check->result.passed() ? 0 : 1;
}

int Explain(const Args& args) {
  if (args.Has("--help")) return PrintHelp(kExplainHelp);
  EvalOptions o;
  if (int rc = ParseEvalOptions(args, o, kExplainHelp); rc >= 0) return rc;
  if (int rc = RejectEvalOnlyOptions(o, kExplainHelp); rc >= 0) return rc;
  auto check = CheckOne(o);
  if (!check.ok()) return FailBinding(o, check.error());
  std::fputs(jit::FormatRemarksText(*check).c_str(), stdout);
  return 0;
}

}  // namespace rowjit::cli
