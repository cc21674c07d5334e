// Selections and Take (runtime layer).
#include "runtime/selection.h"

#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "kernels/filter.h"
#include "runtime/string_array.h"

namespace rowjit {

Result<BufferPtr> SelectionVector::Room(int64_t rows, const std::shared_ptr<MemoryPool>& pool) {
  return Buffer::AllocateForOverwrite((rows + kernels::kIndexSlack) * static_cast<int64_t>(sizeof(uint32_t)), pool);
}

Result<SelectionVector> SelectionVector::FromIndices(std::span<const uint32_t> rows, int64_t batch_length) {
  if (batch_length < 0 || batch_length > kMaxBatchLength) {
    return MakeError(ErrorCode::kInvalidInput, "selection: batch length {} outside [0, 2^32]", batch_length);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= batch_length) {
      return MakeError(ErrorCode::kInvalidInput, "selection: index {} (at {}) is not a row of a batch of {}",
                       rows[i], i, batch_length);
    }
    if (i > 0 && rows[i] <= rows[i - 1]) {
      return MakeError(ErrorCode::kInvalidInput, "selection: indices must ascend ({} after {}, at {})", rows[i],
                       rows[i - 1], i);
    }
  }
  const auto n = static_cast<int64_t>(rows.size());
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr buffer, Room(n, nullptr));
  if (n > 0) std::memcpy(buffer->mutable_data(), rows.data(), rows.size() * sizeof(uint32_t));
  return SelectionVector(std::move(buffer), n, batch_length);
}

Result<SelectionVector> SelectionVector::FromBitmap(kernels::BitSpan bits, std::shared_ptr<MemoryPool> pool) {
  if (bits.length < 0 || bits.length > kMaxBatchLength) {
    return MakeError(ErrorCode::kInvalidInput, "selection: batch length {} outside [0, 2^32]", bits.length);
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr buffer, Room(kernels::CountSetBits(bits), pool));
  const int64_t n = kernels::SetBitIndices(bits, 0, reinterpret_cast<uint32_t*>(buffer->mutable_data()));
  return SelectionVector(std::move(buffer), n, bits.length);
}

Result<SelectionVector> SelectionVector::All(int64_t batch_length, std::shared_ptr<MemoryPool> pool) {
  if (batch_length < 0 || batch_length > kMaxBatchLength) {
    return MakeError(ErrorCode::kInvalidInput, "selection: batch length {} outside [0, 2^32]", batch_length);
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr buffer, Room(batch_length, pool));
  auto* out = reinterpret_cast<uint32_t*>(buffer->mutable_data());
  for (int64_t i = 0; i < batch_length; ++i) out[i] = static_cast<uint32_t>(i);
  return SelectionVector(std::move(buffer), batch_length, batch_length);
}

Result<BufferPtr> SelectionVector::ToBitmap(std::shared_ptr<MemoryPool> pool) const {
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::Allocate(kernels::NumBytes(batch_length_), std::move(pool)));
  for (int64_t i = 0; i < size_; ++i) kernels::SetBitTo(bits->mutable_data(), (*this)[i], true);
  return bits;
}

Result<SelectionVector> SelectionVector::Compose(const SelectionVector& inner, std::shared_ptr<MemoryPool> pool) const {
  if (inner.batch_length() != size_) {
    return MakeError(ErrorCode::kInvalidInput, "selection: composing a selection of {} rows over {} selected",
                     inner.batch_length(), size_);
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr buffer, Room(inner.size(), pool));
  kernels::Gather(data(), inner.data(), inner.size(), 4, buffer->mutable_data());
  return SelectionVector(std::move(buffer), inner.size(), batch_length_);
}

namespace {

Result<Validity> TakeValidity(const Validity& v, const SelectionVector& s, const std::shared_ptr<MemoryPool>& pool) {
  if (!v.has_bitmap()) return v;
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::AllocateForOverwrite(kernels::NumBytes(s.size()), pool));
  kernels::GatherBits(v.Span(s.batch_length()), s.data(), s.size(), bits->mutable_data());
  return Validity::FromBitmap(std::move(bits), 0, s.size());
}

Result<ArrayPtr> TakePrimitive(const PrimitiveArray& a, const SelectionVector& s, const std::shared_ptr<MemoryPool>& pool) {
  const int width = ByteWidth(a.type().id);
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateForOverwrite(s.size() * width, pool));
  if (width == 16) {  // decimal128: no gather kernel has 16-byte rows
    const auto* from = static_cast<const uint8_t*>(a.raw_values());
    for (int64_t i = 0; i < s.size(); ++i) std::memcpy(values->mutable_data() + 16 * i, from + 16 * int64_t{s.data()[i]}, 16);
  } else {
    kernels::Gather(a.raw_values(), s.data(), s.size(), width, values->mutable_data());
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, TakeValidity(a.validity(), s, pool));
  return PrimitiveArray::Make(a.type(), s.size(), std::move(values), std::move(validity));
}

// The selected rows' elements (ascending, as the rows are), taken from the child, under new
// offsets of the same width.
Result<ArrayPtr> TakeList(const ListArray& list, const SelectionVector& s, const std::shared_ptr<MemoryPool>& pool) {
  std::vector<uint32_t> elements;
  std::vector<int64_t> offsets{0};
  offsets.reserve(static_cast<size_t>(s.size()) + 1);
  for (int64_t i = 0; i < s.size(); ++i) {
    const int64_t row = s.data()[i];
    if (!list.IsNull(row)) {
      for (int64_t e = list.Start(row); e < list.End(row); ++e) elements.push_back(static_cast<uint32_t>(e));
    }
    offsets.push_back(static_cast<int64_t>(elements.size()));
  }
  if (!list.large() && offsets.back() > std::numeric_limits<int32_t>::max()) {
    return MakeError(ErrorCode::kUnsupported, "take: more than 2^31 list elements selected");
  }
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector picked, SelectionVector::FromIndices(elements, list.elements()->length()));
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr child, Take(*list.elements(), picked, pool));
  const int64_t width = list.large() ? 8 : 4;
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr out, Buffer::AllocateForOverwrite(static_cast<int64_t>(offsets.size()) * width, pool));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (list.large()) {
      reinterpret_cast<int64_t*>(out->mutable_data())[i] = offsets[i];
    } else {
      reinterpret_cast<int32_t*>(out->mutable_data())[i] = static_cast<int32_t>(offsets[i]);
    }
  }
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, TakeValidity(list.validity(), s, pool));
  ROWJIT_ASSIGN_OR_RETURN(auto taken, ListArray::Make(list.type(), s.size(), list.large(), std::move(out), std::move(child),
                                                      std::move(validity)));
  return ArrayPtr(std::move(taken));
}

}  // namespace

Result<ArrayPtr> Take(const Array& array, const SelectionVector& s, std::shared_ptr<MemoryPool> pool) {
  if (s.batch_length() != array.length()) {
    return MakeError(ErrorCode::kInvalidInput, "take: a selection of a batch of {} rows over an array of {}",
                     s.batch_length(), array.length());
  }
  switch (array.encoding()) {
    case Encoding::kPrimitive:
      return TakePrimitive(static_cast<const PrimitiveArray&>(array), s, pool);
    case Encoding::kBool: {
      const auto& b = static_cast<const BoolArray&>(array);
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::AllocateForOverwrite(kernels::NumBytes(s.size()), pool));
      kernels::GatherBits(b.bits(), s.data(), s.size(), bits->mutable_data());
      ROWJIT_ASSIGN_OR_RETURN(Validity validity, TakeValidity(b.validity(), s, pool));
      return BoolArray::Make(s.size(), std::move(bits), std::move(validity), 0, b.type().nullable);
    }
    case Encoding::kByteBool: {
      const auto& b = static_cast<const ByteBoolArray&>(array);
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr bytes, Buffer::AllocateForOverwrite(s.size(), pool));
      kernels::Gather(b.bytes(), s.data(), s.size(), 1, bytes->mutable_data());
      ROWJIT_ASSIGN_OR_RETURN(Validity validity, TakeValidity(b.validity(), s, pool));
      return ByteBoolArray::Make(s.size(), std::move(bytes), std::move(validity), 0, b.type().nullable);
    }
    case Encoding::kConstant: {
      const auto& c = static_cast<const ConstantArray&>(array);
      return ConstantArray::Make(c.value(), s.size(), c.type().nullable);
    }
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(array);
      ROWJIT_ASSIGN_OR_RETURN(ArrayPtr codes, TakePrimitive(*d.codes(), s, pool));
      return DictionaryArray::Make(std::static_pointer_cast<const PrimitiveArray>(codes), d.values());
    }
    case Encoding::kStruct: {  // each field's selected rows
      const auto& st = static_cast<const StructArray&>(array);
      std::vector<ArrayPtr> children;
      for (const ArrayPtr& c : st.children()) {
        ROWJIT_ASSIGN_OR_RETURN(ArrayPtr taken, Take(*c, s, pool));
        children.push_back(std::move(taken));
      }
      ROWJIT_ASSIGN_OR_RETURN(Validity validity, TakeValidity(st.validity(), s, pool));
      ROWJIT_ASSIGN_OR_RETURN(auto taken, StructArray::Make(st.type(), s.size(), std::move(children), std::move(validity)));
      return ArrayPtr(std::move(taken));
    }
    case Encoding::kFixedList: {  // the selected rows' elements, copied
      const auto& list = static_cast<const FixedListArray&>(array);
      const int64_t row = list.type().ListRowBytes();
      ROWJIT_ASSIGN_OR_RETURN(BufferPtr values, Buffer::AllocateForOverwrite(s.size() * row, pool));
      for (int64_t i = 0; i < s.size(); ++i) {
        std::memcpy(values->mutable_data() + i * row, list.raw_values() + int64_t{s.data()[i]} * row, static_cast<size_t>(row));
      }
      ROWJIT_ASSIGN_OR_RETURN(Validity validity, TakeValidity(list.validity(), s, pool));
      ROWJIT_ASSIGN_OR_RETURN(auto taken, FixedListArray::Make(list.type(), s.size(), std::move(values), std::move(validity)));
      return ArrayPtr(std::move(taken));
    }
    case Encoding::kList: return TakeList(static_cast<const ListArray&>(array), s, pool);
    case Encoding::kString: {  // the selected rows' bytes, copied into the same layout
      const auto& str = static_cast<const StringArray&>(array);
      std::vector<std::optional<std::string_view>> rows;
      rows.reserve(static_cast<size_t>(s.size()));
      for (int64_t i = 0; i < s.size(); ++i) rows.push_back(StringAt(str, s.data()[i]));
      ROWJIT_ASSIGN_OR_RETURN(auto taken, MakeStringArray(str.type(), str.layout(), rows));
      return ArrayPtr(std::move(taken));
    }
  }
  return MakeError(ErrorCode::kInternal, "take: unknown encoding");
}

Result<ArrayPtr> SelectView(const ArrayPtr& array, const SelectionVector& selection, std::shared_ptr<MemoryPool> pool) {
  const TypeId type = array->type().id;
  if (array->encoding() != Encoding::kPrimitive || ByteWidth(type) < 4 || selection.empty() ||
      selection.batch_length() != array->length()) {
    return Take(*array, selection, std::move(pool));
  }
  const auto& p = static_cast<const PrimitiveArray&>(*array);
  Validity valid = Validity::AllValid();
  if (p.validity().all_null()) {
    valid = Validity::AllNull();
  } else if (p.validity().has_bitmap()) {
    ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::AllocateForOverwrite(kernels::NumBytes(selection.size()), pool));
    kernels::GatherBits(p.validity().Span(p.length()), selection.data(), selection.size(), bits->mutable_data());
    ROWJIT_ASSIGN_OR_RETURN(valid, Validity::FromBitmap(std::move(bits), 0, selection.size()));
  }
  BufferPtr indices = Buffer::Borrow(selection.data(), selection.size() * 4, selection.buffer());
  ROWJIT_ASSIGN_OR_RETURN(auto codes, PrimitiveArray::Make(DataType(TypeId::kU32, array->type().nullable),
                                                           selection.size(), std::move(indices), std::move(valid)));
  // The column's whole type (a decimal's precision and scale, a temporal unit and zone), which
  // the dictionary takes from its values: the storage alone would not bind.
  ROWJIT_ASSIGN_OR_RETURN(auto values, PrimitiveArray::Make(array->type().WithNullable(false), p.length(),
                                                            p.values_buffer(), Validity::AllValid(), p.offset()));
  ROWJIT_ASSIGN_OR_RETURN(auto dict, DictionaryArray::Make(std::move(codes), std::move(values)));
  return ArrayPtr(std::move(dict));
}

}  // namespace rowjit
