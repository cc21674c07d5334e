// Validity: which rows are non-null. All-valid and all-null need no bitmap (runtime layer).
#pragma once

#include <cstdint>
#include <span>

#include "kernels/bitmap.h"
#include "runtime/buffer.h"

namespace rowjit {

// LSB-first validity at any bit offset. It does not know its length: the array that holds it
// does, and passes it in.
class Validity {
 public:
  enum class Kind : uint8_t { kAllValid, kAllNull, kBitmap };

  static Validity AllValid() { return Validity(Kind::kAllValid, nullptr, 0); }
  static Validity AllNull() { return Validity(Kind::kAllNull, nullptr, 0); }
  // Checks that `bits` holds bits [bit_offset, bit_offset + length).
  static Result<Validity> FromBitmap(BufferPtr bits, int64_t bit_offset, int64_t length);

  Kind kind() const { return kind_; }
  bool all_valid() const { return kind_ == Kind::kAllValid; }
  bool all_null() const { return kind_ == Kind::kAllNull; }
  bool has_bitmap() const { return kind_ == Kind::kBitmap; }
  const BufferPtr& bitmap() const { return bitmap_; }
  int64_t bit_offset() const { return bit_offset_; }

  bool IsValid(int64_t i) const {
    if (kind_ != Kind::kBitmap) return kind_ == Kind::kAllValid;
    return kernels::GetBit(bitmap_->data(), bit_offset_ + i);
  }
  // The bitmap as a span (only with a bitmap).
  kernels::BitSpan Span(int64_t length) const {
    return kernels::BitSpan{bitmap_->data(), bit_offset_, length};
  }
  // Word w of `length` rows: 64 validity bits, zero past the end.
  uint64_t Word(int64_t w, int64_t length) const {
    switch (kind_) {
      case Kind::kAllValid: return kernels::LowBits(length - w * 64);
      case Kind::kAllNull: return 0;
      case Kind::kBitmap: return kernels::ReadWord(Span(length), w);
    }
    return 0;
  }
  int64_t CountValid(int64_t length) const;
  Validity Slice(int64_t offset) const {
    return Validity(kind_, bitmap_, kind_ == Kind::kBitmap ? bit_offset_ + offset : 0);
  }

 private:
  Validity(Kind kind, BufferPtr bitmap, int64_t bit_offset)
      : kind_(kind), bitmap_(std::move(bitmap)), bit_offset_(bit_offset) {}

  Kind kind_;
  BufferPtr bitmap_;
  int64_t bit_offset_;
};

// AND of several validities over `length` rows. All-valid inputs are skipped, any all-null
// input gives all-null, one bitmap is shared without copying, and two or more are combined word
// by word into a fresh bitmap at offset 0 (or into `into`, a writable buffer of at least
// kernels::NumBytes(length) bytes, when given).
Result<Validity> AndValidity(std::span<const Validity> inputs, int64_t length, BufferPtr into = nullptr);

// A fresh, zeroed bitmap of `length` bits.
Result<BufferPtr> AllocateBitmap(int64_t length);

}  // namespace rowjit
