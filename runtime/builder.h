// Building arrays from C++ values and from text literals such as "[1, null, 3]" (runtime layer).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "runtime/array.h"

namespace rowjit {

// A flat array of `type` (bool gives a bit-packed BoolArray) from optional scalars; nulls need a
// nullable type. Values are copied into fresh aligned buffers.
Result<ArrayPtr> MakeArray(DataType type, const std::vector<Scalar>& rows);

template <typename T>
Result<ArrayPtr> MakeArray(const std::vector<std::optional<T>>& rows, bool nullable = true) {
  std::vector<Scalar> scalars;
  scalars.reserve(rows.size());
  for (const auto& r : rows) scalars.push_back(r ? Scalar::Of<T>(*r) : Scalar::Null(TypeIdOf<T>()));
  return MakeArray(DataType(TypeIdOf<T>(), nullable), scalars);
}

// Parses one scalar of `id` from text: integers (range-checked), floats (also nan, -nan, inf,
// -inf), true/false, quoted strings ('it''s'), null.
Result<Scalar> ParseScalar(TypeId id, std::string_view text);

// "[1, null, 3]" → an array of `type`.
Result<ArrayPtr> ArrayFromText(DataType type, std::string_view text);

}  // namespace rowjit
