// Column-at-a-time string helpers (ir layer): readers, validities and the exactly sized result.
#include "ir/string_columns.h"

#include <limits>

namespace rowjit::ir {

StringReader::StringReader(const Array& array) {
  switch (array.encoding()) {
    case Encoding::kString: {
      const auto& s = static_cast<const StringArray&>(array);
      switch (s.layout()) {
        case StringLayout::kOffsets32:
        case StringLayout::kOffsets64:
          kind_ = s.layout() == StringLayout::kOffsets32 ? Kind::kOffsets32 : Kind::kOffsets64;
          offsets_ = s.raw_offsets();
          data_ = s.data();
          return;
        case StringLayout::kViews:
          kind_ = Kind::kViews;
          views_ = s.raw_views();
          for (const BufferPtr& b : s.data_buffers()) buffers_.push_back(b->data());
          return;
      }
      return;
    }
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(array);
      kind_ = Kind::kDictionary;
      codes_ = d.codes()->raw_values();
      code_width_ = ByteWidth(d.codes()->type().id);
      code_signed_ = IsSignedInt(d.codes()->type().id);
      values_ = std::make_unique<StringReader>(*d.values());
      return;
    }
    case Encoding::kConstant: {
      const Scalar& v = static_cast<const ConstantArray&>(array).value();
      if (!v.is_null()) constant_ = v.str();
      return;
    }
    default: return;  // not a string array: callers check types first
  }
}

int64_t ClampedInt64(const Scalar& s) {
  if (s.is_null()) return 0;
  if (!IsSignedInt(s.type_id())) return static_cast<int64_t>(std::min<uint64_t>(s.bits(), std::numeric_limits<int64_t>::max()));
  return VisitType(s.type_id(), [&]<typename T>(std::type_identity<T>) -> int64_t {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<int64_t>(s.value<T>());
    return 0;
  });
}

IntegerReader::IntegerReader(const Array& array) {
  if (array.encoding() == Encoding::kConstant) {
    constant_ = true;
    value_ = ClampedInt64(static_cast<const ConstantArray&>(array).value());
    return;
  }
  values_.resize(static_cast<size_t>(array.length()));
  if (array.encoding() == Encoding::kPrimitive) {
    const auto& p = static_cast<const PrimitiveArray&>(array);
    VisitType(p.type().id, [&]<typename T>(std::type_identity<T>) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* v = p.values<T>();
        for (size_t i = 0; i < values_.size(); ++i) {
          if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
            values_[i] = static_cast<int64_t>(std::min<uint64_t>(v[i], std::numeric_limits<int64_t>::max()));
          } else {
            values_[i] = static_cast<int64_t>(v[i]);
          }
        }
      }
    });
    return;
  }
  for (size_t i = 0; i < values_.size(); ++i) values_[i] = ClampedInt64(array.GetScalar(static_cast<int64_t>(i)));
}

Result<Validity> RowValidity(const Array& array) {
  if (array.encoding() != Encoding::kDictionary) return rowjit::ValidityOf(array);
  // A dictionary row is null where its code is null or its value is (as GetScalar reads it).
  const auto& d = static_cast<const DictionaryArray&>(array);
  if (d.values()->NullCount() == 0) return rowjit::ValidityOf(array);
  const int64_t n = array.length();
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr bits, AllocateBitmap(n));
  for (int64_t i = 0; i < n; ++i) {
    kernels::SetBitTo(bits->mutable_data(), i, !d.IsNull(i));
  }
  return Validity::FromBitmap(std::move(bits), 0, n);
}

Result<Validity> StrictValidity(std::span<const ArrayPtr> args, int64_t length) {
  std::vector<Validity> all;
  all.reserve(args.size());
  for (const ArrayPtr& a : args) {
    ROWJIT_ASSIGN_OR_RETURN(Validity v, ir::RowValidity(*a));
    all.push_back(std::move(v));
  }
  return AndValidity(all, length);
}

Result<ArrayPtr> CopyStrings(const Array& array, DataType type, int64_t length, const std::shared_ptr<MemoryPool>& pool) {
  const StringReader in(array);
  ROWJIT_ASSIGN_OR_RETURN(Validity valid, RowValidity(array));
  return ProduceStrings(
      type, length, std::move(valid), pool, [&](int64_t i) { return static_cast<int64_t>(in.Get(i).size()); },
      [&](int64_t i, uint8_t* out) {
        const std::string_view v = in.Get(i);
        CopyString(v, out);
        return static_cast<int64_t>(v.size());
      });
}

Result<StringResultBuffers> StringResultBuffers::Make(int64_t length, int64_t total_bytes,
                                                      const std::shared_ptr<MemoryPool>& pool) {
  StringResultBuffers b;
  b.wide = total_bytes > std::numeric_limits<int32_t>::max();
  ROWJIT_ASSIGN_OR_RETURN(b.offsets, Buffer::AllocateForOverwrite((length + 1) * (b.wide ? 8 : 4), pool));
  ROWJIT_ASSIGN_OR_RETURN(b.data, Buffer::AllocateForOverwrite(total_bytes, pool));
  return b;
}

Result<ArrayPtr> StringResultBuffers::Finish(DataType type, int64_t length, Validity validity) {
  ROWJIT_ASSIGN_OR_RETURN(auto array, StringArray::MakeOffsets(type, length,
                                                               wide ? StringLayout::kOffsets64 : StringLayout::kOffsets32,
                                                               std::move(offsets), std::move(data), std::move(validity)));
  return ArrayPtr(std::move(array));
}

}  // namespace rowjit::ir
