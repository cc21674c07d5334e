// Struct row functions (ir layer): struct_field(s, 'x'), written s.x, a struct's field. The binder
// builds the call (the name must be one of the struct's fields); it is read a column at a time, the
// field's child column with the struct's null rows added (jit/exec/strings_materialize.cc), and
// row by row by the reference through the same children (ir/reference.cc).
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

Result<DataType> FieldRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  return internal::TypeMismatch(name, args, "a struct and a field's name, written s.name");
}

// No row of a struct is a value the catalog computes on: the reference reads the field's child.
Result<Scalar> EvalField(std::span<const Scalar>, DataType, std::optional<TypeId>) {
  return Error(ErrorCode::kInternal, "struct_field is read through the struct's child column");
}

const Function kStructFunctions[] = {
    {.name = "struct_field", .arg_names = {"s", "name"}, .family = Family::kStruct, .unify_from = -1,
     .type_rule = FieldRule, .eval = EvalField, .logical = LogicalArgs::kAny,
     .summary = "A struct's field, written s.name (or struct_field(s, 'name')).",
     .notes = "Null where the struct's row is null or the field's value is; the field's type. Fields of fields: "
              "s.a.b."},
};

}  // namespace

std::span<const Function> StructFunctions() { return kStructFunctions; }

int StructFieldIndex(const Expr& call) {
  if (!call.is_call() || call.function() == nullptr || call.function()->family != Family::kStruct ||
      call.args().size() != 2 || !call.args()[1]->is_literal()) {
    return -1;
  }
  const std::vector<StructField>& fields = StructFields(call.args()[0]->type());
  const std::string_view name = call.args()[1]->value().str();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace rowjit::ir
