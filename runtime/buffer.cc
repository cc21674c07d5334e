// Aligned allocation for owned buffers (runtime layer).
#include "runtime/buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace rowjit {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

// Buffers of 2 MiB and more are aligned to 2 MiB and advised as transparent huge pages: where
// the system's setting is `madvise` (as on these hosts) a buffer gets them only if it asks, as
// numpy does. A 4M-row i32 output then faults in 8 pages instead of 4,096. Smaller buffers take
// the usual 64-byte alignment.
void* AllocateAligned(size_t bytes) {
  if (bytes < kHugePage) return std::aligned_alloc(kBufferAlignment, bytes);
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* data = std::aligned_alloc(kHugePage, rounded);
  if (data != nullptr) (void)::madvise(data, rounded, MADV_HUGEPAGE);  // advice; failure is harmless
  return data;
}

RecyclingPool::RecyclingPool(int64_t max_retained, int64_t min_block)
    : max_retained_(max_retained), min_block_(min_block) {
  for (std::vector<void*>& blocks : small_) blocks.reserve(kSmallKeep);  // Free never allocates
}

RecyclingPool::~RecyclingPool() {
  for (auto& [bytes, block] : free_) std::free(block);
  for (std::vector<void*>& blocks : small_) {
    for (void* block : blocks) std::free(block);
  }
  for (const MidBlock& m : mid_) std::free(m.data);
}

void* RecyclingPool::Allocate(int64_t bytes) {
  if (bytes <= kSmallMax && bytes % 64 == 0 && bytes > 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::vector<void*>& blocks = small_[static_cast<size_t>(bytes / 64 - 1)];
      if (!blocks.empty()) {
        void* block = blocks.back();
        blocks.pop_back();
        ++reused_;
        return block;
      }
    }
    return AllocateAligned(static_cast<size_t>(bytes));
  }
  if (IsMid(bytes)) {
    std::lock_guard<std::mutex> lock(mu_);
    for (MidBlock& m : mid_) {
      if (m.bytes != bytes) continue;
      void* block = m.data;
      m = MidBlock{};
      ++reused_;
      return block;
    }
  }
  if (bytes >= min_block_) {
    std::lock_guard<std::mutex> lock(mu_);
    // The block of this size freed last (equal keys keep their insertion order): the one most
    // likely still in cache. Taking the oldest would rotate a batch loop's outputs through every
    // retained block of the size, each cold, a visible part of a prepared Evaluate of 65,536 i32
    // rows (256 KiB) in a process that has retained several (bench:
    // `ordinary/i32_mul_add/jit_prepared/rows:65536` in a full benchmark run).
    auto [first, end] = free_.equal_range(bytes);
    if (first != end) {
      auto it = std::prev(end);
      void* block = it->second;
      free_.erase(it);
      retained_ -= bytes;
      ++reused_;
      return block;
    }
  }
  return AllocateAligned(static_cast<size_t>(bytes));
}

void RecyclingPool::Free(void* data, int64_t bytes) {
  if (bytes <= kSmallMax && bytes % 64 == 0 && bytes > 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::vector<void*>& blocks = small_[static_cast<size_t>(bytes / 64 - 1)];
      if (blocks.size() < kSmallKeep) {
        blocks.push_back(data);
        return;
      }
    }
    std::free(data);
    return;
  }
  if (IsMid(bytes)) {
    void* evicted = nullptr;  // returned to the system after the lock is released
    {
      std::lock_guard<std::mutex> lock(mu_);
      MidBlock* slot = &mid_[next_mid_];
      for (MidBlock& m : mid_) {
        if (m.bytes == 0) slot = &m;
      }
      if (slot == &mid_[next_mid_]) next_mid_ = (next_mid_ + 1) % kMidKeep;
      evicted = slot->data;
      *slot = MidBlock{bytes, data};
    }
    std::free(evicted);
    return;
  }
  if (bytes < min_block_ || bytes > max_retained_) {
    std::free(data);
    return;
  }
  std::vector<void*> evicted;  // returned to the system after the lock is released
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Make room: the largest blocks go first (they are the least likely to fit again).
    while (retained_ + bytes > max_retained_ && !free_.empty()) {
      auto last = std::prev(free_.end());
      retained_ -= last->first;
      evicted.push_back(last->second);
      free_.erase(last);
    }
    free_.emplace(bytes, data);
    retained_ += bytes;
  }
  for (void* block : evicted) std::free(block);
}

int64_t RecyclingPool::retained_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return retained_;
}

int64_t RecyclingPool::reused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reused_;
}

Buffer::~Buffer() {
  if (!owned_) return;
  if (pool_ != nullptr) {
    pool_->Free(data_, capacity_);
  } else {
    std::free(data_);
  }
}

Result<std::shared_ptr<Buffer>> Buffer::Allocate(int64_t size, std::shared_ptr<MemoryPool> pool) {
  return AllocateImpl(size, true, std::move(pool));
}
Result<std::shared_ptr<Buffer>> Buffer::AllocateForOverwrite(int64_t size, std::shared_ptr<MemoryPool> pool) {
  return AllocateImpl(size, false, std::move(pool));
}

Result<std::shared_ptr<Buffer>> Buffer::AllocateImpl(int64_t size, bool zero_all,
                                                     std::shared_ptr<MemoryPool> pool) {
  if (size < 0) return MakeError(ErrorCode::kInvalidInput, "negative buffer size {}", size);
  if (size > (int64_t{1} << 48)) {
    return MakeError(ErrorCode::kInvalidInput, "buffer size {} is too large", size);
  }
  const int64_t padded = (size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  const size_t bytes = static_cast<size_t>(padded == 0 ? kBufferAlignment : padded);
  void* data = pool != nullptr ? pool->Allocate(static_cast<int64_t>(bytes)) : AllocateAligned(bytes);
  if (data == nullptr) {
    return MakeError(ErrorCode::kOutOfMemory, "out of memory allocating {} bytes", size);
  }
  if (zero_all) {
    std::memset(data, 0, bytes);
  } else {
    std::memset(static_cast<uint8_t*>(data) + size, 0, bytes - static_cast<size_t>(size));
  }
  auto buffer = std::make_shared<Buffer>(PrivateTag{}, static_cast<uint8_t*>(data), size, true, nullptr);
  buffer->pool_ = std::move(pool);
  buffer->capacity_ = static_cast<int64_t>(bytes);
  return buffer;
}

std::shared_ptr<Buffer> Buffer::Borrow(const void* data, int64_t size,
                                       std::shared_ptr<const void> owner) {
  return std::make_shared<Buffer>(PrivateTag{}, static_cast<uint8_t*>(const_cast<void*>(data)), size,
                                  false, std::move(owner));
}

std::shared_ptr<Buffer> Buffer::Lend(void* data, int64_t size) {
  auto buffer = std::make_shared<Buffer>(PrivateTag{}, static_cast<uint8_t*>(data), size, false, nullptr);
  buffer->writable_ = true;
  return buffer;
}

}  // namespace rowjit
