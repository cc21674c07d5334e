// Test support: random expressions over a schema that draw every catalog function (tests).
// Random arrays live in runtime/random.h.
#pragma once

#include <random>
#include <string>

#include "runtime/array.h"
#include "runtime/random.h"

namespace rowjit::testing {

// One nullable and one non-nullable column of every type: n_i32 is i32?, c_i32 is i32.
Schema WideSchema();

// The text of a random expression of result type `want` over `schema`, at most `depth` calls
// deep, drawing every catalog function (typed literals carry suffixes).
std::string RandomExpression(TypeId want, const Schema& schema, int depth, std::mt19937_64& rng);

// One random column per field of `schema`, `length` rows: one bit offset (0 or 3) and one
// valid fraction (0, 0.7 or 1) for all of them, values moderate or mixed, and now and then a
// column re-encoded (dictionary, or byte-bool for bools).
std::vector<ArrayPtr> RandomColumns(const Schema& schema, int64_t length, std::mt19937_64& rng);

using rowjit::ArraySpec;
using rowjit::AsByteBool;
using rowjit::AsDictionary;
using rowjit::RandomFlatArray;
using rowjit::RandomValue;

}  // namespace rowjit::testing
