// Projections (ir layer).
#include "ir/projection.h"

#include "ir/function.h"

namespace rowjit::ir {
namespace {

Result<DataType> FirstType(std::string_view, std::span<const DataType> args, std::optional<TypeId>) {
  return args[0];
}
Result<Scalar> First(std::span<const Scalar> args, DataType, std::optional<TypeId>) { return args[0]; }

// Null-aware: each output keeps its own nulls. Never fails itself; its outputs may.
const Function kProject{.name = "project", .arg_names = {}, .variadic = true, .family = Family::kNullAware,
                        .null_behavior = NullBehavior::kAware, .unify_from = -1, .type_rule = FirstType,
                        .eval = First};

}  // namespace

Result<ExprPtr> MakeProjection(std::span<const ExprPtr> outputs) {
  if (outputs.empty()) return MakeError(ErrorCode::kInvalidInput, "a projection of no expression");
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] == nullptr || !outputs[i]->bound()) {
      return MakeError(ErrorCode::kInvalidInput, "projection: expression {} is not bound", i);
    }
  }
  return Expr::BoundCall(&kProject, std::vector<ExprPtr>(outputs.begin(), outputs.end()), std::nullopt,
                         outputs[0]->type());
}

bool IsProjection(const Expr& e) { return e.is_call() && e.function() == &kProject; }

}  // namespace rowjit::ir
