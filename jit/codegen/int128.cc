// 128-bit integer arithmetic on i64 halves (jit layer, codegen room): what decimal128 kernels
// compute with. LLVM splits `<N x i128>` into scalar code, and x86 before AVX-512 has no 64-bit
// vector multiply-high, division or integer conversion: so sums carry by compare, products come
// from 32-bit limbs, divisions by powers of ten are long divisions by limbs with double-estimated
// quotients (FloorDivMod), and float conversions split the value by hand.
#include "ir/decimal.h"
#include "jit/codegen/codegen_internal.h"

namespace rowjit::jit::internal {
namespace {

using B = llvm::IRBuilder<>;
using U128 = unsigned __int128;

llvm::Value* I64(B& b, uint64_t v) { return b.getInt64(v); }
llvm::Value* F64(B& b, double v) { return llvm::ConstantFP::get(b.getDoubleTy(), v); }
llvm::Value* Zext(B& b, llvm::Value* bit) { return b.CreateZExt(bit, b.getInt64Ty()); }

constexpr uint64_t kLow32 = 0xffffffff;

}  // namespace

Int128 Widen128(B& b, const Val& v, TypeId t) {
  if (t == TypeId::kI128) return {v.v, v.high};
  llvm::Value* lo = BitWidth(t) >= 64 ? v.v
                    : IsSignedInt(t)  ? b.CreateSExt(v.v, b.getInt64Ty())
                                      : b.CreateZExt(v.v, b.getInt64Ty());
  return {lo, IsSignedInt(t) ? b.CreateAShr(lo, I64(b, 63)) : I64(b, 0)};
}

Int128 Const128(B& b, __int128 v) {
  const auto u = static_cast<U128>(v);
  return {I64(b, static_cast<uint64_t>(u)), I64(b, static_cast<uint64_t>(u >> 64))};
}

Int128 Add128(B& b, Int128 x, Int128 y) {
  llvm::Value* lo = b.CreateAdd(x.lo, y.lo);
  return {lo, b.CreateAdd(b.CreateAdd(x.hi, y.hi), Zext(b, b.CreateICmpULT(lo, x.lo)))};
}

Int128 Sub128(B& b, Int128 x, Int128 y) {
  llvm::Value* borrow = Zext(b, b.CreateICmpULT(x.lo, y.lo));
  return {b.CreateSub(x.lo, y.lo), b.CreateSub(b.CreateSub(x.hi, y.hi), borrow)};
}

Int128 Neg128(B& b, Int128 x) { return Sub128(b, Const128(b, 0), x); }

Int128 Magnitude128(B& b, Int128 x) { return Select128(b, b.CreateICmpSLT(x.hi, I64(b, 0)), Neg128(b, x), x); }

Int128 Select128(B& b, llvm::Value* c, Int128 x, Int128 y) {
  return {b.CreateSelect(c, x.lo, y.lo), b.CreateSelect(c, x.hi, y.hi)};
}

llvm::Value* AddWrapped128(B& b, Int128 x, Int128 y, Int128 r) {
  return b.CreateICmpSLT(b.CreateAnd(b.CreateXor(x.hi, r.hi), b.CreateXor(y.hi, r.hi)), I64(b, 0));
}

llvm::Value* SubWrapped128(B& b, Int128 x, Int128 y, Int128 r) {
  return b.CreateICmpSLT(b.CreateAnd(b.CreateXor(x.hi, y.hi), b.CreateXor(x.hi, r.hi)), I64(b, 0));
}

llvm::Value* Less128(B& b, Int128 x, Int128 y) {
  return b.CreateOr(b.CreateICmpSLT(x.hi, y.hi),
                    b.CreateAnd(b.CreateICmpEQ(x.hi, y.hi), b.CreateICmpULT(x.lo, y.lo)));
}

llvm::Value* Equal128(B& b, Int128 x, Int128 y) {
  return b.CreateAnd(b.CreateICmpEQ(x.hi, y.hi), b.CreateICmpEQ(x.lo, y.lo));
}

llvm::Value* OutOf128(B& b, Int128 x, __int128 limit) {
  return b.CreateOr(b.CreateNot(Less128(b, x, Const128(b, limit))),
                    b.CreateNot(Less128(b, Const128(b, -limit), x)));
}

// Four 32 x 32 -> 64-bit products (operands masked or shifted to 32 bits: the vectorizer's
// vpmuludq), summed with their carries.
Int128 MulWide64(B& b, llvm::Value* x, llvm::Value* y) {
  llvm::Value* x0 = b.CreateAnd(x, I64(b, kLow32));
  llvm::Value* x1 = b.CreateLShr(x, I64(b, 32));
  llvm::Value* y0 = b.CreateAnd(y, I64(b, kLow32));
  llvm::Value* y1 = b.CreateLShr(y, I64(b, 32));
  llvm::Value* p00 = b.CreateMul(x0, y0);
  llvm::Value* p01 = b.CreateMul(x0, y1);
  llvm::Value* p10 = b.CreateMul(x1, y0);
  llvm::Value* p11 = b.CreateMul(x1, y1);
  llvm::Value* mid = b.CreateAdd(b.CreateAdd(b.CreateLShr(p00, I64(b, 32)), b.CreateAnd(p01, I64(b, kLow32))),
                                 b.CreateAnd(p10, I64(b, kLow32)));
  llvm::Value* lo = b.CreateOr(b.CreateAnd(p00, I64(b, kLow32)), b.CreateShl(mid, I64(b, 32)));
  llvm::Value* hi = b.CreateAdd(b.CreateAdd(p11, b.CreateLShr(p01, I64(b, 32))),
                                b.CreateAdd(b.CreateLShr(p10, I64(b, 32)), b.CreateLShr(mid, I64(b, 32))));
  return {lo, hi};
}

// (x.hi * 2^64 + x.lo) * (k.hi * 2^64 + k.lo) mod 2^128: the full low product, and the cross
// products' low halves in the high word.
Int128 MulLow128(B& b, Int128 x, __int128 k) {
  const auto u = static_cast<U128>(k);
  const auto klo = static_cast<uint64_t>(u), khi = static_cast<uint64_t>(u >> 64);
  Int128 p = MulWide64(b, x.lo, I64(b, klo));
  llvm::Value* cross = b.CreateMul(x.hi, I64(b, klo));
  if (khi != 0) cross = b.CreateAdd(cross, b.CreateMul(x.lo, I64(b, khi)));
  return {p.lo, b.CreateAdd(p.hi, cross)};
}

// |x| divided by 10^k in stages of at most 10^9, each a long division of four 32-bit limbs whose
// partial dividends stay below 10^9 * 2^32 < 2^62 (FloorDivMod's range); the quotient is rounded
// half away from zero from the last stage's remainder alone (it holds the top discarded digits,
// and its divisor 10^j, j >= 1, is even: the digits below cannot turn r < 10^j / 2 into a half),
// then x's sign is restored.
Int128 RoundDivPow10(B& b, Int128 x, int k) {
  llvm::Value* negative = b.CreateICmpSLT(x.hi, I64(b, 0));
  Int128 m = Magnitude128(b, x);
  llvm::Value* up = nullptr;
  for (int left = k; left > 0;) {
    const int step = std::min(left, 9);
    const int64_t d = ir::Pow10(step);
    llvm::Value* limbs[] = {b.CreateLShr(m.hi, I64(b, 32)), b.CreateAnd(m.hi, I64(b, kLow32)),
                            b.CreateLShr(m.lo, I64(b, 32)), b.CreateAnd(m.lo, I64(b, kLow32))};
    llvm::Value* r = I64(b, 0);
    llvm::Value* q[4];
    for (int i = 0; i < 4; ++i) {
      const DivMod qr = FloorDivMod(b, b.CreateOr(b.CreateShl(r, I64(b, 32)), limbs[i]), d);
      q[i] = qr.q;
      r = qr.r;
    }
    m = {b.CreateOr(b.CreateShl(q[2], I64(b, 32)), q[3]), b.CreateOr(b.CreateShl(q[0], I64(b, 32)), q[1])};
    left -= step;
    if (left == 0) up = b.CreateICmpSGE(b.CreateShl(r, I64(b, 1)), I64(b, static_cast<uint64_t>(d)));
  }
  m = Add128(b, m, {Zext(b, up), I64(b, 0)});
  return Select128(b, negative, Neg128(b, m), m);
}

// |x| < 2^64: the u64 as a double. Above: its top 64 bits from the leading one, the bits below
// them folded into the lowest (a sticky bit: 11 bits are rounded away, so the fold cannot change
// the rounding), converted, and scaled by the power of two the shift removed.
llvm::Value* I128ToF64(B& b, Int128 x) {
  llvm::Value* negative = b.CreateICmpSLT(x.hi, I64(b, 0));
  const Int128 m = Magnitude128(b, x);
  // An unsigned 64-bit value as a double: halved with its lost bit kept, converted, doubled.
  auto u64 = [&](llvm::Value* v) {
    llvm::Value* half = b.CreateOr(b.CreateLShr(v, I64(b, 1)), b.CreateAnd(v, I64(b, 1)));
    llvm::Value* big = b.CreateICmpSLT(v, I64(b, 0));
    return b.CreateSelect(big, b.CreateFMul(I64ToF64(b, half), F64(b, 2.0)), I64ToF64(b, b.CreateSelect(big, I64(b, 0), v)));
  };
  llvm::Value* n = b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, m.hi, b.getFalse());
  llvm::Value* safe_n = b.CreateSelect(b.CreateICmpEQ(m.hi, I64(b, 0)), I64(b, 0), n);
  llvm::Value* top = b.CreateOr(b.CreateShl(m.hi, safe_n), b.CreateLShr(b.CreateLShr(m.lo, I64(b, 1)), b.CreateSub(I64(b, 63), safe_n)));
  llvm::Value* sticky = Zext(b, b.CreateICmpNE(b.CreateShl(m.lo, safe_n), I64(b, 0)));
  // 2^(64 - n) as a double's bits: exponent 1023 + 64 - n.
  llvm::Value* scale = b.CreateBitCast(b.CreateShl(b.CreateSub(I64(b, 1023 + 64), safe_n), I64(b, 52)), b.getDoubleTy());
  llvm::Value* wide = b.CreateFMul(u64(b.CreateOr(top, sticky)), scale);
  llvm::Value* v = b.CreateSelect(b.CreateICmpEQ(m.hi, I64(b, 0)), u64(m.lo), wide);
  return b.CreateSelect(negative, b.CreateFNeg(v), v);
}

// |f| = hi * 2^64 + lo with hi = floor(|f| / 2^64) (below 2^63) and lo exact in [0, 2^64): each
// converted by IntegralF64ToI64 (lo from its value less 2^63 when it is that large).
Int128 IntegralF64ToI128(B& b, llvm::Value* f) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, f);
  llvm::Value* hi = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(a, F64(b, 0x1p-64)));
  llvm::Value* lo = b.CreateFSub(a, b.CreateFMul(hi, F64(b, 0x1p64)));
  llvm::Value* big = b.CreateFCmpOGE(lo, F64(b, 0x1p63));
  llvm::Value* lo_int = IntegralF64ToI64(b, b.CreateSelect(big, b.CreateFSub(lo, F64(b, 0x1p63)), lo));
  const Int128 m{b.CreateXor(lo_int, b.CreateShl(Zext(b, big), I64(b, 63))), IntegralF64ToI64(b, hi)};
  return Select128(b, b.CreateFCmpOLT(f, F64(b, 0.0)), Neg128(b, m), m);
}

}  // namespace rowjit::jit::internal
