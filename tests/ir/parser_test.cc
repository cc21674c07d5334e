// Parser and printer: canonical round trips over a generated corpus, one must-fail test per
// syntax error class (ir).
#include "ir/parser.h"

#include <gtest/gtest.h>

#include "ir/binder.h"
#include "support/assert_ok.h"
#include "support/random_data.h"

namespace rowjit::ir {
namespace {

std::string Canon(std::string_view text) {
  auto e = Parse(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.error().ToString();
  return e.ok() ? (*e)->ToString() : "";
}

TEST(Parser, PrecedenceAndCanonicalForm) {
  EXPECT_EQ(Canon("a * b + c"), "(a * b) + c");
  EXPECT_EQ(Canon("a + b * c"), "a + (b * c)");
  EXPECT_EQ(Canon("a - b - c"), "(a - b) - c");
  EXPECT_EQ(Canon("a * b + c < d"), "((a * b) + c) < d");
  EXPECT_EQ(Canon("not a and b or c"), "((not a) and b) or c");
  EXPECT_EQ(Canon("a = b and c != d"), "(a = b) and (c != d)");
  EXPECT_EQ(Canon("checked_mul(x, 3) < y"), "(x * 3) < y");
  EXPECT_EQ(Canon("-7"), "-7");
  EXPECT_EQ(Canon("a - -7"), "a - -7");
  EXPECT_EQ(Canon("-a"), "neg(a)");
  EXPECT_EQ(Canon("- -7"), "neg(-7)");
  EXPECT_EQ(Canon("42:u8 + null:i32"), "42:u8 + null:i32");
  EXPECT_EQ(Canon("cast(a, i64)"), "cast(a, i64)");
  EXPECT_EQ(Canon("coalesce(a, b, 0)"), "coalesce(a, b, 0)");
  EXPECT_EQ(Canon("1.5e3 + .5"), "1.5e3 + .5");
  EXPECT_EQ(Canon("-inf:f32"), "-inf:f32");
  EXPECT_EQ(Canon("if(a > 0, a, 0 - a)"), "if(a > 0, a, 0 - a)");
  // `not` with no or several arguments is a call wherever it stands (a fuzz finding: `(not())`
  // did not parse where `x + not()` did).
  EXPECT_EQ(Canon("(c) + no + not() % or2"), "(c + no) + (not() % or2)");
  EXPECT_EQ(Canon("(not())"), "not()");
  EXPECT_EQ(Canon("not(a, b) and not (a)"), "not(a, b) and (not a)");
}

TEST(Parser, RoundTripOverGeneratedCorpus) {
  ASSERT_OK_AND_ASSIGN(const Schema schema,
                       ParseSchema("a:i32?, b:i32, c:u8, d:f64?, e:bool?, f:i64, g:f32, h:u64?"));
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId want = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    const std::string text = testing::RandomExpression(want, schema, 4, rng);
    auto e = Parse(text);
    ASSERT_TRUE(e.ok()) << "seed " << seed << ": " << text << ": " << e.error().ToString();
    const std::string printed = (*e)->ToString();
    auto again = Parse(printed);
    ASSERT_TRUE(again.ok()) << "seed " << seed << ": " << printed << ": " << again.error().ToString();
    EXPECT_TRUE((*again)->Equals(**e)) << "seed " << seed << ": " << text << " -> " << printed;
    EXPECT_EQ((*again)->ToString(), printed) << "seed " << seed;
    // Bound trees print with typed literals and parse back to the same bound tree.
    auto bound = Bind(*e, schema);
    ASSERT_TRUE(bound.ok()) << "seed " << seed << ": " << text << ": " << bound.error().ToString();
    auto rebound = ParseAndBind((*bound)->ToString(), schema);
    ASSERT_TRUE(rebound.ok()) << "seed " << seed << ": " << (*bound)->ToString() << ": "
                              << rebound.error().ToString();
    EXPECT_TRUE((*rebound)->Equals(**bound)) << "seed " << seed << ": " << (*bound)->ToString();
  }
}

void ExpectSyntaxError(std::string_view text, std::string_view fragment) {
  auto e = Parse(text);
  ASSERT_FALSE(e.ok()) << text;
  EXPECT_EQ(e.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(e.error().message().find(fragment), std::string::npos)
      << text << " -> " << e.error().message();
}

TEST(ParserErrors, UnexpectedCharacter) { ExpectSyntaxError("a $ b", "position 2: unexpected character '$'"); }
TEST(ParserErrors, MissingOperand) { ExpectSyntaxError("a +", "position 3: expected an expression, found end of input"); }
TEST(ParserErrors, UnclosedParen) { ExpectSyntaxError("(a + b", "expected ')', found end of input"); }
TEST(ParserErrors, TrailingToken) { ExpectSyntaxError("a b", "position 2: expected an operator or end of input, found 'b'"); }
TEST(ParserErrors, BadArgumentList) { ExpectSyntaxError("f(a b)", "expected ',' or ')'"); }
TEST(ParserErrors, BadTypeSuffix) { ExpectSyntaxError("42:int", "expected a type name"); }
TEST(ParserErrors, NullableSuffix) { ExpectSyntaxError("42:i32?", "unexpected character '?'"); }
TEST(ParserErrors, CastWithoutType) { ExpectSyntaxError("cast(a, 3)", "expected a type name"); }
TEST(ParserErrors, ChainedComparison) { ExpectSyntaxError("a < b < c", "comparisons do not chain"); }
TEST(ParserErrors, KeywordAsOperand) { ExpectSyntaxError("a + and", "expected an expression, found 'and'"); }
TEST(ParserErrors, Empty) { ExpectSyntaxError("", "expected an expression, found end of input"); }

}  // namespace
}  // namespace rowjit::ir
