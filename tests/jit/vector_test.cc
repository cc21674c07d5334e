// Vectors (fixed_size_list columns) through the JIT against the reference: every vector function
// over f32, f64, f16, bf16 and i8 elements, list sizes around the kernels' 32-element chunks, a column or a
// literal query, nulls, slices, edge values (NaN, inf, -0.0), in expressions, projections and
// folds; bit-identical scores (one summation order); the types, literals and refusals of the
// binder; Arrow import and export; the vector kernel's optimized IR (jit).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/function.h"
#include "ir/reference.h"
#include "ir/top_k.h"
#include "jit/api/engine.h"
#include "jit/compile/compiler.h"
#include "jit/plan/planner.h"
#include "runtime/arrow_c.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/refusals.h"

namespace rowjit::jit {
namespace {

constexpr const char* kScores[] = {"dot", "l2_squared", "l2_distance", "cosine_similarity", "cosine_distance"};

// A literal of `n` elements for a vector of `elem`, from the same draws as the columns.
std::string QueryLiteral(TypeId elem, int64_t n, std::mt19937_64& rng) {
  std::string text = "[";
  for (int64_t k = 0; k < n; ++k) {
    if (k) text += ", ";
    const Scalar v = ModerateValue(IsHalfWidthFloat(elem) ? TypeId::kF32 : elem, rng);  // f16, bf16: read in their width
    std::string item = v.ToString();
    text += item.substr(0, item.find(':'));
  }
  return text + "]";
}

ArrayPtr VectorColumn(DataType type, int64_t length, double valid, bool edges, std::mt19937_64& rng) {
  const int64_t offset = std::vector<int64_t>{0, 3, 64}[rng() % 3];
  ArrayPtr a = RandomFlatArray(ArraySpec{.type = type.WithNullable(valid < 1), .length = length, .valid_fraction = valid,
                                         .bit_offset = offset,
                                         .values = edges ? ValueMode::kMixed : ValueMode::kModerate},
                               rng);
  EXPECT_NE(a, nullptr);
  return a;
}

TEST(Vectors, ScoresEqualTheReferenceBitForBit) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const TypeId elems[] = {TypeId::kF32, TypeId::kF64, TypeId::kI8, TypeId::kF16, TypeId::kBF16};
  const int64_t sizes[] = {1, 3, 31, 32, 33, 64, 100, 768};
  const int64_t lengths[] = {0, 1, 5, 63, 64, 65, 700};
  int compared = 0;
  for (uint64_t seed = 0; seed < 90; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const TypeId elem = elems[seed % std::size(elems)];
    const int64_t size = sizes[(seed / std::size(elems)) % std::size(sizes)];
    const int64_t length = lengths[seed % std::size(lengths)];
    const DataType type = *DataType::FixedList(elem, size);
    const double valid = std::vector<double>{1.0, 0.8, 0.3}[seed % 3];
    const bool edges = seed % 4 == 3;
    const ArrayPtr columns[] = {VectorColumn(type, length, valid, edges, rng), VectorColumn(type, length, 1.0, edges, rng)};
    const Schema schema{{{"v", columns[0]->type()}, {"w", columns[1]->type()}}};
    const std::string query = QueryLiteral(elem, size, rng);
    for (const char* score : kScores) {
      for (const std::string& text : {fmt::format("{}(v, w)", score), fmt::format("{}(v, {})", score, query),
                                      fmt::format("{}({}, w)", score, query)}) {
        SCOPED_TRACE(text);
        ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
        ASSERT_NE(test::CompareWithReference(*engine, e, columns, length, rng), test::Compared::kMismatch);
        // Bit for bit, NaN payloads aside: the JIT and the reference sum in one order.
        ASSERT_OK_AND_ASSIGN(const ArrayPtr jit, engine->Evaluate(e, columns, length));
        ASSERT_OK_AND_ASSIGN(const ArrayPtr ref, ir::EvaluateReference(*e, columns, length));
        for (int64_t i = 0; i < length; ++i) {
          const Scalar x = jit->GetScalar(i), y = ref->GetScalar(i);
          if (x.is_null() || y.is_null()) {
            ASSERT_EQ(x.is_null(), y.is_null()) << "row " << i;
            continue;
          }
          const bool nan = IsFloat(x.type_id()) && (x.type_id() == TypeId::kF32 ? std::isnan(x.value<float>()) : std::isnan(x.value<double>()));
          if (!nan) {
            ASSERT_EQ(x.bits(), y.bits()) << "row " << i << ": " << x.ToString() << " against " << y.ToString();
          }
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 90 * 5 * 3);
}

// Scores inside expressions: compared with the reference (the scores computed first, then the
// rest over them), as a filter, under guards, in projections and in folds.
TEST(Vectors, InExpressionsProjectionsAndFolds) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("v:fixed_size_list<f32, 40>?, w:fixed_size_list<f32, 40>, "
                                                        "q:fixed_size_list<i8, 70>?, a:i32?, s:utf8"));
  for (uint64_t seed = 0; seed < 6; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{1000, 64, 1}[seed % 3];
    ASSERT_OK_AND_ASSIGN(const RecordBatch batch, RandomBatch(schema, length, 0.7, seed));
    const std::string qv = QueryLiteral(TypeId::kF32, 40, rng);
    const std::string texts[] = {
        fmt::format("l2_distance(v, {}) < 20000 and a > 0", qv),
        "if(a > 0, dot(v, w), -1.0)",
        "cosine_similarity(v, w) + cosine_distance(w, v)",
        "dot(q, q) + a",
        "coalesce(l2_squared(q, q), 7) * 2",
        "l2_distance(v, w) > 100 or s like 'a%'",
        "dot(v, w) - dot(v, w)",
    };
    for (const std::string& text : texts) {
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_NE(test::CompareWithReference(*engine, e, batch.columns, length, rng), test::Compared::kMismatch);
    }
    // A filter on a distance, and scores under its selection (the selected rows' vectors gathered,
    // or every row scored and the selected taken).
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr near, ir::ParseAndBind(fmt::format("l2_distance(v, {}) < 20000", qv), schema));
    ASSERT_OK_AND_ASSIGN(const SelectionVector kept, engine->Filter(near, batch.columns, length));
    ASSERT_OK_AND_ASSIGN(const ArrayPtr near_ref, ir::EvaluateReference(*near, batch.columns, length));
    std::vector<uint32_t> want_rows;
    for (int64_t i = 0; i < length; ++i) {
      const Scalar b = near_ref->GetScalar(i);
      if (!b.is_null() && b.value<bool>()) want_rows.push_back(static_cast<uint32_t>(i));
    }
    ASSERT_EQ(std::vector<uint32_t>(kept.data(), kept.data() + kept.size()), want_rows);
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr dot_vw, ir::ParseAndBind("dot(v, w) + a", schema));
    ASSERT_OK_AND_ASSIGN(const ArrayPtr under, engine->Evaluate(dot_vw, batch.columns, length, kept));
    ASSERT_OK_AND_ASSIGN(const ArrayPtr all_rows, ir::EvaluateReference(*dot_vw, batch.columns, length));
    ASSERT_EQ(under->length(), kept.size());
    for (int64_t i = 0; i < kept.size(); ++i) {
      EXPECT_EQ(under->GetScalar(i), all_rows->GetScalar(kept.data()[i])) << "selected row " << i;
    }
    // Two scoring outputs and a plain one in one projection.
    std::vector<ir::ExprPtr> outs;
    for (const char* text : {"dot(v, w)", "a + 1", "l2_squared(q, q) > 5"}) outs.push_back(*ir::ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(const std::vector<ArrayPtr> projected, engine->Project(outs, batch.columns, length));
    for (size_t k = 0; k < outs.size(); ++k) {
      ASSERT_OK_AND_ASSIGN(const ArrayPtr ref, ir::EvaluateReference(*outs[k], batch.columns, length));
      EXPECT_EQ(FirstDifference(*projected[k], *ref), -1) << outs[k]->ToString();
    }
    // Folds over scores.
    for (const char* text : {"sum(dot(q, q))", "max(l2_distance(v, w))", "count(cosine_similarity(v, w))"}) {
      ASSERT_OK_AND_ASSIGN(const ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
      ASSERT_OK_AND_ASSIGN(const ir::AggregateResult got, engine->Aggregate(agg, batch.columns, length));
      ASSERT_OK_AND_ASSIGN(const ir::AggregateResult want, ir::EvaluateAggregateReference(agg, batch.columns, length));
      EXPECT_EQ(got.value.ToString(), want.value.ToString()) << text;
    }
  }
}

// Vectors from raw buffers (a prepared expression's WriteBuffers, the C API's
// rowjit_prepared_evaluate_buffers): each row's elements one after another, with a validity bitmap
// or none; values not aligned to their element are copied first. The same scores as the arrays'.
TEST(Vectors, FromRawBuffers) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("v:f32[3]?, a:i32"));
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind("l2_squared(v, [1, 2, 3]) + a", schema));
  ASSERT_OK_AND_ASSIGN(auto handle, engine->PrepareExpression(e));
  const float v[] = {1, 2, 3, 0, 0, 0, 2, 2, 2, 9, 9, 9};
  const int32_t a[] = {10, 20, 30, 40};
  const uint64_t valid[] = {0b1011};  // row 2 null
  std::vector<uint8_t> shifted(sizeof(v) + 1);
  std::memcpy(shifted.data() + 1, v, sizeof(v));
  for (const void* values : {static_cast<const void*>(v), static_cast<const void*>(shifted.data() + 1)}) {
    const ColumnBuffers raw[] = {{values, valid}, {a, nullptr}};
    float out[4] = {};
    uint64_t out_valid[1] = {};
    const OutputBuffers into{.values = out, .values_bytes = sizeof(out), .validity = out_valid,
                             .validity_bytes = sizeof(out_valid)};
    ASSERT_OK_AND_ASSIGN(const int64_t nulls, handle->WriteBuffers(raw, 4, into));
    EXPECT_EQ(nulls, 1);
    EXPECT_EQ(out_valid[0], 0b1011u);
    EXPECT_EQ(out[0], 10.0f);  // (0 + 0 + 0) + 10
    EXPECT_EQ(out[1], 34.0f);  // (1 + 4 + 9) + 20
    EXPECT_EQ(out[3], 40.0f + 64 + 49 + 36);
  }
  ASSERT_OK_AND_ASSIGN(const Schema lists, ParseSchema("l:list<i32>"));
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr len, ir::ParseAndBind("len(l)", lists));
  ASSERT_OK_AND_ASSIGN(auto by_len, engine->PrepareExpression(len));
  const ColumnBuffers one[] = {{a, nullptr}};
  int64_t out[4];
  const OutputBuffers into{.values = out, .values_bytes = sizeof(out)};
  const Result<int64_t> refused = by_len->WriteBuffers(one, 4, into);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message().find("a list<i32> column has no raw-buffer form (pass arrays)"), std::string::npos)
      << refused.error().ToString();
}

// bfloat16: a float's upper 16 bits. Read exactly; a double rounded once to the nearest (ties to
// even), overflow to infinity; bf16 vectors from raw buffers scored as the f32 vectors they
// widen to; no Arrow format.
TEST(Vectors, Bfloat16) {
  EXPECT_EQ(Bf16Of(1.0), 0x3F80);
  EXPECT_EQ(Bf16Of(-2.5), 0xC020);
  EXPECT_EQ(Bf16Of(1.0 + 1.0 / 256), 0x3F80);      // halfway between 0x3F80 and 0x3F81: to even
  EXPECT_EQ(Bf16Of(1.0 + 3.0 / 256), 0x3F82);      // halfway between 0x3F81 and 0x3F82: to even
  EXPECT_EQ(Bf16Of(1.0 + 1.0 / 256 + 1e-9), 0x3F81);  // past halfway: up
  EXPECT_EQ(Bf16Of(3.3895313892515355e38), 0x7F7F);  // the largest
  EXPECT_EQ(Bf16Of(3.4e38), 0x7F80);                  // past it: infinity
  EXPECT_EQ(Bf16Of(-1e300), 0xFF80);
  EXPECT_EQ(Bf16Of(-0.0), 0x8000);
  EXPECT_EQ(Bf16Of(std::ldexp(1.0, -133)), 0x0001);   // the least subnormal
  EXPECT_EQ(Bf16Of(std::ldexp(1.0, -135)), 0x0000);   // a quarter of it: to zero
  EXPECT_EQ(Bf16Of(std::nan("")) & 0x7FC0, 0x7FC0);
  EXPECT_EQ(FloatOfBf16(0x3F80), 1.0f);
  EXPECT_EQ(FloatOfBf16(0xC020), -2.5f);

  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("v:bf16[3], w:fixed_size_list<bf16, 3>"));
  EXPECT_EQ(schema.fields[0].type.ToString(), "fixed_size_list<bf16, 3>");
  EXPECT_FALSE(ParseSchema("l:list<bf16>").ok());
  EXPECT_FALSE(ParseSchema("x:bf16").ok());
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind("dot(v, [1, 2, 0.33333])", schema));
  EXPECT_EQ(e->type().ToString(), "f32");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr again, ir::ParseAndBind(e->ToString(), schema));  // the literal's text reads
  EXPECT_TRUE(again->Equals(*e)) << e->ToString();                                          // back to its bfloat16s
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(auto handle, engine->PrepareExpression(e));
  const uint16_t v[] = {Bf16Of(1), Bf16Of(1), Bf16Of(3), Bf16Of(-2), Bf16Of(0.5), Bf16Of(0)};
  const ColumnBuffers raw[] = {{v, nullptr}, {v, nullptr}};
  float out[2] = {};
  const OutputBuffers into{.values = out, .values_bytes = sizeof(out)};
  ASSERT_OK(handle->WriteBuffers(raw, 2, into));
  EXPECT_EQ(out[0], 1.0f + 2.0f + 3.0f * 0.333984375f);  // 0.33333 read as the nearest bfloat16, 171/512
  EXPECT_EQ(out[1], -2.0f + 1.0f);

  std::mt19937_64 rng(5);
  const ArrayPtr column = VectorColumn(schema.fields[0].type, 10, 1.0, true, rng);
  ArrowArray array;
  ArrowSchema arrow_schema;
  const Status exported = ExportArray(column, &array, &arrow_schema, "v");
  ASSERT_FALSE(exported.ok());
  EXPECT_NE(exported.error().message().find("bf16 vectors have no Arrow format"), std::string::npos);
}

TEST(Vectors, TypesLiteralsAndRefusals) {
  EXPECT_EQ(ParseDataType("fixed_size_list<f32, 768>")->ToString(), "fixed_size_list<f32, 768>");
  EXPECT_EQ(ParseDataType("fixed_size_list<i8,4>?")->ToString(), "fixed_size_list<i8, 4>?");
  EXPECT_EQ(ParseDataType("f64[3]")->ToString(), "fixed_size_list<f64, 3>");
  EXPECT_EQ(ParseDataType("FLOAT[3]", TypeNames::kSql)->ToString(), "fixed_size_list<f64, 3>");
  EXPECT_EQ(ParseDataType("real[3]", TypeNames::kSql)->ToString(), "fixed_size_list<f32, 3>");
  EXPECT_FALSE(ParseDataType("fixed_size_list<utf8, 3>").ok());
  EXPECT_FALSE(ParseDataType("fixed_size_list<f32, 0>").ok());
  EXPECT_FALSE(ParseDataType("fixed_size_list<f32, 70000>").ok());
  EXPECT_FALSE(ParseDataType("fixed_size_list<f32>").ok());
  EXPECT_FALSE(ParseDataType("fixed_size_list<f32, x>").ok());
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("v:fixed_size_list<f32, 3>, w:fixed_size_list<f64, 3>?, "
                                                        "q:fixed_size_list<i8, 3>, big:fixed_size_list<i8, 40000>, a:i32"));
  EXPECT_EQ(schema.fields[1].type.ToString(), "fixed_size_list<f64, 3>?");
  // A literal takes the vector's element type beside it: read in that type, printed back.
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind("l2_distance(v, [0.1, -2, 3e1])", schema));
  EXPECT_EQ(e->ToString(), "l2_distance(v, [0.1, -2.0, 30.0])");
  EXPECT_EQ(e->args()[1]->value().type().ToString(), "fixed_size_list<f32, 3>");
  EXPECT_EQ((*ir::ParseAndBind(e->ToString(), schema))->ToString(), e->ToString());
  EXPECT_EQ((*ir::ParseAndBind("array_distance(w, w)", schema))->ToString(), "l2_distance(w, w)");
  EXPECT_EQ((*ir::ParseAndBind("inner_product(q, [1, -2, 127])", schema))->type().ToString(), "i32");
  EXPECT_EQ((*ir::ParseAndBind("cosine_similarity(q, q)", schema))->type().ToString(), "f32");
  EXPECT_EQ((*ir::ParseAndBind("dot(w, w)", schema))->type().ToString(), "f64?");
  // Two literals: f64 vectors, folded to a constant.
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr c, ir::ParseAndBind("dot([1, 2], [3, 4])", schema));
  EXPECT_EQ(c->ToString(), "11.0:f64");
  const test::Refusal refused[] = {
      {"v + 1", ErrorCode::kTypeError, "add does not take a vector (fixed_size_list<f32, 3>)"},
      {"is_null(v)", ErrorCode::kTypeError, "does not take a vector"},
      {"dot(v, w)", ErrorCode::kTypeError, "two vectors of one type"},
      {"dot(v, a)", ErrorCode::kTypeError, "two vectors of one type"},
      {"dot(v, [1, 2])", ErrorCode::kTypeError, "vector literal of 2 elements beside a fixed_size_list<f32, 3>"},
      {"dot(q, [1, 2.5, 3])", ErrorCode::kTypeError, "vector literal element 2.5 is not i8"},
      {"dot(q, [1, 2, 300])", ErrorCode::kTypeError, "vector literal element 300 is not i8"},
      {"dot(big, big)", ErrorCode::kUnsupported, "i8 vectors of at most 32768 elements"},
      {"v", ErrorCode::kTypeError, "a vector (column 'v') is an argument of a vector function"},
      {"dot(v, [])", ErrorCode::kInvalidInput, "a vector literal is not empty"},
      {"dot(v, [1, a, 2])", ErrorCode::kTypeError,
       "dot takes vectors, not a list (list_value(1:i32, a, 2:i32)): a vector literal's elements are numbers"},
      {"dot(v)", ErrorCode::kInvalidInput, "dot takes 2 arguments, got 1"},
  };
  test::ExpectRefused(schema, refused);
}

TEST(Vectors, ArrowImportAndExport) {
  std::mt19937_64 rng(7);
  const DataType type = *DataType::FixedList(TypeId::kF32, 5, true);
  ArrayPtr a = RandomFlatArray(ArraySpec{.type = type, .length = 100, .valid_fraction = 0.7, .bit_offset = 3}, rng);
  ASSERT_NE(a, nullptr);
  ArrowArray array;
  ArrowSchema schema;
  ASSERT_OK(ExportArray(a, &array, &schema, "v"));
  EXPECT_STREQ(schema.format, "+w:5");
  ASSERT_EQ(schema.n_children, 1);
  EXPECT_STREQ(schema.children[0]->format, "f");
  // Sliced by the producer: rows [10, 30) of the parent.
  array.offset = 10;
  array.length = 20;
  array.null_count = -1;
  ASSERT_OK_AND_ASSIGN(const ArrayPtr back, ImportArray(&array, &schema));
  EXPECT_EQ(back->type().ToString(), "fixed_size_list<f32, 5>?");
  ASSERT_OK_AND_ASSIGN(const ArrayPtr want, a->Slice(10, 20));
  EXPECT_TRUE(ArraysEqual(*back, *want));
  // Half precision elements ("e") round trip too.
  const DataType halves = *DataType::FixedList(TypeId::kF16, 7);
  ArrayPtr h = RandomFlatArray(ArraySpec{.type = halves, .length = 50, .values = ValueMode::kMixed}, rng);
  ASSERT_OK(ExportArray(h, &array, &schema, "h"));
  EXPECT_STREQ(schema.children[0]->format, "e");
  ASSERT_OK_AND_ASSIGN(const ArrayPtr h_back, ImportArray(&array, &schema));
  EXPECT_TRUE(ArraysEqual(*h_back, *h));
  // A child too short for the rows, and a child with a null element, are refused.
  ASSERT_OK(ExportArray(a, &array, &schema, "v"));
  array.children[0]->length = 5 * 100 - 1;
  EXPECT_FALSE(ImportArray(&array, &schema).ok());
  std::vector<uint8_t> bits((5 * 100 + 7) / 8, 0xff);
  bits[2] = 0xfe;
  ASSERT_OK(ExportArray(a, &array, &schema, "v"));
  array.children[0]->buffers[0] = bits.data();
  array.children[0]->null_count = 1;
  auto nulls = ImportArray(&array, &schema);
  ASSERT_FALSE(nulls.ok());
  EXPECT_NE(nulls.error().message().find("null elements"), std::string::npos) << nulls.error().ToString();
}

// Nested layouts rowjit does not read (list views, unions) are refused with an error that names them.
TEST(Vectors, OtherNestedLayoutsAreNamedWhenRefused) {
  const std::pair<const char*, const char*> formats[] = {{"+vl", "a list view"}, {"+vL", "a list view"},
                                                         {"+us:0,1", "a union"}};
  for (const auto& [format, name] : formats) {
    ArrowSchema child{};
    child.format = format;
    child.name = "c";
    child.release = [](ArrowSchema* s) { s->release = nullptr; };
    ArrowSchema* children[] = {&child};
    ArrowSchema parent{};
    parent.format = "+s";
    parent.n_children = 1;
    parent.children = children;
    parent.release = child.release;
    auto schema = ImportSchema(&parent);
    ASSERT_FALSE(schema.ok()) << format;
    EXPECT_EQ(schema.error().code(), ErrorCode::kUnsupported) << format;
    EXPECT_NE(schema.error().message().find(name), std::string::npos) << schema.error().ToString();
  }
}

// Top-k: batches folded into states, merged out of order and through bytes, equal the reference
// over the whole (rows and score bits) for scores with ties, NaN, -0.0 and nulls, with and without
// a predicate, largest and smallest.
TEST(Vectors, TopKEqualsTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("v:fixed_size_list<f32, 24>?, w:fixed_size_list<f32, 24>, "
                                                        "a:i16?, x:f64?, s:utf8"));
  const char* selections[] = {"bottom_k(l2_distance(v, w), 10)", "top_k(cosine_similarity(v, w), 7) where a > 0",
                              "top_k(a, 50)", "bottom_k(a % 5, 30) where x < 100", "top_k(x, 1)",
                              "bottom_k(x * 0, 40)", "top_k(dot(v, w) + x, 5000)"};
  for (uint64_t seed = 0; seed < 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const int64_t length = std::vector<int64_t>{3000, 1, 700, 0}[seed % 4];
    ASSERT_OK_AND_ASSIGN(const RecordBatch batch, RandomBatch(schema, length, 0.8, seed));
    std::vector<ArrayPtr> columns = batch.columns;
    if (seed % 2 == 1) {  // NaN, infinities and -0.0 among x
      std::mt19937_64 rng(seed);
      columns[3] = RandomFlatArray(ArraySpec{.type = schema.fields[3].type, .length = length, .valid_fraction = 0.8}, rng);
    }
    for (const char* text : selections) {
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(const ir::TopK top, ir::ParseAndBindTopK(text, schema));
      ASSERT_OK_AND_ASSIGN(const ir::TopKResult want, ir::TopKReference(top, columns, length));
      // Three batches, each into a state of its own, merged last first, one of them through bytes.
      const int64_t cuts[] = {0, length / 3, length / 3 + length / 2, length};
      std::vector<ir::TopKState> parts;
      for (int p = 0; p < 3; ++p) {
        std::vector<ArrayPtr> slice;
        for (const ArrayPtr& c : columns) slice.push_back(*c->Slice(cuts[p], cuts[p + 1] - cuts[p]));
        parts.emplace_back(top);
        ASSERT_OK(engine->TopK(top, slice, cuts[p + 1] - cuts[p], parts.back(), cuts[p]));
      }
      ASSERT_OK_AND_ASSIGN(const ir::TopKState middle, ir::TopKState::Deserialize(parts[1].Serialize()));
      ir::TopKState all(top);
      ASSERT_OK(all.Merge(parts[2]));
      ASSERT_OK(all.Merge(middle));
      ASSERT_OK(all.Merge(parts[0]));
      ASSERT_OK_AND_ASSIGN(const ir::TopKResult got, all.Finish());
      EXPECT_TRUE(ArraysEqual(*got.rows, *want.rows)) << got.rows->ToString() << "\n" << want.rows->ToString();
      ASSERT_EQ(got.scores->length(), want.scores->length());
      for (int64_t i = 0; i < got.scores->length(); ++i) {
        const Scalar x = got.scores->GetScalar(i), y = want.scores->GetScalar(i);
        EXPECT_TRUE(x == y || ir::CompareScalarsSql(x, y) == 0) << "rank " << i << ": " << x.ToString() << " against " << y.ToString();
      }
    }
  }
  const test::Refusal refused[] = {
      {"top_k(v, 3)", ErrorCode::kTypeError, "is an argument of a vector function"},
      {"top_k(s, 3)", ErrorCode::kTypeError, "a top-k score is an integer or a float, not utf8"},
      {"top_k(a, 0)", ErrorCode::kInvalidInput, "selects K = 1 to 1048576 rows, not 0"},
      {"top_k(a, 2.5)", ErrorCode::kInvalidInput, "selects K = 1 to 1048576 rows, not 2.5"},
      {"top_k(a, 3) where", ErrorCode::kInvalidInput, "the predicate is missing"},
      {"top_k(a)", ErrorCode::kInvalidInput, "takes a score and a whole number of rows"},
      {"top_k(a, 3) when a > 0", ErrorCode::kInvalidInput, "comes nothing or 'where PREDICATE'"},
      {"top_k(a, 3) where a", ErrorCode::kTypeError, "a top-k's where is a bool"},
      {"best_k(a, 3)", ErrorCode::kInvalidInput, "top_k(SCORE, K) or bottom_k(SCORE, K)"},
  };
  for (const test::Refusal& r : refused) {
    auto top = ir::ParseAndBindTopK(r.text, schema);
    ASSERT_FALSE(top.ok()) << r.text;
    EXPECT_EQ(top.error().code(), r.code) << r.text << ": " << top.error().ToString();
    EXPECT_NE(top.error().message().find(r.fragment), std::string::npos) << r.text << ": " << top.error().ToString();
  }
  // An error's span points into the text as written: the where's, and the score's.
  for (const std::string& text : {std::string("top_k(a, 2) where zz > 0"), std::string("bottom_k(a + zz, 2)")}) {
    auto top = ir::ParseAndBindTopK(text, schema);
    ASSERT_FALSE(top.ok());
    ASSERT_TRUE(top.error().span().has_value()) << top.error().ToString();
    EXPECT_EQ(top.error().span()->offset, text.find("zz")) << text;
  }
  auto apart = ir::ParseAndBindTopK("top_k(a, 2)", schema, "zz > 0");
  ASSERT_FALSE(apart.ok());
  EXPECT_NE(apart.error().message().find("where 'zz > 0'"), std::string::npos) << apart.error().ToString();
  EXPECT_FALSE(ir::TopKState::Deserialize("topk1 3 1 10 5\n").ok());
  EXPECT_FALSE(ir::TopKState::Deserialize("nonsense").ok());
}

// The vector kernel's optimized IR: the elements are read and multiplied as vectors, the row loop
// holds one loop over 32-element chunks (no scalar element loop), and nothing calls out.
TEST(Vectors, KernelIsVectorCode) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("v:fixed_size_list<f32, 768>, q:fixed_size_list<i8, 768>"));
  std::string query = "[";
  for (int k = 0; k < 768; ++k) query += fmt::format("{}{}", k ? ", " : "", k % 7 - 3);
  query += "]";
  for (const std::string& text : {std::string("l2_distance(v, v)"), "cosine_similarity(v, " + query + ")",
                                  std::string("dot(q, q)"), "l2_squared(q, " + query + ")"}) {
    SCOPED_TRACE(text.substr(0, 40));
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
    for (const char* target : {"native", "x86-64-v3", "x86-64-v4"}) {
      ASSERT_OK_AND_ASSIGN(const CacheKey key, PlanKernel(e, std::vector<ir::InputSpec>(2), ir::Policy::kAuto, target));
      EXPECT_TRUE(key.shape.vector_score);
      ASSERT_OK_AND_ASSIGN(const TargetSpec spec, ResolveTarget(target));
      ASSERT_OK_AND_ASSIGN(const KernelCode code, GenerateCode(key, spec, false));
      const std::string& ir = code.optimized_ir;
      const bool i8 = e->args()[0]->type().elem == TypeId::kI8;
      // i8 on a target that multiply-adds bytes (AVX512-VNNI): 32 bytes a step, no widening.
      const bool byte_dots = i8 && spec.mask_registers && spec.features.find("+avx512vnni") != std::string::npos &&
                             spec.features.find("+avx512vl") != std::string::npos;
      if (byte_dots) {
        EXPECT_NE(ir.find("@llvm.x86.avx512.vpdpbusd.256"), std::string::npos) << target;
        EXPECT_EQ(ir.find("sext <"), std::string::npos) << target << ": bytes widened";
        continue;
      }
      EXPECT_NE(ir.find(i8 ? "sext <" : "fmul <"), std::string::npos) << target;
      EXPECT_NE(ir.find(i8 ? "add <32 x i32>" : "fadd <"), std::string::npos) << target;
      EXPECT_EQ(ir.find("@sqrt"), std::string::npos) << target << ": a library call";
      EXPECT_EQ(ir.find("load float"), std::string::npos) << target << ": elements read one at a time";
    }
  }
}

}  // namespace
}  // namespace rowjit::jit
