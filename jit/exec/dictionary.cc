// Evaluation over a dictionary's values (jit layer, exec room): an expression that reads one
// dictionary-encoded column runs once per dictionary value, and its results are gathered through
// the codes (jit/exec/executor_internal.h).
#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/reference.h"
#include "jit/exec/executor_internal.h"

namespace rowjit::jit::internal {

namespace {

// Calls f(codes) with the codes as their C++ type.
template <typename F>
void WithCodes(const DictionaryArray& d, F&& f) {
  VisitType(d.codes()->type().id, [&]<typename C>(std::type_identity<C>) {
    if constexpr (std::is_integral_v<C> && !std::is_same_v<C, bool>) f(d.codes()->values<C>());
  });
}

// A row's index into a table of `size` entries: its code, or 0 where the code is out of range
// (only null rows, whose codes are unchecked; their values are fixed up after).
template <typename C>
inline uint64_t Index(C code, uint64_t size) {
  const auto i = static_cast<uint64_t>(static_cast<std::make_unsigned_t<C>>(code));
  return i < size ? i : 0;
}

// Values: table[code] for every row, bools as bits (a word at a time).
template <typename T, typename C>
void GatherValues(const std::vector<T>& table, const C* codes, int64_t n, uint8_t* out) {
  const uint64_t size = table.size();
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(table.begin(), table.end());
    // Eight rows' bytes (each 0 or 1) in one integer, then their low bits into a byte with one
    // multiply: byte k's bit lands at bit 56 + k, and no two partial products overlap.
    auto eight = [&](const C* c) {
      uint64_t x = 0;
      for (int k = 0; k < 8; ++k) x |= uint64_t{bytes[Index(c[k], size)]} << (8 * k);
      return (x * 0x0102040810204080ULL) >> 56;
    };
    const int64_t full = n / 64;
    for (int64_t w = 0; w < full; ++w) {
      uint64_t word = 0;
      for (int g = 0; g < 8; ++g) word |= eight(codes + w * 64 + g * 8) << (8 * g);
      std::memcpy(out + w * 8, &word, 8);
    }
    if (n % 64 != 0) {
      uint64_t word = 0;
      for (int64_t r = 0; r < n % 64; ++r) word |= uint64_t{bytes[Index(codes[full * 64 + r], size)]} << r;
      std::memcpy(out + full * 8, &word, 8);
    }
  } else {
    T* values = reinterpret_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) values[i] = table[Index(codes[i], size)];
  }
}

}  // namespace

Result<ArrayPtr> GatherThroughCodes(const Array& over_values, const Scalar& null_row, const DictionaryArray& d,
                                    const std::shared_ptr<MemoryPool>& pool) {
  const int64_t n = d.length(), dict = over_values.length();
  const TypeId t = over_values.type().id;
  const Validity& code_valid = d.codes()->validity();
  const bool null_codes = d.codes()->NullCount() > 0;
  ROWJIT_ASSIGN_OR_RETURN(auto values, Buffer::Allocate(t == TypeId::kBool ? kernels::NumWords(n) * 8 : n * ByteWidth(t), pool));
  VisitType(t, [&]<typename T>(std::type_identity<T>) {
    std::vector<T> table(static_cast<size_t>(dict));
    for (int64_t v = 0; v < dict; ++v) {
      if (!over_values.IsNull(v)) table[static_cast<size_t>(v)] = over_values.GetScalar(v).template value<T>();
    }
    WithCodes(d, [&](const auto* codes) { GatherValues(table, codes, n, values->mutable_data()); });
    if (null_codes && !null_row.is_null()) {  // rows with a null code take the value over a null
      for (int64_t i = 0; i < n; ++i) {
        if (code_valid.IsValid(i)) continue;
        if constexpr (std::is_same_v<T, bool>) {
          kernels::SetBitTo(values->mutable_data(), i, null_row.value<bool>());
        } else {
          reinterpret_cast<T*>(values->mutable_data())[i] = null_row.value<T>();
        }
      }
    }
  });
  // Validity: the value's over the dictionary, or over a null for a null code.
  const bool null_values = over_values.NullCount() > 0;
  Validity validity = Validity::AllValid();
  int64_t nulls = 0;
  if (null_values || (null_codes && null_row.is_null())) {
    std::vector<uint8_t> table_valid(static_cast<size_t>(dict));
    for (int64_t v = 0; v < dict; ++v) table_valid[static_cast<size_t>(v)] = !over_values.IsNull(v);
    ROWJIT_ASSIGN_OR_RETURN(auto bits, Buffer::Allocate(kernels::NumWords(n) * 8, pool));
    WithCodes(d, [&](const auto* codes) {
      for (int64_t i = 0; i < n; ++i) {
        const bool ok = code_valid.IsValid(i) ? table_valid[Index(codes[i], table_valid.size())] != 0 : !null_row.is_null();
        kernels::SetBitTo(bits->mutable_data(), i, ok);
        nulls += !ok;
      }
    });
    if (nulls == n && n > 0) {
      validity = Validity::AllNull();
    } else if (nulls > 0) {
      ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(std::move(bits), 0, n));
    }
  }
  const DataType type = over_values.type().WithNullable(over_values.type().nullable || nulls > 0);
  if (t == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(auto arr, BoolArray::Make(n, std::move(values), std::move(validity), 0, type.nullable));
    return ArrayPtr(std::move(arr));
  }
  ROWJIT_ASSIGN_OR_RETURN(auto arr, PrimitiveArray::Make(type, n, std::move(values), std::move(validity)));
  return ArrayPtr(std::move(arr));
}

}  // namespace rowjit::jit::internal
