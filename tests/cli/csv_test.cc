// The CLI's CSV reader and field writer (tools/csv.h) and its type inference
// (tools/csv_input.h): RFC 4180 quoting, null spellings, line numbers, malformed input.
#include "tools/csv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/csv_input.h"

namespace rowjit::cli {
namespace {

// Column c's fields, "null" for a null one and the bytes in brackets otherwise.
std::vector<std::string> Fields(const CsvTable& t, size_t c) {
  std::vector<std::string> out;
  for (int64_t k = 0; k < t.columns[c].size(); ++k) {
    out.push_back(t.columns[c].IsNull(k) ? "null" : "[" + std::string(t.columns[c].Field(k)) + "]");
  }
  return out;
}

using Strings = std::vector<std::string>;
using Lines = std::vector<int64_t>;

TEST(CsvRead, HeaderAndRecords) {
  auto t = ParseCsv("a,b\n1,2\n3,4\n");
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(t->header, (Strings{"a", "b"}));
  EXPECT_EQ(Fields(*t, 0), (Strings{"[1]", "[3]"}));
  EXPECT_EQ(Fields(*t, 1), (Strings{"[2]", "[4]"}));
  EXPECT_EQ(t->lines, (Lines{2, 3}));
}

TEST(CsvRead, LastLineEndIsOptional) {
  auto t = ParseCsv("a,b\n1,2");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Fields(*t, 1), (Strings{"[2]"}));
}

TEST(CsvRead, HeaderOnlyHasNoRows) {
  auto t = ParseCsv("a,b\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->rows(), 0);
  EXPECT_EQ(t->columns.size(), 2u);
}

TEST(CsvRead, CrLfLineEnds) {
  auto t = ParseCsv("a,b\r\n1,x y\r\n3,\r\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->header, (Strings{"a", "b"}));
  EXPECT_EQ(Fields(*t, 1), (Strings{"[x y]", "null"}));
  EXPECT_EQ(t->lines, (Lines{2, 3}));
}

TEST(CsvRead, QuotedFieldsHoldCommasLineEndsAndQuotes) {
  auto t = ParseCsv("a,b\r\n\"x,y\",\"one\ntwo\"\r\n\"he said \"\"hi\"\"\",\"\"\"\"\r\n");
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(Fields(*t, 0), (Strings{"[x,y]", "[he said \"hi\"]"}));
  EXPECT_EQ(Fields(*t, 1), (Strings{"[one\ntwo]", "[\"]"}));
  EXPECT_EQ(t->lines, (Lines{2, 4}));  // the first record spans lines 2 and 3
}

TEST(CsvRead, QuotedHeaderCells) {
  auto t = ParseCsv("\"a,1\",\"p:decimal(10,2)?\"\n1,2\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->header, (Strings{"a,1", "p:decimal(10,2)?"}));
}

TEST(CsvRead, EmptyUnquotedIsNullQuotedEmptyIsAString) {
  auto t = ParseCsv("a,b,c\n,\"\",x\n\"\",,\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Fields(*t, 0), (Strings{"null", "[]"}));
  EXPECT_EQ(Fields(*t, 1), (Strings{"[]", "null"}));
  EXPECT_EQ(Fields(*t, 2), (Strings{"[x]", "null"}));
}

TEST(CsvRead, AnotherNullSpelling) {
  // With --null NA: unquoted NA is null; a quoted "NA" and the empty field are strings.
  auto t = ParseCsv("a,b\nNA,\"NA\"\n,NAN\n", "NA");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Fields(*t, 0), (Strings{"null", "[]"}));
  EXPECT_EQ(Fields(*t, 1), (Strings{"[NA]", "[NAN]"}));
}

TEST(CsvRead, ByteOrderMarkSkipped) {
  auto t = ParseCsv("\xEF\xBB\xBFx,y\n1,2\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->header, (Strings{"x", "y"}));
}

TEST(CsvRead, EmptyLinesSkippedWhenSeveralColumns) {
  auto t = ParseCsv("a,b\n1,2\n\n\r\n3,4\n\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Fields(*t, 0), (Strings{"[1]", "[3]"}));
  EXPECT_EQ(t->lines, (Lines{2, 5}));
}

TEST(CsvRead, EmptyLineIsANullInOneColumn) {
  auto t = ParseCsv("a\n1\n\n\"\"\n3\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Fields(*t, 0), (Strings{"[1]", "null", "[]", "[3]"}));
}

TEST(CsvRead, SpacesAreKept) {
  auto t = ParseCsv("a,b\n x , \"y\"\n");
  ASSERT_FALSE(t.ok());  // a quote after a space is inside an unquoted field
  t = ParseCsv("a,b\n x ,y \n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(Fields(*t, 0), (Strings{"[ x ]"}));
  EXPECT_EQ(Fields(*t, 1), (Strings{"[y ]"}));
}

// Malformed input: an error naming the line.
void ExpectError(std::string_view text, std::string_view fragment) {
  auto t = ParseCsv(text);
  ASSERT_FALSE(t.ok()) << "parsed: " << text;
  EXPECT_EQ(t.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(t.error().message().find(fragment), std::string::npos) << t.error().message();
}

TEST(CsvRead, UnclosedQuoteNamesTheLineItOpensOn) {
  ExpectError("a,b\n1,2\n3,\"four\nfive\n", "line 3: a quoted field is not closed");
}
TEST(CsvRead, TextAfterClosingQuote) {
  ExpectError("a,b\n\"1\"x,2\n", "line 2: text after the closing quote");
}
TEST(CsvRead, QuoteInsideUnquotedField) {
  ExpectError("a,b\n1,2\"3\n", "line 2: a quote inside an unquoted field");
}
TEST(CsvRead, TooManyFields) {
  ExpectError("a,b\n1,2\n1,2,3\n", "line 3: more than 2 fields, the header has 2");
}
TEST(CsvRead, TooFewFields) { ExpectError("a,b,c\n1,2\n", "line 2: 2 fields, the header has 3"); }
TEST(CsvRead, LineNumbersCountQuotedLineEnds) {
  ExpectError("a,b\n\"x\ny\nz\",1\n1\n", "line 5: 1 field, the header has 2");
}
TEST(CsvRead, EmptyInput) { ExpectError("", "no header row"); }

TEST(CsvWrite, QuotesOnlyWhenNeeded) {
  auto field = [](std::string_view v, std::string_view null_text = "") {
    std::string out;
    AppendCsvField(out, v, null_text);
    return out;
  };
  EXPECT_EQ(field("plain"), "plain");
  EXPECT_EQ(field(" spaced "), " spaced ");
  EXPECT_EQ(field("a,b"), "\"a,b\"");
  EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(field("one\ntwo"), "\"one\ntwo\"");
  EXPECT_EQ(field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(field(""), "\"\"");            // the empty string is not the null
  EXPECT_EQ(field("", "NA"), "");          // ... unless null is spelled otherwise
  EXPECT_EQ(field("NA", "NA"), "\"NA\"");  // a string equal to the null spelling
}

TEST(CsvWrite, FieldsReadBack) {
  const std::vector<std::string> values = {"x", "", "a,b", "\"", "l1\r\nl2", " s "};
  std::string text = "v,w\n";
  for (const std::string& v : values) {
    AppendCsvField(text, v, "");
    text += ",\n";  // w: null
  }
  auto t = ParseCsv(text);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  ASSERT_EQ(t->rows(), static_cast<int64_t>(values.size()));
  for (size_t k = 0; k < values.size(); ++k) {
    EXPECT_EQ(t->columns[0].Field(static_cast<int64_t>(k)), values[k]);
    EXPECT_FALSE(t->columns[0].IsNull(static_cast<int64_t>(k)));
    EXPECT_TRUE(t->columns[1].IsNull(static_cast<int64_t>(k)));
  }
}

// The inferred type of a column of these fields ("\N" stands for a null field).
std::string Inferred(const std::vector<std::string>& fields) {
  std::string text = "c\n";
  for (const std::string& f : fields) {
    if (f == "\\N") {
      text += "\n";
    } else {
      AppendCsvField(text, f, "");
      text += "\n";
    }
  }
  auto t = ParseCsv(text);
  if (!t.ok()) return t.error().ToString();
  return InferColumnType(t->columns[0]).ToString();
}

TEST(CsvInfer, Integers) {
  EXPECT_EQ(Inferred({"1", "-2", "+3", " 4 ", "0"}), "i64");
  EXPECT_EQ(Inferred({"1", "\\N"}), "i64?");
  EXPECT_EQ(Inferred({"9223372036854775807", "-9223372036854775808"}), "i64");
}

TEST(CsvInfer, NumbersPastI64OrWithAPointAreF64) {
  EXPECT_EQ(Inferred({"9223372036854775808"}), "f64");
  EXPECT_EQ(Inferred({"1", "2.5"}), "f64");
  EXPECT_EQ(Inferred({".5", "5.", "-1e3", "2E-2", "+0.0"}), "f64");
  EXPECT_EQ(Inferred({"1.5", "\\N", "\\N"}), "f64?");
}

TEST(CsvInfer, NotNumbers) {
  EXPECT_EQ(Inferred({"1", "inf"}), "utf8");  // inf and nan are read by f64, never inferred
  EXPECT_EQ(Inferred({"nan"}), "utf8");
  EXPECT_EQ(Inferred({"1e400"}), "utf8");  // past a double
  EXPECT_EQ(Inferred({"0x10"}), "utf8");
  EXPECT_EQ(Inferred({"1_000"}), "utf8");
  EXPECT_EQ(Inferred({"+-5"}), "utf8");
  EXPECT_EQ(Inferred({"-"}), "utf8");
  EXPECT_EQ(Inferred({"1e"}), "utf8");
  EXPECT_EQ(Inferred({"1", ""}), "utf8");  // a quoted empty string is a value, not a number
}

TEST(CsvInfer, Bools) {
  EXPECT_EQ(Inferred({"true", "FALSE", " True "}), "bool");
  EXPECT_EQ(Inferred({"true", "\\N"}), "bool?");
  EXPECT_EQ(Inferred({"true", "1"}), "utf8");
  EXPECT_EQ(Inferred({"yes"}), "utf8");
}

TEST(CsvInfer, NoValues) {
  EXPECT_EQ(Inferred({}), "utf8");
  EXPECT_EQ(Inferred({"\\N", "\\N"}), "utf8?");
}

}  // namespace
}  // namespace rowjit::cli
