// Caller outputs (jit layer): the checks on memory a host lends for results (Engine::EvaluateInto,
// ProjectInto), and the last step of such a call, which leaves each result in that memory.
// Kernels of the common strategies write there directly; whatever else answered (a constant, the
// static tier, a take under a selection, a staged root) is copied in once.
#include <algorithm>
#include <cstring>

#include "jit/engine_internal.h"
#include "kernels/bitmap.h"

namespace rowjit::jit::internal {
namespace {

struct Range {
  const uint8_t* begin;
  const uint8_t* end;
  bool Overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
};

void AddBuffer(const BufferPtr& b, std::vector<Range>& out) {
  if (b != nullptr && b->size() > 0) out.push_back({b->data(), b->data() + b->size()});
}

// Every buffer an input array reads from (a dictionary's values too).
void InputRanges(const Array& a, std::vector<Range>& out) {
  const Validity v = ValidityOf(a);
  if (v.has_bitmap()) AddBuffer(v.bitmap(), out);
  switch (a.encoding()) {
    case Encoding::kPrimitive: AddBuffer(static_cast<const PrimitiveArray&>(a).values_buffer(), out); break;
    case Encoding::kBool: AddBuffer(static_cast<const BoolArray&>(a).bits_buffer(), out); break;
    case Encoding::kByteBool: AddBuffer(static_cast<const ByteBoolArray&>(a).bytes_buffer(), out); break;
    case Encoding::kConstant: break;
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(a);
      InputRanges(*d.codes(), out);
      InputRanges(*d.values(), out);
      break;
    }
  }
}

Status CheckBuffer(const void* data, int64_t capacity, int64_t need, int64_t align, std::string_view what,
                   std::string_view output) {
  if (capacity < 0) return MakeError(ErrorCode::kInvalidInput, "{}: {} capacity {} is negative", output, what, capacity);
  if (need == 0) return Status::OK();
  if (data == nullptr) return MakeError(ErrorCode::kInvalidInput, "{}: no {} buffer for {} bytes", output, what, need);
  if (capacity < need) {
    return MakeError(ErrorCode::kInvalidInput, "{}: the {} buffer holds {} bytes; {} are needed", output, what,
                     capacity, need);
  }
  if (reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(align) != 0) {
    return MakeError(ErrorCode::kInvalidInput, "{}: the {} buffer is not aligned to {} bytes", output, what, align);
  }
  return Status::OK();
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
  std::vector<Range> taken;  // the outputs' ranges so far, then the inputs'
  std::vector<Range> inputs;
  for (const ArrayPtr& c : columns) {
    if (c != nullptr) InputRanges(*c, inputs);
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::string name = outs.size() == 1 ? std::string("output") : fmt::format("output {}", k);
    const DataType type = exprs[k]->type();
    const OutputBuffers& o = outs[k];
    const int64_t values = OutputValuesBytes(type.id, length);
    const int64_t align = type.id == TypeId::kBool ? 8 : ByteWidth(type.id);
    ROWJIT_RETURN_NOT_OK(CheckBuffer(o.values, o.values_bytes, values, align, "values", name));
    const int64_t validity = type.nullable || o.validity != nullptr ? OutputValidityBytes(length) : 0;
    ROWJIT_RETURN_NOT_OK(CheckBuffer(o.validity, o.validity_bytes, validity, 8, "validity", name));
    std::vector<Range> mine;
    if (values > 0) mine.push_back({static_cast<const uint8_t*>(o.values), static_cast<const uint8_t*>(o.values) + values});
    if (validity > 0) {
      const auto* v = static_cast<const uint8_t*>(o.validity);
      mine.push_back({v, v + validity});
    }
    if (mine.size() == 2 && mine[0].Overlaps(mine[1])) {
      return MakeError(ErrorCode::kInvalidInput, "{}: its values and validity buffers overlap", name);
    }
    for (const Range& r : mine) {
      const auto hit = [&](const Range& other) { return r.Overlaps(other); };
      if (std::any_of(inputs.begin(), inputs.end(), hit)) {
        return MakeError(ErrorCode::kInvalidInput, "{}: its buffers overlap an input's", name);
      }
      if (std::any_of(taken.begin(), taken.end(), hit)) {
        return MakeError(ErrorCode::kInvalidInput, "{}: its buffers overlap another output's", name);
      }
    }
    taken.insert(taken.end(), mine.begin(), mine.end());
  }
  return Status::OK();
}

namespace {

// Zeroes the bits of a bitmap of `n` rows from row n to the end of its last 64-bit word, as a
// kernel leaves them.
void ClearPastEnd(uint8_t* bitmap, int64_t n) {
  const int64_t bytes = kernels::NumBytes(n);
  std::memset(bitmap + bytes, 0, static_cast<size_t>(OutputValidityBytes(n) - bytes));
  if (n % 8 != 0) bitmap[n / 8] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
}

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
      ClearPastEnd(dst, n);
      return Status::OK();
    }
    case Encoding::kConstant: {
      const Scalar& s = static_cast<const ConstantArray&>(r).value();
      if (r.type().id == TypeId::kBool) {
        std::memset(dst, !s.is_null() && s.value<bool>() ? 0xff : 0, static_cast<size_t>(kernels::NumBytes(n)));
        ClearPastEnd(dst, n);
        return Status::OK();
      }
      const int w = ByteWidth(r.type().id);
      const uint64_t bits = s.is_null() ? 0 : s.bits();
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * w, &bits, static_cast<size_t>(w));
      return Status::OK();
    }
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

Result<ArrayPtr> Deliver(const Array& result, const OutputBuffers& out, bool* copied) {
  const int64_t n = result.length();
  const DataType type = result.type();
  bool values_copied = false;
  ROWJIT_RETURN_NOT_OK(DeliverValues(result, out, values_copied));
  if (copied != nullptr) *copied = *copied || (values_copied && n > 0);
  BufferPtr values = Buffer::Lend(out.values, OutputValuesBytes(type.id, n));
  Validity validity = Validity::AllValid();
  const Validity v = ValidityOf(result);
  if (out.validity != nullptr && n > 0) {
    auto* dst = static_cast<uint8_t*>(out.validity);
    if (v.has_bitmap()) {
      if (v.bitmap()->data() != dst || v.bit_offset() != 0) kernels::BitmapCopy(v.Span(n), dst);
    } else {
      std::memset(dst, v.all_null() ? 0 : 0xff, static_cast<size_t>(kernels::NumBytes(n)));
    }
    ClearPastEnd(dst, n);
    if (!v.all_valid()) {
      BufferPtr bits = Buffer::Lend(out.validity, OutputValidityBytes(n));
      ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(std::move(bits), 0, n));
    }
  } else if (!v.all_valid() && n > 0) {
    return MakeError(ErrorCode::kInternal, "a result with nulls and no validity buffer to hold them");
  }
  if (type.id == TypeId::kBool) return BoolArray::Make(n, std::move(values), validity, 0, type.nullable);
  return PrimitiveArray::Make(type, n, std::move(values), validity);
}

}  // namespace rowjit::jit::internal
