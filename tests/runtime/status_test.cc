// Errors with a span and their rendering under the text they are about (runtime).
#include "runtime/status.h"

#include <gtest/gtest.h>

namespace rowjit {
namespace {

Error About(SourceSpan span) { return Error(ErrorCode::kTypeError, "the message").WithSpan(span); }

TEST(ErrorSpan, CarriedAndShifted) {
  Error plain(ErrorCode::kTypeError, "m");
  EXPECT_FALSE(plain.span().has_value());
  EXPECT_EQ(Error(plain).ShiftSpan(5).span(), std::nullopt);  // no span stays none
  const Error e = About({2, 3});
  ASSERT_TRUE(e.span().has_value());
  EXPECT_EQ(*e.span(), (SourceSpan{2, 3}));
  EXPECT_EQ(*Error(e).ShiftSpan(10).span(), (SourceSpan{12, 3}));
  // ToString does not show the span: messages compared as text stay as they were.
  EXPECT_EQ(e.ToString(), "type error: the message");
}

TEST(FormatError, CaretAndTildesUnderTheSpan) {
  EXPECT_EQ(FormatError("a + s", About({0, 5})), "type error: the message\n  a + s\n  ^~~~~");
  EXPECT_EQ(FormatError("a + s", About({4, 1})), "type error: the message\n  a + s\n      ^");
  EXPECT_EQ(FormatError("sqroot(a)", About({0, 6})), "type error: the message\n  sqroot(a)\n  ^~~~~~");
}

TEST(FormatError, PointAtTheEnd) {
  // A zero-length span (where more was expected) is a caret alone, after the last character too.
  EXPECT_EQ(FormatError("a +", About({3, 0})), "type error: the message\n  a +\n     ^");
}

TEST(FormatError, WithoutSpanOrOutsideTheText) {
  EXPECT_EQ(FormatError("a + s", Error(ErrorCode::kOverflow, "m")), "overflow: m");
  EXPECT_EQ(FormatError("a + s", About({6, 1})), "type error: the message");
  EXPECT_EQ(FormatError("", About({0, 0})), "type error: the message\n  \n  ^");
}

TEST(FormatError, CountsCharactersNotBytes) {
  // 'é' is two bytes: the caret under `zz` stands six characters in, not seven bytes.
  const std::string text = "'\xC3\xA9' + zz";
  EXPECT_EQ(FormatError(text, About({7, 2})), "type error: the message\n  " + text + "\n        ^~");
}

TEST(FormatError, ShowsTheLineOfTheSpan) {
  EXPECT_EQ(FormatError("a +\n  zz * 2", About({6, 2})), "type error: the message\n    zz * 2\n    ^~");
  // A span running past its line is underlined to the line's end.
  EXPECT_EQ(FormatError("ab\ncd", About({0, 5})), "type error: the message\n  ab\n  ^~");
  // Tabs show as spaces, so the caret lines up.
  EXPECT_EQ(FormatError("a\t+ zz", About({4, 2})), "type error: the message\n  a + zz\n      ^~");
}

TEST(FormatError, CutsLongLinesAroundTheSpan) {
  std::string text(150, 'x');
  text += " + bad + ";
  text.append(150, 'y');
  const std::string shown = FormatError(text, About({153, 3}));
  const size_t first = shown.find('\n'), second = shown.find('\n', first + 1);
  const std::string line = shown.substr(first + 1, second - first - 1);
  const std::string carets = shown.substr(second + 1);
  EXPECT_EQ(line.substr(0, 5), "  ...");
  EXPECT_EQ(line.substr(line.size() - 3), "...");
  EXPECT_LE(line.size(), 2 + 3 + 100 + 3u);
  // The caret stands under the span's first character, the tildes under the rest.
  const size_t caret = carets.find('^');
  EXPECT_EQ(line.substr(caret, 3), "bad");
  EXPECT_EQ(carets.substr(caret), "^~~");
}

}  // namespace
}  // namespace rowjit
