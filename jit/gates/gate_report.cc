// Text and JSON output of the IR gates (jit layer, gates room).
#include "jit/gates/gate_report.h"

#include <fmt/ranges.h>

namespace rowjit::jit {
namespace {

std::string JsonStrings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + JsonString(v[i]);
  return out + "]";
}

std::string JsonReduction(const ReductionInfo& r) {
  return fmt::format(R"({{"op": {}, "vector_type": {}, "element": {}, "evidence": {}, "line": {}}})",
                     JsonString(r.op), JsonString(r.vector_type), JsonString(r.element),
                     r.feeds_return, JsonString(r.line));
}

template <typename T, typename F>
std::string JsonArray(const std::vector<T>& v, F&& each, std::string_view indent) {
  if (v.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < v.size(); ++i) {
    out += fmt::format("{}  {}{}\n", indent, each(v[i]), i + 1 < v.size() ? "," : "");
  }
  return out + std::string(indent) + "]";
}

std::string LoopSummary(const LoopReport& l) {
  if (l.vectorized) {
    return fmt::format("vectorized, width {}, interleave {}, elements {}",
                       fmt::join(l.widths.begin(), l.widths.end(), "/"), l.interleave,
                       fmt::join(l.element_types.begin(), l.element_types.end(), " "));
  }
  if (l.short_batch) return "scalar loop of a short batch (KernelShape::short_batch)";
  if (l.remainder) return "scalar remainder of a vector loop";
  if (l.bulk_memory) return "bulk memory (llvm.memcpy/memset): the row work is a copy or a fill";
  if (l.word_loop) return "scalar loop over validity words, one a 64-row word (a fold's mask bits)";
  if (l.encloses_vectorized) return "not vectorized (encloses a vectorized loop)";
  return "NOT vectorized";
}

std::string RuleStatus(const KernelCheck& check, std::string_view rule) {
  int failed = 0, excepted = 0;
  for (const Violation& v : check.result.violations) {
    if (v.rule != rule) continue;
    (v.exception ? excepted : failed) += 1;
  }
  if (failed > 0) return "FAILED";
  if (excepted > 0) return "excepted";
  if (rule == kRuleEvidenceVectorOr && check.context.evidence_widths.empty()) return "n/a";
  if (rule == kRuleVectorAccumulator && !check.context.reduction_template) return "n/a";
  if (rule == kRuleFoldMaskFromBitmap && !check.context.masked_fold) return "n/a";
  return "ok";
}

}  // namespace

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string FormatViolationText(const Violation& v) {
  std::string out = fmt::format("  {}: {}{}\n", v.rule, v.message,
                                v.exception ? fmt::format(" (excepted: {})", v.exception->reason) : "");
  for (const std::string& line : v.lines) out += fmt::format("      {}\n", line);
  return out;
}

std::string FormatCheckText(const KernelCheck& check) {
  std::string out = fmt::format("kernel  {}\n", check.context.kernel);
  if (check.report.loops.empty()) out += "loop    none: the row work became a copy, a fill or nothing\n";
  for (const LoopReport& l : check.report.loops) {
    out += fmt::format("loop    {} (depth {}): {}\n", l.header, l.depth, LoopSummary(l));
    for (const ReductionInfo& r : l.reductions) {
      out += fmt::format("          reduce.{} {}{}\n", r.op, r.vector_type,
                         r.feeds_return ? " (failure evidence)" : "");
    }
    for (const std::string& c : l.calls) out += fmt::format("          call: {}\n", c);
  }
  // Reductions outside loops (after a vectorized loop that was unrolled away).
  for (const ReductionInfo& r : check.report.reductions) {
    bool in_loop = false;
    for (const LoopReport& l : check.report.loops) {
      for (const ReductionInfo& lr : l.reductions) in_loop = in_loop || lr.line == r.line;
    }
    if (!in_loop) {
      out += fmt::format("after   reduce.{} {}{}\n", r.op, r.vector_type,
                         r.feeds_return ? " (failure evidence)" : "");
    }
  }
  for (std::string_view rule : {kRuleMainLoopVectorized, kRuleEvidenceVectorOr,
                                kRuleNoOverflowIntrinsic, kRuleNoI128, kRuleVectorAccumulator,
                                kRuleFoldMaskFromBitmap}) {
    out += fmt::format("rule    {:<30} {}\n", rule, RuleStatus(check, rule));
  }
  for (const Violation& v : check.result.violations) out += FormatViolationText(v);
  const int failures = check.result.failures();
  out += failures == 0 ? "passed\n" : fmt::format("failed ({} violations)\n", failures);
  return out;
}

std::string FormatCheckJson(const KernelCheck& check) {
  const KernelReport& r = check.report;
  auto loop_json = [](const LoopReport& l) {
    return fmt::format(
        R"({{"header": {}, "depth": {}, "vectorized": {}, "remainder": {}, )"
        R"("encloses_vectorized": {}, "bulk_memory": {}, "word_loop": {}, "widths": {}, "interleave": {}, "element_types": {}, )"
        R"("vector_ops": {}, "reductions": {}, "overflow_intrinsics": {}, "i128_ops": {}, )"
        R"("calls": {}}})",
        JsonString(l.header), l.depth, l.vectorized, l.remainder, l.encloses_vectorized, l.bulk_memory, l.word_loop,
        JsonStrings(l.widths), l.interleave, JsonStrings(l.element_types), l.vector_ops,
        JsonArray(l.reductions, JsonReduction, "      "), JsonStrings(l.overflow_intrinsics),
        JsonStrings(l.i128_ops), JsonStrings(l.calls));
  };
  auto violation_json = [](const Violation& v) {
    return fmt::format(R"({{"rule": {}, "message": {}, "excepted": {}, "reason": {}, "lines": {}}})",
                       JsonString(v.rule), JsonString(v.message), v.exception != nullptr,
                       JsonString(v.exception ? v.exception->reason : ""), JsonStrings(v.lines));
  };
  auto remark_json = [](const Remark& m) {
    return fmt::format(R"({{"kind": {}, "message": {}}})", JsonString(m.kind), JsonString(m.message));
  };
  std::vector<std::string> widths;
  for (int w : check.context.evidence_widths) widths.push_back(fmt::format("i{}", w));
  return fmt::format(
      "{{\n  \"kernel\": {},\n  \"expr\": {},\n  \"target\": {},\n  \"tags\": {},\n"
      "  \"evidence_widths\": {},\n  \"passed\": {},\n  \"failures\": {},\n  \"loops\": {},\n"
      "  \"reductions\": {},\n  \"scalar_evidence\": {},\n  \"violations\": {},\n  \"remarks\": {}\n}}\n",
      JsonString(check.context.kernel), JsonString(check.kernel.expr->ToString()),
      JsonString(check.context.target), JsonStrings(check.context.tags), JsonStrings(widths),
      check.result.passed(), check.result.failures(), JsonArray(r.loops, loop_json, "  "),
      JsonArray(r.reductions, JsonReduction, "  "), JsonStrings(r.scalar_evidence),
      JsonArray(check.result.violations, violation_json, "  "),
      JsonArray(r.remarks, remark_json, "  "));
}

std::string FormatRemarksText(const KernelCheck& check) {
  std::string out = fmt::format("kernel  {}\n", check.context.kernel);
  for (const LoopReport& l : check.report.loops) {
    out += fmt::format("loop    {} (depth {}): {}\n", l.header, l.depth, LoopSummary(l));
  }
  if (check.report.remarks.empty()) out += "(no loop-vectorize remarks)\n";
  for (const Remark& m : check.report.remarks) out += fmt::format("{}: {}\n", m.kind, m.message);
  return out;
}

}  // namespace rowjit::jit
