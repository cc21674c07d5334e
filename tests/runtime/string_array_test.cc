// String arrays in the three Arrow layouts: rows, slices, and the checks that keep every later
// read inside the buffers.
#include "runtime/string_array.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "runtime/builder.h"
#include "runtime/selection.h"
#include "support/assert_ok.h"

namespace rowjit {
namespace {

constexpr StringLayout kLayouts[] = {StringLayout::kOffsets32, StringLayout::kOffsets64,
                                     StringLayout::kViews};

std::vector<std::optional<std::string_view>> SomeRows() {
  return {"", "a", std::nullopt, "exactly12byt", "thirteen byte", "a string longer than twelve",
          "it's", std::nullopt, std::string_view("nul\0in", 6)};
}

TEST(StringArray, RowsSlicesAndScalarsInEveryLayout) {
  const auto rows = SomeRows();
  for (StringLayout layout : kLayouts) {
    SCOPED_TRACE(StringLayoutName(layout));
    ASSERT_OK_AND_ASSIGN(auto arr, MakeStringArray(DataType(TypeId::kUtf8, true), layout, rows));
    EXPECT_EQ(arr->layout(), layout);
    EXPECT_EQ(arr->NullCount(), 2);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(arr->IsNull(static_cast<int64_t>(i)), !rows[i].has_value()) << i;
      if (rows[i]) {
        EXPECT_EQ(arr->Value(static_cast<int64_t>(i)), *rows[i]) << i;
      }
      EXPECT_EQ(StringAt(*arr, static_cast<int64_t>(i)), rows[i]) << i;
    }
    ASSERT_OK_AND_ASSIGN(ArrayPtr tail, arr->Slice(3, 4));
    EXPECT_EQ(tail->ToString(), "['exactly12byt', 'thirteen byte', 'a string longer than twelve', 'it''s']");
    EXPECT_EQ(tail->GetScalar(3), Scalar::String("it's"));
    EXPECT_EQ(tail->GetScalar(3).ToString(), "'it''s'");
  }
}

TEST(StringArray, EqualityAcrossLayoutsAndEncodings) {
  const auto rows = SomeRows();
  ASSERT_OK_AND_ASSIGN(auto a, MakeStringArray(DataType(TypeId::kUtf8, true), StringLayout::kOffsets32, rows));
  ASSERT_OK_AND_ASSIGN(auto b, MakeStringArray(DataType(TypeId::kUtf8, true), StringLayout::kViews, rows));
  EXPECT_TRUE(ArraysEqual(*a, *b));
  auto changed = rows;
  changed[5] = "a string longer than twelvf";
  ASSERT_OK_AND_ASSIGN(auto c, MakeStringArray(DataType(TypeId::kUtf8, true), StringLayout::kViews, changed));
  EXPECT_EQ(FirstDifference(*a, *c), 5);
  // Binary is another type, even over the same bytes.
  ASSERT_OK_AND_ASSIGN(auto bin, MakeStringArray(DataType(TypeId::kBinary, true), StringLayout::kOffsets32, rows));
  EXPECT_FALSE(ArraysEqual(*a, *bin));
  EXPECT_EQ(bin->GetScalar(1).ToString(), "'a':binary");
}

TEST(StringArray, TextLiteralsParseBack) {
  ASSERT_OK_AND_ASSIGN(ArrayPtr arr, ArrayFromText(DataType(TypeId::kUtf8, true), "['a, b', null, 'it''s', '']"));
  EXPECT_EQ(arr->length(), 4);
  EXPECT_EQ(*StringAt(*arr, 0), "a, b");
  EXPECT_TRUE(arr->IsNull(1));
  EXPECT_EQ(*StringAt(*arr, 2), "it's");
  EXPECT_EQ(*StringAt(*arr, 3), "");
  EXPECT_FALSE(ArrayFromText(DataType(TypeId::kUtf8), "[abc]").ok());
  EXPECT_FALSE(ArrayFromText(DataType(TypeId::kUtf8), "['it's']").ok());
}

TEST(StringArray, TakeCopiesTheSelectedRows) {
  for (StringLayout layout : kLayouts) {
    ASSERT_OK_AND_ASSIGN(auto arr, MakeStringArray(DataType(TypeId::kUtf8, true), layout, SomeRows()));
    const std::vector<uint32_t> rows = {0, 2, 5};
    ASSERT_OK_AND_ASSIGN(SelectionVector sel, SelectionVector::FromIndices(rows, arr->length()));
    ASSERT_OK_AND_ASSIGN(ArrayPtr taken, Take(*arr, sel, nullptr));
    EXPECT_EQ(taken->ToString(), "['', null, 'a string longer than twelve']");
  }
}

BufferPtr Bytes(const void* data, size_t n) {
  auto b = *Buffer::Allocate(static_cast<int64_t>(n));
  std::memcpy(b->mutable_data(), data, n);
  return b;
}

template <typename O>
Result<std::shared_ptr<const StringArray>> FromOffsets(std::vector<O> offsets, std::string data,
                                                       int64_t length, int64_t offset = 0) {
  const StringLayout layout = sizeof(O) == 4 ? StringLayout::kOffsets32 : StringLayout::kOffsets64;
  return StringArray::MakeOffsets(DataType(TypeId::kUtf8), length, layout,
                                  Bytes(offsets.data(), offsets.size() * sizeof(O)),
                                  Bytes(data.data(), data.size()), Validity::AllValid(), offset);
}

TEST(StringArray, OffsetsAreCheckedNeverTrusted) {
  ASSERT_OK(FromOffsets<int32_t>({0, 1, 3}, "abc", 2).status());
  ASSERT_OK(FromOffsets<int64_t>({5, 6, 8}, "01234abc", 2).status());  // first offset above zero
  auto expect = [](auto r, std::string_view fragment) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
    EXPECT_NE(r.error().message().find(fragment), std::string::npos) << r.error().ToString();
  };
  expect(FromOffsets<int32_t>({0, 2, 1}, "abc", 2), "decrease at row 1");
  expect(FromOffsets<int32_t>({0, 1, 4}, "abc", 2), "past the end");
  expect(FromOffsets<int32_t>({-1, 1, 2}, "abc", 2), "negative");
  expect(FromOffsets<int64_t>({0, 1}, "abc", 2), "shorter than the 3 offsets");
  // A slice's window is what is checked: a bad offset before it is not read.
  ASSERT_OK(FromOffsets<int32_t>({9, 0, 1, 2}, "ab", 2, 1).status());
}

std::vector<uint8_t> View(int32_t len, std::string_view inline_or_prefix, int32_t buffer = 0,
                          int32_t offset = 0) {
  std::vector<uint8_t> v(16, 0);
  std::memcpy(v.data(), &len, 4);
  std::memcpy(v.data() + 4, inline_or_prefix.data(), std::min<size_t>(inline_or_prefix.size(), 12));
  if (len > 12) {
    std::memcpy(v.data() + 8, &buffer, 4);
    std::memcpy(v.data() + 12, &offset, 4);
  }
  return v;
}

Result<std::shared_ptr<const StringArray>> FromViews(std::vector<std::vector<uint8_t>> views,
                                                     std::vector<std::string> buffers) {
  std::vector<uint8_t> flat;
  for (auto& v : views) flat.insert(flat.end(), v.begin(), v.end());
  std::vector<BufferPtr> data;
  for (auto& b : buffers) data.push_back(Bytes(b.data(), b.size()));
  return StringArray::MakeViews(DataType(TypeId::kBinary), static_cast<int64_t>(views.size()),
                                Bytes(flat.data(), flat.size()), std::move(data),
                                Validity::AllValid());
}

TEST(StringArray, ViewsAreCheckedNeverTrusted) {
  const std::string long1 = "xxthirteen bytes!";
  ASSERT_OK_AND_ASSIGN(auto ok, FromViews({View(2, "hi"), View(15, "thir", 0, 2)}, {long1}));
  EXPECT_EQ(ok->Value(0), "hi");
  EXPECT_EQ(ok->Value(1), "thirteen bytes!");
  auto expect = [](auto r, std::string_view fragment) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find(fragment), std::string::npos) << r.error().ToString();
  };
  expect(FromViews({View(-1, "")}, {}), "length -1");
  expect(FromViews({View(15, "thir", 1, 2)}, {long1}), "names data buffer 1 of 1");
  expect(FromViews({View(15, "thir", 0, 3)}, {long1}), "reads bytes [3, 18)");
  expect(FromViews({View(15, "thix", 0, 2)}, {long1}), "prefix");
  expect(FromViews({View(15, "thir", 0, -4)}, {long1}), "reads bytes");
}

}  // namespace
}  // namespace rowjit
