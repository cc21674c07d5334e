// Random expressions and arrays for differential tests (tests).
#include "support/random_data.h"

#include <cmath>
#include <limits>

#include "ir/function.h"
#include "runtime/builder.h"

namespace rowjit::testing {

Scalar RandomValue(TypeId id, std::mt19937_64& rng) {
  // One draw in four is an edge value of the type.
  const bool edge = rng() % 4 == 0;
  return VisitType(id, [&]<typename T>(std::type_identity<T>) -> Scalar {
    if constexpr (std::is_same_v<T, bool>) {
      return Scalar::Of<bool>(rng() & 1);
    } else if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T edges[] = {T(0),         T(-0.0),       T(1),          T(-1),
                         L::max(),     L::lowest(),   L::infinity(), -L::infinity(),
                         L::quiet_NaN(), L::denorm_min(), T(0.5),    T(2.5)};
      if (edge) return Scalar::Of<T>(edges[rng() % std::size(edges)]);
      // Mostly moderate magnitudes so that arithmetic is interesting, sometimes raw bits.
      if (rng() % 8 == 0) return Scalar::FromBits(id, rng());
      return Scalar::Of<T>(static_cast<T>(std::uniform_real_distribution<double>(-1000, 1000)(rng)));
    } else {
      using L = std::numeric_limits<T>;
      const T edges[] = {T(0), T(1), L::max(), L::min(), T(L::max() - 1), T(2),
                         static_cast<T>(-1), static_cast<T>(L::min() + 1)};
      if (edge) return Scalar::Of<T>(edges[rng() % std::size(edges)]);
      // Small values keep checked arithmetic mostly successful; raw bits exercise overflow.
      if (rng() % 3 == 0) return Scalar::FromBits(id, rng());
      return Scalar::Of<T>(static_cast<T>(static_cast<int64_t>(rng() % 201) - 100));
    }
  });
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
      case ir::Family::kCast: return true;
      case ir::Family::kNullAware:
        return f.name == "coalesce" || f.name == "if" || is_bool;
      case ir::Family::kFloat: return f.name == "is_nan" ? is_bool : IsFloat(want);
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
    } else if (f.family == ir::Family::kComparison || name == "between" || name == "is_null" ||
               name == "is_not_null") {
      const TypeId t = AnyType(rng_);
      for (size_t i = 0; i < f.arity(); ++i) args.push_back(Gen(t, depth));
    } else if (name == "is_nan") {
      args.push_back(Gen(rng_() % 2 ? TypeId::kF32 : TypeId::kF64, depth));
    } else if (name == "if") {
      args = {Gen(TypeId::kBool, depth), Gen(want, depth), Gen(want, depth)};
    } else if (name == "coalesce") {
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

ArrayPtr RandomFlatArray(const ArraySpec& spec, std::mt19937_64& rng) {
  const int64_t total = spec.bit_offset + spec.length;
  std::vector<Scalar> rows;
  rows.reserve(static_cast<size_t>(total));
  std::uniform_real_distribution<double> unit(0, 1);
  bool in_null_run = false;
  for (int64_t i = 0; i < total; ++i) {
    bool valid = true;
    if (spec.type.nullable) {
      if (spec.layout == NullLayout::kScattered) {
        valid = unit(rng) < spec.valid_fraction;
      } else {
        // Runs of ~256 rows whose share of null runs is 1 - valid_fraction.
        if (i % 256 == 0) in_null_run = unit(rng) >= spec.valid_fraction;
        valid = !in_null_run;
      }
    }
    rows.push_back(valid ? RandomValue(spec.type.id, rng) : Scalar::Null(spec.type.id));
  }
  auto full = MakeArray(spec.type, rows);
  if (!full.ok()) return nullptr;
  return *(*full)->Slice(spec.bit_offset, spec.length);
}

ArrayPtr AsDictionary(const ArrayPtr& flat, std::mt19937_64& rng) {
  if (flat->type().id == TypeId::kBool) return flat;
  // Distinct values in first-seen order; codes index them. Null rows get null codes.
  std::vector<Scalar> values;
  std::vector<int64_t> index;  // -1 for null rows
  for (int64_t i = 0; i < flat->length(); ++i) {
    const Scalar s = flat->GetScalar(i);
    if (s.is_null()) {
      index.push_back(-1);
      continue;
    }
    size_t k = 0;
    while (k < values.size() && !(values[k] == s)) ++k;
    if (k == values.size()) values.push_back(s);
    index.push_back(static_cast<int64_t>(k));
  }
  const TypeId small[] = {TypeId::kU8, TypeId::kI16, TypeId::kI32, TypeId::kU32, TypeId::kI64};
  const TypeId wide[] = {TypeId::kI16, TypeId::kI32, TypeId::kU32, TypeId::kI64};
  const TypeId code_type = values.size() <= 100 ? small[rng() % std::size(small)]
                                                : wide[rng() % std::size(wide)];
  std::vector<Scalar> codes;
  for (int64_t k : index) {
    codes.push_back(k < 0 ? Scalar::Null(code_type)
                          : Scalar::FromBits(code_type, static_cast<uint64_t>(k)));
  }
  auto value_array = MakeArray(DataType(flat->type().id, false), values);
  auto code_array = MakeArray(DataType(code_type, flat->type().nullable), codes);
  if (!value_array.ok() || !code_array.ok()) return flat;
  auto dict = DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(*code_array),
                                    *value_array);
  return dict.ok() ? ArrayPtr(*dict) : flat;
}

ArrayPtr AsByteBool(const ArrayPtr& flat) {
  if (flat->encoding() != Encoding::kBool) return flat;
  const auto& b = static_cast<const BoolArray&>(*flat);
  auto bytes = Buffer::Allocate(b.length());
  if (!bytes.ok()) return flat;
  for (int64_t i = 0; i < b.length(); ++i) (*bytes)->mutable_data()[i] = b.Value(i) ? 0x5a : 0;
  auto out = ByteBoolArray::Make(b.length(), *bytes, b.validity(), 0, b.type().nullable);
  return out.ok() ? ArrayPtr(*out) : flat;
}

}  // namespace rowjit::testing
