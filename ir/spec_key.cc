// Specialization keys: input description, hashing, equality, printing (ir layer).
#include "ir/spec_key.h"

#include <functional>

namespace rowjit::ir {

std::string_view InputShapeName(InputShape s) {
  switch (s) {
    case InputShape::kFlat: return "flat";
    case InputShape::kByteBool: return "byte-bool";
    case InputShape::kConstant: return "constant";
    case InputShape::kNullConstant: return "null-constant";
    case InputShape::kDictionary: return "dictionary";
  }
  return "?";
}

std::string_view PolicyName(Policy p) {
  switch (p) {
    case Policy::kAuto: return "auto";
    case Policy::kDense: return "dense";
    case Policy::kDenseRetry: return "dense-retry";
    case Policy::kBranchSkip: return "branch-skip";
    case Policy::kFilterScatter: return "filter-scatter";
  }
  return "?";
}

Result<Policy> ParsePolicy(std::string_view text) {
  for (Policy p : {Policy::kAuto, Policy::kDense, Policy::kDenseRetry, Policy::kBranchSkip,
                   Policy::kFilterScatter}) {
    if (PolicyName(p) == text) return p;
  }
  return MakeError(ErrorCode::kInvalidInput,
                   "unknown policy '{}' (auto, dense, dense-retry, branch-skip, filter-scatter)",
                   text);
}

InputSpec DescribeInput(const Array& array) {
  InputSpec s;
  s.type = array.type().id;
  switch (array.encoding()) {
    case Encoding::kPrimitive:
    case Encoding::kBool:
    case Encoding::kFixedList:
    case Encoding::kStruct:
    case Encoding::kList: s.shape = InputShape::kFlat; break;
    case Encoding::kByteBool: s.shape = InputShape::kByteBool; break;
    case Encoding::kConstant:
      s.shape = static_cast<const ConstantArray&>(array).value().is_null()
                    ? InputShape::kNullConstant
                    : InputShape::kConstant;
      break;
    case Encoding::kDictionary:
      s.shape = InputShape::kDictionary;
      s.code_type = static_cast<const DictionaryArray&>(array).codes()->type().id;
      if (const ArrayPtr& values = static_cast<const DictionaryArray&>(array).values();
          values->encoding() == Encoding::kString) {
        s.layout = static_cast<const StringArray&>(*values).layout();
      }
      break;
    case Encoding::kString:
      s.shape = InputShape::kFlat;
      s.layout = static_cast<const StringArray&>(array).layout();
      break;
  }
  s.has_nulls = s.shape != InputShape::kNullConstant && array.NullCount() > 0;
  return s;
}

uint64_t SpecializationKey::hash() const {
  uint64_t h = expr ? expr->hash() : 0;
  auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const InputSpec& in : inputs) {
    mix(static_cast<uint64_t>(in.shape) | static_cast<uint64_t>(in.type) << 8 |
        static_cast<uint64_t>(in.code_type) << 16 | static_cast<uint64_t>(in.has_nulls) << 24 |
        static_cast<uint64_t>(in.layout) << 32);
  }
  mix(static_cast<uint64_t>(policy));
  mix(std::hash<std::string>{}(target));
  return h;
}

bool SpecializationKey::operator==(const SpecializationKey& o) const {
  if (inputs != o.inputs || policy != o.policy || target != o.target) return false;
  if (expr == nullptr || o.expr == nullptr) return expr == o.expr;
  return expr->Equals(*o.expr);
}

std::string SpecializationKey::ToString() const {
  std::string out = expr ? expr->ToString() : "(null)";
  out += " [";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i) out += ", ";
    out += fmt::format("{} {}{}{}", InputShapeName(inputs[i].shape), TypeIdName(inputs[i].type),
                       IsString(inputs[i].type) ? fmt::format("/{}", StringLayoutName(inputs[i].layout)) : "",
                       inputs[i].has_nulls ? "?" : "");
  }
  return out + fmt::format("] policy={} target={}", PolicyName(policy), target);
}

}  // namespace rowjit::ir
