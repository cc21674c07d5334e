// Owned buffers and the recycling pool: alignment, zeroing, reuse of freed large blocks and the
// retention cap (runtime).
#include "runtime/buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "support/assert_ok.h"

namespace rowjit {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(RecyclingPool, ReusesFreedLargeBlocksOfTheSameSize) {
  auto pool = std::make_shared<RecyclingPool>(8 * kMiB, kMiB);
  const uint8_t* first = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateForOverwrite(2 * kMiB, pool));
    first = b->data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % kBufferAlignment, 0u);
    std::memset(b->mutable_data(), 0xAB, static_cast<size_t>(b->size()));
  }
  EXPECT_EQ(pool->retained_bytes(), 2 * kMiB);
  EXPECT_EQ(pool->reused(), 0);
  {
    // The same size again: the retained block, zeroed because Allocate promises zeros.
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(2 * kMiB, pool));
    EXPECT_EQ(b->data(), first);
    EXPECT_EQ(pool->reused(), 1);
    EXPECT_EQ(pool->retained_bytes(), 0);
    for (int64_t i = 0; i < b->size(); i += 4093) ASSERT_EQ(b->data()[i], 0) << i;
    // Another size is not served from it.
    ASSERT_OK_AND_ASSIGN(BufferPtr c, Buffer::Allocate(3 * kMiB, pool));
    EXPECT_NE(c->data(), first);
    EXPECT_EQ(pool->reused(), 1);
  }
  EXPECT_EQ(pool->retained_bytes(), 5 * kMiB);
}

// Of several retained blocks of one size, an allocation takes the one freed last (the one most
// likely still in cache), so a loop that frees its output before the next allocation keeps
// writing the same block instead of rotating through every retained one.
TEST(RecyclingPool, ServesTheBlockFreedLast) {
  auto pool = std::make_shared<RecyclingPool>(16 * kMiB, kMiB);
  std::vector<const uint8_t*> blocks;
  {
    std::vector<BufferPtr> held;
    for (int i = 0; i < 4; ++i) {
      ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateForOverwrite(kMiB, pool));
      blocks.push_back(b->data());
      held.push_back(std::move(b));
    }
    while (!held.empty()) held.pop_back();  // freed in reverse: blocks[0] last
  }
  EXPECT_EQ(pool->retained_bytes(), 4 * kMiB);
  for (int round = 0; round < 5; ++round) {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateForOverwrite(kMiB, pool));
    EXPECT_EQ(b->data(), blocks[0]) << "round " << round;
  }
  {
    // Two at once: the last freed, then the one freed before it.
    ASSERT_OK_AND_ASSIGN(BufferPtr x, Buffer::AllocateForOverwrite(kMiB, pool));
    ASSERT_OK_AND_ASSIGN(BufferPtr y, Buffer::AllocateForOverwrite(kMiB, pool));
    EXPECT_EQ(x->data(), blocks[0]);
    EXPECT_EQ(y->data(), blocks[1]);
  }
}

TEST(RecyclingPool, BlocksBetweenTheMidSizesAndMinBlockAreNotRetainedAndTheCapHolds) {
  auto pool = std::make_shared<RecyclingPool>(4 * kMiB, kMiB);
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr mid, Buffer::Allocate(RecyclingPool::kMidMax + 64, pool));
  }
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr again, Buffer::Allocate(RecyclingPool::kMidMax + 64, pool));
  }
  EXPECT_EQ(pool->retained_bytes(), 0);
  EXPECT_EQ(pool->reused(), 0);
  {
    // Larger than the cap: freed at once, whatever else the pool holds (here nothing).
    ASSERT_OK_AND_ASSIGN(BufferPtr huge, Buffer::Allocate(5 * kMiB, pool));
  }
  EXPECT_EQ(pool->retained_bytes(), 0);
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr a, Buffer::Allocate(3 * kMiB, pool));
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(1 * kMiB, pool));
    ASSERT_OK_AND_ASSIGN(BufferPtr c, Buffer::Allocate(2 * kMiB, pool));
    // Freed c (2), then b (1): 3 MiB retained. Then a (3): 6 > 4, so the largest retained
    // block (c, 2 MiB) goes first, leaving b and a: 4 MiB, exactly the cap.
    c.reset();
    EXPECT_EQ(pool->retained_bytes(), 2 * kMiB);
    b.reset();
    EXPECT_EQ(pool->retained_bytes(), 3 * kMiB);
  }
  EXPECT_EQ(pool->retained_bytes(), 4 * kMiB);
  // What is left is b's and a's blocks: both sizes are served from the pool, c's is not.
  ASSERT_OK_AND_ASSIGN(BufferPtr again1, Buffer::Allocate(1 * kMiB, pool));
  ASSERT_OK_AND_ASSIGN(BufferPtr again3, Buffer::Allocate(3 * kMiB, pool));
  EXPECT_EQ(pool->reused(), 2);
  EXPECT_EQ(pool->retained_bytes(), 0);
  ASSERT_OK_AND_ASSIGN(BufferPtr again2, Buffer::Allocate(2 * kMiB, pool));
  EXPECT_EQ(pool->reused(), 2);
}

// Blocks above the small classes and below min_block (a 2,048-row call's output): the last
// kMidKeep freed are kept, served to an allocation of the same size, zeroed; the oldest goes
// when more are freed.
TEST(RecyclingPool, MidSizeBlocksFreedLastAreKept) {
  auto pool = std::make_shared<RecyclingPool>(4 * kMiB, kMiB);
  const int64_t size = 8192;
  const uint8_t* first = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateForOverwrite(size, pool));
    first = b->data();
    std::memset(b->mutable_data(), 0xCD, size);
  }
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr other, Buffer::Allocate(2 * size, pool));  // another size: not it
    EXPECT_NE(other->data(), first);
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(size, pool));
    EXPECT_EQ(b->data(), first);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % kBufferAlignment, 0u);
    for (int64_t i = 0; i < size; ++i) ASSERT_EQ(b->data()[i], 0) << i;
  }
  EXPECT_EQ(pool->reused(), 1);
  EXPECT_EQ(pool->retained_bytes(), 0);  // bounded by count, not counted here
  // More freed at once than kept (into a fresh pool): only kMidKeep of them come back.
  auto fresh = std::make_shared<RecyclingPool>(4 * kMiB, kMiB);
  {
    std::vector<BufferPtr> many;
    for (size_t i = 0; i < RecyclingPool::kMidKeep + 3; ++i) {
      ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(size, fresh));
      many.push_back(b);
    }
  }
  std::vector<BufferPtr> again;
  for (size_t i = 0; i < RecyclingPool::kMidKeep + 3; ++i) {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(size, fresh));
    again.push_back(b);
  }
  EXPECT_EQ(fresh->reused(), static_cast<int64_t>(RecyclingPool::kMidKeep));
}

TEST(RecyclingPool, SmallBlocksAreKeptPerSizeClassUpToABound) {
  auto pool = std::make_shared<RecyclingPool>(4 * kMiB, kMiB);
  const uint8_t* first = nullptr;
  {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateForOverwrite(200, pool));  // class 256
    first = b->data();
    std::memset(b->mutable_data(), 0xCD, 256);
  }
  {
    // The same class: the kept block, zeroed as Allocate promises, aligned as every buffer.
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(256, pool));
    EXPECT_EQ(b->data(), first);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % kBufferAlignment, 0u);
    for (int i = 0; i < 256; ++i) ASSERT_EQ(b->data()[i], 0) << i;
    // Another class is not served from it.
    ASSERT_OK_AND_ASSIGN(BufferPtr c, Buffer::Allocate(512, pool));
    EXPECT_NE(c->data(), first);
  }
  EXPECT_EQ(pool->reused(), 1);
  EXPECT_EQ(pool->retained_bytes(), 0);  // small blocks are bounded by count, not counted here
  {
    // More blocks of one class freed at once than the pool keeps: only kSmallKeep come back.
    std::vector<BufferPtr> many;
    for (size_t i = 0; i < RecyclingPool::kSmallKeep + 4; ++i) {
      ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(1024, pool));
      many.push_back(b);
    }
  }
  const int64_t before = pool->reused();
  std::vector<BufferPtr> again;
  for (size_t i = 0; i < RecyclingPool::kSmallKeep + 4; ++i) {
    ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::Allocate(1024, pool));
    again.push_back(b);
  }
  EXPECT_EQ(pool->reused() - before, static_cast<int64_t>(RecyclingPool::kSmallKeep));
}

TEST(RecyclingPool, BuffersKeepTheirPoolAlive) {
  BufferPtr b;
  std::weak_ptr<RecyclingPool> weak;
  {
    auto pool = std::make_shared<RecyclingPool>(8 * kMiB, kMiB);
    weak = pool;
    ASSERT_OK_AND_ASSIGN(b, Buffer::Allocate(2 * kMiB, pool));
  }
  // The pool's last owner is the buffer.
  ASSERT_FALSE(weak.expired());
  std::memset(b->mutable_data(), 1, static_cast<size_t>(b->size()));
  {
    // Freeing the buffer returns its block to the still live pool...
    std::shared_ptr<RecyclingPool> pool = weak.lock();
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->retained_bytes(), 0);
    b.reset();
    EXPECT_EQ(pool->retained_bytes(), 2 * kMiB);
  }
  // ...and once nothing holds the pool it is gone, freeing the block with itself (ASan would
  // report a leak otherwise).
  EXPECT_TRUE(weak.expired());
  // A buffer alone keeps the pool: dropping the buffer drops the pool.
  {
    auto pool = std::make_shared<RecyclingPool>(8 * kMiB, kMiB);
    weak = pool;
    ASSERT_OK_AND_ASSIGN(b, Buffer::Allocate(100, std::move(pool)));
  }
  EXPECT_FALSE(weak.expired());
  b.reset();
  EXPECT_TRUE(weak.expired());
}

TEST(Buffer, SizesAreCheckedAndPaddingIsZeroed) {
  auto negative = Buffer::Allocate(-1);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(negative.error().message().find("negative buffer size -1"), std::string::npos)
      << negative.error().ToString();
  auto huge = Buffer::Allocate(int64_t{1} << 50);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(huge.error().message().find("too large"), std::string::npos) << huge.error().ToString();
  ASSERT_OK_AND_ASSIGN(BufferPtr b, Buffer::AllocateForOverwrite(10));
  EXPECT_EQ(b->size(), 10);
  EXPECT_EQ(b->readable_size(), kBufferAlignment);
  for (int64_t i = 10; i < b->readable_size(); ++i) EXPECT_EQ(b->data()[i], 0) << i;
}

}  // namespace
}  // namespace rowjit

namespace rowjit {
namespace {

// Large buffers start on a 2 MiB boundary (so that transparent huge pages can back them);
// small ones on 64 bytes. Both are writable to their end and freed with std::free.
TEST(Buffer, LargeBuffersAreAlignedForHugePages) {
  for (size_t bytes : {size_t{64}, size_t{4096}, (size_t{2} << 20) - 64, size_t{2} << 20, (size_t{5} << 20) + 64}) {
    void* p = AllocateAligned(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    const auto address = reinterpret_cast<uintptr_t>(p);
    EXPECT_EQ(address % (bytes >= (size_t{2} << 20) ? (size_t{2} << 20) : 64), 0u) << bytes;
    std::memset(p, 0xab, bytes);
    std::free(p);
  }
  auto big = Buffer::Allocate(int64_t{16} << 20);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*big)->data()) % (size_t{2} << 20), 0u);
  EXPECT_EQ((*big)->data()[(int64_t{16} << 20) - 1], 0);  // zeroed
}

}  // namespace
}  // namespace rowjit
