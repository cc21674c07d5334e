// Reduction templates: JIT folds against the reference fold over expressions and against the
// static masked folds over plain columns, bit for bit (jit).
#include <gtest/gtest.h>

#include "ir/aggregate.h"
#include "jit/engine.h"
#include "kernels/fold.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/random_data.h"

namespace rowjit::jit {
namespace {

std::unique_ptr<Engine> NewEngine() { return std::move(Engine::Make()).value(); }

std::string Text(const Result<ir::AggregateResult>& r, ir::AggKind kind) {
  if (!r.ok()) return "error " + r.error().ToString();
  std::string s = r->ToString(kind);
  // Computed NaNs have no fixed sign or payload (see FirstDifference); fold results keep the
  // canonical NaN, so compare them as they are.
  return s;
}

constexpr const char* kFolds[] = {"sum", "min", "max", "min_max", "min_nan", "max_nan",
                                  "min_max_nan", "count", "nan_count", "any", "all"};

bool Applies(std::string_view fold, TypeId t) {
  if (fold == "any" || fold == "all") return t == TypeId::kBool;
  if (fold == "count") return true;
  if (fold == "nan_count" || fold.ends_with("_nan")) return IsFloat(t);
  return IsNumeric(t);
}

TEST(Fold, PlainColumnsMatchReferenceAndStaticFolds) {
  auto engine = NewEngine();
  int compared = 0;
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
              std::vector<ArrayPtr> cols = {col};
              auto jit = engine->Aggregate(*agg, cols, length);
              auto ref = ir::EvaluateAggregateReference(*agg, cols, length);
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
  EXPECT_GT(compared, 2000);
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
      if (st.state == kernels::SumResult<T>::State::kOverflow) {
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
  Schema schema;
  for (TypeId id : kAllTypeIds) {
    schema.fields.push_back(Field{"n_" + std::string(TypeIdName(id)), DataType(id, true)});
    schema.fields.push_back(Field{"c_" + std::string(TypeIdName(id)), DataType(id, false)});
  }
  int64_t cases = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    std::mt19937_64 rng(seed);
    const char* fold = kFolds[rng() % std::size(kFolds)];
    TypeId want = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    if (!Applies(fold, want)) want = std::string_view(fold) == "any" || std::string_view(fold) == "all"
                                         ? TypeId::kBool : TypeId::kF64;
    const std::string text = std::string(fold) + "(" + testing::RandomExpression(want, schema, 3, rng) + ")";
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
      }
      auto jit = engine->Aggregate(*agg, cols, length);
      auto ref = ir::EvaluateAggregateReference(*agg, cols, length);
      ++cases;
      ASSERT_EQ(Text(jit, agg->kind), Text(ref, agg->kind))
          << "seed " << seed << " case " << k << ": " << agg->ToString() << " length " << length;
    }
  }
  EXPECT_EQ(cases, 800);
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

TEST(Fold, SumOverflowIsExact) {
  auto engine = NewEngine();
  const Schema schema = *ParseSchema("x:i64?");
  auto agg = *ir::ParseAndBindAggregate("sum(x)", schema);
  // MAX + 1 overflows; MAX + 1 - 1 does not (sums are exact, whatever the order).
  std::vector<ArrayPtr> over = {*ArrayFromText(DataType(TypeId::kI64, true), "[9223372036854775807, 1]")};
  auto r = engine->Aggregate(agg, over, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kOverflow);
  std::vector<ArrayPtr> back = {*ArrayFromText(DataType(TypeId::kI64, true), "[9223372036854775807, 1, -1]")};
  r = engine->Aggregate(agg, back, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value.ToString(), "9223372036854775807:i64");
  const Schema u = *ParseSchema("x:u64?");
  std::vector<ArrayPtr> uover = {*ArrayFromText(DataType(TypeId::kU64, true), "[18446744073709551615, 1]")};
  EXPECT_FALSE(engine->Aggregate(*ir::ParseAndBindAggregate("sum(x)", u), uover, 2).ok());
}

}  // namespace
}  // namespace rowjit::jit
