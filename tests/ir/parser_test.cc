// Parser and printer: canonical round trips over a generated corpus, one must-fail test per
// syntax error class (ir).
#include "ir/parser.h"

#include <gtest/gtest.h>

#include "ir/binder.h"
#include "support/assert_ok.h"
#include "support/random_data.h"

namespace rowjit::ir {
namespace {

// The canonical text of `text`, which must parse back to the same tree.
std::string Canon(std::string_view text) {
  auto e = Parse(text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.error().ToString();
  if (!e.ok()) return "";
  const std::string printed = (*e)->ToString();
  auto again = Parse(printed);
  EXPECT_TRUE(again.ok() && (*again)->Equals(**e)) << text << " prints as " << printed << ", which parses to "
                                                   << (again.ok() ? (*again)->ToString() : again.error().ToString());
  return printed;
}

TEST(Parser, PrecedenceAndCanonicalForm) {
  EXPECT_EQ(Canon("a * b + c"), "(a * b) + c");
  EXPECT_EQ(Canon("a + b * c"), "a + (b * c)");
  EXPECT_EQ(Canon("a - b - c"), "(a - b) - c");
  EXPECT_EQ(Canon("a * b + c < d"), "((a * b) + c) < d");
  EXPECT_EQ(Canon("not a and b or c"), "((not a) and b) or c");
  EXPECT_EQ(Canon("a = b and c != d"), "(a = b) and (c != d)");
  EXPECT_EQ(Canon("a <> b"), "a != b");  // SQL's spelling
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
  // `not` with no or several arguments is a call wherever it stands: in parentheses (`(not())`)
  // as after an operator (`x + not()`).
  EXPECT_EQ(Canon("(c) + no + not() % or2"), "(c + no) + (not() % or2)");
  EXPECT_EQ(Canon("(not())"), "not()");
  EXPECT_EQ(Canon("not(a, b) and not (a)"), "not(a, b) and (not a)");
}

// SQL's predicates and CASE are the calls they mean, printed as those (which parse back).
// ** is power, as in Python and numexpr: tighter than a unary minus on its left (-2 ** 2 is -4),
// right-associative, and tighter than * and /.
TEST(Parser, PowerOperator) {
  EXPECT_EQ(Canon("a ** b"), "power(a, b)");
  EXPECT_EQ(Canon("a ** b ** c"), "power(a, power(b, c))");
  EXPECT_EQ(Canon("-a ** 2"), "neg(power(a, 2))");
  EXPECT_EQ(Canon("-2 ** 2"), "neg(power(2, 2))");
  EXPECT_EQ(Canon("2 ** -1"), "power(2, -1)");
  EXPECT_EQ(Canon("a * b ** 2 / c"), "(a * power(b, 2)) / c");
  EXPECT_EQ(Canon("(a + b) ** 0.5"), "power(a + b, 0.5)");
  EXPECT_EQ(Canon("pow(a, b)"), "power(a, b)");
  EXPECT_EQ(Canon("2 * PI() * r"), "(2 * 3.141592653589793) * r");
}

TEST(Parser, SqlFormsAreTheirCalls) {
  EXPECT_EQ(Canon("a in (1, 2, b)"), "a in (1, 2, b)");
  EXPECT_EQ(Canon("a + 1 not in (1)"), "not ((a + 1) in (1))");
  EXPECT_EQ(Canon("in_list(a, 1 + 2, b = c)"), "a in (1 + 2, b = c)");  // the call's own name too
  EXPECT_EQ(Canon("(a in (1)) in (true, b in (2))"), "(a in (1)) in (true, b in (2))");
  EXPECT_EQ(Canon("a between 1 and b + 1 and c"), "between(a, 1, b + 1) and c");
  EXPECT_EQ(Canon("a not between 1 and 2"), "not between(a, 1, 2)");
  EXPECT_EQ(Canon("s not like 'a%' or s ilike 'B'"), "(not like(s, 'a%')) or ilike(s, 'B')");
  EXPECT_EQ(Canon("a is null or b is not null"), "is_null(a) or is_not_null(b)");
  EXPECT_EQ(Canon("a = b is null"), "is_null(a = b)");
  EXPECT_EQ(Canon("a in (1) is not true"), "not coalesce(a in (1), false)");
  EXPECT_EQ(Canon("e is false"), "coalesce(not e, false)");
  EXPECT_EQ(Canon("a is distinct from b"), "coalesce(a != b, not (is_null(a) and is_null(b)))");
  EXPECT_EQ(Canon("a is not distinct from b + 1"),
            "not coalesce(a != (b + 1), not (is_null(a) and is_null(b + 1)))");
  EXPECT_EQ(Canon("case when a > 0 then 1 when a < 0 then -1 else 0 end"), "if(a > 0, 1, if(a < 0, -1, 0))");
  EXPECT_EQ(Canon("case a when 1 then 'one' end"), "if(a = 1, 'one', null)");
  EXPECT_EQ(Canon("case case when e then 1 end when 1 then 2 end + 1"), "if(if(e, 1, null) = 1, 2, null) + 1");
  EXPECT_EQ(Canon("nullif(a, 0)"), "if(a = 0, null, a)");
  // Keywords and function names in any case (column names keep theirs); SQL's cast(x as T).
  EXPECT_EQ(Canon("A > 1 AND B IS NOT NULL OR NOT C"), "((A > 1) and is_not_null(B)) or (not C)");
  EXPECT_EQ(Canon("CASE WHEN Case IN (1, 2) THEN TRUE ELSE NULL END"), "if(\"Case\" in (1, 2), true, null)");
  EXPECT_EQ(Canon("COALESCE(a, 0) NOT BETWEEN 1 AND 5"), "not between(coalesce(a, 0), 1, 5)");
  EXPECT_EQ(Canon("CAST(a AS i64) + Cast(b as decimal64(12, 2))"), "cast(a, i64) + cast(b, decimal64(12,2))");
  // SQL's type names (PostgreSQL's, DuckDB's) as rowjit's.
  EXPECT_EQ(Canon("cast(a as BIGINT) + cast(b as integer) + cast(c as SmallInt) + cast(d as tinyint)"),
            "((cast(a, i64) + cast(b, i32)) + cast(c, i16)) + cast(d, i8)");
  EXPECT_EQ(Canon("cast(a as double precision) + cast(b as real) + cast(c as float)"),
            "(cast(a, f64) + cast(b, f32)) + cast(c, f64)");
  EXPECT_EQ(Canon("cast(a as boolean) and cast(b as varchar) = cast(c as text)"),
            "cast(a, bool) and (cast(b, utf8) = cast(c, utf8))");
  EXPECT_EQ(Canon("cast(s as date) < cast(t as timestamp)"), "cast(s, date32) < cast(t, timestamp(us))");
  EXPECT_EQ(Canon("cast(t as timestamp with time zone)"), "cast(t, timestamp(us, UTC))");
  EXPECT_EQ(Canon("cast(t as timestamp without time zone)"), "cast(t, timestamp(us))");
  EXPECT_EQ(Canon("cast(t as timestamp(3))"), "cast(t, timestamp(ms))");
  EXPECT_EQ(Canon("cast(m as numeric(12, 2)) + cast(n as DECIMAL(5)) + cast(o as decimal)"),
            "(cast(m, decimal(12,2)) + cast(n, decimal(5,0))) + cast(o, decimal(18,3))");
  EXPECT_EQ(Canon("EXTRACT(YEAR FROM t) + -INF"), "date_part('YEAR', t) + -inf");
  // PostgreSQL's x::T: a cast binding tighter than every operator, unary minus and ** included.
  EXPECT_EQ(Canon("a::i64 + b::BIGINT * c::double precision"), "cast(a, i64) + (cast(b, i64) * cast(c, f64))");
  EXPECT_EQ(Canon("-a::i64"), "neg(cast(a, i64))");
  EXPECT_EQ(Canon("a::f64 ** 2 + 2 ** b::f64"), "power(cast(a, f64), 2) + power(2, cast(b, f64))");
  EXPECT_EQ(Canon("(a + 1)::u8::utf8"), "cast(cast(a + 1, u8), utf8)");
  EXPECT_EQ(Canon("'2024-02-29'::date < t::timestamp with time zone"), "cast('2024-02-29', date32) < cast(t, timestamp(us, UTC))");
  EXPECT_EQ(Canon("m::numeric(12, 2) + 1:i8::i64 + -7::i16"), "(cast(m, decimal(12,2)) + cast(1:i8, i64)) + cast(-7, i16)");
  EXPECT_EQ(Canon("s NOT ILIKE 'x%' AND x Is Distinct From y"),
            "(not ilike(s, 'x%')) and coalesce(x != y, not (is_null(x) and is_null(y)))");
  // Still column names where an operator, a comma, ')' or the end follows.
  EXPECT_EQ(Canon("case + 1"), "\"case\" + 1");
  EXPECT_EQ(Canon("f(case, end)"), "f(\"case\", \"end\")");
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

// SQL's quoted names: any text between double quotes is a column (a doubled quote is one), never
// a keyword or a function; the printer quotes a name only when it is not a plain identifier.
TEST(Parser, QuotedColumnNames) {
  EXPECT_EQ(Canon("\"unit price\" * qty"), "\"unit price\" * qty");
  EXPECT_EQ(Canon("\"qty\" + 1"), "qty + 1");
  EXPECT_EQ(Canon("\"say \"\"hi\"\"\" = 'x'"), "\"say \"\"hi\"\"\" = 'x'");
  EXPECT_EQ(Canon("\"case\" + \"and\""), "\"case\" + \"and\"");
  auto e = Parse("\"2nd col\" + \"a\"\"b\"");
  ASSERT_OK(e);
  EXPECT_EQ((*e)->args()[0]->name(), "2nd col");
  EXPECT_EQ((*e)->args()[1]->name(), "a\"b");
  const Schema schema = ParseSchema("a:i32").value();
  Schema spaced = schema;
  spaced.fields.push_back(Field{"unit price", DataType(TypeId::kF64, false)});
  auto bound = ParseAndBind("\"unit price\" * a", spaced);
  ASSERT_OK(bound);
  EXPECT_EQ((*bound)->ToString(), "\"unit price\" * cast(a, f64)");
  ExpectSyntaxError("\"unit price", "position 0: the quoted name is not closed");
  ExpectSyntaxError("a + \"\"", "position 4: an empty quoted name");
  ExpectSyntaxError("\"f\"(a)", "expected an operator or end of input, found '('");
}
TEST(ParserErrors, UnexpectedCharacter) { ExpectSyntaxError("a $ b", "position 2: unexpected character '$'"); }
TEST(ParserErrors, MissingOperand) { ExpectSyntaxError("a +", "position 3: expected an expression, found end of input"); }
TEST(ParserErrors, UnclosedParen) { ExpectSyntaxError("(a + b", "expected ')', found end of input"); }
TEST(ParserErrors, TrailingToken) { ExpectSyntaxError("a b", "position 2: expected an operator or end of input, found 'b'"); }
TEST(ParserErrors, BadArgumentList) { ExpectSyntaxError("f(a b)", "expected ',' or ')'"); }
TEST(ParserErrors, BadTypeSuffix) { ExpectSyntaxError("42:int", "unknown type 'int' (did you mean 'i32'?)"); }
TEST(ParserErrors, LogicalSuffix) {
  ExpectSyntaxError("'1 day':interval_month_day_nano", "expected a type name");
  ExpectSyntaxError("7:date32", "expected a type name");
}
TEST(ParserErrors, NullableSuffix) { ExpectSyntaxError("42:i32?", "unexpected character '?'"); }
TEST(ParserErrors, CastWithoutType) { ExpectSyntaxError("cast(a, 3)", "expected a type name"); }
TEST(ParserErrors, ChainedComparison) { ExpectSyntaxError("a < b < c", "comparisons do not chain"); }
TEST(ParserErrors, KeywordAsOperand) { ExpectSyntaxError("a + and", "expected an expression, found 'and'"); }
TEST(ParserErrors, Empty) { ExpectSyntaxError("", "expected an expression, found end of input"); }
TEST(ParserErrors, SqlForms) {
  ExpectSyntaxError("a in ()", "expected an expression, found ')'");
  // A type name's errors are a schema's (runtime/type_names.cc), their span in the expression.
  ExpectSyntaxError("cast(a as varchar(10))", "varchar takes no parameters (strings have no length limit)");
  ExpectSyntaxError("cast(a as timestamp(4))", "timestamp(4): the fractional digits are 0, 3, 6 or 9");
  ExpectSyntaxError("cast(a as bigint(3))", "bigint takes no parameters");
  // x::T
  ExpectSyntaxError("a::", "position 3: expected a type name, found end of input");
  ExpectSyntaxError("a::nosuch + 1", "unknown type 'nosuch'");
  ExpectSyntaxError("a:::i64", "expected a type name, found ':'");
  ExpectSyntaxError("a::3", "expected a type name, found number '3'");
  ExpectSyntaxError("a in 1", "expected '(' after 'in'");
  ExpectSyntaxError("a in (1, 2", "expected ',' or ')'");
  ExpectSyntaxError("a between 1 or 2", "expected 'and'");
  ExpectSyntaxError("a is maybe", "expected 'null', 'true', 'false' or 'distinct from' after 'is'");
  ExpectSyntaxError("a is distinct b", "expected 'from'");
  ExpectSyntaxError("case a end", "expected 'when'");
  ExpectSyntaxError("case when a then 1", "expected 'end'");
  ExpectSyntaxError("case when a 1 end", "expected 'then'");
}

}  // namespace
}  // namespace rowjit::ir
