// String kernels against the reference evaluator, value for value and null for null: the three
// Arrow layouts, slices at any offset, nulls, empty strings, multibyte characters, long strings
// across several view buffers, literal, batch-constant and column patterns, every policy and
// tier (jit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <random>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/exec/executor_internal.h"
#include "jit/gates/kernel_request.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/string_array.h"
#include "support/assert_ok.h"
#include "support/random_data.h"
#include "support/result_text.h"

namespace rowjit::jit {
namespace {

constexpr StringLayout kLayouts[] = {StringLayout::kOffsets32, StringLayout::kOffsets64,
                                     StringLayout::kViews};

// Short strings over a small alphabet (so literals and patterns match often), with a two-byte
// and a three-byte character, `%`, `_` and the escape among them; one row in eight long.
std::string RandomString(std::mt19937_64& rng) {
  static const char* const kPieces[] = {"a", "b", "A", "c", "\xc3\xa9", "\xe6\x97\xa5", "%", "_", "\\", "x"};
  const size_t n = rng() % 8 == 0 ? 13 + rng() % 40 : rng() % 9;
  std::string s;
  while (s.size() < n) s += kPieces[rng() % std::size(kPieces)];
  return s;
}

// Views whose long strings spread over three data buffers (with gaps).
Result<ArrayPtr> MultiBufferViews(DataType type, const std::vector<std::optional<std::string>>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  std::vector<std::string> data(3);
  ROWJIT_ASSIGN_OR_RETURN(auto views, Buffer::Allocate(n * kViewBytes));
  ROWJIT_ASSIGN_OR_RETURN(auto bits, Buffer::Allocate(kernels::NumBytes(n)));
  for (int64_t i = 0; i < n; ++i) {
    const std::string s = rows[i].value_or("");
    if (rows[i]) bits->mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    uint8_t* v = views->mutable_data() + i * kViewBytes;
    const int32_t len = static_cast<int32_t>(s.size());
    std::memcpy(v, &len, 4);
    if (len <= kViewInlineMax) {
      std::memcpy(v + 4, s.data(), s.size());
      continue;
    }
    const int32_t buffer = static_cast<int32_t>(i % 3);
    data[buffer] += "gap";
    const int32_t offset = static_cast<int32_t>(data[buffer].size());
    data[buffer] += s;
    std::memcpy(v + 4, s.data(), 4);
    std::memcpy(v + 8, &buffer, 4);
    std::memcpy(v + 12, &offset, 4);
  }
  std::vector<BufferPtr> buffers;
  for (const std::string& d : data) {
    ROWJIT_ASSIGN_OR_RETURN(auto b, Buffer::Allocate(static_cast<int64_t>(d.size())));
    std::memcpy(b->mutable_data(), d.data(), d.size());
    buffers.push_back(std::move(b));
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, Validity::FromBitmap(std::move(bits), 0, n));
  ROWJIT_ASSIGN_OR_RETURN(auto arr, StringArray::MakeViews(type, n, std::move(views), std::move(buffers),
                                                           std::move(validity)));
  return ArrayPtr(std::move(arr));
}

struct Column {
  ArrayPtr array;
  std::vector<std::optional<std::string>> rows;  // what it holds, for choosing literals
};

using Generator = std::string (*)(std::mt19937_64&);

Column RandomColumn(DataType type, StringLayout layout, int64_t length, double valid, std::mt19937_64& rng,
                    Generator gen = RandomString) {
  const int64_t offset = std::vector<int64_t>{0, 3, 64}[rng() % 3];
  std::vector<std::optional<std::string>> rows;
  for (int64_t i = 0; i < offset + length; ++i) {
    const bool is_valid = std::uniform_real_distribution<>(0, 1)(rng) < valid;
    rows.push_back(is_valid || !type.nullable ? std::optional<std::string>(gen(rng)) : std::nullopt);
  }
  Result<ArrayPtr> full = MakeError(ErrorCode::kInternal, "unset");
  if (layout == StringLayout::kViews && rng() % 2 == 0) {
    full = MultiBufferViews(type, rows);
  } else {
    std::vector<std::optional<std::string_view>> views(rows.begin(), rows.end());
    auto made = MakeStringArray(type, layout, views);
    if (made.ok()) full = ArrayPtr(*made);
  }
  EXPECT_TRUE(full.ok()) << full.error().ToString();
  Column c;
  c.array = *(*full)->Slice(offset, length);
  c.rows.assign(rows.begin() + offset, rows.end());
  return c;
}

// A literal near the data: a row, a piece of one, or something that matches nothing.
std::string Near(const Column& c, std::mt19937_64& rng) {
  std::vector<std::string> present;
  for (const auto& r : c.rows) {
    if (r) present.push_back(*r);
  }
  if (present.empty() || rng() % 5 == 0) return RandomString(rng);
  std::string s = present[rng() % present.size()];
  if (rng() % 2 == 0 && !s.empty()) {
    const size_t from = rng() % s.size();
    s = s.substr(from, rng() % (s.size() - from + 1));
  }
  return s;
}

std::string Quoted(const std::string& s) { return QuoteString(s); }

// A LIKE pattern built around a piece of the data.
std::string Pattern(const Column& c, std::mt19937_64& rng) {
  const std::string p = Near(c, rng), q = Near(c, rng);
  switch (rng() % 9) {
    case 0: return p;
    case 1: return p + "%";
    case 2: return "%" + p;
    case 3: return "%" + p + "%";
    case 4: return p + "%" + q;
    case 5: return "_" + p + "%";
    case 6: return "%" + p + "_" + q;
    case 7: return "%" + p + "%" + q + "%";
    default: return "\\%" + p + "\\_%";
  }
}

std::vector<std::string> Expressions(const Column& s, std::mt19937_64& rng) {
  const bool utf8 = s.array->type().id == TypeId::kUtf8;
  const std::string code_points = utf8 ? "char_length(s)" : "length(s)";
  const std::string lit = Quoted(Near(s, rng)), lit2 = Quoted(Near(s, rng));
  const std::string pat = Quoted(Pattern(s, rng));
  return {
      "s = " + lit, "s != " + lit, lit + " = s", "s < " + lit, "s >= " + lit,
      "starts_with(s, " + lit + ")", "ends_with(s, " + lit + ")", "contains(s, " + lit + ")",
      "s like " + pat, "s ilike " + pat, "not (s like " + pat + ")",
      "length(s) > 3", code_points + " * 2 + length(t)", "length(s) = " + code_points,
      "s = t", "s < t", "s >= t", "starts_with(s, t)", "ends_with(t, s)", "contains(s, t)",
      "like(s, t)", "ilike(t, s)", "hash(s) % 7 = 3", "hash(s) = hash(t)",
      "coalesce(s, " + lit + ") = " + lit2, "if(length(s) > 3, s, t) = " + lit,
      // A view's address must follow the string coalesce picks, not the last argument's.
      "coalesce(s, t) = " + lit, "starts_with(coalesce(t, s), " + lit + ")", "coalesce(s, t, " + lit + ") < " + lit2,
      "between(s, " + lit + ", " + lit2 + ")", "is_null(s) or s = " + lit,
      "s = " + lit + " and length(t) < 5", "s = ''", "s like ''", "s like '%'",
  };
}

ArrayPtr Constant(const Column& c, std::mt19937_64& rng) {
  std::optional<std::string> v = c.rows.empty() ? std::nullopt : c.rows[rng() % c.rows.size()];
  auto a = ConstantArray::Make(v ? Scalar::String(*v, c.array->type().id) : Scalar::Null(c.array->type().id),
                               c.array->length(), true);
  return *a;
}

TEST(Strings, KernelsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                  ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  int compared = 0;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId id = seed % 4 == 3 ? TypeId::kBinary : TypeId::kUtf8;
    const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 130, 1000}[seed % 7];
    const double valid = std::vector<double>{1.0, 0.7, 0.0}[seed % 3];
    const StringLayout sl = kLayouts[seed % 3], tl = kLayouts[(seed / 3) % 3];
    const Column s = RandomColumn(DataType(id, true), sl, length, valid, rng);
    Column t = RandomColumn(DataType(id, seed % 2 == 0), tl, length, 0.8, rng);
    if (seed % 5 == 4) t.array = Constant(t, rng);  // a batch-constant argument
    const Schema schema{{{"s", DataType(id, true)}, {"t", t.array->type()}}};
    const std::vector<ArrayPtr> cols = {s.array, t.array};
    for (const std::string& text : Expressions(s, rng)) {
      SCOPED_TRACE(fmt::format("seed {} {} s:{} t:{} rows {}: {}", seed, TypeIdName(id), StringLayoutName(sl),
                               StringLayoutName(tl), length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
      const ir::Policy policy = kPolicies[rng() % std::size(kPolicies)];
      const Tier tier = rng() % 3 == 0 ? Tier::kFast : Tier::kOptimized;
      ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length, {.policy = policy, .tier = tier}));
      ASSERT_EQ(got->type(), want->type());
      const int64_t diff = FirstDifference(*got, *want);
      ASSERT_EQ(diff, -1) << "policy " << ir::PolicyName(policy) << " row " << diff << ": got "
                          << got->GetScalar(diff).ToString() << ", want " << want->GetScalar(diff).ToString()
                          << " (s = " << s.array->GetScalar(diff).ToString() << ")";
      ++compared;
    }
  }
  EXPECT_GT(compared, 1500);
}

// Each aggregate of `texts` through the engine equals the reference fold.
void ExpectFoldsEqual(Engine& engine, const std::vector<std::string>& texts, const Schema& schema,
                      const std::vector<ArrayPtr>& cols, int64_t length, uint64_t seed) {
  for (const std::string& text : texts) {
    SCOPED_TRACE(fmt::format("seed {}: {}", seed, text));
    ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
    ASSERT_OK_AND_ASSIGN(ir::AggregateResult want, ir::EvaluateAggregateReference(agg, cols, length));
    ASSERT_OK_AND_ASSIGN(ir::AggregateResult got, engine.Aggregate(agg, cols, length));
    EXPECT_TRUE(got == want);
  }
}

TEST(Strings, FoldsOverStringFunctions) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  for (uint64_t seed = 0; seed < 12; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{0, 63, 64, 65, 1000, 5000}[seed % 6];
    const Column s = RandomColumn(DataType(TypeId::kUtf8, true), kLayouts[seed % 3], length, 0.6, rng);
    const Schema schema{{{"s", s.array->type()}}};
    const std::vector<ArrayPtr> cols = {s.array};
    ExpectFoldsEqual(*engine, {"sum(length(s))", "count(s)", "max(char_length(s))", "min(s)", "max(s)", "min_max(s)",
                               "max(lower(s))", "any(s like '%a%')", "count(s = " + Quoted(Near(s, rng)) + ")"},
                     schema, cols, length, seed);
  }
}

// A predicate over a dictionary-encoded column runs once per dictionary value and is gathered
// through the codes: rows with a null code take the expression's value over a null (is_null is
// true there, coalesce takes its fallback); a fallible expression never does (a value no row
// uses must not fail), nor does a dictionary larger than the batch.
TEST(Strings, DictionaryColumnsRunOncePerValue) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  for (uint64_t seed = 0; seed < 6; ++seed) {
    std::mt19937_64 rng(seed);
    const Column values = RandomColumn(DataType(TypeId::kUtf8, seed % 2 == 0), kLayouts[seed % 3], 300, 0.9, rng);
    const int64_t n = std::vector<int64_t>{5000, 601, 64}[seed % 3];
    auto codes = *Buffer::Allocate(n * 2);
    auto bits = *Buffer::Allocate(kernels::NumBytes(n));
    for (int64_t i = 0; i < n; ++i) {
      reinterpret_cast<int16_t*>(codes->mutable_data())[i] = static_cast<int16_t>(rng() % 300);
      if (rng() % 8 != 0) bits->mutable_data()[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    }
    auto code_array = *PrimitiveArray::Make(DataType(TypeId::kI16, true), n, codes, *Validity::FromBitmap(bits, 0, n));
    ArrayPtr dict = *DictionaryArray::Make(code_array, values.array);
    const Schema schema{{{"s", dict->type()}}};
    const std::vector<ArrayPtr> cols = {dict};
    const std::string lit = Quoted(Near(values, rng));
    for (const std::string& text : std::vector<std::string>{"s like '%a%'", "is_null(s)", "coalesce(s, 'x') = 'x'", "length(s)",
                                    "s = " + lit, "length(s) * 3000000000000000000 > 1"}) {
      SCOPED_TRACE(fmt::format("seed {} rows {}: {}", seed, n, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      auto want = ir::EvaluateReference(*e, cols, n);
      EvalReport report;
      auto got = engine->Evaluate(e, cols, n, {}, &report);
      ASSERT_EQ(got.ok(), want.ok()) << (got.ok() ? want.error().ToString() : got.error().ToString());
      if (!got.ok()) {
        EXPECT_NE(report.route, Route::kOverDictionary);
        continue;
      }
      EXPECT_EQ(FirstDifference(**got, **want), -1) << (*got)->ToString() << " vs " << (*want)->ToString();
      const bool fallible = text.find("3000") != std::string::npos;
      // At most one dictionary value a row (kDictionaryRowsPerValue, jit/plan/route.cc).
      EXPECT_EQ(report.route == Route::kOverDictionary, !fallible && n >= 300) << RouteName(report.route);
    }
  }
}

TEST(Strings, TheCacheKeyCarriesTheLiteral) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(auto s, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, {"ab", "abc", "b"}));
  const Schema schema{{{"s", s->type()}}};
  const std::vector<ArrayPtr> cols = {s};
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr a, ir::ParseAndBind("s = 'ab'", schema));
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr b, ir::ParseAndBind("s = 'b'", schema));
  EvalReport ra, rb;
  ASSERT_OK_AND_ASSIGN(ArrayPtr x, engine->Evaluate(a, cols, 3, {}, &ra));
  ASSERT_OK_AND_ASSIGN(ArrayPtr y, engine->Evaluate(b, cols, 3, {}, &rb));
  EXPECT_EQ(x->ToString(), "[true, false, false]");
  EXPECT_EQ(y->ToString(), "[false, false, true]");
  EXPECT_TRUE(ra.compiled);
  EXPECT_TRUE(rb.compiled);  // another literal, another kernel
  ASSERT_TRUE(ra.kernel.has_value());
  EXPECT_NE(ra.kernel->ToString(), rb.kernel->ToString());
}

// `text` over `cols` (`n` rows) through the engine equals the reference; `report` tells how it ran.
void ExpectTheReference(Engine& engine, const std::string& text, const Schema& schema, const std::vector<ArrayPtr>& cols,
                        int64_t n, EvalReport& report) {
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine.Evaluate(e, cols, n, {}, &report));
  ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, n));
  EXPECT_EQ(FirstDifference(*got, *want), -1);
}

// A dense predicate that implies a length test over offsets runs in two phases per word: the
// lengths in a vector loop, the bytes only for the lanes that pass (KernelShape::length_prefilter).
// Over views a short literal is compared in registers, without one; so is a predicate that does
// not imply a length.
TEST(Strings, EqualityOverOffsetsTestsLengthsFirst) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  std::mt19937_64 rng(11);
  for (StringLayout layout : kLayouts) {
    const Column s = RandomColumn(DataType(TypeId::kUtf8, false), layout, 1000, 1.0, rng);
    const Schema schema{{{"s", s.array->type()}}};
    const std::vector<ArrayPtr> cols = {s.array};
    const std::string lit = Quoted(Near(s, rng)), longer = Quoted(std::string(20, 'a'));
    for (const auto& [text, prefiltered] : std::vector<std::pair<std::string, bool>>{
             {"s = " + lit, layout != StringLayout::kViews}, {"s = " + longer, true},
             {"s like 'ab' and length(s) > 1", layout != StringLayout::kViews},
             {"s = " + lit + " or s = " + longer, layout != StringLayout::kViews},
             {"s in (" + lit + ", " + longer + ", 'x')", layout != StringLayout::kViews},
             {"s in (" + longer + ", " + Quoted(std::string(30, 'b')) + ")", true},
             {"s in ('a', 'bb', 'ccc', 'dddd', 'eeeee')", false},  // five lengths: no prefilter
             {"s = " + longer + " or length(s) > 3", false}, {"not (s = " + lit + ")", false}}) {
      SCOPED_TRACE(fmt::format("{}: {}", StringLayoutName(layout), text));
      EvalReport report;
      ExpectTheReference(*engine, text, schema, cols, 1000, report);
      ASSERT_TRUE(report.kernel.has_value());
      EXPECT_EQ(report.kernel->shape.length_prefilter, prefiltered) << report.kernel->ToString();
    }
  }
}

// Rows of 0-1000 bytes (lengths near the 16-byte blocks of the search among them) and needles cut
// from the data, often across two adjacent rows (which must not match), with their case flipped
// for ILIKE: substring searches in every kernel form (a word's rows searched at once; per row in
// row loops and folds) equal the reference, over every layout, slices and nulls.
std::string SearchRow(std::mt19937_64& rng) {
  static const size_t kLengths[] = {0, 1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 1000};
  const size_t n = rng() % 2 == 0 ? kLengths[rng() % std::size(kLengths)] : rng() % 40;
  std::string s;
  while (s.size() < n) s += std::vector<std::string>{"a", "b", "B", "n", "\xc3\xa9", "%"}[rng() % 6];
  return s;
}

TEST(Strings, SubstringSearchesEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  for (uint64_t seed = 0; seed < 30; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId id = seed % 5 == 4 ? TypeId::kBinary : TypeId::kUtf8;
    const int64_t length = std::vector<int64_t>{1, 64, 65, 200, 700}[seed % 5];
    const double valid = std::vector<double>{1.0, 0.8}[seed % 2];
    const Column s = RandomColumn(DataType(id, true), kLayouts[seed % 3], length, valid, rng, SearchRow);
    std::string joined;  // two adjacent rows: a needle from it may span them
    const int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(length));
    for (int64_t r = at; r < std::min(length, at + 2); ++r) joined += s.rows[r].value_or("");
    std::string needle = joined.empty() ? "ab" : joined.substr(rng() % joined.size(), 1 + rng() % 12);
    if (needle.find_first_of("%_\\") != std::string::npos) needle = "nab";
    std::string flipped = needle;
    for (char& c : flipped) c = std::isalpha(static_cast<unsigned char>(c)) && rng() % 2 ? c ^ 0x20 : c;
    const std::string n = Quoted(needle), f = Quoted(flipped);
    const Schema schema{{{"s", s.array->type()}}};
    const std::vector<ArrayPtr> cols = {s.array};
    for (const std::string& text : std::vector<std::string>{
             "contains(s, " + n + ")", "s like " + Quoted("%" + needle + "%"), "s ilike " + Quoted("%" + flipped + "%"),
             "not contains(s, " + f + ")", "contains(s, " + n + ") and s ilike " + Quoted("%" + flipped + "b%"),
             "s like '%b%' or length(s) = 3", "s like " + Quoted("%" + needle + "%") + " and s = " + n,
             "if(contains(s, " + n + "), 1, 2)", "if(s ilike " + Quoted("%" + flipped + "%") + ", 1, 2)"}) {
      SCOPED_TRACE(fmt::format("seed {} {} rows {}: {}", seed, StringLayoutName(kLayouts[seed % 3]), length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
      for (const ir::Policy policy : {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kBranchSkip}) {
        ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length, {.policy = policy}));
        const int64_t diff = FirstDifference(*got, *want);
        ASSERT_EQ(diff, -1) << ir::PolicyName(policy) << " row " << diff << " (s = '" << s.rows[diff].value_or("null")
                            << "'): got " << got->GetScalar(diff).ToString();
      }
    }
    ExpectFoldsEqual(*engine, {"any(s ilike " + Quoted("%" + flipped + "%") + ")",
                               "sum(if(s like " + Quoted("%" + needle + "%") + ", 1, 0))"},
                     schema, cols, length, seed);
  }
}

// A search or a code point count runs in a kernel of 64-row words on x86, whatever its result
// and its layout (the word's rows are searched or counted at once).
TEST(Strings, SearchesRunWords) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  std::mt19937_64 rng(5);
  for (StringLayout layout : kLayouts) {
    const Column s = RandomColumn(DataType(TypeId::kUtf8, false), layout, 1000, 1.0, rng, SearchRow);
    const Schema schema{{{"s", s.array->type()}}};
    const std::vector<ArrayPtr> cols = {s.array};
    for (const std::string text : {"if(contains(s, 'ab'), 1, 2)", "if(s ilike '%Ab%', 1.5, 2.5)", "char_length(s) * 3"}) {
      SCOPED_TRACE(fmt::format("{}: {}", StringLayoutName(layout), text));
      EvalReport report;
      ExpectTheReference(*engine, text, schema, cols, 1000, report);
      ASSERT_TRUE(report.kernel.has_value());
#if defined(__x86_64__)  // word searches and counts use x86's SSE2; other targets keep their loops
      EXPECT_EQ(report.kernel->shape.loop, KernelLoop::kWords) << report.kernel->ToString();
#endif
    }
  }
}

// Integers to text at every digit count: each type's extremes and both sides of every power of
// ten it holds, with and without a sign, against the reference.
TEST(Strings, IntegersToTextAtEveryDigitCount) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  for (const TypeId id : {TypeId::kI8, TypeId::kI16, TypeId::kI32, TypeId::kI64, TypeId::kU8, TypeId::kU16,
                          TypeId::kU32, TypeId::kU64}) {
    const DataType type(id, false);
    std::vector<Scalar> rows;
    const bool is_signed = IsSignedInt(id);
    const int bits = BitWidth(id);
    const uint64_t max = is_signed ? (uint64_t{1} << (bits - 1)) - 1 : (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
    auto add = [&](uint64_t magnitude, bool negative) {
      if (magnitude > max + (negative ? 1 : 0) || (negative && !is_signed)) return;
      const uint64_t v = negative ? uint64_t{0} - magnitude : magnitude;
      rows.push_back(Scalar::FromBits(id, v));
    };
    add(0, false);
    for (uint64_t p = 1; p != 0 && p <= max; p = p > max / 10 ? 0 : p * 10) {
      for (const uint64_t m : {p - 1, p, p + 1}) {
        add(m, false);
        add(m, true);
      }
    }
    add(max, false);
    add(max, true);
    add(max + 1, true);  // the signed minimum
    ASSERT_OK_AND_ASSIGN(ArrayPtr col, MakeArray(type, rows));
    const int64_t n = col->length();
    const Schema schema{{{"a", type}}};
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("cast(a, utf8)", schema));
    const std::vector<ArrayPtr> cols = {col};
    ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, n));
    ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, n));
    EXPECT_EQ(FirstDifference(*got, *want), -1) << TypeIdName(id);
    EXPECT_GT(n, 10) << TypeIdName(id);
  }
}

// Functions returning strings: computed outside kernels into exactly sized string arrays
// (Strategy::kStrings), returned as results or read by the kernel of the rest; against the
// reference over every layout, nulls and multibyte characters.
TEST(Strings, StringValuedCallsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  int compared = 0;
  for (uint64_t seed = 0; seed < 18; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId id = seed % 3 == 2 ? TypeId::kBinary : TypeId::kUtf8;
    const int64_t length = std::vector<int64_t>{0, 1, 64, 65, 300}[seed % 5];
    const Column s = RandomColumn(DataType(id, true), kLayouts[seed % 3], length, 0.8, rng);
    const Column t = RandomColumn(DataType(id, false), kLayouts[(seed + 1) % 3], length, 1.0, rng);
    const Schema schema{{{"s", s.array->type()}, {"t", t.array->type()}, {"i", DataType(TypeId::kI32, true)}}};
    std::vector<int32_t> starts;
    for (int64_t r = 0; r < length; ++r) starts.push_back(static_cast<int32_t>(rng() % 9) - 3);
    std::vector<std::optional<int32_t>> is(starts.begin(), starts.end());
    ASSERT_OK_AND_ASSIGN(ArrayPtr i, MakeArray<int32_t>(is));
    const std::vector<ArrayPtr> cols = {s.array, t.array, i};
    const std::string lit = Quoted(Near(s, rng));
    for (const std::string& text : std::vector<std::string>{
             "lower(s)", "upper(s) = upper(" + lit + ")", "substr(s, 2, 3)", "substr(s, i, 4)",
             "substr(s, -1, 3)", "substr(s, 2, -1)", "substr(s, i, 2) || t", "concat(s, t, s)",
             "s || '-' || t = " + lit, "trim(s)", "ltrim(s) = rtrim(t)", "replace(s, 'a', 'xy')",
             "replace(s, '', 'q')", "length(concat(s, t)) > 5", "coalesce(s, 'x')",
             "if(length(s) > 2, lower(s), t)", "starts_with(lower(s), 'a') and length(t) < 9", "s"}) {
      SCOPED_TRACE(fmt::format("seed {} rows {}: {}", seed, length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
      EvalReport report;
      ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length, {}, &report));
      ASSERT_EQ(got->type().id, want->type().id);
      const int64_t diff = FirstDifference(*got, *want);
      ASSERT_EQ(diff, -1) << "row " << diff << ": got " << got->GetScalar(diff).ToString() << ", want "
                          << want->GetScalar(diff).ToString();
      if (IsString(got->type().id)) {
        ASSERT_OK(got->Validate());
      }
      ++compared;
    }
    for (const char* text : {"count(lower(s) = 'a')", "sum(length(s || t))", "count(upper(s))"}) {
      ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
      ASSERT_OK_AND_ASSIGN(ir::AggregateResult want, ir::EvaluateAggregateReference(agg, cols, length));
      ASSERT_OK_AND_ASSIGN(ir::AggregateResult got, engine->Aggregate(agg, cols, length));
      EXPECT_TRUE(got == want) << text;
    }
  }
  EXPECT_EQ(compared, 18 * 18);
}

// Spaces around, lone continuation bytes and a cut multibyte character (invalid UTF-8): what
// trim and substr walk; the bytes at the edges of the ASCII letters: what case changes test.
std::string EdgyString(std::mt19937_64& rng) {
  std::string s = RandomString(rng);
  // The bytes around the letters' ranges, and high bytes whose low 7 bits are letters.
  static constexpr std::string_view kEdges = "@AZ[`az{\xc1\xda\xe1\xfa";
  for (int k = static_cast<int>(rng() % 4); k > 0; --k) s.insert(rng() % (s.size() + 1), 1, kEdges[rng() % kEdges.size()]);
  if (rng() % 4 == 0) s = std::string(rng() % 3, ' ') + s + std::string(rng() % 3, ' ');
  if (rng() % 8 == 0) s = "\x80" + s;
  if (rng() % 8 == 0) s += "\xc3";
  if (rng() % 16 == 0) s = std::string(rng() % 4, ' ');
  return s;
}

// The column forms of string-valued calls (ir/string_columns.h) against the row-at-a-time
// reference: every layout, slices, all-valid, mixed and all-null columns, dictionaries (with
// null codes and null values), batch constants (null too), integer positions of every sign and
// u64 past INT64_MAX, nested calls, and string-valued roots (coalesce, if, greatest, least) whose
// non-string arguments run through kernels. Each expression is checked to take the column path
// (no subexpression through the reference).
TEST(Strings, ColumnFormsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  int compared = 0;
  for (uint64_t seed = 0; seed < 36; ++seed) {
    std::mt19937_64 rng(seed * 7919 + 1);
    const TypeId id = seed % 3 == 2 ? TypeId::kBinary : TypeId::kUtf8;
    const int64_t length = std::vector<int64_t>{0, 1, 63, 64, 65, 300}[seed % 6];
    const double valid = std::vector<double>{0.8, 1.0, 0.0, 0.5}[seed % 4];
    const Column s = RandomColumn(DataType(id, true), kLayouts[seed % 3], length, valid, rng, EdgyString);
    const Column t = RandomColumn(DataType(id, false), kLayouts[(seed + 1) % 3], length, 1.0, rng, EdgyString);
    const Column values = RandomColumn(DataType(id, true), kLayouts[(seed + 2) % 3], 7, 0.85, rng, EdgyString);
    std::vector<std::optional<int32_t>> codes, starts;
    std::vector<std::optional<uint64_t>> counts;
    std::vector<std::optional<bool>> flags;
    for (int64_t r = 0; r < length; ++r) {
      codes.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(rng() % 7)));
      starts.push_back(rng() % 9 == 0 ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(rng() % 13) - 4));
      counts.push_back(rng() % 6 == 0 ? UINT64_MAX - rng() % 3 : rng() % 7);
      flags.push_back(rng() % 5 == 0 ? std::nullopt : std::optional<bool>(rng() % 2 == 0));
    }
    ASSERT_OK_AND_ASSIGN(ArrayPtr code_array, MakeArray<int32_t>(codes));
    ASSERT_OK_AND_ASSIGN(auto u, DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(code_array), values.array));
    const Scalar constant = seed % 4 == 1 ? Scalar::Null(id) : Scalar::String("xA ", id);
    ASSERT_OK_AND_ASSIGN(auto c, ConstantArray::Make(constant, length, true));
    ASSERT_OK_AND_ASSIGN(ArrayPtr i, MakeArray<int32_t>(starts));
    ASSERT_OK_AND_ASSIGN(ArrayPtr j, MakeArray<uint64_t>(counts, false));
    ASSERT_OK_AND_ASSIGN(ArrayPtr b, MakeArray<bool>(flags));
    // Numbers and logical types for the casts to text.
    auto random = [&](const char* type) {
      return RandomFlatArray({.type = *ParseDataType(type), .length = length, .valid_fraction = valid > 0 ? valid : 0.5,
                              .bit_offset = static_cast<int64_t>(seed % 5)}, rng);
    };
    const ArrayPtr f = random("f64?"), k = random("i8?"), d = random("date32?"), m = random("decimal64(12,2)?");
    // A short slice of a long views array: its buffers hold far more than its rows use.
    const Column long_views = RandomColumn(DataType(id, true), StringLayout::kViews, length + 6000, 0.9, rng, EdgyString);
    ASSERT_OK_AND_ASSIGN(ArrayPtr w, long_views.array->Slice(3000, length));
    const Schema schema{{{"s", s.array->type()}, {"t", t.array->type()}, {"u", u->type()}, {"c", c->type()},
                         {"i", i->type()}, {"j", j->type()}, {"b", b->type()}, {"f", f->type()}, {"k", k->type()},
                         {"d", d->type()}, {"m", m->type()}, {"w", w->type()}}};
    const std::vector<ArrayPtr> cols = {s.array, t.array, u, c, i, j, b, f, k, d, m, w};
    const std::string lit = Quoted(Near(s, rng));
    for (const std::string& text : std::vector<std::string>{
             "lower(s)", "upper(u)", "lower(c)", "upper(t)", "trim(s)", "ltrim(u)", "rtrim(t)", "trim(c)",
             "substr(s, i, 3)", "substr(s, 2, j)", "substr(u, -1, i)", "substr(t, i, i)", "substr(c, i, 2)",
             "substr(s, 0, 100)", "concat(s, t, u)", "s || c", "t || " + lit, "replace(s, 'a', 'xy')",
             "replace(t, s, u)", "replace(u, '', 'q')", "replace(t, ' ', '')", "coalesce(s, u, 'z')",
             "coalesce(s, c)", "coalesce(u, s)", "if(length(s) > 3, lower(s), u)", "if(b, s, t)",
             "if(b, c, " + lit + ")", "greatest(s, t)", "least(s, u, 'm')", "greatest(u, c)",
             "lower(trim(concat(s, ' ', t)))", "substr(lower(s), length(t), 2)",
             "length(replace(s, 'a', 'bb')) + length(upper(u))", "starts_with(trim(u), 'a')",
             "cast(f, utf8)", "cast(k, utf8) || cast(b, utf8)", "cast(j, utf8)", "cast(i, utf8)",
             "cast(d, utf8)", "cast(m, utf8)", "lower(cast(f, utf8)) = 'nan'", "lower(w)", "upper(w) || w", "lower(u) || '-'", "upper(u) = upper(t)",
             "replace(trim(u), 'a', 'bc')"}) {
      SCOPED_TRACE(fmt::format("seed {} rows {} valid {}: {}", seed, length, valid, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      ASSERT_OK_AND_ASSIGN(ArrayPtr want, ir::EvaluateReference(*e, cols, length));
      ASSERT_OK_AND_ASSIGN(ArrayPtr got, engine->Evaluate(e, cols, length));
      ASSERT_EQ(got->type().id, want->type().id);
      ASSERT_EQ(got->length(), length);
      const int64_t diff = FirstDifference(*got, *want);
      ASSERT_EQ(diff, -1) << "row " << diff << ": got " << got->GetScalar(diff).ToString() << ", want "
                          << want->GetScalar(diff).ToString();
      ASSERT_OK(got->Validate());
      const internal::EvaluateFn kernels = [&](const ir::ExprPtr& x, std::span<const ArrayPtr> in, int64_t n) {
        return engine->Evaluate(x, in, n);
      };
      ASSERT_OK_AND_ASSIGN(internal::StringColumns m, internal::MaterializeStrings(e, cols, length, kernels));
      EXPECT_EQ(m.reference_nodes, 0);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 36 * 46);
}

// String-valued calls that can fail, below the root: computed on their own with their failing
// rows kept, which the whole expression then decides (its guards, and nulls in any column it
// reads, hide an error; where hidden, the call is null inside the subexpression). Against the
// reference: values, nulls, and the first failing row with its message; row expressions,
// aggregates and projections, with and without divisions by zero.
TEST(Strings, FailingStringCallsBelowTheRootFollowTheirGuards) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const Schema schema = *ParseSchema("s:utf8?, t:utf8, a:i32?, b:i32, n:i64?");
  int compared = 0, failed = 0;
  for (uint64_t seed = 0; seed < 24; ++seed) {
    std::mt19937_64 rng(seed);
    const int64_t length = std::vector<int64_t>{1, 64, 65, 300}[seed % 4];
    std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
    // b: zeros in a share of the rows (none in every third seed), small values elsewhere.
    std::vector<std::optional<int32_t>> b;
    for (int64_t r = 0; r < length; ++r) {
      b.push_back(seed % 3 != 0 && rng() % 8 == 0 ? 0 : static_cast<int32_t>(rng() % 7) - 3 + (rng() % 2 ? 4 : 0));
      if (*b.back() == 0 && seed % 3 == 0) b.back() = 1;
    }
    cols[3] = *MakeArray<int32_t>(b, false);
    for (const std::string& text : std::vector<std::string>{
             "length(lower(if(a / b > 0, s, t))) > 2", "if(b = 0, -1, length(concat(s, cast(a / b, utf8))))",
             "coalesce(n, length(lower(coalesce(if(a / b > 0, s, t), 'y'))))",
             "b != 0 and starts_with(lower(cast(a / b, utf8)), '1')", "upper(if(a / b > 1, s, t)) = upper(t)",
             "if(b > 0, length(substr(t, a / b, 3)), 0)"}) {
      SCOPED_TRACE(fmt::format("seed {} rows {}: {}", seed, length, text));
      ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
      const Result<ArrayPtr> want = ir::EvaluateReference(*e, cols, length);
      const Result<ArrayPtr> got = engine->Evaluate(e, cols, length);
      ASSERT_EQ(testing::ResultText(got), testing::ResultText(want));
      ++compared;
      failed += !want.ok();
    }
    for (const char* text : {"sum(length(lower(if(a / b > 0, s, t))))", "count(if(b = 0, null, upper(cast(a / b, utf8))))"}) {
      SCOPED_TRACE(fmt::format("seed {} rows {}: {}", seed, length, text));
      ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(text, schema));
      const Result<ir::AggregateResult> want = ir::EvaluateAggregateReference(agg, cols, length);
      const Result<ir::AggregateResult> got = engine->Aggregate(agg, cols, length);
      ASSERT_EQ(got.ok(), want.ok());
      if (want.ok()) {
        EXPECT_TRUE(*got == *want);
      } else {
        EXPECT_EQ(got.error().ToString(), want.error().ToString());
      }
    }
    std::vector<ir::ExprPtr> outputs = {*ir::ParseAndBind("length(upper(if(a / b > 0, s, t)))", schema),
                                        *ir::ParseAndBind("b + 1", schema)};
    const Result<std::vector<ArrayPtr>> projected = engine->Project(outputs, cols, length);
    const Result<ArrayPtr> first = ir::EvaluateReference(*outputs[0], cols, length);
    if (first.ok()) {
      ASSERT_TRUE(projected.ok()) << projected.error().ToString();
      EXPECT_EQ(FirstDifference(*(*projected)[0], **first), -1);
    } else {
      ASSERT_FALSE(projected.ok());
      EXPECT_EQ(projected.error().row(), first.error().row());
    }
  }
  EXPECT_EQ(compared, 24 * 6);
  EXPECT_GE(failed, 10);  // 16 of 144 raise an error; the rest compare values
  EXPECT_LT(failed, compared - 40);
}

TEST(Strings, StringResultsAndCastsAreClearErrors) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  ASSERT_OK_AND_ASSIGN(auto s, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kViews, {"a"}));
  const Schema schema{{{"s", s->type()}, {"x", DataType(TypeId::kI32)}}};
  ASSERT_OK_AND_ASSIGN(ArrayPtr x, ArrayFromText(DataType(TypeId::kI32), "[0]"));
  const std::vector<ArrayPtr> cols = {s, x};
  // A string-valued call that can fail, below the root: its error where taken (x = 0), and none
  // where a guard hides it.
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("lower(if(1 / x > 0, s, 'b')) = 'a'", schema));
  auto r = engine->Evaluate(e, cols, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().ToString(), "division by zero: div at row 0: division by zero");
  ASSERT_OK_AND_ASSIGN(e, ir::ParseAndBind("if(x = 0, false, lower(if(1 / x > 0, s, 'b')) = 'a')", schema));
  ASSERT_OK_AND_ASSIGN(ArrayPtr guarded, engine->Evaluate(e, cols, 1));
  EXPECT_EQ(guarded->ToString(), "[false]");
  // A result past 2^46 bytes is refused before anything is allocated: each of a megabyte of 'a'
  // replaced by 64 MiB + 1.
  {
    ASSERT_OK_AND_ASSIGN(auto many, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32,
                                                    {std::string(1 << 20, 'a')}));
    ASSERT_OK_AND_ASSIGN(auto with, ConstantArray::Make(Scalar::String(std::string((1 << 26) + 1, 'b'), TypeId::kUtf8), 1));
    const Schema wide{{{"s", many->type()}, {"w", with->type()}}};
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr huge, ir::ParseAndBind("replace(s, 'a', w)", wide));
    auto refused = engine->Evaluate(huge, std::vector<ArrayPtr>{many, with}, 1);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code(), ErrorCode::kOutOfMemory) << refused.error().ToString();
    EXPECT_NE(refused.error().message().find("a string result of more than"), std::string::npos);  // not the allocator's
  }
  // EngineOptions::max_evaluation_bytes bounds string results too (their sizes are known only
  // once computed): 8 MiB of text lowered is refused under a 4 MiB limit, a little is not.
  {
    auto bounded = std::move(Engine::Make({.max_evaluation_bytes = 4 << 20})).value();
    ASSERT_OK_AND_ASSIGN(auto text, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32,
                                                    {std::string(8 << 20, 'A'), "B"}));
    const Schema one{{{"s", text->type()}}};
    ASSERT_OK_AND_ASSIGN(ir::ExprPtr lower, ir::ParseAndBind("lower(s)", one));
    auto refused = bounded->Evaluate(lower, std::vector<ArrayPtr>{text}, 2);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code(), ErrorCode::kOutOfMemory) << refused.error().ToString();
    ASSERT_OK_AND_ASSIGN(ArrayPtr small, bounded->Evaluate(lower, std::vector<ArrayPtr>{*text->Slice(1, 1)}, 1));
    EXPECT_EQ(small->ToString(), "['b']");
  }
  // Caller buffers hold no strings.
  ASSERT_OK_AND_ASSIGN(e, ir::ParseAndBind("lower(s)", schema));
  alignas(64) uint8_t values[64];
  auto into = engine->EvaluateInto(e, cols, 1, OutputBuffers{.values = values, .values_bytes = 64});
  ASSERT_FALSE(into.ok());
  for (const char* text : {"saturating_cast(s, i32)", "wrapping_cast(s, u8)", "cast(cast(s, binary), i32)",
                           "cast(x, binary)"}) {
    auto cast = ir::ParseAndBind(text, schema);
    ASSERT_FALSE(cast.ok()) << text;
    EXPECT_EQ(cast.error().code(), ErrorCode::kTypeError) << text;
  }
}

// Text that parses as `kind`'s numbers, with white space and signs around, and one row in
// `junk` starting with 'x' (invalid for every kind).
template <int kKind, int kJunk>
std::string NumberText(std::mt19937_64& rng) {
  static const char* const kSpace[] = {"", "", "", " ", "\t", "  "};
  std::string body;
  if (kJunk > 0 && rng() % kJunk == 0) return "x" + std::to_string(rng() % 100);
  switch (kKind) {
    case 0: body = std::to_string(rng() % 101); break;  // fits every integer type
    case 1: body = (rng() % 2 ? "-" : "") + std::to_string(rng() % 200000); break;  // wider
    case 2: {
      static const char* const kFloats[] = {"inf", "-Infinity", "NaN", ".5", "1.", "1e-3", "-0", "2.5E2"};
      body = rng() % 4 == 0 ? kFloats[rng() % std::size(kFloats)]
                            : fmt::format("{}", std::ldexp(static_cast<double>(rng() % 100000) - 50000, static_cast<int>(rng() % 40) - 20));
      break;
    }
    default: {
      static const char* const kBools[] = {"true", "F", "yes", "no", "On", "off", "1", "0", "t", "FALSE"};
      body = kBools[rng() % std::size(kBools)];
    }
  }
  if (kKind != 1 && kKind != 2 && rng() % 5 == 0) body = "+" + body;
  return kSpace[rng() % std::size(kSpace)] + body + kSpace[rng() % std::size(kSpace)];
}

// One expression through the engine under a random policy and tier, against the reference: the
// same error, or the same values and nulls (gtest failures otherwise). `result`: the engine's,
// where both succeeded.
struct Compared {
  bool failed = false;
  ArrayPtr result;
};
struct Tally {
  int compared = 0, failed = 0;
  void Add(const Compared& c) {
    ++compared;
    failed += c.failed;
  }
};
Compared CompareUnderRandomPolicy(Engine& engine, const std::string& text, const Schema& schema,
                                  const std::vector<ArrayPtr>& cols, int64_t length, std::mt19937_64& rng,
                                  const std::string& label) {
  SCOPED_TRACE(label + ": " + text);
  auto bound = ir::ParseAndBind(text, schema);
  if (!bound.ok()) {
    ADD_FAILURE() << bound.error().ToString();
    return {};
  }
  const ir::ExprPtr& e = *bound;
  const ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                  ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
  auto want = ir::EvaluateReference(*e, cols, length);
  const ir::Policy policy = kPolicies[rng() % std::size(kPolicies)];
  const Tier tier = rng() % 3 == 0 ? Tier::kFast : Tier::kOptimized;
  auto got = engine.Evaluate(e, cols, length, {.policy = policy, .tier = tier});
  if (got.ok() != want.ok()) {
    ADD_FAILURE() << "policy " << ir::PolicyName(policy) << ": "
                  << (got.ok() ? want.error().ToString() : got.error().ToString());
    return {};
  }
  if (!want.ok()) {
    EXPECT_EQ(got.error().ToString(), want.error().ToString());
    return {.failed = true, .result = nullptr};
  }
  const int64_t diff = FirstDifference(**got, **want);
  EXPECT_EQ(diff, -1) << "policy " << ir::PolicyName(policy) << " row " << diff << ": got "
                      << (*got)->GetScalar(diff).ToString() << ", want " << (*want)->GetScalar(diff).ToString();
  return {.failed = false, .result = *got};
}

// Bytes, mostly valid UTF-8, sometimes not: a lone continuation, an overlong form, a surrogate,
// a sequence cut short, a byte above F4.
std::string SomeBytes(std::mt19937_64& rng) {
  static const char* const kPieces[] = {"a", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "b",
                                        "\x80", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "\xf5"};
  std::string out;
  const size_t n = rng() % 6;
  for (size_t i = 0; i < n; ++i) out += kPieces[rng() % (rng() % 6 == 0 ? std::size(kPieces) : 5)];
  return out;
}

// Casts from text (parses, failing rows are errors at the reference's row), from binary to utf8
// (a UTF-8 check), and from numbers to text and back; over every layout, slices and nulls, with
// padding of the last partial word that repeats a real row.
TEST(Strings, CastsEqualTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const Generator kGenerators[] = {NumberText<0, 0>, NumberText<0, 40>, NumberText<1, 0>, NumberText<2, 0>,
                                   NumberText<2, 30>, NumberText<3, 0>, NumberText<3, 50>};
  const char* const kTargets[][4] = {{"i8", "u8", "i16", "u64"}, {"i8", "u16", "i32", "f32"},
                                     {"i32", "i64", "u32", "f64"}, {"f64", "f32", "i64", "f64"},
                                     {"f32", "f64", "f64", "i8"},  {"bool", "bool", "i8", "bool"},
                                     {"bool", "bool", "u8", "bool"}};
  Tally tally;
  for (uint64_t seed = 0; seed < 42; ++seed) {
    std::mt19937_64 rng(seed);
    const size_t g = seed % std::size(kGenerators);
    const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 130, 1000}[seed % 6];
    const Column s = RandomColumn(DataType(TypeId::kUtf8, true), kLayouts[seed % 3], length, seed % 4 ? 0.8 : 1.0,
                                  rng, kGenerators[g]);
    const Column b = RandomColumn(DataType(TypeId::kBinary, true), kLayouts[(seed / 3) % 3], length, 0.9, rng, SomeBytes);
    std::vector<std::optional<int32_t>> as;
    std::vector<std::optional<double>> fs;
    for (int64_t r = 0; r < length; ++r) {
      as.push_back(rng() % 9 ? std::optional<int32_t>(static_cast<int32_t>(rng())) : std::nullopt);
      fs.push_back(rng() % 9 ? std::optional<double>(std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 200) - 100))
                             : std::nullopt);
    }
    ASSERT_OK_AND_ASSIGN(ArrayPtr a, MakeArray<int32_t>(as));
    ASSERT_OK_AND_ASSIGN(ArrayPtr f, MakeArray<double>(fs));
    const Schema schema{{{"s", s.array->type()}, {"b", b.array->type()}, {"a", a->type()}, {"f", f->type()}}};
    const std::vector<ArrayPtr> cols = {s.array, b.array, a, f};
    std::vector<std::string> texts = {"length(cast(b, utf8))", "cast(b, utf8) = 'a'", "cast(b, utf8)",
                                      "if(b like '%\\x80%', 'bad', cast(b, utf8))", "cast(s, binary)",
                                      "cast(cast(a, utf8), i32) = a", "cast(cast(f, utf8), f64) = f", "cast(f, utf8)",
                                      "cast(a, utf8) like '%7%'"};
    for (const char* t : kTargets[g]) {
      texts.push_back(fmt::format("cast(s, {})", t));
      texts.push_back(fmt::format("if(s like 'x%', cast(0, {}), cast(s, {}))", t, t));
      texts.push_back(fmt::format("is_null(cast(s, {})) or length(s) > 2", t));
    }
    const std::string label = fmt::format("seed {} rows {} s:{}", seed, length, StringLayoutName(kLayouts[seed % 3]));
    for (const std::string& text : texts) {
      const Compared c = CompareUnderRandomPolicy(*engine, text, schema, cols, length, rng, label);
      ASSERT_FALSE(HasFailure());
      tally.Add(c);
    }
    ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(
                                                fmt::format("sum(if(s like 'x%', cast(0, {0}), cast(s, {0})))", kTargets[g][0][0] == 'i' || kTargets[g][0][0] == 'u' ? kTargets[g][0] : "i64"),
                                                schema));
    auto want = ir::EvaluateAggregateReference(agg, cols, length);
    auto got = engine->Aggregate(agg, cols, length);
    ASSERT_EQ(got.ok(), want.ok());
    if (got.ok()) {
      EXPECT_TRUE(*got == *want) << "seed " << seed;
    }
  }
  EXPECT_EQ(tally.compared, 42 * 21);
  EXPECT_GT(tally.failed, 40);                     // errors were compared
  EXPECT_LT(tally.failed, tally.compared - 300);   // and values
}

// What the text generators below write: `dirty` columns hold text around the grammar's edges
// (most of their batches fail somewhere), clean ones only text the target reads (their batches
// compare values). Set per column (the generators are plain function pointers).
struct TextShape {
  bool dirty = false;
  bool offsets = false;      // a timestamp with a zone: offsets may be written
  int fraction_digits = 0;   // of the target's unit
  int whole_digits = 1;      // a decimal's digits before the point
};
TextShape g_shape;

// The text of a date, time or timestamp. Dirty: years of 4 digits, of 5 and of 12 with a sign
// (past most storages), months and days out of range (and days a month lacks), hours of 24, leap
// seconds, fractions of 1 to 10 digits, offsets of minutes and of seconds, blanks, a stray byte.
std::string TemporalText(std::mt19937_64& rng, bool date, bool time) {
  const bool dirty = g_shape.dirty;
  auto two = [](uint64_t v) { return fmt::format("{:02}", v); };
  std::string out;
  if (date) {
    switch (dirty ? rng() % 10 : 9) {
      case 0: out = fmt::format("{:04}", rng() % 10000); break;
      case 1: out = fmt::format("{}{:05}", rng() % 2 ? '-' : '+', rng() % 300000); break;
      case 2: out = fmt::format("{}{:012}", rng() % 2 ? '-' : '+', rng() % 400000000000); break;
      default: out = fmt::format("{:04}", 1900 + rng() % 200);
    }
    out += "-" + two(dirty && rng() % 25 == 0 ? 13 : 1 + rng() % 12) + "-" +
           two(dirty ? (rng() % 25 == 0 ? 0 : 1 + rng() % 31) : 1 + rng() % 28);
  }
  if (time) {
    if (date) out += rng() % 3 ? " " : "T";
    out += two(dirty && rng() % 30 == 0 ? 24 : rng() % 24) + ":" + two(rng() % 60);
    if (rng() % 4) out += ":" + two(dirty && rng() % 40 == 0 ? 60 : rng() % 60);
    const uint64_t digits = dirty ? 1 + rng() % 10 : g_shape.fraction_digits > 0 ? 1 + rng() % g_shape.fraction_digits : 0;
    if (digits > 0 && rng() % 2) {
      out += ".";
      for (uint64_t i = 0; i < digits; ++i) out += static_cast<char>('0' + (rng() % 3 == 0 ? 0 : rng() % 10));
    }
    if (date && (dirty || g_shape.offsets) && rng() % 3 == 0) {
      static const char* const kOffsets[] = {"Z", "+05:30", "-08:00", "+00:09:21", "-03", "+14:00"};
      out += kOffsets[rng() % (dirty ? std::size(kOffsets) : 4)];
    }
  }
  if (dirty && rng() % 25 == 0) out.insert(rng() % (out.size() + 1), 1, "x.-:"[rng() % 4]);
  if (rng() % 6 == 0) out = " " + out + "\t";
  return out;
}

// The text of a decimal: a sign, digits before the point (dirty: up to 22) and up to 8 after
// (rounded to the scale), an exponent; dirty, a stray byte.
std::string DecimalText(std::mt19937_64& rng) {
  const bool dirty = g_shape.dirty;
  std::string out = std::vector<std::string>{"", "", "-", "+"}[rng() % 4];
  const uint64_t whole = dirty && rng() % 8 == 0 ? rng() % 23 : rng() % (g_shape.whole_digits + 1);
  const uint64_t fraction = rng() % 9;
  for (uint64_t i = 0; i < whole; ++i) out += static_cast<char>('0' + rng() % 10);
  if (fraction > 0 || rng() % 4 == 0) out += ".";
  for (uint64_t i = 0; i < fraction; ++i) out += static_cast<char>('0' + rng() % 10);
  if (whole == 0 && fraction == 0) out += "0";
  if (dirty && rng() % 6 == 0) out += fmt::format("{}{}", rng() % 2 ? "e" : "E", static_cast<int>(rng() % 31) - 15);
  if (!dirty && rng() % 6 == 0) out += "e-1";  // one digit less before the point
  if (dirty && rng() % 25 == 0) out.insert(rng() % (out.size() + 1), 1, "x.e,"[rng() % 4]);
  if (rng() % 6 == 0) out = " " + out + "\n";
  return out;
}

// cast(utf8 → date, time, timestamp, decimal) against the reference, value for value, null for
// null, error for error, over every layout, nulls, slices, every policy and both tiers; and the
// round trip through text of columns of each type (cast(x, utf8) read back) holds on every row.
TEST(Strings, TextToLogicalTypesEqualsTheReference) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const char* const kTargets[] = {"date32", "date64", "time32(s)", "time64(ns)", "timestamp(s)", "timestamp(ms)",
                                  "timestamp(us, Europe/Paris)", "timestamp(ns, UTC)", "timestamp(us, America/New_York)",
                                  "decimal32(9,2)", "decimal64(12,2)", "decimal64(18,0)", "decimal(30,4)", "decimal(38,10)"};
  Tally tally;
  int round_trips = 0;
  for (uint64_t seed = 0; seed < 5 * std::size(kTargets); ++seed) {
    std::mt19937_64 rng(seed);
    const char* target = kTargets[seed % std::size(kTargets)];
    const DataType type = *ParseDataType(target);
    const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 130, 700}[seed % 6];
    const bool decimal = type.logical == LogicalKind::kDecimal;
    const Generator gen = decimal ? DecimalText
                          : type.logical == LogicalKind::kTime ? +[](std::mt19937_64& r) { return TemporalText(r, false, true); }
                          : type.logical == LogicalKind::kDate
                              ? +[](std::mt19937_64& r) { return TemporalText(r, true, r() % 6 == 0); }
                              : +[](std::mt19937_64& r) { return TemporalText(r, true, r() % 6 != 0); };
    int unit_digits = 0;
    for (int64_t p = UnitsPerDay(type.time_unit()) / 86'400; p > 1; p /= 10) ++unit_digits;
    // Decimals: digits before the point that fit once a fraction rounds up.
    g_shape = {.dirty = seed % 3 == 0, .offsets = type.tz != 0, .fraction_digits = decimal ? 0 : unit_digits,
               .whole_digits = decimal ? std::max(0, type.precision - type.scale - 1) : 0};
    const Column s = RandomColumn(DataType(TypeId::kUtf8, true), kLayouts[seed % 3], length, seed % 4 ? 0.8 : 1.0, rng, gen);
    std::vector<Scalar> xs;
    for (int64_t r = 0; r < length; ++r) {
      xs.push_back(rng() % 8 == 0 ? Scalar::Null(type.id) : RandomLogicalValue(type, rng));
      if (type.id == TypeId::kI64 && type.logical == LogicalKind::kDate && !xs.back().is_null()) {  // whole days (Arrow)
        constexpr int64_t kDay = 86'400'000;
        xs.back() = Scalar::Of<int64_t>(xs.back().value<int64_t>() / kDay * kDay).As(type);
      }
    }
    ASSERT_OK_AND_ASSIGN(ArrayPtr x, MakeArray(type.WithNullable(true), xs));
    const Schema schema{{{"s", s.array->type()}, {"x", x->type()}}};
    const std::vector<ArrayPtr> cols = {s.array, x};
    const std::string texts[] = {fmt::format("cast(s, {})", target),
                                 fmt::format("if(s like '%x%', cast(null:utf8, {0}), cast(s, {0}))", target),
                                 fmt::format("is_null(cast(s, {})) or length(s) > 20", target),
                                 fmt::format("cast(cast(x, utf8), {}) = x", target)};
    const std::string label = fmt::format("seed {} rows {} s:{}", seed, length, StringLayoutName(kLayouts[seed % 3]));
    for (const std::string& text : texts) {
      const Compared c = CompareUnderRandomPolicy(*engine, text, schema, cols, length, rng, label);
      ASSERT_FALSE(HasFailure());
      tally.Add(c);
      if (text.starts_with("cast(cast(x")) {  // every value reads back from its text
        ASSERT_NE(c.result, nullptr);
        for (int64_t r = 0; r < length; ++r) {
          ASSERT_EQ(c.result->GetScalar(r).ToString(), xs[r].is_null() ? "null:bool" : "true") << "row " << r << ": " << xs[r].ToString();
        }
        ++round_trips;
      }
    }
    ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(fmt::format("max(cast(s, {}))", target), schema));
    auto want = ir::EvaluateAggregateReference(agg, cols, length);
    auto got = engine->Aggregate(agg, cols, length);
    ASSERT_EQ(got.ok(), want.ok()) << "seed " << seed << ": " << (got.ok() ? want.error().ToString() : got.error().ToString());
    if (got.ok()) {
      EXPECT_TRUE(*got == *want) << "seed " << seed;
    }
  }
  EXPECT_EQ(tally.compared, 4 * 5 * static_cast<int>(std::size(kTargets)));
  EXPECT_EQ(round_trips, 5 * static_cast<int>(std::size(kTargets)));
  EXPECT_GT(tally.failed, 40);                                // errors were compared
  EXPECT_LT(tally.failed, tally.compared - round_trips - 60);  // and values
}

// A kernel whose loop cannot vectorize (a parse call a row) under hints that ask for it (the
// short batch's kernel forces vectorization): LLVM prints such remarks itself unless the
// context's handler takes them. A library writes nothing to its host's stderr (the fast tier runs
// no vectorizer: its cases show only that nothing else prints), and `explain`'s collector keeps
// the remark, once.
TEST(Strings, AKernelThatDoesNotVectorizePrintsNothing) {
  std::mt19937_64 rng(7);
  const Schema schema{{{"s", DataType(TypeId::kUtf8, true)}}};
  ASSERT_OK_AND_ASSIGN(ir::ExprPtr e, ir::ParseAndBind("cast(s, i32)", schema));
  for (Tier tier : {Tier::kOptimized, Tier::kFast}) {
    for (auto [rows, valid] : {std::pair{int64_t{4}, 1.0}, std::pair{int64_t{100}, 0.9}}) {
      const Column s = RandomColumn(schema.fields[0].type, kLayouts[0], rows, valid, rng, NumberText<0, 0>);
      const std::vector<ArrayPtr> cols = {s.array};
      auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
      ::testing::internal::CaptureStderr();
      auto got = engine->Evaluate(e, cols, rows, {.tier = tier});
      const std::string printed = ::testing::internal::GetCapturedStderr();
      ASSERT_OK(got.status());
      EXPECT_EQ(printed, "") << TierName(tier) << ", " << rows << " rows";
    }
  }
  ASSERT_OK_AND_ASSIGN(PlannedKernel planned, PlanRequest({"cast(s, i32)", "s:utf8?", {}, "auto", "native"}));
  planned.key.shape.short_batch = true;  // the kernel whose hints force vectorization
  ::testing::internal::CaptureStderr();
  ASSERT_OK_AND_ASSIGN(KernelCode code, GenerateCode(planned, false));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "explain's collector";
  EXPECT_EQ(std::count_if(code.remarks.begin(), code.remarks.end(), [](const Remark& r) {
              return r.message.find("call instruction cannot be vectorized") != std::string::npos;
            }), 1);
}

}  // namespace
}  // namespace rowjit::jit
