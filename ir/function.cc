// The catalog registry and the shared type rules (ir layer).
#include "ir/function.h"

#include <vector>

#include "ir/expr.h"
#include "ir/function_internal.h"

namespace rowjit::ir {

namespace internal {

bool AnyNullable(std::span<const DataType> args) {
  for (const DataType& t : args) {
    if (t.nullable) return true;
  }
  return false;
}

std::string ArgTypes(std::span<const DataType> args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += ", ";
    out += args[i].WithNullable(false).ToString();
  }
  return out;
}

ExprPtr BuildCall(std::string_view name, std::vector<ExprPtr> args, DataType type, FoldFn fold,
                  std::optional<TypeId> type_arg) {
  const Function* f = FindFunction(name);
  if (f->strict()) {
    type.nullable = false;
    for (const ExprPtr& a : args) type.nullable = type.nullable || a->type().nullable;
  }
  return fold(Expr::BoundCall(f, std::move(args), type_arg, type));
}

Error TypeMismatch(std::string_view name, std::span<const DataType> args, std::string_view want) {
  return MakeError(ErrorCode::kTypeError, "{}({}): {}", name, ArgTypes(args), want);
}

Result<DataType> SameType(std::string_view name, std::span<const DataType> args,
                          bool (*accept)(TypeId), std::string_view want, bool result_bool) {
  for (const DataType& t : args) {
    if (!accept(t.id)) return TypeMismatch(name, args, want);
  }
  for (const DataType& t : args) {
    if (t.id != args[0].id) {
      return TypeMismatch(name, args,
                          "arguments must have the same type (write a cast)");
    }
  }
  return DataType(result_bool ? TypeId::kBool : args[0].id, AnyNullable(args));
}

Result<DataType> NumericRule(std::string_view n, std::span<const DataType> a,
                             std::optional<TypeId>) {
  return SameType(n, a, IsNumeric, "expects numeric arguments", false);
}
Result<DataType> IntegerRule(std::string_view n, std::span<const DataType> a,
                             std::optional<TypeId>) {
  return SameType(n, a, IsInteger, "expects integer arguments", false);
}
Result<DataType> FloatRule(std::string_view n, std::span<const DataType> a,
                           std::optional<TypeId>) {
  return SameType(n, a, IsFloat, "expects f32 or f64 arguments", false);
}
Result<DataType> BoolRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  return SameType(n, a, [](TypeId id) { return id == TypeId::kBool; }, "expects bool arguments",
                  false);
}
Result<DataType> CompareRule(std::string_view n, std::span<const DataType> a,
                             std::optional<TypeId>) {
  return SameType(n, a, [](TypeId) { return true; }, "", true);
}

}  // namespace internal

int CompareScalarsSql(const Scalar& x, const Scalar& y) {
  if (IsString(x.type_id())) {
    const int c = x.str().compare(y.str());
    return c < 0 ? -1 : c > 0;
  }
  if (x.type_id() == TypeId::kI128) return x.int128() < y.int128() ? -1 : x.int128() > y.int128();
  return VisitType(x.type_id(), [&]<typename T>(std::type_identity<T>) { return CompareTotalSql(x.value<T>(), y.value<T>()); });
}

// 16-byte storage (decimal128) fails as signed integers do: at its minimum (neg, abs).
bool FailsOnIntegers(std::span<const DataType> args, DataType) {
  return !args.empty() && (IsInteger(args[0].id) || args[0].id == TypeId::kI128);
}

bool FailsOnSignedIntegers(std::span<const DataType> args, DataType) {
  return !args.empty() && (IsSignedInt(args[0].id) || args[0].id == TypeId::kI128);
}

namespace {

struct Alias {
  std::string_view alias;
  std::string_view name;
};
constexpr Alias kAliases[] = {{"checked_add", "add"}, {"checked_sub", "sub"},
                              {"checked_mul", "mul"}, {"checked_div", "div"},
                              {"checked_mod", "mod"}, {"checked_cast", "cast"},
                              {"pow", "power"},
                              // numpy's (and numexpr's) names
                              {"arcsin", "asin"}, {"arccos", "acos"}, {"arctan", "atan"},
                              {"arctan2", "atan2"}, {"arcsinh", "asinh"}, {"arccosh", "acosh"},
                              {"arctanh", "atanh"},
                              // DuckDB's and pgvector's names of the vector functions
                              {"inner_product", "dot"}, {"array_inner_product", "dot"},
                              {"array_dot_product", "dot"}, {"array_distance", "l2_distance"},
                              {"array_cosine_similarity", "cosine_similarity"},
                              {"array_cosine_distance", "cosine_distance"},
                              {"struct_extract", "struct_field"},
                              // DuckDB's names of the list functions
                              {"array_length", "len"}, {"cardinality", "len"},
                              {"list_element", "list_extract"}, {"array_extract", "list_extract"},
                              {"list_has", "list_contains"}, {"array_contains", "list_contains"},
                              {"array_has", "list_contains"}, {"list_apply", "list_transform"},
                              {"array_transform", "list_transform"}, {"array_filter", "list_filter"},
                              {"list_pack", "list_value"}};

const std::vector<const Function*>& Registry() {
  static const std::vector<const Function*> registry = [] {
    std::vector<const Function*> all;
    for (auto family : {ArithmeticFunctions(), ComparisonFunctions(), BooleanFunctions(),
                        BitwiseFunctions(), CastFunctions(), NullAwareFunctions(),
                        FloatFunctions(), StringFunctions(), TemporalFunctions(),
                        DecimalFunctions(), VectorFunctions(), StructFunctions(), ListFunctions(),
                        ConstructFunctions()}) {
      for (const Function& f : family) all.push_back(&f);
    }
    return all;
  }();
  return registry;
}

}  // namespace

std::span<const Function* const> AllFunctions() { return Registry(); }

SurfaceForm SurfaceFormOf(const Expr& e) {
  if (!e.is_call() || e.bound()) return SurfaceForm::kNone;
  const std::string& name = e.name();
  const size_t n = e.args().size();
  if (name == "cast" && n == 2) return SurfaceForm::kLogicalCast;
  if (name == "round" && n == 2) return SurfaceForm::kDecimalRound;
  if (name == "date_part") return SurfaceForm::kDatePart;
  if (name == "date_trunc") return SurfaceForm::kDateTrunc;
  if (name == "log") return SurfaceForm::kLog;
  if (name == "lambda" && n == 2) return SurfaceForm::kLambda;
  if (name == "named" && n == 2) return SurfaceForm::kNamed;
  return SurfaceForm::kNone;
}

std::string_view CanonicalName(std::string_view name) {
  for (const Alias& a : kAliases) {
    if (a.alias == name) return a.name;
  }
  return name;
}

std::vector<std::string_view> AliasesOf(std::string_view canonical) {
  std::vector<std::string_view> out;
  for (const Alias& a : kAliases) {
    if (a.name == canonical) out.push_back(a.alias);
  }
  return out;
}

const Function* FindFunction(std::string_view name) {
  name = CanonicalName(name);
  for (const Function* f : Registry()) {
    if (f->name == name) return f;
  }
  return nullptr;
}

}  // namespace rowjit::ir
