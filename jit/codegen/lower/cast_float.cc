// Lowerings of casts and float functions (jit layer, codegen room). Float → int conversions use the
// saturating intrinsics, so out-of-range rows get a defined provisional value (never poison);
// checked casts add range evidence of the source's width.
#include <cmath>

#include "jit/codegen/codegen_internal.h"

namespace rowjit::jit::internal {
namespace {

enum Mode { kChecked, kSaturating, kWrapping };

llvm::Value* IntConst(llvm::Type* ty, const llvm::APInt& v) { return llvm::ConstantInt::get(ty, v); }

template <Mode kMode>
Val Cast(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value* x = a[0].v;
  const TypeId s = c.arg_type(0);
  const TypeId t = c.result_type();
  llvm::Type* ty = c.Ty(t);
  if (IsString(s) || IsString(t)) return LowerStringCast(c, a);
  if (s == t) return {x};
  if (t == TypeId::kBool) {
    if (IsFloat(s)) return {b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0))};
    return {b.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0))};
  }
  if (s == TypeId::kBool) return {IsFloat(t) ? b.CreateUIToFP(x, ty) : b.CreateZExt(x, ty)};

  if (IsInteger(s) && IsInteger(t)) {
    const unsigned ws = BitWidth(s), wt = BitWidth(t);
    const bool ss = IsSignedInt(s), ts = IsSignedInt(t);
    llvm::Value* r = wt < ws ? b.CreateTrunc(x, ty) : (ss ? b.CreateSExt(x, ty) : b.CreateZExt(x, ty));
    if (kMode == kWrapping) return {r};
    // Whether x is in T's range, computed in S's width.
    llvm::Value* fits = b.getTrue();
    if (wt < ws) {
      llvm::Value* back = ts ? b.CreateSExt(r, x->getType()) : b.CreateZExt(r, x->getType());
      fits = b.CreateICmpEQ(back, x);
      if (ss && !ts) fits = b.CreateAnd(fits, b.CreateICmpSGE(x, llvm::ConstantInt::get(x->getType(), 0)));
      if (!ss && ts) fits = b.CreateAnd(fits, b.CreateICmpSGE(r, llvm::ConstantInt::get(ty, 0)));
    } else if (ss && !ts) {
      fits = b.CreateICmpSGE(x, llvm::ConstantInt::get(x->getType(), 0));
    } else if (!ss && ts && wt == ws) {
      fits = b.CreateICmpSGE(x, llvm::ConstantInt::get(x->getType(), 0));  // below 2^(w-1)
    }
    if (kMode == kChecked) {
      c.Evidence(b.CreateZExt(b.CreateNot(fits), x->getType()));
      return {r};
    }
    // Saturating: out-of-range values are negative (only from a signed source) or too large.
    llvm::Value* low = IntConst(ty, ts ? llvm::APInt::getSignedMinValue(wt) : llvm::APInt(wt, 0));
    llvm::Value* high = IntConst(ty, ts ? llvm::APInt::getSignedMaxValue(wt) : llvm::APInt::getMaxValue(wt));
    llvm::Value* negative = ss ? b.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)) : b.getFalse();
    return {b.CreateSelect(fits, r, b.CreateSelect(negative, low, high))};
  }
  if (IsInteger(s)) return {IsSignedInt(s) ? b.CreateSIToFP(x, ty) : b.CreateUIToFP(x, ty)};
  if (IsInteger(t)) {
    const unsigned wt = BitWidth(t);
    const bool ts = IsSignedInt(t);
    llvm::Value* r = b.CreateIntrinsic(ts ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
                                       {ty, x->getType()}, {x});
    if (kMode == kChecked) {
      // [lo, hi) are powers of two, exact in either float type.
      const double lo = ts ? -std::ldexp(1.0, wt - 1) : 0.0;
      const double hi = std::ldexp(1.0, ts ? wt - 1 : wt);
      llvm::Value* tr = b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x);
      llvm::Value* fits = b.CreateAnd(b.CreateFCmpOGE(tr, llvm::ConstantFP::get(x->getType(), lo)),
                                      b.CreateFCmpOLT(tr, llvm::ConstantFP::get(x->getType(), hi)));
      llvm::Type* ev_ty = b.getIntNTy(BitWidth(s));
      c.Evidence(b.CreateZExt(b.CreateNot(fits), ev_ty));  // NaN fails both compares
    }
    return {r};
  }
  // float → float
  if (BitWidth(t) > BitWidth(s)) return {b.CreateFPExt(x, ty)};
  llvm::Value* r = b.CreateFPTrunc(x, ty);
  if (kMode == kWrapping) return {r};
  llvm::Value* inf_t = llvm::ConstantFP::getInfinity(ty);
  llvm::Value* inf_s = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value* overflow = b.CreateAnd(
      b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, r), inf_t),
      b.CreateFCmpONE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), inf_s));
  if (kMode == kChecked) {
    c.Evidence(b.CreateZExt(overflow, b.getIntNTy(BitWidth(s))));
    return {r};
  }
  llvm::Value* max = llvm::ConstantFP::get(ty, ty->isFloatTy() ? 3.4028234663852886e38 : 1.7976931348623157e308);
  llvm::Value* clamped = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, max, r);
  return {b.CreateSelect(overflow, clamped, r)};
}

template <llvm::Intrinsic::ID kId>
Val Unary(LowerContext& c, std::span<const Val> a) {
  return {c.b.CreateUnaryIntrinsic(kId, a[0].v)};
}

Val Fma(LowerContext& c, std::span<const Val> a) {
  return {c.b.CreateIntrinsic(llvm::Intrinsic::fma, {a[0].v->getType()}, {a[0].v, a[1].v, a[2].v})};
}

Val IsNan(LowerContext& c, std::span<const Val> a) { return {c.b.CreateFCmpUNO(a[0].v, a[0].v)}; }

const Lowering kLowerings[] = {
    {"cast", Cast<kChecked>},
    {"saturating_cast", Cast<kSaturating>},
    {"wrapping_cast", Cast<kWrapping>},
    {"sqrt", Unary<llvm::Intrinsic::sqrt>},
    {"floor", Unary<llvm::Intrinsic::floor>},
    {"ceil", Unary<llvm::Intrinsic::ceil>},
    {"round", Unary<llvm::Intrinsic::round>},
    {"fma", Fma},
    {"is_nan", IsNan},
};

}  // namespace

std::span<const Lowering> CastFloatLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
