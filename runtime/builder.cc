// Array builders and the text literal parser used by tests and the CLI (runtime layer).
#include "runtime/builder.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "runtime/string_array.h"

namespace rowjit {

Result<ArrayPtr> MakeArray(DataType type, const std::vector<Scalar>& rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  if (IsString(type.id)) {  // 32-bit offsets, Arrow's default string layout
    std::vector<std::optional<std::string_view>> bytes;
    for (int64_t i = 0; i < n; ++i) {
      const Scalar& s = rows[static_cast<size_t>(i)];
      if (s.type_id() != type.id) {
        return MakeError(ErrorCode::kTypeError, "row {} is {}, the array is {}", i,
                         TypeIdName(s.type_id()), type.ToString());
      }
      bytes.push_back(s.is_null() ? std::nullopt : std::optional<std::string_view>(s.str()));
    }
    ROWJIT_ASSIGN_OR_RETURN(auto arr, MakeStringArray(type, StringLayout::kOffsets32, bytes));
    return ArrayPtr(std::move(arr));
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr valid_bits, AllocateBitmap(n));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Scalar& s = rows[i];
    if (s.type_id() != type.id) {
      return MakeError(ErrorCode::kTypeError, "row {} is {}, the array is {}", i,
                       TypeIdName(s.type_id()), type.ToString());
    }
    if (s.is_null()) {
      ++nulls;
    } else {
      kernels::SetBitTo(valid_bits->mutable_data(), i, true);
    }
  }
  if (nulls > 0 && !type.nullable) {
    return MakeError(ErrorCode::kInvalidInput, "null row in a non-nullable {} array",
                     type.ToString());
  }
  Validity validity = Validity::AllValid();
  if (nulls == n && n > 0) {
    validity = Validity::AllNull();
  } else if (nulls > 0) {
    ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(valid_bits, 0, n));
  }
  if (type.id == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
    for (int64_t i = 0; i < n; ++i) {
      if (!rows[i].is_null()) kernels::SetBitTo(bits->mutable_data(), i, rows[i].value<bool>());
    }
    return BoolArray::Make(n, std::move(bits), validity, 0, type.nullable);
  }
  const int width = ByteWidth(type.id);
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::Allocate(n * width));
  for (int64_t i = 0; i < n; ++i) {
    const __int128 bits = rows[i].is_null() ? 0 : rows[i].int128();  // little-endian: low bytes first
    std::memcpy(values->mutable_data() + i * width, &bits, static_cast<size_t>(width));
  }
  return PrimitiveArray::Make(type, n, std::move(values), validity);
}

namespace {

template <typename T>
Result<Scalar> ParseInteger(std::string_view text, TypeId id) {
  // Accept a leading '+' for symmetry with '-'.
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  T v{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) {
    return MakeError(ErrorCode::kTypeError, "{} does not fit in {}", text, TypeIdName(id));
  }
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    return MakeError(ErrorCode::kInvalidInput, "'{}' is not a {} value", text, TypeIdName(id));
  }
  return Scalar::Of<T>(v);
}

template <typename T>
Result<Scalar> ParseFloat(std::string_view text, TypeId id) {
  std::string s(text);
  if (s == "nan") return Scalar::Of<T>(std::numeric_limits<T>::quiet_NaN());
  if (s == "-nan") return Scalar::Of<T>(-std::numeric_limits<T>::quiet_NaN());
  if (s == "inf") return Scalar::Of<T>(std::numeric_limits<T>::infinity());
  if (s == "-inf") return Scalar::Of<T>(-std::numeric_limits<T>::infinity());
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
                     s[0] == '+' || s[0] == '.')) {
    return MakeError(ErrorCode::kInvalidInput, "'{}' is not a {} value", text, TypeIdName(id));
  }
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) {
    return MakeError(ErrorCode::kInvalidInput, "'{}' is not a {} value", text, TypeIdName(id));
  }
  if constexpr (std::is_same_v<T, float>) {
    return Scalar::Of<float>(std::strtof(s.c_str(), nullptr));
  } else {
    return Scalar::Of<double>(d);
  }
}

}  // namespace

Result<Scalar> ParseScalar(TypeId id, std::string_view text) {
  if (text == "null") return Scalar::Null(id);
  if (IsString(id)) {  // 'text', a quote doubled inside
    if (text.size() < 2 || text.front() != '\'' || text.back() != '\'') {
      return MakeError(ErrorCode::kInvalidInput, "a {} value is quoted: 'text', not {}", TypeIdName(id), text);
    }
    std::string bytes;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      if (text[i] == '\'' && (i + 2 >= text.size() || text[++i] != '\'')) {
        return MakeError(ErrorCode::kInvalidInput, "a quote inside {} is not doubled", text);
      }
      bytes += text[i];
    }
    return Scalar::String(bytes, id);
  }
  if (id == TypeId::kI128) {  // a 128-bit integer in decimal
    const bool negative = !text.empty() && text.front() == '-';
    const std::string_view digits = text.substr(negative ? 1 : 0);
    const unsigned __int128 limit = (static_cast<unsigned __int128>(1) << 127) - (negative ? 0 : 1);
    unsigned __int128 v = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9' || v > (limit - static_cast<unsigned>(c - '0')) / 10) {
        return MakeError(ErrorCode::kInvalidInput, "'{}' is not a 128-bit integer", text);
      }
      v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (digits.empty()) return MakeError(ErrorCode::kInvalidInput, "'{}' is not a 128-bit integer", text);
    return Scalar::Int128(static_cast<__int128>(negative ? 0 - v : v), DataType(TypeId::kI128));
  }
  return VisitType(id, [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
    if constexpr (std::is_same_v<T, bool>) {
      if (text == "true") return Scalar::Of(true);
      if (text == "false") return Scalar::Of(false);
      return MakeError(ErrorCode::kInvalidInput, "'{}' is not a bool value", text);
    } else if constexpr (std::is_floating_point_v<T>) {
      return ParseFloat<T>(text, id);
    } else {
      return ParseInteger<T>(text, id);
    }
  });
}

Result<ArrayPtr> ArrayFromText(DataType type, std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    return MakeError(ErrorCode::kInvalidInput, "array literal must be [v, v, ...], got '{}'",
                     text);
  }
  text = trim(text.substr(1, text.size() - 2));
  std::vector<Scalar> rows;
  // The next comma outside quotes.
  auto next_comma = [](std::string_view s) {
    bool quoted = false;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\'') quoted = !quoted;
      if (s[i] == ',' && !quoted) return i;
    }
    return std::string_view::npos;
  };
  while (!text.empty()) {
    size_t comma = next_comma(text);
    std::string_view item = trim(text.substr(0, comma));
    ROWJIT_ASSIGN_OR_RETURN(Scalar s, ParseScalar(type.id, item));
    rows.push_back(s);
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return MakeArray(type, rows);
}

}  // namespace rowjit
