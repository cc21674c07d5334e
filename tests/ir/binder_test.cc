// Binding: types, nullability, literal typing, folding; one must-fail test per type-error
// class (ir).
#include "ir/binder.h"

#include <gtest/gtest.h>

#include "ir/function.h"

namespace rowjit::ir {
namespace {

const Schema& S() {
  static const Schema s = *ParseSchema("a:i32?, b:i32, c:u8, d:f64?, e:bool?, f:i64, x:f32, s:utf8, u:u64");
  return s;
}

std::string BoundText(std::string_view text) {
  auto e = ParseAndBind(text, S());
  EXPECT_TRUE(e.ok()) << text << ": " << e.error().ToString();
  return e.ok() ? (*e)->ToString() + " : " + (*e)->type().ToString() : "";
}

TEST(Binder, TypesAndNullability) {
  EXPECT_EQ(BoundText("a * b + 1"), "(a * b) + 1:i32 : i32?");
  EXPECT_EQ(BoundText("b * 2 < 7"), "(b * 2:i32) < 7:i32 : bool");
  EXPECT_EQ(BoundText("c + 200"), "c + 200:u8 : u8");
  EXPECT_EQ(BoundText("d + 1"), "d + 1.0:f64 : f64?");
  EXPECT_EQ(BoundText("is_null(a)"), "is_null(a) : bool");
  EXPECT_EQ(BoundText("coalesce(a, 0)"), "coalesce(a, 0:i32) : i32");
  EXPECT_EQ(BoundText("coalesce(a, a)"), "coalesce(a, a) : i32?");
  EXPECT_EQ(BoundText("if(e, b, 0)"), "if(e, b, 0:i32) : i32");
  EXPECT_EQ(BoundText("e and true"), "e and true : bool?");
  EXPECT_EQ(BoundText("cast(c, i64) + f"), "cast(c, i64) + f : i64");
  EXPECT_EQ(BoundText("c + (1 + 2)"), "c + 3:u8 : u8");  // the inner literals take c's type
  EXPECT_EQ(BoundText("between(b, 0, 10)"), "between(b, 0:i32, 10:i32) : bool");
  // An if of untyped branches takes the type its caller expects, whatever its condition: CASE's
  // arms without an else (if(..., null)) beside a typed one.
  EXPECT_EQ(BoundText("c + if(e, 1, 2)"), "c + if(e, 1:u8, 2:u8) : u8?");
  EXPECT_EQ(BoundText("case when e then f when b > 0 then 1 end"),
            "if(e, f, if(b > 0:i32, 1:i64, null:i64)) : i64?");
  EXPECT_EQ(BoundText("coalesce(f, if(e, null, 7))"), "coalesce(f, if(e, null:i64, 7:i64)) : i64");
}

// Whether a call can fail depends on its argument types, not only on its function.
TEST(Binder, CanFailByType) {
  auto root = [](std::string_view text) {
    auto e = ParseAndBind(text, S());
    EXPECT_TRUE(e.ok()) << text;
    return e.ok() ? (*e)->CanFail() : false;
  };
  EXPECT_TRUE(root("a * b"));
  EXPECT_TRUE(root("a / b"));
  EXPECT_TRUE(root("neg(c)"));
  EXPECT_FALSE(root("abs(c)"));  // unsigned abs is the identity
  EXPECT_TRUE(root("abs(a)"));
  EXPECT_FALSE(root("d * 2.0"));  // float arithmetic gives inf and NaN, never an error
  EXPECT_FALSE(root("d / 0.0"));
  EXPECT_FALSE(root("cast(c, i64)"));
  EXPECT_FALSE(root("cast(c, i16)"));
  EXPECT_TRUE(root("cast(c, i8)"));
  EXPECT_TRUE(root("cast(a, u64)"));
  EXPECT_TRUE(root("cast(f, i32)"));
  EXPECT_FALSE(root("cast(f, f64)"));
  EXPECT_TRUE(root("cast(d, i64)"));
  EXPECT_TRUE(root("cast(d, f32)"));
  EXPECT_FALSE(root("cast(x, f64)"));
  EXPECT_FALSE(root("wrapping_mul(a, b)"));
  // A float expression over nullable columns is nullable only through its columns.
  EXPECT_EQ(BoundText("d * d"), "d * d : f64?");
  EXPECT_EQ(BoundText("coalesce(d * 2.0, 0.0)"), "coalesce(d * 2.0:f64, 0.0:f64) : f64");
}

TEST(Binder, FoldingEqualsEvaluation) {
  EXPECT_EQ(BoundText("1 + 2 * 3"), "7:i32 : i32");
  EXPECT_EQ(BoundText("b + (2 * 3)"), "b + 6:i32 : i32");
  EXPECT_EQ(BoundText("cast(300, u8)").substr(0, 14), "cast(300:i32, ");  // fails: kept
  EXPECT_EQ(BoundText("saturating_cast(300, u8)"), "255:u8 : u8");
  EXPECT_EQ(BoundText("null:i32 + 1"), "null:i32 : i32?");
  EXPECT_EQ(BoundText("is_null(null:i32)"), "true : bool");
  EXPECT_EQ(BoundText("1 / 0"), "1:i32 / 0:i32 : i32");  // fails at run time, not bind time
  EXPECT_EQ(BoundText("2147483647 + 1"), "2147483647:i32 + 1:i32 : i32");
}

void ExpectBindError(std::string_view text, ErrorCode code, std::string_view fragment, BindOptions options = {}) {
  auto e = ParseAndBind(text, S(), options);
  ASSERT_FALSE(e.ok()) << text;
  EXPECT_EQ(e.error().code(), code) << e.error().ToString();
  EXPECT_NE(e.error().message().find(fragment), std::string::npos)
      << text << " -> " << e.error().message();
}

TEST(BinderErrors, UnknownColumn) { ExpectBindError("zz + 1", ErrorCode::kInvalidInput, "unknown column 'zz'"); }
TEST(BinderErrors, UnknownFunction) { ExpectBindError("frob(a)", ErrorCode::kInvalidInput, "unknown function 'frob'"); }
TEST(BinderErrors, Arity) { ExpectBindError("abs(a, b)", ErrorCode::kInvalidInput, "abs takes 1 argument, got 2"); }
// Strict binding (no implicit casts) refuses what SQL's implicit casts would take
// (tests/ir/promotion_test.cc).
constexpr BindOptions kStrict{.implicit_casts = false};
TEST(BinderErrors, MixedWidths) { ExpectBindError("a + f", ErrorCode::kTypeError, "add(i32, i64): arguments must have the same type", kStrict); }
TEST(BinderErrors, LiteralDoesNotFit) { ExpectBindError("c + 300", ErrorCode::kTypeError, "literal 300 does not fit u8 (the other arguments of add are u8)", kStrict); }
TEST(BinderErrors, FloatLiteralForInteger) { ExpectBindError("b + 1.5", ErrorCode::kTypeError, "literal 1.5 is not i32", kStrict); }
TEST(BinderErrors, LiteralFitsNoType) { ExpectBindError("b + 99999999999999999999", ErrorCode::kTypeError, "literal 99999999999999999999 does not fit u64"); }
TEST(BinderErrors, NoIntegerHoldsBoth) { ExpectBindError("u + f", ErrorCode::kTypeError, "add of u64 and i64: no integer type holds both"); }
TEST(BinderErrors, SuffixDoesNotFit) { ExpectBindError("-1:u8", ErrorCode::kTypeError, "literal -1 does not fit u8"); }
TEST(BinderErrors, BoolArithmetic) { ExpectBindError("e + e", ErrorCode::kTypeError, "add(bool, bool): expects numeric arguments"); }
TEST(BinderErrors, NonBoolLogic) { ExpectBindError("a and b", ErrorCode::kTypeError, "and(i32, i32): expects bool arguments"); }
TEST(BinderErrors, FloatOnly) { ExpectBindError("sqrt(b)", ErrorCode::kTypeError, "sqrt(i32): expects f32 or f64", kStrict); }
TEST(BinderErrors, FloatOnlyOfAString) { ExpectBindError("sqrt(s)", ErrorCode::kTypeError, "sqrt(utf8): expects f32 or f64"); }
TEST(BinderErrors, IntegerOnly) { ExpectBindError("bit_and(d, d)", ErrorCode::kTypeError, "bit_and(f64, f64): expects integer"); }
TEST(BinderErrors, IfCondition) { ExpectBindError("if(b, a, a)", ErrorCode::kTypeError, "the condition must be bool"); }
TEST(BinderErrors, WrappingCastFromFloat) { ExpectBindError("wrapping_cast(d, i32)", ErrorCode::kTypeError, "wrapping is defined for integers"); }
TEST(BinderErrors, UntypedNull) { ExpectBindError("is_null(null)", ErrorCode::kTypeError, "untyped null"); }
TEST(BinderErrors, CompareMismatch) { ExpectBindError("a < d", ErrorCode::kTypeError, "lt(i32, f64)", kStrict); }
TEST(BinderErrors, CompareWithAString) { ExpectBindError("a < s", ErrorCode::kTypeError, "lt(i32, utf8): arguments must have the same type"); }

TEST(Catalog, EveryFunctionHasSemanticsAndTypeRule) {
  EXPECT_GE(AllFunctions().size(), 40u);
  for (const Function* f : AllFunctions()) {
    EXPECT_NE(f->eval, nullptr) << f->name;
    EXPECT_NE(f->type_rule, nullptr) << f->name;
    EXPECT_EQ(FindFunction(f->name), f) << f->name;
  }
  // The alias finds the canonical function (and not two nullptrs that compare equal).
  const Function* mul = FindFunction("mul");
  ASSERT_NE(mul, nullptr);
  EXPECT_EQ(mul->name, "mul");
  EXPECT_EQ(FindFunction("checked_mul"), mul);
  EXPECT_EQ(FindFunction("no_such_function"), nullptr);
}

}  // namespace
}  // namespace rowjit::ir
