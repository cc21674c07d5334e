// The common numeric type and the type of a widened integer literal (ir layer).
#include "ir/promotion.h"

#include <algorithm>

#include "runtime/builder.h"

namespace rowjit::ir {

namespace {

TypeId SignedOfWidth(int bits) {
  return bits <= 8 ? TypeId::kI8 : bits <= 16 ? TypeId::kI16 : bits <= 32 ? TypeId::kI32 : TypeId::kI64;
}
TypeId UnsignedOfWidth(int bits) {
  return bits <= 8 ? TypeId::kU8 : bits <= 16 ? TypeId::kU16 : bits <= 32 ? TypeId::kU32 : TypeId::kU64;
}

}  // namespace

Result<TypeId> CommonNumericType(std::span<const TypeId> types, std::string_view function) {
  // Decided over the whole set, so the order of the operands cannot change the answer.
  int signed_bits = 0, unsigned_bits = 0;
  bool f32 = false, f64 = false;
  for (TypeId t : types) {
    f32 = f32 || t == TypeId::kF32;
    f64 = f64 || t == TypeId::kF64;
    if (IsSignedInt(t)) signed_bits = std::max(signed_bits, BitWidth(t));
    if (IsUnsignedInt(t)) unsigned_bits = std::max(unsigned_bits, BitWidth(t));
  }
  if (f64) return TypeId::kF64;
  if (f32) return TypeId::kF32;
  if (unsigned_bits == 0) return SignedOfWidth(signed_bits);
  if (signed_bits == 0) return UnsignedOfWidth(unsigned_bits);
  if (signed_bits > unsigned_bits) return SignedOfWidth(signed_bits);
  if (unsigned_bits < 64) return SignedOfWidth(2 * unsigned_bits);
  return MakeError(ErrorCode::kTypeError,
                   "{} of u64 and {}: no integer type holds both; cast one side (cast(x, i64) fails on values past "
                   "9223372036854775807, cast(x, f64) rounds past 2^53)",
                   function, TypeIdName(SignedOfWidth(signed_bits)));
}

TypeId LiteralIntegerType(std::string_view text, TypeId beside) {
  if (ParseScalar(beside, text).ok()) return beside;
  const bool is_unsigned = IsUnsignedInt(beside);
  for (int bits : {8, 16, 32, 64}) {
    const TypeId t = is_unsigned ? UnsignedOfWidth(bits) : SignedOfWidth(bits);
    if (BitWidth(t) > BitWidth(beside) && ParseScalar(t, text).ok()) return t;
  }
  for (int bits : {8, 16, 32, 64}) {
    if (ParseScalar(SignedOfWidth(bits), text).ok()) return SignedOfWidth(bits);
  }
  return TypeId::kU64;
}

}  // namespace rowjit::ir
