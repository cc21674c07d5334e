// Type names read from text: rowjit's and SQL's, time zones checked, every error with the span
// of the text it is about and a suggestion when a name is close to a known one (runtime).
#include <gtest/gtest.h>

#include "runtime/array.h"
#include "runtime/types.h"
#include "support/assert_ok.h"

namespace rowjit {
namespace {

// The text an error's span covers.
template <typename R>
std::string Marked(std::string_view text, const R& r) {
  if (r.ok() || !r.error().span()) return "<no span>";
  const SourceSpan s = *r.error().span();
  return s.offset > text.size() ? "<outside>" : std::string(text.substr(s.offset, s.length));
}

// `text` fails with `code`, a message holding `fragment` and a span over `marked`.
void ExpectTypeError(std::string_view text, TypeNames names, ErrorCode code, std::string_view fragment,
                     std::string_view marked) {
  auto t = ParseDataType(text, names);
  ASSERT_FALSE(t.ok()) << text << " parsed as " << t->ToString();
  EXPECT_EQ(t.error().code(), code) << t.error().ToString();
  EXPECT_NE(t.error().message().find(fragment), std::string::npos) << text << " -> " << t.error().message();
  EXPECT_EQ(Marked(text, t), marked) << text;
}

std::string Parsed(std::string_view text, TypeNames names = TypeNames::kRowjit) {
  auto t = ParseDataType(text, names);
  return t.ok() ? t->ToString() : "error: " + t.error().ToString();
}

TEST(TypeNames, RowjitNames) {
  EXPECT_EQ(Parsed("i32"), "i32");
  EXPECT_EQ(Parsed(" u8? "), "u8?");
  EXPECT_EQ(Parsed("decimal(12, 2)"), "decimal(12,2)");
  EXPECT_EQ(Parsed("decimal64(7)"), "decimal64(7,0)");
  EXPECT_EQ(Parsed("timestamp(us, Europe/Paris)"), "timestamp(us, Europe/Paris)");
  EXPECT_EQ(Parsed("timestamp(ns, 'Europe/Paris')"), "timestamp(ns, Europe/Paris)");  // a quoted zone
  EXPECT_EQ(Parsed("timestamp(s, +05:30)"), "timestamp(s, +05:30)");
  EXPECT_EQ(Parsed("time32(ms)"), "time32(ms)");
  EXPECT_EQ(Parsed("interval_day_time"), "interval_day_time");
}

TEST(TypeNames, SqlNamesWhereSqlIsRead) {
  EXPECT_EQ(Parsed("BIGINT", TypeNames::kSql), "i64");
  EXPECT_EQ(Parsed("int8", TypeNames::kSql), "i64");  // PostgreSQL's int8 is eight bytes
  EXPECT_EQ(Parsed("double  precision", TypeNames::kSql), "f64");
  EXPECT_EQ(Parsed("numeric(12, 2)", TypeNames::kSql), "decimal(12,2)");
  EXPECT_EQ(Parsed("decimal", TypeNames::kSql), "decimal(18,3)");
  EXPECT_EQ(Parsed("timestamp", TypeNames::kSql), "timestamp(us)");
  EXPECT_EQ(Parsed("timestamp(3)", TypeNames::kSql), "timestamp(ms)");
  EXPECT_EQ(Parsed("timestamp(ms)", TypeNames::kSql), "timestamp(ms)");
  EXPECT_EQ(Parsed("Timestamp With Time Zone", TypeNames::kSql), "timestamp(us, UTC)");
  EXPECT_EQ(Parsed("timestamptz(9)", TypeNames::kSql), "timestamp(ns, UTC)");
  EXPECT_EQ(Parsed("varchar", TypeNames::kSql), "utf8");
}

TEST(TypeNames, UnknownNamesAreSuggested) {
  // Other systems' spellings name rowjit's type; numpy's int8 and SQL's differ, so both.
  ExpectTypeError("int32", TypeNames::kRowjit, ErrorCode::kInvalidInput, "unknown type 'int32' (did you mean 'i32'?)",
                  "int32");
  ExpectTypeError("float64?", TypeNames::kRowjit, ErrorCode::kInvalidInput, "(did you mean 'f64'?)", "float64");
  ExpectTypeError("int8", TypeNames::kRowjit, ErrorCode::kInvalidInput, "(did you mean 'i8' or 'i64'?)", "int8");
  ExpectTypeError("integer", TypeNames::kRowjit, ErrorCode::kInvalidInput, "(did you mean 'i32'?)", "integer");
  ExpectTypeError("int32", TypeNames::kSql, ErrorCode::kInvalidInput, "(did you mean 'i32'?)", "int32");
  // Otherwise the nearest name, in any case.
  ExpectTypeError("I32", TypeNames::kRowjit, ErrorCode::kInvalidInput, "(did you mean 'i32'?)", "I32");
  ExpectTypeError("strng", TypeNames::kRowjit, ErrorCode::kInvalidInput, "(did you mean 'string'?)", "strng");
  ExpectTypeError("bigitn", TypeNames::kSql, ErrorCode::kInvalidInput, "(did you mean 'bigint'?)", "bigitn");
  ExpectTypeError("decmial(12,2)", TypeNames::kRowjit, ErrorCode::kInvalidInput, "(did you mean 'decimal'?)",
                  "decmial");
  // Nothing close: the list of names.
  ExpectTypeError("nosuch", TypeNames::kRowjit, ErrorCode::kInvalidInput, "unknown type 'nosuch' (bool, i8..i64",
                  "nosuch");
}

TEST(TypeNames, ParameterErrorsPointAtTheParameter) {
  ExpectTypeError("decimal(40,2)", TypeNames::kRowjit, ErrorCode::kUnsupported,
                  "decimal precision 40 (a 128-bit decimal has 1 to 38 digits)", "40");
  // SQL's spelling gives the same message at the same place.
  ExpectTypeError("numeric(40,2)", TypeNames::kSql, ErrorCode::kUnsupported,
                  "decimal precision 40 (a 128-bit decimal has 1 to 38 digits)", "40");
  ExpectTypeError("decimal32(9, 10)", TypeNames::kRowjit, ErrorCode::kUnsupported, "decimal scale 10", "10");
  ExpectTypeError("decimal(x, 2)", TypeNames::kRowjit, ErrorCode::kInvalidInput, "decimal precision 'x' is not a number",
                  "x");
  ExpectTypeError("decimal(1, 2, 3)", TypeNames::kRowjit, ErrorCode::kInvalidInput, "a precision and a scale", "3");
  ExpectTypeError("time32(us)", TypeNames::kRowjit, ErrorCode::kTypeError, "time32 has no unit us", "us");
  ExpectTypeError("duration( xs )", TypeNames::kRowjit, ErrorCode::kInvalidInput, "unknown unit 'xs'", "xs");
  ExpectTypeError("duration(us, UTC)", TypeNames::kRowjit, ErrorCode::kInvalidInput, "duration takes one unit", "UTC");
  ExpectTypeError("decimal", TypeNames::kRowjit, ErrorCode::kInvalidInput, "decimal needs its parameters: decimal(P,S)",
                  "decimal");
  ExpectTypeError("i32(4)", TypeNames::kRowjit, ErrorCode::kInvalidInput, "i32 takes no parameters", "4");
  ExpectTypeError("varchar(10)", TypeNames::kSql, ErrorCode::kInvalidInput, "strings have no length limit", "10");
  ExpectTypeError("timestamp(4)", TypeNames::kSql, ErrorCode::kInvalidInput, "0, 3, 6 or 9", "4");
  ExpectTypeError("decimal(12,2", TypeNames::kRowjit, ErrorCode::kInvalidInput, "not closed with ')'", "");
}

TEST(TypeNames, ZonesAreChecked) {
  ExpectTypeError("timestamp(us, Europe/Pariss)", TypeNames::kRowjit, ErrorCode::kInvalidInput,
                  "unknown time zone 'Europe/Pariss' (did you mean 'Europe/Paris'?)", "Europe/Pariss");
  ExpectTypeError("timestamp(us, 'europe/paris')", TypeNames::kRowjit, ErrorCode::kInvalidInput,
                  "(did you mean 'Europe/Paris'?)", "'europe/paris'");
  // Nothing close: the reason the zone could not be read.
  ExpectTypeError("timestamp(us, Mars/Olympus)", TypeNames::kRowjit, ErrorCode::kInvalidInput,
                  "unknown time zone 'Mars/Olympus'", "Mars/Olympus");
  ExpectTypeError("timestamp(us, )", TypeNames::kRowjit, ErrorCode::kInvalidInput, "the zone is empty", "");
  ExpectTypeError("timestamp(us, +25:00)", TypeNames::kRowjit, ErrorCode::kInvalidInput, "+25:00", "+25:00");
}

TEST(TypeNames, SchemaErrorsPointIntoTheSchema) {
  const std::string decimal = "a:i32, d:decimal(40,2)";
  auto s = ParseSchema(decimal);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message(), "decimal precision 40 (a 128-bit decimal has 1 to 38 digits)");
  EXPECT_EQ(s.error().span(), (SourceSpan{17, 2}));
  const std::string zone = "a:i32, t:timestamp(us, Mars/Olympus)?";
  auto z = ParseSchema(zone);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(Marked(zone, z), "Mars/Olympus");
  const std::string near = "t:timestamp(us, Europe/Pariss)";
  auto n = ParseSchema(near);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().message(), "unknown time zone 'Europe/Pariss' (did you mean 'Europe/Paris'?)");
  EXPECT_EQ(Marked(near, n), "Europe/Pariss");
  const std::string numpy = "x:f64, y: int32";
  EXPECT_EQ(Marked(numpy, ParseSchema(numpy)), "int32");
  const std::string twice = "a:i32, a:i64";
  auto t = ParseSchema(twice);
  EXPECT_EQ(t.error().span(), (SourceSpan{7, 1}));  // the second a
  EXPECT_EQ(Marked("a:i32, b", ParseSchema("a:i32, b")), "b");
  EXPECT_EQ(Marked("a:i32, 1b:i32", ParseSchema("a:i32, 1b:i32")), "1b");
}

}  // namespace
}  // namespace rowjit
