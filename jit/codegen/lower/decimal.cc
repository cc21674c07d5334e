// Lowerings of the decimal functions (jit layer, codegen room): 64-bit storage arithmetic with the
// scale factors of the call's types baked in as constants, and range tests that report the
// overflows the semantics (ir/functions_decimal.cc) define. Nothing here divides by a variable
// (x86 has no vector division of integers), so the quotients by powers of ten come from double
// estimates corrected exactly (FloorDivModWide), the multiply's overflow test from the product in
// doubles; the 64-bit conversions go through I64ToF64 and IntegralF64ToI64, which take two
// 32-bit halves where the target lacks them in vectors (x86 before AVX-512DQ).
// Calls over 16-byte decimals compute on i64 halves (jit/codegen/int128.cc), the same semantics
// in 128 bits.
#include "ir/decimal.h"
#include "jit/codegen/codegen_internal.h"

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
  if (c.TakesSuspects(64) && (BitWidth(c.arg_type(0)) > 32 || BitWidth(c.arg_type(1)) > 32)) {
    // A rechecking row loop (jit/codegen/codegen_rows.cc): operands within 32 bits cannot wrap, so the
    // precision test is exact for them; a row with a wider operand is a suspect, its block rerun
    // through the exact test below.
    auto biased = [&](llvm::Value* v) { return b.CreateAdd(v, I64(b, int64_t{1} << 31)); };
    c.Suspect(b.CreateOr(biased(x), biased(y)));
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

// The storage in double, divided by 10^scale (both correctly rounded; 16-byte storage through
// I128ToF64).
Val ToFloat(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const int s = ScaleOf(c.call.args()[0]->type());
  const TypeId t = c.arg_type(0);
  llvm::Value* v = t == TypeId::kI128     ? I128ToF64(b, Widen128(b, a[0], t))
                   : BitWidth(t) <= 32 ? b.CreateSIToFP(a[0].v, b.getDoubleTy())
                                       : I64ToF64(b, a[0].v);
  if (s > 0) v = b.CreateFDiv(v, F64(b, static_cast<double>(ir::Pow10Wide(s))));
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

// --- 128 bits: a 16-byte result, or an operand of more than 18 digits ------------------------

// 64-bit calls read a 16-byte operand only to narrow it: decimal_cast up in scale to a decimal64
// (Cast tests the high half). Every other call with a 16-byte operand or result is wide.
// `cast`: the call is decimal_cast.
bool Wide(LowerContext& c, bool cast) {
  if (c.result_type() == TypeId::kI128) return true;
  const DataType& to = c.call.type();
  const bool narrowing = cast && to.logical == LogicalKind::kDecimal && to.scale >= ScaleOf(c.call.args()[0]->type());
  for (const ir::ExprPtr& a : c.call.args()) {
    if (a->type().id == TypeId::kI128 && !narrowing) return true;
  }
  return false;
}

// The row's result in the call's storage (both halves, or the low one: a 64-bit result was
// checked against its precision or storage), and its overflow as evidence.
Val Result128(LowerContext& c, Int128 r, llvm::Value* bad) {
  c.Evidence(c.b.CreateZExt(bad, c.b.getInt64Ty()));
  Val out;
  out.v = c.result_type() == TypeId::kI32 ? c.b.CreateTrunc(r.lo, c.b.getInt32Ty()) : r.lo;
  if (c.result_type() == TypeId::kI128) out.high = r.hi;
  return out;
}

llvm::Value* OrBad(B& b, llvm::Value* bad, llvm::Value* more) { return bad == nullptr ? more : b.CreateOr(bad, more); }

// An operand at the result's scale: x * 10^k, out of range when that needs more than 38 digits.
Int128 AtScale128(LowerContext& c, size_t i, const Val& a, llvm::Value*& bad) {
  const int k = c.call.type().scale - ScaleOf(c.call.args()[i]->type());
  const Int128 x = Widen128(c.b, a, c.arg_type(i));
  bad = OrBad(c.b, bad, OutOf128(c.b, x, ir::Pow10Wide(ir::kMaxDecimalDigits - k)));
  return k == 0 ? x : MulLow128(c.b, x, ir::Pow10Wide(k));
}

template <bool kSub>
Val AddSub128(LowerContext& c, std::span<const Val> a) {
  llvm::Value* bad = nullptr;
  const Int128 x = AtScale128(c, 0, a[0], bad);
  const Int128 y = AtScale128(c, 1, a[1], bad);
  const Int128 r = kSub ? Sub128(c.b, x, y) : Add128(c.b, x, y);
  bad = OrBad(c.b, bad, kSub ? SubWrapped128(c.b, x, y, r) : AddWrapped128(c.b, x, y, r));
  return Result128(c, r, c.b.CreateOr(bad, OutOf128(c.b, r, ir::Pow10Wide(c.call.type().precision))));
}

// The magnitudes' product: past 128 bits when both have a high half, else the larger times the
// other's low half (two 64 x 64 -> 128 products); then the sign.
Val Mul128(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const Int128 x = Widen128(b, a[0], c.arg_type(0)), y = Widen128(b, a[1], c.arg_type(1));
  const Int128 mx = Magnitude128(b, x), my = Magnitude128(b, y);
  llvm::Value* x_big = b.CreateICmpNE(mx.hi, I64(b, 0));
  llvm::Value* bad = b.CreateAnd(x_big, b.CreateICmpNE(my.hi, I64(b, 0)));
  const Int128 big = Select128(b, x_big, mx, my);
  llvm::Value* small = b.CreateSelect(x_big, my.lo, mx.lo);
  const Int128 p0 = MulWide64(b, big.lo, small), p1 = MulWide64(b, big.hi, small);
  const Int128 m{p0.lo, b.CreateAdd(p0.hi, p1.lo)};
  bad = b.CreateOr(bad, b.CreateOr(b.CreateICmpNE(p1.hi, I64(b, 0)), b.CreateICmpULT(m.hi, p0.hi)));
  // m below 2^127 (its top bit clear) and below 10^precision.
  bad = b.CreateOr(bad, b.CreateOr(b.CreateICmpSLT(m.hi, I64(b, 0)), OutOf128(b, m, ir::Pow10Wide(c.call.type().precision))));
  llvm::Value* negative = b.CreateICmpSLT(b.CreateXor(x.hi, y.hi), I64(b, 0));
  return Result128(c, Select128(b, negative, Neg128(b, m), m), bad);
}

// Up in scale by a multiply (out of range when the operand has more than precision - k digits),
// down by RoundDivPow10; to a plain i64 or u64 (the integer cast's first step), the storage's
// range.
Val Cast128(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType to = c.call.type();
  const int k = ScaleOf(to) - ScaleOf(c.call.args()[0]->type());
  const Int128 x = Widen128(b, a[0], c.arg_type(0));
  const Int128 v = k == 0 ? x : k > 0 ? MulLow128(b, x, ir::Pow10Wide(k)) : RoundDivPow10(b, x, -k);
  llvm::Value* bad;
  if (to.logical != LogicalKind::kDecimal) {
    bad = b.CreateICmpNE(v.hi, to.id == TypeId::kU64 ? I64(b, 0) : b.CreateAShr(v.lo, I64(b, 63)));
  } else if (k > 0) {
    bad = to.precision < k ? b.CreateNot(Equal128(b, x, Const128(b, 0))) : OutOf128(b, x, ir::Pow10Wide(to.precision - k));
  } else {
    bad = OutOf128(b, v, ir::Pow10Wide(to.precision));
  }
  return Result128(c, v, bad);
}

// x * 10^scale rounded (llvm.round); below 2^127 it converts, and is checked against the
// precision exactly; NaN and the rest fail with 0 in their place.
Val FromFloat128(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType to = c.call.type();
  llvm::Value* x = c.arg_type(0) == TypeId::kF32 ? b.CreateFPExt(a[0].v, b.getDoubleTy()) : a[0].v;
  llvm::Value* v = b.CreateUnaryIntrinsic(llvm::Intrinsic::round, b.CreateFMul(x, F64(b, static_cast<double>(ir::Pow10Wide(to.scale)))));
  llvm::Value* ok = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), F64(b, 0x1p127));
  const Int128 r = IntegralF64ToI128(b, b.CreateSelect(ok, v, F64(b, 0.0)));
  return Result128(c, r, b.CreateOr(b.CreateNot(ok), OutOf128(b, r, ir::Pow10Wide(to.precision))));
}

// Each function: 64 bits unless the call is wide.
template <LowerFn kNarrow, LowerFn kWide, bool kCast = false>
Val Either(LowerContext& c, std::span<const Val> a) {
  return Wide(c, kCast) ? kWide(c, a) : kNarrow(c, a);
}

const Lowering kLowerings[] = {
    {"decimal_add", Either<AddSub<false>, AddSub128<false>>},
    {"decimal_sub", Either<AddSub<true>, AddSub128<true>>},
    {"decimal_mul", Either<Mul, Mul128>},
    {"decimal_cast", Either<Cast, Cast128, /*kCast=*/true>},
    {"decimal_to_float", ToFloat},
    {"float_to_decimal", Either<FromFloat, FromFloat128>},
};

}  // namespace

std::span<const Lowering> DecimalLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
