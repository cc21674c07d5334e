// Group slots of a batch from its GROUP BY columns (jit layer, exec room).
#include "jit/exec/group_ids.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/query.h"
#include "kernels/fold.h"
#include "kernels/grouped_fold.h"
#include "runtime/string_array.h"

namespace rowjit::jit::internal {
namespace {

// A direct domain is at most this many codes (plus one for null): tables this size stay in L2.
constexpr uint64_t kDirectDomain = uint64_t{1} << 16;

// Slot spaces up to this many codes find the codes a batch has by counting them first.
constexpr uint64_t kCountedDomain = 4096;

// One key's per-row codes in [0, domain).
struct KeyCodes {
  std::vector<uint32_t> code;
  uint64_t domain = 1;
};

// Integers of a small batch range (every 8- and 16-bit column) code as value - min, so that a
// few keys of a few values each compose into a slot space of their product.
template <typename T>
std::optional<KeyCodes> RangeCodes(const PrimitiveArray& a, int64_t length) {
  if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
    return std::nullopt;
  } else {
    const T* v = a.values<T>();
    const Validity& valid = a.validity();
    const bool dense = valid.all_valid();
    // The static min/max fold, at the CPU's vector level (a scalar loop here costs more than the
    // rest of the key's codes; bench: tpch/q1/jit_codes_batch65536).
    const std::optional<kernels::MinMaxValue<T>> extrema =
        valid.all_null() ? std::nullopt : kernels::MinMax<T>(v, length, dense ? kernels::BitSpan{} : valid.Span(length));
    const T lo = extrema ? extrema->min : T{0}, hi = extrema ? extrema->max : T{0};
    if (std::is_signed_v<T> ? static_cast<__int128>(hi) - lo >= static_cast<__int128>(kDirectDomain)
                            : static_cast<uint64_t>(hi - lo) >= kDirectDomain) {
      return std::nullopt;
    }
    // value - lo fits 16 bits; computed in i64 after subtracting in T's own arithmetic.
    KeyCodes k;
    k.code.resize(length);
    const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    k.domain = dense ? range : range + 1;  // a null code only where a row can be null
    if (dense) {
      for (int64_t i = 0; i < length; ++i) k.code[i] = static_cast<uint32_t>(static_cast<T>(v[i] - lo));
    } else {
      for (int64_t i = 0; i < length; ++i) {
        k.code[i] = valid.IsValid(i) ? static_cast<uint32_t>(static_cast<T>(v[i] - lo)) : static_cast<uint32_t>(range);
      }
    }
    return k;
  }
}

// Any key: numbered by first appearance through a hash table of its normalized values' bytes.
KeyCodes HashedCodes(const Array& a, int64_t length) {
  std::unordered_map<std::string, uint32_t> numbers;
  KeyCodes k;
  k.code.resize(length);
  std::string bytes;
  for (int64_t i = 0; i < length; ++i) {
    const Scalar s = ir::NormalizeKey(a.GetScalar(i));
    bytes.assign(1, s.is_null() ? '\0' : '\1');
    if (!s.is_null()) {
      if (IsString(s.type_id())) {
        bytes.append(s.str());
      } else {
        const __int128 wide = s.int128();
        const uint64_t bits = s.bits();
        bytes.append(reinterpret_cast<const char*>(&wide), sizeof(wide));
        bytes.append(reinterpret_cast<const char*>(&bits), sizeof(bits));
      }
    }
    auto [it, inserted] = numbers.try_emplace(bytes, static_cast<uint32_t>(numbers.size()));
    k.code[i] = it->second;
  }
  k.domain = std::max<uint64_t>(numbers.size(), 1);
  return k;
}

// Strings of at most one byte (flags and codes such as TPC-H's l_returnflag): the byte itself, one
// more code for the empty string and one for null, renumbered to the codes the batch has, so that
// two such keys compose directly. None when a row is longer.
std::optional<KeyCodes> ShortStringCodes(const StringArray& a, int64_t length) {
  constexpr uint32_t kEmpty = 256, kNull = 257;
  KeyCodes k;
  k.code.resize(length);
  std::array<uint32_t, 258> seen{};
  for (int64_t i = 0; i < length; ++i) {
    uint32_t c = kNull;
    if (!a.IsNull(i)) {
      const std::string_view v = a.Value(i);
      if (v.size() > 1) return std::nullopt;
      c = v.empty() ? kEmpty : static_cast<uint8_t>(v[0]);
    }
    k.code[i] = c;
    seen[c] = 1;
  }
  uint32_t used = 0;
  for (uint32_t& s : seen) s = s ? used++ : 0;
  for (uint32_t& c : k.code) c = seen[c];
  k.domain = std::max<uint32_t>(used, 1);
  return k;
}

// Strings: numbered by first appearance through a hash table of their bytes (views into the
// column: nothing copied per row). Null is one more number.
KeyCodes StringCodes(const StringArray& a, int64_t length) {
  std::unordered_map<std::string_view, uint32_t> numbers;
  KeyCodes k;
  k.code.resize(length);
  bool any_null = false;
  for (int64_t i = 0; i < length; ++i) {
    if (a.IsNull(i)) {
      any_null = true;
      k.code[i] = UINT32_MAX;  // numbered after the values, below
      continue;
    }
    k.code[i] = numbers.try_emplace(a.Value(i), static_cast<uint32_t>(numbers.size())).first->second;
  }
  const uint32_t values = static_cast<uint32_t>(numbers.size());
  if (any_null) {
    for (uint32_t& c : k.code) c = c == UINT32_MAX ? values : c;
  }
  k.domain = std::max<uint64_t>(values + any_null, 1);
  return k;
}

KeyCodes CodesOf(const Array& a, int64_t length) {
  if (a.encoding() == Encoding::kString) {
    const auto& strings = static_cast<const StringArray&>(a);
    if (auto k = ShortStringCodes(strings, length)) return std::move(*k);
    return StringCodes(strings, length);
  }
  if (a.encoding() == Encoding::kDictionary) {
    const auto& d = static_cast<const DictionaryArray&>(a);
    const uint64_t n = static_cast<uint64_t>(d.values()->length());
    if (n < kDirectDomain) {
      const PrimitiveArray& codes = *d.codes();
      KeyCodes k = VisitType(codes.type().id, [&]<typename T>(std::type_identity<T>) {
        KeyCodes c;
        c.code.resize(length);
        const T* v = codes.values<T>();
        for (int64_t i = 0; i < length; ++i) c.code[i] = static_cast<uint32_t>(v[i]);
        const Validity& valid = codes.validity();
        if (!valid.all_valid()) {
          for (int64_t i = 0; i < length; ++i) {
            if (!valid.IsValid(i)) c.code[i] = static_cast<uint32_t>(n);
          }
        }
        return c;
      });
      k.domain = codes.validity().all_valid() ? std::max<uint64_t>(n, 1) : n + 1;
      return k;
    }
  }
  if (a.encoding() == Encoding::kBool || a.encoding() == Encoding::kByteBool) {
    KeyCodes k;
    k.code.resize(length);
    k.domain = 3;
    for (int64_t i = 0; i < length; ++i) {
      k.code[i] = a.IsNull(i) ? 2 : static_cast<uint32_t>(a.GetScalar(i).value<bool>());
    }
    return k;
  }
  if (a.encoding() == Encoding::kPrimitive && IsInteger(a.type().id)) {
    const auto& p = static_cast<const PrimitiveArray&>(a);
    auto k = VisitType(a.type().id, [&]<typename T>(std::type_identity<T>) { return RangeCodes<T>(p, length); });
    if (k) return std::move(*k);
  }
  return HashedCodes(a, length);
}

// Renumbers 64-bit composed codes densely, in order of first appearance, into `slot`; returns
// how many there are.
uint64_t Compact(const std::vector<uint64_t>& code, std::vector<uint32_t>& slot) {
  std::unordered_map<uint64_t, uint32_t> numbers;
  for (size_t i = 0; i < code.size(); ++i) {
    slot[i] = numbers.try_emplace(code[i], static_cast<uint32_t>(numbers.size())).first->second;
  }
  return std::max<uint64_t>(numbers.size(), 1);
}

}  // namespace

Result<GroupSlots> ComputeGroupSlots(std::span<const ArrayPtr> keys, int64_t length) {
  GroupSlots g;
  if (keys.empty() && length <= kSharedZeroSlotRows) {  // one slot, the shared zeros
    g.first_row.assign(1, length > 0 ? 0 : -1);
    return g;
  }
  g.slot.assign(length, 0);
  uint64_t domain = 1;
  // Slot codes stay 32-bit (a block's vectors stay below malloc's mmap threshold); a product of
  // domains past the limit is composed in 64 bits and numbered densely.
  const uint64_t limit = std::max<uint64_t>(kDirectDomain, static_cast<uint64_t>(length));
  for (const ArrayPtr& key : keys) {
    KeyCodes k = CodesOf(*key, length);
    if (domain == 1) {
      g.slot = std::move(k.code);
      domain = k.domain;
    } else if (domain * k.domain <= limit) {
      const uint32_t d = static_cast<uint32_t>(k.domain);
      for (int64_t i = 0; i < length; ++i) g.slot[i] = g.slot[i] * d + k.code[i];
      domain *= k.domain;
    } else {
      std::vector<uint64_t> wide(length);
      for (int64_t i = 0; i < length; ++i) wide[i] = uint64_t{g.slot[i]} * k.domain + k.code[i];
      domain = Compact(wide, g.slot);
    }
  }
  g.slots = static_cast<int64_t>(domain);
  g.first_row.assign(domain, -1);
  // The codes the batch has, counted by the static grouped count (vectorized for a few codes),
  // then each one's first row by a scan that stops when it has them all: a scalar pass over every
  // row costs a block more than the kernel's slots' loop (bench: tpch/q1/jit_batch2048).
  int64_t used = static_cast<int64_t>(domain);
  if (domain <= kCountedDomain) {
    std::vector<int64_t> counts(domain, 0);
    kernels::GroupedCount(g.slot.data(), length, {}, static_cast<int64_t>(domain), counts.data());
    used = std::count_if(counts.begin(), counts.end(), [](int64_t c) { return c > 0; });
  }
  for (int64_t i = 0, found = 0; i < length && found < used; ++i) {
    if (g.first_row[g.slot[i]] < 0) {
      g.first_row[g.slot[i]] = i;
      ++found;
    }
  }
  // Codes the batch does not use are dropped (two keys of 3 and 2 codes, 4 of them met, fold
  // into 4 slots): the grouped folds' cost grows with the slots they keep in registers
  // (kernels/grouped_fold.h; bench: grouped/ at 4 and 256 slots, tpch/q1/jit).
  std::vector<uint32_t> renumber(domain);
  std::vector<int64_t> first_row;
  for (uint64_t c = 0; c < domain; ++c) {
    if (g.first_row[c] < 0) continue;
    renumber[c] = static_cast<uint32_t>(first_row.size());
    first_row.push_back(g.first_row[c]);
  }
  if (first_row.size() < domain && !first_row.empty()) {
    for (uint32_t& s : g.slot) s = renumber[s];
    g.first_row = std::move(first_row);
    g.slots = static_cast<int64_t>(g.first_row.size());
  }
  return g;
}

namespace {

// Rows whose key codes a coder holds at a time, on the stack.
constexpr int64_t kGroupCodeBlock = 1024;

// The validity of a key's column (nullptr: every row valid).
const Validity* KeyValidity(const Array& a) {
  const Validity& v = static_cast<const PrimitiveArray&>(a).validity();
  return v.all_valid() ? nullptr : &v;
}

// The batch range of an integer column as (lo, range), range 0 when no row is valid; none past
// `limit` values.
template <typename T>
std::optional<std::pair<uint64_t, uint64_t>> IntegerRange(const PrimitiveArray& a, int64_t length, uint64_t limit) {
  const Validity& valid = a.validity();
  if (valid.all_null()) return std::pair<uint64_t, uint64_t>{0, 0};
  const auto extrema = kernels::MinMax<T>(a.values<T>(), length, valid.all_valid() ? kernels::BitSpan{} : valid.Span(length));
  if (!extrema) return std::pair<uint64_t, uint64_t>{0, 0};
  const __int128 range = static_cast<__int128>(extrema->max) - extrema->min + 1;
  if (range > static_cast<__int128>(limit)) return std::nullopt;
  return std::pair<uint64_t, uint64_t>{static_cast<uint64_t>(extrema->min), static_cast<uint64_t>(range)};
}

// An integer key's codes of rows [start, start + n): the value's low byte less lo's (the range is
// below 256, so that difference modulo 256 is the value less lo).
template <typename T>
void LowBytes(const T* v, uint8_t lo, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(static_cast<uint8_t>(v[i]) - lo);
}

// A dictionary key's codes: the code, or `values` (the null code) for a code outside the
// dictionary, which DictionaryArray::IsNull calls null.
template <typename T>
void DictionaryCodes(const T* v, uint32_t values, int64_t n, uint8_t* out) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint64_t>(v[i]) < values ? static_cast<uint8_t>(v[i]) : static_cast<uint8_t>(values);
  }
}

}  // namespace

std::optional<ByteGroupCoder> ByteGroupCoder::Make(std::span<const ArrayPtr> keys, int64_t length) {
  ByteGroupCoder coder;
  uint64_t domain = 1;
  for (const ArrayPtr& key : keys) {
    Key k;
    uint64_t values = 0;
    if (key->encoding() == Encoding::kDictionary) {
      const auto& d = static_cast<const DictionaryArray&>(*key);
      k.column = d.codes().get();
      k.dictionary = true;
      values = static_cast<uint64_t>(d.values()->length());
      if (values >= kByteCodes) return std::nullopt;
    } else if (key->encoding() == Encoding::kPrimitive && IsInteger(key->type().id) && BitWidth(key->type().id) <= 64) {
      const auto& p = static_cast<const PrimitiveArray&>(*key);
      const auto range = VisitType(key->type().id, [&]<typename T>(std::type_identity<T>) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8) {
          return IntegerRange<T>(p, length, kByteCodes);
        } else {
          return std::optional<std::pair<uint64_t, uint64_t>>{};
        }
      });
      if (!range) return std::nullopt;
      k.column = &p;
      k.lo = static_cast<int64_t>(range->first);
      values = range->second;
    } else {
      return std::nullopt;
    }
    const bool nullable = KeyValidity(*k.column) != nullptr || k.dictionary;
    k.null_code = static_cast<uint32_t>(values);
    k.domain = static_cast<uint32_t>(std::max<uint64_t>(values + nullable, 1));
    domain *= k.domain;
    if (domain > kByteCodes) return std::nullopt;
    coder.keys_.push_back(k);
  }
  return coder;
}

void ByteGroupCoder::Codes(int64_t start, int64_t n, uint8_t* out) const {
  if (keys_.empty()) {
    std::memset(out, 0, static_cast<size_t>(n));
    return;
  }
  uint8_t key_codes[kGroupCodeBlock];
  for (int64_t done = 0; done < n; done += kGroupCodeBlock) {
    const int64_t m = std::min(kGroupCodeBlock, n - done);
    for (size_t j = 0; j < keys_.size(); ++j) {
      const Key& k = keys_[j];
      uint8_t* codes = j == 0 ? out + done : key_codes;
      const auto& column = static_cast<const PrimitiveArray&>(*k.column);
      VisitType(column.type().id, [&]<typename T>(std::type_identity<T>) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8) {
          const T* v = column.values<T>() + start + done;
          if (k.dictionary) {
            DictionaryCodes(v, k.null_code, m, codes);
          } else {
            LowBytes(v, static_cast<uint8_t>(k.lo), m, codes);
          }
        }
      });
      if (const Validity* valid = KeyValidity(column)) {
        for (int64_t i = 0; i < m; ++i) {
          codes[i] = valid->IsValid(start + done + i) ? codes[i] : static_cast<uint8_t>(k.null_code);
        }
      }
      if (j == 0) continue;
      const auto d = static_cast<uint8_t>(k.domain);
      for (int64_t i = 0; i < m; ++i) out[done + i] = static_cast<uint8_t>(out[done + i] * d + codes[i]);
    }
  }
}

}  // namespace rowjit::jit::internal
