// Random arrays, re-encodings and checksums (runtime layer).
#include "runtime/random.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "runtime/builder.h"
#include "runtime/string_array.h"

namespace rowjit {

Scalar RandomValue(TypeId id, std::mt19937_64& rng) {
  if (IsString(id)) return RandomString(id, StringSpec{}, rng);
  // One draw in four is an edge value of the type.
  const bool edge = rng() % 4 == 0;
  return VisitType(id, [&]<typename T>(std::type_identity<T>) -> Scalar {
    if constexpr (std::is_same_v<T, bool>) {
      return Scalar::Of<bool>(rng() & 1);
    } else if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T edges[] = {T(0),         T(-0.0),       T(1),          T(-1),
                         L::max(),     L::lowest(),   L::infinity(), -L::infinity(),
                         L::quiet_NaN(), L::denorm_min(), T(0.5),    T(2.5)};
      if (edge) return Scalar::Of<T>(edges[rng() % std::size(edges)]);
      // Mostly moderate magnitudes so that arithmetic is interesting, sometimes raw bits.
      if (rng() % 8 == 0) return Scalar::FromBits(id, rng());
      return Scalar::Of<T>(static_cast<T>(std::uniform_real_distribution<double>(-1000, 1000)(rng)));
    } else {
      using L = std::numeric_limits<T>;
      const T edges[] = {T(0), T(1), L::max(), L::min(), T(L::max() - 1), T(2),
                         static_cast<T>(-1), static_cast<T>(L::min() + 1)};
      if (edge) return Scalar::Of<T>(edges[rng() % std::size(edges)]);
      // Small values keep checked arithmetic mostly successful; raw bits exercise overflow.
      if (rng() % 3 == 0) return Scalar::FromBits(id, rng());
      return Scalar::Of<T>(static_cast<T>(static_cast<int64_t>(rng() % 201) - 100));
    }
  });
}

Scalar ModerateValue(TypeId id, std::mt19937_64& rng) {
  if (IsString(id)) return RandomString(id, StringSpec{}, rng);
  return VisitType(id, [&]<typename T>(std::type_identity<T>) -> Scalar {
    if constexpr (std::is_same_v<T, bool>) {
      return Scalar::Of<bool>(rng() & 1);
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Of<T>(static_cast<T>(std::uniform_real_distribution<double>(-1000, 1000)(rng)));
    } else {
      constexpr int kBits = static_cast<int>(sizeof(T)) * 4 - (std::is_signed_v<T> ? 2 : 1);
      const uint64_t span = uint64_t{1} << kBits;
      if constexpr (std::is_signed_v<T>) {
        return Scalar::Of<T>(static_cast<T>(static_cast<int64_t>(rng() % (2 * span + 1)) -
                                            static_cast<int64_t>(span)));
      } else {
        return Scalar::Of<T>(static_cast<T>(rng() % (span + 1)));
      }
    }
  });
}

namespace {

// A value in [-limit, limit], a quarter of them at -limit, 0 or limit.
int64_t Within(int64_t limit, std::mt19937_64& rng) {
  if (rng() % 4 == 0) return std::array<int64_t, 3>{-limit, 0, limit}[rng() % 3];
  // In unsigned arithmetic (limit may be near 2^63: the difference wraps, defined, into range).
  return static_cast<int64_t>(rng() % (2 * static_cast<uint64_t>(limit) + 1) - static_cast<uint64_t>(limit));
}

// An unscaled decimal of 1 to `precision` digits, either sign; a quarter at +-(10^p - 1) or 0.
__int128 RandomDecimal(int precision, std::mt19937_64& rng) {
  __int128 max = 1;
  const int digits = rng() % 4 == 0 ? precision : 1 + static_cast<int>(rng() % static_cast<uint64_t>(precision));
  for (int i = 0; i < digits; ++i) max *= 10;
  max -= 1;
  if (digits == precision && rng() % 2 == 0) return std::array<__int128, 3>{-max, 0, max}[rng() % 3];
  const auto draw = (static_cast<unsigned __int128>(rng()) << 64) | rng();
  const __int128 v = static_cast<__int128>(draw % static_cast<unsigned __int128>(max + 1));
  return rng() % 2 == 0 ? v : -v;
}

}  // namespace

Scalar RandomLogicalValue(const DataType& t, std::mt19937_64& rng) {
  switch (t.logical) {
    case LogicalKind::kNone: return RandomValue(t.id, rng);
    case LogicalKind::kDecimal: {
      const __int128 v = RandomDecimal(t.precision, rng);
      if (t.id == TypeId::kI128) return Scalar::Int128(v, t);
      return Scalar::FromBits(t.id, static_cast<uint64_t>(static_cast<int64_t>(v))).As(t);
    }
    case LogicalKind::kTime: {
      const int64_t day = UnitsPerDay(t.time_unit());
      const int64_t v = rng() % 4 == 0 ? std::array<int64_t, 2>{0, day - 1}[rng() % 2] : static_cast<int64_t>(rng() % static_cast<uint64_t>(day));
      return Scalar::FromBits(t.id, static_cast<uint64_t>(v)).As(t);
    }
    case LogicalKind::kDate: case LogicalKind::kTimestamp: case LogicalKind::kDuration: {
      // Within 10,000 years of 1970 (nanoseconds: the whole i64 range, about 292 years).
      const int64_t day = UnitsPerDay(t.time_unit());
      const int64_t limit = day >= 86'400'000'000 ? std::numeric_limits<int64_t>::max() : 3'652'425 * day;
      const int64_t v = limit == std::numeric_limits<int64_t>::max() && rng() % 2 == 0 ? static_cast<int64_t>(rng()) : Within(std::min<int64_t>(limit, std::numeric_limits<int64_t>::max() - 1), rng);
      return Scalar::FromBits(t.id, static_cast<uint64_t>(v)).As(t);
    }
    case LogicalKind::kInterval: {
      const auto u = static_cast<IntervalUnit>(t.unit);
      if (u == IntervalUnit::kMonths) return Scalar::FromBits(t.id, static_cast<uint64_t>(Within(120'000, rng))).As(t);
      const auto days = static_cast<uint32_t>(Within(3'652'425, rng));
      if (u == IntervalUnit::kDayTime) {
        const auto ms = static_cast<uint32_t>(Within(86'400'000, rng));
        return Scalar::FromBits(t.id, (uint64_t{ms} << 32) | days).As(t);
      }
      const auto months = static_cast<uint32_t>(Within(120'000, rng));
      const auto nanos = static_cast<uint64_t>(Within(86'400'000'000'000, rng));
      return Scalar::Int128(static_cast<__int128>((static_cast<unsigned __int128>(nanos) << 64) | (uint64_t{days} << 32) | months), t);
    }
  }
  return RandomValue(t.id, rng);
}

std::vector<std::string> AlphabetCharacters(std::string_view alphabet) {
  std::vector<std::string> out;
  for (size_t i = 0; i < alphabet.size();) {
    size_t j = i + 1;
    while (j < alphabet.size() && (static_cast<uint8_t>(alphabet[j]) & 0xc0) == 0x80) ++j;
    out.emplace_back(alphabet.substr(i, j - i));
    i = j;
  }
  return out;
}

Scalar RandomString(TypeId id, const StringSpec& spec, std::mt19937_64& rng) {
  if (spec.match_share > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < spec.match_share) {
    return Scalar::String(spec.match, id);
  }
  const std::vector<std::string> chars = AlphabetCharacters(spec.alphabet.empty() ? "a" : spec.alphabet);
  const int64_t lo = std::max<int64_t>(spec.min_length, 0), hi = std::max(spec.max_length, lo);
  const auto n = static_cast<size_t>(lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)));
  std::string out;
  while (out.size() < n) {
    const std::string& c = chars[rng() % chars.size()];
    if (out.size() + c.size() > n && id == TypeId::kUtf8) {  // a whole character only
      if (out.size() + 1 > n) break;
      out += chars[0].size() == 1 ? chars[0] : std::string("a");
      continue;
    }
    out += c;
  }
  out.resize(std::min(out.size(), n));
  return Scalar::String(out, id);
}

namespace {

ArrayPtr RandomStringArray(const ArraySpec& spec, std::mt19937_64& rng) {
  const int64_t total = spec.bit_offset + spec.length;
  std::vector<std::optional<std::string>> rows;
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t i = 0; i < total; ++i) {
    const bool valid = !spec.type.nullable || unit(rng) < spec.valid_fraction;
    rows.push_back(valid ? std::optional<std::string>(std::string(RandomString(spec.type.id, spec.strings, rng).str()))
                         : std::nullopt);
  }
  std::vector<std::optional<std::string_view>> views(rows.begin(), rows.end());
  auto full = MakeStringArray(spec.type, spec.string_layout, views);
  if (!full.ok()) return nullptr;
  return *(*full)->Slice(spec.bit_offset, spec.length);
}

// Which of `total` rows are valid: each at the spec's fraction when its type is nullable.
Result<Validity> RandomRows(const ArraySpec& spec, int64_t total, std::mt19937_64& rng) {
  if (!spec.type.nullable) return Validity::AllValid();
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(total));
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t i = 0; i < total; ++i) kernels::SetBitTo(bits->mutable_data(), i, unit(rng) < spec.valid_fraction);
  return Validity::FromBitmap(std::move(bits), 0, total);
}

// Vectors: each element a value of its type (ValueMode's), null rows' elements left zero.
ArrayPtr RandomFixedListArray(const ArraySpec& spec, std::mt19937_64& rng) {
  const int64_t total = spec.bit_offset + spec.length;
  const DataType t = spec.type;
  const int64_t width = ByteWidth(t.elem);
  auto values = Buffer::Allocate(total * t.ListRowBytes());
  auto validity = RandomRows(spec, total, rng);
  if (!values.ok() || !validity.ok()) return nullptr;
  std::memset((*values)->mutable_data(), 0, static_cast<size_t>(total * t.ListRowBytes()));
  for (int64_t i = 0; i < total; ++i) {
    if (!validity->IsValid(i)) continue;
    uint8_t* row = (*values)->mutable_data() + i * t.ListRowBytes();
    for (int64_t k = 0; k < t.list_size; ++k) {
      if (IsHalfWidthFloat(t.elem)) {  // a float's value rounded to the half width (edges: inf, NaN, -0.0)
        const Scalar f = spec.values == ValueMode::kMixed ? RandomValue(TypeId::kF32, rng) : ModerateValue(TypeId::kF32, rng);
        const auto h = static_cast<_Float16>(f.value<float>());
        const uint16_t b = t.elem == TypeId::kBF16 ? Bf16Of(f.value<float>()) : std::bit_cast<uint16_t>(h);
        std::memcpy(row + k * width, &b, 2);
        continue;
      }
      const Scalar v = spec.values == ValueMode::kMixed ? RandomValue(t.elem, rng) : ModerateValue(t.elem, rng);
      const uint64_t b = v.bits();
      std::memcpy(row + k * width, &b, static_cast<size_t>(width));
    }
  }
  auto full = FixedListArray::Make(t, total, *values, *validity);
  if (!full.ok()) return nullptr;
  return *(*full)->Slice(spec.bit_offset, spec.length);
}

// Structs: each field a random column of its type (nulls where it is nullable), the rows null at
// the spec's fraction.
ArrayPtr RandomStructArray(const ArraySpec& spec, std::mt19937_64& rng) {
  const int64_t total = spec.bit_offset + spec.length;
  std::vector<ArrayPtr> children;
  for (const StructField& f : StructFields(spec.type)) {
    ArraySpec child = spec;
    child.type = f.type;
    child.length = total;
    child.bit_offset = 0;
    ArrayPtr c = RandomFlatArray(child, rng);
    if (c == nullptr) return nullptr;
    children.push_back(std::move(c));
  }
  auto validity = RandomRows(spec, total, rng);
  if (!validity.ok()) return nullptr;
  auto full = StructArray::Make(spec.type, total, std::move(children), *validity);
  if (!full.ok()) return nullptr;
  return *(*full)->Slice(spec.bit_offset, spec.length);
}

// Lists and maps: 0 to 8 elements a row (one row in 16 up to 40; a list that is another list's
// element 0 to 2, so nesting does not multiply the elements), null rows at the spec's fraction
// (every other one keeping elements behind it, as Arrow allows), elements a random column of the
// element type (a map's: a struct of key and value).
ArrayPtr RandomListArray(const ArraySpec& spec, std::mt19937_64& rng, bool inner = false) {
  const int64_t total = spec.bit_offset + spec.length;
  // 64-bit offsets when asked for, or when 40 elements a row could pass 32-bit offsets' reach.
  const bool large = spec.type.id == TypeId::kList &&
                     (spec.string_layout == StringLayout::kOffsets64 || total > std::numeric_limits<int32_t>::max() / 40);
  auto validity = RandomRows(spec, total, rng);
  auto offsets = Buffer::Allocate((total + 1) * (large ? 8 : 4));
  if (!validity.ok() || !offsets.ok()) return nullptr;
  std::uniform_int_distribution<int> small(0, 8), wide(0, 40), pick(0, 15);
  int64_t at = 0;
  for (int64_t i = 0; i <= total; ++i) {
    if (large) {
      reinterpret_cast<int64_t*>((*offsets)->mutable_data())[i] = at;
    } else {
      reinterpret_cast<int32_t*>((*offsets)->mutable_data())[i] = static_cast<int32_t>(at);
    }
    if (i == total || (!validity->IsValid(i) && i % 2 == 0)) continue;
    at += inner ? pick(rng) % 3 : pick(rng) == 0 ? wide(rng) : small(rng);
  }
  ArraySpec child = spec;
  child.type = ListElement(spec.type);
  child.length = at;
  child.bit_offset = 0;
  // Strings past 32-bit offsets' reach take 64-bit ones.
  child.string_layout = static_cast<double>(at) * spec.strings.max_length > 1e9 ? StringLayout::kOffsets64 : StringLayout::kOffsets32;
  const bool nested = child.type.id == TypeId::kList || child.type.id == TypeId::kMap;
  ArrayPtr elements = nested ? RandomListArray(child, rng, true) : RandomFlatArray(child, rng);
  if (elements == nullptr) return nullptr;
  auto full = ListArray::Make(spec.type, total, large, *offsets, std::move(elements), *validity);
  if (!full.ok()) return nullptr;
  return *(*full)->Slice(spec.bit_offset, spec.length);
}

}  // namespace

ArrayPtr RandomFlatArray(const ArraySpec& spec, std::mt19937_64& rng) {
  if (IsString(spec.type.id)) return RandomStringArray(spec, rng);
  if (spec.type.id == TypeId::kFixedList) return RandomFixedListArray(spec, rng);
  if (spec.type.id == TypeId::kStruct) return RandomStructArray(spec, rng);
  if (spec.type.id == TypeId::kList || spec.type.id == TypeId::kMap) return RandomListArray(spec, rng);
  const int64_t total = spec.bit_offset + spec.length;
  std::vector<Scalar> rows;
  rows.reserve(static_cast<size_t>(total));
  std::uniform_real_distribution<double> unit(0, 1);
  bool in_null_run = false;
  for (int64_t i = 0; i < total; ++i) {
    bool valid = true;
    if (spec.type.nullable) {
      if (spec.layout == NullLayout::kScattered) {
        valid = unit(rng) < spec.valid_fraction;
      } else {
        // Runs of ~256 rows whose share of null runs is 1 - valid_fraction.
        if (i % 256 == 0) in_null_run = unit(rng) >= spec.valid_fraction;
        valid = !in_null_run;
      }
    }
    if (!valid) {
      rows.push_back(Scalar::Null(spec.type.id));
    } else if (spec.type.is_logical()) {
      rows.push_back(RandomLogicalValue(spec.type, rng));
    } else {
      rows.push_back(spec.values == ValueMode::kMixed ? RandomValue(spec.type.id, rng)
                                                      : ModerateValue(spec.type.id, rng));
    }
  }
  auto full = MakeArray(spec.type, rows);
  if (!full.ok()) return nullptr;
  return *(*full)->Slice(spec.bit_offset, spec.length);
}

ArrayPtr AsDictionary(const ArrayPtr& flat, std::mt19937_64& rng) {
  if (flat->type().id == TypeId::kBool) return flat;
  // Distinct values in first-seen order; codes index them. Null rows get null codes.
  // Values are keyed by their bytes (Scalar's equality: same bits, so -0.0 and NaN payloads stay
  // distinct), found by hashing rather than a scan of the distinct values seen so far.
  std::vector<Scalar> values;
  std::unordered_map<std::string, int64_t> position;
  std::vector<int64_t> index;  // -1 for null rows
  for (int64_t i = 0; i < flat->length(); ++i) {
    const Scalar s = flat->GetScalar(i);
    if (s.is_null()) {
      index.push_back(-1);
      continue;
    }
    const unsigned __int128 wide = static_cast<unsigned __int128>(s.int128());
    std::string key(reinterpret_cast<const char*>(&wide), sizeof(wide));
    key += s.str();
    const auto [it, inserted] = position.try_emplace(std::move(key), static_cast<int64_t>(values.size()));
    if (inserted) values.push_back(s);
    index.push_back(it->second);
  }
  const TypeId small[] = {TypeId::kU8, TypeId::kI16, TypeId::kI32, TypeId::kU32, TypeId::kI64};
  const TypeId wide[] = {TypeId::kI16, TypeId::kI32, TypeId::kU32, TypeId::kI64};
  const TypeId code_type = values.size() <= 100 ? small[rng() % std::size(small)]
                                                : wide[rng() % std::size(wide)];
  std::vector<Scalar> codes;
  for (int64_t k : index) {
    codes.push_back(k < 0 ? Scalar::Null(code_type)
                          : Scalar::FromBits(code_type, static_cast<uint64_t>(k)));
  }
  auto value_array = MakeArray(flat->type().WithNullable(false), values);
  auto code_array = MakeArray(DataType(code_type, flat->type().nullable), codes);
  if (!value_array.ok() || !code_array.ok()) return flat;
  auto dict = DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(*code_array),
                                    *value_array);
  return dict.ok() ? ArrayPtr(*dict) : flat;
}

ArrayPtr AsByteBool(const ArrayPtr& flat) {
  if (flat->encoding() != Encoding::kBool) return flat;
  const auto& b = static_cast<const BoolArray&>(*flat);
  auto bytes = Buffer::Allocate(b.length());
  if (!bytes.ok()) return flat;
  for (int64_t i = 0; i < b.length(); ++i) (*bytes)->mutable_data()[i] = b.Value(i) ? 0x5a : 0;
  auto out = ByteBoolArray::Make(b.length(), *bytes, b.validity(), 0, b.type().nullable);
  return out.ok() ? ArrayPtr(*out) : flat;
}

namespace {

// About the bytes a random row of `t` takes while it is built (each value passes through a
// 16-byte Scalar): a list's mean elements (5, or 1 for a list inside a list) of its element's.
double RandomRowBytes(const DataType& t, const StringSpec& strings, bool inner) {
  if (t.id == TypeId::kFixedList) return 24.0 + static_cast<double>(t.ListRowBytes());
  if (IsString(t.id)) return 40.0 + (static_cast<double>(strings.min_length) + static_cast<double>(strings.max_length)) / 2;
  if (t.id == TypeId::kList || t.id == TypeId::kMap) {
    const DataType elem = ListElement(t);
    const bool nested = elem.id == TypeId::kList || elem.id == TypeId::kMap;
    return 8.0 + (inner ? 1.0 : 5.0) * RandomRowBytes(elem, strings, nested);
  }
  double bytes = 24.0;
  for (const StructField& f : StructFields(t)) bytes += RandomRowBytes(f.type, strings, false);
  return bytes;
}

}  // namespace

Result<RecordBatch> RandomBatch(const Schema& schema, int64_t rows, double valid_fraction,
                                uint64_t seed,
                                const std::vector<std::pair<std::string, std::string>>& constants,
                                int64_t bit_offset, const StringSpec& strings) {
  if (rows < 0) return MakeError(ErrorCode::kInvalidInput, "negative row count {}", rows);
  // Refused before allocating when the machine cannot hold it (each row passes through a Scalar
  // of 16 bytes on its way into the column).
  double row_bytes = 24.0;
  for (const Field& f : schema.fields) row_bytes += RandomRowBytes(f.type, strings, false);
  const double need = static_cast<double>(rows) * row_bytes;
  const double have = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (have > 0 && need > have) {
    return MakeError(ErrorCode::kOutOfMemory, "{} random rows need about {:.0f} GiB; this machine has {:.0f} GiB",
                     rows, need / (1 << 30), have / (1 << 30));
  }
  if (!(valid_fraction >= 0 && valid_fraction <= 1)) {
    return MakeError(ErrorCode::kInvalidInput, "valid fraction {} is not in [0, 1]",
                     valid_fraction);
  }
  for (const auto& [name, value] : constants) {
    if (schema.FieldIndex(name) < 0) {
      return MakeError(ErrorCode::kInvalidInput, "constant for unknown column '{}'", name);
    }
  }
  std::mt19937_64 rng(seed);
  std::vector<ArrayPtr> columns;
  for (const Field& f : schema.fields) {
    const auto c = std::find_if(constants.begin(), constants.end(),
                                [&](const auto& kv) { return kv.first == f.name; });
    if (c != constants.end()) {
      if (f.type.id == TypeId::kFixedList || f.type.id == TypeId::kStruct || f.type.id == TypeId::kList ||
          f.type.id == TypeId::kMap) {
        return MakeError(ErrorCode::kUnsupported, "column '{}': a {} column is random, not a constant", f.name,
                         f.type.id == TypeId::kFixedList ? "vector" : TypeIdName(f.type.id));
      }
      ROWJIT_ASSIGN_OR_RETURN(Scalar value, ParseScalar(f.type.id, c->second));
      if (f.type.is_logical()) value = value.As(f.type);  // the storage's integer
      if (value.is_null() && !f.type.nullable) {
        return MakeError(ErrorCode::kInvalidInput, "column '{}' is not nullable; it cannot be null",
                         f.name);
      }
      ROWJIT_ASSIGN_OR_RETURN(auto constant, ConstantArray::Make(value, rows, f.type.nullable));
      columns.push_back(constant);
      continue;
    }
    ArrayPtr a = RandomFlatArray(ArraySpec{f.type, rows, valid_fraction, bit_offset, NullLayout::kScattered,
                                           ValueMode::kModerate, f.layout, strings},
                                 rng);
    if (a == nullptr) return MakeError(ErrorCode::kInternal, "could not build column '{}'", f.name);
    columns.push_back(a);
  }
  return RecordBatch::Make(schema, std::move(columns));
}

uint64_t ArrayChecksum(const Array& array) {
  uint64_t h = 0x243f6a8885a308d3ULL;
  for (int64_t i = 0; i < array.length(); ++i) {
    const Scalar s = array.GetScalar(i);
    uint64_t v = s.is_null() ? 0x9e3779b97f4a7c15ULL : s.bits();
    for (char c : s.str()) v = (v ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
    if (!s.is_null() && IsFloat(s.type_id())) {
      const double d = s.type_id() == TypeId::kF32 ? s.value<float>() : s.value<double>();
      if (std::isnan(d)) v = 0x7ff8000000000000ULL;
    }
    h = (h ^ v) * 0x100000001b3ULL;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace rowjit
