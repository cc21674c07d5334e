// Reference evaluator over every encoding: the same rows as flat, dictionary, byte-bool,
// constant and sliced arrays give the same result; errors name the function and first row (ir).
#include "ir/reference.h"

#include <gtest/gtest.h>

#include "ir/binder.h"
#include "ir/spec_key.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"
#include "support/random_data.h"

namespace rowjit::ir {
namespace {

using testing::ArraySpec;

TEST(Reference, EveryEncodingGivesTheSameResult) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("a:i32?, b:i32, c:u8?, d:f64?, e:bool?, f:i64"));
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
      // The re-encodings return their input when they cannot apply: make sure they did.
      ASSERT_EQ(encoded.back()->encoding(),
                f.type.id == TypeId::kBool ? Encoding::kByteBool : Encoding::kDictionary)
          << f.name << " seed " << seed;
      ASSERT_TRUE(ArraysEqual(*flat.back(), *encoded.back())) << f.name << " seed " << seed;
    }
    // One column a batch constant (null one time in three when the column is nullable), against
    // a flat array of the same rows.
    {
      const size_t j = seed % schema.fields.size();
      const DataType t = schema.fields[j].type;
      const Scalar v = t.nullable && rng() % 3 == 0 ? Scalar::Null(t.id) : testing::RandomValue(t.id, rng);
      ASSERT_OK_AND_ASSIGN(flat[j], MakeArray(t, std::vector<Scalar>(static_cast<size_t>(length), v)));
      ASSERT_OK_AND_ASSIGN(encoded[j], ConstantArray::Make(v, length, t.nullable));
      ASSERT_EQ(encoded[j]->encoding(), Encoding::kConstant);
      ASSERT_TRUE(ArraysEqual(*flat[j], *encoded[j])) << schema.fields[j].name << " seed " << seed;
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
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("a:i32?, b:i32"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, ArrayFromText(DataType(TypeId::kI32, true), "[1, null, 3, 4, 5]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr b, ConstantArray::Make(Scalar::Of<int32_t>(0), 5));
  // Division by zero: row 1 is null in a, so the first failing row is 0.
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseAndBind("a / b", schema));
  std::vector<ArrayPtr> cols = {a, b};
  auto r = EvaluateReference(*e, cols, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kDivisionByZero);
  EXPECT_EQ(r.error().function(), "div");
  EXPECT_EQ(r.error().row(), 0);
  EXPECT_EQ(r.error().ToString(), "division by zero: div at row 0: division by zero");

  // An error only behind a null never surfaces.
  ASSERT_OK_AND_ASSIGN(ArrayPtr a2, ArrayFromText(DataType(TypeId::kI32, true), "[null, 2147483647, null]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr b2, ArrayFromText(DataType(TypeId::kI32), "[2147483647, 0, 5]"));
  std::vector<ArrayPtr> cols2 = {a2, b2};
  ASSERT_OK_AND_ASSIGN(ExprPtr sum, ParseAndBind("a + b", schema));
  auto ok = EvaluateReference(*sum, cols2, 3);
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ((*ok)->ToString(), "[null, 2147483647, null]");
  ASSERT_OK_AND_ASSIGN(ExprPtr plus_one, ParseAndBind("b + 1", schema));
  auto bad = EvaluateReference(*plus_one, cols2, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kOverflow);
  EXPECT_EQ(bad.error().row(), 0);
  EXPECT_EQ(bad.error().function(), "add");

  // A null constant makes a strict result all null, even where the other side would overflow.
  ASSERT_OK_AND_ASSIGN(ArrayPtr n, ConstantArray::Make(Scalar::Null(TypeId::kI32), 3));
  std::vector<ArrayPtr> cols3 = {n, b2};
  ASSERT_OK_AND_ASSIGN(ExprPtr product, ParseAndBind("a * b", schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr nulls, EvaluateReference(*product, cols3, 3));
  EXPECT_EQ(nulls->ToString(), "[null, null, null]");
}

TEST(Reference, FailedFoldRaisesOnlyOnNonEmptyBatches) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("b:i32"));
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseAndBind("b + 1 / 0", schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr empty_col, ArrayFromText(DataType(TypeId::kI32), "[]"));
  std::vector<ArrayPtr> empty = {empty_col};
  ASSERT_OK_AND_ASSIGN(ArrayPtr none, EvaluateReference(*e, empty, 0));
  EXPECT_EQ(none->length(), 0);
  ASSERT_OK_AND_ASSIGN(ArrayPtr one_col, ArrayFromText(DataType(TypeId::kI32), "[7]"));
  std::vector<ArrayPtr> one = {one_col};
  auto r = EvaluateReference(*e, one, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kDivisionByZero);
  EXPECT_EQ(r.error().row(), 0);
}

TEST(Reference, InputChecks) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("a:i32, b:i32"));
  ASSERT_OK_AND_ASSIGN(ExprPtr e, ParseAndBind("a + b", schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, ArrayFromText(DataType(TypeId::kI32), "[1, 2]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a_nullable, ArrayFromText(DataType(TypeId::kI32, true), "[1, null]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr f, ArrayFromText(DataType(TypeId::kF64), "[1, 2]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr shorter, ArrayFromText(DataType(TypeId::kI32), "[1]"));
  auto check = [&](std::vector<ArrayPtr> cols, ErrorCode code, std::string_view fragment) {
    auto r = EvaluateReference(*e, cols, 2);
    ASSERT_FALSE(r.ok()) << fragment;
    EXPECT_EQ(r.error().code(), code) << r.error().ToString();
    EXPECT_NE(r.error().message().find(fragment), std::string::npos) << r.error().message();
  };
  check({a}, ErrorCode::kInvalidInput, "column 'b' (index 1) is missing");
  check({a, f}, ErrorCode::kTypeError, "column 'b' is f64");
  check({a, shorter}, ErrorCode::kInvalidInput, "column 'b' has 1 rows, the batch 2");
  check({a, a_nullable}, ErrorCode::kInvalidInput, "has nulls but was bound as non-nullable");
  ASSERT_OK_AND_ASSIGN(ArrayPtr code_array, ArrayFromText(DataType(TypeId::kU8), "[0, 9]"));
  auto codes = std::static_pointer_cast<const PrimitiveArray>(code_array);
  ASSERT_OK_AND_ASSIGN(ArrayPtr dict, DictionaryArray::Make(codes, a));
  check({a, dict}, ErrorCode::kInvalidInput, "outside a dictionary");
}

TEST(SpecializationKey, ShapesHashAndEquality) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("a:i32?, b:i32"));
  ASSERT_OK_AND_ASSIGN(ExprPtr e1, ParseAndBind("a * b + 1", schema));
  ASSERT_OK_AND_ASSIGN(ExprPtr e2, ParseAndBind("(a * b) + 1:i32", schema));
  ASSERT_OK_AND_ASSIGN(ExprPtr e3, ParseAndBind("a * b + 2", schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr flat, ArrayFromText(DataType(TypeId::kI32, true), "[1, null]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr valid, ArrayFromText(DataType(TypeId::kI32, true), "[1, 2]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr constant, ConstantArray::Make(Scalar::Of<int32_t>(3), 2));
  ASSERT_OK_AND_ASSIGN(ArrayPtr null_constant, ConstantArray::Make(Scalar::Null(TypeId::kI32), 2));
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
  ASSERT_OK_AND_ASSIGN(Policy policy, ParsePolicy("filter-scatter"));
  EXPECT_EQ(policy, Policy::kFilterScatter);
  auto bad_policy = ParsePolicy("fast");
  ASSERT_FALSE(bad_policy.ok());
  EXPECT_EQ(bad_policy.error().code(), ErrorCode::kInvalidInput);
}

}  // namespace
}  // namespace rowjit::ir
