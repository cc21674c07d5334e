// Edit distance and "did you mean" suggestions (runtime).
#include "runtime/suggest.h"

#include <gtest/gtest.h>

namespace rowjit {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndTranspositions) {
  EXPECT_EQ(EditDistance("kitten", "sitting", 10), 3u);  // two substitutions, one insertion
  EXPECT_EQ(EditDistance("sqroot", "sqrt", 10), 2u);     // two deletions
  EXPECT_EQ(EditDistance("betwen", "between", 10), 1u);
  EXPECT_EQ(EditDistance("coalsece", "coalesce", 10), 1u);  // adjacent letters swapped: one edit
  EXPECT_EQ(EditDistance("ab", "ba", 10), 1u);
  EXPECT_EQ(EditDistance("", "abc", 10), 3u);
  EXPECT_EQ(EditDistance("abc", "abc", 10), 0u);
  // Optimal string alignment: no substring is edited twice, so "ca" -> "abc" is 3, not 2.
  EXPECT_EQ(EditDistance("ca", "abc", 10), 3u);
}

TEST(EditDistance, IgnoresTheCaseOfLetters) {
  EXPECT_EQ(EditDistance("Europe/PARIS", "Europe/Paris", 10), 0u);
  EXPECT_EQ(EditDistance("I32", "i32", 10), 0u);
}

TEST(EditDistance, StopsPastTheBound) {
  EXPECT_EQ(EditDistance("abcdef", "uvwxyz", 2), 3u);  // 6, reported as bound + 1
  EXPECT_EQ(EditDistance("a", "abcdefgh", 3), 4u);     // the lengths alone differ by 7
  EXPECT_EQ(EditDistance("kitten", "sitting", 3), 3u);  // at the bound: exact
}

TEST(Suggestions, BoundGrowsWithTheWord) {
  EXPECT_EQ(SuggestionBound(1), 1u);
  EXPECT_EQ(SuggestionBound(5), 1u);
  EXPECT_EQ(SuggestionBound(6), 2u);
  EXPECT_EQ(SuggestionBound(8), 2u);
  EXPECT_EQ(SuggestionBound(9), 3u);
  EXPECT_EQ(SuggestionBound(40), 3u);
}

TEST(Suggestions, NearestWithinTheBound) {
  const std::string_view functions[] = {"sqrt", "sin", "sign", "cos", "coalesce", "substr"};
  EXPECT_EQ(ClosestNames("sqroot", functions), std::vector<std::string>{"sqrt"});
  EXPECT_EQ(ClosestNames("coalese", functions), std::vector<std::string>{"coalesce"});
  // Ties keep the candidates' order: "sig" is one edit from "sin" and from "sign".
  EXPECT_EQ(ClosestNames("sig", functions), (std::vector<std::string>{"sin", "sign"}));
  EXPECT_EQ(ClosestNames("sig", functions, 1), std::vector<std::string>{"sin"});
  // Too far: nothing (substr is 3 edits from "subs", past the bound of a 4-letter word).
  EXPECT_TRUE(ClosestNames("subs", functions).empty());
  EXPECT_TRUE(ClosestNames("frobnicate", functions).empty());
  // A name equal to the word is no suggestion; a one-letter word gets one only for its case.
  const std::string_view trig[] = {"sin", "cos"};
  EXPECT_TRUE(ClosestNames("sin", trig).empty());
  const std::string_view columns[] = {"a", "b", "B"};
  EXPECT_TRUE(ClosestNames("z", columns).empty());
  EXPECT_EQ(ClosestNames("A", columns), std::vector<std::string>{"a"});
  EXPECT_EQ(ClosestNames("aa", columns), std::vector<std::string>{"a"});
}

TEST(Suggestions, DidYouMeanText) {
  const std::string_view names[] = {"sqrt", "sin", "sign"};
  EXPECT_EQ(DidYouMean("sqroot", names), " (did you mean 'sqrt'?)");
  EXPECT_EQ(DidYouMean("sig", names), " (did you mean 'sin' or 'sign'?)");
  EXPECT_EQ(DidYouMean("frobnicate", names), "");
  EXPECT_EQ(DidYouMean(std::vector<std::string>{"i8", "i16", "i64"}), " (did you mean 'i8', 'i16' or 'i64'?)");
  EXPECT_EQ(DidYouMean(std::vector<std::string>{}), "");
}

}  // namespace
}  // namespace rowjit
