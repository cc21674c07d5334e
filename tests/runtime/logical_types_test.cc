// Logical types in the runtime: their text, storage and checks; decimal text; schemas with
// parameterized types; Arrow C Data Interface round trips of every format, zero-copy, and
// hostile formats and buffers refused (runtime).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "runtime/arrow_c.h"
#include "runtime/builder.h"
#include "runtime/random.h"

namespace rowjit {
namespace {

struct TypeCase {
  const char* text;
  TypeId storage;
  const char* format;
};

constexpr TypeCase kCases[] = {
    {"decimal(12,2)", TypeId::kI128, "d:12,2"},
    {"decimal(38,10)", TypeId::kI128, "d:38,10"},
    {"decimal(1,0)", TypeId::kI128, "d:1,0"},
    {"decimal64(18,4)", TypeId::kI64, "d:18,4,64"},
    {"decimal32(9,9)", TypeId::kI32, "d:9,9,32"},
    {"date32", TypeId::kI32, "tdD"},
    {"date64", TypeId::kI64, "tdm"},
    {"time32(s)", TypeId::kI32, "tts"},
    {"time32(ms)", TypeId::kI32, "ttm"},
    {"time64(us)", TypeId::kI64, "ttu"},
    {"time64(ns)", TypeId::kI64, "ttn"},
    {"timestamp(s)", TypeId::kI64, "tss:"},
    {"timestamp(ms)", TypeId::kI64, "tsm:"},
    {"timestamp(us, UTC)", TypeId::kI64, "tsu:UTC"},
    {"timestamp(ns, America/New_York)", TypeId::kI64, "tsn:America/New_York"},
    {"timestamp(us, +05:30)", TypeId::kI64, "tsu:+05:30"},
    {"duration(s)", TypeId::kI64, "tDs"},
    {"duration(ms)", TypeId::kI64, "tDm"},
    {"duration(us)", TypeId::kI64, "tDu"},
    {"duration(ns)", TypeId::kI64, "tDn"},
    {"interval_months", TypeId::kI32, "tiM"},
    {"interval_day_time", TypeId::kI64, "tiD"},
    {"interval_month_day_nano", TypeId::kI128, "tin"},
};

TEST(LogicalTypes, TextStorageAndFormat) {
  for (const TypeCase& c : kCases) {
    auto t = ParseDataType(c.text);
    ASSERT_TRUE(t.ok()) << c.text << ": " << t.error().ToString();
    EXPECT_EQ(t->ToString(), c.text);
    EXPECT_EQ(t->id, c.storage) << c.text;
    EXPECT_TRUE(t->is_logical());
    EXPECT_EQ(ArrowFormatOf(*t), c.format);
    EXPECT_EQ(ParseDataType(std::string(c.text) + "?")->ToString(), std::string(c.text) + "?");
  }
  EXPECT_EQ(ParseDataType("decimal(12, 2)")->ToString(), "decimal(12,2)");
  EXPECT_EQ(ParseDataType("decimal(7)")->ToString(), "decimal(7,0)");
  for (const char* bad : {"decimal(0,0)", "decimal(39,2)", "decimal64(19,2)", "decimal32(10,0)", "decimal(5,6)",
                          "decimal(5,-1)", "decimal(x,1)", "time32(us)", "time64(s)", "timestamp(day)",
                          "timestamp(us", "duration(us, UTC)", "date16", "i128"}) {
    EXPECT_FALSE(ParseDataType(bad).ok()) << bad;
  }
}

TEST(LogicalTypes, SchemaTextKeepsCommasInsideParentheses) {
  auto s = ParseSchema("a:decimal(12,2)?, t:timestamp(us, UTC), d:date32, x:i32");
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  ASSERT_EQ(s->fields.size(), 4u);
  EXPECT_EQ(s->fields[0].type.ToString(), "decimal(12,2)?");
  EXPECT_EQ(s->fields[1].type.ToString(), "timestamp(us, UTC)");
  EXPECT_EQ(s->ToString(), "a:decimal(12,2)?, t:timestamp(us, UTC), d:date32, x:i32");
}

TEST(LogicalTypes, DecimalText) {
  EXPECT_EQ(DecimalText(-5, 2), "-0.05");
  EXPECT_EQ(DecimalText(12345, 2), "123.45");
  EXPECT_EQ(DecimalText(0, 3), "0.000");
  EXPECT_EQ(DecimalText(-100, 0), "-100");
  const __int128 min = static_cast<__int128>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(Int128Text(min), "-170141183460469231731687303715884105728");
  const auto max = static_cast<__int128>((static_cast<unsigned __int128>(1) << 127) - 1);
  EXPECT_EQ(Int128Text(max), "170141183460469231731687303715884105727");
  const DataType d = *ParseDataType("decimal(20,3)");
  EXPECT_EQ(Scalar::Int128(-1234567, d).ToString(), "-1234.567:decimal(20,3)");
  EXPECT_EQ(Scalar::Null(TypeId::kI128).As(d).ToString(), "null:decimal(20,3)");
}

TEST(LogicalTypes, TimeZoneNamesAreInternedAndChecked) {
  auto a = InternTimeZone("Europe/Berlin");
  auto b = InternTimeZone("Europe/Berlin");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(TimeZoneName(*a), "Europe/Berlin");
  EXPECT_EQ(*InternTimeZone(""), 0);
  EXPECT_FALSE(InternTimeZone(std::string(65, 'x')).ok());
  EXPECT_FALSE(InternTimeZone("bad\nzone").ok());
  EXPECT_FALSE(InternTimeZone("a,b").ok());
}

// Every type through export and import: the same values and nulls, the same type, the values
// buffer shared (zero-copy) both ways, each struct released once.
TEST(LogicalTypes, ArrowRoundTripsEveryType) {
  std::mt19937_64 rng(11);
  for (const TypeCase& c : kCases) {
    const DataType type = ParseDataType(c.text)->WithNullable(true);
    for (int64_t offset : {0, 3}) {
      ArrayPtr a = RandomFlatArray({type, 70, 0.7, offset}, rng);
      ASSERT_NE(a, nullptr) << c.text;
      ASSERT_EQ(a->type(), type);
      ArrowArray array;
      ArrowSchema schema;
      ASSERT_TRUE(ExportArray(a, &array, &schema, "col").ok());
      EXPECT_STREQ(schema.format, c.format);
      const void* exported_values = array.buffers[1];
      auto back = ImportArray(&array, &schema);
      ASSERT_TRUE(back.ok()) << c.text << ": " << back.error().ToString();
      EXPECT_EQ((*back)->type(), type) << c.text;
      EXPECT_TRUE(ArraysEqual(*a, **back)) << c.text;
      const auto& p = static_cast<const PrimitiveArray&>(**back);
      EXPECT_EQ(p.values_buffer()->data(), exported_values) << c.text;  // not copied
      EXPECT_EQ(p.raw_values(), static_cast<const PrimitiveArray&>(*a).raw_values()) << c.text;
    }
  }
}

// Values as an engine lays them out (DuckDB's DECIMAL(12,2) as decimal128, a TIMESTAMP WITH TIME
// ZONE as tsu:UTC), imported from raw C structs.
int g_releases = 0;
void ReleaseArray(ArrowArray* a) {
  ++g_releases;
  a->release = nullptr;
}
void ReleaseSchema(ArrowSchema* s) {
  ++g_releases;
  s->release = nullptr;
}

ArrowArray RawArray(int64_t length, int64_t offset, const void** buffers) {
  ArrowArray a{};
  a.length = length;
  a.offset = offset;
  a.n_buffers = 2;
  a.buffers = buffers;
  a.release = ReleaseArray;
  return a;
}

ArrowSchema RawSchema(const char* format) {
  ArrowSchema s{};
  s.format = format;
  s.name = "c";
  s.flags = ARROW_FLAG_NULLABLE;
  s.release = ReleaseSchema;
  return s;
}

TEST(LogicalTypes, ImportsRawEngineBuffers) {
  alignas(16) __int128 decimals[3] = {1234, -5, static_cast<__int128>(99'999'999'999)};
  const void* dbufs[2] = {nullptr, decimals};
  ArrowArray a = RawArray(2, 1, dbufs);
  ArrowSchema s = RawSchema("d:12,2");
  auto d = ImportArray(&a, &s);
  ASSERT_TRUE(d.ok()) << d.error().ToString();
  EXPECT_EQ((*d)->GetScalar(0).ToString(), "-0.05:decimal(12,2)");
  EXPECT_EQ((*d)->GetScalar(1).ToString(), "999999999.99:decimal(12,2)");
  int64_t micros[2] = {0, 1'700'000'000'000'000};
  const void* tbufs[2] = {nullptr, micros};
  a = RawArray(2, 0, tbufs);
  s = RawSchema("tsu:UTC");
  auto t = ImportArray(&a, &s);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->type().ToString(), "timestamp(us, UTC)?");
  EXPECT_EQ((*t)->GetScalar(1).ToString(), "1700000000000000:timestamp(us, UTC)");
}

TEST(LogicalTypes, HostileFormatsAreRefused) {
  int64_t values[4] = {1, 2, 3, 4};
  const void* bufs[2] = {nullptr, values};
  struct Bad {
    const char* format;
    ErrorCode code;
  };
  const Bad bad[] = {
      {"d:12", ErrorCode::kInvalidInput},       {"d:", ErrorCode::kInvalidInput},
      {"d:12,2,256", ErrorCode::kUnsupported},  {"d:12,2,16", ErrorCode::kUnsupported},
      {"d:40,2", ErrorCode::kUnsupported},      {"d:12,-2", ErrorCode::kUnsupported},
      {"d:19,2,64", ErrorCode::kUnsupported},   {"d:1x,2", ErrorCode::kInvalidInput},
      {"d:12,2,", ErrorCode::kInvalidInput},    {"d:99999999999999999999,2", ErrorCode::kInvalidInput},
      {"tsx:", ErrorCode::kUnsupported},        {"tsu", ErrorCode::kUnsupported},
      {"ttD", ErrorCode::kUnsupported},         {"tdu", ErrorCode::kUnsupported},
      {"tDD", ErrorCode::kUnsupported},         {"tiX", ErrorCode::kUnsupported},
  };
  for (const Bad& b : bad) {
    g_releases = 0;
    ArrowArray a = RawArray(2, 0, bufs);
    ArrowSchema s = RawSchema(b.format);
    auto r = ImportArray(&a, &s);
    ASSERT_FALSE(r.ok()) << b.format;
    EXPECT_EQ(r.error().code(), b.code) << b.format << ": " << r.error().ToString();
    EXPECT_EQ(g_releases, 2) << b.format;
  }
  // A zone name past 64 bytes, and one with a control byte.
  const std::string long_zone = "tsu:" + std::string(80, 'z');
  for (const std::string& f : {long_zone, std::string("tsu:a\x01" "b")}) {
    ArrowArray a = RawArray(2, 0, bufs);
    ArrowSchema s = RawSchema(f.c_str());
    EXPECT_FALSE(ImportArray(&a, &s).ok());
  }
}

TEST(LogicalTypes, SixteenByteValuesNeedTheirBytes) {
  // Three decimal128 rows need 48 bytes: a 16-byte element is not read as 8.
  std::vector<uint8_t> bytes(48);
  auto buffer = *Buffer::Allocate(40);
  EXPECT_FALSE(PrimitiveArray::Make(*ParseDataType("decimal(12,2)"), 3, buffer, Validity::AllValid()).ok());
  auto enough = *Buffer::Allocate(48);
  EXPECT_TRUE(PrimitiveArray::Make(*ParseDataType("decimal(12,2)"), 3, enough, Validity::AllValid()).ok());
  // A record batch whose column is the storage type but not the logical one is refused.
  const Schema schema = *ParseSchema("t:timestamp(us)");
  auto plain = *MakeArray(DataType(TypeId::kI64), {Scalar::Of<int64_t>(1)});
  EXPECT_FALSE(RecordBatch::Make(schema, {plain}).ok());
}

}  // namespace
}  // namespace rowjit
