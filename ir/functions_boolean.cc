// Boolean row functions (ir layer): and/or with three-valued (Kleene) logic, not, xor.
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

// Kleene: a false (and) / true (or) argument decides even when the other is null.
template <bool kAnd>
Result<Scalar> Kleene(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  const bool decider = !kAnd;  // and: false decides; or: true decides
  bool any_null = false;
  for (const Scalar& s : a) {
    if (s.is_null()) {
      any_null = true;
    } else if (s.value<bool>() == decider) {
      return Scalar::Of(decider);
    }
  }
  return any_null ? Scalar::Null(TypeId::kBool) : Scalar::Of(!decider);
}

Result<DataType> KleeneRule(std::string_view n, std::span<const DataType> a,
                            std::optional<TypeId> t) {
  return internal::BoolRule(n, a, t);  // nullable when any argument is
}

Result<Scalar> Not(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(!a[0].value<bool>());
}

Result<Scalar> Xor(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].value<bool>() != a[1].value<bool>());
}

const Function kFunctions[] = {
    {.name = "and", .arg_names = {"x", "y"}, .family = Family::kBoolean,
     .null_behavior = NullBehavior::kAware, .type_rule = KleeneRule, .eval = Kleene<true>,
     .syntax = Syntax::kInfix, .symbol = "and", .guard = Guard::kAnd,
     .summary = "Kleene AND: false where either argument is false, else null where either is null, else true.",
     .notes = "`false and null` is false, `true and null` is null. Never fails."},
    {.name = "or", .arg_names = {"x", "y"}, .family = Family::kBoolean,
     .null_behavior = NullBehavior::kAware, .type_rule = KleeneRule, .eval = Kleene<false>,
     .syntax = Syntax::kInfix, .symbol = "or", .guard = Guard::kOr,
     .summary = "Kleene OR: true where either argument is true, else null where either is null, else false.",
     .notes = "`true or null` is true, `false or null` is null. Never fails."},
    {.name = "not", .arg_names = {"x"}, .family = Family::kBoolean, .type_rule = internal::BoolRule,
     .eval = Not, .syntax = Syntax::kPrefix, .symbol = "not",
     .summary = "The negation of a bool.",
     .notes = "Strict: `not null` is null. Never fails."},
    {.name = "xor", .arg_names = {"x", "y"}, .family = Family::kBoolean,
     .type_rule = internal::BoolRule, .eval = Xor,
     .summary = "True where exactly one of x and y is true.",
     .notes = "Strict: a null argument gives null. Never fails."},
};

}  // namespace

std::span<const Function> BooleanFunctions() { return kFunctions; }

}  // namespace rowjit::ir
