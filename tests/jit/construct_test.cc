// Structs, lists and maps built by an expression (struct_pack, list_value and [..], map) through
// the engine against the reference: as the value, under the list, map and field functions, inside
// one another, over random batches of every null pattern and offset; values written out by hand
// for the edges (null arguments, map's errors); the printed text; the binder's refusals (jit).
#include <gtest/gtest.h>

#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"
#include "support/differential.h"
#include "support/refusals.h"

namespace rowjit::jit {
namespace {

constexpr const char* kSchema =
    "a:i32?, b:i64, x:f64?, u:u8, t:utf8?, d:date32?, c:decimal64(12,2)?, l:list<i32?>?, k:list<utf8>, "
    "v:list<i64?>, s:struct<n:i32, tags:list<i16?>?>?";

std::unique_ptr<Engine> MakeEngine() {
  return std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
}

TEST(Constructors, EqualTheReference) {
  auto engine = MakeEngine();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  const char* texts[] = {
      // As the value.
      "struct_pack(p := a, q := b + 1)",
      "struct_pack(a, t, s.n, tags := s.tags)",
      "struct_pack(y := x * 2.0, when := d, money := c, l)",
      "struct_pack(inner := struct_pack(a, u), outer := [a, 7])",
      "list_value(a, b, 3)",
      "[x, 0.5, x * x]",
      "[t, upper(t), 'z']",
      "[d, d]",
      "[c, abs(c)]",
      "[c, c * 2, 1.5]",           // decimals rescaled to one type
      "[d, null]",
      "map([a > 0, a is null], [x, 1.0])",  // bool keys
      "list_transform([a, b], y -> 1000 / (y % 3))",  // fails in rows where the list holds a multiple of 3 ...
      "len(list_filter([a, u], y -> 100 / (y % 4) > 1))",  // ... a row's error hidden where a column is null
      "if(a is null, list_sum(list_transform([a, b], y -> 1000 / (y % 3))), 0)",  // values where it is hidden
      "[a > 0, a is null]",
      "list_pack(u, u)",
      "map(k, v)",                 // fails where the lists' lengths differ or a key repeats
      "map(['one', 'two'], [a, b])",
      "map([1, 2, 3], l)",         // fails where l's length is not 3
      "struct_pack(m := map(['k'], [x]), n := len(l))",
      "if(len(k) = len(v), len(map(k, v)), 0)",
      // Read by the list, map and field functions.
      "len([a, b, 3])",
      "[a, b][2] + 1",
      "list_sum([a, b, u])",
      "list_max([x, 1.5, x / 3.0])",
      "list_contains([a, 5, 6], 5)",
      "list_contains([t, 'ab'], 'ab')",
      "map(['one', 'two'], [a, b])['two']",
      "map_contains(map(['p'], [a]), 'q')",
      "struct_pack(p := a + 1, q := t).p * 2",
      "list_sum(list_transform([a, b], y -> y * 2))",
      "len(list_filter([x, x + 1.0, 2.0], y -> y > 1.0))",
      "[a * 1000000000, 1][1]",    // a checked product that overflows in some rows, read quietly
      "struct_pack(big := a * 1000000000)",
      "[if(a > 2, a * 1000000000, 0), a]",
  };
  for (uint64_t seed = 0; seed < 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{1000, 65, 1, 0}[seed % 4];
    const int64_t offset = seed % 3 == 0 ? 5 : 0;
    ASSERT_OK_AND_ASSIGN(const RecordBatch batch, RandomBatch(schema, length, seed % 2 == 0 ? 0.8 : 1.0, seed, {}, offset));
    for (const char* text : texts) {
      SCOPED_TRACE(text);
      ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_NE(test::CompareWithReference(*engine, e, batch.columns, length, rng), test::Compared::kMismatch);
    }
    // A projection, a filter, folds and a top-k over built values.
    const char* outputs[] = {"[a, b]", "struct_pack(a, t)", "len(map(['x'], [a]))", "a"};
    const char* folds[] = {"sum(list_sum([a, u]))", "max(len([t, t]))"};
    test::ExpectShapesEqualReference(*engine, schema, batch.columns, length, outputs, "list_sum([a, b]) > 0", folds,
                                     "top_k(list_max([x, 1.0]), 3) where [a, 1][1] > 0");
  }
}

// The rows of a small batch, written out: a null argument is a null field or element, never a
// null struct or list; map pairs the lists in order and fails on unequal lengths, null and
// repeated keys.
TEST(Constructors, ValuesByHand) {
  auto engine = MakeEngine();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("a:i32?, t:utf8?, k:list<utf8?>?, v:list<i64>"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, MakeArray(std::vector<std::optional<int32_t>>{1, std::nullopt, 3}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr t, ArrayFromText(DataType(TypeId::kUtf8, true), "['x', null, 'z']"));
  const auto str = [](const char* x) { return Scalar::String(x); };
  const Scalar null_key = Scalar::Null(TypeId::kUtf8);
  const DataType keys_type = *ParseDataType("list<utf8?>?");
  const ArrayPtr k = test::ListOf(keys_type, {std::vector<Scalar>{str("p"), str("q")}, std::nullopt,
                                              std::vector<Scalar>{str("r")}});
  const ArrayPtr v = test::ListOf(*ParseDataType("list<i64>"),
                                  {std::vector<Scalar>{Scalar::Of(int64_t{1}), Scalar::Of(int64_t{2})},
                                   std::vector<Scalar>{Scalar::Of(int64_t{3})}, std::vector<Scalar>{Scalar::Of(int64_t{4})}});
  const std::vector<ArrayPtr> columns{a, t, k, v};
  const auto rows = [&](const char* text) -> std::vector<std::string> {
    auto e = ir::ParseAndBind(text, schema);
    EXPECT_TRUE(e.ok()) << text << ": " << e.error().ToString();
    auto out = engine->Evaluate(*e, columns, 3);
    EXPECT_TRUE(out.ok()) << text << ": " << out.error().ToString();
    std::vector<std::string> texts;
    for (int64_t i = 0; i < 3; ++i) texts.push_back((*out)->GetScalar(i).ToString());
    return texts;
  };
  EXPECT_EQ(rows("struct_pack(n := a, s := t)"),
            (std::vector<std::string>{"{n: 1, s: 'x'}", "{n: null, s: null}", "{n: 3, s: 'z'}"}));
  EXPECT_EQ(rows("[a, 10, a * 2]"), (std::vector<std::string>{"[1, 10, 2]", "[null, 10, null]", "[3, 10, 6]"}));
  EXPECT_EQ(rows("len([t, t])"), (std::vector<std::string>{"2:i64", "2:i64", "2:i64"}));
  EXPECT_EQ(rows("map(k, v)"), (std::vector<std::string>{"{'p': 1, 'q': 2}", "null", "{'r': 4}"}));
  EXPECT_EQ(rows("map(['one'], [a])['one']"), (std::vector<std::string>{"1:i32", "null:i32", "3:i32"}));

  using Row = std::optional<std::vector<Scalar>>;
  const auto error = [&](const char* text, const std::vector<Row>& keys_rows, int64_t row, const char* message) {
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
    const std::vector<ArrayPtr> with{a, t, test::ListOf(keys_type, keys_rows), v};
    auto out = engine->Evaluate(e, with, 3);
    ASSERT_FALSE(out.ok()) << text;
    auto ref = ir::EvaluateReference(*e, with, 3);
    ASSERT_FALSE(ref.ok()) << text;
    EXPECT_EQ(out.error().message(), ref.error().message());
    EXPECT_EQ(out.error().row(), ref.error().row());
    EXPECT_EQ(out.error().row(), std::optional<int64_t>(row)) << out.error().ToString();
    EXPECT_NE(out.error().message().find(message), std::string::npos) << out.error().ToString();
  };
  const Row pq = std::vector<Scalar>{str("p"), str("q")}, r = std::vector<Scalar>{str("r")};
  error("map(k, v)", {pq, std::vector<Scalar>{str("a"), str("b")}, r}, 1, "map: 2 keys and 1 value: its lists pair in order");
  error("map(k, v)", {pq, std::vector<Scalar>{null_key}, r}, 1, "map: a key is null");
  error("len(map(k, v)) + 1", {pq, std::vector<Scalar>{null_key}, r}, 1, "map: a key is null");  // under other calls
  error("map(k, v)", {std::vector<Scalar>{str("s"), str("s")}, std::nullopt, r}, 0, "map: the key 's' repeats");
}

// The canonical text parses back to the same call; a field of struct_pack is its value.
TEST(Constructors, TextAndBinding) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  for (const char* text : {"struct_pack(p := a, \"q r\" := t)", "[a, 1]", "map(k, v)", "struct_pack(a, s.n)",
                           "[1.5, 2]", "list_sum([a, b])"}) {
    SCOPED_TRACE(text);
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr again, ir::ParseAndBind(e->ToString(), schema));
    EXPECT_EQ(again->ToString(), e->ToString());
    EXPECT_TRUE(again->type().SameType(e->type()));
  }
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr pack, ir::ParseAndBind("struct_pack(p := a, \"q r\" := t)", schema));
  EXPECT_EQ(pack->ToString(), "struct_pack(p := a, \"q r\" := t)");
  EXPECT_EQ(pack->type().ToString(), "struct<p:i32?, q r:utf8?>");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr named, ir::ParseAndBind("struct_pack(a, s.n)", schema));
  EXPECT_EQ(named->type().ToString(), "struct<a:i32?, n:i32?>");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr list, ir::ParseAndBind("[a, b, 3]", schema));
  EXPECT_EQ(list->ToString(), "list_value(cast(a, i64), b, 3:i64)");
  EXPECT_EQ(list->type().ToString(), "list<i64?>");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr numbers, ir::ParseAndBind("[1.5, 2]", schema));
  EXPECT_EQ(numbers->type().ToString(), "list<f64?>");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr map, ir::ParseAndBind("map(k, v)", schema));
  EXPECT_EQ(map->type().ToString(), "map<utf8, i64?>?");
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr field, ir::ParseAndBind("struct_pack(p := a + 1, q := t).p", schema));
  EXPECT_EQ(field->ToString(), "a + 1:i32");
}

TEST(Constructors, Refusals) {
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(kSchema));
  const test::Refusal cases[] = {
      {"struct_pack(a + 1)", ErrorCode::kInvalidInput, "struct_pack names its fields: struct_pack(x := a + 1"},
      {"struct_pack(p := a, p := b)", ErrorCode::kInvalidInput, "struct_pack names field 'p' twice"},
      {"struct_pack()", ErrorCode::kInvalidInput, "struct_pack takes 1 or more arguments"},
      {"abs(p := a)", ErrorCode::kInvalidInput, "a named value (x := ...) is an argument of struct_pack"},
      {"[a, t]", ErrorCode::kTypeError, "list_value"},
      {"[l, l]", ErrorCode::kTypeError, "list_value"},
      {"map(k)", ErrorCode::kInvalidInput, "map takes 2 arguments"},
      {"map(a, b)", ErrorCode::kTypeError, "a list of keys and a list of values"},
      {"map([s, s], [1, 2])", ErrorCode::kTypeError, "list_value"},
      {"map([c], [1])", ErrorCode::kTypeError, "a map's keys are numbers"},
      {"map([x], [s])", ErrorCode::kTypeError, "list_value"},
      {"[d, 5]", ErrorCode::kTypeError, "list_value's arguments must share one logical type"},
      {"s['n']", ErrorCode::kTypeError, "s is a struct: its fields are read as s.name"},
      {"x := 1", ErrorCode::kInvalidInput, "x := value names a field of struct_pack"},
      {"[]", ErrorCode::kInvalidInput, "nor a list ([] has no element type)"},
  };
  test::ExpectRefused(schema, cases);
}

}  // namespace
}  // namespace rowjit::jit
