// String functions in the ir layer: literals parse and print back, type rules, and the reference
// semantics of comparisons, lengths and LIKE against answers PostgreSQL gives.
#include <gtest/gtest.h>

#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/reference.h"
#include "kernels/strings.h"
#include "runtime/builder.h"
#include "runtime/string_array.h"
#include "support/assert_ok.h"

namespace rowjit::ir {
namespace {

TEST(StringLiterals, ParseAndPrintBack) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("s:utf8?, b:binary"));
  for (std::string_view text : {"s = 'it''s'", "s like '%a_b%'", "starts_with(b, 'x,y':binary)",
                                "length(s) > 3", "s < ''", "coalesce(s, 'none') = 'x'"}) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(ExprPtr bound, ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(ExprPtr again, ParseAndBind(bound->ToString(), schema));
    EXPECT_TRUE(bound->Equals(*again)) << bound->ToString() << " vs " << again->ToString();
  }
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseAndBind("s ilike 'A%'", schema));
  EXPECT_EQ(e->ToString(), "ilike(s, 'A%')");
  // A literal takes the type of the string it meets.
  ASSERT_OK_AND_ASSIGN(e, ParseAndBind("b = 'raw'", schema));
  EXPECT_EQ(e->args()[1]->type().id, TypeId::kBinary);
  EXPECT_FALSE(Parse("s = 'open").ok());
}

TEST(StringLiterals, TypeErrorsAreClear) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("s:utf8?, b:binary, i:i32"));
  for (std::string_view text : {"s + 1", "s = 1", "i = 'x'", "s = b", "length(i)",
                                "char_length(b)", "starts_with(s, 1)", "cast(b, i32)", "cast(i, binary)",
                                "saturating_cast(s, i8)",
                                "sum(s)"}) {
    auto r = ParseAndBind(text, schema);
    EXPECT_FALSE(r.ok()) << text;
  }
}

struct LikeCase {
  std::string_view s, pattern;
  bool match;
};

// Answers as PostgreSQL 16 gives them (C collation; '\' the default escape).
constexpr LikeCase kLikeCases[] = {
    {"abc", "abc", true},      {"abc", "a%", true},      {"abc", "%c", true},
    {"abc", "%b%", true},      {"abc", "_b_", true},     {"abc", "__", false},
    {"abc", "___", true},      {"abc", "%", true},       {"", "%", true},
    {"", "_", false},          {"", "", true},           {"a", "", false},
    {"a%c", "a\\%c", true},    {"abc", "a\\%c", false},  {"a_c", "a\\_c", true},
    {"abc", "a\\_c", false},   {"a\\c", "a\\\\c", true}, {"aXbXc", "%X%X%", true},
    {"aXb", "%X%X%", false},   {"mississippi", "%iss%ip%", true},
    {"mississippi", "m%s_i", false}, {"mississippi", "m%p_i", true},
    {"héllo", "h_llo", true},  {"héllo", "h__llo", false}, {"日本語", "___", true},
    {"ab", "a%%b", true},      {"abc", "%%%", true},
};

TEST(Like, MatchesPostgreSqlAnswers) {
  for (const LikeCase& c : kLikeCases) {
    const auto* s = reinterpret_cast<const uint8_t*>(c.s.data());
    const auto* p = reinterpret_cast<const uint8_t*>(c.pattern.data());
    EXPECT_EQ(kernels::LikeMatch(s, c.s.size(), p, c.pattern.size(), true, false), c.match)
        << "'" << c.s << "' like '" << c.pattern << "'";
  }
  // Binary: `_` is one byte, so a two-byte character takes two.
  const std::string_view s = "héllo";
  EXPECT_TRUE(kernels::LikeMatch(reinterpret_cast<const uint8_t*>(s.data()), s.size(),
                                 reinterpret_cast<const uint8_t*>("h__llo"), 6, false, false));
  // ilike folds ASCII letters only.
  EXPECT_TRUE(kernels::LikeMatch(reinterpret_cast<const uint8_t*>("HeLLo"), 5,
                                 reinterpret_cast<const uint8_t*>("he%O"), 4, true, true));
  EXPECT_FALSE(kernels::LikeMatch(reinterpret_cast<const uint8_t*>("\xc3\x89"), 2,
                                  reinterpret_cast<const uint8_t*>("\xc3\xa9"), 2, true, true));
  // A trailing escape matches itself.
  EXPECT_TRUE(kernels::LikeMatch(reinterpret_cast<const uint8_t*>("a\\"), 2,
                                 reinterpret_cast<const uint8_t*>("a\\"), 2, true, false));
}

TEST(Reference, StringFunctionsRowByRow) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("s:utf8?"));
  ASSERT_OK_AND_ASSIGN(auto s, MakeStringArray(DataType(TypeId::kUtf8, true), StringLayout::kViews,
                                               {"apple", std::nullopt, "", "Ápple pie", "banana"}));
  const std::vector<ArrayPtr> cols = {s};
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"length(s)", "[5, null, 0, 10, 6]"},
      {"char_length(s)", "[5, null, 0, 9, 6]"},
      {"s < 'b'", "[true, null, true, false, false]"},
      {"s >= 'apple'", "[true, null, false, true, true]"},
      {"starts_with(s, 'app')", "[true, null, false, false, false]"},
      {"ends_with(s, 'pie')", "[false, null, false, true, false]"},
      {"contains(s, 'an')", "[false, null, false, false, true]"},
      {"s like '%p_e%'", "[true, null, false, true, false]"},
      {"s ilike '_PPLE%'", "[true, null, false, true, false]"},
      {"is_null(s)", "[false, true, false, false, false]"},
      {"coalesce(s, 'x') = 'x'", "[false, true, false, false, false]"},
      {"between(s, 'a', 'b')", "[true, null, false, false, false]"},
  };
  for (const auto& [text, want] : cases) {
    ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, EvaluateReference(*e, cols, s->length()));
    EXPECT_EQ(got->ToString(), want) << text;
  }
}

}  // namespace
}  // namespace rowjit::ir
