// Fuzz target: byte-bool arrays and validity bitmaps over buffers shorter than claimed (fuzz).
// The buffers are exactly the fuzzer's bytes (ASan sees one byte past them); lengths and offsets
// are claimed freely. What is accepted reads back every row, slices and packs in bounds; what
// does not fit is an error, never a read past the buffer.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/array.h"
#include "runtime/validity.h"

namespace {

using rowjit::Buffer;
using rowjit::BufferPtr;
using rowjit::Validity;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "views fuzz: %s\n", what);
  std::abort();
}

// An owned buffer holding exactly `bytes` (Borrow keeps our vector alive through the owner).
BufferPtr Exactly(std::vector<uint8_t> bytes) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  return Buffer::Borrow(owner->data(), static_cast<int64_t>(owner->size()), owner);
}

int64_t Claim(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 4)) {
    case 0: return in.ConsumeIntegralInRange<int64_t>(0, 70);
    case 1: return in.ConsumeIntegralInRange<int64_t>(0, 600);
    case 2: return int64_t{1} << in.ConsumeIntegralInRange(10, 62);
    case 3: return -in.ConsumeIntegralInRange<int64_t>(1, 5);
    default: return in.ConsumeIntegral<int64_t>();
  }
}

// A validity bitmap claimed over `length` rows at `offset`.
void CheckValidity(FuzzedDataProvider& in) {
  const int64_t offset = Claim(in), length = Claim(in);
  BufferPtr bits = Exactly(in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 80)));
  auto v = Validity::FromBitmap(bits, offset, length);
  if (!v.ok()) return;
  int64_t valid = 0;
  for (int64_t i = 0; i < length; ++i) valid += v->IsValid(i);
  if (v->CountValid(length) != valid) Fail("CountValid disagrees with IsValid");
  for (int64_t w = 0; w < rowjit::kernels::NumWords(length); ++w) (void)v->Word(w, length);
}

// A byte-bool array over `bytes`, with an optional validity bitmap of its own.
void CheckByteBool(FuzzedDataProvider& in) {
  const int64_t offset = Claim(in), length = Claim(in);
  BufferPtr bytes = Exactly(in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 600)));
  Validity validity = Validity::AllValid();
  if (in.ConsumeBool()) {
    auto v = Validity::FromBitmap(Exactly(in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 80))),
                                  Claim(in), length);
    if (!v.ok()) return;
    validity = *v;
  }
  auto array = rowjit::ByteBoolArray::Make(length, bytes, validity, offset, true);
  if (!array.ok()) return;
  const auto& a = **array;
  if (!a.Validate().ok()) Fail("an accepted byte-bool array does not validate");
  for (int64_t i = 0; i < a.length(); ++i) (void)a.GetScalar(i);
  auto packed = a.ToBool();
  if (!packed.ok()) return;
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i) != (*packed)->IsNull(i) || (!a.IsNull(i) && a.Value(i) != (*packed)->Value(i))) {
      Fail("packing changed a row");
    }
  }
  const int64_t at = in.ConsumeIntegralInRange<int64_t>(0, a.length());
  auto slice = a.Slice(at, a.length() - at);
  if (slice.ok()) {
    for (int64_t i = 0; i < (*slice)->length(); ++i) (void)(*slice)->GetScalar(i);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    CheckValidity(in);
  } else {
    CheckByteBool(in);
  }
  return 0;
}
