// List and map columns through the engine against the reference: len, l[i], list_contains,
// list_sum/min/max/avg, m[k] and map_contains over every element layout the engine reads (numbers
// of each width, strings, dates, nullable elements), 32- and 64-bit offsets, null rows, slices and
// lists inside structs; values written out by hand for the edges (positions past either end, NaN,
// empty lists, overflow); the binder's types and refusals; Arrow import and export (jit).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/query.h"
#include "ir/reference.h"
#include "ir/top_k.h"
#include "jit/api/engine.h"
#include "kernels/bitmap.h"
#include "runtime/arrow_c.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/refusals.h"

namespace rowjit::jit {
namespace {

constexpr const char* kSchema =
    "l:list<i32?>?, big:large_list<i64>, f:list<f64?>?, u:list<u8>, t:list<utf8?>?, d:list<date32>?, "
    "m:map<utf8, i64?>?, mi:map<i16, f32>, s:struct<tags:list<i16?>?, n:i32>?, a:i32?, w:list<list<i32>>?, "
    "sm:struct<m:map<i8, utf8?>>?, ls:list<struct<b:i8?>?>?, dec:list<decimal(30,2)?>?";

std::unique_ptr<Engine> MakeEngine() {
  return std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
}

TEST(Lists, FunctionsEqualTheReference) {
  auto engine = MakeEngine();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  const char* texts[] = {
      "len(l) + len(big)",
      "cardinality(m) * 2 + array_length(t)",
      "len(w)",
      "l[1]",
      "l[-1] + coalesce(l[2], 0)",
      "l[a]",                     // an index that varies by row
      "big[len(big)] - big[1]",   // the last and the first
      "l[0] is null",
      "f[2] * 0.5",
      "t[1]",
      "upper(t[-1]) like 'A%'",
      "d[1] < cast('2000-01-01', date32)",
      "list_contains(d, '2000-01-01') or list_contains(d, cast('1999-12-31', date32))",
      "list_contains(l, 3)",
      "list_contains(l, a)",
      "list_has(t, 'ab') or array_contains(u, 7)",
      "list_contains(f, 0.0)",
      "list_sum(l)",
      "list_sum(big)",            // overflows in some rows
      "list_sum(u) + list_sum(f)",
      "list_min(l) + list_max(l)",
      "list_min(f) < list_max(f)",
      "list_max(d)",
      "list_max(dec)",
      "list_min(dec) < list_max(dec)",
      "list_avg(l) + list_avg(f)",
      "m['ab']",
      "coalesce(m['a'], -1) + len(m)",
      "map_contains(m, 'b')",
      "mi[3] > 0",
      "map_extract_value(mi, cast(a, i16))",  // a key that fails where a does not fit
      "len(s.tags) + s.tags[1] + s.n",
      "list_sum(s.tags) > 10 and s.n > 0",
      "if(a > 0, list_sum(big), len(big))",  // the overflow only where the branch is taken
      "list_sum(list_transform(l, x -> x * 2))",
      "list_sum(list_transform(big, x -> x * 1000000))",  // overflows inside the lambda in some rows
      "if(a > 0, list_max(list_transform(big, x -> x * 1000000)), 0)",  // ... raised only where taken
      "len(list_filter(l, x -> x > 0))",
      "list_max(list_filter(f, v -> v > 0.5 or v is null))",
      "list_contains(list_transform(t, s -> upper(s)), 'AB')",
      "len(list_filter(list_transform(l, x -> x + 1), y -> y % 2 = 0))",
      "list_avg(list_transform(s.tags, x -> x * 1.5))",
      "list_transform(u, x -> x + 1)[2]",
      // Lists as the value: a column, a field, a lambda's.
      "l",
      "m",
      "s.tags",
      "list_transform(l, x -> x * 2)",
      "list_filter(t, s -> s like 'a%')",
      "list_transform(big, x -> x * 1000000)",
      "w",
      "sm.m",
      "ls",
      "list_filter(w, x -> len(x) > 1)",
      "len(list_filter(w, x -> len(x) > 1))",
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
    // A projection, a filter, folds and a top-k over list functions.
    const char* outputs[] = {"len(l)", "l[1]", "t[2]", "a + 1"};
    const char* folds[] = {"sum(len(l))", "max(list_max(f))", "count(l[2])"};
    test::ExpectShapesEqualReference(*engine, schema, batch.columns, length, outputs, "list_contains(u, 1) or len(l) > 3",
                                     folds, "top_k(list_avg(f), 5) where len(l) > 1");
  }
}

// Aggregate queries over list functions and struct fields, whole batches and selections: the
// reference's groups and values (a query's one fold kernel reads no nested column; these fold
// over the projected columns).
TEST(Lists, QueriesEqualTheReference) {
  auto engine = MakeEngine();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  const char* texts[] = {
      "sum(len(l)) where list_max(l) > 100",
      "sum(list_sum(u)), count(*) where s.n > 0 group by a",
      "avg(list_avg(f)), max(t[1]), count(m['ab']) where len(big) > 2",
      "sum(s.n) where len(s.tags) > 0",
  };
  for (uint64_t seed = 0; seed < 4; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const int64_t length = seed % 2 == 0 ? 3000 : 77;
    ASSERT_OK_AND_ASSIGN(const RecordBatch batch, RandomBatch(schema, length, 0.8, seed, {}, 0));
    ASSERT_OK_AND_ASSIGN(const SelectionVector odd, SelectionVector::FromBitmap(kernels::BitSpan{
                                                        std::vector<uint8_t>(static_cast<size_t>(length), 0xaa).data(), 0, length}));
    for (const char* text : texts) {
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(const ir::Query q, ir::ParseAndBindQuery(text, schema));
      ASSERT_OK_AND_ASSIGN(const ir::QueryResult got, engine->Query(q, batch.columns, length));
      ASSERT_OK_AND_ASSIGN(const ir::QueryResult want, ir::EvaluateQueryReference(q, batch.columns, length));
      EXPECT_EQ(got.ToString(), want.ToString());
      ASSERT_OK_AND_ASSIGN(const ir::QueryResult picked, engine->Query(q, batch.columns, length, odd));
      std::vector<ArrayPtr> taken;
      for (const ArrayPtr& c : batch.columns) taken.push_back(*Take(*c, odd));
      ASSERT_OK_AND_ASSIGN(const ir::QueryResult picked_want, ir::EvaluateQueryReference(q, taken, odd.size()));
      EXPECT_EQ(picked.ToString(), picked_want.ToString());
    }
  }
}

using test::ListOf;

// The values of `text` over one column `x` of `type`, as text (as the engine computes them).
std::vector<std::string> Values(Engine& engine, const DataType& type, const ArrayPtr& x, const std::string& text) {
  Schema schema{{Field{"x", type}}};
  auto e = ir::ParseAndBind(text, schema);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  const std::vector<ArrayPtr> columns{x};
  auto out = engine.Evaluate(*e, columns, x->length());
  EXPECT_TRUE(out.ok()) << text << ": " << out.status().ToString();
  std::vector<std::string> v;
  if (!out.ok()) return v;
  for (int64_t i = 0; i < (*out)->length(); ++i) {
    const Scalar s = (*out)->GetScalar(i);
    v.push_back(s.is_null() ? "null" : IsString(s.type_id()) ? std::string(s.str()) : s.ToString().substr(0, s.ToString().find(':')));
  }
  return v;
}

TEST(Lists, EdgesWrittenOut) {
  auto engine = MakeEngine();
  const DataType ints = *ParseDataType("list<i32?>?");
  const Scalar null = Scalar::Null(TypeId::kI32);
  const ArrayPtr x = ListOf(ints, {std::vector<Scalar>{Scalar::Of(3), null, Scalar::Of(-7)}, std::vector<Scalar>{},
                                   std::nullopt, std::vector<Scalar>{null}, std::vector<Scalar>{Scalar::Of(5)}});
  using V = std::vector<std::string>;
  EXPECT_EQ(Values(*engine, ints, x, "len(x)"), (V{"3", "0", "null", "1", "1"}));
  EXPECT_EQ(Values(*engine, ints, x, "x[1]"), (V{"3", "null", "null", "null", "5"}));
  EXPECT_EQ(Values(*engine, ints, x, "x[-1]"), (V{"-7", "null", "null", "null", "5"}));
  EXPECT_EQ(Values(*engine, ints, x, "x[3]"), (V{"-7", "null", "null", "null", "null"}));
  EXPECT_EQ(Values(*engine, ints, x, "x[-3]"), (V{"3", "null", "null", "null", "null"}));
  EXPECT_EQ(Values(*engine, ints, x, "x[0]"), (V{"null", "null", "null", "null", "null"}));
  EXPECT_EQ(Values(*engine, ints, x, "x[4]"), (V{"null", "null", "null", "null", "null"}));
  EXPECT_EQ(Values(*engine, ints, x, "list_contains(x, -7)"), (V{"true", "false", "null", "false", "false"}));
  EXPECT_EQ(Values(*engine, ints, x, "list_sum(x)"), (V{"-4", "null", "null", "null", "5"}));
  EXPECT_EQ(Values(*engine, ints, x, "list_min(x)"), (V{"-7", "null", "null", "null", "5"}));
  EXPECT_EQ(Values(*engine, ints, x, "list_max(x)"), (V{"3", "null", "null", "null", "5"}));
  EXPECT_EQ(Values(*engine, ints, x, "list_avg(x)"), (V{"-2.0", "null", "null", "null", "5.0"}));

  // Floats in SQL's order: NaN the greatest and equal to itself, -0.0 equal to 0.0.
  const DataType floats = *ParseDataType("list<f64>");
  const double nan = std::nan("");
  const ArrayPtr f = ListOf(floats, {std::vector<Scalar>{Scalar::Of(1.5), Scalar::Of(nan), Scalar::Of(-2.0)},
                                     std::vector<Scalar>{Scalar::Of(-0.0), Scalar::Of(0.0)}});
  EXPECT_EQ(Values(*engine, floats, f, "list_max(x)"), (V{"nan", "-0.0"}));
  EXPECT_EQ(Values(*engine, floats, f, "list_min(x)"), (V{"-2.0", "-0.0"}));
  EXPECT_EQ(Values(*engine, floats, f, "list_contains(x, nan)"), (V{"true", "false"}));
  EXPECT_EQ(Values(*engine, floats, f, "list_contains(x, 0.0)"), (V{"false", "true"}));

  // An exact integer sum, or the row's overflow error.
  const DataType wide = *ParseDataType("list<i64>");
  const ArrayPtr big = ListOf(wide, {std::vector<Scalar>{Scalar::Of(INT64_MAX), Scalar::Of(int64_t{-1}), Scalar::Of(int64_t{1})},
                                     std::vector<Scalar>{Scalar::Of(INT64_MAX), Scalar::Of(int64_t{1})}});
  Schema one{{Field{"x", wide}}};
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr sum, ir::ParseAndBind("list_sum(x)", one));
  const std::vector<ArrayPtr> columns{big};
  const auto failed = engine->Evaluate(sum, columns, 2);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code(), ErrorCode::kOverflow);
  EXPECT_EQ(failed.error().row(), 1);
  ASSERT_OK_AND_ASSIGN(const ArrayPtr first, big->Slice(0, 1));
  EXPECT_EQ(Values(*engine, wide, first, "list_sum(x)"), (V{std::to_string(INT64_MAX)}));
  // A lambda's error is its row's, the lambda's list the whole value or not.
  for (const char* text : {"list_transform(x, y -> y * 2)", "len(list_transform(x, y -> y * 2))",
                           "list_filter(x, y -> y * 2 > 0)"}) {
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, one));
    const auto raised = engine->Evaluate(e, columns, 2);
    ASSERT_FALSE(raised.ok()) << text;
    EXPECT_EQ(raised.error().code(), ErrorCode::kOverflow) << text << ": " << raised.error().ToString();
    EXPECT_EQ(raised.error().row(), 0) << text;
  }

  // A list of lists as text, each level's brackets.
  const DataType nested = *ParseDataType("list<list<i32>?>");
  const ArrayPtr inner = ListOf(*ParseDataType("list<i32>?"), {std::vector<Scalar>{Scalar::Of(1), Scalar::Of(2)}, std::nullopt,
                                                               std::vector<Scalar>{}});
  BufferPtr two = *Buffer::Allocate(8);
  reinterpret_cast<int32_t*>(two->mutable_data())[0] = 0;
  reinterpret_cast<int32_t*>(two->mutable_data())[1] = 3;
  ASSERT_OK_AND_ASSIGN(auto outer, ListArray::Make(nested, 1, false, two, inner, Validity::AllValid()));
  EXPECT_EQ(outer->GetScalar(0).str(), "[[1, 2], null, []]");
}

TEST(Maps, EdgesWrittenOut) {
  auto engine = MakeEngine();
  const DataType type = *ParseDataType("map<utf8, i64?>?");
  const DataType entry = ListElement(type);
  auto kv = [&](std::string_view k, std::optional<int64_t> v) {
    return std::pair<std::string, std::optional<int64_t>>(std::string(k), v);
  };
  // The entries, as a struct column, then the map over them.
  const std::vector<std::vector<std::pair<std::string, std::optional<int64_t>>>> rows = {
      {kv("a", 1), kv("b", std::nullopt), kv("a", 3)}, {}, {kv("b", 2)}};
  std::vector<std::optional<std::string_view>> keys;
  std::vector<Scalar> values;
  std::vector<int32_t> offsets{0};
  for (const auto& row : rows) {
    for (const auto& [k, v] : row) {
      keys.emplace_back(k);
      values.push_back(v ? Scalar::Of(*v) : Scalar::Null(TypeId::kI64));
    }
    offsets.push_back(static_cast<int32_t>(keys.size()));
  }
  std::vector<std::string> key_text;
  for (const auto& row : rows) {
    for (const auto& p : row) key_text.push_back(p.first);
  }
  std::vector<std::optional<std::string_view>> key_views(key_text.begin(), key_text.end());
  ASSERT_OK_AND_ASSIGN(auto key_array, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, key_views));
  ASSERT_OK_AND_ASSIGN(ArrayPtr value_array, MakeArray(DataType(TypeId::kI64, true), values));
  ASSERT_OK_AND_ASSIGN(auto entries, StructArray::Make(entry, static_cast<int64_t>(key_text.size()),
                                                       {ArrayPtr(key_array), value_array}, Validity::AllValid()));
  BufferPtr buffer = *Buffer::Allocate(static_cast<int64_t>(offsets.size() * 4));
  std::memcpy(buffer->mutable_data(), offsets.data(), offsets.size() * 4);
  ASSERT_OK_AND_ASSIGN(auto map, ListArray::Make(type, 3, false, buffer, entries, Validity::AllValid()));
  using V = std::vector<std::string>;
  EXPECT_EQ(Values(*engine, type, map, "x['a']"), (V{"1", "null", "null"}));  // the first of equal keys
  EXPECT_EQ(Values(*engine, type, map, "x['b']"), (V{"null", "null", "2"}));
  EXPECT_EQ(Values(*engine, type, map, "map_contains(x, 'b')"), (V{"true", "false", "true"}));
  EXPECT_EQ(Values(*engine, type, map, "len(x)"), (V{"3", "0", "1"}));
  EXPECT_EQ(map->GetScalar(0).str(), "{'a': 1, 'b': null, 'a': 3}");
}

TEST(Lists, TypesAndRefusals) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  EXPECT_EQ(schema.ToString(), kSchema);
  EXPECT_EQ(*ParseDataType("i32?[]"), *ParseDataType("list<i32?>"));
  EXPECT_EQ(*ParseDataType("INTEGER[]", TypeNames::kSql), *ParseDataType("list<i32>"));
  EXPECT_FALSE(ParseDataType("map<utf8?, i32>").ok());   // keys are never null
  EXPECT_FALSE(ParseDataType("map<list<i32>, i32>").ok());
  EXPECT_FALSE(ParseDataType("list<i32, i64>").ok());
  EXPECT_FALSE(ParseDataType("list<f16>").ok());
  EXPECT_EQ((*ir::ParseAndBind("l[1]", schema))->type().ToString(), "i32?");
  EXPECT_EQ((*ir::ParseAndBind("u[1]", schema))->ToString(), "list_extract(u, 1:i64)");
  EXPECT_EQ((*ir::ParseAndBind("len(u)", schema))->type().ToString(), "i64");
  EXPECT_EQ((*ir::ParseAndBind("list_sum(u)", schema))->type().ToString(), "u64?");
  EXPECT_EQ((*ir::ParseAndBind("list_avg(l)", schema))->type().ToString(), "f64?");
  EXPECT_EQ((*ir::ParseAndBind("list_max(d)", schema))->type().ToString(), "date32?");
  EXPECT_EQ((*ir::ParseAndBind("m['a']", schema))->ToString(), "map_extract_value(m, 'a')");
  EXPECT_EQ((*ir::ParseAndBind("list_contains(big, a)", schema))->ToString(), "list_contains(big, cast(a, i64))");
  // An untyped literal beside dates is read as a date (a cast of the literal, folded).
  EXPECT_EQ((*ir::ParseAndBind("list_contains(d, '2024-02-29')", schema))->ToString(),
            (*ir::ParseAndBind("list_contains(d, cast('2024-02-29', date32))", schema))->ToString());
  // A lambda's canonical text is a string that binds to the same call.
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr lambda, ir::ParseAndBind("list_sum(list_transform(l, x -> x * 2))", schema));
  EXPECT_EQ(lambda->ToString(), "list_sum(list_transform(l, 'x -> x * 2:i32'))");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr again, ir::ParseAndBind(lambda->ToString(), schema));
  EXPECT_TRUE(again->Equals(*lambda));
  EXPECT_EQ((*ir::ParseAndBind("list_transform(f, x -> x > 0)[1]", schema))->type().ToString(), "bool?");
  const test::Refusal refused[] = {
      {"l + 1", ErrorCode::kTypeError, "add does not take a list"},
      {"len(a)", ErrorCode::kTypeError, "a string's length: length(s)"},
      {"l[1.5]", ErrorCode::kTypeError, "an integer position"},
      {"list_contains(l, 1.5)", ErrorCode::kTypeError, "a value of its element type"},
      {"list_sum(t)", ErrorCode::kTypeError, "a list of numbers"},
      {"w[1]", ErrorCode::kUnsupported, "themselves nested"},
      {"m[1]", ErrorCode::kTypeError, "literal 1 does not fit utf8"},
      {"l[1", ErrorCode::kInvalidInput, "']'"},
      {"list_sum(list_transform(l, x -> x + a))", ErrorCode::kInvalidInput, "in list_transform's lambda x -> x + a"},
      {"len(list_filter(l, x -> x + 1))", ErrorCode::kTypeError, "list_filter's lambda is a predicate"},
      {"abs(x -> 1)", ErrorCode::kInvalidInput, "a lambda (x -> ...) is the second argument"},
      {"len(list_transform(l, 3))", ErrorCode::kInvalidInput, "takes a lambda as its second argument"},
      {"len(list_transform(a, x -> x))", ErrorCode::kTypeError, "list_transform takes a list"},
  };
  test::ExpectRefused(schema, refused);
  const auto grouped = ir::ParseAndBindQuery("count(*) group by l", schema);
  ASSERT_FALSE(grouped.ok());
  EXPECT_NE(grouped.error().message().find("group by takes a column of a flat type; l is list<i32?>?"), std::string::npos)
      << grouped.error().ToString();
}

TEST(Lists, ArrowImportAndExport) {
  std::mt19937_64 rng(5);
  for (const char* text : {"list<i32?>?", "list<utf8>", "map<i64, utf8?>?", "list<struct<a:i8, b:list<f64>?>>?"}) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(const DataType type, ParseDataType(text));
    for (StringLayout layout : {StringLayout::kOffsets32, StringLayout::kOffsets64}) {
      const ArrayPtr a = RandomFlatArray(
          ArraySpec{.type = type, .length = 200, .valid_fraction = 0.7, .bit_offset = 9, .string_layout = layout}, rng);
      ASSERT_NE(a, nullptr);
      ArrowArray array;
      ArrowSchema schema;
      ASSERT_OK(ExportArray(a, &array, &schema, "l"));
      const bool large = layout == StringLayout::kOffsets64 && type.id == TypeId::kList;
      EXPECT_STREQ(schema.format, type.id == TypeId::kMap ? "+m" : large ? "+L" : "+l");
      array.offset = 30;  // the producer's slice of the parent
      array.length = 100;
      array.null_count = -1;
      ASSERT_OK_AND_ASSIGN(const ArrayPtr back, ImportArray(&array, &schema));
      EXPECT_EQ(back->type().ToString(), type.ToString());
      ASSERT_OK_AND_ASSIGN(const ArrayPtr want, a->Slice(30, 100));
      EXPECT_EQ(FirstDifference(*back, *want), -1);
      // Offsets that decrease, or pass the child's end, are refused.
      ASSERT_OK(ExportArray(a, &array, &schema, "l"));
      array.children[0]->length = 0;
      const auto refused = ImportArray(&array, &schema);
      EXPECT_FALSE(refused.ok());
    }
  }
}

}  // namespace
}  // namespace rowjit::jit
