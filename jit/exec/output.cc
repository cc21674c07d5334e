// Caller outputs (jit layer, exec room): the checks on memory a host lends for results
// (Engine::EvaluateInto, ProjectInto), and the last step of such a call, which leaves each result
// in that memory. Kernels of the common strategies write there directly; whatever else answered (a
// constant, the static tier, a take under a selection, a staged root) is copied in once.
#include <array>
#include <bit>
#include <cstring>

#include "jit/exec/executor_internal.h"
#include "kernels/bitmap.h"
#include "runtime/selection.h"

namespace rowjit::jit::internal {
namespace {

struct Range {
  const uint8_t* begin;
  const uint8_t* end;
  // Empty ranges overlap nothing.
  bool Overlaps(const Range& o) const { return begin < end && o.begin < o.end && begin < o.end && o.begin < end; }
};

// Calls `f` with every buffer an input array reads from (a dictionary's values too).
template <typename F>
void ForEachInputRange(const Array& a, F&& f) {
  auto add = [&](const BufferPtr& b) {
    if (b != nullptr && b->size() > 0) f(Range{b->data(), b->data() + b->size()});
  };
  switch (a.encoding()) {
    case Encoding::kPrimitive: {
      const auto& p = static_cast<const PrimitiveArray&>(a);
      add(p.values_buffer());
      if (p.validity().has_bitmap()) add(p.validity().bitmap());
      break;
    }
    case Encoding::kBool: {
      const auto& b = static_cast<const BoolArray&>(a);
      add(b.bits_buffer());
      if (b.validity().has_bitmap()) add(b.validity().bitmap());
      break;
    }
    case Encoding::kByteBool: {
      const auto& b = static_cast<const ByteBoolArray&>(a);
      add(b.bytes_buffer());
      if (b.validity().has_bitmap()) add(b.validity().bitmap());
      break;
    }
    case Encoding::kConstant: break;
    case Encoding::kFixedList: {
      const auto& l = static_cast<const FixedListArray&>(a);
      add(l.values_buffer());
      if (l.validity().has_bitmap()) add(l.validity().bitmap());
      break;
    }
    case Encoding::kStruct: {
      const auto& st = static_cast<const StructArray&>(a);
      for (const ArrayPtr& c : st.children()) ForEachInputRange(*c, f);
      if (st.validity().has_bitmap()) add(st.validity().bitmap());
      break;
    }
    case Encoding::kList: {
      const auto& l = static_cast<const ListArray&>(a);
      add(l.offsets_buffer());
      ForEachInputRange(*l.elements(), f);
      if (l.validity().has_bitmap()) add(l.validity().bitmap());
      break;
    }
    case Encoding::kString: {
      const auto& s = static_cast<const StringArray&>(a);
      add(s.main_buffer());
      for (const BufferPtr& d : s.data_buffers()) add(d);
      if (s.validity().has_bitmap()) add(s.validity().bitmap());
      break;
    }
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(a);
      ForEachInputRange(*d.codes(), f);
      ForEachInputRange(*d.values(), f);
      break;
    }
  }
}

std::string OutputName(size_t k, size_t outputs) {
  return outputs == 1 ? std::string("output") : fmt::format("output {}", k);
}

// Whether `capacity` bytes at `data` hold `need` bytes aligned to `align` (nothing is needed of
// an empty output). A power of two is tested with a mask: a division by a variable is a good
// part of a short call's checks (bench: `compile/ops3/prepared_write_buffers_8_rows`).
bool BufferFits(const void* data, int64_t capacity, int64_t need, int64_t align) {
  const auto address = reinterpret_cast<uintptr_t>(data);
  const auto a = static_cast<uintptr_t>(align);
  const bool aligned = std::has_single_bit(a) ? (address & (a - 1)) == 0 : a != 0 && address % a == 0;
  return capacity >= 0 && (need == 0 || (data != nullptr && capacity >= need && aligned));
}

Status CheckBuffer(const void* data, int64_t capacity, int64_t need, int64_t align, std::string_view what,
                   size_t k, size_t outputs) {
  if (BufferFits(data, capacity, need, align)) return Status::OK();
  if (capacity < 0) {
    return MakeError(ErrorCode::kInvalidInput, "{}: {} capacity {} is negative", OutputName(k, outputs), what,
                     capacity);
  }
  if (data == nullptr) {
    // Only a nullable result needs a validity buffer: the message says why this one does.
    return MakeError(ErrorCode::kInvalidInput, "{}: no {} buffer for {} bytes{}", OutputName(k, outputs), what, need,
                     what == "validity" ? " (the result may be null)" : "");
  }
  if (capacity < need) {
    return MakeError(ErrorCode::kInvalidInput, "{}: the {} buffer holds {} bytes; {} are needed",
                     OutputName(k, outputs), what, capacity, need);
  }
  return MakeError(ErrorCode::kInvalidInput, "{}: the {} buffer is not aligned to {} bytes", OutputName(k, outputs),
                   what, align);
}

// The memory output k takes: its values and (when it has one) its validity; empty ranges for none.
std::array<Range, 2> OutputRanges(const ir::Expr& e, const OutputBuffers& o, int64_t length) {
  const DataType type = e.type();
  const auto* v = static_cast<const uint8_t*>(o.values);
  const auto* b = static_cast<const uint8_t*>(o.validity);
  const int64_t values = OutputValuesBytes(type.id, length);
  const int64_t validity = type.nullable || b != nullptr ? OutputValidityBytes(length) : 0;
  return {Range{v, values > 0 ? v + values : v}, Range{b, validity > 0 ? b + validity : b}};
}

// Whether an output's memory overlaps a buffer of a column `e` reads (the others are never
// touched; a missing column is the call's to report).
bool OverlapsInputs(const ir::Expr& e, const std::array<Range, 2>& mine, std::span<const ArrayPtr> columns) {
  bool hit = false;
  for (int c : e.facts().columns) {
    const auto i = static_cast<size_t>(c);
    if (i >= columns.size() || columns[i] == nullptr) continue;
    ForEachInputRange(*columns[i], [&](const Range& in) { hit = hit || in.Overlaps(mine[0]) || in.Overlaps(mine[1]); });
  }
  return hit;
}

}  // namespace

int64_t OutputValuesBytes(TypeId type, int64_t length) {
  return type == TypeId::kBool ? kernels::NumWords(length) * 8 : length * ByteWidth(type);
}

int64_t OutputValidityBytes(int64_t length) { return kernels::NumWords(length) * 8; }

Status CheckOutputs(std::span<const ir::ExprPtr> exprs, std::span<const OutputBuffers> outs, int64_t length,
                    std::span<const ArrayPtr> columns) {
  if (outs.size() != exprs.size()) {
    return MakeError(ErrorCode::kInvalidInput, "{} output buffers for {} expressions", outs.size(), exprs.size());
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const DataType type = exprs[k]->type();
    const OutputBuffers& o = outs[k];
    const int64_t align = type.id == TypeId::kBool ? 8 : ByteWidth(type.id);
    ROWJIT_RETURN_NOT_OK(CheckBuffer(o.values, o.values_bytes, OutputValuesBytes(type.id, length), align, "values",
                                     k, outs.size()));
    const int64_t validity = type.nullable || o.validity != nullptr ? OutputValidityBytes(length) : 0;
    ROWJIT_RETURN_NOT_OK(CheckBuffer(o.validity, o.validity_bytes, validity, 8, "validity", k, outs.size()));
    const std::array<Range, 2> mine = OutputRanges(*exprs[k], o, length);
    if (mine[0].Overlaps(mine[1])) {
      return MakeError(ErrorCode::kInvalidInput, "{}: its values and validity buffers overlap", OutputName(k, outs.size()));
    }
    for (size_t j = 0; j < k; ++j) {
      const std::array<Range, 2> other = OutputRanges(*exprs[j], outs[j], length);
      for (const Range& r : mine) {
        if (r.Overlaps(other[0]) || r.Overlaps(other[1])) {
          return MakeError(ErrorCode::kInvalidInput, "{}: its buffers overlap another output's", OutputName(k, outs.size()));
        }
      }
    }
    if (OverlapsInputs(*exprs[k], mine, columns)) {
      return MakeError(ErrorCode::kInvalidInput, "{}: its buffers overlap an input's", OutputName(k, outs.size()));
    }
  }
  return Status::OK();
}

void ClearBitsPastEnd(void* bits, int64_t n) {
  auto* bitmap = static_cast<uint8_t*>(bits);
  const int64_t bytes = kernels::NumBytes(n);
  std::memset(bitmap + bytes, 0, static_cast<size_t>(OutputValidityBytes(n) - bytes));
  if (n % 8 != 0) bitmap[n / 8] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
}

namespace {

// The checks of one output's own buffers (sizes, alignment, values and validity apart), and the
// memory it takes.
bool OwnBuffersFit(const ir::Expr& expr, const OutputBuffers& o, int64_t length, std::array<Range, 2>& mine) {
  const DataType type = expr.type();
  const int64_t align = type.id == TypeId::kBool ? 8 : ByteWidth(type.id);
  const int64_t validity = type.nullable || o.validity != nullptr ? OutputValidityBytes(length) : 0;
  if (!BufferFits(o.values, o.values_bytes, OutputValuesBytes(type.id, length), align) ||
      !BufferFits(o.validity, o.validity_bytes, validity, 8)) {
    return false;
  }
  mine = OutputRanges(expr, o, length);
  return !mine[0].Overlaps(mine[1]);
}

}  // namespace

bool OutputFits(const ir::Expr& expr, const OutputBuffers& o, int64_t length, std::span<const ArrayPtr> columns) {
  std::array<Range, 2> mine;
  return OwnBuffersFit(expr, o, length, mine) && !OverlapsInputs(expr, mine, columns);
}

bool OutputFits(const ir::Expr& expr, const OutputBuffers& o, int64_t length, std::span<const ByteRange> inputs) {
  std::array<Range, 2> mine;
  if (!OwnBuffersFit(expr, o, length, mine)) return false;
  for (const ByteRange& r : inputs) {
    const auto* begin = static_cast<const uint8_t*>(r.data);
    const Range in{begin, begin + r.bytes};
    if (in.Overlaps(mine[0]) || in.Overlaps(mine[1])) return false;
  }
  return true;
}

namespace {

// The result's values as they lie in the caller's memory: already there (a kernel wrote them),
// or copied in.
Status DeliverValues(const Array& r, const OutputBuffers& out, bool& copied) {
  const int64_t n = r.length();
  auto* dst = static_cast<uint8_t*>(out.values);
  copied = true;
  switch (r.encoding()) {
    case Encoding::kPrimitive: {
      const auto& p = static_cast<const PrimitiveArray&>(r);
      copied = p.raw_values() != dst;
      if (copied) std::memmove(dst, p.raw_values(), static_cast<size_t>(n * ByteWidth(r.type().id)));
      return Status::OK();
    }
    case Encoding::kBool: {
      const auto& b = static_cast<const BoolArray&>(r);
      copied = b.bits_buffer()->data() != dst || b.offset() != 0;
      if (copied) kernels::BitmapCopy(b.bits(), dst);
      ClearBitsPastEnd(dst, n);
      return Status::OK();
    }
    case Encoding::kConstant: {
      const Scalar& s = static_cast<const ConstantArray&>(r).value();
      if (r.type().id == TypeId::kBool) {
        std::memset(dst, !s.is_null() && s.value<bool>() ? 0xff : 0, static_cast<size_t>(kernels::NumBytes(n)));
        ClearBitsPastEnd(dst, n);
        return Status::OK();
      }
      const int w = ByteWidth(r.type().id);
      const uint64_t bits = s.is_null() ? 0 : s.bits();
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * w, &bits, static_cast<size_t>(w));
      return Status::OK();
    }
    case Encoding::kString:
      return MakeError(ErrorCode::kUnsupported, "a string result is not written into caller buffers");
    case Encoding::kFixedList:
    case Encoding::kStruct:
    case Encoding::kList:
      return MakeError(ErrorCode::kUnsupported, "a nested result is not written into caller buffers");
    case Encoding::kByteBool:
    case Encoding::kDictionary: {
      ROWJIT_ASSIGN_OR_RETURN(SelectionVector all, SelectionVector::All(n));
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr flat, Take(r, all));
      if (flat->encoding() == Encoding::kByteBool || flat->encoding() == Encoding::kDictionary) {
        return MakeError(ErrorCode::kInternal, "a result of encoding {} did not flatten", EncodingName(r.encoding()));
      }
      return DeliverValues(*flat, out, copied);
    }
  }
  return MakeError(ErrorCode::kInternal, "a result of an unknown encoding");
}

}  // namespace

Result<bool> DeliverValidity(const Validity& v, const OutputBuffers& out, int64_t n) {
  if (out.validity != nullptr && n > 0) {
    auto* dst = static_cast<uint8_t*>(out.validity);
    bool in_place = v.all_valid();  // an all-valid array needs no bitmap of its own
    if (v.has_bitmap()) {
      in_place = v.bitmap()->data() == dst && v.bit_offset() == 0;
      if (!in_place) kernels::BitmapCopy(v.Span(n), dst);
    } else {
      std::memset(dst, v.all_null() ? 0 : 0xff, static_cast<size_t>(kernels::NumBytes(n)));
    }
    ClearBitsPastEnd(dst, n);
    return in_place;
  }
  if (!v.all_valid() && n > 0) {
    return MakeError(ErrorCode::kInternal, "a result with nulls and no validity buffer to hold them");
  }
  return true;
}

Result<ArrayPtr> Deliver(const ArrayPtr& result, const OutputBuffers& out, bool* copied) {
  const Array& r = *result;
  const int64_t n = r.length();
  const DataType type = r.type();
  bool values_copied = false;
  ROWJIT_RETURN_NOT_OK(DeliverValues(r, out, values_copied));
  if (copied != nullptr) *copied = *copied || (values_copied && n > 0);
  const Validity v = ValidityOf(r);
  ROWJIT_ASSIGN_OR_RETURN(const bool validity_in_place, DeliverValidity(v, out, n));
  // A kernel's result over the caller's memory already: returned as it is.
  if (!values_copied && validity_in_place && (r.encoding() == Encoding::kPrimitive || r.encoding() == Encoding::kBool)) {
    return result;
  }
  BufferPtr values = Buffer::Lend(out.values, OutputValuesBytes(type.id, n));
  Validity validity = Validity::AllValid();
  if (!v.all_valid() && n > 0) {
    ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(Buffer::Lend(out.validity, OutputValidityBytes(n)), 0, n));
  }
  if (type.id == TypeId::kBool) return BoolArray::Make(n, std::move(values), validity, 0, type.nullable);
  return PrimitiveArray::Make(type, n, std::move(values), validity);
}

}  // namespace rowjit::jit::internal
