// Edit distance and suggestions for unknown names (runtime layer).
#include "runtime/suggest.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace rowjit {

namespace {

char Folded(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b, size_t bound) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > bound) return bound + 1;
  // Three rows of the dynamic programme: two back (for transpositions), one back, this one.
  std::vector<size_t> before(m + 1), last(m + 1), row(m + 1);
  for (size_t j = 0; j <= m; ++j) last[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    row[0] = i;
    size_t smallest = row[0];
    for (size_t j = 1; j <= m; ++j) {
      const bool same = Folded(a[i - 1]) == Folded(b[j - 1]);
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && Folded(a[i - 1]) == Folded(b[j - 2]) && Folded(a[i - 2]) == Folded(b[j - 1])) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
      smallest = std::min(smallest, row[j]);
    }
    if (smallest > bound) return bound + 1;  // every alignment already costs more
    std::swap(before, last);
    std::swap(last, row);
  }
  return std::min(last[m], bound + 1);
}

size_t SuggestionBound(size_t length) { return length <= 5 ? 1 : length <= 8 ? 2 : 3; }

std::vector<std::string> ClosestNames(std::string_view word, std::span<const std::string_view> candidates,
                                      size_t limit) {
  const size_t bound = std::min(SuggestionBound(word.size()), word.empty() ? 0 : word.size() - 1);
  size_t best = bound + 1;
  std::vector<std::string> out;
  for (std::string_view c : candidates) {
    if (c == word) continue;
    const size_t d = EditDistance(word, c, std::min(best, bound));
    if (d > bound || d > best) continue;
    if (d < best) {
      best = d;
      out.clear();
    }
    if (out.size() < limit && std::find(out.begin(), out.end(), c) == out.end()) out.emplace_back(c);
  }
  return out;
}

std::string DidYouMean(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string list = fmt::format("'{}'", names[0]);
  for (size_t i = 1; i < names.size(); ++i) {
    list += fmt::format("{}'{}'", i + 1 == names.size() ? " or " : ", ", names[i]);
  }
  return fmt::format(" (did you mean {}?)", list);
}

std::string DidYouMean(std::string_view word, std::span<const std::string_view> candidates) {
  return DidYouMean(ClosestNames(word, candidates));
}

}  // namespace rowjit
