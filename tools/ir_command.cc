// `rowjit ir`: the IR of one kernel before or after optimization, or its assembly, for any
// target (tools layer: codegen only, nothing runs).
#include <cstdio>

#include "jit/gates/inspect.h"
#include "jit/gates/kernel_request.h"
#include "tools/commands.h"

namespace rowjit::cli {

namespace {

constexpr const char* kHelp = R"(usage: rowjit ir EXPR --schema 'a:i32?,b:i32' [options]

Prints the LLVM IR of the kernel that evaluating EXPR would run, before (raw) or after (opt)
the O3 pipeline, or its assembly (asm). Codegen only: nothing runs, so any target works.

options:
)" ROWJIT_KERNEL_OPTIONS_HELP R"(  --stage S          raw | opt | asm | shape (default opt); shape: the sorted vector operations
                     of the optimized IR without value names, as the golden tests compare them
)";

}  // namespace

Result<jit::PlannedKernel> PlanFromOptions(const EvalOptions& o) {
  jit::KernelRequest request{o.expr, o.schema, o.constants, o.policy, o.target, o.vector_widths};
  return jit::PlanRequest(request);
}

int Ir(const Args& args) {
  if (args.Has("--help")) return PrintHelp(kHelp);
  EvalOptions o;
  if (int rc = ParseEvalOptions(args, o, kHelp); rc >= 0) return rc;
  if (int rc = RejectEvalOnlyOptions(o, kHelp); rc >= 0) return rc;
  if (o.stage != "raw" && o.stage != "opt" && o.stage != "asm" && o.stage != "shape") {
    fmt::print(stderr, "rowjit: --stage takes raw, opt, asm or shape\n");
    return 2;
  }
  auto kernel = PlanFromOptions(o);
  if (!kernel.ok()) return FailBinding(o, kernel.error());
  auto code = jit::GenerateCode(*kernel, o.stage == "asm");
  if (!code.ok()) return Fail(code.error());
  if (o.stage == "shape") {
    auto lines = jit::ShapeLines(code->optimized_ir, code->function_name);
    if (!lines.ok()) return Fail(lines.error());
    for (const std::string& line : *lines) fmt::print("{}\n", line);
    return 0;
  }
  const std::string& text =
      o.stage == "raw" ? code->raw_ir : (o.stage == "opt" ? code->optimized_ir : code->assembly);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace rowjit::cli
