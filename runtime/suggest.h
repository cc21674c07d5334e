// "Did you mean": the known names closest to an unknown one, by edit distance (runtime layer).
// Used for columns, functions, keywords, type names and time zones, so that every unknown name
// gets its suggestion by one rule.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rowjit {

// The optimal string alignment distance (Damerau–Levenshtein where no substring is edited
// twice) between `a` and `b`, ASCII letters compared without case: insertions, deletions,
// substitutions and transpositions of adjacent characters each cost 1. Once the distance is
// known to pass `bound` the count stops, and bound + 1 is returned.
size_t EditDistance(std::string_view a, std::string_view b, size_t bound);

// How far a candidate may be from a word of `length` bytes to be suggested: 1 up to 5 bytes,
// 2 up to 8, 3 beyond (about a third of the word, at least one edit), and always less than the
// word's length (a one-letter name is suggested only for a change of case).
size_t SuggestionBound(size_t length);

// The candidates nearest `word` within SuggestionBound, nearest first, at most `limit` (those at
// the smallest distance, in the candidates' order; a candidate equal to `word` is skipped).
std::vector<std::string> ClosestNames(std::string_view word, std::span<const std::string_view> candidates,
                                      size_t limit = 3);

// " (did you mean 'x'?)", " (did you mean 'x' or 'y'?)", ... for the names ClosestNames finds,
// or "" when none is close: appended to an error's message.
std::string DidYouMean(std::string_view word, std::span<const std::string_view> candidates);
// The same for names already chosen (a table of other systems' names, say).
std::string DidYouMean(const std::vector<std::string>& names);

}  // namespace rowjit
