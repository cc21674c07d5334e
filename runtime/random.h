// Random arrays for tests, benchmarks and the CLI: edge values, nulls at a density (scattered
// or clustered), bit offsets, and re-encodings of the same rows (runtime layer).
#pragma once

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "runtime/array.h"

namespace rowjit {

// One draw in four is an edge value of the type (MIN, MAX, 0, -1, 1, NaN, ±inf, -0.0, ...);
// otherwise small numbers, and sometimes random bits.
Scalar RandomValue(TypeId id, std::mt19937_64& rng);

// Moderate values: integers within ±2^(width/2 - 2) (unsigned: 0 .. 2^(width/2 - 1)) and floats
// within ±1000, so that a * b + c rarely overflows.
Scalar ModerateValue(TypeId id, std::mt19937_64& rng);

enum class NullLayout { kScattered, kClustered };
enum class ValueMode { kMixed, kModerate };  // RandomValue or ModerateValue

struct ArraySpec {
  DataType type;
  int64_t length = 0;
  double valid_fraction = 1.0;  // for nullable types
  int64_t bit_offset = 0;       // the array is a slice at this offset of a longer one
  NullLayout layout = NullLayout::kScattered;
  ValueMode values = ValueMode::kMixed;
};

// A flat array (bool: bit-packed) per the spec.
ArrayPtr RandomFlatArray(const ArraySpec& spec, std::mt19937_64& rng);

// The same rows re-encoded: as a dictionary (codes of a random integer type into distinct
// values), or as byte-bool for bools. Returns the input when the encoding does not apply.
ArrayPtr AsDictionary(const ArrayPtr& flat, std::mt19937_64& rng);
ArrayPtr AsByteBool(const ArrayPtr& flat);

// A batch of random columns for `schema`: nullable columns get nulls at 1 - valid_fraction;
// a column named in `constants` ("b" → "3", or "null") is a batch constant of that value.
Result<RecordBatch> RandomBatch(const Schema& schema, int64_t rows, double valid_fraction,
                                uint64_t seed,
                                const std::vector<std::pair<std::string, std::string>>& constants = {},
                                int64_t bit_offset = 0);

// A hash of every row's validity and value bits (NaNs canonicalised): equal arrays, equal sums.
uint64_t ArrayChecksum(const Array& array);

}  // namespace rowjit
