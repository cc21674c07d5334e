// The specialization key: what one compiled kernel is specialized for (ir layer). The bound
// expression plus, per input, its encoding shape, type and whether it has nulls in this batch,
// plus the execution policy and the target. The JIT's kernel cache is keyed by it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "runtime/array.h"
#include "runtime/string_array.h"

namespace rowjit::ir {

enum class InputShape : uint8_t { kFlat, kByteBool, kConstant, kNullConstant, kDictionary };
std::string_view InputShapeName(InputShape s);

// How the executor treats rows behind nulls (see the JIT executor for the strategies).
enum class Policy : uint8_t { kAuto, kDense, kDenseRetry, kBranchSkip, kFilterScatter };
std::string_view PolicyName(Policy p);
Result<Policy> ParsePolicy(std::string_view text);  // auto|dense|dense-retry|branch-skip|filter-scatter

struct InputSpec {
  InputShape shape = InputShape::kFlat;
  TypeId type = TypeId::kI32;
  TypeId code_type = TypeId::kI32;  // dictionaries only
  bool has_nulls = false;
  StringLayout layout = StringLayout::kOffsets32;  // strings only (a dictionary's: its values')
  bool operator==(const InputSpec&) const = default;
};

// The spec of one input array as this batch presents it.
InputSpec DescribeInput(const Array& array);

struct SpecializationKey {
  ExprPtr expr;                  // bound
  std::vector<InputSpec> inputs; // one per schema column the expression may read
  Policy policy = Policy::kAuto;
  std::string target;            // "native", "x86-64-v3", ...

  uint64_t hash() const;
  bool operator==(const SpecializationKey& o) const;
  std::string ToString() const;
};

struct SpecializationKeyHash {
  size_t operator()(const SpecializationKey& k) const { return k.hash(); }
};

}  // namespace rowjit::ir
