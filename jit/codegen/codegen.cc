// Code generation entry and the helpers lowerings share (jit layer, codegen room): LLVM types of
// rowjit types, SQL comparisons and Kleene logic in IR, the lowering registry, and EmitKernel,
// which builds the kernel a CacheKey names (jit/codegen/kernel_builder.cc, codegen_rows.cc,
// codegen_fold.cc).
#include <unordered_map>

#include <fmt/format.h>

#include "jit/codegen/kernel_builder_internal.h"
#include "jit/codegen/lowerings.h"

namespace rowjit::jit::internal {

llvm::Type* LlvmType(llvm::LLVMContext& ctx, TypeId id) {
  switch (id) {
    case TypeId::kBool: return llvm::Type::getInt1Ty(ctx);
    case TypeId::kF32: return llvm::Type::getFloatTy(ctx);
    case TypeId::kF64: return llvm::Type::getDoubleTy(ctx);
    case TypeId::kF16: return llvm::Type::getHalfTy(ctx);
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return llvm::StructType::get(ctx, {llvm::PointerType::get(ctx, 0), llvm::Type::getInt64Ty(ctx)});
    default: return llvm::Type::getIntNTy(ctx, static_cast<unsigned>(BitWidth(id)));
  }
}

// --- LowerContext helpers ---------------------------------------------------------------------

llvm::Value* LowerContext::And(llvm::Value* x, llvm::Value* y) {
  if (x == nullptr) return y;
  if (y == nullptr) return x;
  return b.CreateAnd(x, y);
}

llvm::Value* LowerContext::Or(llvm::Value* x, llvm::Value* y) {
  if (x == nullptr || y == nullptr) return nullptr;  // always valid
  return b.CreateOr(x, y);
}

llvm::Value* LowerContext::Less(llvm::Value* x, llvm::Value* y, TypeId t) {
  if (IsString(t)) return StringLess(*this, x, y);
  if (IsFloat(t)) {
    // x < y, where NaN is greater than every number: ordered less, or x a number and y NaN.
    llvm::Value* lt = b.CreateFCmpOLT(x, y);
    llvm::Value* y_nan_x_not = b.CreateAnd(b.CreateFCmpORD(x, x), b.CreateFCmpUNO(y, y));
    return b.CreateOr(lt, y_nan_x_not);
  }
  return IsSignedInt(t) ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
}

llvm::Value* LowerContext::Equal(llvm::Value* x, llvm::Value* y, TypeId t) {
  if (IsString(t)) return StringEqual(*this, x, y);
  if (IsFloat(t)) {
    llvm::Value* both_nan = b.CreateAnd(b.CreateFCmpUNO(x, x), b.CreateFCmpUNO(y, y));
    return b.CreateOr(b.CreateFCmpOEQ(x, y), both_nan);
  }
  return b.CreateICmpEQ(x, y);
}

Val LowerContext::KleeneAnd(const Val& x, const Val& y) {
  // False when a valid side is false; valid when both are valid or one is a valid false.
  if (x.valid == nullptr && y.valid == nullptr) return {b.CreateAnd(x.v, y.v), nullptr};
  llvm::Value* vx = x.valid ? x.valid : b.getTrue();
  llvm::Value* vy = y.valid ? y.valid : b.getTrue();
  llvm::Value* x_false = b.CreateAnd(vx, b.CreateNot(x.v));
  llvm::Value* y_false = b.CreateAnd(vy, b.CreateNot(y.v));
  llvm::Value* valid = b.CreateOr(b.CreateAnd(vx, vy), b.CreateOr(x_false, y_false));
  return {b.CreateAnd(x.v, y.v), valid};
}

Val LowerContext::KleeneOr(const Val& x, const Val& y) {
  if (x.valid == nullptr && y.valid == nullptr) return {b.CreateOr(x.v, y.v), nullptr};
  llvm::Value* vx = x.valid ? x.valid : b.getTrue();
  llvm::Value* vy = y.valid ? y.valid : b.getTrue();
  llvm::Value* x_true = b.CreateAnd(vx, x.v);
  llvm::Value* y_true = b.CreateAnd(vy, y.v);
  llvm::Value* valid = b.CreateOr(b.CreateAnd(vx, vy), b.CreateOr(x_true, y_true));
  // Where valid, either both sides are valid or one is a valid true: x | y is right then, and
  // a garbage value behind a null side can only matter where the result is null.
  return {b.CreateOr(b.CreateAnd(x.v, vx), b.CreateAnd(y.v, vy)), valid};
}

namespace {

// The family lists' lowerings, each resolved once to the descriptor of the function it names;
// entries that name no registered function (or name one twice) are kept aside for the catalog
// test (LoweringProblems).
struct LoweringIndex {
  std::unordered_map<const ir::Function*, LowerFn> by_function;
  std::vector<std::string> problems;
};

const LoweringIndex& Lowerings() {
  static const LoweringIndex index = [] {
    LoweringIndex out;
    for (auto family : {ArithmeticLowerings(), LogicLowerings(), CastFloatLowerings(), MathLowerings(), StringLowerings(),
                        TemporalLowerings(), DecimalLowerings()}) {
      for (const Lowering& l : family) {
        const ir::Function* f = ir::FindFunction(l.function);
        if (f == nullptr || f->name != l.function) {
          out.problems.push_back(fmt::format("a lowering names '{}', which is no registered function", l.function));
        } else if (!out.by_function.emplace(f, l.lower).second) {
          out.problems.push_back(fmt::format("'{}' has two lowerings", l.function));
        }
      }
    }
    return out;
  }();
  return index;
}

}  // namespace

LowerFn LoweringFor(const ir::Function& f) {
  const auto& by_function = Lowerings().by_function;
  auto it = by_function.find(&f);
  return it == by_function.end() ? nullptr : it->second;
}

bool HasLowering(const ir::Function& f) { return LoweringFor(f) != nullptr; }

std::vector<std::string> LoweringProblems() { return Lowerings().problems; }

Status EmitKernel(const CacheKey& key, llvm::Module& module, const std::string& name, const CodegenFeatures& features) {
  if (key.spec.expr == nullptr || !key.spec.expr->bound()) {
    return MakeError(ErrorCode::kInvalidInput, "kernels are built from bound expressions");
  }
  if (features.quad_conversions) module.addModuleFlag(llvm::Module::Max, kQuadConversionsFlag, 1);
  if (key.shape.vector_score) return EmitVectorKernel(key, module, name, features.byte_dots);
  llvm::IRBuilder<> b(module.getContext());
  KernelBuilder builder(key, module, b, features.mask_registers);
  if (key.shape.fold) return builder.BuildFold(name);
  if (key.shape.grouped_slots != 0) return builder.BuildGrouped(name);
  return builder.Build(name);
}

}  // namespace rowjit::jit::internal
