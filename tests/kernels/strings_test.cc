// The byte-level string kernels against plain C++ (kernels): the search against
// std::string_view::find, the UTF-8 check against a decoder written from RFC 3629's table, the
// number parse at its edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/strings.h"
#include "kernel_test_util.h"

namespace rowjit::kernels {
namespace {

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// `s` in a heap block of exactly its size, so that the sanitizers see any read past it (a
// std::string's buffer has spare capacity, or sits inside the object).
std::unique_ptr<uint8_t[]> ExactCopy(const std::string& s) {
  auto out = std::make_unique_for_overwrite<uint8_t[]>(s.size());
  std::copy(s.begin(), s.end(), out.get());
  return out;
}

// Row `t` as a 16-byte view at `v`: inline up to 12 bytes, else appended to `data[buffer]`.
void PutView(const std::string& t, uint8_t* v, std::string* data, uint32_t buffer) {
  const auto len = static_cast<uint32_t>(t.size());
  std::memcpy(v, &len, 4);
  if (len <= 12) {
    std::memcpy(v + 4, t.data(), len);
    return;
  }
  const auto offset = static_cast<uint32_t>(data[buffer].size());
  data[buffer] += t;
  std::memcpy(v + 4, t.data(), 4);
  std::memcpy(v + 8, &buffer, 4);
  std::memcpy(v + 12, &offset, 4);
}

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

// Rows of 0-80 bytes (offsets 32- and 64-bit, starting anywhere in the data) over a three-letter
// alphabet with both cases, against a search of each row on its own: a needle that spans two rows
// or runs past its row's end does not count, a row with several matches is one bit; folded, ASCII
// letters match either case. Word ranges from a few bytes (the byte-at-a-time path) to thousands.
TEST(StringKernels, RowsContainingEqualsASearchARow) {
  std::mt19937_64 rng(7);
  int found = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int rows = 1 + static_cast<int>(rng() % 64);
    const size_t max_len = std::vector<size_t>{0, 3, 20, 80}[rng() % 4];
    const size_t m = 1 + rng() % 20;
    const bool fold = rng() % 2 == 0;
    std::string needle(m, 'a');
    for (char& c : needle) c = "abcAB-"[rng() % (fold ? 6 : 3)];
    std::string data(rng() % 5, 'z');  // bytes before the first row
    std::vector<int64_t> off{static_cast<int64_t>(data.size())};
    std::vector<std::string> row_text;
    for (int r = 0; r < rows; ++r) {
      std::string t(max_len == 0 ? 0 : rng() % (max_len + 1), 'a');
      for (char& c : t) c = "abcABC"[rng() % 6];
      if (t.size() >= m && rng() % 3 == 0) t.replace(rng() % (t.size() - m + 1), m, needle);
      data += t;
      row_text.push_back(t);
      off.push_back(static_cast<int64_t>(data.size()));
    }
    const std::string lower_needle = AsciiLower(needle);
    uint64_t want = 0;
    for (int r = 0; r < rows; ++r) {
      const std::string t = fold ? AsciiLower(row_text[r]) : row_text[r];
      if (t.find(fold ? lower_needle : needle) != std::string::npos) want |= uint64_t{1} << r;
    }
    const std::vector<int32_t> off32(off.begin(), off.end());
    const uint8_t* n = Bytes(fold ? lower_needle : needle);
    const std::unique_ptr<uint8_t[]> exact = ExactCopy(data);  // ASan sees a read past the bytes
    ASSERT_EQ(RowsContaining(off32.data(), rows, exact.get(), n, m, fold), want)
        << "trial " << trial << " needle '" << needle << "' fold " << fold;
    ASSERT_EQ(RowsContaining(off.data(), rows, exact.get(), n, m, fold), want) << "trial " << trial;
    found += want != 0;
  }
  EXPECT_GT(found, 1000);
}

// The view layout: rows of 0-40 bytes (inline up to 12, the rest in two data buffers at any
// offset), against a search of each row on its own, folded or not, needles 1-20 bytes.
TEST(StringKernels, RowsContainingViewsEqualsASearchARow) {
  std::mt19937_64 rng(9);
  int found = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int rows = 1 + static_cast<int>(rng() % 64);
    const size_t m = 1 + rng() % (rng() % 2 ? 6 : 20);
    const bool fold = rng() % 2 == 0;
    std::string needle(m, 'a');
    for (char& c : needle) c = "abAB"[rng() % (fold ? 4 : 2)];
    const std::string lower_needle = AsciiLower(needle);
    std::string data[2] = {std::string(rng() % 5, 'z'), ""};
    std::vector<uint8_t> views(static_cast<size_t>(rows) * 16, 0);
    uint64_t want = 0;
    for (int r = 0; r < rows; ++r) {
      std::string t(rng() % (rng() % 2 ? 13 : 41), 'a');
      for (char& c : t) c = "abAB"[rng() % 4];
      if (t.size() >= m && rng() % 3 == 0) t.replace(rng() % (t.size() - m + 1), m, needle);
      if ((fold ? AsciiLower(t) : t).find(fold ? lower_needle : needle) != std::string::npos) want |= uint64_t{1} << r;
      PutView(t, views.data() + r * 16, data, static_cast<uint32_t>(rng() % 2));
    }
    const std::unique_ptr<uint8_t[]> b0 = ExactCopy(data[0]), b1 = ExactCopy(data[1]);
    const uint8_t* const buffers[2] = {b0.get(), b1.get()};
    ASSERT_EQ(RowsContainingViews(views.data(), buffers, rows, Bytes(fold ? lower_needle : needle), m, fold), want)
        << "trial " << trial << " needle '" << needle << "' fold " << fold;
    found += want != 0;
  }
  EXPECT_GT(found, 1000);
}

// Code points of a word's rows, against a count a row written here: rows of 0-300 bytes (most
// short) over ASCII, lead and continuation bytes (valid UTF-8 or not), 32- and 64-bit offsets
// from a nonzero start, exact-size heap copies (the sanitizers see any read past the range);
// views with inline and out-of-line rows.
void ExpectCodePointCounts() {
  std::mt19937_64 rng(13);
  const uint8_t alphabet[] = {'a', 'Z', 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x80, 0xbf, 0xff};
  auto count = [](const std::string& t) {
    int64_t n = 0;
    for (char c : t) n += (static_cast<uint8_t>(c) & 0xc0) != 0x80;
    return n;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    const int rows = 1 + static_cast<int>(rng() % 64);
    std::vector<std::string> texts(static_cast<size_t>(rows));
    for (std::string& t : texts) {
      // Every fourth trial's rows are long: a word past 4 KiB, counted chunk by chunk.
      t.resize(rng() % (trial % 4 == 0 ? 301 : rng() % 8 == 0 ? 201 : 31));
      for (char& c : t) c = static_cast<char>(alphabet[rng() % sizeof(alphabet)]);
    }
    std::string bytes(rng() % 9, 'x');  // rows start past some other bytes
    std::vector<int64_t> off64 = {static_cast<int64_t>(bytes.size())};
    for (const std::string& t : texts) {
      bytes += t;
      off64.push_back(static_cast<int64_t>(bytes.size()));
    }
    const std::unique_ptr<uint8_t[]> data = ExactCopy(bytes);
    const std::vector<int32_t> off32(off64.begin(), off64.end());
    std::vector<int64_t> got32(static_cast<size_t>(rows)), got64(static_cast<size_t>(rows)), got_views(static_cast<size_t>(rows));
    CodePointCounts(off32.data(), rows, data.get(), got32.data());
    CodePointCounts(off64.data(), rows, data.get(), got64.data());
    std::string out_of_line[1];
    std::vector<uint8_t> views(static_cast<size_t>(rows) * 16, 0);
    for (int r = 0; r < rows; ++r) PutView(texts[static_cast<size_t>(r)], views.data() + r * 16, out_of_line, 0);
    const std::unique_ptr<uint8_t[]> b0 = ExactCopy(out_of_line[0]);
    const uint8_t* const buffers[1] = {b0.get()};
    CodePointCountsViews(views.data(), buffers, rows, got_views.data());
    for (int r = 0; r < rows; ++r) {
      const int64_t want = count(texts[static_cast<size_t>(r)]);
      ASSERT_EQ(got32[r], want) << "trial " << trial << " row " << r;
      ASSERT_EQ(got64[r], want) << "trial " << trial << " row " << r;
      ASSERT_EQ(got_views[r], want) << "trial " << trial << " row " << r;
    }
  }
}

// At every static kernel level the CPU has: the lead-byte masks are each level's own code.
TEST(StringKernels, CodePointCountsEqualACountARow) {
  testing::EveryLevel guard;  // the counts are static kernels of each level
  for (KernelLevel level : guard.levels()) {
    ASSERT_NO_FATAL_FAILURE(testing::EveryLevel::Use(level));
    SCOPED_TRACE(KernelLevelName(level));
    ExpectCodePointCounts();
  }
}

// Integer text of 0-22 bytes over digits, signs, spaces and a letter, at every width, against a
// parse written here: white space trimmed, one optional sign, at least one digit, the value in the
// target's range (the common form and the general path must agree everywhere).
TEST(StringKernels, ParseIntegerEqualsAPlainParse) {
  std::mt19937_64 rng(11);
  int ok = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    std::string t(rng() % 23, '0');
    for (char& c : t) c = "0123456789012345678901234567890123456789+- a"[rng() % 45];
    const bool is_signed = rng() % 2 == 0;
    const int bits = 8 << (rng() % 4);
    ParseStatus want = ParseStatus::kInvalid;
    uint64_t want_value = 0;
    std::string_view v(t);
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    const bool negative = !v.empty() && v[0] == '-';
    if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
    if (!v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos) {
      unsigned __int128 m = 0;
      for (char c : v) m = std::min<unsigned __int128>(m * 10 + static_cast<unsigned>(c - '0'), ~uint64_t{0} + static_cast<unsigned __int128>(1));
      const unsigned __int128 top = is_signed ? (uint64_t{1} << (bits - 1)) - 1 : (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
      if (negative && m == 0) {
        want = ParseStatus::kOk;
      } else if (negative) {
        want = is_signed && m <= top + 1 ? ParseStatus::kOk : ParseStatus::kOutOfRange;
        want_value = uint64_t{0} - static_cast<uint64_t>(m);
      } else {
        want = m <= top ? ParseStatus::kOk : ParseStatus::kOutOfRange;
        want_value = static_cast<uint64_t>(m);
      }
      if (want != ParseStatus::kOk) want_value = 0;
    }
    uint64_t got = 1;
    const std::unique_ptr<uint8_t[]> exact = ExactCopy(t);
    const ParseStatus status = ParseNumber(exact.get(), t.size(), is_signed ? NumberKind::kSigned : NumberKind::kUnsigned, bits, &got);
    ASSERT_EQ(status, want) << "'" << t << "' " << (is_signed ? "i" : "u") << bits;
    if (status == ParseStatus::kOk) {
      ASSERT_EQ(got, want_value) << "'" << t << "'";
    }
    ok += status == ParseStatus::kOk;
  }
  EXPECT_GT(ok, 10000);
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

std::string Text128(__int128 v) {
  if (v == 0) return "0";
  std::string out;
  const bool negative = v < 0;
  unsigned __int128 m = negative ? 0 - static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  for (; m != 0; m /= 10) out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
  return negative ? "-" + out : out;
}

std::string ParsedDecimal(const std::string& s, int precision, int scale, ParseStatus want) {
  __int128 out = 12345;
  EXPECT_EQ(ParseDecimal(Bytes(s), s.size(), precision, scale, &out), want) << "'" << s << "'";
  return Text128(out);
}

TEST(StringKernels, ParseDecimalAtTheEdges) {
  EXPECT_EQ(ParsedDecimal("12.345", 6, 2, ParseStatus::kOk), "1235");  // half away from zero
  EXPECT_EQ(ParsedDecimal("-12.345", 6, 2, ParseStatus::kOk), "-1235");
  EXPECT_EQ(ParsedDecimal("-12.3449", 6, 2, ParseStatus::kOk), "-1234");
  EXPECT_EQ(ParsedDecimal(" +7 ", 1, 0, ParseStatus::kOk), "7");
  EXPECT_EQ(ParsedDecimal("7.", 3, 2, ParseStatus::kOk), "700");
  EXPECT_EQ(ParsedDecimal(".5", 1, 0, ParseStatus::kOk), "1");
  EXPECT_EQ(ParsedDecimal("0.4999", 1, 0, ParseStatus::kOk), "0");
  EXPECT_EQ(ParsedDecimal("-0.00", 5, 2, ParseStatus::kOk), "0");
  EXPECT_EQ(ParsedDecimal("000000000000000000000000000000000000000000001", 1, 0, ParseStatus::kOk), "1");
  EXPECT_EQ(ParsedDecimal("1.5E-1", 3, 1, ParseStatus::kOk), "2");
  EXPECT_EQ(ParsedDecimal("25e-2", 3, 1, ParseStatus::kOk), "3");
  EXPECT_EQ(ParsedDecimal("1e-99999999999999999999", 3, 1, ParseStatus::kOk), "0");
  EXPECT_EQ(ParsedDecimal("99999999999999999999999999999999999999", 38, 0, ParseStatus::kOk),
            "99999999999999999999999999999999999999");
  ParsedDecimal("99999999999999999999999999999999999999.5", 38, 0, ParseStatus::kOutOfRange);
  ParsedDecimal("999.995", 5, 2, ParseStatus::kOutOfRange);
  ParsedDecimal("1e99999999999999999999", 38, 0, ParseStatus::kOutOfRange);
  EXPECT_EQ(ParsedDecimal("x", 5, 2, ParseStatus::kInvalid), "0");  // 0 on failure
  for (const char* bad : {"", " ", "-", "+", ".", "-.", "1e", "1e+", "e5", "1.2.3", "1 2", "1,5", "0x10", "inf", "nan", "--1",
                          "1e5.5", "١"}) {
    ParsedDecimal(bad, 10, 2, ParseStatus::kInvalid);
  }
}

// Random values written every way the grammar allows (leading zeros, a moved point with the
// exponent that puts it back, a sign, blanks, digits past the scale that round): each must read
// back as the value, rounded half away from zero by the first digit dropped.
TEST(StringKernels, ParseDecimalReadsEveryWritingOfAValue) {
  std::mt19937_64 rng(11);
  int rounded = 0, exponents = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int precision = 1 + static_cast<int>(rng() % 38);
    const int scale = static_cast<int>(rng() % (precision + 1));
    std::string digits;  // the value's unscaled digits, at most `precision`, then extra digits
    const int n = 1 + static_cast<int>(rng() % precision);
    for (int i = 0; i < n; ++i) digits += static_cast<char>('0' + rng() % 10);
    const int extra = rng() % 3 == 0 ? 1 + static_cast<int>(rng() % 5) : 0;
    std::string tail;
    for (int i = 0; i < extra; ++i) tail += static_cast<char>('0' + rng() % 10);
    __int128 want = 0;
    for (char c : digits) want = want * 10 + (c - '0');
    if (extra > 0 && tail[0] >= '5') ++want;
    rounded += extra > 0 && tail[0] >= '5';
    __int128 limit = 1;
    for (int i = 0; i < precision; ++i) limit *= 10;
    // The text: digits with the point `scale` from the end of the value digits, then the tail.
    std::string all = std::string(rng() % 3, '0') + digits + tail;
    int point = static_cast<int>(all.size()) - scale - extra;  // before all[point]
    while (point < 0) all.insert(all.begin(), '0'), ++point;   // "0.00ddd" forms
    int64_t exponent = 0;
    if (rng() % 2) {  // move the point k places and say so
      const int k = static_cast<int>(rng() % 9) - 4;
      exponent = k;
      point -= k;
      while (point < 0) all.insert(all.begin(), '0'), ++point;
      while (point > static_cast<int>(all.size())) all += '0';
      ++exponents;
    }
    std::string text = all.substr(0, static_cast<size_t>(point)) + "." + all.substr(static_cast<size_t>(point));
    if (text.back() == '.' && rng() % 2) text.pop_back();
    if (text.front() == '.' && rng() % 2) text.insert(text.begin(), '0');
    if (exponent != 0) text += (rng() % 2 ? "e" : "E") + std::to_string(exponent);
    const bool negative = rng() % 2;
    if (negative) text.insert(text.begin(), '-');
    else if (rng() % 4 == 0) text.insert(text.begin(), '+');
    if (rng() % 4 == 0) text = " " + text + "\t";
    SCOPED_TRACE("trial " + std::to_string(trial) + ": '" + text + "' at (" + std::to_string(precision) + ", " +
                 std::to_string(scale) + ")");
    __int128 got = 0;
    const ParseStatus status = ParseDecimal(Bytes(text), text.size(), precision, scale, &got);
    if (want >= limit) {
      EXPECT_EQ(status, ParseStatus::kOutOfRange);
      continue;
    }
    ASSERT_EQ(status, ParseStatus::kOk);
    EXPECT_EQ(Text128(got), Text128(negative ? -want : want));
  }
  EXPECT_GT(rounded, 1000);
  EXPECT_GT(exponents, 5000);
}

}  // namespace
}  // namespace rowjit::kernels
