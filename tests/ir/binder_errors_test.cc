// Errors of parsing and binding point at the text they are about: one must-fail case per error
// kind with the span it carries, the suggestions unknown names get, time zones refused wherever
// one is written, and one message for one mistake whether a schema or an expression makes it
// (ir).
#include <gtest/gtest.h>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/parser.h"

namespace rowjit::ir {
namespace {

const Schema& S() {
  static const Schema s =
      *ParseSchema("a:i32?, b:i32, c:u8, d:f64?, e:bool?, s:utf8, t:timestamp(us), price:f64, quantity:i64");
  return s;
}

struct Failure {
  ErrorCode code;
  std::string message;
  std::string marked;  // the text under the span; "<no span>" when there is none
};

Failure Fails(std::string_view text, BindOptions options = {}) {
  auto e = ParseAndBind(text, S(), options);
  if (e.ok()) return {ErrorCode::kInternal, "bound: " + (*e)->ToString(), ""};
  const auto& span = e.error().span();
  std::string marked = "<no span>";
  if (span && span->offset <= text.size()) marked = std::string(text.substr(span->offset, span->length));
  return {e.error().code(), e.error().message(), marked};
}

// `text` fails with `code`, a message holding `fragment`, and a span over `marked`.
void Expect(std::string_view text, ErrorCode code, std::string_view fragment, std::string_view marked,
            BindOptions options = {}) {
  const Failure f = Fails(text, options);
  EXPECT_EQ(f.code, code) << text << ": " << f.message;
  EXPECT_NE(f.message.find(fragment), std::string::npos) << text << " -> " << f.message;
  EXPECT_EQ(f.marked, marked) << text << " -> " << f.message;
}

TEST(ErrorSpans, UnknownColumn) {
  Expect("a + zz * 2", ErrorCode::kInvalidInput, "unknown column 'zz' (the schema has a:i32?", "zz");
}

TEST(ErrorSpans, UnknownFunctionAtItsName) {
  Expect("a + frob(b, c)", ErrorCode::kInvalidInput, "unknown function 'frob'", "frob");
  Expect("COALESE(a, 0)", ErrorCode::kInvalidInput, "unknown function 'coalese'", "COALESE");
}

TEST(ErrorSpans, WrongArityAtTheCall) {
  Expect("b + abs(a, b)", ErrorCode::kInvalidInput, "abs takes 1 argument, got 2", "abs(a, b)");
}

TEST(ErrorSpans, TypeMismatchAtTheCall) {
  Expect("b + (a * 2 < s)", ErrorCode::kTypeError, "lt(i32, utf8)", "a * 2 < s");
  Expect("e + 1 > 0", ErrorCode::kTypeError, "literal 1 does not fit bool", "1");
  Expect("if(b, a, a)", ErrorCode::kTypeError, "the condition must be bool", "if(b, a, a)");
  // An error inside an argument points at the argument, not at the calls around it.
  Expect("coalesce(a, b + s, 0)", ErrorCode::kTypeError, "add(i32, utf8)", "b + s");
}

TEST(ErrorSpans, LiteralThatDoesNotFit) {
  Expect("c + 300", ErrorCode::kTypeError, "literal 300 does not fit u8", "300", BindOptions{.implicit_casts = false});
  Expect("a - 99999999999999999999 + 1", ErrorCode::kTypeError, "does not fit u64", "99999999999999999999");
  Expect("b + -1:u8", ErrorCode::kTypeError, "literal -1 does not fit u8", "-1:u8");
  Expect("t > '2024-02-30'", ErrorCode::kTypeError, "is not a timestamp(us) literal", "'2024-02-30'");
  Expect("date_part('fortnight', t)", ErrorCode::kInvalidInput, "unknown part 'fortnight'", "'fortnight'");
}

TEST(ErrorSpans, BadCastTarget) {
  Expect("cast(a as decimal(40,2))", ErrorCode::kUnsupported,
         "decimal precision 40 (a 128-bit decimal has 1 to 38 digits)", "40");
  Expect("a::varchar(10)", ErrorCode::kInvalidInput, "strings have no length limit", "10");
  Expect("cast(a, nosuch) + 1", ErrorCode::kInvalidInput, "unknown type 'nosuch'", "nosuch");
  Expect("saturating_cast(a, date32)", ErrorCode::kInvalidInput, "saturating_cast takes a storage type", "date32");
  Expect("cast(d, date32) + 1", ErrorCode::kTypeError, "temporal casts take", "cast(d, date32)");
}

TEST(ErrorSpans, UnknownTimeZone) {
  Expect("cast(t as timestamp(us, 'Europe/Pariss'))", ErrorCode::kInvalidInput,
         "unknown time zone 'Europe/Pariss' (did you mean 'Europe/Paris'?)", "'Europe/Pariss'");
}

TEST(ErrorSpans, BadTypeName) {
  Expect("1:int32 + a", ErrorCode::kInvalidInput, "unknown type 'int32' (did you mean 'i32'?)", "int32");
  Expect("cast(b as integr)", ErrorCode::kInvalidInput, "(did you mean 'integer'?)", "integr");
}

TEST(ErrorSpans, SyntaxErrors) {
  // The second point of a malformed number, not "12.3.4 does not fit f64".
  const Failure number = Fails("d + 12.3.4");
  EXPECT_EQ(number.code, ErrorCode::kInvalidInput);
  EXPECT_EQ(number.message, "syntax error at position 8: malformed number '12.3.4'");
  EXPECT_EQ(number.marked, ".");
  Expect("a + 1.5e", ErrorCode::kInvalidInput, "malformed number '1.5e'", "e");
  Expect("a + 3x", ErrorCode::kInvalidInput, "malformed number '3x'", "x");
  Expect("a $ b", ErrorCode::kInvalidInput, "unexpected character '$'", "$");
  // A name in double quotes is a column (SQL's quoted identifier); unknown, it may be a string.
  Expect("s = \"x\"", ErrorCode::kInvalidInput, "unknown column 'x'", "\"x\"");
  Expect("s = \"x\"", ErrorCode::kInvalidInput, "a string is written in single quotes: 'text'", "\"x\"");
  Expect("(a + b", ErrorCode::kInvalidInput, "expected ')', found end of input", "");
  Expect("a + 'open", ErrorCode::kInvalidInput, "the string is not closed", "'open");
  Expect("a < b < c", ErrorCode::kInvalidInput, "comparisons do not chain", "<");
}

TEST(ErrorSpans, ErrorsOfTreesBuiltInCodeHaveNone) {
  auto e = Bind(Expr::Call("frob", {Expr::Column("a")}), S());
  ASSERT_FALSE(e.ok());
  EXPECT_FALSE(e.error().span().has_value());
}

TEST(ErrorSpans, SpansAreNotPartOfTheExpression) {
  // The same expression spelled differently: equal, one hash, one canonical text (so one kernel).
  auto x = Parse("a+b * 2"), y = Parse("a  +  b*2");
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_NE((*x)->args()[1]->span(), (*y)->args()[1]->span());
  EXPECT_TRUE((*x)->Equals(**y));
  EXPECT_EQ((*x)->hash(), (*y)->hash());
  EXPECT_EQ((*x)->ToString(), (*y)->ToString());
}

TEST(ErrorSpans, NodesRecordTheirText) {
  const std::string text = "coalesce(a, -7) + price between 1 and 2.5";
  auto e = Parse(text);
  ASSERT_TRUE(e.ok());
  auto marked = [&](const ExprPtr& n) { return text.substr(n->span().offset, n->span().length); };
  const ExprPtr& between = *e;
  EXPECT_EQ(marked(between), text);
  const ExprPtr& sum = between->args()[0];
  EXPECT_EQ(marked(sum), "coalesce(a, -7) + price");
  EXPECT_EQ(marked(sum->args()[0]), "coalesce(a, -7)");
  EXPECT_EQ(marked(sum->args()[0]->args()[1]), "-7");
  EXPECT_EQ(marked(between->args()[2]), "2.5");
}

TEST(ErrorSpans, RenderedUnderTheExpression) {
  const std::string text = "a + sqroot(d)";
  auto e = ParseAndBind(text, S());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(FormatError(text, e.error()),
            "invalid input: unknown function 'sqroot' (did you mean 'sqrt'?)\n"
            "  a + sqroot(d)\n"
            "      ^~~~~~");
  const std::string mixed = "price * quantity + s";
  auto m = ParseAndBind(mixed, S());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(FormatError(mixed, m.error()),
            "type error: add(f64, utf8): expects numeric arguments\n"
            "  price * quantity + s\n"
            "  ^" + std::string(mixed.size() - 1, '~'));
}

TEST(Suggestions, Columns) {
  Expect("prise * quantity", ErrorCode::kInvalidInput, "unknown column 'prise' (did you mean 'price'?)", "prise");
  Expect("price * quantiy", ErrorCode::kInvalidInput, "(did you mean 'quantity'?)", "quantiy");
  Expect("ture and e", ErrorCode::kInvalidInput, "unknown column 'ture' (did you mean 'true'?)", "ture");
  Expect("A + 1", ErrorCode::kInvalidInput, "(did you mean 'a'?)", "A");
}

TEST(Suggestions, Functions) {
  Expect("sqroot(d)", ErrorCode::kInvalidInput, "unknown function 'sqroot' (did you mean 'sqrt'?)", "sqroot");
  Expect("coalese(a, 0)", ErrorCode::kInvalidInput, "(did you mean 'coalesce'?)", "coalese");
  Expect("chekced_mul(a, 2)", ErrorCode::kInvalidInput, "(did you mean 'checked_mul'?)", "chekced_mul");  // an alias
  Expect("ifnull(a, 0)", ErrorCode::kInvalidInput, "(did you mean 'coalesce'?)", "ifnull");  // another engine's name
  Expect("date_prat('year', t)", ErrorCode::kInvalidInput, "(did you mean 'date_part'?)", "date_prat");
  Expect("frobnicate(a)", ErrorCode::kInvalidInput, "unknown function 'frobnicate'", "frobnicate");
  // An aggregate in a row expression is named as one (not "did you mean 'sub'?").
  Expect("sum(a) + 1", ErrorCode::kInvalidInput,
         "unknown function 'sum': an aggregate, which a row expression does not call", "sum");
  Expect("avg(d)", ErrorCode::kInvalidInput, "unknown function 'avg': an aggregate", "avg");
  EXPECT_EQ(Fails("frobnicate(a)").message.find("did you mean"), std::string::npos);
}

TEST(Suggestions, Keywords) {
  Expect("a betwen 1 and 2", ErrorCode::kInvalidInput, "found 'betwen' (did you mean 'between'?)", "betwen");
  Expect("s lik 'a%'", ErrorCode::kInvalidInput, "(did you mean 'like'?)", "lik");
  Expect("a is nul", ErrorCode::kInvalidInput, "(did you mean 'null'?)", "nul");
}

TEST(Suggestions, TypesAndZones) {
  Expect("cast(d as float64)", ErrorCode::kInvalidInput, "unknown type 'float64' (did you mean 'f64'?)", "float64");
  Expect("d::doubel", ErrorCode::kInvalidInput, "(did you mean 'double'?)", "doubel");
  Expect("t::timestamp(us, America/New_Yrok)", ErrorCode::kInvalidInput, "(did you mean 'America/New_York'?)",
         "America/New_Yrok");
}

// A zone is checked wherever it is written, before anything is bound to it.
TEST(Zones, RefusedInEveryPosition) {
  for (const char* text : {"cast(t as timestamp(us, Mars/Olympus))", "cast(t, timestamp(us, Mars/Olympus))",
                           "t::timestamp(ms, Mars/Olympus) > t", "cast('2024-01-01', timestamp(us, Mars/Olympus))"}) {
    Expect(text, ErrorCode::kInvalidInput, "unknown time zone 'Mars/Olympus'", "Mars/Olympus");
  }
  Expect("cast(cast(s, timestamp(s, 'Mars/Olympus')), utf8)", ErrorCode::kInvalidInput,
         "unknown time zone 'Mars/Olympus'", "'Mars/Olympus'");
  auto agg = ParseAndBindAggregate("max(cast(t, timestamp(us, Europe/Pariss)))", S());
  ASSERT_FALSE(agg.ok());
  EXPECT_NE(agg.error().message().find("(did you mean 'Europe/Paris'?)"), std::string::npos) << agg.error().message();
  auto schema = ParseSchema("a:i32, t:timestamp(us, Mars/Olympus)");
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.error().span(), (SourceSpan{23, 12}));
  // Known zones, quoted or not, UTC and offsets are taken.
  for (const char* text : {"cast(t, timestamp(us, Europe/Paris))", "cast(t as timestamp(us, 'Europe/Paris'))",
                           "t::timestamptz", "cast(t as timestamp with time zone)", "cast(t, timestamp(us, +05:30))"}) {
    EXPECT_TRUE(ParseAndBind(text, S()).ok()) << text << ": " << ParseAndBind(text, S()).error().ToString();
  }
}

// A mistake reads the same in a schema and in an expression.
TEST(OneMessage, WhereverTheMistakeIsMade) {
  const std::pair<const char*, const char*> same[] = {
      {"d:decimal(40,2)", "cast(x as decimal(40,2))"},
      {"d:decimal(10,12)", "x::decimal(10,12)"},
      {"t:timestamp(us, Europe/Pariss)", "cast(x, timestamp(us, Europe/Pariss))"},
      {"t:timestamp(us, Mars/Olympus)", "cast(x as timestamp(us, Mars/Olympus))"},
      {"i:int32", "cast(x as int32)"},
      {"t:time32(us)", "cast(x, time32(us))"},
  };
  const Schema one = *ParseSchema("x:i64");
  for (const auto& [schema_text, expression] : same) {
    auto schema = ParseSchema(schema_text);
    auto bound = ParseAndBind(expression, one);
    ASSERT_FALSE(schema.ok()) << schema_text;
    ASSERT_FALSE(bound.ok()) << expression;
    EXPECT_EQ(schema.error().ToString(), bound.error().ToString()) << schema_text << " / " << expression;
  }
}

}  // namespace
}  // namespace rowjit::ir
