// The byte-level string kernels against plain C++ (kernels): the search against
// std::string_view::find, the UTF-8 check against a decoder written from RFC 3629's table, the
// number parse at its edges.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernels/strings.h"

namespace rowjit::kernels {
namespace {

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// Every length 0-80 and needle 1-20 over a three-letter alphabet (many partial matches), with the
// needle at every position, including the last starts the overlapping final block checks.
TEST(StringKernels, ContainsEqualsFind) {
  std::mt19937_64 rng(3);
  int found = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t n = rng() % 81, m = 1 + rng() % 20;
    std::string s(n, 'a'), needle(m, 'a');
    for (char& c : s) c = static_cast<char>('a' + rng() % 3);
    for (char& c : needle) c = static_cast<char>('a' + rng() % 3);
    if (n >= m && rng() % 2 == 0) s.replace(rng() % (n - m + 1), m, needle);
    const bool want = s.find(needle) != std::string::npos;
    ASSERT_EQ(ContainsBytes(Bytes(s), n, Bytes(needle), m), want) << "'" << s << "' contains '" << needle << "'";
    found += want;
  }
  EXPECT_GT(found, 5000);
  EXPECT_TRUE(ContainsBytes(Bytes(std::string("abc")), 3, nullptr, 0));
}

// A decoder from the well-formed byte sequences table (Unicode 15, table 3-7).
size_t Reference(const std::string& s) {
  auto in = [](uint8_t c, int lo, int hi) { return c >= lo && c <= hi; };
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<uint8_t>(s[i]);
    auto at = [&](size_t k) { return i + k < s.size() ? static_cast<uint8_t>(s[i + k]) : 0; };
    size_t len = 0;
    if (c <= 0x7f) len = 1;
    else if (in(c, 0xc2, 0xdf) && in(at(1), 0x80, 0xbf)) len = 2;
    else if (c == 0xe0 && in(at(1), 0xa0, 0xbf) && in(at(2), 0x80, 0xbf)) len = 3;
    else if ((in(c, 0xe1, 0xec) || in(c, 0xee, 0xef)) && in(at(1), 0x80, 0xbf) && in(at(2), 0x80, 0xbf)) len = 3;
    else if (c == 0xed && in(at(1), 0x80, 0x9f) && in(at(2), 0x80, 0xbf)) len = 3;
    else if (c == 0xf0 && in(at(1), 0x90, 0xbf) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf)) len = 4;
    else if (in(c, 0xf1, 0xf3) && in(at(1), 0x80, 0xbf) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf)) len = 4;
    else if (c == 0xf4 && in(at(1), 0x80, 0x8f) && in(at(2), 0x80, 0xbf) && in(at(3), 0x80, 0xbf)) len = 4;
    if (len == 0) return i;
    i += len;
  }
  return s.size();
}

TEST(StringKernels, FirstInvalidUtf8EqualsTheTable) {
  std::mt19937_64 rng(5);
  static const uint8_t kBytes[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2,
                                   0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff};
  int valid = 0;
  for (int trial = 0; trial < 50000; ++trial) {
    std::string s(rng() % 7, '\0');
    for (char& c : s) c = static_cast<char>(kBytes[rng() % std::size(kBytes)]);
    const size_t want = Reference(s);
    ASSERT_EQ(FirstInvalidUtf8(Bytes(s), s.size()), want) << trial;
    valid += want == s.size();
  }
  EXPECT_GT(valid, 5000);
}

uint64_t Parsed(const std::string& s, NumberKind kind, int bits, ParseStatus want) {
  uint64_t out = 12345;
  EXPECT_EQ(ParseNumber(Bytes(s), s.size(), kind, bits, &out), want) << "'" << s << "'";
  return out;
}

TEST(StringKernels, ParseNumberAtTheEdges) {
  EXPECT_EQ(Parsed("127", NumberKind::kSigned, 8, ParseStatus::kOk), 127u);
  EXPECT_EQ(Parsed("-128", NumberKind::kSigned, 8, ParseStatus::kOk), uint64_t{0} - 128);
  Parsed("-129", NumberKind::kSigned, 8, ParseStatus::kOutOfRange);
  EXPECT_EQ(Parsed("65535", NumberKind::kUnsigned, 16, ParseStatus::kOk), 65535u);
  Parsed("65536", NumberKind::kUnsigned, 16, ParseStatus::kOutOfRange);
  EXPECT_EQ(Parsed("-9223372036854775808", NumberKind::kSigned, 64, ParseStatus::kOk), uint64_t{1} << 63);
  Parsed("9223372036854775808", NumberKind::kSigned, 64, ParseStatus::kOutOfRange);
  EXPECT_EQ(Parsed(" \t\n42\r ", NumberKind::kSigned, 32, ParseStatus::kOk), 42u);
  EXPECT_EQ(Parsed("x", NumberKind::kSigned, 32, ParseStatus::kInvalid), 0u);  // 0 on failure
  Parsed("4 2", NumberKind::kSigned, 32, ParseStatus::kInvalid);
  Parsed("", NumberKind::kFloat64, 64, ParseStatus::kInvalid);
  Parsed("-", NumberKind::kFloat64, 64, ParseStatus::kInvalid);
  EXPECT_EQ(Parsed("-0", NumberKind::kFloat64, 64, ParseStatus::kOk), uint64_t{1} << 63);  // -0.0
  EXPECT_EQ(Parsed("1", NumberKind::kFloat32, 32, ParseStatus::kOk), 0x3f800000u);
  Parsed("1e39", NumberKind::kFloat32, 32, ParseStatus::kOutOfRange);
  EXPECT_EQ(Parsed("YES", NumberKind::kBool, 1, ParseStatus::kOk), 1u);
  EXPECT_EQ(Parsed("0", NumberKind::kBool, 1, ParseStatus::kOk), 0u);
  Parsed("tru", NumberKind::kBool, 1, ParseStatus::kInvalid);
}

}  // namespace
}  // namespace rowjit::kernels
