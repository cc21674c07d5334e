// The IR gates (jit layer, gates room, public, LLVM-free). The gates room is its own library,
// rowjit_gates, linking the JIT (never the reverse): IR inspection, these rules, the catalog gate,
// reports and kernel requests. This header: rules over an inspected kernel, and the exceptions to
// them, listed by name and reason in one checked-in file (jit/gates/gate_exceptions.txt).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jit/gates/inspect.h"
#include "jit/gates/kernel_request.h"

namespace rowjit::jit {

// The rules, by the names violations and exceptions use.
inline constexpr std::string_view kRuleMainLoopVectorized = "main-loop-vectorized";
inline constexpr std::string_view kRuleEvidenceVectorOr = "evidence-vector-or";
inline constexpr std::string_view kRuleNoOverflowIntrinsic = "no-overflow-intrinsic";
inline constexpr std::string_view kRuleNoI128 = "no-i128";
inline constexpr std::string_view kRuleVectorAccumulator = "reduction-vector-accumulator";
inline constexpr std::string_view kRuleFoldMaskFromBitmap = "fold-mask-from-bitmap";

// What the rules need to know about a kernel beyond its IR.
struct GateContext {
  std::string kernel;  // names the kernel in violations: expression and key
  std::string target;  // target name, for exceptions ("native", "x86-64-v3")
  std::string triple;  // its triple, which exceptions may match instead ("x86_64-*")
  // "mul:u8", "cast:u64->f32", one per call of the expression: what exceptions match.
  std::vector<std::string> tags;
  // Element widths (bits) of the failure evidence (ir::ExprFacts::evidence_widths) when some
  // call that can fail takes a narrow integer; empty otherwise. The evidence rule applies when
  // one is narrow (8, 16 or 32).
  std::vector<int> evidence_widths;
  // Reduction templates (fused expression + fold) must keep vector accumulators across the
  // loop; set by the template compiler.
  bool reduction_template = false;
  // A fold over inputs with nulls: its lanes' mask must come from the inputs' validity words
  // (mask registers or lane bit tests), never from a byte mask a row the caller unpacked first.
  bool masked_fold = false;
  // The target has mask registers (TargetSpec::mask_registers): there a masked fold reads its
  // lanes' masks as bits, and spreading them to a byte a row first fails the same rule.
  bool mask_registers = false;
};

GateContext ContextFor(const PlannedKernel& kernel);

// One exception: a rule that may fail for kernels whose tag matches, on targets that match.
// `kernel` and `target` are glob patterns ('*' matches any run of characters); `kernel` matches a
// call tag ("div:i64") or the whole kernel name ("if(* [flat bool, constant *"); `target` matches
// the target's name or its triple (so "x86_64-*" covers native on an x86 host).
struct GateException {
  std::string rule;
  std::string kernel;
  std::string target;
  std::string reason;
  int line = 0;  // in the exceptions file
};

// Parses the exceptions file: one exception a line, `RULE | KERNEL | TARGET | REASON`, '#'
// starts a comment, blank lines are ignored.
Result<std::vector<GateException>> ParseGateExceptions(std::string_view text);
// The checked-in jit/gates/gate_exceptions.txt, embedded at build time.
std::string_view GateExceptionsText();
const std::vector<GateException>& BuiltinGateExceptions();

struct Violation {
  std::string rule;
  std::string message;
  std::vector<std::string> lines;  // the IR lines that break the rule
  const GateException* exception = nullptr;  // when listed: the exception that allows it
};

struct GateResult {
  std::vector<Violation> violations;  // failing and excepted
  bool passed() const;                // every violation is excepted
  int failures() const;
};

// Applies every rule to an inspected kernel.
GateResult CheckKernel(const KernelReport& report, const GateContext& context,
                       const std::vector<GateException>& exceptions = BuiltinGateExceptions());

// Everything about one kernel: generate (codegen only), inspect, check.
struct KernelCheck {
  PlannedKernel kernel;
  GateContext context;
  KernelCode code;
  KernelReport report;
  GateResult result;
};
Result<KernelCheck> CheckPlanned(const PlannedKernel& kernel,
                                 const std::vector<GateException>& exceptions = BuiltinGateExceptions());

bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace rowjit::jit
