// Validity construction and combination (runtime layer); the bit loops are kernels/bitmap.
#include "runtime/validity.h"

#include <limits>

namespace rowjit {

Result<Validity> Validity::FromBitmap(BufferPtr bits, int64_t bit_offset, int64_t length) {
  if (bits == nullptr) return MakeError(ErrorCode::kInvalidInput, "validity bitmap is null");
  if (bit_offset < 0 || length < 0) {
    return MakeError(ErrorCode::kInvalidInput, "negative validity offset {} or length {}",
                     bit_offset, length);
  }
  // Claims are untrusted: offset + length may not even fit an int64.
  if (bit_offset > std::numeric_limits<int64_t>::max() - 8 - length) {
    return MakeError(ErrorCode::kInvalidInput, "validity claims {} + {} bits, more than any bitmap holds",
                     bit_offset, length);
  }
  if (kernels::NumBytes(bit_offset + length) > bits->size()) {
    return MakeError(ErrorCode::kInvalidInput,
                     "validity bitmap of {} bytes is shorter than the {} bits it claims",
                     bits->size(), bit_offset + length);
  }
  return Validity(Kind::kBitmap, std::move(bits), bit_offset);
}

int64_t Validity::CountValid(int64_t length) const {
  switch (kind_) {
    case Kind::kAllValid: return length;
    case Kind::kAllNull: return 0;
    case Kind::kBitmap: return kernels::CountSetBits(Span(length));
  }
  return 0;
}

Result<BufferPtr> AllocateBitmap(int64_t length) {
  return Buffer::Allocate(kernels::NumBytes(length));
}

Result<Validity> AndValidity(std::span<const Validity> inputs, int64_t length, BufferPtr into) {
  // The first two bitmaps found, then the others in place: no list of them is built (a prepared
  // call ANDs its columns' validity on every batch).
  const Validity* first = nullptr;
  const Validity* second = nullptr;
  for (const Validity& v : inputs) {
    if (v.all_null()) return Validity::AllNull();
    if (!v.has_bitmap()) continue;
    if (first == nullptr) {
      first = &v;
    } else if (second == nullptr) {
      second = &v;
    }
  }
  if (first == nullptr) return Validity::AllValid();
  if (second == nullptr) return *first;
  BufferPtr out = std::move(into);
  if (out == nullptr) {
    ROWJIT_ASSIGN_OR_RETURN(out, AllocateBitmap(length));
  }
  kernels::BitmapAnd(first->Span(length), second->Span(length), out->mutable_data());
  for (const Validity& v : inputs) {
    if (v.has_bitmap() && &v != first && &v != second) kernels::BitmapAndInPlace(out->mutable_data(), v.Span(length));
  }
  return Validity::FromBitmap(std::move(out), 0, length);
}

}  // namespace rowjit
