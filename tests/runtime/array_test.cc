// Types, validity, arrays of every encoding and zero-copy slicing (runtime).
#include "runtime/array.h"

#include <gtest/gtest.h>

#include <random>

#include "runtime/builder.h"

namespace rowjit {
namespace {

constexpr int64_t kOffsets[] = {0, 1, 3, 7, 63};
constexpr int64_t kLengths[] = {0, 1, 63, 64, 65, 1000};

TEST(Types, ParseAndPrint) {
  for (TypeId id : kAllTypeIds) {
    for (bool nullable : {false, true}) {
      DataType t(id, nullable);
      auto parsed = ParseDataType(t.ToString());
      ASSERT_TRUE(parsed.ok());
      EXPECT_EQ(*parsed, t);
    }
  }
  EXPECT_EQ(ParseDataType("i32?")->nullable, true);
  auto bad = ParseDataType("int");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kTypeError);
  EXPECT_NE(bad.error().message().find("unknown type 'int'"), std::string::npos);
}

TEST(Types, ScalarText) {
  EXPECT_EQ(Scalar::Of<int32_t>(42).ToString(), "42:i32");
  EXPECT_EQ(Scalar::Of<double>(1.5).ToString(), "1.5:f64");
  EXPECT_EQ(Scalar::Of<double>(2.0).ToString(), "2.0:f64");
  EXPECT_EQ(Scalar::Of<float>(-0.0f).ToString(), "-0.0:f32");
  EXPECT_EQ(Scalar::Null(TypeId::kU8).ToString(), "null:u8");
  EXPECT_EQ(Scalar::Of(true).ToString(), "true");
  EXPECT_FALSE(Scalar::Of<double>(0.0) == Scalar::Of<double>(-0.0));  // bits differ
  auto s = ParseScalar(TypeId::kU8, "256");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), ErrorCode::kTypeError);
  EXPECT_EQ(ParseScalar(TypeId::kI8, "-128")->value<int8_t>(), -128);
}

TEST(Schema, ParseErrors) {
  auto s = ParseSchema("a:i32?, b:i32, c:u8");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ToString(), "a:i32?, b:i32, c:u8");
  EXPECT_EQ(s->FieldIndex("c"), 2);
  EXPECT_FALSE(ParseSchema("a:i32, a:i64").ok());
  EXPECT_FALSE(ParseSchema("a").ok());
  EXPECT_FALSE(ParseSchema("1a:i32").ok());
  EXPECT_FALSE(ParseSchema("a:int").ok());
}

// A nullable i32 array of `offset + length` rows with a random validity, sliced to `offset`.
struct Fixture {
  std::vector<std::optional<int32_t>> rows;
  ArrayPtr array;
};
Fixture RandomInts(int64_t offset, int64_t length, double valid, std::mt19937& rng) {
  Fixture f;
  std::bernoulli_distribution keep(valid);
  for (int64_t i = 0; i < offset + length; ++i) {
    f.rows.push_back(keep(rng) ? std::optional<int32_t>(static_cast<int32_t>(rng())) : std::nullopt);
  }
  auto full = MakeArray<int32_t>(f.rows);
  EXPECT_TRUE(full.ok());
  f.array = *(*full)->Slice(offset, length);
  f.rows.erase(f.rows.begin(), f.rows.begin() + offset);
  return f;
}

TEST(Array, PrimitiveSlicesOfSlices) {
  std::mt19937 rng(7);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      for (double valid : {0.0, 0.5, 1.0}) {
        Fixture f = RandomInts(off, len, valid, rng);
        ASSERT_EQ(f.array->length(), len);
        int64_t nulls = 0;
        for (int64_t i = 0; i < len; ++i) {
          nulls += !f.rows[i].has_value();
          ASSERT_EQ(f.array->IsNull(i), !f.rows[i].has_value());
          if (f.rows[i]) {
            ASSERT_EQ(f.array->GetScalar(i).value<int32_t>(), *f.rows[i]);
          }
        }
        EXPECT_EQ(f.array->NullCount(), nulls);
        // A slice of the slice sees the same rows.
        if (len >= 3) {
          auto inner = f.array->Slice(1, len - 2);
          ASSERT_TRUE(inner.ok());
          for (int64_t i = 0; i < len - 2; ++i) {
            ASSERT_TRUE((*inner)->GetScalar(i) == f.array->GetScalar(i + 1));
          }
        }
      }
    }
  }
}

TEST(Array, SliceOutOfRangeIsAnError) {
  auto a = *ArrayFromText(DataType(TypeId::kI32), "[1, 2, 3]");
  EXPECT_FALSE(a->Slice(2, 2).ok());
  EXPECT_FALSE(a->Slice(-1, 1).ok());
  EXPECT_FALSE(a->Slice(4, 0).ok());
  EXPECT_TRUE(a->Slice(3, 0).ok());
}

TEST(Array, BufferShorterThanClaimedIsAnError) {
  auto buf = *Buffer::Allocate(12);
  auto r = PrimitiveArray::Make(DataType(TypeId::kI32), 4, buf, Validity::AllValid());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("shorter"), std::string::npos);
  EXPECT_TRUE(PrimitiveArray::Make(DataType(TypeId::kI32), 3, buf, Validity::AllValid()).ok());
  EXPECT_FALSE(PrimitiveArray::Make(DataType(TypeId::kI32), 2, buf, Validity::AllValid(), 2).ok());
  auto bits = *Buffer::Allocate(1);
  EXPECT_FALSE(Validity::FromBitmap(bits, 3, 6).ok());
  // A non-nullable type with nulls.
  auto v = *Validity::FromBitmap(bits, 0, 3);
  EXPECT_FALSE(PrimitiveArray::Make(DataType(TypeId::kI32), 3, buf, v).ok());
  EXPECT_TRUE(PrimitiveArray::Make(DataType(TypeId::kI32, true), 3, buf, v).ok());
}

TEST(Array, BoolAtBitOffsets) {
  std::mt19937 rng(8);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      std::vector<Scalar> rows;
      for (int64_t i = 0; i < off + len; ++i) {
        rows.push_back(rng() % 4 == 0 ? Scalar::Null(TypeId::kBool) : Scalar::Of<bool>(rng() % 2));
      }
      auto full = *MakeArray(DataType(TypeId::kBool, true), rows);
      auto sliced = *full->Slice(off, len);
      for (int64_t i = 0; i < len; ++i) ASSERT_TRUE(sliced->GetScalar(i) == rows[off + i]);
    }
  }
}

TEST(ByteBool, ShortBufferIsAnErrorAtConstruction) {
  auto bytes = Buffer::Borrow("\1\0\1", 3, nullptr);
  auto r = ByteBoolArray::Make(4, bytes, Validity::AllValid());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("shorter than the 4 rows"), std::string::npos);
  EXPECT_FALSE(ByteBoolArray::Make(3, bytes, Validity::AllValid(), 1).ok());
  EXPECT_TRUE(ByteBoolArray::Make(2, bytes, Validity::AllValid(), 1).ok());
}

TEST(ByteBool, ZeroCopyAndConversionMatchesReference) {
  std::mt19937 rng(9);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      std::vector<uint8_t> bytes(static_cast<size_t>(off + len));
      for (auto& b : bytes) b = rng() % 2 ? static_cast<uint8_t>(rng() | 1) : 0;
      auto validity_bits = *AllocateBitmap(off + len);
      for (int64_t i = 0; i < off + len; ++i) kernels::SetBitTo(validity_bits->mutable_data(), i, rng() % 3);
      auto v = *Validity::FromBitmap(validity_bits, 0, off + len);
      auto full = *ByteBoolArray::Make(off + len, Buffer::Borrow(bytes.data(), off + len, nullptr), v,
                                       0, true);
      EXPECT_EQ(full->bytes(), bytes.data());  // zero-copy
      auto sliced = std::static_pointer_cast<const ByteBoolArray>(*full->Slice(off, len));
      auto packed = *sliced->ToBool();
      ASSERT_EQ(packed->length(), len);
      for (int64_t i = 0; i < len; ++i) {
        const bool valid = kernels::GetBit(validity_bits->data(), off + i);
        ASSERT_EQ(packed->IsNull(i), !valid);
        if (valid) {
          ASSERT_EQ(packed->Value(i), bytes[off + i] != 0);
        }
      }
    }
  }
}

TEST(Constant, NullAndValue) {
  auto c = *ConstantArray::Make(Scalar::Of<int16_t>(-3), 100);
  EXPECT_EQ(c->type(), DataType(TypeId::kI16));
  EXPECT_EQ(c->NullCount(), 0);
  auto s = *c->Slice(10, 5);
  EXPECT_EQ(s->length(), 5);
  EXPECT_EQ(s->GetScalar(4).value<int16_t>(), -3);
  auto n = *ConstantArray::Make(Scalar::Null(TypeId::kF64), 7);
  EXPECT_TRUE(n->type().nullable);
  EXPECT_EQ(n->NullCount(), 7);
}

TEST(Dictionary, CodesAndValidation) {
  auto values = *ArrayFromText(DataType(TypeId::kF64, true), "[1.5, null, -2.0]");
  auto codes = std::static_pointer_cast<const PrimitiveArray>(
      *ArrayFromText(DataType(TypeId::kU8, true), "[0, 2, null, 1, 2]"));
  auto d = *DictionaryArray::Make(codes, values);
  ASSERT_TRUE(d->Validate().ok());
  EXPECT_EQ(d->ToString(), "[1.5, -2.0, null, null, -2.0]");
  EXPECT_EQ(d->NullCount(), 2);
  auto sliced = *d->Slice(1, 3);
  EXPECT_EQ(sliced->ToString(), "[-2.0, null, null]");

  auto bad_codes = std::static_pointer_cast<const PrimitiveArray>(
      *ArrayFromText(DataType(TypeId::kI32), "[0, 3]"));
  auto bad = *DictionaryArray::Make(bad_codes, values);
  Status st = bad->Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("code 3:i32 at row 1 is outside a dictionary of 3"),
            std::string::npos);
  auto negative = std::static_pointer_cast<const PrimitiveArray>(
      *ArrayFromText(DataType(TypeId::kI8), "[-1]"));
  EXPECT_FALSE((*DictionaryArray::Make(negative, values))->Validate().ok());
}

TEST(Validity, AndOfOffsetsAndShortcuts) {
  std::mt19937 rng(10);
  for (int64_t len : kLengths) {
    Fixture a = RandomInts(3, len, 0.7, rng), b = RandomInts(63, len, 0.7, rng),
            c = RandomInts(0, len, 0.9, rng);
    auto va = static_cast<const PrimitiveArray&>(*a.array).validity();
    auto vb = static_cast<const PrimitiveArray&>(*b.array).validity();
    auto vc = static_cast<const PrimitiveArray&>(*c.array).validity();
    Validity inputs[] = {va, Validity::AllValid(), vb, vc};
    auto out = *AndValidity(inputs, len);
    for (int64_t i = 0; i < len; ++i) {
      ASSERT_EQ(out.IsValid(i), a.rows[i] && b.rows[i] && c.rows[i]) << "len " << len << " i " << i;
    }
    Validity with_null[] = {va, Validity::AllNull()};
    EXPECT_TRUE(AndValidity(with_null, len)->all_null());
    Validity all_valid[] = {Validity::AllValid(), Validity::AllValid()};
    EXPECT_TRUE(AndValidity(all_valid, len)->all_valid());
    Validity one[] = {Validity::AllValid(), va};
    auto shared = *AndValidity(one, len);
    if (va.has_bitmap()) {
      EXPECT_EQ(shared.bitmap(), va.bitmap());  // no copy for one bitmap
    }
  }
}

TEST(Text, ArrayLiteralErrors) {
  EXPECT_FALSE(ArrayFromText(DataType(TypeId::kI32), "[1, null]").ok());  // not nullable
  EXPECT_FALSE(ArrayFromText(DataType(TypeId::kI32), "1, 2").ok());
  EXPECT_FALSE(ArrayFromText(DataType(TypeId::kI32), "[1, x]").ok());
  EXPECT_EQ((*ArrayFromText(DataType(TypeId::kF32, true), "[nan, -inf, null]"))->ToString(),
            "[nan, -inf, null]");
  EXPECT_EQ((*ArrayFromText(DataType(TypeId::kI32), "[]"))->length(), 0);
}

}  // namespace
}  // namespace rowjit
