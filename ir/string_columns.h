// Column-at-a-time string functions (ir layer): readers over any string array (the three
// layouts, constants, dictionaries), integer arguments as int64, and an exactly sized string
// result built in two passes (the bytes each row takes, then one allocation and the writes).
// The catalog's string-valued functions use them for their `columns` implementation
// (ir/function.h), which the executor runs instead of the row-at-a-time reference.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/array.h"
#include "runtime/string_array.h"

namespace rowjit::ir {

// Row i's bytes of a string-typed array, whatever its encoding; null rows read as some bytes
// (test validity first). Flat layouts read their buffers directly; a dictionary reads its
// values through the codes; a constant is one string.
class StringReader {
 public:
  explicit StringReader(const Array& array);

  std::string_view Get(int64_t i) const {
    switch (kind_) {
      case Kind::kOffsets32: return Range<int32_t>(i);
      case Kind::kOffsets64: return Range<int64_t>(i);
      case Kind::kViews: return View(i);
      case Kind::kConstant: return constant_;
      case Kind::kDictionary: return values_->Get(Code(i));
    }
    return {};
  }
  // The bytes of rows [0, length) together where the layout tells them at once (offsets: the
  // last row's end less the first's start), else -1.
  int64_t BytesOfRows(int64_t length) const {
    switch (kind_) {
      case Kind::kOffsets32: return length == 0 ? 0 : Span(Range<int32_t>(0), Range<int32_t>(length - 1));
      case Kind::kOffsets64: return length == 0 ? 0 : Span(Range<int64_t>(0), Range<int64_t>(length - 1));
      default: return -1;
    }
  }

 private:
  enum class Kind : uint8_t { kOffsets32, kOffsets64, kViews, kConstant, kDictionary };

  static int64_t Span(std::string_view first, std::string_view last) {
    return static_cast<int64_t>(last.data() + last.size() - first.data());
  }
  template <typename O>
  std::string_view Range(int64_t i) const {
    O at[2];
    std::memcpy(at, offsets_ + i * static_cast<int64_t>(sizeof(O)), sizeof(at));
    return {reinterpret_cast<const char*>(data_) + at[0], static_cast<size_t>(at[1] - at[0])};
  }
  int64_t Code(int64_t i) const {  // a valid row's code (Validate() checked it)
    switch (code_width_) {
      case 1: return code_signed_ ? reinterpret_cast<const int8_t*>(codes_)[i] : codes_[i];
      case 2: return code_signed_ ? reinterpret_cast<const int16_t*>(codes_)[i] : reinterpret_cast<const uint16_t*>(codes_)[i];
      case 4: return code_signed_ ? reinterpret_cast<const int32_t*>(codes_)[i] : reinterpret_cast<const uint32_t*>(codes_)[i];
      default: return reinterpret_cast<const int64_t*>(codes_)[i];
    }
  }
  std::string_view View(int64_t i) const {
    const uint8_t* v = views_ + i * kViewBytes;
    int32_t length, buffer, offset;
    std::memcpy(&length, v, 4);
    if (length <= kViewInlineMax) return {reinterpret_cast<const char*>(v + 4), static_cast<size_t>(length)};
    std::memcpy(&buffer, v + 8, 4);
    std::memcpy(&offset, v + 12, 4);
    return {reinterpret_cast<const char*>(buffers_[static_cast<size_t>(buffer)]) + offset, static_cast<size_t>(length)};
  }

  Kind kind_ = Kind::kConstant;
  const uint8_t* offsets_ = nullptr;
  const uint8_t* data_ = nullptr;
  const uint8_t* views_ = nullptr;
  std::vector<const uint8_t*> buffers_;
  std::string_view constant_;
  const uint8_t* codes_ = nullptr;  // a dictionary's codes at row 0, of `code_width_` bytes
  int code_width_ = 0;
  bool code_signed_ = false;
  std::unique_ptr<StringReader> values_;
};

// n bytes, sizeof(W) <= n <= 2 * sizeof(W), as a head and a tail word (overlapping).
template <typename W>
void CopyOverlapping(const char* in, size_t n, uint8_t* out) {
  W head, tail;
  std::memcpy(&head, in, sizeof(W));
  std::memcpy(&tail, in + n - sizeof(W), sizeof(W));
  std::memcpy(out, &head, sizeof(W));
  std::memcpy(out + n - sizeof(W), &tail, sizeof(W));
}

// Copies the bytes of `v` to `out` (which has room for them): strings of up to 16 bytes by two
// overlapping fixed-size moves (no call, no read or write outside either range), longer ones by
// memcpy. Rows are mostly short, and a call to memcpy for each cost more than its copy.
inline void CopyString(std::string_view v, uint8_t* out) {
  const size_t n = v.size();
  const char* in = v.data();
  if (n > 16) {
    std::memcpy(out, in, n);
  } else if (n >= 8) {
    CopyOverlapping<uint64_t>(in, n, out);
  } else if (n >= 4) {
    CopyOverlapping<uint32_t>(in, n, out);
  } else if (n > 0) {  // 1-3 bytes: the first, the middle, the last
    out[0] = static_cast<uint8_t>(in[0]);
    out[n / 2] = static_cast<uint8_t>(in[n / 2]);
    out[n - 1] = static_cast<uint8_t>(in[n - 1]);
  }
}

// An integer scalar as int64, unsigned values past INT64_MAX as INT64_MAX (substr's positions;
// null as 0, which strict callers never read).
int64_t ClampedInt64(const Scalar& s);

// Row i of an integer-typed array (flat, constant or dictionary) as ClampedInt64 reads it.
class IntegerReader {
 public:
  explicit IntegerReader(const Array& array);
  int64_t Get(int64_t i) const { return constant_ ? value_ : values_[static_cast<size_t>(i)]; }

 private:
  bool constant_ = false;
  int64_t value_ = 0;
  std::vector<int64_t> values_;  // non-constant arrays, widened once
};

// Which rows are valid: the array's own validity for flat arrays, all valid or all null for
// constants, a fresh bitmap for dictionaries (a null code or a null value).
Result<Validity> RowValidity(const Array& array);
// The AND of the arguments' validities (strict functions).
Result<Validity> StrictValidity(std::span<const ArrayPtr> args, int64_t length);

// A string array of `type` and `length` rows built in two passes: `size(i)` gives the bytes
// valid row i takes, then `write(i, out)` writes exactly those bytes at `out`. Null rows (by
// `validity`) are empty. 32-bit offsets when the total fits, else 64-bit; buffers from `pool`.
inline constexpr int64_t kMaxStringResultBytes = int64_t{1} << 46;  // past any memory: refused before allocating
template <typename SizeFn, typename WriteFn>
Result<ArrayPtr> ProduceStrings(DataType type, int64_t length, Validity validity, const std::shared_ptr<MemoryPool>& pool,
                                SizeFn size, WriteFn write);

// The buffers of a result under construction (internal to ProduceStrings).
struct StringResultBuffers {
  BufferPtr offsets, data;
  bool wide = false;  // 64-bit offsets
  static Result<StringResultBuffers> Make(int64_t length, int64_t total_bytes, const std::shared_ptr<MemoryPool>& pool);
  Result<ArrayPtr> Finish(DataType type, int64_t length, Validity validity);
};

// Calls fn(i, valid) for every row, validity read 64 rows at a time.
template <typename Fn>
void ForEachRow(const Validity& validity, int64_t length, Fn fn) {
  for (int64_t w = 0; w * 64 < length; ++w) {
    const uint64_t bits = validity.Word(w, length);
    const int64_t end = std::min<int64_t>(length, (w + 1) * 64);
    for (int64_t i = w * 64; i < end; ++i) fn(i, ((bits >> (i & 63)) & 1) != 0);
  }
}

template <typename O, typename WriteFn>
int64_t WriteStrings(StringResultBuffers& out, const Validity& validity, int64_t length, WriteFn& write) {
  O* offsets = out.offsets->mutable_data_as<O>();
  uint8_t* data = out.data->mutable_data();
  int64_t end = 0;
  offsets[0] = 0;
  ForEachRow(validity, length, [&](int64_t i, bool valid) {
    if (valid) end += write(i, data + end);
    offsets[i + 1] = static_cast<O>(end);
  });
  return end;
}

template <typename SizeFn, typename WriteFn>
Result<ArrayPtr> ProduceStrings(DataType type, int64_t length, Validity validity, const std::shared_ptr<MemoryPool>& pool,
                                SizeFn size, WriteFn write) {
  int64_t total = 0;
  bool too_large = false;  // sizes are saturating (replace's can pass int64 on hostile input)
  if (!validity.all_null()) {
    ForEachRow(validity, length, [&](int64_t i, bool valid) {
      if (valid) too_large = __builtin_add_overflow(total, size(i), &total) || too_large;
    });
  }
  if (too_large || total > kMaxStringResultBytes) {
    return MakeError(ErrorCode::kOutOfMemory, "a string result of more than {} bytes", kMaxStringResultBytes);
  }
  ROWJIT_ASSIGN_OR_RETURN(StringResultBuffers out, StringResultBuffers::Make(length, total, pool));
  const int64_t wrote = out.wide ? WriteStrings<int64_t>(out, validity, length, write)
                                 : WriteStrings<int32_t>(out, validity, length, write);
  if (wrote != total) return MakeError(ErrorCode::kInternal, "string result wrote {} of {} bytes", wrote, total);
  return out.Finish(type, length, std::move(validity));
}

// The rows of a string array of any encoding (a dictionary, a constant) as a flat one of `type`.
Result<ArrayPtr> CopyStrings(const Array& array, DataType type, int64_t length, const std::shared_ptr<MemoryPool>& pool);

// A string array whose valid rows are text that `format(i, at)` writes at `at` (at most
// `max_bytes`, though it may scribble up to `slack` bytes further), returning the end: numbers,
// dates and decimals as text. Each row is formatted
// once into scratch memory of `max_bytes` a row from `pool` (recycled in a batch loop), with
// the offsets, then the text is copied into an exactly sized data buffer. The offsets are 32-bit
// when `max_bytes` a row fits them.
template <typename FormatFn>
Result<ArrayPtr> ProduceFormatted(DataType type, int64_t length, Validity validity, const std::shared_ptr<MemoryPool>& pool,
                                  int max_bytes, FormatFn format, int slack = 0) {
  if (length > (int64_t{1} << 40) / max_bytes) return MakeError(ErrorCode::kOutOfMemory, "{} rows of text", length);
  StringResultBuffers out;
  out.wide = length * max_bytes > std::numeric_limits<int32_t>::max();
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr scratch, Buffer::AllocateForOverwrite(length * max_bytes + slack, pool));
  ROWJIT_ASSIGN_OR_RETURN(out.offsets, Buffer::AllocateForOverwrite((length + 1) * (out.wide ? 8 : 4), pool));
  char* const base = reinterpret_cast<char*>(scratch->mutable_data());
  char* at = base;
  auto fill = [&]<typename O>(O* offsets) {
    offsets[0] = 0;
    ForEachRow(validity, length, [&](int64_t i, bool valid) {
      if (valid) at = format(i, at);
      offsets[i + 1] = static_cast<O>(at - base);
    });
  };
  if (out.wide) {
    fill(out.offsets->mutable_data_as<int64_t>());
  } else {
    fill(out.offsets->mutable_data_as<int32_t>());
  }
  ROWJIT_ASSIGN_OR_RETURN(out.data, Buffer::AllocateForOverwrite(at - base, pool));
  if (at != base) std::memcpy(out.data->mutable_data(), base, static_cast<size_t>(at - base));
  return out.Finish(type, length, std::move(validity));
}

}  // namespace rowjit::ir
