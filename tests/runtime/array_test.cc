// Types, validity, arrays of every encoding and zero-copy slicing (runtime).
#include "runtime/array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/builder.h"
#include "support/assert_ok.h"

namespace rowjit {
namespace {

constexpr int64_t kOffsets[] = {0, 1, 3, 7, 63};
constexpr int64_t kLengths[] = {0, 1, 63, 64, 65, 1000};

// `r` (a Status or Result) failed with `code` and a message holding `fragment`.
template <typename R>
void ExpectError(const R& r, ErrorCode code, std::string_view fragment) {
  ASSERT_FALSE(r.ok()) << "expected an error with '" << fragment << "'";
  EXPECT_EQ(r.error().code(), code) << r.error().ToString();
  EXPECT_NE(r.error().message().find(fragment), std::string::npos) << r.error().ToString();
}

TEST(Types, ParseAndPrint) {
  for (TypeId id : kAllTypeIds) {
    for (bool nullable : {false, true}) {
      DataType t(id, nullable);
      auto parsed = ParseDataType(t.ToString());
      ASSERT_TRUE(parsed.ok()) << t.ToString() << ": " << parsed.error().ToString();
      EXPECT_EQ(*parsed, t);
    }
  }
  ASSERT_OK_AND_ASSIGN(DataType nullable_i32, ParseDataType("i32?"));
  EXPECT_EQ(nullable_i32, DataType(TypeId::kI32, true));
  // SQL's name is read in a cast, not in a schema: suggested there (runtime/type_names.cc).
  auto bad = ParseDataType("int");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(bad.error().message().find("unknown type 'int' (did you mean 'i32'?)"), std::string::npos);
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
  ASSERT_OK_AND_ASSIGN(Scalar min_i8, ParseScalar(TypeId::kI8, "-128"));
  EXPECT_EQ(min_i8.value<int8_t>(), -128);
}

TEST(Schema, ParseErrors) {
  auto s = ParseSchema("a:i32?, b:i32, c:u8");
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  EXPECT_EQ(s->ToString(), "a:i32?, b:i32, c:u8");
  EXPECT_EQ(s->FieldIndex("c"), 2);
  ExpectError(ParseSchema("a:i32, a:i64"), ErrorCode::kInvalidInput, "schema names field 'a' twice");
  ExpectError(ParseSchema("a"), ErrorCode::kInvalidInput, "schema field 'a' is not NAME:TYPE");
  ExpectError(ParseSchema("1a:i32"), ErrorCode::kInvalidInput,
              "schema field name '1a' is not an identifier");
  ExpectError(ParseSchema("a:int"), ErrorCode::kInvalidInput, "unknown type 'int'");
}

// A nullable i32 array of `offset + length` rows with a random validity, sliced to `offset`.
struct Fixture {
  std::vector<std::optional<int32_t>> rows;
  ArrayPtr array;
};
// Call through ASSERT_NO_FATAL_FAILURE: a failed build stops the test.
void RandomInts(int64_t offset, int64_t length, double valid, std::mt19937& rng, Fixture* f) {
  std::bernoulli_distribution keep(valid);
  for (int64_t i = 0; i < offset + length; ++i) {
    f->rows.push_back(keep(rng) ? std::optional<int32_t>(static_cast<int32_t>(rng())) : std::nullopt);
  }
  ASSERT_OK_AND_ASSIGN(ArrayPtr full, MakeArray<int32_t>(f->rows));
  ASSERT_OK_AND_ASSIGN(f->array, full->Slice(offset, length));
  f->rows.erase(f->rows.begin(), f->rows.begin() + offset);
}

TEST(Array, PrimitiveSlicesOfSlices) {
  std::mt19937 rng(7);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      for (double valid : {0.0, 0.5, 1.0}) {
        Fixture f;
        ASSERT_NO_FATAL_FAILURE(RandomInts(off, len, valid, rng, &f));
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
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, ArrayFromText(DataType(TypeId::kI32), "[1, 2, 3]"));
  ExpectError(a->Slice(2, 2), ErrorCode::kInvalidInput, "slice [2, 2+2) is outside an array of 3 rows");
  ExpectError(a->Slice(-1, 1), ErrorCode::kInvalidInput, "slice [-1, -1+1) is outside");
  ExpectError(a->Slice(4, 0), ErrorCode::kInvalidInput, "slice [4, 4+0) is outside");
  ASSERT_OK_AND_ASSIGN(ArrayPtr empty_end, a->Slice(3, 0));
  EXPECT_EQ(empty_end->length(), 0);
  ASSERT_OK_AND_ASSIGN(ArrayPtr last_two, a->Slice(1, 2));
  EXPECT_EQ(last_two->ToString(), "[2, 3]");
}

TEST(Array, BufferShorterThanClaimedIsAnError) {
  ASSERT_OK_AND_ASSIGN(BufferPtr buf, Buffer::Allocate(12));
  auto r = PrimitiveArray::Make(DataType(TypeId::kI32), 4, buf, Validity::AllValid());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("shorter"), std::string::npos);
  EXPECT_TRUE(PrimitiveArray::Make(DataType(TypeId::kI32), 3, buf, Validity::AllValid()).ok());
  ExpectError(PrimitiveArray::Make(DataType(TypeId::kI32), 2, buf, Validity::AllValid(), 2),
              ErrorCode::kInvalidInput, "shorter than the 16 bytes 2 rows at offset 2 need");
  ASSERT_OK_AND_ASSIGN(BufferPtr bits, Buffer::Allocate(1));
  ExpectError(Validity::FromBitmap(bits, 3, 6), ErrorCode::kInvalidInput,
              "validity bitmap of 1 bytes is shorter than the 9 bits it claims");
  // A non-nullable type with nulls.
  ASSERT_OK_AND_ASSIGN(Validity v, Validity::FromBitmap(bits, 0, 3));
  ExpectError(PrimitiveArray::Make(DataType(TypeId::kI32), 3, buf, v), ErrorCode::kInvalidInput,
              "a non-nullable array has null rows");
  ASSERT_OK_AND_ASSIGN(auto nullable, PrimitiveArray::Make(DataType(TypeId::kI32, true), 3, buf, v));
  EXPECT_EQ(nullable->NullCount(), 3);
}

TEST(Array, BoolAtBitOffsets) {
  std::mt19937 rng(8);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      std::vector<Scalar> rows;
      for (int64_t i = 0; i < off + len; ++i) {
        rows.push_back(rng() % 4 == 0 ? Scalar::Null(TypeId::kBool) : Scalar::Of<bool>(rng() % 2));
      }
      ASSERT_OK_AND_ASSIGN(ArrayPtr full, MakeArray(DataType(TypeId::kBool, true), rows));
      ASSERT_OK_AND_ASSIGN(ArrayPtr sliced, full->Slice(off, len));
      ASSERT_EQ(sliced->length(), len);
      for (int64_t i = 0; i < len; ++i) {
        ASSERT_TRUE(sliced->GetScalar(i) == rows[off + i])
            << "off " << off << " len " << len << " i " << i << ": " << sliced->GetScalar(i).ToString()
            << " want " << rows[off + i].ToString();
      }
    }
  }
}

TEST(ByteBool, ShortBufferIsAnErrorAtConstruction) {
  auto bytes = Buffer::Borrow("\1\0\1", 3, nullptr);
  auto r = ByteBoolArray::Make(4, bytes, Validity::AllValid());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find("shorter than the 4 rows"), std::string::npos);
  ExpectError(ByteBoolArray::Make(3, bytes, Validity::AllValid(), 1), ErrorCode::kInvalidInput,
              "shorter than the 3 rows it claims (offset 1)");
  ASSERT_OK_AND_ASSIGN(auto tail, ByteBoolArray::Make(2, bytes, Validity::AllValid(), 1));
  EXPECT_EQ(tail->ToString(), "[false, true]");
}

TEST(ByteBool, ZeroCopyAndConversionMatchesReference) {
  std::mt19937 rng(9);
  for (int64_t off : kOffsets) {
    for (int64_t len : kLengths) {
      std::vector<uint8_t> bytes(static_cast<size_t>(off + len));
      for (auto& b : bytes) b = rng() % 2 ? static_cast<uint8_t>(rng() | 1) : 0;
      ASSERT_OK_AND_ASSIGN(BufferPtr validity_bits, AllocateBitmap(off + len));
      for (int64_t i = 0; i < off + len; ++i) kernels::SetBitTo(validity_bits->mutable_data(), i, rng() % 3);
      ASSERT_OK_AND_ASSIGN(Validity v, Validity::FromBitmap(validity_bits, 0, off + len));
      ASSERT_OK_AND_ASSIGN(auto full, ByteBoolArray::Make(off + len, Buffer::Borrow(bytes.data(), off + len, nullptr),
                                                          v, 0, true));
      EXPECT_EQ(full->bytes(), bytes.data());  // zero-copy
      ASSERT_OK_AND_ASSIGN(ArrayPtr sliced_array, full->Slice(off, len));
      ASSERT_EQ(sliced_array->encoding(), Encoding::kByteBool);
      auto sliced = std::static_pointer_cast<const ByteBoolArray>(sliced_array);
      EXPECT_EQ(sliced->bytes(), bytes.data() + off);  // the slice is zero-copy too
      ASSERT_OK_AND_ASSIGN(auto packed, sliced->ToBool());
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
  ASSERT_OK_AND_ASSIGN(auto c, ConstantArray::Make(Scalar::Of<int16_t>(-3), 100));
  EXPECT_EQ(c->type(), DataType(TypeId::kI16));
  EXPECT_EQ(c->NullCount(), 0);
  ASSERT_OK_AND_ASSIGN(ArrayPtr s, c->Slice(10, 5));
  EXPECT_EQ(s->length(), 5);
  EXPECT_EQ(s->GetScalar(4).value<int16_t>(), -3);
  ASSERT_OK_AND_ASSIGN(auto n, ConstantArray::Make(Scalar::Null(TypeId::kF64), 7));
  EXPECT_TRUE(n->type().nullable);
  EXPECT_EQ(n->NullCount(), 7);
}

TEST(Dictionary, CodesAndValidation) {
  ASSERT_OK_AND_ASSIGN(ArrayPtr values, ArrayFromText(DataType(TypeId::kF64, true), "[1.5, null, -2.0]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr code_array, ArrayFromText(DataType(TypeId::kU8, true), "[0, 2, null, 1, 2]"));
  auto codes = std::static_pointer_cast<const PrimitiveArray>(code_array);
  ASSERT_OK_AND_ASSIGN(auto d, DictionaryArray::Make(codes, values));
  ASSERT_OK(d->Validate());
  EXPECT_EQ(d->ToString(), "[1.5, -2.0, null, null, -2.0]");
  EXPECT_EQ(d->NullCount(), 2);
  ASSERT_OK_AND_ASSIGN(ArrayPtr sliced, d->Slice(1, 3));
  EXPECT_EQ(sliced->ToString(), "[-2.0, null, null]");

  ASSERT_OK_AND_ASSIGN(ArrayPtr bad_code_array, ArrayFromText(DataType(TypeId::kI32), "[0, 3]"));
  auto bad_codes = std::static_pointer_cast<const PrimitiveArray>(bad_code_array);
  ASSERT_OK_AND_ASSIGN(auto bad, DictionaryArray::Make(bad_codes, values));
  Status st = bad->Validate();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("code 3:i32 at row 1 is outside a dictionary of 3"),
            std::string::npos);
  ASSERT_OK_AND_ASSIGN(ArrayPtr negative_array, ArrayFromText(DataType(TypeId::kI8), "[-1]"));
  auto negative = std::static_pointer_cast<const PrimitiveArray>(negative_array);
  ASSERT_OK_AND_ASSIGN(auto negative_dict, DictionaryArray::Make(negative, values));
  Status negative_st = negative_dict->Validate();
  ASSERT_FALSE(negative_st.ok());
  EXPECT_NE(negative_st.error().message().find("code -1:i8 at row 0"), std::string::npos)
      << negative_st.ToString();
}

// Validate scans codes a block at a time: a bad code is found at any row, for every code type,
// and a bad code under a null code is not a bad code.
TEST(Array, DictionaryValidateFindsTheFirstBadCodeOfEveryCodeType) {
  ASSERT_OK_AND_ASSIGN(ArrayPtr values, ArrayFromText(DataType(TypeId::kI32), "[10, 20, 30]"));
  for (TypeId t : {TypeId::kI8, TypeId::kU8, TypeId::kI16, TypeId::kU16, TypeId::kI32, TypeId::kU32, TypeId::kI64,
                   TypeId::kU64}) {
    for (int64_t bad_at : {int64_t{-1}, int64_t{0}, int64_t{255}, int64_t{256}, int64_t{999}}) {
      std::string text = "[";
      for (int64_t i = 0; i < 1000; ++i) {
        std::string code = i == bad_at ? "3" : std::to_string(i % 3);
        if (i == 500) code = "null";
        text += (i ? ", " : "") + code;
      }
      ASSERT_OK_AND_ASSIGN(ArrayPtr codes, ArrayFromText(DataType(t, true), text + "]"));
      ASSERT_OK_AND_ASSIGN(auto d, DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(codes), values));
      const Status st = d->Validate();
      if (bad_at < 0) {
        EXPECT_TRUE(st.ok()) << TypeIdName(t) << ": " << st.error().ToString();
      } else {
        ASSERT_FALSE(st.ok()) << TypeIdName(t) << " " << bad_at;
        EXPECT_NE(st.error().message().find(fmt::format("at row {} is outside", bad_at)), std::string::npos)
            << st.error().ToString();
      }
    }
  }
  // Row 1's code is out of range but null: not a bad code.
  ASSERT_OK_AND_ASSIGN(BufferPtr raw, Buffer::Allocate(12));
  const int32_t codes[] = {0, 7, 2};
  std::memcpy(raw->mutable_data(), codes, sizeof(codes));
  ASSERT_OK_AND_ASSIGN(BufferPtr bits, Buffer::Allocate(1));
  bits->mutable_data()[0] = 0b101;
  ASSERT_OK_AND_ASSIGN(Validity v, Validity::FromBitmap(bits, 0, 3));
  ASSERT_OK_AND_ASSIGN(auto nullable_codes, PrimitiveArray::Make(DataType(TypeId::kI32, true), 3, raw, v));
  ASSERT_OK_AND_ASSIGN(auto d, DictionaryArray::Make(nullable_codes, values));
  EXPECT_TRUE(d->Validate().ok());
  EXPECT_EQ(d->ToString(), "[10, null, 30]");
}

TEST(Validity, AndOfOffsetsAndShortcuts) {
  std::mt19937 rng(10);
  int shared_checked = 0;
  for (int64_t len : kLengths) {
    Fixture a, b, c;
    ASSERT_NO_FATAL_FAILURE(RandomInts(3, len, 0.7, rng, &a));
    ASSERT_NO_FATAL_FAILURE(RandomInts(63, len, 0.7, rng, &b));
    ASSERT_NO_FATAL_FAILURE(RandomInts(0, len, 0.9, rng, &c));
    auto va = static_cast<const PrimitiveArray&>(*a.array).validity();
    auto vb = static_cast<const PrimitiveArray&>(*b.array).validity();
    auto vc = static_cast<const PrimitiveArray&>(*c.array).validity();
    Validity inputs[] = {va, Validity::AllValid(), vb, vc};
    ASSERT_OK_AND_ASSIGN(Validity out, AndValidity(inputs, len));
    for (int64_t i = 0; i < len; ++i) {
      ASSERT_EQ(out.IsValid(i), a.rows[i] && b.rows[i] && c.rows[i]) << "len " << len << " i " << i;
    }
    Validity with_null[] = {va, Validity::AllNull()};
    ASSERT_OK_AND_ASSIGN(Validity null_out, AndValidity(with_null, len));
    EXPECT_TRUE(null_out.all_null());
    Validity all_valid[] = {Validity::AllValid(), Validity::AllValid()};
    ASSERT_OK_AND_ASSIGN(Validity valid_out, AndValidity(all_valid, len));
    EXPECT_TRUE(valid_out.all_valid());
    Validity one[] = {Validity::AllValid(), va};
    ASSERT_OK_AND_ASSIGN(Validity shared, AndValidity(one, len));
    if (va.has_bitmap()) {
      // No copy for one bitmap: the same buffer at the same bit offset.
      EXPECT_EQ(shared.bitmap(), va.bitmap());
      EXPECT_EQ(shared.bit_offset(), va.bit_offset());
      ++shared_checked;
    }
  }
  EXPECT_GE(shared_checked, 4);  // a holds nulls at 63 rows and up: the check ran
}

TEST(Text, ArrayLiteralErrors) {
  ExpectError(ArrayFromText(DataType(TypeId::kI32), "[1, null]"), ErrorCode::kInvalidInput,
              "null row in a non-nullable i32 array");
  ExpectError(ArrayFromText(DataType(TypeId::kI32), "1, 2"), ErrorCode::kInvalidInput,
              "array literal must be [v, v, ...], got '1, 2'");
  ExpectError(ArrayFromText(DataType(TypeId::kI32), "[1, x]"), ErrorCode::kInvalidInput,
              "'x' is not a i32 value");
  ASSERT_OK_AND_ASSIGN(ArrayPtr floats, ArrayFromText(DataType(TypeId::kF32, true), "[nan, -inf, null]"));
  EXPECT_EQ(floats->ToString(), "[nan, -inf, null]");
  EXPECT_TRUE(std::isnan(floats->GetScalar(0).value<float>()));
  EXPECT_EQ(floats->GetScalar(1).value<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(floats->IsNull(2));
  ASSERT_OK_AND_ASSIGN(ArrayPtr empty, ArrayFromText(DataType(TypeId::kI32), "[]"));
  EXPECT_EQ(empty->length(), 0);
}

}  // namespace
}  // namespace rowjit

namespace rowjit {
namespace {

// An offset and a length whose sum passes INT64_MAX (the views fuzzer makes such claims) must not
// overflow (undefined behaviour) in the size check: it is an error like any short bitmap.
TEST(Validity, ClaimsPastInt64AreAnErrorNotAnOverflow) {
  auto bits = Buffer::Allocate(8);
  ASSERT_TRUE(bits.ok());
  const int64_t max = std::numeric_limits<int64_t>::max();
  for (auto [offset, length] : {std::pair{max - 3, int64_t{10}}, std::pair{max, max}, std::pair{int64_t{60}, max - 7}}) {
    auto v = Validity::FromBitmap(*bits, offset, length);
    ASSERT_FALSE(v.ok()) << offset << " + " << length;
    EXPECT_EQ(v.error().code(), ErrorCode::kInvalidInput);
  }
  EXPECT_TRUE(Validity::FromBitmap(*bits, 60, 4).ok());
  EXPECT_FALSE(Validity::FromBitmap(*bits, 60, 5).ok());
}

}  // namespace
}  // namespace rowjit
