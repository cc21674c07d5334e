// Test support: results as text (tests).
#include <random>

#include "support/result_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rowjit::testing {

std::string ResultText(const Result<ArrayPtr>& r) {
  if (!r.ok()) return "error " + r.error().ToString();
  return (*r)->type().ToString() + " " + (*r)->ToString(1 << 20);
}

std::string ResultText(const Result<std::vector<ArrayPtr>>& r) {
  if (!r.ok()) return "error " + r.error().ToString();
  std::string out;
  for (const ArrayPtr& a : *r) out += a->type().ToString() + " " + a->ToString(1 << 20) + "\n";
  return out;
}

std::string ResultText(const Result<SelectionVector>& r) {
  if (!r.ok()) return "error " + r.error().ToString();
  return fmt::format("{} of {}: [{}]", r->size(), r->batch_length(), fmt::join(r->indices(), ", "));
}

SelectionVector RandomSelection(int64_t length, std::mt19937_64& rng) {
  const int every = std::vector<int>{1, 2, 10, 1000}[rng() % 4];
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < length; ++r) {
    if (rng() % static_cast<uint64_t>(every) == 0) rows.push_back(r);
  }
  return SelectionVector::FromIndices(rows, length).value();
}

}  // namespace rowjit::testing
