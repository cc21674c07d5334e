// Test support: random expressions over a schema, and random arrays of every encoding with
// edge values, nulls at a given density and bit offsets (tests).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "runtime/array.h"

namespace rowjit::testing {

// Edge values of a type first (MIN, MAX, 0, -1, 1, NaN, ±inf, -0.0, ...), then random bits.
Scalar RandomValue(TypeId id, std::mt19937_64& rng);

// The text of a random expression of result type `want` over `schema`, at most `depth` calls
// deep, drawing every catalog function (typed literals carry suffixes). `columns_only` limits
// leaves to columns where the schema has one of the type.
std::string RandomExpression(TypeId want, const Schema& schema, int depth, std::mt19937_64& rng);

enum class NullLayout { kScattered, kClustered };

struct ArraySpec {
  DataType type;
  int64_t length = 0;
  double valid_fraction = 1.0;  // for nullable types
  int64_t bit_offset = 0;       // the array is a slice at this offset of a longer one
  NullLayout layout = NullLayout::kScattered;
};

// A flat array (bool: bit-packed) per the spec, values mixing edge values and random bits.
ArrayPtr RandomFlatArray(const ArraySpec& spec, std::mt19937_64& rng);

// The same rows re-encoded: as a dictionary (codes of a random integer type into distinct
// values), or as byte-bool for bools. Returns the input when the encoding does not apply.
ArrayPtr AsDictionary(const ArrayPtr& flat, std::mt19937_64& rng);
ArrayPtr AsByteBool(const ArrayPtr& flat);

}  // namespace rowjit::testing
