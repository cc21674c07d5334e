// Struct columns through the JIT against the reference: fields (s.x, s.a.b) of every kind — numbers,
// strings, vectors, structs — in expressions, filters, projections, folds and top-k, with null
// structs, null fields and slices; the types and refusals of the binder; Arrow import and export
// of struct columns (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "ir/top_k.h"
#include "jit/api/engine.h"
#include "runtime/arrow_c.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/refusals.h"

namespace rowjit::jit {
namespace {

constexpr const char* kSchema =
    "s:struct<x:i32?, y:f64, name:utf8?, v:fixed_size_list<f32, 8>, inner:struct<z:i64?, w:i16>?>?, a:i32?";

TEST(Structs, FieldsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  const char* texts[] = {
      "s.x + a",
      "s.x * 1000000",            // overflows in rows where the struct and the field are not null
      "s.y * 2.5 - s.inner.w",
      "s.inner.z + s.x",
      "if(s.x > 0, s.inner.z, -1)",
      "coalesce(s.x, a, 0)",
      "s.name like 'a%' or s.x < 3",
      "lower(s.name) = 'ab'",
      "l2_distance(s.v, [1, 2, 3, 4, 5, 6, 7, 8]) < 500 and s.inner.w > 0",
      "struct_extract(s, 'x') = s.x",
      "s",        // a struct as the value: the column, its field, one built of its fields
      "s.inner",
      "struct_pack(x2 := s.x * 2, s.name, s.inner)",
  };
  for (uint64_t seed = 0; seed < 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{1000, 65, 1, 0}[seed % 4];
    const int64_t offset = seed % 3 == 0 ? 5 : 0;
    ASSERT_OK_AND_ASSIGN(const RecordBatch batch, RandomBatch(schema, length, 0.8, seed, {}, offset));
    for (const char* text : texts) {
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_NE(test::CompareWithReference(*engine, e, batch.columns, length, rng), test::Compared::kMismatch);
    }
    // Several fields in one projection, a filter on a field, folds and a top-k over fields.
    const char* outputs[] = {"s.x", "s.inner.z * 2", "a + 1"};
    const char* folds[] = {"sum(s.inner.z)", "max(s.y)", "count(s.name)"};
    test::ExpectShapesEqualReference(*engine, schema, batch.columns, length, outputs, "s.y > 0", folds,
                                     "top_k(s.y, 5) where s.x > 0");
  }
}

TEST(Structs, TypesAndRefusals) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  EXPECT_EQ(schema.fields[0].type.ToString(),
            "struct<x:i32?, y:f64, name:utf8?, v:fixed_size_list<f32, 8>, inner:struct<z:i64?, w:i16>?>?");
  EXPECT_EQ(*ParseDataType("struct<a:i32>"), *ParseDataType("struct< a : i32 >"));  // one type, one number
  EXPECT_FALSE(ParseDataType("struct<a:i32, a:f64>").ok());
  EXPECT_FALSE(ParseDataType("struct<>").ok());
  EXPECT_FALSE(ParseDataType("struct<1a:i32>").ok());
  EXPECT_FALSE(ParseDataType("struct<a:nope>").ok());
  // Types: the field's, nullable where the struct or the field is.
  EXPECT_EQ((*ir::ParseAndBind("s.y", schema))->type().ToString(), "f64?");
  EXPECT_EQ((*ir::ParseAndBind("s.inner.w", schema))->type().ToString(), "i16?");
  EXPECT_EQ((*ir::ParseAndBind("s.inner.w", schema))->ToString(), "struct_field(struct_field(s, 'inner'), 'w')");
  const test::Refusal refused[] = {
      {"s.nope", ErrorCode::kInvalidInput, "s has no field 'nope' (its fields: x, y, name, v, inner)"},
      {"s.nmae", ErrorCode::kInvalidInput, "did you mean 'name'"},
      {"a.x", ErrorCode::kTypeError, "a is i32?, not a struct"},
      {"s + 1", ErrorCode::kTypeError, "add does not take a struct"},
      {"struct_field(s, a)", ErrorCode::kInvalidInput, "takes a field's name as a string literal"},
      {"s.", ErrorCode::kInvalidInput, "a field's name after '.'"},
  };
  test::ExpectRefused(schema, refused);
}

TEST(Structs, ArrowImportAndExport) {
  std::mt19937_64 rng(3);
  ASSERT_OK_AND_ASSIGN(const DataType type, ParseDataType("struct<x:i32?, name:utf8, v:f32[3], in:struct<z:f64>?>?"));
  const ArrayPtr a = RandomFlatArray(ArraySpec{.type = type, .length = 120, .valid_fraction = 0.7, .bit_offset = 9}, rng);
  ASSERT_NE(a, nullptr);
  ArrowArray array;
  ArrowSchema schema;
  ASSERT_OK(ExportArray(a, &array, &schema, "s"));
  EXPECT_STREQ(schema.format, "+s");
  ASSERT_EQ(schema.n_children, 4);
  EXPECT_STREQ(schema.children[1]->name, "name");
  array.offset = 20;  // the producer's slice of the parent
  array.length = 50;
  array.null_count = -1;
  ASSERT_OK_AND_ASSIGN(const ArrayPtr back, ImportArray(&array, &schema));
  EXPECT_EQ(back->type().ToString(), type.ToString());
  ASSERT_OK_AND_ASSIGN(const ArrayPtr want, a->Slice(20, 50));
  EXPECT_EQ(FirstDifference(*back, *want), -1);
  EXPECT_TRUE(ArraysEqual(*back, *want));
  // A child shorter than the parent's rows is refused.
  ASSERT_OK(ExportArray(a, &array, &schema, "s"));
  array.children[0]->length = 10;
  EXPECT_FALSE(ImportArray(&array, &schema).ok());
}

}  // namespace
}  // namespace rowjit::jit
