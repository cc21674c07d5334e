// Lowerings of comparisons, boolean logic and the null-aware functions (jit layer). Null-aware
// lowerings compute validity themselves; the others only the value.
#include "jit/codegen_internal.h"

namespace rowjit::jit::internal {
namespace {

enum Op { kEq, kNe, kLt, kLe, kGt, kGe };

template <Op kOp>
Val Compare(LowerContext& c, std::span<const Val> a) {
  llvm::Value *x = a[0].v, *y = a[1].v;
  const TypeId t = c.arg_type(0);
  if (IsString(t)) return LowerStringCompare(c, a, kOp);
  auto& b = c.b;
  if (t == TypeId::kI128) {  // decimal128: on the halves
    const Int128 p = Widen128(b, a[0], t), q = Widen128(b, a[1], t);
    switch (kOp) {
      case kEq: return {Equal128(b, p, q)};
      case kNe: return {b.CreateNot(Equal128(b, p, q))};
      case kLt: return {Less128(b, p, q)};
      case kLe: return {b.CreateNot(Less128(b, q, p))};
      case kGt: return {Less128(b, q, p)};
      case kGe: return {b.CreateNot(Less128(b, p, q))};
    }
  }
  switch (kOp) {
    case kEq: return {c.Equal(x, y, t)};
    case kNe: return {b.CreateNot(c.Equal(x, y, t))};
    case kLt: return {c.Less(x, y, t)};
    case kLe: return {b.CreateNot(c.Less(y, x, t))};
    case kGt: return {c.Less(y, x, t)};
    case kGe: return {b.CreateNot(c.Less(x, y, t))};
  }
  return {};
}

Val And(LowerContext& c, std::span<const Val> a) { return c.KleeneAnd(a[0], a[1]); }
Val Or(LowerContext& c, std::span<const Val> a) { return c.KleeneOr(a[0], a[1]); }
Val Not(LowerContext& c, std::span<const Val> a) { return {c.b.CreateNot(a[0].v)}; }
Val Xor(LowerContext& c, std::span<const Val> a) { return {c.b.CreateXor(a[0].v, a[1].v)}; }

Val IsNull(LowerContext& c, std::span<const Val> a) {
  return {a[0].valid ? c.b.CreateNot(a[0].valid) : c.b.getFalse(), nullptr};
}
Val IsNotNull(LowerContext& c, std::span<const Val> a) {
  return {a[0].valid ? a[0].valid : c.b.getTrue(), nullptr};
}

Val Coalesce(LowerContext& c, std::span<const Val> a) {
  Val out = a.back();
  for (size_t i = a.size() - 1; i-- > 0;) {
    if (a[i].valid == nullptr) {
      out = a[i];  // always valid: later arguments are never taken
      continue;
    }
    out.v = c.b.CreateSelect(a[i].valid, a[i].v, out.v);
    if (out.high != nullptr) out.high = c.b.CreateSelect(a[i].valid, a[i].high, out.high);  // decimal128
    // A view's address goes with its string (a literal has none: then no address at all), and
    // an exact wide value only where every argument has one.
    out.view = a[i].view != nullptr && out.view != nullptr ? c.b.CreateSelect(a[i].valid, a[i].view, out.view) : nullptr;
    out.wide = a[i].wide != nullptr && out.wide != nullptr ? c.b.CreateSelect(a[i].valid, a[i].wide, out.wide) : nullptr;
    out.valid = c.Or(a[i].valid, out.valid);
  }
  return out;
}

// greatest, least: each argument in turn replaces the pick where it is valid and the pick is
// null or it beats it (strictly: the first of equals stays), in SQL's order.
template <bool kGreatest>
Val Extreme(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const TypeId t = c.arg_type(0);
  auto less = [&](const Val& x, const Val& y) {
    if (t == TypeId::kI128) return Less128(b, Widen128(b, x, t), Widen128(b, y, t));  // decimal128
    if (IsString(t)) return StringLess(c, x.v, y.v);
    return c.Less(x.v, y.v, t);
  };
  Val out{.v = a[0].v, .valid = a[0].valid, .high = a[0].high};
  for (size_t i = 1; i < a.size(); ++i) {
    const Val& x = a[i];
    llvm::Value* take = kGreatest ? less(out, x) : less(x, out);
    if (out.valid != nullptr) take = b.CreateOr(b.CreateNot(out.valid), take);
    if (x.valid != nullptr) take = b.CreateAnd(x.valid, take);
    out.v = b.CreateSelect(take, x.v, out.v);
    if (out.high != nullptr) out.high = b.CreateSelect(take, x.high, out.high);
    out.valid = c.Or(out.valid, x.valid);
  }
  return out;
}

Val If(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Value* take = a[0].valid ? b.CreateAnd(a[0].valid, a[0].v) : a[0].v;  // null → else
  Val out;
  out.v = b.CreateSelect(take, a[1].v, a[2].v);
  if (a[1].high != nullptr) out.high = b.CreateSelect(take, a[1].high, a[2].high);  // decimal128
  if (a[1].valid != nullptr || a[2].valid != nullptr) {
    out.valid = b.CreateSelect(take, a[1].valid ? a[1].valid : b.getTrue(),
                               a[2].valid ? a[2].valid : b.getTrue());
  }
  return out;
}

Val Between(LowerContext& c, std::span<const Val> a) {
  const TypeId t = c.arg_type(0);
  auto less = [&](const Val& x, const Val& y) {
    if (t == TypeId::kI128) return Less128(c.b, Widen128(c.b, x, t), Widen128(c.b, y, t));  // decimal128
    return c.Less(x.v, y.v, t);
  };
  Val ge{c.b.CreateNot(less(a[0], a[1])), c.And(a[0].valid, a[1].valid)};
  Val le{c.b.CreateNot(less(a[2], a[0])), c.And(a[0].valid, a[2].valid)};
  return c.KleeneAnd(ge, le);
}

const Lowering kLowerings[] = {
    {"eq", Compare<kEq>}, {"ne", Compare<kNe>}, {"lt", Compare<kLt>},
    {"le", Compare<kLe>}, {"gt", Compare<kGt>}, {"ge", Compare<kGe>},
    {"and", And},         {"or", Or},           {"not", Not},
    {"xor", Xor},         {"is_null", IsNull},  {"is_not_null", IsNotNull},
    {"coalesce", Coalesce}, {"if", If},         {"between", Between},
    {"greatest", Extreme<true>}, {"least", Extreme<false>},
};

}  // namespace

std::span<const Lowering> LogicLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
