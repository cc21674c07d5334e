// Aligned allocation for owned buffers (runtime layer).
#include "runtime/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace rowjit {

Buffer::~Buffer() {
  if (owned_) std::free(data_);
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(int64_t size) { return AllocateImpl(size, true); }
Result<std::shared_ptr<Buffer>> Buffer::AllocateForOverwrite(int64_t size) {
  return AllocateImpl(size, false);
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateImpl(int64_t size, bool zero_all) {
  if (size < 0) return MakeError(ErrorCode::kInvalidInput, "negative buffer size {}", size);
  if (size > (int64_t{1} << 48)) {
    return MakeError(ErrorCode::kInvalidInput, "buffer size {} is too large", size);
  }
  const int64_t padded = (size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  const size_t bytes = static_cast<size_t>(padded == 0 ? kBufferAlignment : padded);
  void* data = std::aligned_alloc(kBufferAlignment, bytes);
  if (data == nullptr) {
    return MakeError(ErrorCode::kInvalidInput, "out of memory allocating {} bytes", size);
  }
  if (zero_all) {
    std::memset(data, 0, bytes);
  } else {
    std::memset(static_cast<uint8_t*>(data) + size, 0, bytes - static_cast<size_t>(size));
  }
  return std::shared_ptr<Buffer>(new Buffer(static_cast<uint8_t*>(data), size, true, nullptr));
}

std::shared_ptr<Buffer> Buffer::Borrow(const void* data, int64_t size,
                                       std::shared_ptr<const void> owner) {
  return std::shared_ptr<Buffer>(new Buffer(static_cast<uint8_t*>(const_cast<void*>(data)), size,
                                            false, std::move(owner)));
}

}  // namespace rowjit
