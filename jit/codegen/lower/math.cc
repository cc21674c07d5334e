// Lowerings of the transcendental float functions (jit layer, codegen room): the algorithms of
// ir/float_math.h instantiated over an IR backend, so a kernel emits, row by row, exactly the
// operations the reference evaluator performs in C++ (hence the same bits). The row code is
// branch-free and the loop vectorizer widens it; integers are i64 lanes (shifts, adds, masks)
// and the only int/float conversions are 32-bit, which vectorize on AVX2 as well.
#include "ir/float_math.h"
#include "jit/codegen/codegen_internal.h"
#include "jit/base/target.h"

namespace rowjit::jit::internal {
namespace {

class IrMath {
 public:
  explicit IrMath(llvm::IRBuilder<>& b) : b_(b), f64_(b.getDoubleTy()), i64_(b.getInt64Ty()) {}

  struct F {
    IrMath* m;
    llvm::Value* v;
  };
  struct I {
    IrMath* m;
    llvm::Value* v;
  };
  struct B {
    IrMath* m;
    llvm::Value* v;
  };

  F Const(double v) { return {this, llvm::ConstantFP::get(f64_, v)}; }
  I Int(int64_t v) { return {this, llvm::ConstantInt::get(i64_, static_cast<uint64_t>(v), true)}; }
  F Fma(F a, F b, F c) { return {this, b_.CreateIntrinsic(llvm::Intrinsic::fma, {f64_}, {a.v, b.v, c.v})}; }
  F Trunc(F x) { return {this, b_.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x.v)}; }
  F Abs(F x) { return {this, b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.v)}; }
  F Sqrt(F x) { return {this, b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x.v)}; }
  F Select(B c, F a, F b) { return {this, b_.CreateSelect(c.v, a.v, b.v)}; }
  I Select(B c, I a, I b) { return {this, b_.CreateSelect(c.v, a.v, b.v)}; }
  I Bits(F x) { return {this, b_.CreateBitCast(x.v, i64_)}; }
  F FromBits(I x) { return {this, b_.CreateBitCast(x.v, f64_)}; }
  F ToF(I x) { return {this, b_.CreateSIToFP(b_.CreateTrunc(x.v, b_.getInt32Ty()), f64_)}; }

  // The table of 2/π (ir::math::TwoOverPiTable) as a constant array of the kernel's module,
  // read at a row-dependent index (a gather).
  F TableLoad(I i) {
    llvm::Module& mod = *b_.GetInsertBlock()->getModule();
    llvm::GlobalVariable* g = mod.getNamedGlobal("rowjit.two_over_pi");
    if (g == nullptr) {
      std::span<const double> t = ir::math::TwoOverPiTable();
      llvm::Constant* init = llvm::ConstantDataArray::get(b_.getContext(), llvm::ArrayRef<double>(t.data(), t.size()));
      g = new llvm::GlobalVariable(mod, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
                                   "rowjit.two_over_pi");
    }
    b_.GetInsertBlock()->getParent()->addFnAttr(kTableGathersAttribute);
    return {this, b_.CreateLoad(f64_, b_.CreateInBoundsGEP(f64_, g, {i.v}))};
  }

  llvm::IRBuilder<>& b() { return b_; }

 private:
  llvm::IRBuilder<>& b_;
  llvm::Type* f64_;
  llvm::Type* i64_;
};

using F = IrMath::F;
using I = IrMath::I;
using B = IrMath::B;

F Lift(const F& like, double c) { return like.m->Const(c); }

#define ROWJIT_FLOAT_OP(op, create)                                                          \
  [[maybe_unused]] F operator op(F a, F b) { return {a.m, a.m->b().create(a.v, b.v)}; }      \
  [[maybe_unused]] F operator op(F a, double c) { return a op Lift(a, c); }                   \
  [[maybe_unused]] F operator op(double c, F b) { return Lift(b, c) op b; }
ROWJIT_FLOAT_OP(+, CreateFAdd)
ROWJIT_FLOAT_OP(-, CreateFSub)
ROWJIT_FLOAT_OP(*, CreateFMul)
ROWJIT_FLOAT_OP(/, CreateFDiv)
#undef ROWJIT_FLOAT_OP
F operator-(F a) { return {a.m, a.m->b().CreateFNeg(a.v)}; }

// C++'s comparisons: ordered, except != (true on NaN).
#define ROWJIT_FLOAT_CMP(op, create)                                                         \
  [[maybe_unused]] B operator op(F a, F b) { return {a.m, a.m->b().create(a.v, b.v)}; }      \
  [[maybe_unused]] B operator op(F a, double c) { return a op Lift(a, c); }
ROWJIT_FLOAT_CMP(==, CreateFCmpOEQ)
ROWJIT_FLOAT_CMP(!=, CreateFCmpUNE)
ROWJIT_FLOAT_CMP(<, CreateFCmpOLT)
ROWJIT_FLOAT_CMP(>, CreateFCmpOGT)
ROWJIT_FLOAT_CMP(<=, CreateFCmpOLE)
ROWJIT_FLOAT_CMP(>=, CreateFCmpOGE)
#undef ROWJIT_FLOAT_CMP

I operator+(I a, I b) { return {a.m, a.m->b().CreateAdd(a.v, b.v)}; }  // wrapping
I operator-(I a, I b) { return {a.m, a.m->b().CreateSub(a.v, b.v)}; }
I operator&(I a, I b) { return {a.m, a.m->b().CreateAnd(a.v, b.v)}; }
[[maybe_unused]] I operator|(I a, I b) { return {a.m, a.m->b().CreateOr(a.v, b.v)}; }
I operator<<(I a, int s) { return {a.m, a.m->b().CreateShl(a.v, s)}; }
I operator>>(I a, int s) { return {a.m, a.m->b().CreateAShr(a.v, s)}; }
B operator<(I a, I b) { return {a.m, a.m->b().CreateICmpSLT(a.v, b.v)}; }
B operator>(I a, I b) { return {a.m, a.m->b().CreateICmpSGT(a.v, b.v)}; }
[[maybe_unused]] B operator==(I a, I b) { return {a.m, a.m->b().CreateICmpEQ(a.v, b.v)}; }

B operator&(B a, B b) { return {a.m, a.m->b().CreateAnd(a.v, b.v)}; }
B operator|(B a, B b) { return {a.m, a.m->b().CreateOr(a.v, b.v)}; }
B operator!(B a) { return {a.m, a.m->b().CreateNot(a.v)}; }


// One call's arguments as f64 (f32 rows are computed in f64 and rounded once, as the reference
// does), and the result back in the call's type.
struct Widened {
  IrMath m;
  bool f32;
  std::vector<F> args;
  Widened(LowerContext& c, std::span<const Val> a) : m(c.b), f32(a[0].v->getType()->isFloatTy()) {
    AskWideVectors(c);
    for (const Val& v : a) args.push_back({&m, f32 ? c.b.CreateFPExt(v.v, c.b.getDoubleTy()) : v.v});
  }
  Val Result(F r) { return {f32 ? m.b().CreateFPTrunc(r.v, m.b().getFloatTy()) : r.v}; }
};

template <F (*kFn)(IrMath&, F)>
Val Unary(LowerContext& c, std::span<const Val> a) {
  Widened w(c, a);
  return w.Result(kFn(w.m, w.args[0]));
}

template <F (*kFn)(IrMath&, F, F)>
Val Binary(LowerContext& c, std::span<const Val> a) {
  Widened w(c, a);
  return w.Result(kFn(w.m, w.args[0], w.args[1]));
}

// sin, cos and tan: in a dense row loop that takes suspects of width 64 (jit/codegen/codegen_rows.cc),
// without the table reduction of arguments of 2^20 π/2 and more (gathers in every row), such an
// argument a suspect whose block the loop reruns with this lowering's exact form.
template <F (*kFn)(IrMath&, F, bool)>
Val Trig(LowerContext& c, std::span<const Val> a) {
  Widened w(c, a);
  const bool fast = c.TakesSuspects(64);
  if (fast) {
    B large = w.m.Abs(w.args[0]) > ir::math::kMediumLimit;  // NaN is not: its row gives NaN either way
    c.Suspect(c.b.CreateShl(c.b.CreateZExt(large.v, c.b.getInt64Ty()), 32));
  }
  return w.Result(kFn(w.m, w.args[0], !fast));
}

const Lowering kLowerings[] = {
    {"exp", Unary<ir::math::Exp<IrMath>>},     {"ln", Unary<ir::math::Ln<IrMath>>},
    {"log2", Unary<ir::math::Log2<IrMath>>},   {"log10", Unary<ir::math::Log10<IrMath>>},
    {"log1p", Unary<ir::math::Log1p<IrMath>>}, {"power", Binary<ir::math::Pow<IrMath>>},
    {"sin", Trig<ir::math::SinOf<IrMath>>},    {"cos", Trig<ir::math::CosOf<IrMath>>},
    {"tan", Trig<ir::math::TanOf<IrMath>>},     {"expm1", Unary<ir::math::Expm1<IrMath>>},
    {"sinh", Unary<ir::math::Sinh<IrMath>>},   {"cosh", Unary<ir::math::Cosh<IrMath>>},
    {"tanh", Unary<ir::math::Tanh<IrMath>>},   {"atan", Unary<ir::math::Atan<IrMath>>},
    {"asin", Unary<ir::math::Asin<IrMath>>},   {"acos", Unary<ir::math::Acos<IrMath>>},
    {"atan2", Binary<ir::math::Atan2<IrMath>>},   {"asinh", Unary<ir::math::Asinh<IrMath>>},
    {"acosh", Unary<ir::math::Acosh<IrMath>>},    {"atanh", Unary<ir::math::Atanh<IrMath>>},
    {"cbrt", Unary<ir::math::Cbrt<IrMath>>},      {"degrees", Unary<ir::math::Degrees<IrMath>>},
    {"radians", Unary<ir::math::Radians<IrMath>>},
};

}  // namespace

void AskWideVectors(LowerContext& c) { c.b.GetInsertBlock()->getParent()->addFnAttr(kWideMathAttribute); }

std::span<const Lowering> MathLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
