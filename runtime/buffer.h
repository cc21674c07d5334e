// Buffers: 64-byte aligned owned memory, and borrowed memory that keeps its owner alive (runtime).
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/status.h"

namespace rowjit {

inline constexpr int64_t kBufferAlignment = 64;

// A byte range. Owned buffers are zero-initialised, aligned to 64 bytes and padded to a multiple
// of 64 bytes; borrowed buffers hold a reference to whatever owns their memory.
class Buffer {
 public:
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // A fresh, zeroed, aligned buffer of `size` bytes.
  static Result<std::shared_ptr<Buffer>> Allocate(int64_t size);
  // The same without zeroing the first `size` bytes (the padding is still zeroed), for callers
  // that write every byte they later read: saves a pass over large outputs.
  static Result<std::shared_ptr<Buffer>> AllocateForOverwrite(int64_t size);
  // Memory owned elsewhere; `owner` is released when the last reference to this buffer goes.
  static std::shared_ptr<Buffer> Borrow(const void* data, int64_t size,
                                        std::shared_ptr<const void> owner);

  const uint8_t* data() const { return data_; }
  // Only owned buffers are writable; borrowed memory belongs to the caller and is never modified.
  uint8_t* mutable_data() { return owned_ ? data_ : nullptr; }
  int64_t size() const { return size_; }
  // Bytes that may be read from data(): owned buffers are padded to a multiple of 64 bytes.
  int64_t readable_size() const {
    return owned_ ? (size_ + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment : size_;
  }
  bool owned() const { return owned_; }

  template <typename T> const T* data_as() const { return reinterpret_cast<const T*>(data_); }
  template <typename T> T* mutable_data_as() { return reinterpret_cast<T*>(mutable_data()); }

 private:
  static Result<std::shared_ptr<Buffer>> AllocateImpl(int64_t size, bool zero_all);
  Buffer(uint8_t* data, int64_t size, bool owned, std::shared_ptr<const void> owner)
      : data_(data), size_(size), owned_(owned), owner_(std::move(owner)) {}

  uint8_t* data_;
  int64_t size_;
  bool owned_;
  std::shared_ptr<const void> owner_;
};

using BufferPtr = std::shared_ptr<Buffer>;

}  // namespace rowjit
