// IN lists (in_list) against the reference evaluator: literal sets compared in turn (up to 16
// values) and searched (more: a binary search over a constant array, or a helper's over a
// table of strings), with and without a null item, beside items that are columns; every
// fixed-width type, dates, timestamps, decimals of both widths and strings in the three layouts;
// lengths around 64, slices, nulls, every policy and both tiers; and the sizes a kernel holds
// (jit).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/string_array.h"
#include "support/assert_ok.h"
#include "support/differential.h"

namespace rowjit::jit {
namespace {

// A value of `type`: strings short over a small alphabet, so that sets and rows meet.
Scalar Draw(const DataType& type, std::mt19937_64& rng) {
  if (IsString(type.id)) {
    static const char* const kPieces[] = {"a", "b", "\xc3\xa9", "x", "long enough to live out of line"};
    std::string s;
    for (size_t i = 0, n = rng() % 4; i < n; ++i) s += kPieces[rng() % (rng() % 8 == 0 ? 5 : 4)];
    return Scalar::String(s, type.id);
  }
  if (type.is_logical()) return RandomLogicalValue(type.WithNullable(false), rng);
  return rng() % 2 ? ModerateValue(type.id, rng) : RandomValue(type.id, rng);
}

// `length` rows after `offset` sliced off: about half of the valid rows drawn from `set`.
ArrayPtr Column(const DataType& type, StringLayout layout, const std::vector<Scalar>& set, int64_t offset, int64_t length,
                double valid, std::mt19937_64& rng) {
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < offset + length; ++i) {
    if (std::uniform_real_distribution<>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(type.id).As(type));
    } else {
      rows.push_back(!set.empty() && rng() % 2 ? set[rng() % set.size()] : Draw(type, rng));
    }
  }
  Result<ArrayPtr> full = MakeError(ErrorCode::kInternal, "unset");
  if (IsString(type.id)) {
    std::vector<std::optional<std::string_view>> views;
    for (const Scalar& s : rows) views.push_back(s.is_null() ? std::nullopt : std::optional(s.str()));
    auto made = MakeStringArray(type.WithNullable(true), layout, views);
    if (made.ok()) full = ArrayPtr(*made);
  } else {
    full = MakeArray(type.WithNullable(true), rows);
  }
  EXPECT_TRUE(full.ok()) << full.error().ToString();
  return *(*full)->Slice(offset, length);
}

constexpr const char* kTypes[] = {"i8",    "i16",           "i32",          "i64",   "u8",         "u16",
                                  "u32",   "u64",           "f32",          "f64",   "bool",       "date32",
                                  "timestamp(us)", "decimal64(12,2)", "decimal(30,4)", "utf8", "large_utf8",
                                  "utf8_view"};

TEST(InList, EqualsTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  int compared = 0, matched_rows = 0, null_rows = 0;
  for (const char* type_text : kTypes) {
    ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(fmt::format("x:{0}?, y:{0}?", type_text)));
    const DataType type = schema.fields[0].type.WithNullable(false);
    const StringLayout layout = schema.fields[0].layout;
    for (size_t size : {1, 3, 16, 17, 100, 1000}) {
      const uint64_t seed = std::hash<std::string>()(type_text) ^ size;
      std::mt19937_64 rng(seed);
      SCOPED_TRACE(fmt::format("{} set of {}, seed {}", type_text, size, seed));
      std::vector<Scalar> set;
      std::string items;
      for (size_t i = 0; i < size; ++i) {
        set.push_back(Draw(type, rng));
        items += (i ? ", " : "") + ir::Expr::BoundLiteral(set.back())->ToString();
      }
      const bool null_item = rng() % 3 == 0, column_item = rng() % 3 == 0;
      if (null_item) items += ", null";
      if (column_item) items += ", y";
      const std::string text = (rng() % 4 == 0 ? "x not in (" : "x in (") + items + ")";
      ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind(text, schema));
      for (int batch = 0; batch < 3; ++batch) {
        const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 700}[rng() % 5];
        const int64_t offset = rng() % 2 ? 0 : 3;
        const double valid = std::vector<double>{1.0, 0.8, 0.0}[batch];
        const std::vector<ArrayPtr> cols = {Column(type, layout, set, offset, length, valid, rng),
                                            Column(type, layout, set, offset, length, 0.7, rng)};
        ASSERT_NE(test::CompareWithReference(*engine, e, cols, length, rng), test::Compared::kMismatch)
            << text.substr(0, 200) << " length " << length << " offset " << offset;
        ++compared;
        ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length));
        for (int64_t i = 0; i < length; ++i) {
          const Scalar s = got->GetScalar(i);
          (s.is_null() ? null_rows : matched_rows) += s.is_null() || s.value<bool>() != (text[2] == 'n');
        }
      }
    }
  }
  // The data makes every answer common: rows found, nulls (null x, or a null item unmatched).
  EXPECT_GT(matched_rows, compared * 20);
  EXPECT_GT(null_rows, compared * 20);
}

// A long list is one kernel of a few nodes (its literals one constant set), compiled once: not
// the chain of comparisons it stands for, which staging would cut into dozens of kernels. Items
// that are columns still count, and a list of more of them than a kernel holds runs in stages
// that give the same answer.
TEST(InList, LongListsAreOneKernel) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema("x:i64?"));
  std::string items;
  for (int i = 0; i < 5000; ++i) items += fmt::format("{}{}", i ? ", " : "", i * 7);
  ASSERT_OK_AND_ASSIGN(const ir::ExprPtr e, ir::ParseAndBind("x in (" + items + ")", schema));
  EXPECT_LE(e->facts().kernel_nodes, 3);
  EXPECT_GT(e->facts().nodes, 5000);  // Limits::max_nodes still counts every item
  std::mt19937_64 rng(5);
  const std::vector<ArrayPtr> cols = {RandomFlatArray({DataType(TypeId::kI64, true), 5000, 0.9, 0, NullLayout::kScattered,
                                                       ValueMode::kModerate}, rng)};
  EvalReport report;
  ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, 5000, {}, &report));
  EXPECT_EQ(report.strategy, Strategy::kValidity);
  ASSERT_NE(test::CompareWithReference(*engine, e, cols, 5000, rng), test::Compared::kMismatch);

  // 300 column items against a kernel of at most 8 nodes: stages of in_list(x, group), then the
  // Kleene OR of the stages as in_list(true, ...).
  std::string schema_text = "x:i32?";
  std::string column_items;
  for (int i = 0; i < 300; ++i) {
    schema_text += fmt::format(", c{}:i32?", i);
    column_items += fmt::format(", c{}", i);
  }
  ASSERT_OK_AND_ASSIGN(const Schema wide, ParseSchema(schema_text));
  auto small = std::move(Engine::Make({.max_kernel_nodes = 8, .compile = EngineOptions::Compile::kSynchronous})).value();
  for (const std::string& text : std::vector<std::string>{"x in (1, 2, null" + column_items + ")", "x in (1, 2, 3" + column_items + ")"}) {
    ASSERT_OK_AND_ASSIGN(const ir::ExprPtr wide_e, ir::ParseAndBind(text, wide));
    for (double valid : {1.0, 0.97}) {
      std::vector<ArrayPtr> wide_cols;
      for (int c = 0; c < 301; ++c) {
        wide_cols.push_back(RandomFlatArray({DataType(TypeId::kI32, true), 200, valid, 0, NullLayout::kScattered,
                                             ValueMode::kModerate}, rng));
      }
      EvalReport wide_report;
      ASSERT_OK(small->Evaluate(wide_e, wide_cols, 200, {}, &wide_report).status());
      EXPECT_EQ(wide_report.route, Route::kStaged);
      ASSERT_NE(test::CompareWithReference(*small, wide_e, wide_cols, 200, rng), test::Compared::kMismatch)
          << text.substr(0, 40) << " valid " << valid;
    }
  }
}

}  // namespace
}  // namespace rowjit::jit
