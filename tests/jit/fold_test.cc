// Reduction templates: JIT folds against the reference fold over expressions and against the
// static masked folds over plain columns, bit for bit, and prepared aggregates against the
// engine's folds (jit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "ir/aggregate.h"
#include "jit/api/engine.h"
#include "kernels/dispatch.h"
#include "kernels/bitmap.h"
#include "kernels/fold.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/assert_ok.h"
#include "support/random_data.h"
#include "support/result_text.h"

namespace rowjit::jit {
namespace {

// Result::value() stops the test process with the error's text when Make fails.
// Synchronous: every call runs the optimized kernel, the one a warm engine runs (a tiered engine
// would answer most of these calls from the fast tier while the optimized kernel compiles).
std::unique_ptr<Engine> NewEngine() {
  return std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
}

// Fold results compare as text: values bit for bit (folds over expressions read every computed
// NaN as the canonical one), or the error with its row.
std::string Text(const Result<ir::AggregateResult>& r, ir::AggKind kind) {
  if (!r.ok()) return "error " + r.error().ToString();
  return r->ToString(kind);
}

constexpr const char* kFolds[] = {"sum", "min", "max", "min_max", "min_nan", "max_nan",
                                  "min_max_nan", "count", "nan_count", "any", "all"};

bool Applies(std::string_view fold, TypeId t) {
  if (fold == "any" || fold == "all") return t == TypeId::kBool;
  if (fold == "count") return true;
  if (fold == "nan_count" || fold.ends_with("_nan")) return IsFloat(t);
  return IsNumeric(t);
}

// A random fold over a random expression of `depth` of a type the fold applies to.
std::string RandomFold(const Schema& schema, int depth, std::mt19937_64& rng) {
  const char* fold = kFolds[rng() % std::size(kFolds)];
  TypeId want = kAllTypeIds[rng() % std::size(kAllTypeIds)];
  if (!Applies(fold, want)) want = std::string_view(fold) == "any" || std::string_view(fold) == "all"
                                       ? TypeId::kBool : TypeId::kF64;
  return std::string(fold) + "(" + testing::RandomExpression(want, schema, depth, rng) + ")";
}

TEST(Fold, PlainColumnsMatchReferenceAndStaticFolds) {
  auto engine = NewEngine();
  int compared = 0, with_value = 0;
  for (TypeId t : kAllTypeIds) {
    const Schema schema{{Field{"x", DataType(t, true)}}};
    for (const char* fold : kFolds) {
      if (!Applies(fold, t)) continue;
      auto agg = ir::ParseAndBindAggregate(std::string(fold) + "(x)", schema);
      ASSERT_TRUE(agg.ok()) << fold << " " << TypeIdName(t) << ": " << agg.error().ToString();
      for (int64_t length : {0, 1, 31, 32, 33, 63, 64, 65, 15000}) {
        for (double valid : {0.0, 0.5, 0.99, 1.0}) {
          for (NullLayout layout : {NullLayout::kScattered, NullLayout::kClustered}) {
            for (int64_t offset : {0, 3}) {
              // The long batch once per fold and type: the short ones cover the offsets.
              if (length == 15000 && (valid != 0.5 || offset != 0)) continue;
              const uint64_t seed = compared * 7919 + 13;
              std::mt19937_64 rng(seed);
              ArrayPtr col = RandomFlatArray({DataType(t, true), length, valid, offset, layout,
                                              ValueMode::kMixed}, rng);
              ASSERT_NE(col, nullptr);
              std::vector<ArrayPtr> cols = {col};
              auto jit = engine->Aggregate(*agg, cols, length);
              auto ref = ir::EvaluateAggregateReference(*agg, cols, length);
              with_value += ref.ok() && !ref->value.is_null();
              // The fast tier's kernel (the same IR, unoptimized) folds to the same bits.
              auto fast = engine->Aggregate(*agg, cols, length, EvalOptions{.tier = Tier::kFast}, nullptr);
              ASSERT_EQ(Text(fast, agg->kind), Text(ref, agg->kind))
                  << "fast tier: " << agg->ToString() << " " << TypeIdName(t) << " length " << length
                  << " valid " << valid << " seed " << seed;
              ASSERT_EQ(Text(jit, agg->kind), Text(ref, agg->kind))
                  << agg->ToString() << " " << TypeIdName(t) << " length " << length << " valid "
                  << valid << " offset " << offset << " seed " << seed;
              ++compared;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(with_value, 1500);  // most cases fold rows into a value (not null, not an error)
}

// Bit-for-bit with the static folds of kernels/fold.h on the same columns.
template <typename T>
void CheckStatic(Engine& engine, TypeId t, uint64_t seed) {
  const Schema schema{{Field{"x", DataType(t, true)}}};
  std::mt19937_64 rng(seed);
  for (int64_t length : {0, 33, 64, 65, 15000}) {
    for (double valid : {0.0, 0.5, 1.0}) {
      ArrayPtr col = RandomFlatArray({DataType(t, true), length, valid, 0, NullLayout::kScattered,
                                      ValueMode::kMixed}, rng);
      const auto& p = static_cast<const PrimitiveArray&>(*col);
      kernels::BitSpan validity = p.validity().has_bitmap() ? p.validity().Span(length) : kernels::BitSpan{};
      if (p.validity().all_null()) continue;  // the static folds take a bitmap or none
      std::vector<ArrayPtr> cols = {col};
      auto sum = engine.Aggregate(*ir::ParseAndBindAggregate("sum(x)", schema), cols, length);
      auto st = kernels::Sum<T>(p.values<T>(), length, validity);
      if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
        // Exact wide sums (decimal(38,0)) where the static fold stops at its 64-bit overflow.
        __int128 exact = 0;
        bool any = false;
        for (int64_t i = 0; i < length; ++i) {
          if (col->IsNull(i)) continue;
          exact += static_cast<__int128>(p.values<T>()[i]);
          any = true;
        }
        ASSERT_TRUE(sum.ok()) << sum.error().ToString();
        ASSERT_EQ(sum->value.is_null(), !any);
        if (any) {
          EXPECT_TRUE(sum->value.int128() == exact) << TypeIdName(t) << " seed " << seed;
        }
        if (any && st.state == kernels::SumResult<T>::State::kValue) {
          EXPECT_TRUE(sum->value.int128() == static_cast<__int128>(st.value)) << TypeIdName(t) << " seed " << seed;
        }
      } else if (st.state == kernels::SumResult<T>::State::kOverflow) {
        EXPECT_FALSE(sum.ok()) << "seed " << seed;
      } else if (st.state == kernels::SumResult<T>::State::kNull) {
        ASSERT_TRUE(sum.ok());
        EXPECT_TRUE(sum->value.is_null());
      } else {
        ASSERT_TRUE(sum.ok()) << sum.error().ToString();
        EXPECT_EQ(sum->value.bits(), Scalar::Of(st.value).bits()) << TypeIdName(t) << " seed " << seed;
      }
      for (bool keep : {false, true}) {
        if (keep && !std::is_floating_point_v<T>) continue;
        auto mm = engine.Aggregate(*ir::ParseAndBindAggregate(keep ? "min_max_nan(x)" : "min_max(x)", schema),
                                   cols, length);
        auto smm = kernels::MinMax<T>(p.values<T>(), length, validity,
                                      keep ? kernels::NanMode::kTotalOrder : kernels::NanMode::kSkip);
        ASSERT_TRUE(mm.ok());
        ASSERT_EQ(mm->value.is_null(), !smm.has_value()) << TypeIdName(t) << " seed " << seed;
        if (smm) {
          EXPECT_EQ(mm->value.bits(), Scalar::Of<T>(smm->min).bits()) << TypeIdName(t) << " seed " << seed;
          EXPECT_EQ(mm->max.bits(), Scalar::Of<T>(smm->max).bits()) << TypeIdName(t) << " seed " << seed;
        }
      }
    }
  }
}

TEST(Fold, BitForBitWithStaticFolds) {
  auto engine = NewEngine();
  CheckStatic<int8_t>(*engine, TypeId::kI8, 1);
  CheckStatic<int16_t>(*engine, TypeId::kI16, 2);
  CheckStatic<int32_t>(*engine, TypeId::kI32, 3);
  CheckStatic<int64_t>(*engine, TypeId::kI64, 4);
  CheckStatic<uint8_t>(*engine, TypeId::kU8, 5);
  CheckStatic<uint16_t>(*engine, TypeId::kU16, 6);
  CheckStatic<uint32_t>(*engine, TypeId::kU32, 7);
  CheckStatic<uint64_t>(*engine, TypeId::kU64, 8);
  CheckStatic<float>(*engine, TypeId::kF32, 9);
  CheckStatic<double>(*engine, TypeId::kF64, 10);
}

TEST(Fold, ExpressionsMatchReference) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int64_t with_value = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string text = RandomFold(schema, 3, rng);
    auto agg = ir::ParseAndBindAggregate(text, schema);
    ASSERT_TRUE(agg.ok()) << text << ": " << agg.error().ToString();
    const auto refs = ir::ReferencedColumns(*agg->arg);
    for (int k = 0; k < 10; ++k) {
      const int64_t length = std::vector<int64_t>{0, 1, 31, 32, 33, 63, 64, 65, 1000}[rng() % 9];
      std::vector<ArrayPtr> cols(schema.fields.size());
      for (int c : refs) {
        const DataType dt = schema.fields[c].type;
        if (rng() % 6 == 0) {
          cols[c] = *ConstantArray::Make(RandomValue(dt.id, rng), length, dt.nullable);
        } else {
          cols[c] = RandomFlatArray({dt, length, std::vector<double>{0, 0.5, 0.99, 1}[rng() % 4],
                                     static_cast<int64_t>(rng() % 64), NullLayout::kScattered,
                                     rng() % 2 ? ValueMode::kMixed : ValueMode::kModerate}, rng);
        }
        ASSERT_NE(cols[c], nullptr);
      }
      EvalReport report;
      const std::optional<Tier> tiers[] = {std::nullopt, Tier::kFast, Tier::kOptimized};
      const std::optional<Tier> tier = tiers[rng() % 3];
      auto jit = engine->Aggregate(*agg, cols, length, EvalOptions{.tier = tier}, &report);
      auto ref = ir::EvaluateAggregateReference(*agg, cols, length);
      with_value += ref.ok() && !ref->value.is_null();
      // The engine ran the fold kernel the planner names for these inputs.
      auto planned = PlanFold(*agg, cols, length);
      ASSERT_TRUE(planned.ok()) << planned.error().ToString();
      ASSERT_TRUE(report.kernel.has_value());
      EXPECT_EQ(*report.kernel, *planned) << "seed " << seed << ": ran " << report.kernel->ToString()
                                          << ", planned " << planned->ToString();
      ASSERT_EQ(Text(jit, agg->kind), Text(ref, agg->kind))
          << "seed " << seed << " case " << k << ": " << agg->ToString() << " length " << length
          << " tier " << (tier ? TierName(*tier) : "engine's");
    }
  }
  EXPECT_GE(with_value, 200);  // folds that produced a value, not only nulls and errors
}

// Under a selection: the reference over the selected rows (taken), an error's row mapped back to
// the batch's.
TEST(Fold, UnderASelectionMatchesReferenceOverTheSelectedRows) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int64_t with_value = 0, errors = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string text = RandomFold(schema, 3, rng);
    auto agg = ir::ParseAndBindAggregate(text, schema);
    ASSERT_TRUE(agg.ok()) << text << ": " << agg.error().ToString();
    const int64_t length = std::vector<int64_t>{0, 1, 33, 64, 1000, 5000}[rng() % 6];
    const std::vector<ArrayPtr> cols = testing::RandomColumns(schema, length, rng);
    const SelectionVector sel = testing::RandomSelection(length, rng);
    std::vector<ArrayPtr> taken;
    for (const ArrayPtr& c : cols) taken.push_back(std::move(Take(*c, sel)).value());
    auto ref = ir::EvaluateAggregateReference(*agg, taken, sel.size());
    auto jit = engine->Aggregate(*agg, cols, length, sel);
    const std::string where = fmt::format("seed {}: {} over {} of {} rows", seed, agg->ToString(), sel.size(), length);
    if (!ref.ok()) {
      ++errors;
      ASSERT_FALSE(jit.ok()) << where;
      EXPECT_EQ(jit.error().code(), ref.error().code()) << where;
      EXPECT_EQ(jit.error().row(), ref.error().row() ? std::optional<int64_t>(sel[*ref.error().row()]) : std::nullopt) << where;
      continue;
    }
    with_value += !ref->value.is_null();
    ASSERT_EQ(Text(jit, agg->kind), Text(ref, agg->kind)) << where;
  }
  EXPECT_GE(with_value, 20);
  EXPECT_GT(errors, 0);
}

// sum(a * b) over narrow integers folds the exact widened product: identical values and
// first-failing-row errors to the reference, with overflowing rows in valid rows, behind nulls
// and nowhere (moderate values), at every narrow width, lengths across 1024-row blocks and words.
TEST(Fold, SumOfNarrowProductsMatchesReference) {
  auto engine = NewEngine();
  int compared = 0, errors = 0;
  for (TypeId t : {TypeId::kI8, TypeId::kI16, TypeId::kI32, TypeId::kU8, TypeId::kU16, TypeId::kU32}) {
    for (bool nullable : {false, true}) {
      const Schema schema{{Field{"a", DataType(t, nullable)}, Field{"b", DataType(t, nullable)}}};
      auto agg = *ir::ParseAndBindAggregate("sum(a * b)", schema);
      for (int64_t length : {1, 63, 64, 65, 4097, 9000}) {
        for (ValueMode mode : {ValueMode::kModerate, ValueMode::kMixed}) {
          for (double valid : {0.5, 0.99}) {
            const uint64_t seed = compared * 104729 + 7;
            std::mt19937_64 rng(seed);
            std::vector<ArrayPtr> cols;
            for (int c = 0; c < 2; ++c) {
              cols.push_back(RandomFlatArray({DataType(t, nullable), length, nullable ? valid : 1.0,
                                              c == 0 ? 3 : 0, NullLayout::kScattered, mode}, rng));
            }
            auto jit = engine->Aggregate(agg, cols, length);
            auto ref = ir::EvaluateAggregateReference(agg, cols, length);
            ASSERT_EQ(Text(jit, agg.kind), Text(ref, agg.kind))
                << agg.ToString() << " " << TypeIdName(t) << " length " << length << " seed " << seed;
            errors += !ref.ok();
            ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(errors, 10);            // overflowing products were exercised
  EXPECT_LT(errors, compared - 10);  // and so were sums that succeed
}

// Folds of i32 products over columns without nulls: on x86 their vector loop reads each column
// 16 rows at a time and multiplies even and odd rows apart (jit/compile/lane_order.cc), which changes the
// lane of every row; every fold the change can reach must still answer as the reference, at
// lengths around the loop's 32-row step, with products that overflow and products that fit.
TEST(Fold, ProductsOfI32ColumnsAnswerWhateverLaneHoldsTheirRow) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32, b:i32, c:i32");
  int compared = 0, errors = 0;
  for (const char* text : {"sum(a * b)", "min(a * b)", "max(b * a)", "min_max(a * b)", "sum(a * a)",
                           "sum(a * b + a * c)", "min_max(a * b - c * c)", "count(a * b)", "any(a * b > c)"}) {
    auto agg = *ir::ParseAndBindAggregate(text, schema);
    for (int64_t length : {1, 16, 31, 32, 33, 95, 96, 97, 1000, 16397}) {
      for (ValueMode mode : {ValueMode::kModerate, ValueMode::kMixed}) {
        const uint64_t seed = compared * 7919 + 3;
        std::mt19937_64 rng(seed);
        std::vector<ArrayPtr> cols;
        for (int c = 0; c < 3; ++c) {
          cols.push_back(RandomFlatArray({DataType(TypeId::kI32, false), length, 1.0, 0, NullLayout::kScattered, mode}, rng));
        }
        auto jit = engine->Aggregate(agg, cols, length);
        auto ref = ir::EvaluateAggregateReference(agg, cols, length);
        ASSERT_EQ(Text(jit, agg.kind), Text(ref, agg.kind)) << text << " length " << length << " seed " << seed;
        errors += !ref.ok();
        ++compared;
      }
    }
  }
  EXPECT_GT(errors, 10);            // overflowing products were exercised
  EXPECT_LT(errors, compared - 10);  // and so were folds that succeed
}

// Masked row folds on AVX-512 read each vector's mask as bits of the block's validity words, and
// a scalar row shifts its row's bit out (jit/compile/mask_bits.cc); elsewhere they read a byte a row.
// Every integer and float width (8 to 64 lanes a vector), blocks whose rows the vector loop
// covers and blocks it leaves to the remainder (a last block of one word), a loop left scalar
// (an i64 division: no vector divide), inputs offset within their bitmaps, and validity that is
// random, one valid row in many, or all but one: the folds answer as the reference, value for
// value and error row for error row.
TEST(Fold, RowFoldMasksAnswerEveryRowsBit) {
  auto engine = NewEngine();
  int compared = 0, errors = 0;
  for (const char* type : {"i8", "u8", "i16", "u32", "i32", "i64", "f32", "f64"}) {
    const Schema schema = *ParseSchema(fmt::format("a:{0}?, b:{0}?", type));
    const bool is_float = type[0] == 'f';
    for (const char* text :
         {"sum(a * b)", "min_max(a - b)", "max(a + b)", "count(a * b)", "sum(a + a / (b % 7 + 8))"}) {
      if (is_float && std::string_view(text).starts_with("sum")) continue;  // word folds: the fixed 16-lane order
      auto agg = *ir::ParseAndBindAggregate(text, schema);
      for (int64_t length : {64, 128, 1024, 1088, 1216, 2048 + 320, 4097}) {
        for (int pattern = 0; pattern < 3; ++pattern) {
          const uint64_t seed = compared * 7919 + 11;
          std::mt19937_64 rng(seed);
          std::vector<ArrayPtr> cols;
          // Values mostly moderate, now and then any: products that fit and some that fail.
          const ValueMode mode = rng() % 4 == 0 ? ValueMode::kMixed : ValueMode::kModerate;
          for (int c = 0; c < 2; ++c) {
            const DataType dt = schema.fields[static_cast<size_t>(c)].type;
            const int64_t offset = static_cast<int64_t>(rng() % 64);
            if (pattern == 0) {
              cols.push_back(RandomFlatArray({dt, length, 0.5, offset, NullLayout::kScattered, mode}, rng));
              continue;
            }
            // One row valid in every 61 (pattern 1) or every row but one in 61 (pattern 2),
            // at a phase of its own per input.
            const ArrayPtr all = RandomFlatArray({dt, length, 1.0, offset, NullLayout::kScattered, mode}, rng);
            const int64_t phase = static_cast<int64_t>(rng() % 61);
            std::vector<Scalar> values;
            for (int64_t i = 0; i < length; ++i) {
              const bool hit = (i + phase) % 61 == 0;
              values.push_back(hit != (pattern == 1) ? Scalar::Null(dt.id) : all->GetScalar(i));
            }
            cols.push_back(*MakeArray(dt, values));
          }
          auto jit = engine->Aggregate(agg, cols, length);
          auto ref = ir::EvaluateAggregateReference(agg, cols, length);
          ASSERT_EQ(Text(jit, agg.kind), Text(ref, agg.kind))
              << text << " over " << type << ", length " << length << ", pattern " << pattern << ", seed " << seed;
          errors += !ref.ok();
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(errors, 10);  // failing rows were exercised, behind their masks and not
  EXPECT_LT(errors, compared / 2);
}

// The products at the edge of each narrow type fit; one step further they fail: the fold's
// exact widened product and range test, and the row kernel's high-half evidence, both signs.
TEST(Fold, SumOfNarrowProductsAtTheBoundaries) {
  auto engine = NewEngine();
  struct Case {
    TypeId t;
    const char *a, *b;  // row 1 holds the edge product; row 2 one past it, behind a null or not
    const char* expect_ok;
  };
  const Case cases[] = {
      {TypeId::kU8, "[15, 15, 16]", "[15, 17, 16]", "480:u64"},
      {TypeId::kI8, "[-8, -16, 127]", "[16, 8, 2]", "-256:i64"},
      {TypeId::kU16, "[255, 255, 256]", "[257, 257, 256]", "131070:u64"},
      {TypeId::kI16, "[-128, 181, -129]", "[256, 181, 256]", "-7:i64"},
      {TypeId::kU32, "[65535, 65535, 65536]", "[65537, 65537, 65536]", "8589934590:u64"},
      {TypeId::kI32, "[-65536, 46340, 46341]", "[32768, 46340, 46341]", "-88048:i64"},
      // Both ends of the signed range, then one past the top (2^(w-1)) or the bottom.
      {TypeId::kI8, "[127, -8, 8]", "[1, 16, 16]", "-1:i64"},
      {TypeId::kI8, "[127, 127, -3]", "[1, 1, 43]", "254:i64"},
      {TypeId::kI16, "[217, -128, 128]", "[151, 256, 256]", "-1:i64"},
      {TypeId::kI16, "[217, 217, -3]", "[151, 151, 10923]", "65534:i64"},
      {TypeId::kI32, "[1, -65536, 65536]", "[2147483647, 32768, 32768]", "-1:i64"},
      {TypeId::kI32, "[1, 1, -3]", "[2147483647, 2147483647, 715827883]", "4294967294:i64"},
  };
  for (const Case& c : cases) {
    const Schema schema{{Field{"a", DataType(c.t, true)}, Field{"b", DataType(c.t, true)}}};
    auto agg = *ir::ParseAndBindAggregate("sum(a * b)", schema);
    auto a = *ArrayFromText(DataType(c.t, true), c.a);
    auto b = *ArrayFromText(DataType(c.t, true), c.b);
    // Rows 0 and 1 only: the edge products, no failure.
    std::vector<ArrayPtr> two = {*a->Slice(0, 2), *b->Slice(0, 2)};
    auto ok = engine->Aggregate(agg, two, 2);
    auto ref = ir::EvaluateAggregateReference(agg, two, 2);
    ASSERT_TRUE(ok.ok()) << TypeIdName(c.t) << ": " << ok.error().ToString();
    EXPECT_EQ(ok->value.ToString(), c.expect_ok) << TypeIdName(c.t);
    EXPECT_EQ(Text(ok, agg.kind), Text(ref, agg.kind)) << TypeIdName(c.t);
    // All three rows: row 2 overflows.
    std::vector<ArrayPtr> three = {a, b};
    auto bad = engine->Aggregate(agg, three, 3);
    ASSERT_FALSE(bad.ok()) << TypeIdName(c.t);
    EXPECT_EQ(bad.error().row(), std::optional<int64_t>(2)) << TypeIdName(c.t);
    EXPECT_EQ(Text(bad, agg.kind), Text(ir::EvaluateAggregateReference(agg, three, 3), agg.kind));
    // The row kernel's evidence (high half against the sign of the low half) at the same edges.
    const ir::ExprPtr product = agg.arg;
    auto rows_ok = engine->Evaluate(product, two, 2);
    ASSERT_TRUE(rows_ok.ok()) << TypeIdName(c.t) << ": " << rows_ok.error().ToString();
    auto rows_bad = engine->Evaluate(product, three, 3);
    ASSERT_FALSE(rows_bad.ok()) << TypeIdName(c.t);
    EXPECT_EQ(rows_bad.error().row(), std::optional<int64_t>(2)) << TypeIdName(c.t);
  }
}

// A row fold over inputs with nulls reads their validity words itself, kRowFoldBlock rows a block,
// then the padded last word: inputs at different bit offsets, lengths inside, at and across
// blocks and words, equal the reference; inputs whose valid rows never meet fold nothing (null,
// count 0) and raise no error from the rows they hide.
TEST(Fold, RowFoldsReadTheirInputsValidityWords) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?, c:i64?");
  std::mt19937_64 rng(17);
  for (const char* text : {"sum(cast(a * b, i64) + c)", "min_max(cast(a, i64) - c)", "count(a + b)", "sum(b * 3)"}) {
    const ir::Aggregate agg = *ir::ParseAndBindAggregate(text, schema);
    for (int64_t length : {63, 64, 1023, 1024, 1025, 1088, 2047, 4097, 12345}) {
      std::vector<ArrayPtr> cols;
      for (int c = 0; c < 3; ++c) {
        cols.push_back(RandomFlatArray({schema.fields[static_cast<size_t>(c)].type, length, 0.8, 7 * c + 1,
                                        NullLayout::kScattered, ValueMode::kModerate}, rng));
      }
      EXPECT_EQ(Text(engine->Aggregate(agg, cols, length), agg.kind),
                Text(ir::EvaluateAggregateReference(agg, cols, length), agg.kind)) << text << " " << length;
    }
  }
  // a valid on even rows, b on odd rows, b's values overflowing a * b everywhere.
  const int64_t n = 9000;
  std::vector<Scalar> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[static_cast<size_t>(i)] = i % 2 == 0 ? Scalar::Of<int32_t>(1 << 20) : Scalar::Null(TypeId::kI32);
    b[static_cast<size_t>(i)] = i % 2 == 1 ? Scalar::Of<int32_t>(1 << 20) : Scalar::Null(TypeId::kI32);
  }
  std::vector<ArrayPtr> cols = {*MakeArray(DataType(TypeId::kI32, true), a), *MakeArray(DataType(TypeId::kI32, true), b),
                                *MakeArray(DataType(TypeId::kI64, true), std::vector<Scalar>(n, Scalar::Of<int64_t>(1)))};
  for (const char* text : {"sum(a * b)", "count(cast(a * b, i64) + c)"}) {
    const ir::Aggregate agg = *ir::ParseAndBindAggregate(text, schema);
    auto r = engine->Aggregate(agg, cols, n);
    ASSERT_TRUE(r.ok()) << text << ": " << r.error().ToString();
    EXPECT_EQ(Text(r, agg.kind), Text(ir::EvaluateAggregateReference(agg, cols, n), agg.kind)) << text;
    EXPECT_EQ(r->value.ToString(), agg.kind == ir::AggKind::kCount ? "0:i64" : "null:i64") << text;
  }
}

// A null batch constant or a null literal makes every row null with no validity bitmap saying
// so: nothing is folded (count 0, other folds null) and nothing fails, with and without nulls
// in the other input, as the reference says.
TEST(Fold, NullConstantsAndNullLiteralsFoldNothing) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32?");
  std::mt19937_64 rng(11);
  for (double valid : {1.0, 0.5}) {
    ArrayPtr a = RandomFlatArray({DataType(TypeId::kI32, true), 5000, valid, 0, NullLayout::kScattered,
                                  ValueMode::kModerate}, rng);
    ArrayPtr null_b = *ConstantArray::Make(Scalar::Null(TypeId::kI32), 5000, true);
    std::vector<ArrayPtr> cols = {a, null_b};
    for (const char* text : {"count(a + b)", "sum(a + b)", "min(a * b)", "max(a - b)", "sum(a / b)",
                             "count(a + null:i32)", "sum(a * null:i32)", "min_max(a + null:i32)"}) {
      auto agg = ir::ParseAndBindAggregate(text, schema);
      ASSERT_TRUE(agg.ok()) << text << ": " << agg.error().ToString();
      auto jit = engine->Aggregate(*agg, cols, 5000);
      auto ref = ir::EvaluateAggregateReference(*agg, cols, 5000);
      ASSERT_TRUE(jit.ok()) << text << ": " << jit.error().ToString();
      EXPECT_EQ(Text(jit, agg->kind), Text(ref, agg->kind)) << text << " valid " << valid;
      if (agg->kind == ir::AggKind::kCount) {
        EXPECT_EQ(jit->value.ToString(), "0:i64") << text;
      } else {
        EXPECT_TRUE(jit->value.is_null()) << text << ": " << jit->value.ToString();
      }
    }
  }
}

TEST(Fold, ErrorBehindNullHiddenErrorInValidRowReported) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  auto agg = *ir::ParseAndBindAggregate("sum(a * b)", schema);
  std::vector<ArrayPtr> hidden = {*ArrayFromText(DataType(TypeId::kI32, true), "[2, null, 3]"),
                                  *ArrayFromText(DataType(TypeId::kI32), "[5, 2147483647, 7]")};
  auto ok = engine->Aggregate(agg, hidden, 3);
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(ok->value.ToString(), "31:i64");
  std::vector<ArrayPtr> real = {*ArrayFromText(DataType(TypeId::kI32, true), "[2, null, 65536]"),
                                *ArrayFromText(DataType(TypeId::kI32), "[5, 1, 65536]")};
  auto bad = engine->Aggregate(agg, real, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().function(), "mul");
  EXPECT_EQ(bad.error().row(), 2);
}

TEST(Fold, SumsOf64BitIntegersAreExactWideSums) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("x:i64?");
  auto agg = *ir::ParseAndBindAggregate("sum(x)", schema);
  EXPECT_EQ(agg.result.ToString(), "decimal(38,0)?");
  // Past i64 in both directions, and back: exact whatever the order.
  const std::string max = "9223372036854775807", min = "-9223372036854775808";
  const std::pair<std::string, std::string> cases[] = {
      {"[" + max + ", 1]", "9223372036854775808:decimal(38,0)"},
      {"[" + max + ", 1, -1]", "9223372036854775807:decimal(38,0)"},
      {"[" + min + ", -1]", "-9223372036854775809:decimal(38,0)"},
      {"[" + max + ", " + max + ", " + max + ", null, " + max + "]", "36893488147419103228:decimal(38,0)"},
      {"[null, null]", "null:decimal(38,0)"},
  };
  for (const auto& [rows, want] : cases) {
    auto col = *ArrayFromText(DataType(TypeId::kI64, true), rows);
    std::vector<ArrayPtr> cols = {col};
    for (Tier tier : {Tier::kFast, Tier::kOptimized}) {
      auto r = engine->Aggregate(agg, cols, col->length(), EvalOptions{.tier = tier}, nullptr);
      ASSERT_TRUE(r.ok()) << r.error().ToString();
      EXPECT_EQ(r->value.ToString(), want) << rows;
    }
    EXPECT_EQ(ir::EvaluateAggregateReference(agg, cols, col->length())->value.ToString(), want) << rows;
  }
  // 2^16 rows of u64 MAX: 2^80 - 2^16, far past u64, in every row-count class of the kernels.
  const Schema u = *ParseSchema("x:u64?");
  for (int64_t n : {1, 63, 64, 65, 65536}) {
    std::vector<Scalar> rows(static_cast<size_t>(n), Scalar::Of<uint64_t>(UINT64_MAX));
    std::vector<ArrayPtr> cols = {*MakeArray(DataType(TypeId::kU64, true), rows)};
    auto r = engine->Aggregate(*ir::ParseAndBindAggregate("sum(x)", u), cols, n);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_TRUE(r->value.int128() == static_cast<__int128>(UINT64_MAX) * n) << n;
    EXPECT_EQ(r->value.type().ToString(), "decimal(38,0)");
  }
  // Signed extremes mixed, with a null every seventh row and without nulls, folded as a plain
  // column (the word fold's vector form) and as an expression (`x * y`, y all 1: a row fold):
  // the total, recovered from the sum modulo 2^64 and the high halves' sum, equals the one added
  // here in 128 bits, in both tiers.
  const Schema s64 = *ParseSchema("x:i64?, y:i64");
  const int64_t extremes[] = {INT64_MIN, INT64_MAX, -1, INT64_MIN + 1, INT64_MIN, 0x7fffffff00000000};
  for (int64_t n : {7, 64, 65, 4099, 65536}) {
    for (bool nulls : {true, false}) {
      std::vector<Scalar> rows;
      __int128 want = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = extremes[(i * 5 + i / 3) % 6];
        const bool null = nulls && i % 7 == 3;
        rows.push_back(null ? Scalar::Null(TypeId::kI64) : Scalar::Of<int64_t>(v));
        if (!null) want += v;
      }
      std::vector<ArrayPtr> cols = {*MakeArray(DataType(TypeId::kI64, true), rows),
                                    *MakeArray(DataType(TypeId::kI64), std::vector<Scalar>(n, Scalar::Of<int64_t>(1)))};
      for (const char* text : {"sum(x)", "sum(x * y)"}) {
        for (Tier tier : {Tier::kFast, Tier::kOptimized}) {
          auto r = engine->Aggregate(*ir::ParseAndBindAggregate(text, s64), cols, n, EvalOptions{.tier = tier}, nullptr);
          ASSERT_TRUE(r.ok()) << r.error().ToString();
          EXPECT_TRUE(r->value.int128() == want) << text << " " << n << (nulls ? " with nulls" : "");
        }
      }
    }
  }
  // u64 through a row fold: 2^16 rows of UINT64_MAX times 1.
  const Schema su = *ParseSchema("x:u64, y:u64");
  std::vector<ArrayPtr> ucols = {*MakeArray(DataType(TypeId::kU64), std::vector<Scalar>(65536, Scalar::Of<uint64_t>(UINT64_MAX))),
                                 *MakeArray(DataType(TypeId::kU64), std::vector<Scalar>(65536, Scalar::Of<uint64_t>(1)))};
  auto ur = engine->Aggregate(*ir::ParseAndBindAggregate("sum(x * y)", su), ucols, 65536);
  ASSERT_TRUE(ur.ok()) << ur.error().ToString();
  EXPECT_TRUE(ur->value.int128() == static_cast<__int128>(UINT64_MAX) * 65536);
  // Narrower integers keep their 64-bit results.
  EXPECT_EQ(ir::ParseAndBindAggregate("sum(x)", *ParseSchema("x:i32"))->result.ToString(), "i64?");
  EXPECT_EQ(ir::ParseAndBindAggregate("sum(x)", *ParseSchema("x:u32"))->result.ToString(), "u64?");
  // The one overflow left: past 38 digits.
  const DataType d38 = *DataType::Decimal(38, 0);
  const __int128 limit = static_cast<__int128>(10'000'000'000'000'000'000ULL) * 10'000'000'000'000'000'000ULL;
  EXPECT_TRUE(ir::IntegerSumResult(limit - 1, d38).ok());
  EXPECT_EQ(ir::IntegerSumResult(limit, d38).error().code(), ErrorCode::kOverflow);
  EXPECT_EQ(ir::IntegerSumResult(-limit, d38).error().code(), ErrorCode::kOverflow);
}

// Sums of 8-, 16- and 32-bit columns add in 32-bit lanes, widened every 2^20 rows
// (jit/codegen/codegen_fold.cc, NarrowSum; a static_assert there holds the chunk to its bound): every row
// at the type's minimum, maximum or -1 (the extremes of each lane's halves) over batches that end
// inside, at and past a chunk, with and without nulls and with a bit offset, equals count x value,
// in both tiers. (A chunk of 2^18 words makes the i32 cases fail.)
template <typename T>
void CheckNarrowSumAtLimits(Engine& engine, TypeId t) {
  const Schema schema{{Field{"x", DataType(t, true)}}};
  const ir::Aggregate agg = *ir::ParseAndBindAggregate("sum(x)", schema);
  constexpr int64_t kChunkRows = int64_t{1} << 20;
  for (T value : {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), static_cast<T>(-1)}) {
    for (int64_t length : {kChunkRows - 1, kChunkRows, 2 * kChunkRows + 65}) {
      for (int every : {0, 3}) {  // 0: no nulls; 3: every third row null
        const int64_t offset = every == 0 ? 0 : 5;
        BufferPtr values = *Buffer::Allocate(static_cast<int64_t>(sizeof(T)) * (length + offset));
        std::fill_n(reinterpret_cast<T*>(values->mutable_data()), length + offset, value);
        BufferPtr bits;
        int64_t valid = length;
        if (every != 0) {
          bits = *Buffer::Allocate(kernels::NumBytes(length + offset));
          valid = 0;
          for (int64_t i = 0; i < length; ++i) {
            if (i % every == 0) continue;
            kernels::SetBitTo(bits->mutable_data(), offset + i, true);
            ++valid;
          }
        }
        const Validity validity = every == 0 ? Validity::AllValid() : *Validity::FromBitmap(bits, offset, length);
        std::vector<ArrayPtr> cols = {*PrimitiveArray::Make(DataType(t, true), length, values, validity, offset)};
        const __int128 want = static_cast<__int128>(value) * valid;
        for (Tier tier : {Tier::kFast, Tier::kOptimized}) {
          auto r = engine.Aggregate(agg, cols, length, EvalOptions{.tier = tier}, nullptr);
          ASSERT_TRUE(r.ok()) << r.error().ToString();
          EXPECT_TRUE(r->value.int128() == want)
              << TypeIdName(t) << " value " << +value << " length " << length << " every " << every << ": "
              << r->value.ToString();
        }
      }
    }
  }
}

TEST(Fold, NarrowSumsAtTheirLaneLimits) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  CheckNarrowSumAtLimits<int8_t>(*engine, TypeId::kI8);
  CheckNarrowSumAtLimits<uint8_t>(*engine, TypeId::kU8);
  CheckNarrowSumAtLimits<int16_t>(*engine, TypeId::kI16);
  CheckNarrowSumAtLimits<uint16_t>(*engine, TypeId::kU16);
  CheckNarrowSumAtLimits<int32_t>(*engine, TypeId::kI32);
  CheckNarrowSumAtLimits<uint32_t>(*engine, TypeId::kU32);
}

// Batches past one kernel call's exact range fold in slices added in 128 bits (a slice of 100 rows
// stands for 2^31 here): the same sums, and a row error names its row in the whole batch.
TEST(Fold, LongBatchesFoldInSlices) {
  auto sliced = std::move(Engine::Make({.fold_slice_rows = 100, .compile = EngineOptions::Compile::kSynchronous})).value();
  auto whole = NewEngine();
  std::mt19937_64 rng(3);
  for (const char* type : {"i64", "u64", "i32", "u8"}) {
    const Schema schema = *ParseSchema(fmt::format("x:{}?", type));
    for (int64_t length : {0, 99, 100, 101, 1000, 1234}) {
      std::vector<ArrayPtr> cols = {RandomFlatArray({schema.fields[0].type, length, 0.7, 0, NullLayout::kScattered,
                                                     ValueMode::kMixed}, rng)};
      auto agg = *ir::ParseAndBindAggregate("sum(x)", schema);
      auto a = sliced->Aggregate(agg, cols, length);
      auto b = whole->Aggregate(agg, cols, length);
      ASSERT_TRUE(a.ok() && b.ok()) << type << " " << length;
      EXPECT_EQ(a->value.ToString(), b->value.ToString()) << type << " " << length;
      EXPECT_EQ(a->value.ToString(), ir::EvaluateAggregateReference(agg, cols, length)->value.ToString());
    }
  }
  const Schema schema = *ParseSchema("x:i32");
  std::vector<Scalar> rows(450, Scalar::Of<int32_t>(3));
  rows[321] = Scalar::Of<int32_t>(1 << 30);
  std::vector<ArrayPtr> cols = {*MakeArray(DataType(TypeId::kI32), rows)};
  auto bad = sliced->Aggregate(*ir::ParseAndBindAggregate("sum(x * 4)", schema), cols, 450);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().row(), 321);
  EXPECT_EQ(bad.error().function(), "mul");
  EXPECT_FALSE(Engine::Make({.fold_slice_rows = 0}).ok());
}

// Float min/max that skip NaNs where a word's first valid row is a NaN (on targets without mask
// registers the word's other lanes read that row unless it is a NaN), where every valid row is a
// NaN (nothing folds: null), where the only non-NaN row is the last valid one, over signed zeros
// and infinities only, and over words without nulls holding NaNs (the full-word path): as the
// reference, at the host's level and, where the host has more, at x86-64-v3. Compiles are
// synchronous, so that the optimized kernel is the one checked.
TEST(Fold, MinMaxSkippingNaNsAroundNaNFirstRows) {
  struct RestoreLevel {
    kernels::KernelLevel level = kernels::ActiveKernelLevel();
    ~RestoreLevel() { (void)kernels::SetKernelLevel(level); }
  } restore;
  std::vector<kernels::KernelLevel> levels = {restore.level};
  if (kernels::BestKernelLevel() == kernels::KernelLevel::kV4) levels.push_back(kernels::KernelLevel::kV3);
  constexpr int kPatterns = 8;
  const double inf = std::numeric_limits<double>::infinity();
  int compared = 0;
  for (kernels::KernelLevel level : levels) {
    ASSERT_TRUE(kernels::SetKernelLevel(level));
    // Its kernels compile for the level in force.
    auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
    for (TypeId t : {TypeId::kF32, TypeId::kF64}) {
      const Schema schema{{Field{"x", DataType(t, true)}}};
      for (int pattern = 0; pattern < kPatterns; ++pattern) {
        std::mt19937_64 rng(static_cast<uint64_t>(pattern) * 31 + static_cast<uint64_t>(t));
        const int64_t n = 64 * 5 + 17;
        std::vector<Scalar> rows;
        int64_t valid_in_word = 0;
        for (int64_t i = 0; i < n; ++i) {
          if (i % 64 == 0) valid_in_word = 0;
          double v = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) / 8;
          // 0: NaN at each word's first valid row; 1: every row NaN; 2: NaN but the last valid
          // row; 3: NaN at first valid rows and at one row in eight; 4: signed zeros; 5: no
          // nulls, NaN at one row in eight; 6: -inf only; 7: +inf only.
          const bool nan = pattern == 1 || (pattern == 0 && valid_in_word == 0) || (pattern == 2 && i != n - 2) ||
                           ((pattern == 3 || pattern == 5) && (rng() % 8 == 0 || (pattern == 3 && valid_in_word == 0)));
          if (pattern == 4) v = rng() % 2 == 0 ? -0.0 : 0.0;
          if (pattern == 6 || pattern == 7) v = pattern == 6 ? -inf : inf;
          if (nan) v = std::numeric_limits<double>::quiet_NaN();
          const bool keep = pattern == 5 || rng() % 2 == 0 || (pattern == 2 && i == n - 2);
          valid_in_word += keep;
          rows.push_back(!keep ? Scalar::Null(t)
                               : t == TypeId::kF32 ? Scalar::Of<float>(static_cast<float>(v)) : Scalar::Of<double>(v));
        }
        std::vector<ArrayPtr> cols = {*MakeArray(DataType(t, true), rows)};
        for (const char* fold : {"min_max(x)", "min(x)", "max(x)", "min_max_nan(x)"}) {
          auto agg = *ir::ParseAndBindAggregate(fold, schema);
          auto ref = ir::EvaluateAggregateReference(agg, cols, n);
          auto got = engine->Aggregate(agg, cols, n);
          ASSERT_EQ(Text(got, agg.kind), Text(ref, agg.kind))
              << fold << " " << TypeIdName(t) << " pattern " << pattern << " level "
              << kernels::KernelLevelName(level);
          if (pattern == 1 && std::string_view(fold) != "min_max_nan(x)") {
            EXPECT_TRUE(got->value.is_null()) << fold;  // every valid row a NaN: nothing folds
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, static_cast<int>(levels.size()) * 2 * kPatterns * 4);
}

// --- prepared aggregates (Engine::PrepareAggregate) -------------------------------------------

std::string Text(const Result<ir::AggregateResult>& r, const ir::Aggregate& agg) {
  return r.ok() ? r->ToString(agg.kind) : "error " + r.error().ToString();
}

// A prepared aggregate, batch after batch over layouts met repeatedly and in random order
// (per referenced column: a constant or a flat column, all valid, mixed or all null, at a bit
// offset), answers as Engine::Aggregate and as the reference fold: values, nulls and errors with
// their rows, every fold kind, both forced tiers, lengths around 64.
TEST(PreparedAggregate, AnswersAsTheEngineAndTheReferenceBatchAfterBatch) {
  auto engine = NewEngine();
  const Schema schema = testing::WideSchema();
  int cases = 0, failing = 0, with_value = 0;
  size_t layouts = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string text = RandomFold(schema, 2, rng);
    auto agg = ir::ParseAndBindAggregate(text, schema);
    ASSERT_TRUE(agg.ok()) << text << ": " << agg.error().ToString();
    const EvalOptions o{.tier = seed % 2 ? Tier::kFast : Tier::kOptimized};
    auto handle = engine->PrepareAggregate(*agg, o);
    ASSERT_TRUE(handle.ok()) << handle.error().ToString();
    const auto refs = ir::ReferencedColumns(*agg->arg);
    for (int k = 0; k < 12; ++k) {
      const uint64_t layout_seed = seed * 100 + rng() % 3;
      std::mt19937_64 layout(layout_seed);
      const int64_t length = std::vector<int64_t>{1, 63, 64, 65, 700}[rng() % 5];
      std::vector<ArrayPtr> cols(schema.fields.size());
      for (int c : refs) {
        const DataType dt = schema.fields[c].type;
        const uint64_t shape = layout() % 8;
        if (shape == 0) {
          cols[c] = *ConstantArray::Make(RandomValue(dt.id, rng), length, dt.nullable);
        } else {
          const double valid = std::vector<double>{0, 0.5, 1}[shape % 3];
          cols[c] = RandomFlatArray({dt, length, valid, static_cast<int64_t>(layout() % 64), NullLayout::kScattered,
                                     rng() % 2 ? ValueMode::kMixed : ValueMode::kModerate}, rng);
        }
        ASSERT_NE(cols[c], nullptr);
      }
      const std::string where = fmt::format("seed {} case {} layout {} length {}: {}", seed, k, layout_seed, length, text);
      auto got = (*handle)->Aggregate(cols, length);
      ASSERT_EQ(Text(got, *agg), Text(engine->Aggregate(*agg, cols, length, o, nullptr), *agg)) << where;
      auto ref = ir::EvaluateAggregateReference(*agg, cols, length);
      ASSERT_EQ(Text(got, *agg), Text(ref, *agg)) << where << " (reference)";
      ++cases;
      failing += !got.ok();
      with_value += got.ok() && !got->value.is_null();
    }
    layouts += (*handle)->layouts();
  }
  EXPECT_EQ(cases, 480);
  EXPECT_GT(failing, 3);
  EXPECT_GT(with_value, 200);
  EXPECT_GT(layouts, 40u);  // held layouts folded the later batches
}

TEST(PreparedAggregate, HoldsItsLayoutsAndTakesTheEnginesPathForTheRest) {
  auto engine = std::move(Engine::Make({.compile = EngineOptions::Compile::kSynchronous})).value();
  const Schema schema = *ParseSchema("a:i32?, b:i32");
  const ir::Aggregate agg = *ir::ParseAndBindAggregate("sum(a * b)", schema);
  auto made = engine->PrepareAggregate(agg);
  ASSERT_TRUE(made.ok()) << made.error().ToString();
  PreparedAggregate& p = **made;
  EXPECT_EQ(p.aggregate().arg, agg.arg);
  EXPECT_EQ(p.layouts(), 0u);
  const std::vector<ArrayPtr> dense = {*ArrayFromText(DataType(TypeId::kI32, true), "[1, 2, 3]"),
                                       *ArrayFromText(DataType(TypeId::kI32), "[4, 5, 6]")};
  EvalReport report;
  ASSERT_OK_AND_ASSIGN(ir::AggregateResult first, p.Aggregate(dense, 3, &report));
  EXPECT_EQ(first.value.ToString(), "32:i64");
  EXPECT_TRUE(report.compiled);
  EXPECT_EQ(p.layouts(), 1u);
  EvalReport engine_report;
  ASSERT_TRUE(engine->Aggregate(agg, dense, 3, &engine_report).ok());
  const CacheStats before = engine->cache_stats();
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(ir::AggregateResult again, p.Aggregate(dense, 3, &report));
    EXPECT_EQ(again.value.ToString(), "32:i64");
    EXPECT_FALSE(report.compiled);
    EXPECT_EQ(report.strategy, Strategy::kFold);
    EXPECT_EQ(report.tier, Tier::kOptimized);
    ASSERT_TRUE(report.kernel.has_value());
    EXPECT_EQ(*report.kernel, *engine_report.kernel);
  }
  EXPECT_EQ(engine->cache_stats().hits, before.hits);  // the held kernel ran: no lookup
  // A column with nulls is another layout; an all-null one a third (nothing folds).
  const std::vector<ArrayPtr> nulls = {*ArrayFromText(DataType(TypeId::kI32, true), "[1, null, 3]"), dense[1]};
  const std::vector<ArrayPtr> none = {*ArrayFromText(DataType(TypeId::kI32, true), "[null, null, null]"), dense[1]};
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(p.Aggregate(nulls, 3)->value.ToString(), "22:i64");
    EXPECT_TRUE(p.Aggregate(none, 3)->value.is_null());
  }
  EXPECT_EQ(p.layouts(), 3u);
  // Errors are the engine's, with their rows, on a held layout too.
  const std::vector<ArrayPtr> overflow = {*ArrayFromText(DataType(TypeId::kI32, true), "[1, 65536, 3]"),
                                          *ArrayFromText(DataType(TypeId::kI32), "[4, 65536, 6]")};
  auto failed = p.Aggregate(overflow, 3);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error(), engine->Aggregate(agg, overflow, 3).error());
  EXPECT_EQ(failed.error().row(), 1);
  // Bad input: the engine's errors, and the handle still works after them.
  const std::vector<std::pair<std::vector<ArrayPtr>, int64_t>> bad = {
      {dense, 4},
      {dense, -1},
      {{dense[0]}, 3},
      {{dense[0], nullptr}, 3},
      {{dense[0], *ArrayFromText(DataType(TypeId::kI64), "[1, 2, 3]")}, 3}};
  for (const auto& [cols, length] : bad) {
    auto got = p.Aggregate(cols, length);
    ASSERT_FALSE(got.ok()) << length;
    EXPECT_EQ(got.error(), engine->Aggregate(agg, cols, length).error()) << got.error().ToString();
  }
  EXPECT_EQ(p.Aggregate(dense, 3)->value.ToString(), "32:i64");
  // Length 0: a null sum, on the layout `dense` holds (no column with nulls).
  const std::vector<ArrayPtr> empty = {*ArrayFromText(DataType(TypeId::kI32, true), "[]"),
                                       *ArrayFromText(DataType(TypeId::kI32), "[]")};
  EXPECT_TRUE(p.Aggregate(empty, 0)->value.is_null());
  EXPECT_EQ(p.layouts(), 3u);
  EXPECT_FALSE(engine->PrepareAggregate(ir::Aggregate{}).ok());  // no argument
}

// Folds that are not one kernel over the columns as they are take the engine's path every call:
// answers as the engine's, no layout held.
TEST(PreparedAggregate, FoldsBeyondOneKernelTakeTheEnginesPath) {
  EngineOptions options{.max_kernel_nodes = 5, .fold_slice_rows = 100, .compile = EngineOptions::Compile::kSynchronous};
  auto engine = std::move(Engine::Make(options)).value();
  std::mt19937_64 rng(11);
  struct Case {
    const char* schema;
    const char* text;
  };
  const Case cases[] = {
      {"x:i64?", "sum(x)"},                                // past fold_slice_rows: slices
      {"x:i32?, y:i32", "max(((x + y) * 3 - y) * (x - 1))"},  // past max_kernel_nodes: stages
      {"x:decimal(38,2)?", "sum(x)"},                      // 16-byte values
      {"s:utf8?", "max(s)"},                               // a string-valued fold
      {"s:utf8?", "sum(length(lower(s)))"},                // strings computed first
      {"x:i64?", "min_max(x * 2)"},                        // values not 8-byte aligned: decoded
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    ASSERT_OK_AND_ASSIGN(Schema schema, ParseSchema(c.schema));
    ASSERT_OK_AND_ASSIGN(ir::Aggregate agg, ir::ParseAndBindAggregate(c.text, schema));
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<PreparedAggregate> p, engine->PrepareAggregate(agg));
    for (int round = 0; round < 2; ++round) {
      const int64_t length = 250;
      std::vector<ArrayPtr> cols;
      for (const Field& f : schema.fields) {
        cols.push_back(RandomFlatArray({f.type, length, 0.8, 3, NullLayout::kScattered, ValueMode::kModerate}, rng));
        ASSERT_NE(cols.back(), nullptr);
      }
      if (std::string_view(c.text) == "min_max(x * 2)") {  // the same rows, one byte past alignment
        const auto& flat = static_cast<const PrimitiveArray&>(*cols[0]);
        auto bytes = std::make_shared<std::vector<uint8_t>>(8 * length + 1);
        std::memcpy(bytes->data() + 1, flat.raw_values(), 8 * length);
        cols[0] = *PrimitiveArray::Make(flat.type(), length, Buffer::Borrow(bytes->data() + 1, 8 * length, bytes),
                                        flat.validity());
      }
      auto got = p->Aggregate(cols, length);
      EXPECT_EQ(Text(got, agg), Text(engine->Aggregate(agg, cols, length), agg));
      EXPECT_EQ(Text(got, agg), Text(ir::EvaluateAggregateReference(agg, cols, length), agg));
    }
    EXPECT_EQ(p->layouts(), 0u);
  }
}

TEST(PreparedAggregate, ATieredEngineHoldsTheOptimizedKernelOnceReady) {
  auto engine = std::move(Engine::Make(EngineOptions{})).value();  // tiered
  const Schema schema = *ParseSchema("x:i64?");
  const ir::Aggregate agg = *ir::ParseAndBindAggregate("min_max(x * 2)", schema);
  auto p = std::move(engine->PrepareAggregate(agg)).value();
  const std::vector<ArrayPtr> cols = {*ArrayFromText(DataType(TypeId::kI64, true), "[4, null, -3, 9]")};
  EvalReport report;
  ASSERT_TRUE(p->Aggregate(cols, 4, &report).ok());
  if (report.tier != Tier::kOptimized) {
    EXPECT_EQ(p->layouts(), 0u);  // the fast kernel is not held
  }
  engine->WaitForCompiles();
  ASSERT_OK_AND_ASSIGN(ir::AggregateResult out, p->Aggregate(cols, 4, &report));
  EXPECT_EQ(out.ToString(agg.kind), engine->Aggregate(agg, cols, 4)->ToString(agg.kind));
  EXPECT_EQ(report.tier, Tier::kOptimized);
  EXPECT_EQ(p->layouts(), 1u);
}

}  // namespace
}  // namespace rowjit::jit
