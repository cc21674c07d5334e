// Buffers: 64-byte aligned owned memory, and borrowed memory that keeps its owner alive (runtime).
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/status.h"

namespace rowjit {

inline constexpr int64_t kBufferAlignment = 64;

// `bytes` (a multiple of kBufferAlignment) aligned to 64 bytes, or from 2 MiB on to 2 MiB and
// advised as transparent huge pages; released with std::free. Null when out of memory.
void* AllocateAligned(size_t bytes);

// Where owned buffers get their memory. The default is aligned_alloc/free.
class MemoryPool {
 public:
  virtual ~MemoryPool() = default;
  // `bytes` is a multiple of kBufferAlignment; the result is aligned to it, or null.
  virtual void* Allocate(int64_t bytes) = 0;
  virtual void Free(void* data, int64_t bytes) = 0;
};

// A pool that keeps freed blocks of at least `min_block` bytes for reuse by the next allocation
// of the same size, up to `max_retained` bytes of them (the largest blocks go first when full).
// Large outputs of a batch loop then land on memory already faulted in, instead of fresh pages
// from the system each call, every page faulted in again (bench:
// `into/i32_mul_add/jit/rows:4194304/valid:100`, whose output comes from this pool, against
// `jit_into`, which writes into memory the caller lent). Small blocks (up to kSmallMax bytes, the
// outputs of short batches) are kept too, up to kSmallKeep of each 64-byte size class: glibc's
// 64-byte-aligned allocation costs several times a plain malloc, a visible part of the per-call
// cost of short batches (bench: `compile/ops3/prepared_64_rows`); they are bounded by that count
// (at most 2 MiB), not by `max_retained`, and retained_bytes() does not count them. Blocks above
// that and below `min_block` (the outputs of calls at engine vector sizes: 2,048 rows of 4 or 8
// bytes) are kept too, kMidKeep of those freed recently (a full set gives up its slots in turn),
// up to kMidMax bytes each: glibc serves such a
// request from its large bins after consolidating the fast bins the call's small objects left,
// a visible part of such a call (bench: `ordinary/i32_mul_add/jit_prepared_chunks2048`). Others
// go straight to the system allocator. Thread-safe.
class RecyclingPool final : public MemoryPool {
 public:
  explicit RecyclingPool(int64_t max_retained = int64_t{256} << 20, int64_t min_block = int64_t{1} << 20);
  ~RecyclingPool() override;
  void* Allocate(int64_t bytes) override;
  void Free(void* data, int64_t bytes) override;
  int64_t retained_bytes() const;
  int64_t reused() const;  // allocations served from retained blocks

  static constexpr int64_t kSmallMax = 4096;
  static constexpr size_t kSmallKeep = 16;
  static constexpr int64_t kMidMax = int64_t{64} << 10;
  static constexpr size_t kMidKeep = 8;

 private:
  const int64_t max_retained_, min_block_;
  mutable std::mutex mu_;
  std::multimap<int64_t, void*> free_;  // size → block
  std::array<std::vector<void*>, kSmallMax / 64> small_;  // class k: blocks of 64 * (k + 1) bytes
  struct MidBlock {
    int64_t bytes = 0;  // 0: empty
    void* data = nullptr;
  };
  std::array<MidBlock, kMidKeep> mid_{};  // the mid-size blocks freed last; next_mid_ replaced next
  size_t next_mid_ = 0;
  bool IsMid(int64_t bytes) const { return bytes > kSmallMax && bytes < min_block_ && bytes <= kMidMax; }
  int64_t retained_ = 0, reused_ = 0;
};

// A byte range. Owned buffers are zero-initialised, aligned to 64 bytes and padded to a multiple
// of 64 bytes; borrowed buffers hold a reference to whatever owns their memory.
class Buffer {
  struct PrivateTag {  // only Buffer's factories construct one (make_shared: one allocation)
    explicit PrivateTag() = default;
  };

 public:
  Buffer(PrivateTag, uint8_t* data, int64_t size, bool owned, std::shared_ptr<const void> owner)
      : data_(data), size_(size), owned_(owned), writable_(owned), owner_(std::move(owner)) {}
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  // A fresh, zeroed, aligned buffer of `size` bytes, from `pool` (null: the system allocator);
  // the buffer keeps the pool alive and returns its memory there.
  static Result<std::shared_ptr<Buffer>> Allocate(int64_t size, std::shared_ptr<MemoryPool> pool = nullptr);
  // The same without zeroing the first `size` bytes (the padding is still zeroed), for callers
  // that write every byte they later read: saves a pass over large outputs.
  static Result<std::shared_ptr<Buffer>> AllocateForOverwrite(int64_t size,
                                                              std::shared_ptr<MemoryPool> pool = nullptr);
  // Memory owned elsewhere; `owner` is released when the last reference to this buffer goes.
  static std::shared_ptr<Buffer> Borrow(const void* data, int64_t size,
                                        std::shared_ptr<const void> owner);
  // Memory the caller lends to be written (an output it provides): writable, never freed here,
  // and readable to `size` only. The caller keeps it alive while the buffer is in use.
  static std::shared_ptr<Buffer> Lend(void* data, int64_t size);

  const uint8_t* data() const { return data_; }
  // Owned and lent buffers are writable; borrowed memory belongs to the caller and is never
  // modified.
  uint8_t* mutable_data() { return writable_ ? data_ : nullptr; }
  int64_t size() const { return size_; }
  // Bytes that may be read from data(): owned buffers are padded to a multiple of 64 bytes.
  int64_t readable_size() const {
    return owned_ ? (size_ + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment : size_;
  }
  bool owned() const { return owned_; }

  template <typename T> const T* data_as() const { return reinterpret_cast<const T*>(data_); }
  template <typename T> T* mutable_data_as() { return reinterpret_cast<T*>(mutable_data()); }

 private:
  static Result<std::shared_ptr<Buffer>> AllocateImpl(int64_t size, bool zero_all,
                                                      std::shared_ptr<MemoryPool> pool);
  uint8_t* data_;
  int64_t size_;
  bool owned_;
  bool writable_;
  std::shared_ptr<const void> owner_;
  std::shared_ptr<MemoryPool> pool_;  // owned memory from a pool (null: the system allocator)
  int64_t capacity_ = 0;              // owned: the allocated (padded) bytes
};

using BufferPtr = std::shared_ptr<Buffer>;

}  // namespace rowjit
