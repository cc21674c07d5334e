// Arrow C Data Interface: round trips of every type, release exactly once, malformed input.
#include "runtime/arrow_c.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "runtime/builder.h"
#include "runtime/string_array.h"
#include "support/assert_ok.h"

namespace rowjit {
namespace {

// --- a hand-made producer whose releases are counted ----------------------------------------

int g_array_releases = 0;
int g_schema_releases = 0;

struct RawArrayData {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<const void*> buffers;
  std::vector<ArrowArray*> children;
};

void ReleaseRawArray(ArrowArray* a) {
  ++g_array_releases;
  auto* d = static_cast<RawArrayData*>(a->private_data);
  for (ArrowArray* c : d->children) {
    if (c->release) c->release(c);
    delete c;
  }
  if (a->dictionary) {
    if (a->dictionary->release) a->dictionary->release(a->dictionary);
    delete a->dictionary;
  }
  delete d;
  a->release = nullptr;
}

// Buffers given as byte vectors; std::nullopt is a null buffer pointer.
ArrowArray RawArray(int64_t length, int64_t null_count, int64_t offset,
                    std::vector<std::optional<std::vector<uint8_t>>> buffers,
                    std::vector<ArrowArray> children = {}, ArrowArray* dictionary = nullptr) {
  auto* d = new RawArrayData;
  d->storage.reserve(buffers.size());
  for (auto& b : buffers) {
    if (b) {
      d->storage.push_back(*b);
      d->buffers.push_back(d->storage.back().data());
    } else {
      d->buffers.push_back(nullptr);
    }
  }
  for (auto& c : children) d->children.push_back(new ArrowArray(c));
  ArrowArray a{};
  a.length = length;
  a.null_count = null_count;
  a.offset = offset;
  a.n_buffers = static_cast<int64_t>(d->buffers.size());
  a.n_children = static_cast<int64_t>(d->children.size());
  a.buffers = d->buffers.data();
  a.children = d->children.data();
  a.dictionary = dictionary;
  a.release = ReleaseRawArray;
  a.private_data = d;
  return a;
}

struct RawSchemaData {
  std::string format, name;
  std::vector<ArrowSchema*> children;
};

void ReleaseRawSchema(ArrowSchema* s) {
  ++g_schema_releases;
  auto* d = static_cast<RawSchemaData*>(s->private_data);
  for (ArrowSchema* c : d->children) {
    if (c->release) c->release(c);
    delete c;
  }
  if (s->dictionary) {
    if (s->dictionary->release) s->dictionary->release(s->dictionary);
    delete s->dictionary;
  }
  delete d;
  s->release = nullptr;
}

ArrowSchema RawSchema(std::string format, int64_t flags = ARROW_FLAG_NULLABLE,
                      std::vector<ArrowSchema> children = {}, ArrowSchema* dictionary = nullptr,
                      std::string name = "") {
  auto* d = new RawSchemaData{std::move(format), std::move(name), {}};
  for (auto& c : children) d->children.push_back(new ArrowSchema(c));
  ArrowSchema s{};
  s.format = d->format.c_str();
  s.name = d->name.c_str();
  s.flags = flags;
  s.n_children = static_cast<int64_t>(d->children.size());
  s.children = d->children.data();
  s.dictionary = dictionary;
  s.release = ReleaseRawSchema;
  s.private_data = d;
  return s;
}

std::vector<uint8_t> Int32Bytes(std::initializer_list<int32_t> v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

class ArrowImportTest : public ::testing::Test {
 protected:
  void SetUp() override { g_array_releases = g_schema_releases = 0; }
  // Imports and expects an error with `code` mentioning `fragment`; both structs released once.
  // `arrays` and `schemas` count the structs of each tree (a dictionary is a second one): each
  // must be released exactly once.
  void ExpectImportError(ArrowArray array, ArrowSchema schema, ErrorCode code,
                         std::string_view fragment, int arrays = 1, int schemas = 1) {
    auto r = ImportArray(&array, &schema);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), code) << r.error().ToString();
    EXPECT_NE(r.error().message().find(fragment), std::string::npos) << r.error().ToString();
    EXPECT_EQ(array.release, nullptr);
    EXPECT_EQ(schema.release, nullptr);
    EXPECT_EQ(g_array_releases, arrays);
    EXPECT_EQ(g_schema_releases, schemas);
  }
};

TEST_F(ArrowImportTest, ZeroCopyAndReleasedOnceWhenLastReferenceGoes) {
  ArrowArray a = RawArray(3, 1, 1, {std::vector<uint8_t>{0b1011}, Int32Bytes({9, 1, 2, 3})});
  const void* values = a.buffers[1];
  ArrowSchema s = RawSchema("i");
  auto r = ImportArray(&a, &s);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(g_schema_releases, 1);  // the schema is only read
  EXPECT_EQ(g_array_releases, 0);   // buffers still in use
  ArrayPtr arr = *r;
  EXPECT_EQ(arr->ToString(), "[1, null, 3]");
  EXPECT_EQ(static_cast<const PrimitiveArray&>(*arr).raw_values(),
            static_cast<const uint8_t*>(values) + 4);
  ASSERT_OK_AND_ASSIGN(ArrayPtr slice, arr->Slice(1, 2));
  arr.reset();
  r = Error(ErrorCode::kInternal, "");
  EXPECT_EQ(g_array_releases, 0);   // the slice keeps it alive
  slice.reset();
  EXPECT_EQ(g_array_releases, 1);
}

TEST_F(ArrowImportTest, WrongBufferCount) {
  ExpectImportError(RawArray(2, 0, 0, {Int32Bytes({1, 2})}), RawSchema("i"),
                    ErrorCode::kInvalidInput, "n_buffers 1, expected 2");
}
TEST_F(ArrowImportTest, NullValuesBuffer) {
  ExpectImportError(RawArray(2, 0, 0, {std::nullopt, std::nullopt}), RawSchema("i"),
                    ErrorCode::kInvalidInput, "values buffer is null");
}
TEST_F(ArrowImportTest, NegativeLength) {
  ExpectImportError(RawArray(-1, 0, 0, {std::nullopt, Int32Bytes({1})}), RawSchema("i"),
                    ErrorCode::kInvalidInput, "negative length");
}
TEST_F(ArrowImportTest, NegativeOffset) {
  ExpectImportError(RawArray(1, 0, -2, {std::nullopt, Int32Bytes({1})}), RawSchema("i"),
                    ErrorCode::kInvalidInput, "negative length 1 or offset -2");
}
TEST_F(ArrowImportTest, NullCountWithoutBitmap) {
  ExpectImportError(RawArray(2, 1, 0, {std::nullopt, Int32Bytes({1, 2})}), RawSchema("i"),
                    ErrorCode::kInvalidInput, "null_count is 1 but the array has no validity");
}
TEST_F(ArrowImportTest, NullCountContradictsBitmap) {
  ExpectImportError(RawArray(3, 2, 0, {std::vector<uint8_t>{0b110}, Int32Bytes({1, 2, 3})}),
                    RawSchema("i"), ErrorCode::kInvalidInput, "bitmap has 1 nulls");
}
TEST_F(ArrowImportTest, NullCountLargerThanLength) {
  ExpectImportError(RawArray(1, 5, 0, {std::vector<uint8_t>{0}, Int32Bytes({1})}), RawSchema("i"),
                    ErrorCode::kInvalidInput, "null_count 5 for 1 rows");
}
TEST_F(ArrowImportTest, UnknownFormat) {
  ExpectImportError(RawArray(1, 0, 0, {std::nullopt, Int32Bytes({1})}), RawSchema("e"),
                    ErrorCode::kUnsupported, "unsupported Arrow format string 'e'");
}
TEST_F(ArrowImportTest, NonNullableFieldWithNulls) {
  ExpectImportError(RawArray(2, 1, 0, {std::vector<uint8_t>{0b01}, Int32Bytes({1, 2})}),
                    RawSchema("i", 0), ErrorCode::kInvalidInput, "is not nullable");
}
TEST_F(ArrowImportTest, DictionaryWithoutValues) {
  auto* dict_schema = new ArrowSchema(RawSchema("g"));
  ExpectImportError(RawArray(1, 0, 0, {std::nullopt, Int32Bytes({0})}),
                    RawSchema("i", ARROW_FLAG_NULLABLE, {}, dict_schema), ErrorCode::kInvalidInput,
                    "no dictionary values", 1, 2);
}
TEST_F(ArrowImportTest, DictionaryCodeOutOfRange) {
  auto* dict = new ArrowArray(RawArray(2, 0, 0, {std::nullopt, Int32Bytes({10, 20})}));
  auto* dict_schema = new ArrowSchema(RawSchema("i"));
  ExpectImportError(RawArray(2, 0, 0, {std::nullopt, Int32Bytes({1, 2})}, {}, dict),
                    RawSchema("i", ARROW_FLAG_NULLABLE, {}, dict_schema),
                    ErrorCode::kInvalidInput, "code 2:i32 at row 1 is outside a dictionary of 2", 2, 2);
}
TEST_F(ArrowImportTest, DictionaryIndexNotInteger) {
  auto* dict = new ArrowArray(RawArray(1, 0, 0, {std::nullopt, Int32Bytes({10})}));
  auto* dict_schema = new ArrowSchema(RawSchema("i"));
  ExpectImportError(RawArray(1, 0, 0, {std::nullopt, Int32Bytes({0})}, {}, dict),
                    RawSchema("f", ARROW_FLAG_NULLABLE, {}, dict_schema),
                    ErrorCode::kInvalidInput, "not an integer", 2, 2);
}
TEST_F(ArrowImportTest, AlreadyReleased) {
  ArrowArray a = RawArray(1, 0, 0, {std::nullopt, Int32Bytes({1})});
  ArrowSchema s = RawSchema("i");
  ReleaseRawArray(&a);
  auto r = ImportArray(&a, &s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("already released"), std::string::npos);
  EXPECT_EQ(g_array_releases, 1);
  EXPECT_EQ(g_schema_releases, 1);
}

TEST_F(ArrowImportTest, StructAsRecordBatchWithParentOffset) {
  std::vector<ArrowArray> children = {
      RawArray(4, 0, 0, {std::nullopt, Int32Bytes({1, 2, 3, 4})}),
      RawArray(4, 1, 0, {std::vector<uint8_t>{0b1101}, std::vector<uint8_t>{0b0110}})};
  std::vector<ArrowSchema> child_schemas = {RawSchema("i", 0, {}, nullptr, "a"),
                                            RawSchema("b", ARROW_FLAG_NULLABLE, {}, nullptr, "b")};
  ArrowArray a = RawArray(3, 0, 1, {std::nullopt}, children);
  ArrowSchema s = RawSchema("+s", 0, child_schemas);
  auto r = ImportRecordBatch(&a, &s);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->schema.ToString(), "a:i32, b:bool?");
  EXPECT_EQ(r->length, 3);
  EXPECT_EQ(r->columns[0]->ToString(), "[2, 3, 4]");
  EXPECT_EQ(r->columns[1]->ToString(), "[null, true, false]");
  r = Error(ErrorCode::kInternal, "");
  EXPECT_EQ(g_array_releases, 3);  // the parent once, and it released each child once
  EXPECT_EQ(g_schema_releases, 3);
}

TEST_F(ArrowImportTest, StructChildTooShort) {
  std::vector<ArrowArray> children = {RawArray(2, 0, 0, {std::nullopt, Int32Bytes({1, 2})})};
  ArrowArray a = RawArray(3, 0, 0, {std::nullopt}, children);
  ArrowSchema s = RawSchema("+s", 0, {RawSchema("i", 0, {}, nullptr, "a")});
  auto r = ImportRecordBatch(&a, &s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("fewer than the parent"), std::string::npos);
  EXPECT_EQ(g_array_releases, 2);
  EXPECT_EQ(g_schema_releases, 2);
}

// --- round trips through rowjit's own exporter -------------------------------------------

std::map<void*, void (*)(ArrowArray*)> g_original_release;
int g_exported_releases = 0;
void CountingRelease(ArrowArray* a) {
  ++g_exported_releases;
  auto original = g_original_release.at(a->private_data);
  original(a);
}

// Exports `in`, counts the releases of the exported array and imports it back into `*out`. Call
// through ASSERT_NO_FATAL_FAILURE: a failed export or import stops the test.
void RoundTrip(const ArrayPtr& in, ArrayPtr* out) {
  ArrowArray a;
  ArrowSchema s;
  ASSERT_OK(ExportArray(in, &a, &s, "x"));
  ASSERT_NE(a.release, nullptr);
  g_original_release[a.private_data] = a.release;
  a.release = CountingRelease;
  ASSERT_OK_AND_ASSIGN(*out, ImportArray(&a, &s));
  ASSERT_NE(*out, nullptr);
}

Scalar RandomScalar(TypeId id, std::mt19937_64& rng) {
  return Scalar::FromBits(id, rng());
}

TEST(ArrowRoundTrip, EveryTypeWithNullsAndOffsets) {
  std::mt19937_64 rng(11);
  for (TypeId id : kAllTypeIds) {
    for (int64_t off : {0, 1, 3, 8, 63}) {
      for (int64_t len : {0, 1, 63, 64, 65, 1000}) {
        for (double valid : {0.0, 0.6, 1.0}) {
          std::vector<Scalar> rows;
          for (int64_t i = 0; i < off + len; ++i) {
            rows.push_back(std::uniform_real_distribution<>(0, 1)(rng) < valid
                               ? RandomScalar(id, rng)
                               : Scalar::Null(id));
          }
          ASSERT_OK_AND_ASSIGN(ArrayPtr full, MakeArray(DataType(id, true), rows));
          ASSERT_OK_AND_ASSIGN(ArrayPtr in, full->Slice(off, len));
          g_exported_releases = 0;
          ArrayPtr out;
          ASSERT_NO_FATAL_FAILURE(RoundTrip(in, &out));
          EXPECT_TRUE(ArraysEqual(*in, *out)) << TypeIdName(id) << " off " << off << " len " << len
                                              << in->ToString() << " vs " << out->ToString();
          EXPECT_EQ(out->type(), in->type());
          EXPECT_EQ(g_exported_releases, 0);
          out.reset();
          EXPECT_EQ(g_exported_releases, 1) << TypeIdName(id);
        }
      }
    }
  }
}

TEST(ArrowRoundTrip, StringsInEveryLayoutZeroCopy) {
  std::mt19937_64 rng(12);
  for (TypeId id : {TypeId::kUtf8, TypeId::kBinary}) {
    for (StringLayout layout : {StringLayout::kOffsets32, StringLayout::kOffsets64, StringLayout::kViews}) {
      std::vector<std::string> storage;
      for (int i = 0; i < 300; ++i) storage.push_back(std::string(rng() % 30, char('a' + rng() % 26)));
      std::vector<std::optional<std::string_view>> rows;
      for (int i = 0; i < 300; ++i) {
        rows.push_back(rng() % 4 == 0 ? std::nullopt : std::optional<std::string_view>(storage[i]));
      }
      ASSERT_OK_AND_ASSIGN(auto full, MakeStringArray(DataType(id, true), layout, rows));
      for (int64_t off : {0, 3, 64}) {
        for (int64_t len : {0, 1, 65, 200}) {
          SCOPED_TRACE(fmt::format("{} {} off {} len {}", TypeIdName(id), StringLayoutName(layout), off, len));
          ASSERT_OK_AND_ASSIGN(ArrayPtr in, full->Slice(off, len));
          ArrayPtr out;
          g_exported_releases = 0;
          ASSERT_NO_FATAL_FAILURE(RoundTrip(in, &out));
          EXPECT_EQ(out->type(), in->type());
          EXPECT_TRUE(ArraysEqual(*in, *out)) << in->ToString() << " vs " << out->ToString();
          ASSERT_EQ(out->encoding(), Encoding::kString);
          const auto& back = static_cast<const StringArray&>(*out);
          EXPECT_EQ(back.layout(), layout);
          const auto& orig = static_cast<const StringArray&>(*in);
          if (layout == StringLayout::kViews) {
            EXPECT_EQ(back.raw_views(), orig.raw_views());  // zero-copy both ways
          } else {
            EXPECT_EQ(back.raw_offsets(), orig.raw_offsets());
          }
          out.reset();
          EXPECT_EQ(g_exported_releases, 1);
        }
      }
    }
  }
}

TEST(ArrowRoundTrip, StringConstantAndDictionary) {
  ASSERT_OK_AND_ASSIGN(auto c, ConstantArray::Make(Scalar::String("x'y"), 70));
  ArrayPtr out;
  ASSERT_NO_FATAL_FAILURE(RoundTrip(c, &out));
  EXPECT_TRUE(ArraysEqual(*c, *out));
  ASSERT_OK_AND_ASSIGN(auto values, MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kViews,
                                                    {"short", "a value beyond twelve bytes"}));
  ASSERT_OK_AND_ASSIGN(ArrayPtr codes, ArrayFromText(DataType(TypeId::kI8, true), "[1, 0, null, 1]"));
  ASSERT_OK_AND_ASSIGN(auto dict, DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(codes), values));
  ASSERT_NO_FATAL_FAILURE(RoundTrip(dict, &out));
  EXPECT_EQ(out->encoding(), Encoding::kDictionary);
  EXPECT_EQ(out->ToString(), "['a value beyond twelve bytes', 'short', null, 'a value beyond twelve bytes']");
}

TEST(ArrowRoundTrip, ByteBoolConstantAndDictionary) {
  std::vector<uint8_t> bytes = {0, 7, 0, 255, 1};
  ASSERT_OK_AND_ASSIGN(ArrayPtr bb, ByteBoolArray::Make(5, Buffer::Borrow(bytes.data(), 5, nullptr),
                                                        Validity::AllValid()));
  ArrayPtr out;
  ASSERT_NO_FATAL_FAILURE(RoundTrip(bb, &out));
  EXPECT_EQ(out->encoding(), Encoding::kBool);
  EXPECT_EQ(out->ToString(), "[false, true, false, true, true]");  // any nonzero byte is true
  EXPECT_TRUE(ArraysEqual(*bb, *out));

  for (Scalar c : {Scalar::Of<uint16_t>(65535), Scalar::Null(TypeId::kI64), Scalar::Of(true)}) {
    ASSERT_OK_AND_ASSIGN(ArrayPtr constant, ConstantArray::Make(c, 70));
    ASSERT_NO_FATAL_FAILURE(RoundTrip(constant, &out));
    EXPECT_EQ(out->length(), 70) << c.ToString();
    EXPECT_EQ(out->NullCount(), c.is_null() ? 70 : 0) << c.ToString();
    EXPECT_TRUE(ArraysEqual(*constant, *out)) << c.ToString();
  }

  ASSERT_OK_AND_ASSIGN(ArrayPtr values, ArrayFromText(DataType(TypeId::kF64, true), "[1.5, null, -2.0]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr code_array,
                       ArrayFromText(DataType(TypeId::kI16, true), "[0, 2, null, 1, 2, 0]"));
  auto codes = std::static_pointer_cast<const PrimitiveArray>(code_array);
  ASSERT_OK_AND_ASSIGN(ArrayPtr full_dict, DictionaryArray::Make(codes, values));
  ASSERT_OK_AND_ASSIGN(ArrayPtr dict, full_dict->Slice(1, 4));
  out.reset();
  g_exported_releases = 0;
  ASSERT_NO_FATAL_FAILURE(RoundTrip(dict, &out));
  EXPECT_EQ(out->encoding(), Encoding::kDictionary);
  EXPECT_EQ(out->ToString(), "[-2.0, null, null, -2.0]");
  EXPECT_TRUE(ArraysEqual(*dict, *out)) << out->ToString();
  out.reset();
  EXPECT_EQ(g_exported_releases, 1);
}

TEST(ArrowRoundTrip, RecordBatch) {
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, ArrayFromText(DataType(TypeId::kI32), "[1, 2, 3]"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr b, ArrayFromText(DataType(TypeId::kBool, true), "[true, null, false]"));
  ASSERT_OK_AND_ASSIGN(Schema schema, ParseSchema("a:i32, b:bool?"));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RecordBatch::Make(schema, {a, b}));
  ArrowArray arr;
  ArrowSchema sch;
  ASSERT_OK(ExportRecordBatch(batch, &arr, &sch));
  ASSERT_OK_AND_ASSIGN(RecordBatch back, ImportRecordBatch(&arr, &sch));
  EXPECT_EQ(back.schema, batch.schema);
  EXPECT_EQ(back.length, 3);
  ASSERT_EQ(back.columns.size(), 2u);
  EXPECT_TRUE(ArraysEqual(*back.columns[0], *a)) << back.columns[0]->ToString();
  EXPECT_TRUE(ArraysEqual(*back.columns[1], *b)) << back.columns[1]->ToString();
  EXPECT_EQ(back.columns[0]->ToString(), "[1, 2, 3]");
  EXPECT_EQ(back.columns[1]->ToString(), "[true, null, false]");
}

TEST(ArrowExport, ConsumerReleasesChildAfterMovingIt) {
  // A consumer may move a child out and release it separately; the parent then skips it.
  ASSERT_OK_AND_ASSIGN(ArrayPtr a, ArrayFromText(DataType(TypeId::kI32), "[1, 2]"));
  ASSERT_OK_AND_ASSIGN(Schema schema, ParseSchema("a:i32"));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, RecordBatch::Make(schema, {a}));
  ArrowArray arr;
  ArrowSchema sch;
  ASSERT_OK(ExportRecordBatch(batch, &arr, &sch));
  ASSERT_EQ(arr.n_children, 1);
  ArrowArray child = *arr.children[0];
  arr.children[0]->release = nullptr;
  arr.release(&arr);
  EXPECT_EQ(arr.release, nullptr);
  ASSERT_NE(child.release, nullptr);
  EXPECT_EQ(static_cast<const int32_t*>(child.buffers[1])[1], 2);
  child.release(&child);
  sch.release(&sch);
}

TEST_F(ArrowImportTest, StringOffsetsAndViewsAreChecked) {
  auto ExpectImportError = [this](ArrowArray array, ArrowSchema schema, ErrorCode code, std::string_view fragment) {
    g_array_releases = g_schema_releases = 0;
    this->ExpectImportError(array, schema, code, fragment);
  };
  // utf8 whose offsets decrease: refused before anything reads the bytes.
  ExpectImportError(RawArray(2, 0, 0, {std::nullopt, Int32Bytes({0, 3, 1}), std::vector<uint8_t>{'a', 'b', 'c'}}),
                    RawSchema("u"), ErrorCode::kInvalidInput, "decrease");
  // Offsets layouts have three buffers.
  ExpectImportError(RawArray(1, 0, 0, {std::nullopt, Int32Bytes({0, 1})}), RawSchema("u"),
                    ErrorCode::kInvalidInput, "n_buffers 2, expected 3");
  // A view naming a data buffer that is not there.
  std::vector<uint8_t> view(16, 0);
  const int32_t len = 20, buffer = 1, offset = 0;
  std::memcpy(view.data(), &len, 4);
  std::memcpy(view.data() + 8, &buffer, 4);
  std::memcpy(view.data() + 12, &offset, 4);
  std::vector<uint8_t> sizes(8, 0);
  const int64_t size = 20;
  std::memcpy(sizes.data(), &size, 8);
  ExpectImportError(RawArray(1, 0, 0, {std::nullopt, view, std::vector<uint8_t>(20, 0), sizes}),
                    RawSchema("vu"), ErrorCode::kInvalidInput, "names data buffer 1 of 1");
  ExpectImportError(RawArray(1, 0, 0, {std::nullopt, view}), RawSchema("vz"),
                    ErrorCode::kInvalidInput, "expected 3 or more");
}

TEST_F(ArrowImportTest, StringsImportZeroCopyWithAnOffset) {
  ArrowArray a = RawArray(2, 0, 1, {std::nullopt, Int32Bytes({0, 2, 5, 9}),
                                    std::vector<uint8_t>{'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'}});
  const void* data = a.buffers[2];
  ArrowSchema s = RawSchema("u", 0);
  ASSERT_OK_AND_ASSIGN(ArrayPtr arr, ImportArray(&a, &s));
  EXPECT_EQ(arr->ToString(), "['cde', 'fghi']");
  EXPECT_EQ(static_cast<const StringArray&>(*arr).data(), data);
  EXPECT_EQ(arr->type(), DataType(TypeId::kUtf8, false));
}

}  // namespace
}  // namespace rowjit
