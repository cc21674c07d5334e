// Selections and Take (runtime): validation of untrusted indices, bitmap round trips at offsets,
// composition, and Take over every encoding against GetScalar.
#include "runtime/selection.h"

#include <gtest/gtest.h>

#include <random>

#include "runtime/builder.h"
#include "runtime/random.h"

namespace rowjit {
namespace {

TEST(Selection, IndicesAreCheckedAscendingAndInTheBatch) {
  const std::vector<uint32_t> ok = {0, 3, 9};
  ASSERT_TRUE(SelectionVector::FromIndices(ok, 10).ok());
  const std::vector<uint32_t> out_of_batch = {0, 10};
  EXPECT_EQ(SelectionVector::FromIndices(out_of_batch, 10).error().code(), ErrorCode::kInvalidInput);
  const std::vector<uint32_t> descending = {4, 2};
  EXPECT_EQ(SelectionVector::FromIndices(descending, 10).error().code(), ErrorCode::kInvalidInput);
  const std::vector<uint32_t> repeated = {2, 2};
  EXPECT_EQ(SelectionVector::FromIndices(repeated, 10).error().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(SelectionVector::FromIndices({}, -1).error().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(SelectionVector::FromIndices({}, SelectionVector::kMaxBatchLength + 1).error().code(),
            ErrorCode::kInvalidInput);
  const SelectionVector none;
  EXPECT_EQ(none.size(), 0);
  EXPECT_EQ(none.batch_length(), 0);
}

TEST(Selection, BitmapRoundTripAndCompose) {
  std::mt19937_64 rng(5);
  for (int64_t length : {0, 1, 63, 64, 65, 1000}) {
    for (int64_t offset : {0, 5}) {
      std::vector<uint8_t> bits(kernels::NumBytes(length + offset) + 1);
      std::vector<uint32_t> want;
      for (int64_t i = 0; i < length; ++i) {
        const bool on = rng() % 3 == 0;
        kernels::SetBitTo(bits.data(), offset + i, on);
        if (on) want.push_back(static_cast<uint32_t>(i));
      }
      auto s = SelectionVector::FromBitmap({bits.data(), offset, length});
      ASSERT_TRUE(s.ok());
      ASSERT_EQ(std::vector<uint32_t>(s->indices().begin(), s->indices().end()), want) << length << " " << offset;
      ASSERT_EQ(s->batch_length(), length);
      auto back = s->ToBitmap();
      ASSERT_TRUE(back.ok());
      for (int64_t i = 0; i < length; ++i) {
        ASSERT_EQ(kernels::GetBit((*back)->data(), i), kernels::GetBit(bits.data(), offset + i)) << i;
      }
      // Every other selected row, composed: rows of the batch.
      std::vector<uint32_t> inner, composed;
      for (size_t i = 0; i < want.size(); i += 2) {
        inner.push_back(static_cast<uint32_t>(i));
        composed.push_back(want[i]);
      }
      auto c = s->Compose(*SelectionVector::FromIndices(inner, s->size()));
      ASSERT_TRUE(c.ok());
      EXPECT_EQ(std::vector<uint32_t>(c->indices().begin(), c->indices().end()), composed);
      EXPECT_EQ(c->batch_length(), length);
      EXPECT_FALSE(s->Compose(*SelectionVector::FromIndices({}, s->size() + 1)).ok());
    }
  }
}

TEST(Selection, TakeEveryEncodingMatchesGetScalar) {
  std::mt19937_64 rng(9);
  const int64_t length = 300;
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < length; ++i) {
    if (rng() % 4 == 0) rows.push_back(i);
  }
  const SelectionVector s = *SelectionVector::FromIndices(rows, length);
  std::vector<ArrayPtr> arrays;
  for (TypeId t : {TypeId::kI8, TypeId::kI32, TypeId::kU64, TypeId::kF64, TypeId::kBool}) {
    ArrayPtr flat = RandomFlatArray({DataType(t, true), length, 0.7, 3, NullLayout::kScattered, ValueMode::kMixed}, rng);
    arrays.push_back(flat);
    arrays.push_back(t == TypeId::kBool ? AsByteBool(flat) : AsDictionary(flat, rng));
  }
  arrays.push_back(*ConstantArray::Make(Scalar::Of<int32_t>(7), length));
  arrays.push_back(*ConstantArray::Make(Scalar::Null(TypeId::kI16), length, true));
  for (const ArrayPtr& a : arrays) {
    auto taken = Take(*a, s);
    ASSERT_TRUE(taken.ok()) << taken.error().ToString();
    ASSERT_EQ((*taken)->length(), s.size());
    EXPECT_EQ((*taken)->encoding(), a->encoding());
    EXPECT_EQ((*taken)->type(), a->type());
    ASSERT_TRUE((*taken)->Validate().ok());
    for (int64_t i = 0; i < s.size(); ++i) {
      ASSERT_EQ((*taken)->GetScalar(i).ToString(), a->GetScalar(s[i]).ToString())
          << EncodingName(a->encoding()) << " " << a->type().ToString() << " row " << i;
    }
  }
  EXPECT_EQ(Take(*arrays[0], *SelectionVector::FromIndices({}, length + 1)).error().code(), ErrorCode::kInvalidInput);
}

// SelectView: the rows Take gives (values, nulls, type), flat 4- and 8-byte columns as a
// dictionary over the column's values whose codes share the selection's indices.
TEST(Selection, SelectViewHasTakesRowsAndSharesTheIndices) {
  std::mt19937_64 rng(11);
  for (int64_t length : {1, 63, 64, 65, 1000}) {
    for (int every : {1, 3, 50}) {
      std::vector<uint32_t> rows;
      for (uint32_t i = 0; i < length; ++i) {
        if (rng() % every == 0) rows.push_back(i);
      }
      const SelectionVector s = *SelectionVector::FromIndices(rows, length);
      for (TypeId t : {TypeId::kI8, TypeId::kI32, TypeId::kU32, TypeId::kI64, TypeId::kF32, TypeId::kF64, TypeId::kBool}) {
        for (double valid : {0.0, 0.6, 1.0}) {
          ArrayPtr a = RandomFlatArray({DataType(t, valid < 1.0), length, valid, 5, NullLayout::kScattered, ValueMode::kMixed}, rng);
          if (rng() % 4 == 0) a = t == TypeId::kBool ? AsByteBool(a) : AsDictionary(a, rng);
          auto view = SelectView(a, s);
          ASSERT_TRUE(view.ok()) << view.error().ToString();
          const auto taken = Take(*a, s);
          const std::string where = fmt::format("{} {} length {} every {} valid {}", EncodingName(a->encoding()),
                                                a->type().ToString(), length, every, valid);
          EXPECT_EQ((*view)->type(), a->type()) << where;
          EXPECT_EQ((*view)->ToString(1 << 20), (*taken)->ToString(1 << 20)) << where;
          EXPECT_EQ((*view)->NullCount(), (*taken)->NullCount()) << where;
          ASSERT_TRUE((*view)->Validate().ok()) << where;
          const bool viewed = a->encoding() == Encoding::kPrimitive && ByteWidth(t) >= 4 && !s.empty();
          ASSERT_EQ((*view)->encoding(), viewed ? Encoding::kDictionary : (*taken)->encoding()) << where;
          if (viewed) {
            const auto& d = static_cast<const DictionaryArray&>(**view);
            EXPECT_EQ(d.codes()->raw_values(), reinterpret_cast<const uint8_t*>(s.data())) << where;
            EXPECT_EQ(d.values()->NullCount(), 0) << where;
          }
        }
      }
    }
  }
}

// Take and SelectView keep a column's whole type — a decimal's precision and scale, a temporal
// unit and zone, an interval's unit, a string layout — over every encoding (flat, dictionary,
// constant) and at every fraction selected: a type that lost its logical part would not bind to
// the expression the column was bound as.
TEST(Selection, TakeAndSelectViewKeepTheLogicalType) {
  std::mt19937_64 rng(13);
  const int64_t length = 200;
  const char* const kTypes[] = {"decimal32(9,2)",  "decimal64(18,4)", "decimal(38,10)",  "date32",
                                "date64",          "time32(s)",       "time64(ns)",      "timestamp(ms)",
                                "timestamp(us, UTC)", "timestamp(ns, Europe/Paris)",    "duration(s)",
                                "duration(ns)",    "interval_months", "interval_day_time",
                                "interval_month_day_nano", "utf8", "large_binary", "utf8_view"};
  for (const char* text : kTypes) {
    const Schema schema = *ParseSchema(fmt::format("t:{}?", text));
    const Field& field = schema.fields[0];
    ArraySpec spec{field.type, length, 0.8, 3, NullLayout::kScattered, ValueMode::kMixed};
    spec.string_layout = field.layout;
    const ArrayPtr flat = RandomFlatArray(spec, rng);
    ASSERT_NE(flat, nullptr) << text;
    ASSERT_TRUE(flat->type().SameType(field.type)) << text << ": " << flat->type().ToString();
    Scalar one = flat->GetScalar(flat->IsNull(0) ? 1 : 0);
    const ArrayPtr arrays[] = {flat, AsDictionary(flat, rng), *ConstantArray::Make(one, length, true),
                               *ConstantArray::Make(Scalar::Null(field.type.id).As(field.type), length, true)};
    for (const ArrayPtr& a : arrays) {
      ASSERT_TRUE(a->type().SameType(field.type)) << text << " " << EncodingName(a->encoding()) << ": " << a->type().ToString();
      for (int every : {1, 5, 500}) {
        std::vector<uint32_t> rows;
        for (uint32_t i = 0; i < length; ++i) {
          if (rng() % every == 0) rows.push_back(i);
        }
        const SelectionVector s = *SelectionVector::FromIndices(rows, length);
        const std::string where = fmt::format("{} {} every {}", text, EncodingName(a->encoding()), every);
        auto taken = Take(*a, s);
        auto view = SelectView(a, s);
        ASSERT_TRUE(taken.ok()) << where << ": " << taken.error().ToString();
        ASSERT_TRUE(view.ok()) << where << ": " << view.error().ToString();
        EXPECT_EQ((*taken)->type(), a->type()) << where << ": " << (*taken)->type().ToString();
        EXPECT_EQ((*view)->type(), a->type()) << where << ": " << (*view)->type().ToString();
        ASSERT_TRUE((*view)->Validate().ok()) << where;
        for (int64_t i = 0; i < s.size(); ++i) {
          const Scalar want = a->GetScalar(s[i]);
          for (const ArrayPtr& got : {*taken, *view}) {
            ASSERT_EQ(got->GetScalar(i).ToString(), want.ToString()) << where << " row " << i;
            ASSERT_TRUE(got->GetScalar(i).type().SameType(field.type)) << where << " row " << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace rowjit
