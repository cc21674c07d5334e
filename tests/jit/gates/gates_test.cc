// Gate tests: the vector shape of the optimized IR of catalog kernels, read from the IR and never
// from the clock (tests for jit/inspect, jit/gates, jit/gate_catalog).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "ir/binder.h"
#include "ir/function.h"
#include "ir/projection.h"
#include "jit/plan/planner.h"
#include "jit/gates/gate_catalog.h"
#include "jit/gates/gate_report.h"
#include "jit/gates/gates.h"
#include "jit/gates/kernel_request.h"
#include "jit/base/target.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

// Plans, generates and checks one kernel; an error names the request. Tests take the result
// with ASSERT_OK_AND_ASSIGN, so a failed plan or check stops the test with its error.
Result<KernelCheck> CheckRequest(const KernelRequest& request) {
  auto named = [&](const Error& e) {
    return Error(e.code(), fmt::format("{} [{}] on {}: {}", request.expr, request.schema,
                                       request.target, e.ToString()));
  };
  auto planned = PlanRequest(request);
  if (!planned.ok()) return named(planned.error());
  auto check = CheckPlanned(*planned);
  if (!check.ok()) return named(check.error());
  return check;
}

std::string Explain(const KernelCheck& check) { return FormatCheckText(check); }

const Violation* Find(const GateResult& result, std::string_view rule) {
  for (const Violation& v : result.violations) {
    if (v.rule == rule) return &v;
  }
  return nullptr;
}

// The dense kernels of the catalog over non-null flat inputs: one per function and type.
std::vector<CatalogKernel> DenseFlatKernels() {
  std::vector<CatalogKernel> out;
  for (CatalogKernel& k : CatalogKernels("native")) {
    if (k.function.rfind("fold:", 0) == 0) continue;  // reduction templates: tested below
    if (k.function == "guard") continue;                // guarded kernels: tested below
    if (k.function == "string") continue;               // string literal kernels: tested below
    if (k.request.policy == "dense" && k.request.constants.empty()) out.push_back(std::move(k));
  }
  return out;
}

bool IsNarrowInteger(TypeId t) { return IsInteger(t) && BitWidth(t) < 64; }

// For every fallible narrow-integer kernel, the optimized IR holds a vector
// OR-reduction whose element is the element's width (an 8-bit multiply's: its 16-bit product's,
// ir/analysis.cc), and no with.overflow intrinsic.
TEST(Gates, FallibleNarrowIntegerKernelsReduceEvidenceInVectorsOfTheElementWidth) {
  int checked = 0;
  for (const CatalogKernel& k : DenseFlatKernels()) {
    const ir::Function* f = ir::FindFunction(k.function);
    ASSERT_NE(f, nullptr);
    if (!f->fallible()) continue;
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest(k.request));
    const TypeId arg = check.kernel.expr->args()[0]->type().id;
    if (!IsNarrowInteger(arg)) continue;
    SCOPED_TRACE(Explain(check));
    for (const LoopReport& l : check.report.loops) {
      EXPECT_TRUE(l.overflow_intrinsics.empty()) << check.context.kernel;
    }
    if (!check.report.returns_evidence) continue;  // cannot fail: u8 → i32 and the like
    bool found = false;
    for (const ReductionInfo& r : check.report.reductions) {
      if (!r.feeds_return) continue;
      EXPECT_EQ(r.op, "or") << check.context.kernel;
      const int width = k.function == "mul" && BitWidth(arg) == 8 ? 16 : BitWidth(arg);
      EXPECT_EQ(r.element_bits, width) << check.context.kernel << ": " << r.line;
      found = true;
    }
    EXPECT_TRUE(found) << check.context.kernel << ": no vector OR-reduction of the evidence";
    EXPECT_TRUE(check.report.scalar_evidence.empty()) << check.context.kernel;
    ++checked;
  }
  EXPECT_GT(checked, 40);  // add, sub, mul, div, mod, neg, abs, casts over 6 narrow types
}

// Every primitive function's loop is vectorized (real <N x T> operations), and no
// kernel computes in <N x i128>. Listed exceptions (64-bit integer division on x86) aside.
TEST(Gates, EveryFunctionsMainLoopIsVectorizedWithoutI128) {
  std::set<std::string> functions;
  for (const CatalogKernel& k : DenseFlatKernels()) {
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest(k.request));
    SCOPED_TRACE(Explain(check));
    for (const Violation& v : check.result.violations) {
      EXPECT_NE(v.exception, nullptr) << check.context.kernel << ": " << FormatViolationText(v);
    }
    for (const LoopReport& l : check.report.loops) {
      EXPECT_TRUE(l.i128_ops.empty()) << check.context.kernel;
    }
    const bool excepted = !check.result.violations.empty();
    if (!excepted && !check.report.loops.empty() && !check.report.loops[0].bulk_memory) {
      EXPECT_NE(check.report.MainLoop(), nullptr) << check.context.kernel;
    }
    functions.insert(k.function);
  }
  // Functions returning strings run outside kernels (jit/exec/strings_materialize.cc): no kernel.
  const std::set<std::string> string_valued = {"lower", "upper", "substr", "concat", "trim", "ltrim", "rtrim", "replace",
                                               "logical_to_text"};
  for (const std::string& f : string_valued) EXPECT_EQ(functions.count(f), 0u) << f;
  // Vector functions run kernels of their own (tests/jit/vector_test.cc, Vectors.KernelIsVectorCode).
  // A struct's field is its child column (tests/jit/struct_test.cc), a list or map function its
  // column form (tests/jit/list_test.cc), a constructor its (tests/jit/construct_test.cc): no
  // kernel either.
  size_t vector_functions = 0, nested_functions = 0;
  for (const ir::Function* f : ir::AllFunctions()) {
    vector_functions += f->family == ir::Family::kVector;
    nested_functions += f->family == ir::Family::kStruct || f->family == ir::Family::kList ||
                        f->family == ir::Family::kConstruct;
  }
  EXPECT_EQ(vector_functions, 5u);
  EXPECT_EQ(nested_functions, 15u);
  EXPECT_EQ(functions.size() + string_valued.size() + vector_functions + nested_functions, ir::AllFunctions().size())
      << "a function has no dense kernel";
}

// Every fold x type of the catalog passes the gates on this host, and the reduction
// templates over non-bool inputs keep their accumulators as vectors carried by the main loop,
// with or without nulls (the flat fold: one reduction at the end of the call, not per word).
TEST(Gates, ReductionTemplatesKeepVectorAccumulators) {
  int folds = 0, carried = 0;
  std::set<std::string> names;
  for (const CatalogKernel& k : CatalogKernels("native")) {
    if (k.function.rfind("fold:", 0) != 0) continue;
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest(k.request));
    SCOPED_TRACE(Explain(check));
    EXPECT_TRUE(check.context.reduction_template) << check.context.kernel;
    for (const Violation& v : check.result.violations) {
      EXPECT_NE(v.exception, nullptr) << check.context.kernel << ": " << FormatViolationText(v);
    }
    ++folds;
    names.insert(k.function);
    const LoopReport* main = check.report.MainLoop();
    if (main != nullptr && main->vector_phis > 0) ++carried;
  }
  EXPECT_EQ(names.size(), 11u);  // sum, min, max, min_max, the _nan forms, count, nan_count, any, all
  EXPECT_GT(folds, 150);
  EXPECT_GT(carried, folds / 2);
  for (const char* schema : {"a:i32", "a:i32?"}) {
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest({"sum(a)", schema, {}, "dense", "native"}));
    SCOPED_TRACE(Explain(check));
    const LoopReport* main = check.report.MainLoop();
    ASSERT_NE(main, nullptr) << schema;
    EXPECT_GT(main->vector_phis, 0) << schema;
    EXPECT_TRUE(check.result.passed()) << schema;
  }
}

TEST(Gates, VectorizedMeansVectorOperationsNotALabel) {
  ASSERT_OK_AND_ASSIGN(KernelCheck check,
                       CheckRequest({"a * b + c", "a:i32, b:i32, c:i32", {}, "dense", "x86-64-v3"}));
  SCOPED_TRACE(Explain(check));
  const LoopReport* main = check.report.MainLoop();
  ASSERT_NE(main, nullptr);
  EXPECT_TRUE(main->vectorized);
  EXPECT_GT(main->vector_ops, 0);  // real <N x T> operations in the loop's own blocks
  ASSERT_FALSE(main->widths.empty());
  EXPECT_EQ(main->widths.front(), "8");  // 256-bit vectors of i32
  EXPECT_GE(main->interleave, 1);
  EXPECT_NE(std::find(main->element_types.begin(), main->element_types.end(), "i32"),
            main->element_types.end());
  EXPECT_TRUE(check.result.passed());
}

TEST(Gates, BranchSkipKernelsKeepTheirShape) {
  ASSERT_OK_AND_ASSIGN(KernelCheck check,
                       CheckRequest({"a * b", "a:u8?, b:u8?", {}, "branch-skip", "x86-64-v3"}));
  SCOPED_TRACE(Explain(check));
  EXPECT_TRUE(check.result.passed());
  bool evidence_i16 = false;  // the 16-bit products' high bytes (ir/analysis.cc)
  for (const ReductionInfo& r : check.report.reductions) {
    evidence_i16 = evidence_i16 || (r.feeds_return && r.op == "or" && r.element_bits == 16);
  }
  EXPECT_TRUE(evidence_i16);
}

TEST(Gates, ScalableVectorsCountAsVectorized) {
  ASSERT_OK_AND_ASSIGN(KernelCheck check,
                       CheckRequest({"a + b", "a:i32, b:i32", {}, "dense", "aarch64-sve"}));
  SCOPED_TRACE(Explain(check));
  // The main loop is found, and found through <vscale x N x T> operations: the loop counts as
  // vectorized because of its scalable vectors, not fixed-width ones.
  const LoopReport* main = check.report.MainLoop();
  ASSERT_NE(main, nullptr);
  EXPECT_TRUE(main->vectorized);
  ASSERT_FALSE(main->widths.empty());
  for (const std::string& w : main->widths) EXPECT_TRUE(w.starts_with("vscale x ")) << w;
  EXPECT_EQ(Find(check.result, kRuleMainLoopVectorized), nullptr);
  EXPECT_TRUE(check.result.passed());
}

TEST(Gates, DivisionByABatchConstantHasLoopInvariantEvidence) {
  // The only failing row is b == 0, decided once: no reduction, and not scalar accumulation.
  ASSERT_OK_AND_ASSIGN(KernelCheck check,
                       CheckRequest({"a / b", "a:u8, b:u8", {{"b", "3"}}, "dense", "x86-64-v3"}));
  SCOPED_TRACE(Explain(check));
  ASSERT_NE(check.report.MainLoop(), nullptr);
  EXPECT_TRUE(check.report.scalar_evidence.empty());
  for (const ReductionInfo& r : check.report.reductions) EXPECT_FALSE(r.feeds_return) << r.line;
  EXPECT_TRUE(check.result.passed());
}

TEST(Gates, ExceptionsFileParsesAndEveryExceptionHasAReason) {
  auto parsed = ParseGateExceptions(GateExceptionsText());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->size(), BuiltinGateExceptions().size());
  for (const GateException& e : *parsed) EXPECT_GE(e.reason.size(), 20u) << "line " << e.line;
}

TEST(Gates, ExceptionsFileErrors) {
  auto short_line = ParseGateExceptions("no-i128 | mul:i64\n");
  ASSERT_FALSE(short_line.ok());
  EXPECT_EQ(short_line.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(short_line.error().message().find("line 1: expected RULE | KERNEL | TARGET | REASON"),
            std::string::npos)
      << short_line.error().ToString();
  auto unknown = ParseGateExceptions("no-such-rule | mul:i64 | * | because\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(unknown.error().message().find("unknown rule 'no-such-rule'"), std::string::npos)
      << unknown.error().ToString();
  ASSERT_OK_AND_ASSIGN(
      std::vector<GateException> ok,
      ParseGateExceptions("# comment\n\nno-i128 | mul:i64 | x86-64-* | a reason # trailing\n"));
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].rule, "no-i128");
  EXPECT_EQ(ok[0].kernel, "mul:i64");
  EXPECT_EQ(ok[0].target, "x86-64-*");
  EXPECT_EQ(ok[0].reason, "a reason");
  EXPECT_EQ(ok[0].line, 3);
}

TEST(Gates, GlobMatch) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("x86-64-*", "x86-64-v3"));
  EXPECT_TRUE(GlobMatch("div:*64", "div:u64"));
  EXPECT_FALSE(GlobMatch("div:i64", "div:u64"));
  EXPECT_FALSE(GlobMatch("aarch64", "aarch64-sve"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
}

TEST(Gates, ContextTagsAndEvidenceWidths) {
  ASSERT_OK_AND_ASSIGN(
      PlannedKernel planned,
      PlanRequest({"cast(a * b, i64) + c", "a:u8, b:u8, c:i64", {}, "dense", "native"}));
  GateContext c = ContextFor(planned);
  EXPECT_EQ(c.tags, (std::vector<std::string>{"mul:u8", "cast:u8->i64", "add:i64"}));
  EXPECT_EQ(c.evidence_widths, (std::vector<int>{16, 64}));  // an 8-bit product's evidence is 16 bits
}

// String kernels that need no string bytes are vectorized, with no exception: a length test
// reads offsets (or the views' lengths) only; over the view layout, equality with a literal of
// up to 12 bytes and a prefix of up to 4 compare the 16-byte views themselves. The others are
// scalar by their reasons in the exceptions file.
TEST(Gates, StringKernelsThatNeedNoBytesAreVectorized) {
  const std::pair<const char*, const char*> kVectorized[] = {
      {"length(a) > 100", "a:utf8"},         {"length(a) > 100", "a:large_binary?"},
      {"length(a) > 100", "a:utf8_view?"},  {"a = 'literal'", "a:utf8_view"},
      {"a != 'twelve bytes'", "a:binary_view?"}, {"starts_with(a, 'AB-')", "a:utf8_view"},
      {"a like 'AB-%'", "a:utf8_view?"},
  };
  for (const auto& [text, schema] : kVectorized) {
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest({text, schema, {}, "dense", "native"}));
    SCOPED_TRACE(Explain(check));
    EXPECT_TRUE(check.result.violations.empty()) << text << " [" << schema << "]";
    EXPECT_NE(check.report.MainLoop(), nullptr) << text << " [" << schema << "]";
  }
  // Past what the view holds, the bytes are read, behind a branch: an excepted kernel.
  ASSERT_OK_AND_ASSIGN(KernelCheck longer, CheckRequest({"a = 'thirteen byte'", "a:utf8_view", {}, "dense", "native"}));
  ASSERT_FALSE(longer.result.violations.empty());
  EXPECT_NE(longer.result.violations[0].exception, nullptr);
}

TEST(Gates, CatalogEnumeratesPatternsAndPolicies) {
  const auto kernels = CatalogKernels("native");
  int mul_u8 = 0, coalesce3 = 0;
  for (const CatalogKernel& k : kernels) {
    if (k.function == "mul" && k.request.schema.starts_with("a:u8")) ++mul_u8;
    if (k.function == "coalesce" && k.request.expr == "coalesce(a, b, c)") ++coalesce3;
    // An all-constant call is no kernel: some column of the schema (one per argument; a cast's
    // type argument is no column) is not a batch constant.
    const auto columns = std::count(k.request.schema.begin(), k.request.schema.end(), ':');
    EXPECT_LT(k.request.constants.size(), static_cast<size_t>(columns))
        << k.request.expr << " [" << k.request.schema << "]";
  }
  EXPECT_EQ(mul_u8, 6);  // 3 constant patterns × (dense, branch-skip)
  EXPECT_EQ(coalesce3, 7 * 2 * 11);  // 7 patterns × (dense, validity) × 11 types
}

// Guarded kernels (errors of an `if` branch, a later `coalesce` argument, the right operand of
// `and`/`or` masked by their guards) keep the vector shape of the unguarded kernel: vectorized,
// evidence OR-reduced at the element width.
TEST(Gates, GuardedKernelsKeepTheirVectorShape) {
  int checked = 0;
  for (CatalogKernel& k : CatalogKernels("native")) {
    if (k.function != "guard") continue;
    ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest(k.request));
    EXPECT_TRUE(check.result.passed()) << Explain(check);
    ++checked;
    if (Find(check.result, kRuleMainLoopVectorized) != nullptr) continue;  // excepted: 64-bit division
    const LoopReport* main = check.report.MainLoop();
    ASSERT_NE(main, nullptr) << Explain(check);
    EXPECT_TRUE(main->vectorized) << Explain(check);
  }
  EXPECT_EQ(checked, 4 * 8 * 2);  // 4 guarded forms x 8 integer types x (dense, nullable)
  ASSERT_OK_AND_ASSIGN(KernelCheck guarded, CheckRequest({"if(b != 0, a / b, 0)", "a:i16, b:i16", {}, "dense", "native"}));
  bool narrow_or = false;
  for (const ReductionInfo& r : guarded.report.reductions) narrow_or = narrow_or || (r.feeds_return && r.op == "or" && r.element_bits == 16);
  EXPECT_TRUE(narrow_or) << Explain(guarded);
}

// A projection's kernel (several outputs in one loop, ir/projection.h) keeps the vector shape:
// its main loop is vectorized and passes every rule, dense and with validity, on the gated x86
// targets; the multiply the outputs share is computed once.
TEST(Gates, ProjectionKernelsAreVectorized) {
  for (const char* target : {"native", "x86-64-v3", "x86-64-v4"}) {
    for (bool nullable : {false, true}) {
      const Schema schema = *ParseSchema(nullable ? "a:i32?, b:i32?, c:i32?" : "a:i32, b:i32, c:i32");
      std::vector<ir::ExprPtr> outputs;
      for (const char* t : {"a * b + c", "a * b - c", "a * b > c"}) outputs.push_back(*ir::ParseAndBind(t, schema));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr root, ir::MakeProjection(outputs));
      std::vector<ir::InputSpec> specs;
      for (const Field& f : schema.fields) specs.push_back(ir::InputSpec{.type = f.type.id, .has_nulls = nullable});
      ASSERT_OK_AND_ASSIGN(TargetSpec spec, ResolveTarget(target));
      ASSERT_OK_AND_ASSIGN(CacheKey key, PlanKernel(root, specs, ir::Policy::kAuto, target));
      ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckPlanned(PlannedKernel{root, "", key, spec}));
      EXPECT_TRUE(check.result.passed()) << Explain(check);
      const LoopReport* main = check.report.MainLoop();
      ASSERT_NE(main, nullptr) << Explain(check);
      EXPECT_TRUE(main->vectorized) << Explain(check);
      // The dense form's scalar remainder computes the multiply the outputs share once a row
      // (early-cse with MemorySSA merges the loads and the product across the outputs' stores).
      const std::string& ir_text = check.code.optimized_ir;
      const size_t rows_at = ir_text.find("\nrows:");
      if (!nullable && rows_at != std::string::npos) {
        const std::string rows = ir_text.substr(rows_at, ir_text.find("\n\n", rows_at) - rows_at);
        size_t muls = 0;
        for (size_t at = rows.find(" = mul "); at != std::string::npos; at = rows.find(" = mul ", at + 1)) ++muls;
        EXPECT_EQ(muls, 1u) << rows;
      }
    }
  }
}

// Folds over inputs with nulls take their lanes' mask from the validity words on every gated
// target (mask registers on x86-64-v4, lane bit tests elsewhere), plain columns and fused
// expressions alike: no kernel reads a byte mask (its third argument). The rule catches one that
// would.
TEST(Gates, FoldsReadNoByteMask) {
  for (const char* target : {"native", "x86-64-v3", "x86-64-v4", "aarch64", "aarch64-sve"}) {
    for (const char* fold : {"sum(a)", "min_max(a)", "max(a)", "nan_count(a)", "count(a)", "sum(a * b)",
                             "min_max(a - b)", "count(a + b)"}) {
      for (const char* schema : {"a:i32?, b:i32", "a:i64?, b:i64?", "a:f64?, b:f64", "a:u8?, b:u8?", "a:f32?, b:f32?"}) {
        if (std::string_view(fold) == "nan_count(a)" && std::string_view(schema).find('f') == std::string_view::npos) {
          continue;
        }
        ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest({fold, schema, {}, "auto", target}));
        EXPECT_TRUE(check.context.masked_fold) << fold << " " << schema << " " << target;
        EXPECT_FALSE(check.report.reads_row_mask) << fold << " " << schema << " " << target;
        // With mask registers no fold spreads its mask to bytes either (jit/compile/mask_bits.cc).
        if (check.context.mask_registers) {
          EXPECT_FALSE(check.report.spreads_row_mask) << Explain(check);
        }
        EXPECT_EQ(Find(check.result, kRuleFoldMaskFromBitmap), nullptr) << Explain(check);
        EXPECT_TRUE(check.result.passed()) << Explain(check);
      }
    }
    ASSERT_OK_AND_ASSIGN(KernelCheck plain, CheckRequest({"sum(a * b)", "a:i32, b:i32", {}, "auto", target}));
    EXPECT_FALSE(plain.context.masked_fold) << target;
    ASSERT_OK_AND_ASSIGN(KernelCheck fused, CheckRequest({"sum(a * b)", "a:i32?, b:i32?", {}, "auto", target}));
    KernelReport reading = fused.report;
    reading.reads_row_mask = true;
    const GateResult result = CheckKernel(reading, fused.context);
    const Violation* v = Find(result, kRuleFoldMaskFromBitmap);
    ASSERT_NE(v, nullptr) << target;
    EXPECT_EQ(v->exception, nullptr);
    EXPECT_FALSE(result.passed());
    // A fused fold that spreads its own mask bytes: allowed without mask registers (AVX2's and
    // NEON's byte lanes read them best), a violation with them.
    KernelReport spreading = fused.report;
    spreading.spreads_row_mask = true;
    const GateResult spread = CheckKernel(spreading, fused.context);
    EXPECT_EQ(Find(spread, kRuleFoldMaskFromBitmap) != nullptr, fused.context.mask_registers) << target;
    if (std::string_view(target) != "native") {
      EXPECT_EQ(fused.context.mask_registers, std::string_view(target) == "x86-64-v4");
    }
  }
}

// Folds of i32 products (jit/compile/lane_order.cc): on x86 the main vector loop reads no column by a
// widening load (`sext` of a loaded i32 vector), on every width, without nulls and, with mask
// registers, with them; where a lane's row matters (a row kernel storing its products, a fold
// reading mask bytes) or the target widens as it multiplies (NEON), the loads stay as the
// vectorizer made them.
TEST(Gates, FoldsOfI32ProductsReadWholeVectors) {
  // In the main vector loop (a vectorized epilogue of one part a column keeps its loads).
  auto widening_loads = [](const KernelCheck& check) {
    const std::string& text = check.code.optimized_ir;
    const size_t body = text.find("\nvector.body:");
    if (body == std::string::npos) return -1;
    const std::string ir = text.substr(body, text.find("\n\n", body) - body);
    int n = 0;
    for (size_t at = ir.find("sext <"); at != std::string::npos; at = ir.find("sext <", at + 1)) {
      const size_t end = ir.find('\n', at);
      n += ir.substr(at, end - at).find(" x i32> %wide.load") != std::string::npos;
    }
    return n;
  };
  for (const char* target : {"native", "x86-64-v3", "x86-64-v4"}) {
    for (const char* fold : {"sum(a * b)", "min_max(a * b)", "sum(a * b + a * c)"}) {
      ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest({fold, "a:i32, b:i32, c:i32", {}, "auto", target}));
      EXPECT_EQ(widening_loads(check), 0) << fold << " " << target << "\n" << check.code.optimized_ir;
      EXPECT_NE(check.code.optimized_ir.find("x i32>, ptr"), std::string::npos) << fold << " " << target;
      EXPECT_TRUE(check.result.passed()) << Explain(check);
    }
    // Over inputs with nulls, with mask registers, the fold's mask is paired too (its even and
    // odd rows' bits, jit/compile/mask_bits.cc); as bytes (AVX2) it keeps the widening loads.
    ASSERT_OK_AND_ASSIGN(KernelCheck masked, CheckRequest({"sum(a * b)", "a:i32?, b:i32?", {}, "auto", target}));
    if (masked.context.mask_registers) {
      EXPECT_EQ(widening_loads(masked), 0) << target << "\n" << masked.code.optimized_ir;
      EXPECT_NE(masked.code.optimized_ir.find("fold.even"), std::string::npos) << target;
      EXPECT_TRUE(masked.result.passed()) << Explain(masked);
    } else {
      EXPECT_GT(widening_loads(masked), 0) << target;
    }
    ASSERT_OK_AND_ASSIGN(KernelCheck stored,
                         CheckRequest({"cast(a, i64) * cast(b, i64)", "a:i32, b:i32", {}, "dense", target}));
    EXPECT_GT(widening_loads(stored), 0) << target;
  }
  ASSERT_OK_AND_ASSIGN(KernelCheck neon, CheckRequest({"sum(a * b)", "a:i32, b:i32", {}, "auto", "aarch64"}));
  EXPECT_GT(widening_loads(neon), 0);
}

// A column fold over a nullable column, on targets with mask registers, loads each word's mask
// from the validity words and asks for the values 8 KiB ahead of the word it folds
// (PrefetchWordValues, jit/codegen/codegen_fold.cc); without mask registers (the lane-test loop) and
// without nulls it asks for nothing. Each still passes the gates.
TEST(Gates, MaskedColumnFoldsPrefetchTheirValues) {
  auto prefetches = [](const KernelCheck& check) {
    return check.code.optimized_ir.find("call void @llvm.prefetch") != std::string::npos;
  };
  for (const char* target : {"native", "x86-64-v3", "x86-64-v4"}) {
    for (const char* fold : {"min_max(a)", "sum(a)", "max(a)"}) {
      for (const char* type : {"f64", "i64", "i32"}) {
        ASSERT_OK_AND_ASSIGN(KernelCheck nullable,
                             CheckRequest({fold, fmt::format("a:{}?", type), {}, "auto", target}));
        EXPECT_EQ(prefetches(nullable), nullable.context.mask_registers) << fold << " " << type << " " << target;
        EXPECT_TRUE(nullable.result.passed()) << Explain(nullable);
        ASSERT_OK_AND_ASSIGN(KernelCheck flat, CheckRequest({fold, fmt::format("a:{}", type), {}, "auto", target}));
        EXPECT_FALSE(prefetches(flat)) << fold << " " << type << " " << target;
      }
    }
  }
}

// A short batch's kernel (KernelShape::short_batch): its one loop passes the gates on every target,
// and where the target masks (AVX-512, SVE) it is vectorized with its tail folded into masks:
// masked loads and stores, no scalar loop left.
TEST(Gates, ShortBatchKernelsFoldTheirTailIntoMasks) {
  for (const char* target : {"x86-64-v3", "x86-64-v4", "aarch64", "aarch64-sve"}) {
    for (auto [expr, schema] : {std::pair{"a * b + c", "a:i32, b:i32, c:i32"}, std::pair{"a / b", "a:i64, b:i64"},
                                std::pair{"a < b", "a:f64, b:f64"}, std::pair{"a * b - 1.5", "a:f32, b:f32"}}) {
      ASSERT_OK_AND_ASSIGN(PlannedKernel planned, PlanRequest({expr, schema, {}, "dense", target}));
      // A bool result's full-size kernel packs its bits in a word loop on x86; a short batch's
      // is a row loop.
      if (std::string_view(expr) != "a < b" || std::string_view(target).starts_with("aarch64")) {
        ASSERT_EQ(planned.key.shape.loop, KernelLoop::kRows) << expr;
      } else {
        ASSERT_EQ(planned.key.shape.loop, KernelLoop::kWords) << expr << " " << target;
      }
      planned.key.shape.loop = KernelLoop::kRows;
      planned.key.shape.short_batch = true;
      ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckPlanned(planned));
      EXPECT_TRUE(check.result.passed()) << Explain(check);
      const std::string_view t(target);
      if (t != "x86-64-v4" && t != "aarch64-sve") continue;
      bool vectorized = false, scalar = false;
      for (const LoopReport& l : check.report.loops) {
        vectorized = vectorized || l.vectorized;
        scalar = scalar || !l.vectorized;
      }
      EXPECT_TRUE(vectorized && !scalar) << expr << " " << target << "\n" << check.code.optimized_ir;
      EXPECT_NE(check.code.optimized_ir.find("@llvm.masked.load"), std::string::npos) << expr << " " << target;
      EXPECT_NE(check.code.optimized_ir.find("@llvm.masked.store"), std::string::npos) << expr << " " << target;
    }
  }
}

// Checked 32-bit multiplies of a dense kernel over valid rows speculate (KernelShape::
// speculative_mul): the kernel passes the gates on every target with the wrapped 32-bit product
// alone (no 64-bit lane in its loop), where its exact twin computes the 64-bit product.
TEST(Gates, SpeculativeMultipliesKeepTheirLanesNarrow) {
  for (const char* target : {"x86-64-v3", "x86-64-v4", "aarch64", "aarch64-sve"}) {
    for (auto [expr, schema] : {std::pair{"a * b + c", "a:i32, b:i32, c:i32"}, std::pair{"a * b < c", "a:u32, b:u32, c:u32"},
                                std::pair{"a * 3 - b", "a:i32, b:i32"}}) {
      ASSERT_OK_AND_ASSIGN(PlannedKernel planned, PlanRequest({expr, schema, {}, "auto", target}));
      ASSERT_TRUE(planned.key.shape.speculative_mul) << expr << " " << planned.key.ToString();
      ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckPlanned(planned));
      EXPECT_TRUE(check.result.passed()) << Explain(check);
      EXPECT_EQ(check.code.optimized_ir.find(" x i64>"), std::string::npos) << expr << " " << target << "\n"
                                                                          << check.code.optimized_ir;
      planned.key.shape.speculative_mul = false;  // the exact twin
      ASSERT_OK_AND_ASSIGN(KernelCheck exact, CheckPlanned(planned));
      EXPECT_TRUE(exact.result.passed()) << Explain(exact);
      EXPECT_NE(exact.code.optimized_ir.find(" x i64>"), std::string::npos) << expr << " " << target;
    }
  }
  // Not where the kernel rechecks (64-bit multiplies), nor over inputs with nulls.
  for (auto [expr, schema] : {std::pair{"a * b + c", "a:i32?, b:i32, c:i32"}, std::pair{"cast(a * b, i64) + c * d", "a:i32, b:i32, c:i64, d:i64"}}) {
    ASSERT_OK_AND_ASSIGN(PlannedKernel planned, PlanRequest({expr, schema, {}, "auto", "x86-64-v4"}));
    EXPECT_FALSE(planned.key.shape.speculative_mul) << expr;
  }
}

// The `prefer-vector-width` the optimized IR of `expr` carries on `target` ("" when absent).
std::string WidthOf(const char* expr, const char* schema, const std::string& target, VectorWidths widths = {}) {
  auto planned = PlanRequest({expr, schema, {}, "auto", target, widths});
  EXPECT_TRUE(planned.ok()) << expr;
  if (!planned.ok()) return "";
  auto code = GenerateCode(*planned, false);
  EXPECT_TRUE(code.ok()) << expr;
  if (!code.ok()) return "";
  const std::string key = "\"prefer-vector-width\"=\"";
  const size_t at = code->optimized_ir.find(key);
  return at == std::string::npos ? "" : code->optimized_ir.substr(at + key.size(), 3);
}

// Integer sum folds and the vector form of plain-column folds take the target's sum-fold width,
// row kernels of integer values (more than a lone multiply) and comparisons the integer-row
// width, every other kernel the row width (docs/performance.md, "Vector width per CPU"); the
// optimized IR carries the width that runs.
void ExpectFamilyWidths(const std::string& target, const std::string& fold, const std::string& rows,
                        VectorWidths widths = {}, std::string integer_rows = "") {
  if (integer_rows.empty()) integer_rows = rows;
  EXPECT_EQ(WidthOf("sum(a)", "a:i32?", target, widths), fold) << target;
  EXPECT_EQ(WidthOf("sum(a * b)", "a:i16?, b:i16", target, widths), fold) << target;
  EXPECT_EQ(WidthOf("min(a)", "a:i32?", target, widths), fold) << target;
  EXPECT_EQ(WidthOf("sum(a)", "a:f64?", target, widths), fold) << target;
  EXPECT_EQ(WidthOf("min(a + b)", "a:i32?, b:i32", target, widths), rows) << target;
  EXPECT_EQ(WidthOf("sum(a * b)", "a:f64?, b:f64", target, widths), rows) << target;
  EXPECT_EQ(WidthOf("a * b + c", "a:f64?, b:f64, c:f64", target, widths), rows) << target;
  EXPECT_EQ(WidthOf("a * b", "a:i32?, b:i32", target, widths), rows) << target;
  EXPECT_EQ(WidthOf("a * b + c", "a:i32?, b:i32, c:i32", target, widths), integer_rows) << target;
  EXPECT_EQ(WidthOf("a < b", "a:f64?, b:f64", target, widths), integer_rows) << target;
}

TEST(Gates, IntegerSumFoldsTakeTheirOwnVectorWidth) {
  for (const char* target : {"native", "x86-64-v3", "x86-64-v4"}) {
    ASSERT_OK_AND_ASSIGN(TargetSpec spec, ResolveTarget(target));
    ExpectFamilyWidths(target, std::to_string(spec.sum_fold_vector_width), std::to_string(spec.prefer_vector_width), {},
                       std::to_string(spec.IntegerRowsWidth()));
    if (std::string(target) == "x86-64-v4") {
      EXPECT_EQ(spec.sum_fold_vector_width, 512);
    }
    if (std::string(target) == "x86-64-v3") {
      EXPECT_EQ(spec.sum_fold_vector_width, 256);
    }
  }
}

// The two widths apart (VectorWidths{256, 512}; an AVX-512 host without AVX512-FP16 splits them
// so by itself): a fold kernel labelled with the row width, or a row kernel with the folds',
// fails here. The widths reach the target as `rowjit check --vector-width R/F` passes them.
TEST(Gates, SplitWidthsReachEachKernelFamily) {
  ASSERT_OK_AND_ASSIGN(const VectorWidths split, ParseVectorWidths("256/512"));
  ASSERT_OK_AND_ASSIGN(TargetSpec spec, ResolveTarget("native", split));
  EXPECT_EQ(spec.prefer_vector_width, 256);
  EXPECT_EQ(spec.sum_fold_vector_width, 512);
  ExpectFamilyWidths("native", "512", "256", split);
  ExpectFamilyWidths("native", "128", "512", {.rows = 512, .folds = 128});
  // Foreign targets keep their own widths.
  ASSERT_OK_AND_ASSIGN(TargetSpec v3, ResolveTarget("x86-64-v3", split));
  EXPECT_EQ(v3.sum_fold_vector_width, 256);
  EXPECT_FALSE(ParseVectorWidths("300").ok());
  EXPECT_FALSE(ParseVectorWidths("256/").ok());
}

// A query's grouped fold kernel (TPC-H Q1's aggregates: decimal sums of products under WHERE over
// string keys) at 1, 4 and 8 slots on the host and on AVX2: every loop but the vectorizer's
// remainders vectorized, the slots' sums and the evidence reduced from vectors, the vectorized
// loops prefetching their input streams (jit/compile/prefetch.cc), and the gates pass.
TEST(Gates, GroupedFoldKernelsVectorizeEveryLoop) {
  const std::string schema = "qty:decimal64(15,2), price:decimal64(15,2), disc:decimal64(15,2), tax:decimal64(15,2), "
                             "flag:utf8, status:utf8, ship:date32, n:i32";
  const std::string query = "sum(qty), sum(price * (1 - disc)), sum(price * (1 - disc) * (1 + tax)), avg(disc), "
                            "sum(n), count(*) group by flag, status where ship <= '1998-09-02'";
  for (const std::string target : {"native", "x86-64-v3"}) {
    for (int slots : {1, 4, 8}) {
      KernelRequest request;
      request.expr = query;
      request.schema = schema;
      request.target = target;
      request.grouped_slots = slots;
      ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest(request));
      SCOPED_TRACE(Explain(check));
      EXPECT_EQ(check.kernel.key.shape.grouped_slots, slots);
      EXPECT_TRUE(check.result.passed());
      int vectorized = 0;
      for (const LoopReport& l : check.report.loops) {
        EXPECT_TRUE(l.vectorized || l.remainder) << l.header;
        vectorized += l.vectorized;
      }
      EXPECT_GE(vectorized, 1);
      int adds = 0;
      for (const ReductionInfo& r : check.report.reductions) {
        EXPECT_NE(r.vector_type.find(" x "), std::string::npos) << r.line;
        adds += r.op == "add";
      }
      EXPECT_GE(adds, 5 * slots);
      EXPECT_TRUE(check.report.returns_evidence);  // the product of three decimals can overflow
      // At least one prefetch per column the first loop reads (qty, price, disc, tax, ship, n).
      const std::string& ir = check.code.optimized_ir;
      int prefetches = 0;
      for (size_t at = ir.find("call void @llvm.prefetch"); at != std::string::npos;
           at = ir.find("call void @llvm.prefetch", at + 1)) {
        ++prefetches;
      }
      EXPECT_GE(prefetches, 6);
    }
  }
}

// A grouped fold kernel for a target of scalable vectors (SVE) is generated and passes the gates;
// the prefetch pass leaves its scalable loads alone (it counts fixed-width bytes).
TEST(Gates, GroupedFoldKernelsOfScalableVectors) {
  KernelRequest request;
  request.expr = "sum(x), sum(y * x), count(*) group by g where y > 0";
  request.schema = "x:i64, y:i32, g:u8";
  request.target = "aarch64-sve";
  ASSERT_OK_AND_ASSIGN(KernelCheck check, CheckRequest(request));
  EXPECT_TRUE(check.result.passed()) << Explain(check);
  EXPECT_NE(check.code.optimized_ir.find("<vscale x"), std::string::npos) << check.code.optimized_ir;
}

}  // namespace
}  // namespace rowjit::jit
