// Casts between bool and every numeric type (ir layer). cast: widening is exact, narrowing and
// float→int are checked (out of range or ±inf → overflow, NaN → invalid input); saturating_cast
// clamps (NaN → 0, as LLVM's fptosi.sat); wrapping_cast reduces integers modulo 2^width.
// int→float rounds to nearest-even; f64→f32 is checked only for finite values that overflow.
// Strings: cast(utf8 → bool, integer, float) parses (kernels::ParseNumber; a text that is not a
// number is invalid input, one out of range an overflow); cast(bool, integer, float → utf8)
// formats (integers in decimal, floats as the shortest text that reads back to the same value,
// `inf`, `-inf`, `nan`; bools `true`/`false`); utf8 → binary keeps the bytes; binary → utf8
// keeps them when they are valid UTF-8 and is invalid input otherwise.
// Text and the logical types: cast(utf8 → date, time, timestamp) reads the literal grammar
// (text_to_temporal, ir/temporal.h), cast(utf8 → decimal) a decimal number rounded to the scale
// (text_to_decimal, kernels::ParseDecimal), and cast(decimal, date, time, timestamp → utf8)
// writes the text those read back (logical_to_text; an interval's canonical text too). Each
// prints as the cast it stands for.
#include <array>
#include <bit>
#include <charconv>
#include <limits>
#include <utility>

#include "ir/function_internal.h"
#include "ir/string_columns.h"
#include "ir/temporal.h"
#include "kernels/strings.h"

namespace rowjit::ir {
namespace {

enum Mode { kChecked, kSaturating, kWrapping };

template <Mode kMode, typename S, typename T>
Result<Scalar> CastValue(S x) {
  if constexpr (std::is_same_v<S, T>) {
    return Scalar::Of<T>(x);
  } else if constexpr (std::is_same_v<T, bool>) {
    return Scalar::Of<bool>(x != 0);  // NaN is nonzero: true
  } else if constexpr (std::is_same_v<S, bool>) {
    return Scalar::Of<T>(static_cast<T>(x ? 1 : 0));
  } else if constexpr (std::is_integral_v<S> && std::is_integral_v<T>) {
    if (std::in_range<T>(x)) return Scalar::Of<T>(static_cast<T>(x));
    if constexpr (kMode == kWrapping) {
      return Scalar::Of<T>(static_cast<T>(x));  // modular since C++20
    } else if constexpr (kMode == kSaturating) {
      return Scalar::Of<T>(x < 0 ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max());
    } else {
      return internal::Overflow(
          fmt::format("{} does not fit {}", x, TypeIdName(TypeIdOf<T>())));
    }
  } else if constexpr (std::is_integral_v<S>) {  // int → float: nearest
    return Scalar::Of<T>(static_cast<T>(x));
  } else if constexpr (std::is_integral_v<T>) {  // float → int: truncate toward zero
    const double d = static_cast<double>(x);
    constexpr int kWidth = sizeof(T) * 8;
    // [lo, hi) are powers of two, exact in double.
    const double lo = std::is_signed_v<T> ? -std::ldexp(1.0, kWidth - 1) : 0.0;
    const double hi = std::ldexp(1.0, std::is_signed_v<T> ? kWidth - 1 : kWidth);
    if (std::isnan(d)) {
      if constexpr (kMode == kSaturating) return Scalar::Of<T>(0);
      return Error(ErrorCode::kInvalidInput,
                   fmt::format("NaN cannot be cast to {}", TypeIdName(TypeIdOf<T>())));
    }
    const double t = std::trunc(d);
    if (t >= lo && t < hi) return Scalar::Of<T>(static_cast<T>(t));
    if constexpr (kMode == kSaturating) {
      return Scalar::Of<T>(t < lo ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max());
    }
    return internal::Overflow(fmt::format("{} does not fit {}", d, TypeIdName(TypeIdOf<T>())));
  } else {  // float → float
    const T r = static_cast<T>(x);
    if (std::isinf(r) && !std::isinf(x)) {
      if constexpr (kMode == kSaturating) {
        return Scalar::Of<T>(x < 0 ? -std::numeric_limits<T>::max()
                                   : std::numeric_limits<T>::max());
      }
      return internal::Overflow(fmt::format("{} does not fit {}", x, TypeIdName(TypeIdOf<T>())));
    }
    return Scalar::Of<T>(r);
  }
}


kernels::NumberKind KindOf(TypeId t) {
  if (t == TypeId::kBool) return kernels::NumberKind::kBool;
  if (IsSignedInt(t)) return kernels::NumberKind::kSigned;
  if (IsUnsignedInt(t)) return kernels::NumberKind::kUnsigned;
  return t == TypeId::kF32 ? kernels::NumberKind::kFloat32 : kernels::NumberKind::kFloat64;
}

Result<Scalar> ParseText(std::string_view s, TypeId t) {
  uint64_t bits = 0;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  switch (kernels::ParseNumber(p, s.size(), KindOf(t), BitWidth(t), &bits)) {
    case kernels::ParseStatus::kOk: break;
    case kernels::ParseStatus::kInvalid:
      return Error(ErrorCode::kInvalidInput, fmt::format("{} is not a valid {}", internal::Shown(s), TypeIdName(t)));
    case kernels::ParseStatus::kOutOfRange:
      return internal::Overflow(fmt::format("{} is out of the range of {}", internal::Shown(s), TypeIdName(t)));
  }
  return VisitType(t, [&]<typename T>(std::type_identity<T>) -> Scalar {
    if constexpr (std::is_same_v<T, bool>) {
      return Scalar::Of<bool>(bits != 0);
    } else if constexpr (std::is_same_v<T, float>) {
      return Scalar::Of<float>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    } else if constexpr (std::is_same_v<T, double>) {
      return Scalar::Of<double>(std::bit_cast<double>(bits));
    } else {
      return Scalar::Of<T>(static_cast<T>(bits));  // modular: the low bits of the extended value
    }
  });
}

std::string FormatValue(const Scalar& x) {
  return VisitType(x.type_id(), [&]<typename S>(std::type_identity<S>) -> std::string {
    const S v = x.value<S>();
    if constexpr (std::is_same_v<S, bool>) {
      return v ? "true" : "false";
    } else {
      char buf[64];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
      return std::string(buf, ec == std::errc() ? end : buf);
    }
  });
}

Result<Scalar> CastString(const Scalar& x, TypeId target) {
  const TypeId from = x.type_id();
  if (from == TypeId::kUtf8 && !IsString(target)) return ParseText(x.str(), target);
  if (!IsString(from)) return Scalar::String(FormatValue(x), target);
  if (from == TypeId::kBinary && target == TypeId::kUtf8) {
    const std::string_view s = x.str();
    const size_t bad = kernels::FirstInvalidUtf8(reinterpret_cast<const uint8_t*>(s.data()), s.size());
    if (bad != s.size()) {
      return Error(ErrorCode::kInvalidInput, fmt::format("{} is not valid UTF-8 (byte {})", internal::Shown(s), bad));
    }
  }
  return Scalar::String(x.str(), target);
}

template <Mode kMode>
Result<Scalar> Cast(std::span<const Scalar> a, DataType, std::optional<TypeId> target) {
  if (IsString(a[0].type_id()) || IsString(*target)) return CastString(a[0], *target);
  return VisitType(a[0].type_id(), [&]<typename S>(std::type_identity<S>) -> Result<Scalar> {
    const S x = a[0].value<S>();
    return VisitType(*target, [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
      if constexpr (kMode == kWrapping && std::is_floating_point_v<S> && !std::is_same_v<S, T>) {
        return Error(ErrorCode::kInternal, "wrapping_cast from a float");
      } else {
        return CastValue<kMode, S, T>(x);
      }
    });
  });
}

template <Mode kMode>
Result<DataType> CastRule(std::string_view name, std::span<const DataType> a,
                          std::optional<TypeId> target) {
  if (!target) return MakeError(ErrorCode::kTypeError, "{} needs a target type: {}(x, T)", name, name);
  if (IsString(a[0].id) || IsString(*target)) {
    if (kMode != kChecked) {
      return MakeError(ErrorCode::kTypeError, "{}({}, {}): strings convert with cast", name,
                       TypeIdName(a[0].id), TypeIdName(*target));
    }
    if (a[0].id == TypeId::kBinary ? !IsString(*target) : *target == TypeId::kBinary && !IsString(a[0].id)) {
      return MakeError(ErrorCode::kTypeError,
                       "cast({}, {}): binary converts only to and from utf8 (numbers convert through utf8)",
                       TypeIdName(a[0].id), TypeIdName(*target));
    }
  }
  if (kMode == kWrapping && IsFloat(a[0].id) && a[0].id != *target) {
    return MakeError(ErrorCode::kTypeError,
                     "wrapping_cast({}, {}): wrapping is defined for integers; use cast or "
                     "saturating_cast for floats",
                     TypeIdName(a[0].id), TypeIdName(*target));
  }
  return DataType(*target, a[0].nullable);
}

// Every value of `from` is a value of `to` (both integers).
bool IntRangeContains(TypeId to, TypeId from) {
  if (IsSignedInt(to) == IsSignedInt(from)) return BitWidth(to) >= BitWidth(from);
  return IsSignedInt(to) && BitWidth(to) > BitWidth(from);  // unsigned into a wider signed
}

// A checked cast fails where the target cannot hold every source value: a narrower integer range,
// a float → integer conversion, or a narrower float (finite values that round to inf). Widening
// casts and integer → float conversions (which round) cannot fail.
bool CastCanFail(std::span<const DataType> args, DataType result) {
  const TypeId from = args[0].id, to = result.id;
  if (IsString(from) || IsString(to)) {  // parses, and binary → utf8 checks UTF-8
    return from == TypeId::kUtf8 ? !IsString(to) : from == TypeId::kBinary && to == TypeId::kUtf8;
  }
  if (from == to || (IsFloat(to) && IsInteger(from))) return false;
  if (IsFloat(from) && IsFloat(to)) return BitWidth(to) < BitWidth(from);
  if (IsInteger(from) && IsInteger(to)) return !IntRangeContains(to, from);
  return true;
}

// --- text and the logical types ---------------------------------------------------------

// Their target is their type: the binder builds them (ir/binder.cc, ir/functions_temporal.cc,
// ir/functions_decimal.cc); no signature of storage types binds to them by name.
Result<DataType> TargetIsType(std::string_view n, std::span<const DataType>, std::optional<TypeId>) {
  return MakeError(ErrorCode::kInvalidInput, "{} is written cast(x, T) (its target is its type)", n);
}

bool ParseCanFail(std::span<const DataType>, DataType) { return true; }

Result<Scalar> TextToTemporal(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  return TemporalFromText(a[0].str(), result.WithNullable(false));
}

// cast(utf8 → interval or duration): the literal's text ('1 month 2 days', as cast to utf8
// writes it; a duration's without months, a whole number of its unit); text that is not one is
// invalid input in its row.
template <Result<Scalar> (*kParse)(std::string_view, const DataType&)>
Result<Scalar> TextToLength(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  Result<Scalar> v = kParse(a[0].str(), result.WithNullable(false));
  if (!v.ok()) return Error(ErrorCode::kInvalidInput, v.error().message());
  return v;
}

Result<Scalar> TextToDecimal(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const std::string_view s = a[0].str();
  const DataType t = result.WithNullable(false);
  __int128 v = 0;
  switch (kernels::ParseDecimal(reinterpret_cast<const uint8_t*>(s.data()), s.size(), t.precision, t.scale, &v)) {
    case kernels::ParseStatus::kOk: break;
    case kernels::ParseStatus::kInvalid:
      return Error(ErrorCode::kInvalidInput, fmt::format("{} is not a valid {}", internal::Shown(s), t.ToString()));
    case kernels::ParseStatus::kOutOfRange:
      return internal::Overflow(fmt::format("{} does not fit {}", internal::Shown(s), t.ToString()));
  }
  if (t.id == TypeId::kI128) return Scalar::Int128(v, t);
  if (t.id == TypeId::kI32) return Scalar::Of(static_cast<int32_t>(v)).As(t);
  return Scalar::Of(static_cast<int64_t>(v)).As(t);
}

Result<Scalar> LogicalToText(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const DataType t = a[0].type();
  if (t.logical == LogicalKind::kDecimal) return Scalar::String(DecimalText(a[0].int128(), t.scale), result.id);
  if (t.logical == LogicalKind::kInterval) return Scalar::String(IntervalText(a[0]), result.id);
  return Scalar::String(TemporalValueText(a[0]), result.id);
}

// --- column forms of the casts to text (ir/string_columns.h): numbers and bools formatted as
// FormatValue formats them, each row once into pooled scratch (ProduceFormatted); other casts
// have none.

// The text of `v` as FormatValue writes it, at `at`; returns the end. At most kMaxValueText
// bytes: "-9223372036854775808", "-2.2250738585072014e-308", "false".
inline constexpr int kMaxValueText = 32;
template <typename S>
char* WriteValue(S v, char* at) {
  if constexpr (std::is_same_v<S, bool>) {
    const std::string_view text = v ? "true" : "false";
    std::memcpy(at, text.data(), text.size());
    return at + text.size();
  } else {
    const auto [end, ec] = std::to_chars(at, at + kMaxValueText, v);
    return ec == std::errc() ? end : at;
  }
}

// "00" to "99": two digits of each value below 100.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) {
    t[static_cast<size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    t[static_cast<size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

// The ten digits of v (below 10^10), zero-padded, at out: two halves of five, each a digit and
// two pairs from the table.
inline void TenDigits(uint64_t v, char* out) {
  const uint32_t halves[2] = {static_cast<uint32_t>(v / 100000), static_cast<uint32_t>(v % 100000)};
  for (int h = 0; h < 2; ++h) {
    char* at = out + 5 * h;
    const uint32_t x = halves[h], rest = x % 10000;
    at[0] = static_cast<char>('0' + x / 10000);
    std::memcpy(at + 1, &kDigitPairs[2 * (rest / 100)], 2);
    std::memcpy(at + 3, &kDigitPairs[2 * (rest % 100)], 2);
  }
}

// How many decimal digits v has (0 has one): the bit length times log10(2) estimates it, one
// compare with a power of ten corrects it.
inline int DigitCount(uint64_t v) {
  static constexpr uint64_t kPowers[20] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
                                           10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
                                           100000000000ULL, 1000000000000ULL, 10000000000000ULL,
                                           100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
                                           100000000000000000ULL, 1000000000000000000ULL,
                                           10000000000000000000ULL};
  const int t = ((64 - std::countl_zero(v | 1)) * 1233) >> 12;
  return t + 1 - static_cast<int>((v | 1) < kPowers[t]);
}

// Room past its end that WriteInteger may write into (its last copy is of fixed size).
inline constexpr int kIntegerSlack = 32;

// An integer's text as WriteValue writes it, without a branch on its digits (random widths
// mispredict the digit loop of std::to_chars; bench: `duckdb/i32_to_text/jit`): every digit
// position is written zero-padded into a local buffer, then the value's digits are copied out
// in one fixed-size copy that may write up to kIntegerSlack bytes past the text's end.
template <typename S>
char* WriteInteger(S v, char* at) {
  bool negative = false;
  if constexpr (std::is_signed_v<S>) negative = v < 0;
  const uint64_t u = negative ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  char digits[48];
  constexpr int kDigits = sizeof(S) <= 4 ? 10 : 20;
  if constexpr (kDigits == 10) {
    TenDigits(u, digits);
  } else {
    TenDigits(u / 10000000000ULL, digits);
    TenDigits(u % 10000000000ULL, digits + 10);
  }
  const int n = DigitCount(u);
  *at = '-';
  at += negative;
  std::memcpy(at, digits + kDigits - n, kDigits == 10 ? 16 : 24);
  return at + n;
}

Result<ArrayPtr> CastToTextColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                   const std::shared_ptr<MemoryPool>& pool) {
  const Array& x = *a[0];
  if (!IsString(r.id) || IsString(x.type().id) || x.type().is_logical()) return ArrayPtr();
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, ir::RowValidity(x));
  if (x.encoding() == Encoding::kBool) {
    const auto& bits = static_cast<const BoolArray&>(x);
    return ProduceFormatted(r, length, std::move(valid), pool, kMaxValueText,
                            [&](int64_t i, char* at) { return WriteValue(bits.Value(i), at); });
  }
  if (x.encoding() != Encoding::kPrimitive) return ArrayPtr();  // constants, dictionaries: the row form
  const auto& p = static_cast<const PrimitiveArray&>(x);
  return VisitType(x.type().id, [&]<typename S>(std::type_identity<S>) -> Result<ArrayPtr> {
    if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
      const S* v = p.values<S>();
      return ProduceFormatted(r, length, std::move(valid), pool, std::numeric_limits<S>::digits10 + 2,
                              [&](int64_t i, char* at) { return WriteInteger(v[i], at); }, kIntegerSlack);
    } else if constexpr (std::is_arithmetic_v<S>) {
      const S* v = p.values<S>();
      return ProduceFormatted(r, length, std::move(valid), pool, kMaxValueText,
                              [&](int64_t i, char* at) { return WriteValue(v[i], at); });
    } else {
      return ArrayPtr();
    }
  });
}

// logical_to_text: decimals, dates, times and timestamps as the row form writes them (the same
// writers); intervals, and inputs that are not flat, have none.
Result<ArrayPtr> LogicalToTextColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                      const std::shared_ptr<MemoryPool>& pool) {
  const Array& x = *a[0];
  const DataType t = x.type();
  if (x.encoding() != Encoding::kPrimitive) return ArrayPtr();
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, ir::RowValidity(x));
  if (t.logical == LogicalKind::kInterval) {
    return ProduceFormatted(r, length, std::move(valid), pool, kMaxIntervalText,
                            [&](int64_t i, char* at) { return WriteIntervalText(x.GetScalar(i), at); });
  }
  if (t.logical == LogicalKind::kDecimal) {
    const auto& p = static_cast<const PrimitiveArray&>(x);
    return VisitType(t.id, [&]<typename S>(std::type_identity<S>) -> Result<ArrayPtr> {
      if constexpr (std::is_same_v<S, int32_t> || std::is_same_v<S, int64_t>) {
        const S* v = p.values<S>();
        return ProduceFormatted(r, length, std::move(valid), pool, kMaxDecimalText,
                                [&](int64_t i, char* at) { return WriteDecimalText(v[i], t.scale, at); });
      } else {
        return ProduceFormatted(r, length, std::move(valid), pool, kMaxDecimalText,
                                [&](int64_t i, char* at) { return WriteDecimalText(x.GetScalar(i).int128(), t.scale, at); });
      }
    });
  }
  if (t.logical == LogicalKind::kDate && t.id == TypeId::kI32) {  // date32: the days themselves
    const int32_t* days = static_cast<const PrimitiveArray&>(x).values<int32_t>();
    return ProduceFormatted(r, length, std::move(valid), pool, kMaxTemporalText,
                            [&](int64_t i, char* at) { return WriteDateText(days[i], at); });
  }
  return ProduceFormatted(r, length, std::move(valid), pool, kMaxTemporalText,
                          [&](int64_t i, char* at) { return WriteTemporalText(x.GetScalar(i), at); });
}

const Function kFunctions[] = {
    {.name = "cast", .arg_names = {"x"}, .family = Family::kCast, .can_fail = CastCanFail,
     .unify_from = -1, .takes_type_arg = true, .type_rule = CastRule<kChecked>,
     .eval = Cast<kChecked>, .columns = CastToTextColumns,
     .summary = "x converted to the type T: exact where T holds every value, checked where it narrows, parsed "
                "or written as text.",
     .notes = "Narrowing integers, float → integer (truncated; out of range or ±inf: `overflow`, NaN: `invalid "
              "input`) and finite f64 → f32 past its range fail; text that is no number is `invalid input`, "
              "one out of range `overflow`; binary → utf8 checks UTF-8.", .operation = Operation::kCast},
    {.name = "saturating_cast", .arg_names = {"x"}, .family = Family::kCast, .unify_from = -1,
     .takes_type_arg = true, .type_rule = CastRule<kSaturating>, .eval = Cast<kSaturating>,
     .summary = "x converted to the type T, a value outside T clamped to its minimum or maximum.",
     .notes = "Never fails: NaN gives 0, ±inf the minimum or maximum, a finite f64 beyond f32 ±3.4028235e38. "
              "To bool: x != 0. Takes no strings (a type error)."},
    {.name = "wrapping_cast", .arg_names = {"x"}, .family = Family::kCast, .unify_from = -1,
     .takes_type_arg = true, .type_rule = CastRule<kWrapping>, .eval = Cast<kWrapping>,
     .summary = "x converted to the type T, an integer keeping its low bits (modulo 2^width).",
     .notes = "Never fails (`wrapping_cast(-1, u8)` is 255). To bool, from bool and integer → float as `cast`; "
              "a float converts only to its own type, and strings not at all (type errors)."},
    {.name = "text_to_temporal", .arg_names = {"s"}, .family = Family::kCast, .can_fail = ParseCanFail,
     .decode_cost = 2, .unify_from = -1, .type_rule = TargetIsType, .eval = TextToTemporal,
     .syntax = Syntax::kCast,
     .summary = "A utf8 row read as a date, time or timestamp of the call's type.",
     .notes = "Written `cast(s, date32)`, `cast(s, timestamp(us, UTC))`, ...: `YYYY-MM-DD`, then a space or `T` "
              "and `HH:MM[:SS[.fraction]]`, with a zone an optional offset; blanks around are ignored. Other "
              "text is `invalid input`, a value past the storage `overflow`."},
    {.name = "text_to_interval", .arg_names = {"s"}, .family = Family::kCast, .can_fail = ParseCanFail,
     .decode_cost = 2, .unify_from = -1, .type_rule = TargetIsType, .eval = TextToLength<ParseIntervalLiteral>,
     .syntax = Syntax::kCast,
     .summary = "A utf8 row read as an interval of the call's type (`'1 month 2 days'`).",
     .notes = "Written `cast(s, interval_month_day_nano)`: a sequence of `[+-]N unit`, as interval literals. "
              "Text that is no interval of the type (an unknown unit, a part the type does not hold or past "
              "its storage) is `invalid input`."},
    {.name = "text_to_duration", .arg_names = {"s"}, .family = Family::kCast, .can_fail = ParseCanFail,
     .decode_cost = 2, .unify_from = -1, .type_rule = TargetIsType, .eval = TextToLength<ParseDurationLiteral>,
     .syntax = Syntax::kCast,
     .summary = "A utf8 row read as a duration of the call's unit (`'1 day 1 hour'`).",
     .notes = "Written `cast(s, duration(s))`: the interval grammar without months, a whole number of the unit "
              "(`'1 day 1 hour'` is 90000 seconds). Other text is `invalid input`."},
    {.name = "text_to_decimal", .arg_names = {"s"}, .family = Family::kCast, .can_fail = ParseCanFail,
     .decode_cost = 2, .unify_from = -1, .type_rule = TargetIsType, .eval = TextToDecimal,
     .syntax = Syntax::kCast,
     .summary = "A utf8 row read as a decimal of the call's type, rounded half away from zero to its scale.",
     .notes = "Written `cast(s, decimal64(12,2))`: an optional sign, digits with an optional point and "
              "exponent (`' -1.5e3 '`, `.5`), blanks around. Text that is no number is `invalid input`, a "
              "value past the precision `overflow`."},
    {.name = "logical_to_text", .arg_names = {"x"}, .family = Family::kCast, .unify_from = -1,
     .type_rule = TargetIsType, .eval = LogicalToText, .logical = LogicalArgs::kAny,
     .columns = LogicalToTextColumns, .syntax = Syntax::kCast,
     .summary = "The text of a decimal, date, time, timestamp, duration or interval, which casts back to the "
                "value.",
     .notes = "Written `cast(x, utf8)`: `-0.05`, `2024-02-29`, `12:34:56.5` (the unit's fraction when not "
              "zero), a zoned timestamp as local time and offset, years outside 0–9999 signed, `14 months 3 "
              "days`, `-1500 milliseconds`. Never fails."},
};

}  // namespace

std::span<const Function> CastFunctions() { return kFunctions; }

namespace internal {

// At most the first 40 bytes of `s`, quoted, with bytes that are not valid UTF-8 or are control
// characters as \xNN: what an error message shows of a row's text.
std::string Shown(std::string_view s) {
  constexpr size_t kShown = 40;
  const std::string_view head = s.substr(0, kShown);
  const auto* p = reinterpret_cast<const uint8_t*>(head.data());
  std::string text;
  for (size_t i = 0; i < head.size();) {
    const size_t valid = kernels::FirstInvalidUtf8(p + i, head.size() - i);
    for (size_t k = i; k < i + valid; ++k) {
      if (p[k] < 0x20 || p[k] == 0x7f) text += fmt::format("\\x{:02x}", p[k]);
      else text += head[k];
    }
    i += valid;
    if (i < head.size()) text += fmt::format("\\x{:02x}", p[i++]);
  }
  return QuoteString(text) + (s.size() > kShown ? "..." : "");
}

}  // namespace internal

}  // namespace rowjit::ir
