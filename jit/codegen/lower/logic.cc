// Lowerings of comparisons, boolean logic and the null-aware functions (jit layer, codegen room).
// Null-aware lowerings compute validity themselves; the others only the value.
#include <algorithm>
#include <bit>
#include <optional>

#include "ir/analysis.h"
#include "jit/codegen/codegen_internal.h"

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
  const DataType type = c.call.args()[0]->type();
  auto less = [&](const Val& x, const Val& y) {
    if (type.logical == LogicalKind::kInterval) return IntervalLess(b, static_cast<IntervalUnit>(type.unit), x, y);
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

// A constant of fixed-width storage `t` from a literal's value.
llvm::Constant* ConstantOf(LowerContext& c, const Scalar& s, TypeId t) {
  auto& b = c.b;
  llvm::Value* bits = b.getInt64(s.bits());
  llvm::Value* v = t == TypeId::kF64   ? b.CreateBitCast(bits, c.Ty(t))
                   : t == TypeId::kF32 ? b.CreateBitCast(b.CreateTrunc(bits, b.getInt32Ty()), c.Ty(t))
                                       : b.CreateTrunc(bits, c.Ty(t));
  return llvm::cast<llvm::Constant>(v);  // the builder folds casts of constants
}

// Whether the integer x (storage `t`) is in `set`, sorted, within ir::kInListBitmapSpan of its
// least value: the bit x - least of a constant bitmap, in words of 32 bits (64 for 64-bit
// types) that a tree of selects on the word index picks. No row-dependent load, so it
// vectorizes on every target. The difference is taken modulo the lane width: x outside
// [least, greatest] lands on a zero bit or past the bitmap.
llvm::Value* InBitmap(LowerContext& c, llvm::Value* x, TypeId t, std::span<const Scalar> set) {
  auto& b = c.b;
  const unsigned bits = BitWidth(t) <= 32 ? 32 : 64;
  llvm::IntegerType* lane = b.getIntNTy(bits);
  const __int128 least = set.front().int128();
  std::vector<uint64_t> words(static_cast<size_t>(ir::kInListBitmapSpan) / bits, 0);
  for (const Scalar& s : set) {
    const auto d = static_cast<uint64_t>(s.int128() - least);
    words[d / bits] |= uint64_t{1} << (d % bits);
  }
  llvm::Value* wide = IsSignedInt(t) ? b.CreateSExt(x, lane) : b.CreateZExt(x, lane);
  const uint64_t lane_mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  llvm::Value* d = b.CreateSub(wide, llvm::ConstantInt::get(lane, static_cast<uint64_t>(least) & lane_mask));
  llvm::Value* inside = b.CreateICmpULT(d, llvm::ConstantInt::get(lane, words.size() * bits));
  llvm::Value* index = b.CreateLShr(d, bits == 32 ? 5 : 6);
  std::vector<llvm::Value*> level;
  for (uint64_t w : words) level.push_back(llvm::ConstantInt::get(lane, w));
  for (unsigned bit = 0; level.size() > 1; ++bit) {  // pairs by the index's next bit
    llvm::Value* odd = b.CreateTrunc(b.CreateLShr(index, bit), b.getInt1Ty());
    std::vector<llvm::Value*> next;
    for (size_t i = 0; i < level.size(); i += 2) next.push_back(b.CreateSelect(odd, level[i + 1], level[i]));
    level = std::move(next);
  }
  llvm::Value* shift = b.CreateAnd(d, llvm::ConstantInt::get(lane, bits - 1));
  llvm::Value* bit = b.CreateTrunc(b.CreateLShr(level[0], shift), b.getInt1Ty());
  return b.CreateAnd(inside, bit);
}

// A constant array of `values` padded to a power of two with its last value, as a private
// global, and a load of its element at a row-dependent index.
struct ConstantArray {
  llvm::ArrayType* type;
  llvm::GlobalVariable* global;
  llvm::Value* At(llvm::IRBuilder<>& b, llvm::Value* i) const {
    llvm::Value* index[] = {b.getInt64(0), i};
    return b.CreateLoad(type->getElementType(), b.CreateInBoundsGEP(type, global, index));
  }
};
ConstantArray Padded(LowerContext& c, llvm::Type* element, std::vector<llvm::Constant*> values) {
  values.resize(std::bit_ceil(values.size()), values.back());
  llvm::ArrayType* type = llvm::ArrayType::get(element, values.size());
  auto* global = new llvm::GlobalVariable(c.module(), type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantArray::get(type, values), "in_list");
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  global->setAlignment(llvm::Align(64));
  return {type, global};
}

// The index of the last element at or below x of a sorted array of `size` (a power of two)
// elements, or 0: log2(size) steps, each `below(i)` (x < element i: a load and a compare) and a
// select.
template <typename Below>
llvm::Value* SearchIndex(llvm::IRBuilder<>& b, size_t size, Below below) {
  llvm::Value* lo = b.getInt64(0);
  for (size_t step = size / 2; step >= 1; step /= 2) {
    llvm::Value* probe = b.CreateAdd(lo, b.getInt64(static_cast<int64_t>(step)), "", /*HasNUW=*/true, /*HasNSW=*/true);
    lo = b.CreateSelect(below(probe), lo, probe);
  }
  return lo;
}

// A two-choice cuckoo table of an integer set: two arrays of 2^bits slots (2^bits >= the set's
// size, so at most half full), each value in slot h(x, m1) of the first or h(x, m2) of the
// second, h(x, m) = (x * m) >> (lane - bits) over x's bits in a lane of 32 bits (64 for 64-bit
// types), wrapping. Empty slots hold the set's first value, which only that value matches. Built
// by displacement with odd multipliers from a fixed sequence (so one set always gives one
// kernel); nullopt when none of them places every value.
struct CuckooTable {
  unsigned lane = 32, bits = 0;
  uint64_t m1 = 0, m2 = 0;
  std::vector<uint64_t> first, second;  // the lane's bits of each slot's value
};

std::optional<CuckooTable> BuildCuckoo(TypeId t, std::span<const Scalar> set) {
  CuckooTable c;
  c.lane = BitWidth(t) <= 32 ? 32 : 64;
  c.bits = static_cast<unsigned>(std::bit_width(std::bit_ceil(set.size())) - 1);
  const uint64_t mask = c.lane == 64 ? ~uint64_t{0} : (uint64_t{1} << c.lane) - 1;
  std::vector<uint64_t> keys;
  for (const Scalar& s : set) keys.push_back(static_cast<uint64_t>(s.int128()) & mask);
  uint64_t state = 0x9E3779B97F4A7C15;
  auto next = [&] {  // splitmix64
    uint64_t z = (state += 0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
    return ((z ^ (z >> 31)) | 1) & mask;
  };
  const size_t slots = size_t{1} << c.bits;
  for (int attempt = 0; attempt < 32; ++attempt) {
    c.m1 = next();
    c.m2 = next();
    auto slot = [&](uint64_t key, int table) {
      return static_cast<size_t>(((key * (table == 0 ? c.m1 : c.m2)) & mask) >> (c.lane - c.bits));
    };
    std::vector<std::optional<uint64_t>> tables[2] = {std::vector<std::optional<uint64_t>>(slots),
                                                      std::vector<std::optional<uint64_t>>(slots)};
    bool placed_all = true;
    for (uint64_t key : keys) {
      uint64_t moving = key;
      int table = 0;
      bool placed = false;
      for (size_t kick = 0; kick < 64 + 4 * keys.size() && !placed; ++kick) {
        std::optional<uint64_t>& at = tables[table][slot(moving, table)];
        if (!at) {
          at = moving;
          placed = true;
        } else {
          std::swap(*at, moving);
          table ^= 1;
        }
      }
      if (!placed) {
        placed_all = false;
        break;
      }
    }
    if (!placed_all) continue;
    for (int table = 0; table < 2; ++table) {
      std::vector<uint64_t>& out = table == 0 ? c.first : c.second;
      for (const std::optional<uint64_t>& v : tables[table]) out.push_back(v.value_or(keys[0]));
    }
    return c;
  }
  return std::nullopt;
}

// Whether the integer x (storage `t`) is in the set of `table`: two hashes, two row-dependent
// loads (gathers where the target has them) and two compares, whatever the set's size.
llvm::Value* InCuckoo(LowerContext& c, llvm::Value* x, TypeId t, const CuckooTable& table) {
  auto& b = c.b;
  llvm::IntegerType* lane = b.getIntNTy(table.lane);
  llvm::Value* key = IsSignedInt(t) ? b.CreateSExt(x, lane) : b.CreateZExt(x, lane);
  llvm::Value* found = b.getFalse();
  for (int k = 0; k < 2; ++k) {
    std::vector<llvm::Constant*> values;
    for (uint64_t v : k == 0 ? table.first : table.second) {
      values.push_back(llvm::cast<llvm::Constant>(b.CreateTrunc(b.getInt64(v), c.Ty(t))));
    }
    const ConstantArray array = Padded(c, c.Ty(t), std::move(values));
    llvm::Value* hash = b.CreateMul(key, llvm::ConstantInt::get(lane, k == 0 ? table.m1 : table.m2));
    llvm::Value* slot = b.CreateLShr(hash, table.lane - table.bits);
    found = b.CreateOr(found, b.CreateICmpEQ(x, array.At(b, b.CreateZExt(slot, b.getInt64Ty()))));
  }
  return found;
}

// Whether x (fixed-width storage `t`, not 16 bytes) is in `set`, sorted in SQL's order without
// repeats, as ir::InListLookup says: compared in turn, a bitmap, or searched — integers in a
// cuckoo table (two loads), floats (whose equal values differ in bits: -0.0, NaNs) and sets no
// table holds by a branchless binary search (SearchIndex) over a constant array, each step a
// load the vectorizer makes a gather, and one compare.
llvm::Value* InFixedSet(LowerContext& c, llvm::Value* x, TypeId t, std::span<const Scalar> set) {
  auto& b = c.b;
  llvm::Value* any = b.getFalse();
  switch (ir::InListLookup(t, set)) {
    case ir::SetLookup::kCompared:
      for (const Scalar& s : set) any = b.CreateOr(any, c.Equal(x, ConstantOf(c, s, t), t));
      return any;
    case ir::SetLookup::kBitmap:
      return InBitmap(c, x, t, set);
    case ir::SetLookup::kSearched:
      break;
  }
  if (IsInteger(t)) {
    if (std::optional<CuckooTable> table = BuildCuckoo(t, set)) return InCuckoo(c, x, t, *table);
  }
  std::vector<llvm::Constant*> values;
  for (const Scalar& s : set) values.push_back(ConstantOf(c, s, t));
  const ConstantArray array = Padded(c, c.Ty(t), std::move(values));
  llvm::Value* at = SearchIndex(b, array.type->getNumElements(), [&](llvm::Value* i) { return c.Less(x, array.At(b, i), t); });
  return c.Equal(x, array.At(b, at), t);
}

// The same for 16-byte values (decimal128) as their halves: compared in turn, or searched over
// two constant arrays (low halves, high halves) with 128-bit compares on 64-bit lanes.
llvm::Value* In128Set(LowerContext& c, const Int128& x, std::span<const Scalar> set) {
  auto& b = c.b;
  llvm::Value* any = b.getFalse();
  if (ir::InListLookup(TypeId::kI128, set) == ir::SetLookup::kCompared) {
    for (const Scalar& s : set) any = b.CreateOr(any, Equal128(b, x, Const128(b, s.int128())));
    return any;
  }
  std::vector<llvm::Constant*> lows, highs;
  for (const Scalar& s : set) {
    const auto v = static_cast<unsigned __int128>(s.int128());
    lows.push_back(b.getInt64(static_cast<uint64_t>(v)));
    highs.push_back(b.getInt64(static_cast<uint64_t>(v >> 64)));
  }
  const ConstantArray low = Padded(c, b.getInt64Ty(), std::move(lows)), high = Padded(c, b.getInt64Ty(), std::move(highs));
  auto element = [&](llvm::Value* i) { return Int128{low.At(b, i), high.At(b, i)}; };
  llvm::Value* at = SearchIndex(b, low.type->getNumElements(), [&](llvm::Value* i) { return Less128(b, x, element(i)); });
  return Equal128(b, x, element(at));
}

// x in (items): true where x equals a valid item; otherwise null where x or some item is null,
// else false. Literal items form a constant set, searched by type (InFixedSet, strings by
// StringInSet, decimal128 compared in turn); other items are compared one by one. Every item is
// evaluated: no guards (PostgreSQL and DuckDB evaluate the whole list).
Val InList(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const TypeId t = c.arg_type(0);
  const Val& x = a[0];
  auto equal = [&](const Val& y) {
    if (t == TypeId::kI128) return Equal128(b, Widen128(b, x, t), Widen128(b, y, t));
    return c.Equal(x.v, y.v, t);
  };
  bool null_item = false;
  llvm::Value* found = b.getFalse();     // x equals a valid item
  llvm::Value* items_valid = nullptr;    // every item that is not a literal is valid
  for (size_t i = 1; i < a.size(); ++i) {
    const ir::Expr& item = *c.call.args()[i];
    if (item.is_literal()) {
      null_item = null_item || item.value().is_null();
      continue;  // in the set
    }
    llvm::Value* eq = equal(a[i]);
    if (a[i].valid != nullptr) {
      eq = b.CreateAnd(a[i].valid, eq);
      items_valid = c.And(items_valid, a[i].valid);
    }
    found = b.CreateOr(found, eq);
  }
  const std::vector<Scalar> set = ir::InListSet(c.call);
  if (IsString(t)) {
    found = b.CreateOr(found, StringInSet(c, x, set));
  } else if (t == TypeId::kI128 && !set.empty()) {
    found = b.CreateOr(found, In128Set(c, Widen128(b, x, t), set));
  } else if (!set.empty()) {
    found = b.CreateOr(found, InFixedSet(c, x.v, t, set));
  }
  // Decided where x is found or no item is null.
  llvm::Value* decided = null_item ? found : (items_valid != nullptr ? b.CreateOr(found, items_valid) : nullptr);
  return {found, c.And(x.valid, decided)};
}

const Lowering kLowerings[] = {
    {"eq", Compare<kEq>}, {"ne", Compare<kNe>}, {"lt", Compare<kLt>},
    {"le", Compare<kLe>}, {"gt", Compare<kGt>}, {"ge", Compare<kGe>},
    {"and", And},         {"or", Or},           {"not", Not},
    {"xor", Xor},         {"is_null", IsNull},  {"is_not_null", IsNotNull},
    {"coalesce", Coalesce}, {"if", If},         {"between", Between},
    {"greatest", Extreme<true>}, {"least", Extreme<false>}, {"in_list", InList},
};

}  // namespace

std::span<const Lowering> LogicLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
