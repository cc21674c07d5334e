// Validity zip on runtime validities (runtime layer): maps Validity to the kernels' ValiditySide.
#include "runtime/zip.h"

#include "kernels/zip.h"

namespace rowjit {
namespace {

kernels::ValiditySide Side(const Validity& v, int64_t length) {
  using Kind = kernels::ValiditySide::Kind;
  switch (v.kind()) {
    case Validity::Kind::kAllValid: return {Kind::kAllValid, {}};
    case Validity::Kind::kAllNull: return {Kind::kAllNull, {}};
    case Validity::Kind::kBitmap: return {Kind::kBitmap, v.Span(length)};
  }
  return {};
}

}  // namespace

Result<Validity> ZipValidity(kernels::BitSpan mask, const Validity& if_true,
                             const Validity& if_false, int64_t length) {
  if (mask.length != length) {
    return MakeError(ErrorCode::kInvalidInput, "zip mask has {} rows, expected {}", mask.length,
                     length);
  }
  const kernels::ValiditySide t = Side(if_true, length), f = Side(if_false, length);
  using Kind = kernels::ValiditySide::Kind;
  if (t.kind == f.kind && t.kind != Kind::kBitmap) {
    return t.kind == Kind::kAllValid ? Validity::AllValid() : Validity::AllNull();
  }
  ROWJIT_ASSIGN_OR_RETURN(BufferPtr out, AllocateBitmap(length));
  kernels::ZipValidity(mask, t, f, out->mutable_data());
  return Validity::FromBitmap(std::move(out), 0, length);
}

}  // namespace rowjit
