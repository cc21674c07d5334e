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
// A value of a logical type within its range (decimals below 10^precision, dates, timestamps
// and durations within 10,000 years of 1970 — nanoseconds: all of i64 — times within a day),
// a quarter of them at the edges of that range.
Scalar RandomLogicalValue(const DataType& type, std::mt19937_64& rng);

enum class NullLayout { kScattered, kClustered };
enum class ValueMode { kMixed, kModerate };  // RandomValue or ModerateValue

// Random strings: lengths in [min_length, max_length] bytes drawn from `alphabet` (utf8: whole
// characters of it, so multibyte ones stay whole), and a `match_share` of the rows equal to
// `match` (to give a literal the share of matches a benchmark or test wants).
struct StringSpec {
  int64_t min_length = 0;
  int64_t max_length = 16;
  std::string alphabet = "abcxyzAB-_%\xc3\xa9\xe6\x97\xa5";
  std::string match;
  double match_share = 0;
};
// The characters of `alphabet`: UTF-8 sequences whole (a lead byte and its continuation bytes).
std::vector<std::string> AlphabetCharacters(std::string_view alphabet);
Scalar RandomString(TypeId id, const StringSpec& spec, std::mt19937_64& rng);

struct ArraySpec {
  DataType type;
  int64_t length = 0;
  double valid_fraction = 1.0;  // for nullable types
  int64_t bit_offset = 0;       // the array is a slice at this offset of a longer one
  NullLayout layout = NullLayout::kScattered;
  ValueMode values = ValueMode::kMixed;
  StringLayout string_layout = StringLayout::kOffsets32;  // string types
  StringSpec strings = {};
};

// A flat array (bool: bit-packed) per the spec.
ArrayPtr RandomFlatArray(const ArraySpec& spec, std::mt19937_64& rng);

// The same rows re-encoded: as a dictionary (codes of a random integer type into distinct
// values), or as byte-bool for bools. Returns the input when the encoding does not apply.
ArrayPtr AsDictionary(const ArrayPtr& flat, std::mt19937_64& rng);
ArrayPtr AsByteBool(const ArrayPtr& flat);

// A batch of random columns for `schema`: nullable columns get nulls at 1 - valid_fraction;
// string columns follow `strings` in their field's layout;
// a column named in `constants` ("b" → "3", or "null") is a batch constant of that value.
Result<RecordBatch> RandomBatch(const Schema& schema, int64_t rows, double valid_fraction,
                                uint64_t seed,
                                const std::vector<std::pair<std::string, std::string>>& constants = {},
                                int64_t bit_offset = 0, const StringSpec& strings = {});

// A hash of every row's validity and value bits (NaNs canonicalised): equal arrays, equal sums.
uint64_t ArrayChecksum(const Array& array);

}  // namespace rowjit
