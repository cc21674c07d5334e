// Strings and bytes in the three Arrow layouts: 32-bit offsets (utf8, binary), 64-bit offsets
// (large_utf8, large_binary) and 16-byte views (utf8_view, binary_view), zero-copy over buffers
// that may come from anyone (runtime layer). Everything a reader will dereference is checked
// when the array is made, so no later read can leave a buffer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/array.h"

namespace rowjit {

// One 16-byte view (Arrow's binary view layout): the length; then up to 12 bytes inline, or the
// first 4 bytes (the prefix), the index of a data buffer and the offset in it.
inline constexpr int64_t kViewBytes = 16;
inline constexpr int64_t kViewInlineMax = 12;

class StringArray final : public Array {
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

 public:
  StringArray(PrivateTag, DataType type, int64_t length, StringLayout layout, BufferPtr main,
              std::vector<BufferPtr> data, Validity validity, int64_t offset)
      : Array(Encoding::kString, type, length), layout_(layout), main_(std::move(main)),
        data_(std::move(data)), validity_(std::move(validity)), offset_(offset) {}

  // Offsets layouts: `offsets` holds offset + length + 1 offsets of the layout's width, each
  // rows' bytes are data[offsets[i], offsets[i + 1]). Checked: the buffer sizes, offsets
  // non-negative, non-decreasing and inside `data` (null rows too, as Arrow requires). `data`
  // may be null when every string is empty.
  static Result<std::shared_ptr<const StringArray>> MakeOffsets(DataType type, int64_t length,
                                                                StringLayout layout,
                                                                BufferPtr offsets, BufferPtr data,
                                                                Validity validity,
                                                                int64_t offset = 0);
  // The views layout: `views` holds offset + length views; `buffers` are the variadic data
  // buffers. Checked for every row (null rows too: a reader never tests validity first):
  // lengths non-negative, out-of-line rows' buffer index and byte range inside the buffers, and
  // their prefix equal to the first bytes it stands for.
  static Result<std::shared_ptr<const StringArray>> MakeViews(DataType type, int64_t length,
                                                              BufferPtr views,
                                                              std::vector<BufferPtr> buffers,
                                                              Validity validity,
                                                              int64_t offset = 0);

  StringLayout layout() const { return layout_; }
  int64_t offset() const { return offset_; }
  const Validity& validity() const { return validity_; }
  // Offsets layouts: the offsets buffer and the data buffer (or null). Views: the views buffer,
  // and the variadic data buffers.
  const BufferPtr& main_buffer() const { return main_; }
  const std::vector<BufferPtr>& data_buffers() const { return data_; }
  // Offsets layouts: the address of row 0's start offset, and the data (never null: an empty
  // data buffer reads as a static empty range).
  const uint8_t* raw_offsets() const;
  const uint8_t* data() const;
  // Views layout: the address of row 0's view.
  const uint8_t* raw_views() const { return main_->data() + offset_ * kViewBytes; }
  // The total bytes of the rows' strings (offsets layouts: one subtraction; views: a pass).
  int64_t ValueBytes() const;

  // Row i's bytes (whatever its validity says).
  std::string_view Value(int64_t i) const;

  bool IsNull(int64_t i) const override { return !validity_.IsValid(i); }
  int64_t NullCount() const override { return CachedNullCount(validity_); }
  Scalar GetScalar(int64_t i) const override;

 private:
  ArrayPtr SliceUnchecked(int64_t offset, int64_t length) const override;

  StringLayout layout_;
  BufferPtr main_;
  std::vector<BufferPtr> data_;
  Validity validity_;
  int64_t offset_;
};

// A string array of `type` in `layout` holding `rows` (nullopt = null), in fresh buffers.
Result<std::shared_ptr<const StringArray>> MakeStringArray(
    DataType type, StringLayout layout, const std::vector<std::optional<std::string_view>>& rows);

// Row i of any string-typed array (flat, constant or dictionary): its bytes, or nullopt when
// null. Not for hot loops.
std::optional<std::string_view> StringAt(const Array& array, int64_t i);

}  // namespace rowjit
