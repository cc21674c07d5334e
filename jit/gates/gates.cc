// The IR gate rules and their exceptions file (jit layer, gates room).
#include "jit/gates/gates.h"

#include <algorithm>
#include <sstream>

#include <fmt/ranges.h>

#include "ir/analysis.h"
#include "ir/function.h"
#include "ir/temporal.h"
#include "jit/codegen/costly.h"

namespace rowjit::jit {

namespace internal {
extern const std::string_view kGateExceptionsText;
}  // namespace internal

namespace {

std::string Tag(const ir::Expr& call) {
  const ir::Function& f = *call.function();
  if (f.takes_type_arg && call.type_arg()) {
    return fmt::format("{}:{}->{}", f.name, TypeIdName(call.args()[0]->type().id),
                       TypeIdName(*call.type_arg()));
  }
  size_t typed = f.unify_from > 0 ? static_cast<size_t>(f.unify_from) : 0;
  if (typed >= call.args().size()) typed = 0;
  return fmt::format("{}:{}", f.name, TypeIdName(call.args()[typed]->type().id));
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

void Add(std::vector<std::string>& lines, const std::vector<std::string>& more) {
  lines.insert(lines.end(), more.begin(), more.end());
}

void CheckMainLoop(const KernelReport& report, GateResult& out) {
  bool any_vectorized = false;
  for (const LoopReport& l : report.loops) any_vectorized = any_vectorized || l.vectorized;
  // No loop at all: the optimizer turned the row work into llvm.memcpy / memset or nothing
  // (an identity, a constant result).
  for (const LoopReport& l : report.loops) {
    if (l.vectorized || l.remainder || l.encloses_vectorized || l.bulk_memory || l.word_loop) continue;
    Violation v{std::string(kRuleMainLoopVectorized),
                fmt::format("loop '{}' (depth {}) holds no vector operation{}", l.header, l.depth,
                            any_vectorized ? "" : "; no loop of the kernel does"),
                {}};
    Add(v.lines, l.calls);
    Add(v.lines, l.scalar_row_ops);
    if (v.lines.size() > 8) v.lines.resize(8);
    out.violations.push_back(std::move(v));
  }
}

void CheckEvidence(const KernelReport& report, const GateContext& c, bool applies, GateResult& out) {
  if (!applies || !report.returns_evidence) return;  // no narrow evidence, or it folded away
  std::vector<const ReductionInfo*> evidence;
  for (const ReductionInfo& r : report.reductions) {
    if (r.feeds_return) evidence.push_back(&r);
  }
  const std::string widths = fmt::format(
      "{}", fmt::join(c.evidence_widths.begin(), c.evidence_widths.end(), ", i"));
  if (!report.scalar_evidence.empty()) {
    std::vector<std::string> lines = report.scalar_evidence;
    lines.push_back(report.return_line);
    out.violations.push_back({std::string(kRuleEvidenceVectorOr),
                              fmt::format("the returned failure evidence is accumulated row by "
                                          "row in scalars, not OR-reduced from vectors of i{}",
                                          widths),
                              std::move(lines)});
  }
  for (const ReductionInfo* r : evidence) {
    const bool width_ok = std::find(c.evidence_widths.begin(), c.evidence_widths.end(),
                                    r->element_bits) != c.evidence_widths.end();
    if (r->op == "or" && width_ok) continue;
    out.violations.push_back(
        {std::string(kRuleEvidenceVectorOr),
         fmt::format("the failure evidence is reduced by '{}' over {}; expected an OR over "
                     "elements of i{} (the element width)",
                     r->op, r->vector_type, widths),
         {r->line}});
  }
}

void CheckLoops(const KernelReport& report, GateResult& out) {
  for (const LoopReport& l : report.loops) {
    if (!l.overflow_intrinsics.empty()) {
      out.violations.push_back({std::string(kRuleNoOverflowIntrinsic),
                                fmt::format("loop '{}' calls an overflow intrinsic", l.header),
                                l.overflow_intrinsics});
    }
    if (!l.i128_ops.empty()) {
      std::vector<std::string> lines = l.i128_ops;
      if (lines.size() > 8) lines.resize(8);
      out.violations.push_back({std::string(kRuleNoI128),
                                fmt::format("loop '{}' computes in i128 ({} instructions)",
                                            l.header, l.i128_ops.size()),
                                std::move(lines)});
    }
  }
}

void CheckAccumulators(const KernelReport& report, const GateContext& c, GateResult& out) {
  if (!c.reduction_template) return;
  // No loop at all: nothing is folded row by row (count of a strict expression that cannot fail:
  // the executor counts the rows its validity keeps).
  if (report.loops.empty()) return;
  const LoopReport* main = report.MainLoop();
  if (main != nullptr && main->vector_phis > 0) return;
  out.violations.push_back({std::string(kRuleVectorAccumulator),
                            "the fold's accumulator is not a vector carried by the main loop",
                            {report.return_line}});
}

void CheckFoldMask(const KernelReport& report, const GateContext& c, GateResult& out) {
  if (!c.masked_fold) return;
  if (report.reads_row_mask) {
    out.violations.push_back({std::string(kRuleFoldMaskFromBitmap),
                              "the fold reads a byte mask a row; its lanes' mask should come from the "
                              "inputs' validity words",
                              {}});
  } else if (c.mask_registers && report.spreads_row_mask) {
    out.violations.push_back({std::string(kRuleFoldMaskFromBitmap),
                              "the fold spreads its rows' masks to a byte a row; with mask registers its "
                              "lanes should load them as bits",
                              {}});
  }
}

const GateException* FindException(const Violation& v, const GateContext& c,
                                   const std::vector<GateException>& exceptions) {
  for (const GateException& e : exceptions) {
    if (!GlobMatch(e.rule, v.rule)) continue;
    if (!GlobMatch(e.target, c.target) && !GlobMatch(e.target, c.triple)) continue;
    if (GlobMatch(e.kernel, c.kernel)) return &e;  // the whole kernel name
    for (const std::string& tag : c.tags) {
      if (GlobMatch(e.kernel, tag)) return &e;
    }
  }
  return nullptr;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Iterative '*' matching with backtracking to the last star.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

GateContext ContextFor(const PlannedKernel& kernel) {
  GateContext c;
  c.kernel = kernel.Name();
  c.target = kernel.target.name;
  c.triple = kernel.target.triple;
  c.mask_registers = kernel.target.mask_registers;
  const ir::ExprFacts& facts = kernel.expr->facts();
  for (const ir::Expr* call : facts.calls) {
    std::string tag = Tag(*call);
    if (std::find(c.tags.begin(), c.tags.end(), tag) == c.tags.end()) c.tags.push_back(std::move(tag));
    // A temporal function in a zone's local time also reads the zone's tables: "zoned:year".
    if (!call->args().empty() && ir::ReadsZoneTables(*call)) c.tags.push_back(fmt::format("zoned:{}", call->name()));
    // An IN list whose constant set is searched: row-dependent loads from a constant array.
    if (call->function()->literal_set &&
        ir::InListLookup(call->args()[0]->type().id, ir::InListSet(*call)) == ir::SetLookup::kSearched) {
      c.tags.push_back("searched:in_list");
    }
  }
  // The widths of the kernel's evidence accumulators; the evidence rule applies to narrow
  // integer evidence only.
  if (facts.narrow_integer_evidence) c.evidence_widths = facts.evidence_widths;
  // A fold summing a narrow product keeps that product's evidence at its own width.
  if (const int bits = WideProductBits(*kernel.expr, kernel.key.shape); bits != 0 && facts.narrow_integer_evidence) {
    c.evidence_widths.push_back(bits);
  }
  c.reduction_template = kernel.key.shape.fold.has_value();
  if (c.reduction_template) {
    c.tags.push_back("fold:" + kernel.fold);
    for (int col : facts.columns) c.masked_fold = c.masked_fold || kernel.key.spec.inputs[static_cast<size_t>(col)].has_nulls;
  }
  return c;
}

Result<std::vector<GateException>> ParseGateExceptions(std::string_view text) {
  std::vector<GateException> out;
  std::istringstream in{std::string(text)};
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::string s = Trim(raw.substr(0, raw.find('#')));
    if (s.empty()) continue;
    std::vector<std::string> fields;
    for (size_t start = 0;;) {
      const size_t bar = s.find('|', start);
      fields.push_back(Trim(std::string_view(s).substr(start, bar - start)));
      if (bar == std::string::npos || fields.size() == 4) {
        if (bar != std::string::npos) fields.back() = Trim(std::string_view(s).substr(start));
        break;
      }
      start = bar + 1;
    }
    if (fields.size() != 4 || fields[3].empty()) {
      return MakeError(ErrorCode::kInvalidInput,
                       "gate exceptions line {}: expected RULE | KERNEL | TARGET | REASON", line);
    }
    GateException e{fields[0], fields[1], fields[2], fields[3], line};
    const bool known = e.rule == kRuleMainLoopVectorized || e.rule == kRuleEvidenceVectorOr ||
                       e.rule == kRuleNoOverflowIntrinsic || e.rule == kRuleNoI128 ||
                       e.rule == kRuleVectorAccumulator || e.rule == kRuleFoldMaskFromBitmap;
    if (!known) {
      return MakeError(ErrorCode::kInvalidInput, "gate exceptions line {}: unknown rule '{}'", line,
                       e.rule);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string_view GateExceptionsText() { return internal::kGateExceptionsText; }

const std::vector<GateException>& BuiltinGateExceptions() {
  // The file is checked in and parsed by a test; an unparsable one gates nothing away.
  static const std::vector<GateException> exceptions = [] {
    auto parsed = ParseGateExceptions(GateExceptionsText());
    return parsed.ok() ? *parsed : std::vector<GateException>{};
  }();
  return exceptions;
}

bool GateResult::passed() const { return failures() == 0; }

int GateResult::failures() const {
  return static_cast<int>(std::count_if(violations.begin(), violations.end(),
                                        [](const Violation& v) { return v.exception == nullptr; }));
}

GateResult CheckKernel(const KernelReport& report, const GateContext& context,
                       const std::vector<GateException>& exceptions) {
  GateResult out;
  CheckMainLoop(report, out);
  const bool narrow = std::any_of(context.evidence_widths.begin(), context.evidence_widths.end(),
                                  [](int w) { return w < 64; });
  CheckEvidence(report, context, narrow, out);
  CheckLoops(report, out);
  CheckAccumulators(report, context, out);
  CheckFoldMask(report, context, out);
  for (Violation& v : out.violations) v.exception = FindException(v, context, exceptions);
  return out;
}

Result<KernelCheck> CheckPlanned(const PlannedKernel& kernel,
                                 const std::vector<GateException>& exceptions) {
  KernelCheck check;
  check.kernel = kernel;
  check.context = ContextFor(kernel);
  ROWJIT_ASSIGN_OR_RETURN(check.code, GenerateCode(kernel, false));
  ROWJIT_ASSIGN_OR_RETURN(check.report, InspectCode(check.code));
  check.result = CheckKernel(check.report, check.context, exceptions);
  return check;
}

}  // namespace rowjit::jit
