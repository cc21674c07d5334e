// Must-fail tests: deliberately bad kernels, hand-written as LLVM IR, run through the same O3
// pipeline as generated kernels and rejected by the gate rule that should catch each (tests for
// jit/inspect and jit/gates).
#include <gtest/gtest.h>

#include "jit/gates/gate_report.h"
#include "jit/gates/gates.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

// Each module: i64 bad_kernel(ptr a, ptr b, ptr out, i64 n) over n rows, returning nonzero
// when the OR-reduced failure evidence is nonzero — the shape of a generated kernel's lane loop.

// u8 multiply whose evidence is llvm.umul.with.overflow: no vector lowering, the loop scalarizes.
constexpr const char* kUnsignedMulWithOverflowIntrinsic = R"ir(
define i64 @bad_kernel(ptr noalias nocapture readonly %a, ptr noalias nocapture readonly %b, ptr noalias nocapture writeonly %out, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i8 [ 0, %entry ], [ %acc.next, %loop ]
  %pa = getelementptr inbounds i8, ptr %a, i64 %i
  %x = load i8, ptr %pa, align 1
  %pb = getelementptr inbounds i8, ptr %b, i64 %i
  %y = load i8, ptr %pb, align 1
  %r = call { i8, i1 } @llvm.umul.with.overflow.i8(i8 %x, i8 %y)
  %v = extractvalue { i8, i1 } %r, 0
  %o = extractvalue { i8, i1 } %r, 1
  %oz = zext i1 %o to i8
  %acc.next = or i8 %acc, %oz
  %po = getelementptr inbounds i8, ptr %out, i64 %i
  store i8 %v, ptr %po, align 1
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %ev = phi i8 [ 0, %entry ], [ %acc.next, %loop ]
  %fail = icmp ne i8 %ev, 0
  %ret = zext i1 %fail to i64
  ret i64 %ret
}
declare { i8, i1 } @llvm.umul.with.overflow.i8(i8, i8)
)ir";

// u8 multiply with the right evidence (the high half) OR-ed into an i64 accumulator.
constexpr const char* kU8MulWithI64Accumulator = R"ir(
define i64 @bad_kernel(ptr noalias nocapture readonly %a, ptr noalias nocapture readonly %b, ptr noalias nocapture writeonly %out, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %pa = getelementptr inbounds i8, ptr %a, i64 %i
  %x = load i8, ptr %pa, align 1
  %pb = getelementptr inbounds i8, ptr %b, i64 %i
  %y = load i8, ptr %pb, align 1
  %xw = zext i8 %x to i16
  %yw = zext i8 %y to i16
  %p = mul nuw i16 %xw, %yw
  %v = trunc i16 %p to i8
  %hi = lshr i16 %p, 8
  %hi64 = zext i16 %hi to i64
  %acc.next = or i64 %acc, %hi64
  %po = getelementptr inbounds i8, ptr %out, i64 %i
  store i8 %v, ptr %po, align 1
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %ev = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %fail = icmp ne i64 %ev, 0
  %ret = zext i1 %fail to i64
  ret i64 %ret
}
)ir";

// i64 multiply checked by widening to i128: <N x i128> is split into scalar code.
constexpr const char* kI64MulWidenedToI128 = R"ir(
define i64 @bad_kernel(ptr noalias nocapture readonly %a, ptr noalias nocapture readonly %b, ptr noalias nocapture writeonly %out, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %pa = getelementptr inbounds i64, ptr %a, i64 %i
  %x = load i64, ptr %pa, align 8
  %pb = getelementptr inbounds i64, ptr %b, i64 %i
  %y = load i64, ptr %pb, align 8
  %xw = sext i64 %x to i128
  %yw = sext i64 %y to i128
  %p = mul nsw i128 %xw, %yw
  %v = trunc i128 %p to i64
  %vs = sext i64 %v to i128
  %bad = icmp ne i128 %vs, %p
  %ev = zext i1 %bad to i64
  %acc.next = or i64 %acc, %ev
  %po = getelementptr inbounds i64, ptr %out, i64 %i
  store i64 %v, ptr %po, align 8
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %e = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %fail = icmp ne i64 %e, 0
  %ret = zext i1 %fail to i64
  ret i64 %ret
}
)ir";

// The control: u8 multiply, high-half evidence in an i8 accumulator.
constexpr const char* kU8MulDoneRight = R"ir(
define i64 @bad_kernel(ptr noalias nocapture readonly %a, ptr noalias nocapture readonly %b, ptr noalias nocapture writeonly %out, i64 %n) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i8 [ 0, %entry ], [ %acc.next, %loop ]
  %pa = getelementptr inbounds i8, ptr %a, i64 %i
  %x = load i8, ptr %pa, align 1
  %pb = getelementptr inbounds i8, ptr %b, i64 %i
  %y = load i8, ptr %pb, align 1
  %xw = zext i8 %x to i16
  %yw = zext i8 %y to i16
  %p = mul nuw i16 %xw, %yw
  %v = trunc i16 %p to i8
  %hi = lshr i16 %p, 8
  %hi8 = trunc i16 %hi to i8
  %acc.next = or i8 %acc, %hi8
  %po = getelementptr inbounds i8, ptr %out, i64 %i
  store i8 %v, ptr %po, align 1
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %ev = phi i8 [ 0, %entry ], [ %acc.next, %loop ]
  %fail = icmp ne i8 %ev, 0
  %ret = zext i1 %fail to i64
  ret i64 %ret
}
)ir";

struct Checked {
  GateContext context;
  KernelCode code;
  KernelReport report;
  GateResult result;
  std::string text;
};

// Optimizes, inspects and checks a hand-written module for x86-64-v3 with no exceptions. Call
// through ASSERT_NO_FATAL_FAILURE: a module that does not optimize or inspect stops the test.
void CheckIr(const char* ir, std::vector<int> evidence_widths, Checked* out) {
  ASSERT_OK_AND_ASSIGN(TargetSpec target, ResolveTarget("x86-64-v3"));
  ASSERT_OK_AND_ASSIGN(out->code, OptimizeIr(ir, "bad_kernel", target));
  ASSERT_OK_AND_ASSIGN(out->report, InspectCode(out->code));
  GateContext& context = out->context;
  context.kernel = "bad_kernel";
  context.target = target.name;
  context.triple = target.triple;
  context.tags = {"bad_kernel"};
  context.evidence_widths = std::move(evidence_widths);
  out->result = CheckKernel(out->report, context, {});
  for (const Violation& v : out->result.violations) out->text += FormatViolationText(v);
}

const Violation* Find(const Checked& c, std::string_view rule) {
  for (const Violation& v : c.result.violations) {
    if (v.rule == rule) return &v;
  }
  return nullptr;
}

bool AnyLineHas(const Violation& v, std::string_view text) {
  for (const std::string& line : v.lines) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(BadKernels, UnsignedMulWithOverflowIntrinsicIsRejected) {
  Checked c;
  ASSERT_NO_FATAL_FAILURE(CheckIr(kUnsignedMulWithOverflowIntrinsic, {8}, &c));
  SCOPED_TRACE(c.code.optimized_ir);
  EXPECT_FALSE(c.result.passed());
  const Violation* v = Find(c, kRuleNoOverflowIntrinsic);
  ASSERT_NE(v, nullptr) << c.text;
  EXPECT_TRUE(AnyLineHas(*v, "@llvm.umul.with.overflow.i8")) << c.text;
  // The intrinsic has no vector lowering: it scalarizes the whole loop.
  EXPECT_NE(Find(c, kRuleMainLoopVectorized), nullptr) << c.text;
}

TEST(BadKernels, I64AccumulatorForU8DataIsRejected) {
  Checked c;
  ASSERT_NO_FATAL_FAILURE(CheckIr(kU8MulWithI64Accumulator, {8}, &c));
  SCOPED_TRACE(c.code.optimized_ir);
  EXPECT_FALSE(c.result.passed());
  const Violation* v = Find(c, kRuleEvidenceVectorOr);
  ASSERT_NE(v, nullptr) << c.text;
  EXPECT_TRUE(AnyLineHas(*v, "llvm.vector.reduce.or.v")) << c.text;
  EXPECT_TRUE(AnyLineHas(*v, "i64>")) << c.text;
  // The loop itself vectorizes: only the evidence rule catches this one.
  EXPECT_EQ(Find(c, kRuleMainLoopVectorized), nullptr) << c.text;
}

TEST(BadKernels, I64MulWidenedToI128IsRejected) {
  Checked c;
  ASSERT_NO_FATAL_FAILURE(CheckIr(kI64MulWidenedToI128, {}, &c));
  SCOPED_TRACE(c.code.optimized_ir);
  EXPECT_FALSE(c.result.passed());
  const Violation* v = Find(c, kRuleNoI128);
  ASSERT_NE(v, nullptr) << c.text;
  EXPECT_TRUE(AnyLineHas(*v, "x i128>")) << c.text;
}

TEST(BadKernels, TheSameKernelDoneRightPasses) {
  // The control: u8 multiply with the high half as evidence in an i8 accumulator.
  Checked c;
  ASSERT_NO_FATAL_FAILURE(CheckIr(kU8MulDoneRight, {8}, &c));
  SCOPED_TRACE(c.code.optimized_ir);
  EXPECT_TRUE(c.result.passed()) << c.text;
  EXPECT_TRUE(c.result.violations.empty()) << c.text;  // passed by itself, not by an exception
  ASSERT_NE(c.report.MainLoop(), nullptr);
  bool or_i8 = false;
  for (const ReductionInfo& r : c.report.reductions) {
    or_i8 = or_i8 || (r.feeds_return && r.op == "or" && r.element_bits == 8);
  }
  EXPECT_TRUE(or_i8);
}

TEST(BadKernels, AViolationNamesRuleKernelAndLines) {
  Checked c;
  ASSERT_NO_FATAL_FAILURE(CheckIr(kI64MulWidenedToI128, {}, &c));
  ASSERT_FALSE(c.result.violations.empty());
  const Violation& v = c.result.violations.front();
  const std::string text = FormatViolationText(v);
  EXPECT_NE(text.find(std::string(kRuleNoI128) + ": "), std::string::npos) << text;
  ASSERT_FALSE(v.lines.empty());
  for (const std::string& line : v.lines) {
    EXPECT_NE(line.find("i128"), std::string::npos) << line;  // the offending instructions
    EXPECT_NE(text.find(line), std::string::npos) << text << "\nlacks " << line;
  }
  // The kernel is named where its violations are printed: the check's text (what `rowjit check`
  // prints) starts with it and lists the violation under it.
  KernelCheck check;
  check.context = c.context;
  check.code = c.code;
  check.report = c.report;
  check.result = c.result;
  const std::string full = FormatCheckText(check);
  EXPECT_EQ(full.rfind("kernel  bad_kernel\n", 0), 0u) << full;
  EXPECT_NE(full.find(text), std::string::npos) << full;
}

TEST(BadKernels, ExceptionsExcuseByRuleKernelAndTarget) {
  ASSERT_OK_AND_ASSIGN(TargetSpec target, ResolveTarget("x86-64-v3"));
  ASSERT_OK_AND_ASSIGN(KernelCode code, OptimizeIr(kI64MulWidenedToI128, "bad_kernel", target));
  ASSERT_OK_AND_ASSIGN(KernelReport report, InspectCode(code));
  GateContext context{"bad_kernel", "x86-64-v3", "x86_64-unknown-linux-gnu", {"mul:i64"}, {}};
  // Without exceptions the kernel fails on no-i128 (and on that rule only, so that each case
  // below changes one thing about the one exception that would excuse it).
  const GateResult bare = CheckKernel(report, context, {});
  ASSERT_FALSE(bare.passed());
  for (const Violation& v : bare.violations) EXPECT_EQ(v.rule, kRuleNoI128) << FormatViolationText(v);
  // Rule, kernel tag and target (here by triple) all match: excused, and the violation is still
  // listed with the exception that allows it.
  ASSERT_OK_AND_ASSIGN(
      std::vector<GateException> exceptions,
      ParseGateExceptions("no-i128 | mul:i64 | x86_64-* | a reason long enough here\n"));
  const GateResult excused = CheckKernel(report, context, exceptions);
  EXPECT_TRUE(excused.passed());
  ASSERT_EQ(excused.violations.size(), bare.violations.size());
  for (const Violation& v : excused.violations) EXPECT_EQ(v.exception, &exceptions[0]);
  // The same exception with any one of the three changed excuses nothing.
  for (const char* text : {"no-i128 | mul:i64 | aarch64* | a reason long enough here\n",
                           "no-i128 | mul:i32 | x86_64-* | a reason long enough here\n",
                           "no-overflow-intrinsic | mul:i64 | x86_64-* | a reason long enough\n"}) {
    ASSERT_OK_AND_ASSIGN(std::vector<GateException> other, ParseGateExceptions(text));
    const GateResult r = CheckKernel(report, context, other);
    EXPECT_FALSE(r.passed()) << text;
    EXPECT_EQ(r.failures(), bare.failures()) << text;
  }
}

TEST(BadKernels, IrThatDoesNotParseIsAnInputError) {
  ASSERT_OK_AND_ASSIGN(TargetSpec target, ResolveTarget("x86-64-v3"));
  auto code = OptimizeIr("define i64 @bad_kernel( {", "bad_kernel", target);
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.error().code(), ErrorCode::kInvalidInput);
  auto inspected = InspectIr("not ir", "f");
  ASSERT_FALSE(inspected.ok());
  EXPECT_EQ(inspected.error().code(), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace rowjit::jit
