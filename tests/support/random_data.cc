// Random expressions and arrays for differential tests (tests).
#include "support/random_data.h"

#include <cmath>
#include <limits>

#include "ir/function.h"
#include "runtime/builder.h"
#include "runtime/random.h"

namespace rowjit::testing {

Schema WideSchema() {
  Schema s;
  for (TypeId id : kAllTypeIds) {
    s.fields.push_back(Field{"n_" + std::string(TypeIdName(id)), DataType(id, true)});
    s.fields.push_back(Field{"c_" + std::string(TypeIdName(id)), DataType(id, false)});
  }
  return s;
}

namespace {

constexpr TypeId kNumeric[] = {TypeId::kI8, TypeId::kI16, TypeId::kI32, TypeId::kI64,
                               TypeId::kU8, TypeId::kU16, TypeId::kU32, TypeId::kU64,
                               TypeId::kF32, TypeId::kF64};

TypeId AnyType(std::mt19937_64& rng) {
  return rng() % 11 == 0 ? TypeId::kBool : kNumeric[rng() % std::size(kNumeric)];
}

class Generator {
 public:
  Generator(const Schema& schema, std::mt19937_64& rng) : schema_(schema), rng_(rng) {}

  std::string Gen(TypeId want, int depth) {
    if (depth <= 0 || rng_() % 4 == 0) return Leaf(want);
    std::vector<const ir::Function*> candidates;
    for (const ir::Function* f : ir::AllFunctions()) {
      if (CanProduce(*f, want)) candidates.push_back(f);
    }
    if (candidates.empty()) return Leaf(want);
    const ir::Function& f = *candidates[rng_() % candidates.size()];
    return Call(f, want, depth - 1);
  }

 private:
  std::string Leaf(TypeId want) {
    std::vector<std::string> cols;
    for (const Field& field : schema_.fields) {
      if (field.type.id == want) cols.push_back(field.name);
    }
    if (!cols.empty() && rng_() % 5 != 0) return cols[rng_() % cols.size()];
    if (rng_() % 16 == 0) return fmt::format("null:{}", TypeIdName(want));
    std::string text = RandomValue(want, rng_).ToString();
    // Parenthesise negative literals so that "a - -1" style text stays readable.
    return text[0] == '-' ? "(" + text + ")" : text;
  }

  static bool CanProduce(const ir::Function& f, TypeId want) {
    const bool is_bool = want == TypeId::kBool;
    switch (f.family) {
      case ir::Family::kArithmetic:
        return f.name.starts_with("wrapping_") ? IsInteger(want) : IsNumeric(want);
      case ir::Family::kComparison: return is_bool;
      case ir::Family::kBoolean: return is_bool;
      case ir::Family::kBitwise: return IsInteger(want);
      case ir::Family::kCast: return f.takes_type_arg;  // text_to_* and logical_to_text: by their tests
      case ir::Family::kNullAware:
        return f.name == "coalesce" || f.name == "if" || f.name == "greatest" || f.name == "least" || is_bool;
      case ir::Family::kFloat: return f.name == "is_nan" ? is_bool : IsFloat(want);
      case ir::Family::kString: return false;  // tests/jit/string_test.cc generates its own
      case ir::Family::kTemporal: return false;  // tests/jit/temporal_test.cc, over logical types
      case ir::Family::kDecimal: return false;   // tests/jit/decimal_test.cc, over logical types
      case ir::Family::kVector: return false;    // tests/jit/vector_test.cc, over vector columns
      case ir::Family::kStruct: return false;    // tests/jit/struct_test.cc, over struct columns
      case ir::Family::kList: return false;      // tests/jit/list_test.cc, over list and map columns
      case ir::Family::kConstruct: return false;  // tests/jit/construct_test.cc
    }
    return false;
  }

  std::string Call(const ir::Function& f, TypeId want, int depth) {
    std::vector<std::string> args;
    std::string type_arg;
    const std::string name(f.name);
    if (f.family == ir::Family::kCast) {
      TypeId src = AnyType(rng_);
      if (name == "wrapping_cast" && IsFloat(src)) src = TypeId::kI64;
      args.push_back(Gen(src, depth));
      type_arg = std::string(TypeIdName(want));
    } else if (name == "in_list") {
      // A few items of any form, and at times a set of literals long enough to be searched
      // (jit/codegen/lower/logic.cc InFixedSet), moderate values among them so that rows match.
      const TypeId t = AnyType(rng_);
      args.push_back(Gen(t, depth));
      for (size_t i = 0, n = 1 + rng_() % 3; i < n; ++i) args.push_back(Gen(t, depth));
      if (rng_() % 3 == 0) {
        for (size_t i = 0, n = 12 + rng_() % 30; i < n; ++i) {
          const std::string v = (rng_() % 2 ? ModerateValue(t, rng_) : RandomValue(t, rng_)).ToString();
          args.push_back(v[0] == '-' ? "(" + v + ")" : v);
        }
      }
    } else if (f.family == ir::Family::kComparison || name == "between" || name == "is_null" ||
               name == "is_not_null") {
      const TypeId t = AnyType(rng_);
      for (size_t i = 0; i < f.arity(); ++i) args.push_back(Gen(t, depth));
    } else if (name == "is_nan") {
      args.push_back(Gen(rng_() % 2 ? TypeId::kF32 : TypeId::kF64, depth));
    } else if (name == "if") {
      args = {Gen(TypeId::kBool, depth), Gen(want, depth), Gen(want, depth)};
    } else if (name == "coalesce" || name == "greatest" || name == "least") {
      const size_t n = 1 + rng_() % 3;
      for (size_t i = 0; i < n; ++i) args.push_back(Gen(want, depth));
    } else {
      for (size_t i = 0; i < f.arity(); ++i) args.push_back(Gen(want, depth));
    }
    std::string out = name + "(";
    for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    if (!type_arg.empty()) out += ", " + type_arg;
    return out + ")";
  }

  const Schema& schema_;
  std::mt19937_64& rng_;
};

}  // namespace

std::string RandomExpression(TypeId want, const Schema& schema, int depth, std::mt19937_64& rng) {
  return Generator(schema, rng).Gen(want, depth);
}

std::vector<ArrayPtr> RandomColumns(const Schema& schema, int64_t length, std::mt19937_64& rng) {
  const int64_t offset = rng() % 3 == 0 ? 3 : 0;
  const double valid = std::vector<double>{0.0, 0.7, 1.0}[rng() % 3];
  std::vector<ArrayPtr> cols(schema.fields.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    const DataType type = schema.fields[c].type;
    cols[c] = RandomFlatArray({type, length, type.nullable ? valid : 1.0, offset, NullLayout::kScattered,
                               rng() % 2 ? ValueMode::kModerate : ValueMode::kMixed}, rng);
    if (rng() % 6 == 0) cols[c] = type.id == TypeId::kBool ? AsByteBool(cols[c]) : AsDictionary(cols[c], rng);
  }
  return cols;
}

}  // namespace rowjit::testing
