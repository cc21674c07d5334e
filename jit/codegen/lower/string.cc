// Lowerings of the string functions (jit layer, codegen room). A literal argument is code: equality
// compares the length, then the bytes as constant-size loads compared with constants, read from the
// literal itself where the lengths differ (no branch); over the view layout a literal of up to 12
// bytes is two masked 8-byte compares of the view itself, with no branch and no load of string
// data; a LIKE pattern becomes an equality, a prefix, a suffix, a prefix and suffix, or a search.
// What has no specialization calls a static helper (jit/codegen/string_helpers.h).
#include <optional>
#include <string>

#include "ir/analysis.h"
#include "jit/codegen/codegen_internal.h"
#include "jit/codegen/prefilter.h"
#include "jit/codegen/string_helpers.h"
#include "kernels/strings.h"

namespace rowjit::jit::internal {

llvm::Constant* StringConstant(llvm::Module& m, std::string_view bytes) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Constant* init = llvm::ConstantDataArray::getString(ctx, llvm::StringRef(bytes.data(), bytes.size()),
                                                            /*AddNull=*/false);
  auto* g = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::PrivateLinkage, init, "str");
  g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  g->setAlignment(llvm::Align(1));
  auto* ty = llvm::cast<llvm::StructType>(LlvmType(ctx, TypeId::kUtf8));
  return llvm::ConstantStruct::get(ty, {g, llvm::ConstantInt::get(llvm::Type::getInt64Ty(ctx), bytes.size())});
}

namespace {

enum Op { kEq, kNe, kLt, kLe, kGt, kGe };  // as jit/codegen/lower/logic.cc

struct Str {
  llvm::Value* ptr;
  llvm::Value* len;
};

Str Parts(LowerContext& c, llvm::Value* v) { return {c.b.CreateExtractValue(v, 0), c.b.CreateExtractValue(v, 1)}; }

// Argument i's bytes when it is a non-null literal: what a kernel specializes on.
std::optional<std::string> Literal(const LowerContext& c, size_t i) {
  const ir::Expr& a = *c.call.args()[i];
  if (!a.is_literal() || a.value().is_null()) return std::nullopt;
  return std::string(a.value().str());
}

// A helper call (jit/codegen/string_helpers.h); helpers only read the bytes they are given (and, when
// `writes`, write through their last argument).
llvm::Value* CallHelper(LowerContext& c, std::string_view name, llvm::Type* ret,
                        std::initializer_list<llvm::Value*> args, bool writes = false) {
  std::vector<llvm::Type*> params;
  for (llvm::Value* a : args) params.push_back(a->getType());
  llvm::FunctionCallee f = c.module().getOrInsertFunction(llvm::StringRef(name.data(), name.size()),
                                                          llvm::FunctionType::get(ret, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setOnlyAccessesArgMemory();
    if (!writes) fn->setOnlyReadsMemory();
  }
  return c.b.CreateCall(f, std::vector<llvm::Value*>(args));
}

// Two strings through a helper returning i1 (bool) or i32.
llvm::Value* PairHelper(LowerContext& c, std::string_view name, llvm::Type* ret, Str x, Str y) {
  return CallHelper(c, name, ret, {x.ptr, x.len, y.ptr, y.len});
}

// The low `n` bytes of `bytes` (little-endian) as an integer, and the mask of those bytes.
std::pair<uint64_t, uint64_t> LowBytes(std::string_view bytes, size_t n) {
  uint64_t v = 0, mask = 0;
  for (size_t i = 0; i < n && i < 8; ++i) {
    v |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
    mask |= uint64_t{0xff} << (8 * i);
  }
  return {v, mask};
}

// The `width`-byte load at `at + offset` equals the same bytes of `lit`.
llvm::Value* LoadEquals(LowerContext& c, llvm::Value* at, const std::string& lit, size_t offset, unsigned width) {
  auto& b = c.b;
  llvm::Type* ty = b.getIntNTy(width * 8);
  llvm::Value* v = b.CreateAlignedLoad(ty, b.CreateConstGEP1_64(b.getInt8Ty(), at, offset), llvm::Align(1));
  const uint64_t want = LowBytes(std::string_view(lit).substr(offset), width).first;
  return b.CreateICmpEQ(v, llvm::ConstantInt::get(ty, want));
}

// Where `when` holds, whether the bytes at `at` begin with `lit`; false elsewhere. No branch:
// where `when` is false the bytes are read from the literal itself (always in bounds) and the
// answer masked. Up to 16 bytes: one load of 1, 2, 4 or 8 bytes, or at most two overlapping
// loads compared with constants; longer,
// a constant-size memcmp (expanded into loads by the backend).
llvm::Value* GuardedBytesEqual(LowerContext& c, llvm::Value* when, llvm::Value* at, const std::string& lit) {
  auto& b = c.b;
  const size_t n = lit.size();
  if (n == 0) return when;
  llvm::Value* lit_ptr = b.CreateExtractValue(StringConstant(c.module(), lit), 0);
  llvm::Value* from = b.CreateSelect(when, at, lit_ptr);
  llvm::Value* eq = nullptr;
  if (n == 1 || n == 2 || n == 4 || n == 8) {  // one load of exactly the literal's size
    eq = LoadEquals(c, from, lit, 0, static_cast<unsigned>(n));
  } else if (n < 4) {
    for (size_t k = 0; k < n; ++k) {
      llvm::Value* e = LoadEquals(c, from, lit, k, 1);
      eq = eq ? b.CreateAnd(eq, e) : e;
    }
  } else if (n <= 16) {
    const unsigned w = n <= 8 ? 4 : 8;
    eq = b.CreateAnd(LoadEquals(c, from, lit, 0, w), LoadEquals(c, from, lit, n - w, w));
  } else {
    llvm::FunctionCallee memcmp = c.module().getOrInsertFunction(
        "memcmp", llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false));
    eq = b.CreateICmpEQ(b.CreateCall(memcmp, {from, lit_ptr, b.getInt64(n)}), b.getInt32(0));
  }
  return b.CreateAnd(when, eq);
}

// A view's first 8 bytes (length, then 4 bytes inline or the prefix) against `lit`'s.
llvm::Value* ViewHeadEquals(LowerContext& c, llvm::Value* view, const std::string& lit) {
  auto& b = c.b;
  auto [prefix, prefix_mask] = LowBytes(lit, std::min<size_t>(lit.size(), 4));
  const uint64_t want = lit.size() | prefix << 32, mask = 0xffffffffULL | prefix_mask << 32;
  llvm::Value* head = b.CreateAlignedLoad(b.getInt64Ty(), view, llvm::Align(1));
  return b.CreateICmpEQ(b.CreateAnd(head, b.getInt64(mask)), b.getInt64(want));
}

// s = literal. Views: up to 12 bytes two masked compares of the view (branch-free); longer, the
// length and prefix first, then the out-of-line bytes. Offsets: the length, then the bytes.
llvm::Value* EqualsLiteral(LowerContext& c, const Val& s, const std::string& lit) {
  auto& b = c.b;
  const Str str = Parts(c, s.v);
  if (s.view != nullptr) {
    llvm::Value* head = ViewHeadEquals(c, s.view, lit);
    if (static_cast<int64_t>(lit.size()) <= kViewInlineMax) {
      auto [rest, rest_mask] = LowBytes(lit.size() > 4 ? std::string_view(lit).substr(4) : "", lit.size() > 4 ? lit.size() - 4 : 0);
      llvm::Value* tail = b.CreateAlignedLoad(b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt8Ty(), s.view, 8), llvm::Align(1));
      return b.CreateAnd(head, b.CreateICmpEQ(b.CreateAnd(tail, b.getInt64(rest_mask)), b.getInt64(rest)));
    }
    return GuardedBytesEqual(c, head, str.ptr, lit);
  }
  return GuardedBytesEqual(c, b.CreateICmpEQ(str.len, b.getInt64(lit.size())), str.ptr, lit);
}

llvm::Value* StartsWithLiteral(LowerContext& c, const Val& s, const std::string& lit) {
  auto& b = c.b;
  const Str str = Parts(c, s.v);
  llvm::Value* long_enough = b.CreateICmpUGE(str.len, b.getInt64(lit.size()));
  if (lit.empty()) return b.getTrue();
  if (s.view != nullptr && lit.size() <= 4) {  // the inline bytes or the prefix hold it
    auto [want, mask] = LowBytes(lit, lit.size());
    llvm::Value* head = b.CreateAlignedLoad(b.getInt64Ty(), s.view, llvm::Align(1));
    llvm::Value* prefix = b.CreateLShr(head, b.getInt64(32));
    return b.CreateAnd(long_enough, b.CreateICmpEQ(b.CreateAnd(prefix, b.getInt64(mask)), b.getInt64(want)));
  }
  return GuardedBytesEqual(c, long_enough, str.ptr, lit);
}

llvm::Value* EndsWithLiteral(LowerContext& c, const Val& s, const std::string& lit) {
  auto& b = c.b;
  const Str str = Parts(c, s.v);
  if (lit.empty()) return b.getTrue();
  llvm::Value* long_enough = b.CreateICmpUGE(str.len, b.getInt64(lit.size()));
  llvm::Value* at = b.CreateGEP(b.getInt8Ty(), str.ptr, b.CreateSub(str.len, b.getInt64(lit.size())));
  return GuardedBytesEqual(c, long_enough, at, lit);
}

llvm::Value* ContainsLiteral(LowerContext& c, const Val& s, const std::string& lit) {
  if (lit.empty()) return c.b.getTrue();
  const Str needle = Parts(c, StringConstant(c.module(), lit));
  return PairHelper(c, kHelperContains, c.b.getInt1Ty(), Parts(c, s.v), needle);
}

}  // namespace

llvm::Value* StringInSet(LowerContext& c, const Val& s, std::span<const Scalar> set) {
  auto& b = c.b;
  llvm::Value* any = b.getFalse();
  if (ir::InListLookup(c.arg_type(0), set) == ir::SetLookup::kCompared) {
    for (const Scalar& item : set) any = b.CreateOr(any, EqualsLiteral(c, s, std::string(item.str())));
    return any;
  }
  // A table of {bytes, length} in the helper's order (bytewise, unsigned: kernels::CompareBytes).
  std::vector<llvm::Constant*> entries;
  for (const Scalar& item : set) entries.push_back(StringConstant(c.module(), item.str()));
  llvm::ArrayType* table_ty = llvm::ArrayType::get(entries[0]->getType(), entries.size());
  auto* table = new llvm::GlobalVariable(c.module(), table_ty, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                         llvm::ConstantArray::get(table_ty, entries), "in_list");
  table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  // Not CallHelper: the helper reads the bytes the table points at, memory its arguments do not
  // reach directly, so it is only read-only.
  const Str str = Parts(c, s.v);
  llvm::Type* i64 = b.getInt64Ty();
  llvm::FunctionCallee f = c.module().getOrInsertFunction(
      llvm::StringRef(kHelperInSorted.data(), kHelperInSorted.size()),
      llvm::FunctionType::get(b.getInt1Ty(), {b.getPtrTy(), i64, b.getPtrTy(), i64}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setOnlyReadsMemory();
  }
  return b.CreateCall(f, {table, b.getInt64(static_cast<int64_t>(entries.size())), str.ptr, str.len});
}

llvm::Value* StringLess(LowerContext& c, llvm::Value* x, llvm::Value* y) {
  llvm::Value* r = PairHelper(c, kHelperCompare, c.b.getInt32Ty(), Parts(c, x), Parts(c, y));
  return c.b.CreateICmpSLT(r, c.b.getInt32(0));
}

llvm::Value* StringEqual(LowerContext& c, llvm::Value* x, llvm::Value* y) {
  llvm::Value* r = PairHelper(c, kHelperCompare, c.b.getInt32Ty(), Parts(c, x), Parts(c, y));
  return c.b.CreateICmpEQ(r, c.b.getInt32(0));
}

Val LowerStringCompare(LowerContext& c, std::span<const Val> a, int op) {
  auto& b = c.b;
  if (op == kEq || op == kNe) {
    // A literal on either side is code.
    for (size_t lit_side : {size_t{1}, size_t{0}}) {
      if (auto lit = Literal(c, lit_side)) {
        llvm::Value* eq = EqualsLiteral(c, a[1 - lit_side], *lit);
        return {op == kEq ? eq : b.CreateNot(eq)};
      }
    }
  }
  llvm::Value* r = PairHelper(c, kHelperCompare, b.getInt32Ty(), Parts(c, a[0].v), Parts(c, a[1].v));
  switch (op) {
    case kEq: return {b.CreateICmpEQ(r, b.getInt32(0))};
    case kNe: return {b.CreateICmpNE(r, b.getInt32(0))};
    case kLt: return {b.CreateICmpSLT(r, b.getInt32(0))};
    case kLe: return {b.CreateICmpSLE(r, b.getInt32(0))};
    case kGt: return {b.CreateICmpSGT(r, b.getInt32(0))};
    default: return {b.CreateICmpSGE(r, b.getInt32(0))};
  }
}

namespace {

Val Length(LowerContext& c, std::span<const Val> a) { return {Parts(c, a[0].v).len}; }

Val CharLength(LowerContext& c, std::span<const Val> a) {
  const Str s = Parts(c, a[0].v);
  return {CallHelper(c, kHelperCodePoints, c.b.getInt64Ty(), {s.ptr, s.len})};
}

Val Hash(LowerContext& c, std::span<const Val> a) {
  const Str s = Parts(c, a[0].v);
  return {CallHelper(c, kHelperHash, c.b.getInt64Ty(), {s.ptr, s.len})};
}

Val StartsWith(LowerContext& c, std::span<const Val> a) {
  if (auto lit = Literal(c, 1)) return {StartsWithLiteral(c, a[0], *lit)};
  return {PairHelper(c, kHelperStartsWith, c.b.getInt1Ty(), Parts(c, a[0].v), Parts(c, a[1].v))};
}

Val EndsWith(LowerContext& c, std::span<const Val> a) {
  if (auto lit = Literal(c, 1)) return {EndsWithLiteral(c, a[0], *lit)};
  return {PairHelper(c, kHelperEndsWith, c.b.getInt1Ty(), Parts(c, a[0].v), Parts(c, a[1].v))};
}

Val Contains(LowerContext& c, std::span<const Val> a) {
  if (auto lit = Literal(c, 1)) return {ContainsLiteral(c, a[0], *lit)};
  return {PairHelper(c, kHelperContains, c.b.getInt1Ty(), Parts(c, a[0].v), Parts(c, a[1].v))};
}

template <bool kFoldCase>
Val Like(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const int flags = (c.arg_type(0) == TypeId::kUtf8 ? kLikeUtf8 : 0) | (kFoldCase ? kLikeFoldCase : 0);
  auto general = [&](Str pattern) {
    const Str s = Parts(c, a[0].v);
    return Val{CallHelper(c, kHelperLike, b.getInt1Ty(), {s.ptr, s.len, pattern.ptr, pattern.len, b.getInt32(flags)})};
  };
  const std::optional<std::string> pattern = Literal(c, 1);
  if (!pattern) return general(Parts(c, a[1].v));
  const LikePlan plan = PlanLike(*pattern, c.arg_type(0) == TypeId::kUtf8);
  const auto& p = plan.pieces;
  if (kFoldCase && plan.simple && p.size() == 3 && !p[1].empty()) {  // `%n%`: a folded search
    return {PairHelper(c, kHelperContainsFolded, b.getInt1Ty(), Parts(c, a[0].v),
                       Parts(c, StringConstant(c.module(), kernels::AsciiLower(p[1]))))};
  }
  if (kFoldCase || !plan.simple) return general(Parts(c, StringConstant(c.module(), *pattern)));
  if (p.size() == 1) return {EqualsLiteral(c, a[0], p[0])};
  if (p.size() == 3) return {ContainsLiteral(c, a[0], p[1])};
  // p[0]%p[1]: both anchored, not overlapping.
  if (p[1].empty()) return {StartsWithLiteral(c, a[0], p[0])};
  if (p[0].empty()) return {EndsWithLiteral(c, a[0], p[1])};
  const Str s = Parts(c, a[0].v);
  llvm::Value* fits = b.CreateICmpUGE(s.len, b.getInt64(p[0].size() + p[1].size()));
  return {b.CreateAnd(fits, b.CreateAnd(StartsWithLiteral(c, a[0], p[0]), EndsWithLiteral(c, a[0], p[1])))};
}

}  // namespace

ParsedText ParseByHelper(LowerContext& c, const Val& text, std::string_view helper, llvm::Type* answer, int32_t code,
                         int words) {
  auto& b = c.b;
  llvm::BasicBlock& entry = b.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
  llvm::Value* slot = at.CreateAlloca(at.getInt64Ty(), at.getInt32(words), "parsed");
  const Str x = Parts(c, text.v);
  ParsedText out{CallHelper(c, helper, answer, {x.ptr, x.len, b.getInt32(code), slot}, true), {}};
  for (int w = 0; w < words; ++w) {
    out.words.push_back(b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), slot, w)));
  }
  return out;
}

// cast(utf8 → decimal): kernels::ParseDecimal at the target's precision and scale (failure
// evidence: the helper's answer); a 16-byte result takes both words.
Val TextToDecimal(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType& t = c.call.type();
  const bool wide = t.id == TypeId::kI128;
  // The helper writes both words, whatever the width.
  const ParsedText p = ParseByHelper(c, a[0], kHelperParseDecimal, b.getInt1Ty(), t.precision << 8 | t.scale, 2);
  c.Evidence(b.CreateZExt(p.answer, t.id == TypeId::kI32 ? b.getInt32Ty() : b.getInt64Ty()));
  if (t.id == TypeId::kI32) return {b.CreateTrunc(p.words[0], b.getInt32Ty())};
  Val out{.v = p.words[0]};
  if (wide) out.high = p.words[1];
  return out;
}

// cast(utf8 → bool, integer, float) parses through a helper (failure evidence: the helper's
// answer); binary → utf8 checks UTF-8 through one; otherwise a string cast keeps the bytes.
Val LowerStringCast(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const TypeId s = c.arg_type(0), t = c.result_type();
  const Str x = Parts(c, a[0].v);
  if (IsString(t)) {
    if (s == TypeId::kBinary && t == TypeId::kUtf8) {
      c.Evidence(b.CreateZExt(CallHelper(c, kHelperInvalidUtf8, b.getInt1Ty(), {x.ptr, x.len}), b.getInt8Ty()));
    }
    return {.v = a[0].v, .view = a[0].view};
  }
  const kernels::NumberKind kind = t == TypeId::kBool ? kernels::NumberKind::kBool
                                   : IsSignedInt(t)   ? kernels::NumberKind::kSigned
                                   : IsUnsignedInt(t) ? kernels::NumberKind::kUnsigned
                                   : t == TypeId::kF32 ? kernels::NumberKind::kFloat32
                                                       : kernels::NumberKind::kFloat64;
  const int32_t code = static_cast<int32_t>(kind) << 8 | BitWidth(t);
  const ParsedText parsed = ParseByHelper(c, a[0], kHelperParse, b.getInt1Ty(), code, 1);
  c.Evidence(b.CreateZExt(parsed.answer, b.getInt8Ty()));
  llvm::Value* bits = parsed.words[0];
  if (t == TypeId::kF64) return {b.CreateBitCast(bits, b.getDoubleTy())};
  if (t == TypeId::kF32) return {b.CreateBitCast(b.CreateTrunc(bits, b.getInt32Ty()), b.getFloatTy())};
  return {BitWidth(t) == 64 ? bits : b.CreateTrunc(bits, c.Ty(t))};
}

namespace {

const Lowering kLowerings[] = {
    {"length", Length},         {"char_length", CharLength}, {"starts_with", StartsWith},
    {"ends_with", EndsWith},    {"contains", Contains},     {"like", Like<false>},
    {"ilike", Like<true>},       {"hash", Hash},             {"text_to_decimal", TextToDecimal},
};

}  // namespace

std::span<const Lowering> StringLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
