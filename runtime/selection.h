// Selections (runtime layer): the rows of a batch that a filter keeps, as ascending 32-bit row
// indices into the batch (what Gandiva's SelectionVector and DuckDB's SelectionVector hold), and
// Take, which picks those rows out of an array.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "runtime/array.h"

namespace rowjit {

class SelectionVector {
 public:
  // The largest batch a selection indexes (its indices are 32-bit).
  static constexpr int64_t kMaxBatchLength = int64_t{1} << 32;

  SelectionVector() = default;  // no row of an empty batch
  // A copy of `rows`, which must be ascending (no repeats) and each below `batch_length`.
  static Result<SelectionVector> FromIndices(std::span<const uint32_t> rows, int64_t batch_length);
  // The rows whose bit is set in `bits` (bit i: row i; batch_length = bits.length).
  static Result<SelectionVector> FromBitmap(kernels::BitSpan bits, std::shared_ptr<MemoryPool> pool = nullptr);
  // Every row of a batch.
  static Result<SelectionVector> All(int64_t batch_length, std::shared_ptr<MemoryPool> pool = nullptr);

  int64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t batch_length() const { return batch_length_; }
  std::span<const uint32_t> indices() const { return {data(), static_cast<size_t>(size_)}; }
  const uint32_t* data() const { return buffer_ ? reinterpret_cast<const uint32_t*>(buffer_->data()) : nullptr; }
  const BufferPtr& buffer() const { return buffer_; }  // the indices (views of them share it)
  uint32_t operator[](int64_t i) const { return data()[i]; }
  // The selection as a bitmap of batch_length() bits at offset 0.
  Result<BufferPtr> ToBitmap(std::shared_ptr<MemoryPool> pool = nullptr) const;
  // The rows of this selection that `inner` (a selection of a batch of size() rows) picks:
  // row inner[i] of the selected rows, as rows of this selection's batch.
  Result<SelectionVector> Compose(const SelectionVector& inner, std::shared_ptr<MemoryPool> pool = nullptr) const;

 private:
  SelectionVector(BufferPtr buffer, int64_t size, int64_t batch_length)
      : buffer_(std::move(buffer)), size_(size), batch_length_(batch_length) {}
  // Room for `rows` indices and the vector kernels' slack.
  static Result<BufferPtr> Room(int64_t rows, const std::shared_ptr<MemoryPool>& pool);

  BufferPtr buffer_;
  int64_t size_ = 0;
  int64_t batch_length_ = 0;
};

// The rows `selection` picks from `array` (any encoding: a dictionary keeps its dictionary and
// takes its codes, a constant stays constant), as an array of selection.size() rows of the same
// type. selection.batch_length() must be array.length().
Result<ArrayPtr> Take(const Array& array, const SelectionVector& selection,
                      std::shared_ptr<MemoryPool> pool = nullptr);

// The rows `selection` picks from `array` as cheaply as a kernel can read them: a flat column of
// 4- or 8-byte values becomes a view, a dictionary whose codes are the selection's indices (shared,
// not copied; null where the row is) over the column's values, which kernels read with gathers
// fused into their loop; other arrays are taken (Take). Same rows, type and nulls as Take's.
Result<ArrayPtr> SelectView(const ArrayPtr& array, const SelectionVector& selection,
                            std::shared_ptr<MemoryPool> pool = nullptr);

}  // namespace rowjit
