// String functions over utf8 and binary (ir layer): lengths, predicates, and functions that
// return strings (lower, upper, substr, concat, trim, ltrim, rtrim, replace). Bytes compare
// bytewise (PostgreSQL's C collation, DuckDB's default); `like` and `ilike` follow
// kernels/strings.h (`_` is one code point of utf8, one byte of binary).
#include "ir/function_internal.h"
#include "ir/string_columns.h"
#include "kernels/strings.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

namespace rowjit::ir {
namespace {

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }

// One string argument; the result `result` (strict nullability).
template <TypeId kResult, bool kUtf8Only>
Result<DataType> OneString(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (kUtf8Only ? a[0].id != TypeId::kUtf8 : !IsString(a[0].id)) {
    return internal::TypeMismatch(n, a, kUtf8Only ? "expects utf8" : "expects utf8 or binary");
  }
  return DataType(kResult, a[0].nullable);
}

// Two strings of one type (utf8 or binary); the result bool.
Result<DataType> TwoStrings(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  return internal::SameType(n, a, IsString, "expects two utf8 or two binary arguments", true);
}

Result<Scalar> Length(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of<int64_t>(static_cast<int64_t>(a[0].str().size()));
}
Result<Scalar> CharLength(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of<int64_t>(kernels::CountCodePoints(Bytes(a[0].str()), a[0].str().size()));
}
Result<Scalar> Hash(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of<uint64_t>(kernels::HashBytes(Bytes(a[0].str()), a[0].str().size()));
}
Result<Scalar> StartsWith(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].str().starts_with(a[1].str()));
}
Result<Scalar> EndsWith(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].str().ends_with(a[1].str()));
}
Result<Scalar> Contains(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  return Scalar::Of(a[0].str().find(a[1].str()) != std::string_view::npos);
}
template <bool kFoldCase>
Result<Scalar> Like(std::span<const Scalar> a, DataType, std::optional<TypeId>) {
  const std::string_view s = a[0].str(), p = a[1].str();
  return Scalar::Of(kernels::LikeMatch(Bytes(s), s.size(), Bytes(p), p.size(),
                                       a[0].type_id() == TypeId::kUtf8, kFoldCase));
}

// --- functions returning strings (computed outside kernels: jit/exec/strings_materialize.cc)

// The first argument a string; the result its type.
Result<DataType> SameString(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  return internal::SameType(n, a, IsString, "expects utf8 or binary arguments of one type", false);
}
// substr(s, start, count): a string and two integers.
Result<DataType> SubstrRule(std::string_view n, std::span<const DataType> a, std::optional<TypeId>) {
  if (!IsString(a[0].id) || !IsInteger(a[1].id) || !IsInteger(a[2].id)) {
    return internal::TypeMismatch(n, a, "expects (utf8 or binary, integer, integer)");
  }
  return a[0].WithNullable(internal::AnyNullable(a));
}

template <bool kUpper>
Result<Scalar> ChangeCase(std::span<const Scalar> a, DataType r, std::optional<TypeId>) {
  std::string out(a[0].str());
  for (char& c : out) {
    const auto u = static_cast<uint8_t>(c);
    if (kUpper && u >= 'a' && u <= 'z') c = static_cast<char>(u - 32);
    if (!kUpper && u >= 'A' && u <= 'Z') c = static_cast<char>(u + 32);
  }
  return Scalar::String(out, r.id);
}

// Characters [start, start + count) counted from 1 (code points of utf8, bytes of binary);
// positions before 1 shorten the count (PostgreSQL); a negative count gives ''.
Result<Scalar> Substr(std::span<const Scalar> a, DataType r, std::optional<TypeId>) {
  const std::string_view s = a[0].str();
  const int64_t start = ClampedInt64(a[1]), count = ClampedInt64(a[2]);
  const int64_t end = count < 0 ? start : (start > INT64_MAX - count ? INT64_MAX : start + count);
  const int64_t from = std::max<int64_t>(start, 1);
  if (end <= from) return Scalar::String("", r.id);
  // Byte offsets of characters `from` and `end` (1-based).
  const bool utf8 = r.id == TypeId::kUtf8;
  size_t byte = 0, begin = s.size(), stop = s.size();
  for (int64_t ch = 1; byte <= s.size(); ++ch) {
    if (ch == from) begin = byte;
    if (ch == end) {
      stop = byte;
      break;
    }
    if (byte == s.size()) break;
    ++byte;
    while (utf8 && byte < s.size() && (static_cast<uint8_t>(s[byte]) & 0xc0) == 0x80) ++byte;
  }
  if (begin >= stop) return Scalar::String("", r.id);
  return Scalar::String(s.substr(begin, stop - begin), r.id);
}

Result<Scalar> Concat(std::span<const Scalar> a, DataType r, std::optional<TypeId>) {
  std::string out;
  for (const Scalar& x : a) out += x.str();
  return Scalar::String(out, r.id);
}

// Spaces (' ') removed from the start, the end, or both.
template <bool kLeft, bool kRight>
Result<Scalar> Trim(std::span<const Scalar> a, DataType r, std::optional<TypeId>) {
  std::string_view s = a[0].str();
  while (kLeft && !s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (kRight && !s.empty() && s.back() == ' ') s.remove_suffix(1);
  return Scalar::String(s, r.id);
}

// Every occurrence of `search`, left to right and not overlapping, replaced; an empty search
// string changes nothing (PostgreSQL).
Result<Scalar> Replace(std::span<const Scalar> a, DataType r, std::optional<TypeId>) {
  const std::string_view s = a[0].str(), search = a[1].str(), with = a[2].str();
  if (search.empty()) return Scalar::String(s, r.id);
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = s.find(search, at)) != std::string_view::npos; at = hit + search.size()) {
    out.append(s.substr(at, hit - at));
    out.append(with);
  }
  out.append(s.substr(at));
  return Scalar::String(out, r.id);
}

// --- column forms of the functions returning strings (ir/string_columns.h): the same results
// as the row forms above, which stay the reference the tests compare them with.

// ASCII letters' case changed over n bytes: one compare and one xor a byte, no branch (the
// loop vectorizes).
template <bool kUpper>
void ChangeCaseBytes(const uint8_t* in, size_t n, uint8_t* out) {
  constexpr uint8_t kFrom = kUpper ? 'a' : 'A';
  for (size_t k = 0; k < n; ++k) {
    const uint8_t c = in[k];
    out[k] = static_cast<uint8_t>(c ^ (static_cast<uint8_t>(c - kFrom) < 26 ? 0x20 : 0));
  }
}

// The bits that change the case of the ASCII letters among 8 bytes (SWAR): 0x20 in each byte
// that is a letter of the other case, computed on the low 7 bits with no carry between bytes.
template <bool kUpper>
uint64_t CaseFlips(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101u, kHigh = 0x8080808080808080u;
  constexpr uint64_t kFrom = kUpper ? 'a' : 'A', kTo = kUpper ? 'z' : 'Z';
  const uint64_t low7 = w & ~kHigh;
  const uint64_t at_least = low7 + (0x80 - kFrom) * kOnes;  // high bit: byte >= kFrom
  const uint64_t above = low7 + (0x7f - kTo) * kOnes;       // high bit: byte > kTo
  return ((at_least & ~above & ~w & kHigh) >> 2);
}

// An offsets-layout column changes case in one pass over its whole byte range (null rows'
// bytes too: they are there anyway), and keeps its offsets rebased to 0.
template <bool kUpper, typename O>
Result<ArrayPtr> ChangeCaseRange(const StringArray& s, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  const uint8_t* in = s.raw_offsets();
  O first, last;
  std::memcpy(&first, in, sizeof(O));
  std::memcpy(&last, in + length * static_cast<int64_t>(sizeof(O)), sizeof(O));
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr offsets, Buffer::AllocateForOverwrite((length + 1) * static_cast<int64_t>(sizeof(O)), pool));
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr data, Buffer::AllocateForOverwrite(static_cast<int64_t>(last - first), pool));
  O* out = offsets->mutable_data_as<O>();
  for (int64_t i = 0; i <= length; ++i) {
    O at;
    std::memcpy(&at, in + i * static_cast<int64_t>(sizeof(O)), sizeof(O));
    out[i] = static_cast<O>(at - first);
  }
  ChangeCaseBytes<kUpper>(s.data() + first, static_cast<size_t>(last - first), data->mutable_data());
  ROWJIT_ASSIGN_OR_RETURN(auto made, StringArray::MakeOffsets(r, length, s.layout(), std::move(offsets),
                                                              std::move(data), s.validity()));
  return ArrayPtr(std::move(made));
}

// A views column stays views: each view's inline bytes (or its 4-byte prefix) change case, and
// so does each data buffer whole. Null when the buffers hold more than twice the bytes the rows
// use (a short slice of a long array): the caller then copies the rows.
template <bool kUpper>
Result<ArrayPtr> ChangeCaseViews(const StringArray& s, DataType r, int64_t length, const std::shared_ptr<MemoryPool>& pool) {
  int64_t used = 0, held = 0;
  for (const BufferPtr& b : s.data_buffers()) held += b->size();
  const uint8_t* in = s.raw_views();
  for (int64_t i = 0; i < length; ++i) {
    int32_t n;
    std::memcpy(&n, in + i * kViewBytes, 4);
    used += n > kViewInlineMax ? n : 0;
  }
  if (held > 2 * used + 4096) return ArrayPtr();
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr views, Buffer::AllocateForOverwrite(length * kViewBytes, pool));
  uint8_t* out = views->mutable_data();
  for (int64_t i = 0; i < length; ++i) {  // two 8-byte halves: the length and 4 bytes, then 8 more
    uint64_t w[2];
    std::memcpy(w, in + i * kViewBytes, kViewBytes);
    const bool inline_bytes = static_cast<int32_t>(w[0]) <= kViewInlineMax;
    w[0] ^= CaseFlips<kUpper>(w[0]) & 0xffffffff00000000u;
    w[1] ^= CaseFlips<kUpper>(w[1]) & (inline_bytes ? ~uint64_t{0} : 0);
    std::memcpy(out + i * kViewBytes, w, kViewBytes);
  }
  std::vector<BufferPtr> data;
  for (const BufferPtr& b : s.data_buffers()) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr copy, Buffer::AllocateForOverwrite(b->size(), pool));
    ChangeCaseBytes<kUpper>(b->data(), static_cast<size_t>(b->size()), copy->mutable_data());
    data.push_back(std::move(copy));
  }
  ROWJIT_ASSIGN_OR_RETURN(auto made, StringArray::MakeViews(r, length, std::move(views), std::move(data), s.validity()));
  return ArrayPtr(std::move(made));
}

template <bool kUpper>
Result<ArrayPtr> ChangeCaseColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  if (a[0]->encoding() == Encoding::kString) {
    const auto& s = static_cast<const StringArray&>(*a[0]);
    if (s.layout() == StringLayout::kOffsets32) return ChangeCaseRange<kUpper, int32_t>(s, r, length, pool);
    if (s.layout() == StringLayout::kOffsets64) return ChangeCaseRange<kUpper, int64_t>(s, r, length, pool);
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr views, ChangeCaseViews<kUpper>(s, r, length, pool));
    if (views != nullptr) return views;
  }
  const StringReader in(*a[0]);
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, ir::RowValidity(*a[0]));
  return ProduceStrings(
      r, length, std::move(valid), pool, [&](int64_t i) { return static_cast<int64_t>(in.Get(i).size()); },
      [&](int64_t i, uint8_t* out) {
        const std::string_view v = in.Get(i);
        ChangeCaseBytes<kUpper>(Bytes(v), v.size(), out);
        return static_cast<int64_t>(v.size());
      });
}

// Copies the piece `pick(i)` (a part of row i of `in`) of every valid row in two passes, each
// piece picked once: kept (16 bytes a row, pooled scratch) from the pass that sizes the result to
// the one that copies it, where picking it again would repeat the row's search. 64-bit offsets
// where the result needs them.
template <typename PickFn>
Result<ArrayPtr> ProducePiecesTwoPass(DataType r, int64_t length, Validity valid,
                                      const std::shared_ptr<MemoryPool>& pool, PickFn pick) {
  constexpr int64_t kPieceBytes = sizeof(std::string_view);
  if (length > kMaxStringResultBytes / kPieceBytes) {
    return MakeError(ErrorCode::kOutOfMemory, "{} rows of string pieces", length);
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr scratch, Buffer::AllocateForOverwrite(length * kPieceBytes, pool));
  auto* pieces = reinterpret_cast<std::string_view*>(scratch->mutable_data());
  return ProduceStrings(
      r, length, std::move(valid), pool,
      [&](int64_t i) { return static_cast<int64_t>((new (&pieces[i]) std::string_view(pick(i)))->size()); },
      [&](int64_t i, uint8_t* out) {
        CopyString(pieces[i], out);
        return static_cast<int64_t>(pieces[i].size());
      });
}

// `data` (of which the first `used` bytes are written) grown to hold at least `need` bytes:
// doubled, so that a result's bytes are copied about once more in all.
Status GrowPieces(BufferPtr& data, int64_t used, int64_t need, const std::shared_ptr<MemoryPool>& pool) {
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr grown, Buffer::AllocateForOverwrite(std::max(need, 2 * data->size()), pool));
  if (used > 0) std::memcpy(grown->mutable_data(), data->data(), static_cast<size_t>(used));
  data = std::move(grown);
  return Status::OK();
}

// Copies the piece `pick(i)` (a part of row i of `in`) of every valid row in one pass: each
// piece is copied as it is picked, while its row's bytes are in cache, into a data buffer that
// doubles when full; a second pass would read every row from memory again (bench:
// `duckdb/substr/jit`). It starts at the input's bytes where the layout tells them at once (no
// piece is longer than its row), else at 8 bytes a row, at most 64 MiB, and is cut to size at the
// end when it holds more than twice the result. A result past 32-bit offsets (2 GiB) is built again by
// ProducePiecesTwoPass.
template <typename PickFn>
Result<ArrayPtr> ProducePieces(DataType r, int64_t length, Validity valid, const std::shared_ptr<MemoryPool>& pool,
                               const StringReader& in, PickFn pick) {
  constexpr int64_t kFirstBytes = 8;  // a row: the first guess at the data buffer's size
  constexpr int64_t kMaxBytes = std::numeric_limits<int32_t>::max();
  if (length >= kMaxBytes) return ProducePiecesTwoPass(r, length, std::move(valid), pool, pick);
  StringResultBuffers out;
  ROWJIT_ASSIGN_OR_RETURN(out.offsets, Buffer::AllocateForOverwrite((length + 1) * 4, pool));
  constexpr int64_t kMaxFirst = int64_t{64} << 20;  // a larger result grows to its size
  const int64_t input_bytes = in.BytesOfRows(length);
  const int64_t first = std::min(input_bytes >= 0 ? input_bytes : length * kFirstBytes, kMaxFirst);
  ROWJIT_ASSIGN_OR_RETURN(out.data, Buffer::AllocateForOverwrite(std::max<int64_t>(64, first), pool));
  auto* offsets = out.offsets->mutable_data_as<int32_t>();
  offsets[0] = 0;
  int64_t end = 0;
  Status status;
  bool wide = false;
  ForEachRow(valid, length, [&](int64_t i, bool ok) {
    if (ok && status.ok() && !wide) {
      const std::string_view piece = pick(i);
      const auto n = static_cast<int64_t>(piece.size());
      if (end + n > kMaxBytes) {
        wide = true;
      } else {
        if (end + n > out.data->size()) status = GrowPieces(out.data, end, end + n, pool);
        if (status.ok()) CopyString(piece, out.data->mutable_data() + end);
        end += n;
      }
    }
    offsets[i + 1] = static_cast<int32_t>(end);
  });
  if (wide) {
    out = StringResultBuffers();  // freed before the two-pass result is allocated
    return ProducePiecesTwoPass(r, length, std::move(valid), pool, pick);
  }
  ROWJIT_RETURN_NOT_OK(status);
  if (out.data->size() > 2 * end + 64) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr exact, Buffer::AllocateForOverwrite(end, pool));
    if (end > 0) std::memcpy(exact->mutable_data(), out.data->data(), static_cast<size_t>(end));
    out.data = std::move(exact);
  }
  return out.Finish(r, length, std::move(valid));
}

template <bool kLeft, bool kRight>
Result<ArrayPtr> TrimColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  const StringReader in(*a[0]);
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, ir::RowValidity(*a[0]));
  return ProducePieces(r, length, std::move(valid), pool, in, [&](int64_t i) {
    std::string_view v = in.Get(i);
    size_t from = 0, to = v.size();
    while (kLeft && from < to && v[from] == ' ') ++from;
    while (kRight && to > from && v[to - 1] == ' ') --to;
    return v.substr(from, to - from);
  });
}

// The byte where character `k` (0-based) of utf8 `v` starts, or v.size() past the last one:
// characters start at byte 0 and at every byte that is not a continuation byte `10xxxxxx`
// (as the row form walks them, on invalid UTF-8 too).
size_t CharStart(std::string_view v, int64_t k) {
  if (k <= 0) return 0;
  for (size_t b = 1; b < v.size(); ++b) {
    if ((static_cast<uint8_t>(v[b]) & 0xc0) != 0x80 && --k == 0) return b;
  }
  return v.size();
}

// Whether v's first m bytes are all ASCII, eight at a time: there characters are bytes.
// Fewer than eight bytes are read as one word where the row has eight, the bytes past m masked
// off; a last part of fewer than eight as the word ending at m (bench: `duckdb/substr/jit`).
bool AsciiPrefix(std::string_view v, size_t m) {
  uint64_t w = 0, high = 0;
  if (m < 8) {
    if (v.size() < 8) {
      for (size_t i = 0; i < m; ++i) high |= static_cast<uint8_t>(v[i]);
      return (high & 0x80) == 0;
    }
    std::memcpy(&w, v.data(), 8);
    return (w & ((uint64_t{1} << (8 * m)) - 1) & 0x8080808080808080ULL) == 0;
  }
  size_t i = 0;
  for (; i + 8 <= m; i += 8) {
    std::memcpy(&w, v.data() + i, 8);
    high |= w;
  }
  if (i < m) {
    std::memcpy(&w, v.data() + m - 8, 8);
    high |= w;
  }
  return (high & 0x8080808080808080ULL) == 0;
}

Result<ArrayPtr> SubstrColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  const StringReader in(*a[0]);
  const IntegerReader starts(*a[1]), counts(*a[2]);
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, StrictValidity(a, length));
  const bool utf8 = r.id == TypeId::kUtf8;
  return ProducePieces(r, length, std::move(valid), pool, in, [&](int64_t i) -> std::string_view {
    const std::string_view v = in.Get(i);
    const int64_t start = starts.Get(i), count = counts.Get(i);
    const int64_t end = count < 0 ? start : (start > INT64_MAX - count ? INT64_MAX : start + count);
    const int64_t from = std::max<int64_t>(start, 1);
    if (end <= from) return {};
    // Characters [from, end) counted from 1: bytes of binary, code points of utf8.
    const int64_t n = static_cast<int64_t>(v.size());
    // Where the bytes up to the last one the walk reads are ASCII, characters are bytes: no walk
    // (bench: `duckdb/substr`).
    if (!utf8 || AsciiPrefix(v, static_cast<size_t>(std::min(end, n)))) {
      const int64_t b = std::min(from - 1, n), e = std::min(end - 1, n);
      return v.substr(static_cast<size_t>(b), static_cast<size_t>(e - b));
    }
    const size_t b = CharStart(v, from - 1);
    const std::string_view rest = v.substr(b);
    const size_t e = b + (rest.empty() ? 0 : CharStart(rest, end - from));
    return v.substr(b, e - b);
  });
}

Result<ArrayPtr> ConcatColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  std::vector<StringReader> in;
  in.reserve(a.size());
  for (const ArrayPtr& x : a) in.emplace_back(*x);
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, StrictValidity(a, length));
  return ProduceStrings(
      r, length, std::move(valid), pool,
      [&](int64_t i) {
        int64_t n = 0;
        for (const StringReader& x : in) n += static_cast<int64_t>(x.Get(i).size());
        return n;
      },
      [&](int64_t i, uint8_t* out) {
        int64_t n = 0;
        for (const StringReader& x : in) {
          const std::string_view v = x.Get(i);
          CopyString(v, out + n);
          n += static_cast<int64_t>(v.size());
        }
        return n;
      });
}

// Every occurrence of `search` in `s`, left to right and not overlapping, replaced by `with`,
// written at `out` (when not null); returns the result's bytes.
int64_t ReplaceInto(std::string_view s, std::string_view search, std::string_view with, uint8_t* out) {
  if (search.empty()) {
    if (out != nullptr && !s.empty()) std::memcpy(out, s.data(), s.size());
    return static_cast<int64_t>(s.size());
  }
  int64_t n = 0;
  auto put = [&](std::string_view piece) {  // sizes saturate: the caller refuses a result that large
    if (out != nullptr) CopyString(piece, out + n);
    n = std::min(n + static_cast<int64_t>(piece.size()), kMaxStringResultBytes + 1);
  };
  size_t at = 0;
  for (size_t hit; (hit = s.find(search, at)) != std::string_view::npos; at = hit + search.size()) {
    put(s.substr(at, hit - at));
    put(with);
  }
  put(s.substr(at));
  return n;
}

Result<ArrayPtr> ReplaceColumns(std::span<const ArrayPtr> a, DataType r, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool) {
  const StringReader s(*a[0]), search(*a[1]), with(*a[2]);
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, StrictValidity(a, length));
  return ProduceStrings(
      r, length, std::move(valid), pool, [&](int64_t i) { return ReplaceInto(s.Get(i), search.Get(i), with.Get(i), nullptr); },
      [&](int64_t i, uint8_t* out) { return ReplaceInto(s.Get(i), search.Get(i), with.Get(i), out); });
}

const Function kFunctions[] = {
    {.name = "length", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 1,
     .type_rule = OneString<TypeId::kI64, false>, .eval = Length,
     .summary = "The length of s in bytes.",
     .notes = "utf8 or binary. Never fails."},
    {.name = "char_length", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = OneString<TypeId::kI64, true>, .eval = CharLength, .counts_code_points = true,
     .summary = "The number of code points of a utf8 string.",
     .notes = "Counts the bytes that are not continuation bytes `10xxxxxx`, on invalid UTF-8 too. utf8 only. "
              "Never fails."},
    {.name = "hash", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = OneString<TypeId::kU64, false>, .eval = Hash,
     .summary = "The 64-bit XXH3 hash (seed 0) of the string's bytes.",
     .notes = "xxHash 0.8's XXH3-64, frozen since 0.8.0: stable across versions and processes. Never fails."},
    {.name = "starts_with", .arg_names = {"s", "prefix"}, .family = Family::kString,
     .decode_cost = 1, .type_rule = TwoStrings, .eval = StartsWith,
     .summary = "Whether s begins with prefix, bytewise.",
     .notes = "The empty string is a prefix of every string. Two strings of one type. Never fails."},
    {.name = "ends_with", .arg_names = {"s", "suffix"}, .family = Family::kString,
     .decode_cost = 1, .type_rule = TwoStrings, .eval = EndsWith,
     .summary = "Whether s ends with suffix, bytewise.",
     .notes = "The empty string is a suffix of every string. Two strings of one type. Never fails."},
    {.name = "contains", .arg_names = {"s", "needle"}, .family = Family::kString,
     .decode_cost = 2, .type_rule = TwoStrings, .eval = Contains,
     .summary = "Whether needle occurs in s, bytewise.",
     .notes = "The empty string occurs in every string. Two strings of one type. Never fails."},
    {.name = "like", .arg_names = {"s", "pattern"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = TwoStrings, .eval = Like<false>, .implied_length = ImpliedLength::kLike,
     .summary = "Whether s matches the SQL LIKE pattern.",
     .notes = "Written `s like p` (`s not like p` negates it). `%` matches any run, `_` one character (a code "
              "point of utf8, a byte of binary), `\\` makes the next pattern byte literal (a trailing `\\` "
              "matches itself). Never fails."},
    {.name = "ilike", .arg_names = {"s", "pattern"}, .family = Family::kString, .decode_cost = 2,
     .type_rule = TwoStrings, .eval = Like<true>,
     .summary = "Whether s matches the SQL LIKE pattern with ASCII letters compared case-insensitively.",
     .notes = "Written `s ilike p`. As `like`, with no Unicode case folding. Never fails."},
    {.name = "lower", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .propagates_type = true, .type_rule = SameString, .eval = ChangeCase<false>,
     .columns = ChangeCaseColumns<false>,
     .summary = "s with the ASCII letters A–Z made lowercase.",
     .notes = "Every other byte is kept (`É` stays `É`). Never fails."},
    {.name = "upper", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .propagates_type = true, .type_rule = SameString, .eval = ChangeCase<true>,
     .columns = ChangeCaseColumns<true>,
     .summary = "s with the ASCII letters a–z made uppercase.",
     .notes = "Every other byte is kept (`é` stays `é`). Never fails."},
    {.name = "substr", .arg_names = {"s", "start", "count"}, .family = Family::kString,
     .decode_cost = 2, .unify_from = -1, .type_rule = SubstrRule, .eval = Substr,
     .columns = SubstrColumns,
     .summary = "The `count` characters of s from position `start`, counted from 1 (code points of utf8, bytes "
                "of binary).",
     .notes = "A start before 1 shortens the count (`substr('hello', 0, 2)` is `'h'`); a count past the end "
              "stops there; a negative count gives `''`. Never fails."},
    {.name = "concat", .arg_names = {}, .variadic = true, .family = Family::kString,
     .decode_cost = 2, .propagates_type = true, .type_rule = SameString, .eval = Concat,
     .columns = ConcatColumns,
     .summary = "The arguments' bytes one after another.",
     .notes = "One or more strings of one type; written `a || b` too. Strict: a null argument gives null. "
              "Never fails."},
    {.name = "trim", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .propagates_type = true, .type_rule = SameString, .eval = Trim<true, true>,
     .columns = TrimColumns<true, true>,
     .summary = "s without the spaces at its start and end.",
     .notes = "Only the space byte (0x20) is removed. Never fails."},
    {.name = "ltrim", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .propagates_type = true, .type_rule = SameString, .eval = Trim<true, false>,
     .columns = TrimColumns<true, false>,
     .summary = "s without the spaces at its start.",
     .notes = "Only the space byte (0x20) is removed. Never fails."},
    {.name = "rtrim", .arg_names = {"s"}, .family = Family::kString, .decode_cost = 2,
     .propagates_type = true, .type_rule = SameString, .eval = Trim<false, true>,
     .columns = TrimColumns<false, true>,
     .summary = "s without the spaces at its end.",
     .notes = "Only the space byte (0x20) is removed. Never fails."},
    {.name = "replace", .arg_names = {"s", "search", "replacement"}, .family = Family::kString,
     .decode_cost = 2, .propagates_type = true, .type_rule = SameString, .eval = Replace,
     .columns = ReplaceColumns,
     .summary = "s with every occurrence of search replaced by replacement, left to right and not overlapping.",
     .notes = "An empty `search` changes nothing (PostgreSQL). Never fails."},
};

}  // namespace

std::span<const Function> StringFunctions() { return kFunctions; }

}  // namespace rowjit::ir
