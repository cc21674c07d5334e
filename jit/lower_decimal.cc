// Lowerings of the decimal functions (jit layer): 64-bit storage arithmetic with the scale
// factors of the call's types baked in as constants, and range tests that report the overflows
// the semantics (ir/functions_decimal.cc) define. Nothing here divides by a variable or uses a
// 64-bit float conversion: x86 before AVX-512 has neither in vectors, so the quotients by powers
// of ten come from double estimates corrected exactly (FloorDivModWide), the multiply's overflow
// test from the product in doubles, and float-to-decimal through two 32-bit halves.
#include "ir/decimal.h"
#include "jit/codegen_internal.h"

namespace rowjit::jit::internal {
namespace {

using B = llvm::IRBuilder<>;

int ScaleOf(const DataType& t) { return t.logical == LogicalKind::kDecimal ? t.scale : 0; }

llvm::Value* I64(B& b, int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); }
llvm::Value* F64(B& b, double v) { return llvm::ConstantFP::get(b.getDoubleTy(), v); }

// Argument i's storage as i64 (integers extended by their signedness; a decimal128's low half,
// which only a cast reads, after testing the high half: NarrowedOut).
llvm::Value* Wide(LowerContext& c, size_t i, const Val& a) {
  const TypeId t = c.arg_type(i);
  if (BitWidth(t) >= 64) return a.v;
  return IsSignedInt(t) ? c.b.CreateSExt(a.v, c.b.getInt64Ty()) : c.b.CreateZExt(a.v, c.b.getInt64Ty());
}

// |v| >= limit for a positive limit, without negating v (which may be INT64_MIN).
llvm::Value* OutOf(B& b, llvm::Value* v, int64_t limit) {
  return b.CreateOr(b.CreateICmpSGE(v, I64(b, limit)), b.CreateICmpSLE(v, I64(b, -limit)));
}

// The row's result in the call's storage, and its overflow as evidence.
Val Result(LowerContext& c, llvm::Value* r, llvm::Value* bad) {
  c.Evidence(c.b.CreateZExt(bad, c.b.getInt64Ty()));
  if (c.result_type() == TypeId::kI32) r = c.b.CreateTrunc(r, c.b.getInt32Ty());
  return {r};
}

// An operand at the result's scale: x * 10^k, out of range when that needs more than 18 digits.
llvm::Value* AtScale(LowerContext& c, size_t i, const Val& a, llvm::Value*& bad) {
  const int k = c.call.type().scale - ScaleOf(c.call.args()[i]->type());
  llvm::Value* x = Wide(c, i, a);
  bad = bad == nullptr ? OutOf(c.b, x, ir::Pow10(ir::kMaxDecimal64Digits - k))
                       : c.b.CreateOr(bad, OutOf(c.b, x, ir::Pow10(ir::kMaxDecimal64Digits - k)));
  return k == 0 ? x : c.b.CreateMul(x, I64(c.b, ir::Pow10(k)));
}

// Both operands below 10^18 after rescaling: the sum cannot wrap, and the precision test is the
// only other overflow.
template <bool kSub>
Val AddSub(LowerContext& c, std::span<const Val> a) {
  llvm::Value* bad = nullptr;
  llvm::Value* x = AtScale(c, 0, a[0], bad);
  llvm::Value* y = AtScale(c, 1, a[1], bad);
  llvm::Value* r = kSub ? c.b.CreateSub(x, y) : c.b.CreateAdd(x, y);
  return Result(c, r, c.b.CreateOr(bad, OutOf(c.b, r, ir::Pow10(c.call.type().precision))));
}

// The wrapped product is exact whenever the product in doubles is below 2^62 (its relative
// error is below 2^-51), and a product at or above that exceeds 10^18 anyway; operands of 32
// bits or fewer cannot overflow 64.
Val Mul(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value* x = Wide(c, 0, a[0]);
  llvm::Value* y = Wide(c, 1, a[1]);
  llvm::Value* r = b.CreateMul(x, y);
  llvm::Value* bad = OutOf(b, r, ir::Pow10(c.call.type().precision));
  if (c.conservative_mul64 && (BitWidth(c.arg_type(0)) > 32 || BitWidth(c.arg_type(1)) > 32)) {
    // A rechecking row loop (jit/codegen_rows.cc): operands within 32 bits cannot wrap, so the
    // precision test is exact for them; a row with a wider operand is a suspect, its block rerun
    // through the exact test below.
    auto wide = [&](llvm::Value* v) { return b.CreateLShr(b.CreateAdd(v, I64(b, int64_t{1} << 31)), I64(b, 32)); };
    c.Suspect(b.CreateOr(wide(x), wide(y)));
  } else if (BitWidth(c.arg_type(0)) > 32 || BitWidth(c.arg_type(1)) > 32) {
    llvm::Value* f = b.CreateFMul(I64ToF64(b, x), I64ToF64(b, y));
    bad = b.CreateOr(bad, b.CreateFCmpOGE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, f), F64(b, 0x1p62)));
  }
  return Result(c, r, bad);
}

// To the result's scale: up by a multiply (out of range when the operand has more than
// precision - k digits), down by a division rounded half away from zero.
// A decimal128 operand is narrowed to its low half here: out of range unless the high half is
// the low half's sign (a value past 64 bits is past every decimal64 precision anyway).
Val Cast(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType to = c.call.type();
  const int k = to.scale - ScaleOf(c.call.args()[0]->type());
  llvm::Value* x = Wide(c, 0, a[0]);
  llvm::Value* wide = a[0].high != nullptr ? b.CreateICmpNE(a[0].high, b.CreateAShr(x, I64(b, 63))) : b.getFalse();
  if (k >= 0) {
    const int64_t limit = to.precision >= k ? ir::Pow10(to.precision - k) : 1;
    return Result(c, k == 0 ? x : b.CreateMul(x, I64(b, ir::Pow10(k))), b.CreateOr(wide, OutOf(b, x, limit)));
  }
  const int64_t d = ir::Pow10(-k);
  DivMod m;
  if (BitWidth(c.arg_type(0)) <= 32 && IsSignedInt(c.arg_type(0))) {  // i32 lanes: the vectorizer's multiply-high
    const DivMod narrow = FloorDivMod(b, a[0].v, d);
    m = {b.CreateSExt(narrow.q, b.getInt64Ty()), b.CreateSExt(narrow.r, b.getInt64Ty())};
  } else {
    m = FloorDivModWide(b, x, d);
  }
  // q + r/d with 0 <= r < d: a half rounds up for x >= 0 and down (away from zero) below.
  llvm::Value* twice = b.CreateShl(m.r, 1);
  llvm::Value* up = b.CreateSelect(b.CreateICmpSGE(x, I64(b, 0)), b.CreateICmpSGE(twice, I64(b, d)),
                                   b.CreateICmpSGT(twice, I64(b, d)));
  llvm::Value* q = b.CreateAdd(m.q, b.CreateZExt(up, b.getInt64Ty()));
  return Result(c, q, b.CreateOr(wide, OutOf(b, q, ir::Pow10(to.precision))));
}

// The storage in double, divided by 10^scale (both correctly rounded).
Val ToFloat(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const int s = ScaleOf(c.call.args()[0]->type());
  llvm::Value* v = BitWidth(c.arg_type(0)) <= 32 ? b.CreateSIToFP(a[0].v, b.getDoubleTy()) : I64ToF64(b, a[0].v);
  if (s > 0) v = b.CreateFDiv(v, F64(b, static_cast<double>(ir::Pow10(s))));
  if (c.result_type() == TypeId::kF32) v = b.CreateFPTrunc(v, b.getFloatTy());
  return {v};
}

// x * 10^scale rounded half away from zero (llvm.round), in range below 10^precision; NaN and
// the rest fail, with 0 in their place so that no conversion sees them.
Val FromFloat(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType to = c.call.type();
  llvm::Value* x = c.arg_type(0) == TypeId::kF32 ? b.CreateFPExt(a[0].v, b.getDoubleTy()) : a[0].v;
  llvm::Value* v = b.CreateUnaryIntrinsic(llvm::Intrinsic::round, b.CreateFMul(x, F64(b, static_cast<double>(ir::Pow10(to.scale)))));
  llvm::Value* ok = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), F64(b, static_cast<double>(ir::Pow10(to.precision))));
  return Result(c, IntegralF64ToI64(b, b.CreateSelect(ok, v, F64(b, 0.0))), b.CreateNot(ok));
}

const Lowering kLowerings[] = {
    {"decimal_add", AddSub<false>},
    {"decimal_sub", AddSub<true>},
    {"decimal_mul", Mul},
    {"decimal_cast", Cast},
    {"decimal_to_float", ToFloat},
    {"float_to_decimal", FromFloat},
};

}  // namespace

std::span<const Lowering> DecimalLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
