// String arrays: construction with every check a reader relies on, slicing, rows as scalars
// (runtime layer).
#include "runtime/string_array.h"

#include <cstring>
#include <limits>

#include "runtime/array_internal.h"

namespace rowjit {

namespace {

constexpr uint8_t kNoBytes[kBufferAlignment] = {};

Status CheckStringType(DataType type) {
  if (!IsString(type.id)) {
    return MakeError(ErrorCode::kTypeError, "a string array holds utf8 or binary, not {}",
                     type.ToString());
  }
  return Status::OK();
}

template <typename O>
O LoadOffset(const uint8_t* p, int64_t i) {
  O v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(O)), sizeof(O));
  return v;
}

// offsets[offset .. offset + length] non-negative, non-decreasing and at most `data_size`.
template <typename O>
Status CheckOffsets(const uint8_t* offsets, int64_t offset, int64_t length, int64_t data_size) {
  O prev = LoadOffset<O>(offsets, offset);
  if (prev < 0) return MakeError(ErrorCode::kInvalidInput, "string offset {} is negative", int64_t(prev));
  for (int64_t i = 1; i <= length; ++i) {
    const O next = LoadOffset<O>(offsets, offset + i);
    if (next < prev) {
      return MakeError(ErrorCode::kInvalidInput,
                       "string offsets decrease at row {} ({} after {})", i - 1, int64_t(next),
                       int64_t(prev));
    }
    prev = next;
  }
  if (static_cast<int64_t>(prev) > data_size) {
    return MakeError(ErrorCode::kInvalidInput,
                     "string offset {} is past the end of the {}-byte data buffer",
                     int64_t(prev), data_size);
  }
  return Status::OK();
}

struct View {
  int32_t length;
  uint32_t prefix;
  int32_t buffer;
  int32_t offset;
};
View LoadView(const uint8_t* views, int64_t i) {
  View v;
  std::memcpy(&v, views + i * kViewBytes, sizeof(View));
  return v;
}

Status CheckView(const View& v, int64_t row, const std::vector<BufferPtr>& buffers) {
  if (v.length < 0) {
    return MakeError(ErrorCode::kInvalidInput, "string view of row {} has length {}", row, v.length);
  }
  if (v.length <= kViewInlineMax) return Status::OK();
  if (v.buffer < 0 || static_cast<size_t>(v.buffer) >= buffers.size() || buffers[v.buffer] == nullptr) {
    return MakeError(ErrorCode::kInvalidInput,
                     "string view of row {} names data buffer {} of {}", row, v.buffer,
                     buffers.size());
  }
  const BufferPtr& data = buffers[static_cast<size_t>(v.buffer)];
  if (v.offset < 0 || int64_t{v.offset} + v.length > data->size()) {
    return MakeError(ErrorCode::kInvalidInput,
                     "string view of row {} reads bytes [{}, {}) of a {}-byte data buffer", row,
                     v.offset, int64_t{v.offset} + v.length, data->size());
  }
  if (std::memcmp(&v.prefix, data->data() + v.offset, 4) != 0) {
    return MakeError(ErrorCode::kInvalidInput,
                     "string view of row {} has a prefix that differs from its bytes", row);
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const StringArray>> StringArray::MakeOffsets(
    DataType type, int64_t length, StringLayout layout, BufferPtr offsets, BufferPtr data,
    Validity validity, int64_t offset) {
  ROWJIT_RETURN_NOT_OK(CheckStringType(type));
  ROWJIT_RETURN_NOT_OK(internal::CheckExtent(offset, length));
  if (layout == StringLayout::kViews) {
    return MakeError(ErrorCode::kInvalidInput, "MakeOffsets takes an offsets layout");
  }
  const int64_t width = layout == StringLayout::kOffsets32 ? 4 : 8;
  if (offsets == nullptr || offsets->size() < (offset + length + 1) * width) {
    return MakeError(ErrorCode::kInvalidInput,
                     "string offsets buffer of {} bytes is shorter than the {} offsets {} rows "
                     "at offset {} need",
                     offsets ? offsets->size() : 0, offset + length + 1, length, offset);
  }
  const int64_t data_size = data ? data->size() : 0;
  ROWJIT_RETURN_NOT_OK(width == 4 ? CheckOffsets<int32_t>(offsets->data(), offset, length, data_size)
                                  : CheckOffsets<int64_t>(offsets->data(), offset, length, data_size));
  ROWJIT_RETURN_NOT_OK(internal::CheckValidity(validity, length, type.nullable));
  std::vector<BufferPtr> data_buffers;
  data_buffers.push_back(std::move(data));
  return std::make_shared<const StringArray>(PrivateTag{}, type, length, layout, std::move(offsets),
                                             std::move(data_buffers), std::move(validity), offset);
}

Result<std::shared_ptr<const StringArray>> StringArray::MakeViews(
    DataType type, int64_t length, BufferPtr views, std::vector<BufferPtr> buffers,
    Validity validity, int64_t offset) {
  ROWJIT_RETURN_NOT_OK(CheckStringType(type));
  ROWJIT_RETURN_NOT_OK(internal::CheckExtent(offset, length));
  if (views == nullptr || views->size() < (offset + length) * kViewBytes) {
    return MakeError(ErrorCode::kInvalidInput,
                     "string views buffer of {} bytes is shorter than the {} views it claims",
                     views ? views->size() : 0, offset + length);
  }
  for (int64_t i = 0; i < length; ++i) {
    ROWJIT_RETURN_NOT_OK(CheckView(LoadView(views->data(), offset + i), i, buffers));
  }
  ROWJIT_RETURN_NOT_OK(internal::CheckValidity(validity, length, type.nullable));
  return std::make_shared<const StringArray>(PrivateTag{}, type, length, StringLayout::kViews,
                                             std::move(views), std::move(buffers),
                                             std::move(validity), offset);
}

const uint8_t* StringArray::raw_offsets() const {
  return main_->data() + offset_ * (layout_ == StringLayout::kOffsets32 ? 4 : 8);
}

const uint8_t* StringArray::data() const {
  return data_.empty() || data_[0] == nullptr ? kNoBytes : data_[0]->data();
}

std::string_view StringArray::Value(int64_t i) const {
  const auto bytes = [](const uint8_t* p, int64_t n) {
    return std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
  };
  switch (layout_) {
    case StringLayout::kOffsets32: {
      const int32_t start = LoadOffset<int32_t>(raw_offsets(), i);
      return bytes(data() + start, LoadOffset<int32_t>(raw_offsets(), i + 1) - start);
    }
    case StringLayout::kOffsets64: {
      const int64_t start = LoadOffset<int64_t>(raw_offsets(), i);
      return bytes(data() + start, LoadOffset<int64_t>(raw_offsets(), i + 1) - start);
    }
    case StringLayout::kViews: {
      const View v = LoadView(raw_views(), i);
      if (v.length <= kViewInlineMax) return bytes(raw_views() + i * kViewBytes + 4, v.length);
      return bytes(data_[static_cast<size_t>(v.buffer)]->data() + v.offset, v.length);
    }
  }
  return {};
}

int64_t StringArray::ValueBytes() const {
  if (layout_ == StringLayout::kOffsets32) {
    return LoadOffset<int32_t>(raw_offsets(), length()) - LoadOffset<int32_t>(raw_offsets(), 0);
  }
  if (layout_ == StringLayout::kOffsets64) {
    return LoadOffset<int64_t>(raw_offsets(), length()) - LoadOffset<int64_t>(raw_offsets(), 0);
  }
  int64_t total = 0;
  for (int64_t i = 0; i < length(); ++i) total += LoadView(raw_views(), i).length;
  return total;
}

Scalar StringArray::GetScalar(int64_t i) const {
  if (IsNull(i)) return Scalar::Null(type().id);
  return Scalar::String(Value(i), type().id);
}

ArrayPtr StringArray::SliceUnchecked(int64_t offset, int64_t length) const {
  return std::make_shared<const StringArray>(PrivateTag{}, type(), length, layout_, main_, data_,
                                             validity_.Slice(offset), offset_ + offset);
}

namespace {

// Views of `rows`, long strings packed into one data buffer.
Result<std::shared_ptr<const StringArray>> BuildViews(DataType type,
                                                      const std::vector<std::optional<std::string_view>>& rows,
                                                      Validity validity) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t long_bytes = 0;
  for (const auto& r : rows) {
    if (r && static_cast<int64_t>(r->size()) > kViewInlineMax) long_bytes += static_cast<int64_t>(r->size());
  }
  ROWJIT_ASSIGN_OR_RETURN(auto views, Buffer::Allocate(n * kViewBytes));
  ROWJIT_ASSIGN_OR_RETURN(auto data, Buffer::Allocate(long_bytes));
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* v = views->mutable_data() + i * kViewBytes;
    const std::string_view s = rows[static_cast<size_t>(i)].value_or(std::string_view());
    const int32_t len = static_cast<int32_t>(s.size());
    std::memcpy(v, &len, 4);
    if (len <= kViewInlineMax) {
      if (!s.empty()) std::memcpy(v + 4, s.data(), s.size());  // an empty view may have no data
      continue;
    }
    const int32_t buffer = 0, offset = static_cast<int32_t>(at);
    std::memcpy(v + 4, s.data(), 4);
    std::memcpy(v + 8, &buffer, 4);
    std::memcpy(v + 12, &offset, 4);
    std::memcpy(data->mutable_data() + at, s.data(), s.size());
    at += len;
  }
  std::vector<BufferPtr> buffers;
  if (long_bytes > 0) buffers.push_back(std::move(data));
  return StringArray::MakeViews(type, n, std::move(views), std::move(buffers), std::move(validity));
}

template <typename O>
Result<std::shared_ptr<const StringArray>> BuildOffsets(DataType type, StringLayout layout,
                                                        const std::vector<std::optional<std::string_view>>& rows,
                                                        Validity validity) {
  const int64_t n = static_cast<int64_t>(rows.size());
  int64_t bytes = 0;
  for (const auto& r : rows) bytes += r ? static_cast<int64_t>(r->size()) : 0;
  if (bytes > std::numeric_limits<O>::max()) {
    return MakeError(ErrorCode::kInvalidInput, "{} bytes of strings do not fit {} offsets", bytes,
                     StringLayoutName(layout));
  }
  ROWJIT_ASSIGN_OR_RETURN(auto offsets, Buffer::Allocate((n + 1) * static_cast<int64_t>(sizeof(O))));
  ROWJIT_ASSIGN_OR_RETURN(auto data, Buffer::Allocate(bytes));
  O at = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(offsets->mutable_data() + i * static_cast<int64_t>(sizeof(O)), &at, sizeof(O));
    if (const auto& r = rows[static_cast<size_t>(i)]; r && !r->empty()) {
      std::memcpy(data->mutable_data() + at, r->data(), r->size());
      at = static_cast<O>(at + static_cast<O>(r->size()));
    }
  }
  std::memcpy(offsets->mutable_data() + n * static_cast<int64_t>(sizeof(O)), &at, sizeof(O));
  return StringArray::MakeOffsets(type, n, layout, std::move(offsets), std::move(data),
                                  std::move(validity));
}

}  // namespace

Result<std::shared_ptr<const StringArray>> MakeStringArray(
    DataType type, StringLayout layout, const std::vector<std::optional<std::string_view>>& rows) {
  ROWJIT_RETURN_NOT_OK(CheckStringType(type));
  const int64_t n = static_cast<int64_t>(rows.size());
  Validity validity = Validity::AllValid();
  int64_t nulls = 0;
  for (const auto& r : rows) nulls += !r.has_value();
  if (nulls > 0) {
    ROWJIT_ASSIGN_OR_RETURN(auto bits, Buffer::Allocate(kernels::NumBytes(n)));
    uint8_t* bytes = bits->mutable_data();
    for (int64_t i = 0; i < n; ++i) {
      if (rows[static_cast<size_t>(i)]) bytes[i / 8] = static_cast<uint8_t>(bytes[i / 8] | (1u << (i % 8)));
    }
    ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(std::move(bits), 0, n));
  }
  switch (layout) {
    case StringLayout::kOffsets32: return BuildOffsets<int32_t>(type, layout, rows, std::move(validity));
    case StringLayout::kOffsets64: return BuildOffsets<int64_t>(type, layout, rows, std::move(validity));
    case StringLayout::kViews: return BuildViews(type, rows, std::move(validity));
  }
  return MakeError(ErrorCode::kInvalidInput, "unknown string layout");
}

std::optional<std::string_view> StringAt(const Array& array, int64_t i) {
  if (!IsString(array.type().id) || array.IsNull(i)) return std::nullopt;
  switch (array.encoding()) {
    case Encoding::kString: return static_cast<const StringArray&>(array).Value(i);
    case Encoding::kConstant: return static_cast<const ConstantArray&>(array).value().str();
    case Encoding::kDictionary: {
      const auto& d = static_cast<const DictionaryArray&>(array);
      return StringAt(*d.values(), d.Code(i));
    }
    default: return std::nullopt;
  }
}

}  // namespace rowjit
