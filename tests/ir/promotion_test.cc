// SQL's implicit numeric casts: the common type of every pair of numeric types and of untyped
// literals beside each, checked against a table written from the rules of docs/semantics.md
// (Binding), not from the code; the casts are nodes of the bound tree; strict binding refuses
// every mix (ir).
#include "ir/promotion.h"

#include <gtest/gtest.h>

#include "ir/binder.h"

namespace rowjit::ir {
namespace {

// The operand types of the table, in its order; "dec" is decimal64(10,2).
constexpr const char* kTypes[] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "dec"};
constexpr size_t kN = std::size(kTypes);

// The common type of the row's and the column's type ("-": a type error). Written from the
// rules: a float wins (f64 over f32); integers of one signedness: the wider; signed with
// unsigned: the signed type if it is wider, else the signed type twice the unsigned one's
// width, none for u64; an integer beside a decimal is decimal(digits, 0) (i8/u8 3 digits, i16/u16
// 5, i32/u32 10, i64 18; u64 none) and decimals meet in the largest integer part and scale, at
// most 18 digits in 64 bits; a decimal beside a float is that float.
constexpr const char* kCommon[kN][kN] = {
    //  i8     i16    i32    i64    u8     u16    u32    u64    f32    f64    dec
    {"i8", "i16", "i32", "i64", "i16", "i32", "i64", "-", "f32", "f64", "decimal64(10,2)"},      // i8
    {"i16", "i16", "i32", "i64", "i16", "i32", "i64", "-", "f32", "f64", "decimal64(10,2)"},     // i16
    {"i32", "i32", "i32", "i64", "i32", "i32", "i64", "-", "f32", "f64", "decimal64(12,2)"},     // i32
    {"i64", "i64", "i64", "i64", "i64", "i64", "i64", "-", "f32", "f64", "decimal64(18,2)"},     // i64
    {"i16", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64", "decimal64(10,2)"},    // u8
    {"i32", "i32", "i32", "i64", "u16", "u16", "u32", "u64", "f32", "f64", "decimal64(10,2)"},   // u16
    {"i64", "i64", "i64", "i64", "u32", "u32", "u32", "u64", "f32", "f64", "decimal64(12,2)"},   // u32
    {"-", "-", "-", "-", "u64", "u64", "u64", "u64", "f32", "f64", "-"},                         // u64
    {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64", "f32"},               // f32
    {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},               // f64
    {"decimal64(10,2)", "decimal64(10,2)", "decimal64(12,2)", "decimal64(18,2)", "decimal64(10,2)",  // dec
     "decimal64(10,2)", "decimal64(12,2)", "-", "f32", "f64", "decimal64(10,2)"},
};

// Untyped literals beside a column of each type: 1 fits every type; 1000 not i8 or u8 (the
// smallest wider type of the column's signedness: i16, u16); -1 no unsigned type (i8, then the
// pair's rule); 3000000000 not i8..i32 (i64) nor u8, u16 (u32); 1.5 is f64 beside an integer,
// the float's type beside a float, a decimal literal beside a decimal.
constexpr const char* kLiterals[] = {"1", "1000", "-1", "3000000000", "1.5"};
constexpr const char* kWithLiteral[kN][std::size(kLiterals)] = {
    //  1       1000    -1     3000000000  1.5
    {"i8", "i16", "i8", "i64", "f64"},                                                    // i8
    {"i16", "i16", "i16", "i64", "f64"},                                                  // i16
    {"i32", "i32", "i32", "i64", "f64"},                                                  // i32
    {"i64", "i64", "i64", "i64", "f64"},                                                  // i64
    {"u8", "u16", "i16", "u32", "f64"},                                                   // u8
    {"u16", "u16", "i32", "u32", "f64"},                                                  // u16
    {"u32", "u32", "i64", "u32", "f64"},                                                  // u32
    {"u64", "u64", "-", "u64", "f64"},                                                    // u64
    {"f32", "f32", "f32", "f32", "f32"},                                                  // f32
    {"f64", "f64", "f64", "f64", "f64"},                                                  // f64
    {"decimal64(10,2)", "decimal64(10,2)", "decimal64(10,2)", "decimal64(12,2)", "decimal64(10,2)"},  // dec
};

std::string Schema2(const char* x, const char* y) {
  auto name = [](const char* t) { return std::string(t) == "dec" ? std::string("decimal64(10,2)") : std::string(t); };
  return fmt::format("x:{}, y:{}", name(x), name(y));
}

// The type `text` binds to over `schema` ("-" for a type error), or the error when it is another.
std::string TypeOf(std::string_view text, std::string_view schema, BindOptions options = {}) {
  auto e = ParseAndBind(text, *ParseSchema(schema), options);
  if (e.ok()) return (*e)->type().WithNullable(false).ToString();
  return e.error().code() == ErrorCode::kTypeError ? "-" : e.error().ToString();
}

TEST(Promotion, EveryPairOfNumericTypes) {
  for (size_t i = 0; i < kN; ++i) {
    for (size_t j = 0; j < kN; ++j) {
      // coalesce's result is its arguments' common type, whatever the kind of number.
      EXPECT_EQ(TypeOf("coalesce(x, y)", Schema2(kTypes[i], kTypes[j])), kCommon[i][j])
          << kTypes[i] << " with " << kTypes[j];
    }
  }
}

TEST(Promotion, TheTableIsSymmetric) {
  for (size_t i = 0; i < kN; ++i) {
    for (size_t j = 0; j < kN; ++j) EXPECT_STREQ(kCommon[i][j], kCommon[j][i]) << i << " " << j;
  }
}

TEST(Promotion, UntypedLiteralsFitOrWiden) {
  for (size_t i = 0; i < kN; ++i) {
    for (size_t k = 0; k < std::size(kLiterals); ++k) {
      const std::string schema = Schema2(kTypes[i], "i8");
      EXPECT_EQ(TypeOf(fmt::format("coalesce(x, {})", kLiterals[k]), schema), kWithLiteral[i][k])
          << kTypes[i] << " with " << kLiterals[k];
      // The literal's side does not matter.
      EXPECT_EQ(TypeOf(fmt::format("coalesce({}, x)", kLiterals[k]), schema), kWithLiteral[i][k])
          << kLiterals[k] << " with " << kTypes[i];
    }
  }
}

// Every place operands share a type: arithmetic, comparisons, between, in lists, the branches of
// if, case, coalesce, greatest and least, and the arguments of functions.
TEST(Promotion, EveryPlaceOperandsMeet) {
  const std::string schema = "a:i32, b:f64, c:u8, f:i64, g:i8, e:bool, x:f32, u:u32";
  auto bound = [&](std::string_view text) {
    auto e = ParseAndBind(text, *ParseSchema(schema));
    return e.ok() ? (*e)->ToString() + " : " + (*e)->type().ToString() : "error: " + e.error().ToString();
  };
  EXPECT_EQ(bound("a + b"), "cast(a, f64) + b : f64");
  EXPECT_EQ(bound("a * f - c"), "(cast(a, i64) * f) - cast(c, i64) : i64");
  EXPECT_EQ(bound("a + u"), "cast(a, i64) + cast(u, i64) : i64");
  EXPECT_EQ(bound("g + 1000"), "cast(g, i16) + 1000:i16 : i16");
  EXPECT_EQ(bound("c < 300"), "cast(c, u16) < 300:u16 : bool");  // always true, never an error
  EXPECT_EQ(bound("c + -1"), "cast(c, i16) + -1:i16 : i16");
  EXPECT_EQ(bound("a < b"), "cast(a, f64) < b : bool");
  EXPECT_EQ(bound("x = 0.5"), "x = 0.5:f32 : bool");  // a float literal takes the float's type
  EXPECT_EQ(bound("x + 1e300"), "cast(x, f64) + 1e+300:f64 : f64");  // ... unless f32 would make it inf
  EXPECT_EQ(bound("c between 0 and 300"), "between(cast(c, u16), 0:u16, 300:u16) : bool");
  EXPECT_EQ(bound("c in (1, 300)"), "cast(c, u16) in (1:u16, 300:u16) : bool");
  EXPECT_EQ(bound("a in (1, 2.5)"), "cast(a, f64) in (1.0:f64, 2.5:f64) : bool");
  EXPECT_EQ(bound("if(e, a, b)"), "if(e, cast(a, f64), b) : f64");
  EXPECT_EQ(bound("case when e then c else g end"), "if(e, cast(c, i16), cast(g, i16)) : i16");
  EXPECT_EQ(bound("coalesce(g, c, a)"), "coalesce(cast(g, i32), cast(c, i32), a) : i32");
  EXPECT_EQ(bound("greatest(c, x)"), "greatest(cast(c, f32), x) : f32");
  EXPECT_EQ(bound("least(f, 2.5)"), "least(cast(f, f64), 2.5:f64) : f64");
  EXPECT_EQ(bound("min(a, f)"), "min(cast(a, i64), f) : i64");
  EXPECT_EQ(bound("bit_and(c, g)"), "bit_and(cast(c, i16), cast(g, i16)) : i16");
  // Untyped branches widen too, and then meet the other operand.
  EXPECT_EQ(bound("c + if(e, 1, 300)"), "cast(c, u16) + if(e, 1:u16, 300:u16) : u16");
  EXPECT_EQ(bound("1 + 3000000000"), "3000000001:i64 : i64");
  // Float-only functions take integers as f64; float functions of f32 stay f32.
  EXPECT_EQ(bound("sqrt(a)"), "sqrt(cast(a, f64)) : f64");
  EXPECT_EQ(bound("power(a, 2)"), "power(cast(a, f64), 2.0:f64) : f64");
  EXPECT_EQ(bound("power(x, 2)"), "power(x, 2.0:f32) : f32");
  EXPECT_EQ(bound("sqrt(4)"), "2.0:f64 : f64");
  // Calls of literals still fold after their casts.
  EXPECT_EQ(bound("1 + 2.5"), "3.5:f64 : f64");
}

TEST(Promotion, DecimalsBesideFloatsAndIntegers) {
  const std::string schema = "m:decimal64(10,2), a:i32, b:f64, u:u64";
  EXPECT_EQ(TypeOf("m + a", schema), "decimal64(13,2)");  // (10,0) and (10,2): 10 integer digits, a carry
  EXPECT_EQ(TypeOf("m < a", schema), "bool");
  EXPECT_EQ(TypeOf("m * b", schema), "f64");
  EXPECT_EQ(TypeOf("sqrt(m)", schema), "f64");  // a float-only function takes a decimal as f64
  EXPECT_EQ(TypeOf("m + u", schema), "-");
}

TEST(Promotion, NoIntegerHoldsU64AndASignedType) {
  auto e = ParseAndBind("u + a", *ParseSchema("u:u64, a:i32"));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code(), ErrorCode::kTypeError);
  EXPECT_EQ(e.error().message(),
            "add of u64 and i32: no integer type holds both; cast one side (cast(x, i64) fails on values past "
            "9223372036854775807, cast(x, f64) rounds past 2^53)");
  EXPECT_EQ(TypeOf("cast(u, i64) + a", "u:u64, a:i32"), "i64");
  EXPECT_EQ(TypeOf("u + 1.5", "u:u64, a:i32"), "f64");
}

TEST(Promotion, FunctionsThatDoNotTakeTheCommonTypeKeepTheirError) {
  // An integer-only function is not given a float: its type rule names the arguments as written.
  auto e = ParseAndBind("bit_and(a, b)", *ParseSchema("a:i32, b:f64"));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message().find("bit_and(i32, f64): expects integer"), std::string::npos) << e.error().message();
  auto s = ParseAndBind("concat(a, f)", *ParseSchema("a:i32, f:i64"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("concat(i32, i64)"), std::string::npos) << s.error().message();
  EXPECT_EQ(TypeOf("e + 1", "e:bool"), "-");  // bool is no number
}

TEST(Promotion, StrictBindingRefusesEveryMix) {
  const BindOptions strict{.implicit_casts = false};
  for (size_t i = 0; i < kN - 1; ++i) {  // the decimal's rules hold in both modes
    for (size_t j = 0; j < kN - 1; ++j) {
      const std::string got = TypeOf("x + y", Schema2(kTypes[i], kTypes[j]), strict);
      EXPECT_EQ(got, i == j ? kTypes[i] : "-") << kTypes[i] << " + " << kTypes[j];
    }
  }
  EXPECT_EQ(TypeOf("x + 300", "x:u8", strict), "-");
  EXPECT_EQ(TypeOf("x + 1.5", "x:i32", strict), "-");
  EXPECT_EQ(TypeOf("sqrt(x)", "x:i32", strict), "-");
  EXPECT_EQ(TypeOf("x + 200", "x:u8", strict), "u8");
  auto e = ParseAndBind("x + y", *ParseSchema("x:i32, y:i64"), strict);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message().find("add(i32, i64): arguments must have the same type"), std::string::npos);
}

TEST(Promotion, CommonTypeIgnoresOrder) {
  const TypeId all[] = {TypeId::kU8, TypeId::kI8, TypeId::kI64};
  const TypeId reversed[] = {TypeId::kI64, TypeId::kI8, TypeId::kU8};
  EXPECT_EQ(*CommonNumericType(all, "f"), TypeId::kI64);
  EXPECT_EQ(*CommonNumericType(reversed, "f"), TypeId::kI64);
  const TypeId with_float[] = {TypeId::kI8, TypeId::kU64, TypeId::kF64};
  EXPECT_EQ(*CommonNumericType(with_float, "f"), TypeId::kF64);  // u64 and i8 meet in the float
  const TypeId mixed[] = {TypeId::kU16, TypeId::kI8, TypeId::kU8};
  EXPECT_EQ(*CommonNumericType(mixed, "f"), TypeId::kI32);
}

TEST(Promotion, LiteralTypes) {
  EXPECT_EQ(LiteralIntegerType("200", TypeId::kU8), TypeId::kU8);
  EXPECT_EQ(LiteralIntegerType("256", TypeId::kU8), TypeId::kU16);
  EXPECT_EQ(LiteralIntegerType("70000", TypeId::kU8), TypeId::kU32);
  EXPECT_EQ(LiteralIntegerType("-129", TypeId::kU8), TypeId::kI16);
  EXPECT_EQ(LiteralIntegerType("128", TypeId::kI8), TypeId::kI16);
  EXPECT_EQ(LiteralIntegerType("9223372036854775808", TypeId::kI8), TypeId::kU64);
  EXPECT_EQ(LiteralIntegerType("9223372036854775808", TypeId::kU16), TypeId::kU64);
}

}  // namespace
}  // namespace rowjit::ir
