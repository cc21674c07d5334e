// Test support: results as text for comparing one path with another (or with the reference) in
// a single assertion: every row with its type, or the error with its row (tests).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "runtime/array.h"
#include "runtime/selection.h"
#include "runtime/status.h"

namespace rowjit::testing {

// "i32? [1, null, 3]" (every row), or "error " and the error.
std::string ResultText(const Result<ArrayPtr>& r);
// One line per array.
std::string ResultText(const Result<std::vector<ArrayPtr>>& r);
// "2 of 5: [0, 3]".
std::string ResultText(const Result<SelectionVector>& r);

// A random selection of a batch of `length` rows: every row, every 2nd, 10th or 1000th on
// average (drawn per row).
SelectionVector RandomSelection(int64_t length, std::mt19937_64& rng);

}  // namespace rowjit::testing
