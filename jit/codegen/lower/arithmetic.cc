// Lowerings of the arithmetic and bitwise row functions (jit layer, codegen room). Checked integer
// operations compute the wrapped value as the row's provisional value and report evidence that
// vectorizes, at the element's width: the sign-bit formula for signed add/sub; for 8- to 32-bit
// multiply the discarded high half of the product at twice the width (unsigned) or that high half
// XOR the sign fill of the low half (signed; a range test of the widened product on NEON for i32,
// and when a sum folds the exact product); for 64-bit multiply 32-bit limb products (no <N x i128>,
// never llvm.*.with.overflow). Division substitutes a safe divisor so nothing traps; 8- to 32-bit
// division runs in float, where it is exact.
#include "jit/codegen/costly.h"
#include "jit/codegen/codegen_internal.h"

namespace rowjit::jit::internal {
namespace {

using B = llvm::IRBuilder<>;

unsigned Width(llvm::Value* v) { return v->getType()->getIntegerBitWidth(); }
llvm::Value* Const(llvm::Value* like, uint64_t v) { return llvm::ConstantInt::get(like->getType(), v); }
llvm::Value* MinSigned(llvm::Value* like) {
  return llvm::ConstantInt::get(like->getType(), llvm::APInt::getSignedMinValue(Width(like)));
}
llvm::Value* Ext1(B& b, llvm::Value* bit, llvm::Value* like) { return b.CreateZExt(bit, like->getType()); }

// Evidence nonzero iff the sign bit of `v` is set: `v` with its other bits cleared (an AND with a
// constant, which AVX-512 folds with the XORs before it and the evidence's OR after it into
// ternary-logic operations, where a shift stays an operation of its own).
llvm::Value* SignBit(B& b, llvm::Value* v) { return b.CreateAnd(v, MinSigned(v)); }

Val Add(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsFloat(t)) return {b.CreateFAdd(x, y)};
  llvm::Value* r = b.CreateAdd(x, y);
  c.Evidence(IsSignedInt(t) ? SignBit(b, b.CreateAnd(b.CreateXor(x, r), b.CreateXor(y, r)))
                            : Ext1(b, b.CreateICmpULT(r, x), x));
  return {r};
}

Val Sub(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsFloat(t)) return {b.CreateFSub(x, y)};
  llvm::Value* r = b.CreateSub(x, y);
  c.Evidence(IsSignedInt(t) ? SignBit(b, b.CreateAnd(b.CreateXor(x, y), b.CreateXor(x, r)))
                            : Ext1(b, b.CreateICmpULT(x, y), x));
  return {r};
}

// The product of two 64-bit unsigned operands from 32-bit limbs: its low 64 bits, and
// `overflow` (i1) set when it needs more than 64 bits. Every multiply is 32 x 32 -> 64, which
// vectorizes (one pmuludq on x86), and the low half reuses the limb products instead of a
// second 64-bit multiply.
struct Product64 {
  llvm::Value* low;
  llvm::Value* overflow;
};
Product64 MulLimbs(B& b, llvm::Value* x, llvm::Value* y) {
  llvm::Value* lo_mask = b.getInt64(0xffffffffULL);
  llvm::Value *xh = b.CreateLShr(x, 32), *xl = b.CreateAnd(x, lo_mask);
  llvm::Value *yh = b.CreateLShr(y, 32), *yl = b.CreateAnd(y, lo_mask);
  llvm::Value* both_high = b.CreateAnd(b.CreateICmpNE(xh, b.getInt64(0)), b.CreateICmpNE(yh, b.getInt64(0)));
  llvm::Value* ll = b.CreateMul(xl, yl);
  // With at most one high limb, the cross terms and the carry fit in 64 bits; with two, the
  // sum may wrap, which changes neither the low half (it keeps cross mod 2^32) nor the verdict.
  llvm::Value* cross = b.CreateAdd(b.CreateAdd(b.CreateMul(xh, yl), b.CreateMul(xl, yh)),
                                   b.CreateLShr(ll, 32));
  llvm::Value* low = b.CreateOr(b.CreateShl(cross, 32), b.CreateAnd(ll, lo_mask));
  return {low, b.CreateOr(both_high, b.CreateICmpNE(b.CreateLShr(cross, 32), b.getInt64(0)))};
}

// Narrow products are computed once at twice the width: the row's value is the low half and the
// evidence the discarded high half (unsigned), or the high half XOR the sign fill of the low half
// (signed: zero iff the product fits), both at the element's width (a fold summing the product
// keeps its evidence at twice the width: WideProductBits). On x86 the backend turns
// these into a multiply-low plus a multiply-high at the element's width (vpmulhw, or two pmuldq
// for 32 bits) instead of widening every lane to 2w. Bytes have no multiply: the i16 product is
// frozen so that the backend computes it once and splits it, rather than twice.
Val Mul(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsFloat(t)) return {b.CreateFMul(x, y)};
  const unsigned w = Width(x);
  const bool is_signed = IsSignedInt(t);
  if (!c.wide_wanted && (RechecksMul(t) || SpeculatesMul(t)) && c.TakesSuspects(w)) {
    // Operands within half the width (signed: biased from [-2^(w/2-1), 2^(w/2-1)) to [0, 2^(w/2)))
    // cannot overflow; a row with a wider one is a suspect, its block rechecked exactly by the
    // kernel (or, in a speculative kernel, the batch rerun by its exact twin). The value is the
    // wrapped product either way: one multiply (bytes: LLVM's pmaddubsw form, no lane widened;
    // 64 bits: vpmullq where AVX-512DQ has it; 32 bits: one pmulld).
    auto biased = [&](llvm::Value* v) { return is_signed ? b.CreateAdd(v, Const(v, uint64_t{1} << (w / 2 - 1))) : v; };
    c.Suspect(b.CreateOr(biased(x), biased(y)));
    return {b.CreateMul(x, y)};
  }
  if (w < 64) {
    llvm::Type* wide = b.getIntNTy(2 * w);
    llvm::Value* p = is_signed ? b.CreateMul(b.CreateSExt(x, wide), b.CreateSExt(y, wide))
                               : b.CreateMul(b.CreateZExt(x, wide), b.CreateZExt(y, wide));
    if (w == 8) p = b.CreateFreeze(p);
    llvm::Value* r = b.CreateTrunc(p, x->getType());
    if (c.wide_wanted) {
      // A sum folds p itself: the range test shares it, and no sign or zero extension of the
      // truncated value is needed. The evidence stays at p's width (jit/base/kernel_abi.h
      // WideProductBits): its bits above the element, of p + 2^(w-1) when signed, zero iff p fits.
      llvm::Value* biased = is_signed ? b.CreateAdd(p, llvm::ConstantInt::get(wide, llvm::APInt::getOneBitSet(2 * w, w - 1))) : p;
      c.Evidence(b.CreateAnd(biased, llvm::ConstantInt::get(wide, llvm::APInt::getHighBitsSet(2 * w, w))));
      return {r, nullptr, p};
    }
    if (w == 8) {
      // The i16 product's high byte (unsigned), or of p + 128 (signed: p in [-128, 127]), as i16
      // evidence (ir/analysis.cc): an AND where narrowing to bytes costs a shift and a pack.
      llvm::Value* biased = is_signed ? b.CreateAdd(p, b.getInt16(128)) : p;
      c.Evidence(b.CreateAnd(biased, b.getInt16(0xff00)));
    } else if (!is_signed) {
      c.Evidence(b.CreateTrunc(b.CreateLShr(p, w), x->getType()));
    } else if (w == 32 && !llvm::Triple(c.module().getTargetTriple()).isX86()) {
      // NEON widens with smull; the high-half form defeats its cost model next to a constant.
      c.Evidence(Ext1(b, b.CreateICmpNE(b.CreateSExt(r, wide), p), x));
    } else {
      c.Evidence(b.CreateXor(b.CreateTrunc(b.CreateLShr(p, w), x->getType()), b.CreateAShr(r, w - 1)));
    }
    return {r};
  }
  if (!is_signed) {
    const Product64 p = MulLimbs(b, x, y);
    c.Evidence(Ext1(b, p.overflow, x));
    return {p.low};
  }
  // Signed: the product of the magnitudes as unsigned must be at most 2^63 - 1 (2^63 when the
  // signs differ); the row's value is that product with the sign applied (x * y mod 2^64).
  // Exact, so the evidence never raises a false alarm.
  llvm::Value* zero = b.getInt64(0);
  llvm::Value* ax = b.CreateSelect(b.CreateICmpSLT(x, zero), b.CreateSub(zero, x), x);
  llvm::Value* ay = b.CreateSelect(b.CreateICmpSLT(y, zero), b.CreateSub(zero, y), y);
  const Product64 m = MulLimbs(b, ax, ay);
  llvm::Value* sign = b.CreateAShr(b.CreateXor(x, y), 63);  // all ones when the signs differ
  llvm::Value* limit = b.CreateSub(b.getInt64(0x7fffffffffffffffULL), sign);
  c.Evidence(Ext1(b, b.CreateOr(m.overflow, b.CreateICmpUGT(m.low, limit)), x));
  return {b.CreateSub(b.CreateXor(m.low, sign), sign)};
}

Val WrappingAdd(LowerContext& c, std::span<const Val> a) { return {c.b.CreateAdd(a[0].v, a[1].v)}; }
Val WrappingSub(LowerContext& c, std::span<const Val> a) { return {c.b.CreateSub(a[0].v, a[1].v)}; }
Val WrappingMul(LowerContext& c, std::span<const Val> a) { return {c.b.CreateMul(a[0].v, a[1].v)}; }

// Integer quotient with a divisor known not to be zero nor to pair MIN with -1. Up to 32 bits
// it runs in float (f32 up to 16 bits, f64 for 32), where the truncated quotient is exact:
// the rounding error of x / y is below 1 / |y|, the distance from a non-integer quotient to the
// next integer. 64-bit division stays integer (no vector instruction exists on x86 or NEON).
llvm::Value* Quotient(LowerContext& c, llvm::Value* x, llvm::Value* y, bool is_signed) {
  auto& b = c.b;
  const unsigned w = Width(x);
  if (w == 64) return is_signed ? b.CreateSDiv(x, y) : b.CreateUDiv(x, y);
  llvm::Type* f = w <= 16 ? b.getFloatTy() : b.getDoubleTy();
  llvm::Value* fx = is_signed ? b.CreateSIToFP(x, f) : b.CreateUIToFP(x, f);
  llvm::Value* fy = is_signed ? b.CreateSIToFP(y, f) : b.CreateUIToFP(y, f);
  llvm::Value* q = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, b.CreateFDiv(fx, fy));
  // Every row's quotient is in the type's range (the safe divisor is never 0, and MIN / -1 has
  // become MIN / 1, in every row, null or not), so the plain conversion is exact and never
  // poison; the saturating one would scalarize the loop (its NaN and range tests run a lane at a
  // time on x86: bench `duckdb/i32_mod`).
  return is_signed ? b.CreateFPToSI(q, x->getType()) : b.CreateFPToUI(q, x->getType());
}

// A divisor that is a literal other than 0 (and -1 when signed): nothing to guard, and an integer
// division by a constant, which LLVM makes a multiply by its reciprocal in vector lanes.
bool PlainDivisor(llvm::Value* y, bool is_signed) {
  const auto* k = llvm::dyn_cast<llvm::ConstantInt>(y);
  return k != nullptr && !k->isZero() && !(is_signed && k->isMinusOne());
}

// Divisor checks shared by div and mod: returns the safe divisor; `zero` and `min_neg1` are set.
llvm::Value* SafeDivisor(LowerContext& c, llvm::Value* x, llvm::Value* y, bool is_signed,
                         llvm::Value** zero, llvm::Value** min_neg1) {
  auto& b = c.b;
  *zero = b.CreateICmpEQ(y, Const(y, 0));
  *min_neg1 = is_signed ? b.CreateAnd(b.CreateICmpEQ(x, MinSigned(x)),
                                      b.CreateICmpEQ(y, llvm::Constant::getAllOnesValue(y->getType())))
                        : b.getFalse();
  return b.CreateSelect(b.CreateOr(*zero, *min_neg1), Const(y, 1), y);
}

Val Div(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsFloat(t)) return {b.CreateFDiv(x, y)};
  if (PlainDivisor(y, IsSignedInt(t))) return {IsSignedInt(t) ? b.CreateSDiv(x, y) : b.CreateUDiv(x, y)};
  llvm::Value *zero, *min_neg1;
  llvm::Value* safe = SafeDivisor(c, x, y, IsSignedInt(t), &zero, &min_neg1);
  c.Evidence(Ext1(b, b.CreateOr(zero, min_neg1), x));
  return {Quotient(c, x, safe, IsSignedInt(t))};
}

Val Mod(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsFloat(t)) return {b.CreateFRem(x, y)};  // fmod: a call, listed in the gate exceptions
  if (PlainDivisor(y, IsSignedInt(t))) return {IsSignedInt(t) ? b.CreateSRem(x, y) : b.CreateURem(x, y)};
  llvm::Value *zero, *min_neg1;
  llvm::Value* safe = SafeDivisor(c, x, y, IsSignedInt(t), &zero, &min_neg1);
  c.Evidence(Ext1(b, zero, x));  // MIN % -1 is 0, not an error; the safe divisor 1 gives it
  llvm::Value* q = Quotient(c, x, safe, IsSignedInt(t));
  return {b.CreateSub(x, b.CreateMul(q, safe))};
}

// A decimal128's negation or magnitude: every value but the 16-byte minimum (past any precision).
Val Neg128Value(LowerContext& c, const Val& a, bool abs) {
  auto& b = c.b;
  const Int128 x = Widen128(b, a, TypeId::kI128);
  c.Evidence(b.CreateZExt(Equal128(b, x, Const128(b, static_cast<__int128>(static_cast<unsigned __int128>(1) << 127))),
                          b.getInt64Ty()));
  const Int128 r = abs ? Magnitude128(b, x) : Neg128(b, x);
  Val out;
  out.v = r.lo;
  out.high = r.hi;
  return out;
}

Val Neg(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value* x = a[0].v;
  const TypeId t = c.arg_type(0);
  if (t == TypeId::kI128) return Neg128Value(c, a[0], false);
  if (IsFloat(t)) return {b.CreateFNeg(x)};
  c.Evidence(IsSignedInt(t) ? Ext1(b, b.CreateICmpEQ(x, MinSigned(x)), x) : x);
  return {b.CreateSub(Const(x, 0), x)};
}

Val Abs(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value* x = a[0].v;
  const TypeId t = c.arg_type(0);
  if (t == TypeId::kI128) return Neg128Value(c, a[0], true);
  if (IsFloat(t)) return {b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)};
  if (!IsSignedInt(t)) return {x};
  c.Evidence(Ext1(b, b.CreateICmpEQ(x, MinSigned(x)), x));
  return {b.CreateSelect(b.CreateICmpSLT(x, Const(x, 0)), b.CreateSub(Const(x, 0), x), x)};
}

// -1, 0 or 1 as two compares and selects (branch-free); a float NaN passes through.
Val Sign(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value* x = a[0].v;
  llvm::Type* ty = x->getType();
  if (IsFloat(c.arg_type(0))) {
    llvm::Value* s = b.CreateSelect(b.CreateFCmpOGT(x, llvm::ConstantFP::get(ty, 0.0)),
                                    llvm::ConstantFP::get(ty, 1.0),
                                    b.CreateSelect(b.CreateFCmpOLT(x, llvm::ConstantFP::get(ty, 0.0)),
                                                   llvm::ConstantFP::get(ty, -1.0), llvm::ConstantFP::get(ty, 0.0)));
    return {b.CreateSelect(b.CreateFCmpUNO(x, x), x, s)};
  }
  if (!IsSignedInt(c.arg_type(0))) return {b.CreateZExt(b.CreateICmpNE(x, Const(x, 0)), ty)};
  llvm::Value* positive = b.CreateZExt(b.CreateICmpSGT(x, Const(x, 0)), ty);
  llvm::Value* negative = b.CreateZExt(b.CreateICmpSLT(x, Const(x, 0)), ty);
  return {b.CreateSub(positive, negative)};
}

template <bool kMax>
Val MinMax(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsFloat(t)) {
    // On a tie the first argument wins, as in the scalar semantics.
    llvm::Value* take_y = kMax ? c.Less(x, y, t) : c.Less(y, x, t);
    return {b.CreateSelect(take_y, y, x)};
  }
  const bool s = IsSignedInt(t);
  const auto id = kMax ? (s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax)
                       : (s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin);
  return {b.CreateBinaryIntrinsic(id, x, y)};
}

Val BitAnd(LowerContext& c, std::span<const Val> a) { return {c.b.CreateAnd(a[0].v, a[1].v)}; }
Val BitOr(LowerContext& c, std::span<const Val> a) { return {c.b.CreateOr(a[0].v, a[1].v)}; }
Val BitXor(LowerContext& c, std::span<const Val> a) { return {c.b.CreateXor(a[0].v, a[1].v)}; }
Val BitNot(LowerContext& c, std::span<const Val> a) { return {c.b.CreateNot(a[0].v)}; }

// Shifts by an amount outside [0, width): 0, or the sign fill for signed shr. The amount is
// masked before shifting so that no shift produces poison.
template <bool kLeft>
Val Shift(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value *x = a[0].v, *n = a[1].v;
  const unsigned w = Width(x);
  llvm::Value* in_range = b.CreateICmpULT(n, Const(n, w));
  llvm::Value* amount = b.CreateAnd(n, Const(n, w - 1));
  if (kLeft) return {b.CreateSelect(in_range, b.CreateShl(x, amount), Const(x, 0))};
  if (IsSignedInt(c.arg_type(0))) {
    return {b.CreateAShr(x, b.CreateSelect(in_range, amount, Const(n, w - 1)))};
  }
  return {b.CreateSelect(in_range, b.CreateLShr(x, amount), Const(x, 0))};
}

const Lowering kLowerings[] = {
    {"add", Add},           {"sub", Sub},           {"mul", Mul},
    {"wrapping_add", WrappingAdd}, {"wrapping_sub", WrappingSub}, {"wrapping_mul", WrappingMul},
    {"div", Div},           {"mod", Mod},           {"neg", Neg},
    {"abs", Abs},           {"sign", Sign},         {"min", MinMax<false>},
    {"max", MinMax<true>},
    {"bit_and", BitAnd},    {"bit_or", BitOr},      {"bit_xor", BitXor},
    {"bit_not", BitNot},    {"shl", Shift<true>},   {"shr", Shift<false>},
};

}  // namespace

std::span<const Lowering> ArithmeticLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
