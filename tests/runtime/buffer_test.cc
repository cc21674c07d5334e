// Owned buffers and the recycling pool: alignment, zeroing, reuse of freed large blocks and the
// retention cap (runtime).
#include "runtime/buffer.h"

#include <gtest/gtest.h>

#include <cstring>

namespace rowjit {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(RecyclingPool, ReusesFreedLargeBlocksOfTheSameSize) {
  auto pool = std::make_shared<RecyclingPool>(8 * kMiB, kMiB);
  const uint8_t* first = nullptr;
  {
    auto b = *Buffer::AllocateForOverwrite(2 * kMiB, pool);
    first = b->data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % kBufferAlignment, 0u);
    std::memset(b->mutable_data(), 0xAB, static_cast<size_t>(b->size()));
  }
  EXPECT_EQ(pool->retained_bytes(), 2 * kMiB);
  {
    // The same size again: the retained block, zeroed because Allocate promises zeros.
    auto b = *Buffer::Allocate(2 * kMiB, pool);
    EXPECT_EQ(b->data(), first);
    EXPECT_EQ(pool->reused(), 1);
    EXPECT_EQ(pool->retained_bytes(), 0);
    for (int64_t i = 0; i < b->size(); i += 4093) ASSERT_EQ(b->data()[i], 0) << i;
    // Another size is not served from it.
    auto c = *Buffer::Allocate(3 * kMiB, pool);
    EXPECT_NE(c->data(), first);
  }
  EXPECT_EQ(pool->retained_bytes(), 5 * kMiB);
}

TEST(RecyclingPool, SmallBlocksAreNotRetainedAndTheCapHolds) {
  auto pool = std::make_shared<RecyclingPool>(4 * kMiB, kMiB);
  { auto small = *Buffer::Allocate(1000, pool); }
  EXPECT_EQ(pool->retained_bytes(), 0);
  {
    auto a = *Buffer::Allocate(3 * kMiB, pool);
    auto b = *Buffer::Allocate(2 * kMiB, pool);
    auto c = *Buffer::Allocate(5 * kMiB, pool);  // larger than the cap: never retained
  }
  EXPECT_LE(pool->retained_bytes(), 4 * kMiB);
  EXPECT_GT(pool->retained_bytes(), 0);
}

TEST(RecyclingPool, BuffersKeepTheirPoolAlive) {
  BufferPtr b;
  {
    auto pool = std::make_shared<RecyclingPool>(8 * kMiB, kMiB);
    b = *Buffer::Allocate(2 * kMiB, pool);
  }
  // The pool's last owner is the buffer: freeing it returns the block to a live pool, which
  // then frees it with itself (ASan would report a leak or a use after free otherwise).
  std::memset(b->mutable_data(), 1, static_cast<size_t>(b->size()));
  b.reset();
}

TEST(Buffer, SizesAreCheckedAndPaddingIsZeroed) {
  EXPECT_FALSE(Buffer::Allocate(-1).ok());
  EXPECT_FALSE(Buffer::Allocate(int64_t{1} << 50).ok());
  auto b = *Buffer::AllocateForOverwrite(10);
  EXPECT_EQ(b->size(), 10);
  EXPECT_EQ(b->readable_size(), kBufferAlignment);
  for (int64_t i = 10; i < b->readable_size(); ++i) EXPECT_EQ(b->data()[i], 0) << i;
}

}  // namespace
}  // namespace rowjit
