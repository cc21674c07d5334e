// Reference evaluator over every encoding: the same rows as flat, dictionary, byte-bool,
// constant and sliced arrays give the same result; errors name the function and first row (ir).
#include "ir/reference.h"

#include <gtest/gtest.h>

#include "ir/binder.h"
#include "ir/spec_key.h"
#include "runtime/builder.h"
#include "support/random_data.h"

namespace rowjit::ir {
namespace {

using testing::ArraySpec;

TEST(Reference, EveryEncodingGivesTheSameResult) {
  const Schema schema = *ParseSchema("a:i32?, b:i32, c:u8?, d:f64?, e:bool?, f:i64");
  int compared = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 200}[seed % 6];
    std::vector<ArrayPtr> flat, encoded;
    for (const Field& f : schema.fields) {
      ArraySpec spec{f.type, length, 0.7, static_cast<int64_t>(rng() % 64)};
      ArrayPtr a = testing::RandomFlatArray(spec, rng);
      ASSERT_NE(a, nullptr);
      flat.push_back(a);
      encoded.push_back(f.type.id == TypeId::kBool ? testing::AsByteBool(a)
                                                   : testing::AsDictionary(a, rng));
    }
    const TypeId want = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    const std::string text = testing::RandomExpression(want, schema, 3, rng);
    auto bound = ParseAndBind(text, schema);
    ASSERT_TRUE(bound.ok()) << "seed " << seed << " " << text << ": " << bound.error().ToString();
    auto x = EvaluateReference(**bound, flat, length);
    auto y = EvaluateReference(**bound, encoded, length);
    ASSERT_EQ(x.ok(), y.ok()) << "seed " << seed << " " << text;
    if (x.ok()) {
      EXPECT_TRUE(ArraysEqual(**x, **y)) << "seed " << seed << " " << text;
      EXPECT_EQ((*x)->length(), length);
      ++compared;
    } else {
      EXPECT_EQ(x.error(), y.error()) << "seed " << seed << " " << text;
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(Reference, ConstantInputsAndFirstFailingRow) {
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto a = *ArrayFromText(DataType(TypeId::kI32, true), "[1, null, 3, 4, 5]");
  auto b = *ConstantArray::Make(Scalar::Of<int32_t>(0), 5);
  // Division by zero: row 1 is null in a, so the first failing row is 0.
  auto e = *ParseAndBind("a / b", schema);
  std::vector<ArrayPtr> cols = {a, b};
  auto r = EvaluateReference(*e, cols, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kDivisionByZero);
  EXPECT_EQ(r.error().function(), "div");
  EXPECT_EQ(r.error().row(), 0);
  EXPECT_EQ(r.error().ToString(), "division by zero: div at row 0: division by zero");

  // An error only behind a null never surfaces.
  auto a2 = *ArrayFromText(DataType(TypeId::kI32, true), "[null, 2147483647, null]");
  auto b2 = *ArrayFromText(DataType(TypeId::kI32), "[2147483647, 0, 5]");
  std::vector<ArrayPtr> cols2 = {a2, b2};
  auto ok = EvaluateReference(**ParseAndBind("a + b", schema), cols2, 3);
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ((*ok)->ToString(), "[null, 2147483647, null]");
  auto bad = EvaluateReference(**ParseAndBind("b + 1", schema), cols2, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().row(), 0);
  EXPECT_EQ(bad.error().function(), "add");

  // A null constant makes a strict result all null.
  auto n = *ConstantArray::Make(Scalar::Null(TypeId::kI32), 3);
  std::vector<ArrayPtr> cols3 = {n, b2};
  EXPECT_EQ((*EvaluateReference(**ParseAndBind("a * b", schema), cols3, 3))->ToString(),
            "[null, null, null]");
}

TEST(Reference, FailedFoldRaisesOnlyOnNonEmptyBatches) {
  const Schema schema = *ParseSchema("b:i32");
  auto e = *ParseAndBind("b + 1 / 0", schema);
  std::vector<ArrayPtr> empty = {*ArrayFromText(DataType(TypeId::kI32), "[]")};
  EXPECT_TRUE(EvaluateReference(*e, empty, 0).ok());
  std::vector<ArrayPtr> one = {*ArrayFromText(DataType(TypeId::kI32), "[7]")};
  auto r = EvaluateReference(*e, one, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kDivisionByZero);
}

TEST(Reference, InputChecks) {
  const Schema schema = *ParseSchema("a:i32, b:i32");
  auto e = *ParseAndBind("a + b", schema);
  auto a = *ArrayFromText(DataType(TypeId::kI32), "[1, 2]");
  auto a_nullable = *ArrayFromText(DataType(TypeId::kI32, true), "[1, null]");
  auto f = *ArrayFromText(DataType(TypeId::kF64), "[1, 2]");
  auto shorter = *ArrayFromText(DataType(TypeId::kI32), "[1]");
  auto check = [&](std::vector<ArrayPtr> cols, ErrorCode code, std::string_view fragment) {
    auto r = EvaluateReference(*e, cols, 2);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), code);
    EXPECT_NE(r.error().message().find(fragment), std::string::npos) << r.error().message();
  };
  check({a}, ErrorCode::kInvalidInput, "column 'b' (index 1) is missing");
  check({a, f}, ErrorCode::kTypeError, "column 'b' is f64");
  check({a, shorter}, ErrorCode::kInvalidInput, "column 'b' has 1 rows, the batch 2");
  check({a, a_nullable}, ErrorCode::kInvalidInput, "has nulls but was bound as non-nullable");
  auto codes = std::static_pointer_cast<const PrimitiveArray>(
      *ArrayFromText(DataType(TypeId::kU8), "[0, 9]"));
  auto dict = *DictionaryArray::Make(codes, a);
  check({a, dict}, ErrorCode::kInvalidInput, "outside a dictionary");
}

TEST(SpecializationKey, ShapesHashAndEquality) {
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto e1 = *ParseAndBind("a * b + 1", schema);
  auto e2 = *ParseAndBind("(a * b) + 1:i32", schema);
  auto e3 = *ParseAndBind("a * b + 2", schema);
  auto flat = *ArrayFromText(DataType(TypeId::kI32, true), "[1, null]");
  auto valid = *ArrayFromText(DataType(TypeId::kI32, true), "[1, 2]");
  auto constant = *ConstantArray::Make(Scalar::Of<int32_t>(3), 2);
  auto null_constant = *ConstantArray::Make(Scalar::Null(TypeId::kI32), 2);
  EXPECT_EQ(DescribeInput(*flat).has_nulls, true);
  EXPECT_EQ(DescribeInput(*valid).has_nulls, false);
  EXPECT_EQ(DescribeInput(*constant).shape, InputShape::kConstant);
  EXPECT_EQ(DescribeInput(*null_constant).shape, InputShape::kNullConstant);

  SpecializationKey k1{e1, {DescribeInput(*flat), DescribeInput(*valid)}, Policy::kAuto, "native"};
  SpecializationKey k2{e2, {DescribeInput(*flat), DescribeInput(*valid)}, Policy::kAuto, "native"};
  EXPECT_TRUE(k1 == k2);
  EXPECT_EQ(k1.hash(), k2.hash());
  auto differs = [&](SpecializationKey k) {
    EXPECT_FALSE(k == k1) << k.ToString();
    EXPECT_NE(k.hash(), k1.hash()) << k.ToString();
  };
  differs({e3, k1.inputs, Policy::kAuto, "native"});
  differs({e1, {DescribeInput(*valid), DescribeInput(*valid)}, Policy::kAuto, "native"});
  differs({e1, {DescribeInput(*flat), DescribeInput(*constant)}, Policy::kAuto, "native"});
  differs({e1, k1.inputs, Policy::kDense, "native"});
  differs({e1, k1.inputs, Policy::kAuto, "x86-64-v3"});
  EXPECT_EQ(k1.ToString(), "(a * b) + 1:i32 [flat i32?, flat i32] policy=auto target=native");
  EXPECT_EQ(*ParsePolicy("filter-scatter"), Policy::kFilterScatter);
  EXPECT_FALSE(ParsePolicy("fast").ok());
}

}  // namespace
}  // namespace rowjit::ir
