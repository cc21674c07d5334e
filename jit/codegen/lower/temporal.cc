// Lowerings of the temporal functions (jit layer, codegen room): fields and truncations of dates
// and timestamps as branch-free civil arithmetic (days to a civil date by Neri and Schneider's
// Euclidean affine functions, civil dates to days by H. Hinnant's algorithm): divisions by
// constants, which become multiplies, and selects; no table, no branch. Days since 1970 come
// from one floor division of the storage (i64); the 400-year era split keeps everything after it
// in non-negative i32 lanes.
#include "ir/temporal.h"
#include "jit/codegen/codegen_internal.h"

#include <cmath>
#include <optional>

#include "jit/base/target.h"
#include "jit/codegen/string_helpers.h"
#include "runtime/timezone.h"

namespace rowjit::jit::internal {
namespace {

using ir::TemporalField;
using ir::TemporalUnit;

llvm::Value* K(llvm::Value* like, int64_t v) { return llvm::ConstantInt::get(like->getType(), v, true); }

// x / d for i32 lanes holding 0 <= x <= max: (x * m) >> s with m < 2^32 / (max + 1), exact for
// every such x when (m * d - 2^s) * max < 2^s, is one 32-bit multiply and a shift where the
// vectorizer's unsigned division by a constant is two widening multiplies and shuffles. The
// calendar's operands are small (a day of a 400-year era is below 146,097), so most of its
// divisions have one; the others stay divisions.
llvm::Value* UDiv(llvm::IRBuilder<>& b, llvm::Value* x, uint64_t d, uint64_t max) {
  for (int s = 0; s < 32; ++s) {
    const uint64_t m = ((uint64_t{1} << s) + d - 1) / d;
    if (m * (max + 1) > (uint64_t{1} << 32)) break;
    if ((m * d - (uint64_t{1} << s)) * max < (uint64_t{1} << s)) {
      return b.CreateLShr(b.CreateMul(x, K(x, static_cast<int64_t>(m))), K(x, s));
    }
  }
  return b.CreateUDiv(x, K(x, static_cast<int64_t>(d)));
}
llvm::Value* URem(llvm::IRBuilder<>& b, llvm::Value* x, uint64_t d, uint64_t max) {
  return b.CreateSub(x, b.CreateMul(UDiv(b, x, d, max), K(x, static_cast<int64_t>(d))));
}

// Floor division of an i64 by a positive constant, with its remainder, for quotients below 2^50
// in magnitude (every call below: days since 1970 of any timestamp are below 2^47). x86 before
// AVX-512 has no 64-bit vector multiply-high, so an i64 division by a constant keeps a loop
// scalar; this estimates the quotient in doubles (x split into an exact high half and a low half
// turned exact through 2^52, one rounding), truncates it through 1.5 * 2^52 (with AVX-512DQ:
// converts both ways in one instruction, QuadConversions), and corrects it by one either way
// from the exact i64 remainder. The estimate is off by less than 0.05.
llvm::Value* F64(llvm::IRBuilder<>& b, llvm::Value* like, double v) {
  return llvm::ConstantFP::get(like->getType()->getWithNewType(b.getDoubleTy()), v);
}

// x * d for a constant d = 2^k * odd with odd < 2^31, where x is i32 (sign-extended) or i64:
// from i32, one signed 32 x 32 -> 64 multiply (vpmuldq) and a shift.
llvm::Value* MulI64(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  llvm::Type* i64 = x->getType()->getWithNewType(b.getInt64Ty());
  if (x->getType() == i64) return b.CreateMul(x, K(x, d));
  const int shift = __builtin_ctzll(static_cast<uint64_t>(d));
  llvm::Value* wide = b.CreateSExt(x, i64);
  llvm::Value* p = b.CreateMul(wide, K(wide, d >> shift));
  return shift == 0 ? p : b.CreateShl(p, K(p, shift));
}

}  // namespace

bool QuadConversions(llvm::IRBuilder<>& b) {
  return b.GetInsertBlock()->getModule()->getModuleFlag(kQuadConversionsFlag) != nullptr;
}

llvm::Value* I64ToF64(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* f64 = x->getType()->getWithNewType(b.getDoubleTy());
  if (QuadConversions(b)) return b.CreateSIToFP(x, f64);
  llvm::Type* i32 = x->getType()->getWithNewType(b.getInt32Ty());
  llvm::Value* hi = b.CreateSIToFP(b.CreateTrunc(b.CreateAShr(x, K(x, 32)), i32), f64);
  llvm::Value* lo = b.CreateFSub(b.CreateBitCast(b.CreateOr(b.CreateAnd(x, K(x, 0xffffffff)), K(x, 0x4330000000000000)), f64),
                                 F64(b, x, 0x1p52));
  return b.CreateFAdd(b.CreateFMul(hi, F64(b, x, 0x1p32)), lo);
}

llvm::Value* IntegralF64ToI64(llvm::IRBuilder<>& b, llvm::Value* f) {
  llvm::Type* i64 = f->getType()->getWithNewType(b.getInt64Ty());
  // Frozen: a caller's out-of-range lane (one it selects away) must not be poison.
  if (QuadConversions(b)) return b.CreateFreeze(b.CreateFPToSI(f, i64));
  llvm::Value* high = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(f, F64(b, f, 0x1p-32)));
  llvm::Value* low = b.CreateFSub(f, b.CreateFMul(high, F64(b, f, 0x1p32)));  // exact, in [0, 2^32)
  auto to_int = [&](llvm::Value* g) {  // an integral double below 2^51 in magnitude
    return b.CreateSub(b.CreateBitCast(b.CreateFAdd(g, F64(b, f, 0x1.8p52)), i64),
                       llvm::ConstantInt::get(i64, 0x4338000000000000));
  };
  return b.CreateAdd(b.CreateShl(to_int(high), llvm::ConstantInt::get(i64, 32)), to_int(low));
}

namespace {

// The quotient's estimate from doubles, truncated to an integer (i64 lanes).
llvm::Value* QuotientEstimate(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  llvm::Value* xf = I64ToF64(b, x);
  llvm::Value* qf = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(xf, F64(b, x, 1.0 / static_cast<double>(d))));
  if (QuadConversions(b)) return IntegralF64ToI64(b, qf);
  return b.CreateSub(b.CreateBitCast(b.CreateFAdd(qf, F64(b, x, 0x1.8p52)), x->getType()), K(x, 0x4338000000000000));
}

// As FloorDivMod, for an i64 x whose quotient fits i32 (microsecond and nanosecond timestamps
// by a day: below 1.1e8): the quotient in i32 lanes, the remainder's product one vpmuldq.
// When d is 2^s times an odd m below 2^29 (a day of microseconds: 2^13 * 10546875), the
// correction runs in i32 lanes too: with x = xh * 2^s + xl, x - q * d = (xh - q * m) * 2^s + xl,
// and t = xh - q * m is within 2m of 0, so the low 32 bits of xh and of q * m (one vpmulld) give
// it exactly; r < 0 exactly when t < 0 and r >= d when t >= m, since 0 <= xl < 2^s. With
// AVX-512DQ the 64-bit product would be vpmullq, three micro-ops a vector of half the lanes
// (bench: `duckdb/year_timestamp/jit`).
DivMod FloorDivModToI32(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  llvm::Value* q = b.CreateTrunc(QuotientEstimate(b, x, d), x->getType()->getWithNewType(b.getInt32Ty()));
  const int s = __builtin_ctzll(static_cast<uint64_t>(d));
  const int64_t m = d >> s;
  if (s <= 32 && m < (int64_t{1} << 29)) {
    llvm::Value* xh = b.CreateTrunc(b.CreateLShr(x, K(x, s)), q->getType());
    llvm::Value* t = b.CreateSub(xh, b.CreateMul(q, K(q, m)));
    llvm::Value* low = b.CreateICmpSLT(t, K(t, 0));
    llvm::Value* high = b.CreateICmpSGE(t, K(t, m));
    q = b.CreateAdd(q, b.CreateSelect(low, K(q, -1), b.CreateSelect(high, K(q, 1), K(q, 0))));
    t = b.CreateAdd(t, b.CreateSelect(low, K(t, m), b.CreateSelect(high, K(t, -m), K(t, 0))));
    llvm::Value* r = b.CreateOr(b.CreateShl(b.CreateSExt(t, x->getType()), K(x, s)), b.CreateAnd(x, K(x, (int64_t{1} << s) - 1)));
    return {q, r};
  }
  llvm::Value* r = b.CreateSub(x, MulI64(b, q, d));
  llvm::Value* low = b.CreateICmpSLT(r, K(x, 0));
  llvm::Value* high = b.CreateICmpSGE(r, K(x, d));
  q = b.CreateAdd(q, b.CreateSelect(low, K(q, -1), b.CreateSelect(high, K(q, 1), K(q, 0))));
  r = b.CreateAdd(r, b.CreateSelect(low, K(x, d), b.CreateSelect(high, K(x, -d), K(x, 0))));
  return {q, r};
}

// Floor division of an i32 by a positive constant (the vectorizer's multiply-high form).
DivMod FloorDivModI32(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  llvm::Value* q = b.CreateSDiv(x, K(x, d));
  llvm::Value* r = b.CreateSRem(x, K(x, d));
  llvm::Value* neg = b.CreateICmpSLT(r, K(x, 0));
  return {b.CreateSub(q, b.CreateZExt(neg, x->getType())), b.CreateAdd(r, b.CreateSelect(neg, K(x, d), K(x, 0)))};
}

}  // namespace

DivMod FloorDivMod(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  if (d == 1) return {x, K(x, 0)};
  if (x->getType()->getScalarSizeInBits() == 32) return FloorDivModI32(b, x, d);
  llvm::Value* q = QuotientEstimate(b, x, d);
  llvm::Value* r = b.CreateSub(x, b.CreateMul(q, K(x, d)));
  llvm::Value* low = b.CreateICmpSLT(r, K(x, 0));
  llvm::Value* high = b.CreateICmpSGE(r, K(x, d));
  q = b.CreateAdd(q, b.CreateSelect(low, K(x, -1), b.CreateSelect(high, K(x, 1), K(x, 0))));
  r = b.CreateAdd(r, b.CreateSelect(low, K(x, d), b.CreateSelect(high, K(x, -d), K(x, 0))));
  return {q, r};
}

DivMod FloorDivModWide(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  if (d == 1) return {x, K(x, 0)};
  // The quotient's estimate (below 2^62: d >= 2), turned into an integer by IntegralF64ToI64. It
  // is off by at most |x| * 2^-51 / d + 1, so x - q1 * d is small:
  // exact in i64 (computed modulo 2^64), and its own quotient is within FloorDivMod's range.
  llvm::Value* qf = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFMul(I64ToF64(b, x), F64(b, x, 1.0 / static_cast<double>(d))));
  llvm::Value* q1 = IntegralF64ToI64(b, qf);
  const DivMod rest = FloorDivMod(b, b.CreateSub(x, b.CreateMul(q1, K(x, d))), d);
  return {b.CreateAdd(q1, rest.q), rest.r};
}

namespace {

bool IsZero(llvm::Value* v) {
  auto* k = llvm::dyn_cast<llvm::Constant>(v);
  return k != nullptr && k->isNullValue();
}

// Whether a + b (or a - b) wrapped: the operands' signs against the result's.
llvm::Value* AddWrapped(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, llvm::Value* r) {
  return b.CreateICmpSLT(b.CreateAnd(b.CreateXor(x, r), b.CreateXor(y, r)), K(r, 0));
}
llvm::Value* SubWrapped(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, llvm::Value* r) {
  return b.CreateICmpSLT(b.CreateAnd(b.CreateXor(x, y), b.CreateXor(x, r)), K(r, 0));
}

// A search table of a zone (ascending keys in the timestamp's units) and, for each bucket of
// 2^shift units from the first key, how many keys lie below the bucket's start: a value's count
// of keys at or below it is its bucket's start plus a branch-free search of `steps` halvings
// over the few keys inside the bucket (3 loads a value for a zone with two changes a year,
// where a search of the whole table takes 11).
struct SearchTable {
  llvm::GlobalVariable* keys = nullptr;    // padded with 2^steps INT64_MAX
  llvm::GlobalVariable* starts = nullptr;  // per bucket; nullptr: no keys
  int64_t first = 0;
  int shift = 0;
  int64_t last_bucket = 0;
  int steps = 0;
};

// A zone's offsets as constant tables of the kernel (runtime/timezone.h ZoneRules), in the
// timestamp's units: transitions that the storage cannot hold are left out (no value reaches
// them). Row-dependent loads from the tables (gathers where the target has them) replace any
// branch; the tables indexed by a count j (0..n changes) repeat their last entry past n.
struct ZoneTables {
  SearchTable utc;                          // transition instants
  SearchTable local;                        // transition i's first local time, min of both offsets
  llvm::GlobalVariable* offset = nullptr;   // j: the offset after j changes
  llvm::GlobalVariable* settled = nullptr;  // j: the local time from which the offset after j-1 holds alone
  llvm::GlobalVariable* before = nullptr;   // j: the offset before change j-1
  llvm::GlobalVariable* instant = nullptr;  // j: change j-1's instant
  bool fold = false;                        // later values fold by 400-year cycles
  int64_t fold_from = 0, cycle_start = 0, cycle = 0;
};

llvm::GlobalVariable* TableGlobal(llvm::Module& m, const std::string& name, const std::vector<int64_t>& values) {
  if (llvm::GlobalVariable* g = m.getNamedGlobal(name)) return g;
  llvm::Constant* init = llvm::ConstantDataArray::get(m.getContext(), llvm::ArrayRef<int64_t>(values));
  return new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage, init, name);
}

std::optional<int64_t> Scaled(int64_t seconds, int64_t per_second) {
  int64_t out = 0;
  if (__builtin_mul_overflow(seconds, per_second, &out)) return std::nullopt;
  return out;
}

int64_t SaturatingAdd(int64_t x, int64_t y) {
  int64_t out = 0;
  if (__builtin_add_overflow(x, y, &out)) return y > 0 ? INT64_MAX : INT64_MIN;
  return out;
}

// At most 4,096 buckets (32 KiB), as few keys in each as the span allows.
SearchTable MakeSearch(llvm::Module& m, const std::string& name, std::vector<int64_t> keys) {
  SearchTable s;
  if (keys.empty()) return s;
  s.first = keys.front();
  const uint64_t span = static_cast<uint64_t>(keys.back()) - static_cast<uint64_t>(keys.front());
  while ((span >> s.shift) >= 4096) ++s.shift;
  s.last_bucket = static_cast<int64_t>(span >> s.shift);
  std::vector<int64_t> starts(static_cast<size_t>(s.last_bucket) + 1);
  int64_t most = 0;
  for (size_t b = 0; b < starts.size(); ++b) {
    const auto start = static_cast<int64_t>(static_cast<uint64_t>(s.first) + (uint64_t{b} << s.shift));
    starts[b] = std::lower_bound(keys.begin(), keys.end(), start) - keys.begin();
    if (b > 0) most = std::max(most, starts[b] - starts[b - 1]);
  }
  most = std::max(most, static_cast<int64_t>(keys.size()) - starts.back());
  while ((int64_t{1} << s.steps) - 1 < most) ++s.steps;
  keys.resize(keys.size() + (size_t{1} << s.steps), INT64_MAX);
  s.keys = TableGlobal(m, name + ".keys", keys);
  s.starts = TableGlobal(m, name + ".starts", starts);
  return s;
}

// The tables of a zoned timestamp argument whose local time differs from UTC, or nullopt.
std::optional<ZoneTables> ZoneTablesOf(LowerContext& c, const DataType& t) {
  if (!InLocalZone(t)) return std::nullopt;
  auto loaded = LoadZoneRules(TimeZoneName(t.tz));
  if (!loaded.ok()) return std::nullopt;  // the binder refused it
  const ZoneRules& z = **loaded;
  const int64_t ps = UnitsPerDay(t.time_unit()) / 86'400;
  // The transitions within the storage's reach, and the offset before the first of them.
  std::vector<int64_t> at;
  std::vector<int64_t> off = {z.offsets[0] * ps};
  for (size_t i = 0; i < z.transitions.size(); ++i) {
    const auto scaled = Scaled(z.transitions[i], ps);
    if (!scaled && z.transitions[i] > 0) break;
    if (!scaled) {  // before the storage's range: its offset holds from the range's start
      off = {z.offsets[i + 1] * ps};
      continue;
    }
    at.push_back(*scaled);
    off.push_back(z.offsets[i + 1] * ps);
  }
  const size_t n = at.size();
  std::vector<int64_t> local(n);
  for (size_t i = 0; i < n; ++i) local[i] = SaturatingAdd(at[i], std::min(off[i], off[i + 1]));
  llvm::Module& m = *c.b.GetInsertBlock()->getModule();
  c.b.GetInsertBlock()->getParent()->addFnAttr(kTableGathersAttribute);
  const std::string prefix = fmt::format("zone.{}.{}.", TimeZoneName(t.tz), ps);
  ZoneTables out;
  out.utc = MakeSearch(m, prefix + "utc", at);
  out.local = MakeSearch(m, prefix + "local", local);
  // Counts reach n plus a search's padding at INT64_MAX: the last entry repeats.
  const size_t size = n + 1 + (size_t{1} << std::max(out.utc.steps, out.local.steps));
  std::vector<int64_t> offset(size), settled(size), before(size), instant(size);
  for (size_t j = 0; j < size; ++j) {
    const size_t k = std::min(j, n);
    offset[j] = off[k];
    settled[j] = k == 0 ? INT64_MIN : SaturatingAdd(at[k - 1], std::max(off[k - 1], off[k]));
    before[j] = off[k == 0 ? 0 : k - 1];
    instant[j] = k == 0 ? 0 : at[k - 1];
  }
  out.offset = TableGlobal(m, prefix + "offset", offset);
  out.settled = TableGlobal(m, prefix + "settled", settled);
  out.before = TableGlobal(m, prefix + "before", before);
  out.instant = TableGlobal(m, prefix + "instant", instant);
  if (z.cyclic) {
    const auto start = Scaled(z.cycle_start, ps), cycle = Scaled(ZoneRules::kCycleSeconds, ps);
    int64_t end = 0;
    if (start && cycle && !__builtin_add_overflow(*start, *cycle, &end)) {
      out.fold = true;
      out.cycle_start = *start, out.cycle = *cycle, out.fold_from = end;
    }
  }
  return out;
}

llvm::Value* TableAt(llvm::IRBuilder<>& b, llvm::GlobalVariable* table, llvm::Value* index) {
  llvm::Value* at = b.CreateInBoundsGEP(table->getValueType(), table, {b.getInt64(0), index});
  return b.CreateLoad(b.getInt64Ty(), at);
}

// How many keys of a search table are at or below x: the bucket's start (x below the first key
// reads bucket 0, past the last the last bucket), then `steps` halvings, each a load and a select.
llvm::Value* CountAtOrBelow(llvm::IRBuilder<>& b, const SearchTable& t, llvm::Value* x) {
  if (t.starts == nullptr) return b.getInt64(0);
  llvm::Value* from = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, b.getInt64(t.first));
  llvm::Value* bucket = b.CreateLShr(b.CreateSub(from, b.getInt64(t.first)), b.getInt64(t.shift));  // unsigned distance
  bucket = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, bucket, b.getInt64(t.last_bucket));
  llvm::Value* base = TableAt(b, t.starts, bucket);
  for (int s = t.steps - 1; s >= 0; --s) {
    const int64_t half = int64_t{1} << s;
    llvm::Value* e = TableAt(b, t.keys, b.CreateAdd(base, b.getInt64(half - 1)));
    base = b.CreateAdd(base, b.CreateSelect(b.CreateICmpSLE(e, x), b.getInt64(half), b.getInt64(0)));
  }
  return base;
}

// x folded into the generated cycle where it lies past it (the offsets repeat every 400 years),
// and what was taken off.
std::pair<llvm::Value*, llvm::Value*> Fold(llvm::IRBuilder<>& b, const ZoneTables& z, llvm::Value* x) {
  if (!z.fold) return {x, b.getInt64(0)};
  const DivMod cycles = FloorDivModWide(b, b.CreateSub(x, b.getInt64(z.cycle_start)), z.cycle);
  llvm::Value* past = b.CreateICmpSGE(x, b.getInt64(z.fold_from));
  llvm::Value* folded = b.CreateAdd(cycles.r, b.getInt64(z.cycle_start));
  return {b.CreateSelect(past, folded, x), b.CreateSelect(past, b.CreateSub(x, folded), b.getInt64(0))};
}

// The offset (units) in effect at the instant v.
llvm::Value* OffsetAt(llvm::IRBuilder<>& b, const ZoneTables& z, llvm::Value* v) {
  return TableAt(b, z.offset, CountAtOrBelow(b, z.utc, Fold(b, z, v).first));
}

// The first instant whose local time is at or after `local` (runtime ZoneRules::FirstInstantAtOrAfter).
llvm::Value* FirstInstantAtOrAfter(llvm::IRBuilder<>& b, const ZoneTables& z, llvm::Value* local) {
  const auto [x, shift] = Fold(b, z, local);
  llvm::Value* j = CountAtOrBelow(b, z.local, x);
  llvm::Value* after = TableAt(b, z.offset, j);
  llvm::Value* before = TableAt(b, z.before, j);
  llvm::Value* inside = b.CreateSelect(b.CreateICmpSGT(after, before), TableAt(b, z.instant, j), b.CreateSub(x, before));
  llvm::Value* r = b.CreateSelect(b.CreateICmpSGE(x, TableAt(b, z.settled, j)), b.CreateSub(x, after), inside);
  return b.CreateAdd(r, shift);
}

// The offset that makes a local time an instant (runtime ZoneRules::OffsetOfLocal): the
// earlier where it occurs twice, the one before a skipped range inside it.
llvm::Value* OffsetOfLocal(llvm::IRBuilder<>& b, const ZoneTables& z, llvm::Value* local) {
  llvm::Value* x = Fold(b, z, local).first;
  llvm::Value* j = CountAtOrBelow(b, z.local, x);
  return b.CreateSelect(b.CreateICmpSGE(x, TableAt(b, z.settled, j)), TableAt(b, z.offset, j), TableAt(b, z.before, j));
}

// The argument's storage as i64, its days since 1970 (0 for a time) and units since midnight.
struct Source {
  llvm::Value* v;  // i64
  int64_t per_day;
  llvm::Value* days;
  llvm::Value* within;
};

// `local`: a zoned timestamp's day and units are its local time's (the offset added to the
// units, a day carried either way).
Source SourceOf(LowerContext& c, const Val& a, bool local = true) {
  auto& b = c.b;
  const DataType t = c.call.args()[0]->type();
  llvm::Value* v = a.v;
  if (t.id == TypeId::kI32) v = b.CreateSExt(v, b.getInt64Ty());
  const int64_t per_day = UnitsPerDay(t.time_unit());
  // Microseconds and nanoseconds: every day number fits i32 (below 1.1e8), so the calendar runs
  // in i32 lanes, twice as many a vector, with no 64-bit multiply.
  const bool narrow = per_day >= 86'400'000'000;
  DivMod split = narrow ? FloorDivModToI32(b, v, per_day) : FloorDivMod(b, v, per_day);
  if (t.logical == LogicalKind::kTime) return {v, per_day, K(split.q, 0), split.r};
  if (const auto zone = local ? ZoneTablesOf(c, t) : std::nullopt) {
    llvm::Value* within = b.CreateAdd(split.r, OffsetAt(b, *zone, v));
    llvm::Value* up = b.CreateICmpSGE(within, K(within, per_day));
    llvm::Value* down = b.CreateICmpSLT(within, K(within, 0));
    split.q = b.CreateSub(b.CreateAdd(split.q, b.CreateZExt(up, split.q->getType())), b.CreateZExt(down, split.q->getType()));
    split.r = b.CreateAdd(within, b.CreateSelect(up, K(within, -per_day), b.CreateSelect(down, K(within, per_day), K(within, 0))));
  }
  return {v, per_day, split.q, split.r};
}

// A civil date from days since 1970-01-01 (i64, or i32 below 1.1e8 in magnitude).
struct Civil {
  llvm::Value* era;    // the days' type: 400-year cycles since 0000-03-01
  llvm::Value* doe;    // i32: day of the era [0, 146096]
  llvm::Value* yoe;    // i32: year of the era [0, 399] (years starting March 1st)
  llvm::Value* doy;    // i32: day of that March-based year [0, 365]
  llvm::Value* month;  // i32: 1..12
  llvm::Value* day;    // i32: 1..31
  llvm::Value* century;  // i32: century of the era, 0..3
  llvm::Value* n2;       // i32: 4 * (day of the century) + 3
};

// floor(x / d) into the integer type `to`, for x a non-negative whole float or double, exact in
// its type, and d > 1: x times 1/d rounded up, truncated. Exact: a multiple of d gives at least
// its quotient, and x / d is at least 1/d below the next integer otherwise, far more than the
// product's rounding error (x / d times 2^-24 for a float, 2^-53 for a double, with x below 2^24
// or 2^33 here).
llvm::Value* DivByReciprocal(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d, llvm::Type* to) {
  const bool single = x->getType()->getScalarType()->isFloatTy();
  const double up = single ? static_cast<double>(std::nextafter(1.0f / static_cast<float>(d), 1.0f))
                           : std::nextafter(1.0 / static_cast<double>(d), 1.0);
  return b.CreateFPToUI(b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), up)), to);
}

// x / d for an unsigned i32 x below 2^24 (whole in a float): DivByReciprocal in float lanes.
llvm::Value* DivSmall(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d) {
  return DivByReciprocal(b, b.CreateUIToFP(x, x->getType()->getWithNewType(b.getFloatTy())), d, x->getType());
}

// `split`: the era split of days + 719468 when the caller made it (EraOfDate32), else nullopt.
Civil CivilOf(llvm::IRBuilder<>& b, llvm::Value* days, std::optional<DivMod> split = std::nullopt) {
  Civil c{};
  const DivMod era = split ? *split : FloorDivMod(b, b.CreateAdd(days, K(days, 719'468)), 146'097);
  c.era = era.q;
  c.doe = b.CreateTruncOrBitCast(era.r, era.r->getType()->getWithNewType(b.getInt32Ty()));
  llvm::Value* doe = c.doe;
  // C. Neri and L. Schneider's Euclidean affine functions ("Euclidean affine functions and their
  // application to calendar algorithms", 2022) over the era: 4 doe + 3 split by 146097 into the
  // century and its day, then 4 * that day + 3 by 1461 into the year of the century and its day,
  // then the month and day by one multiply and shift. Both divisions are one float multiply
  // (DivSmall), where H. Hinnant's form takes eight integer divisions by constants, four of them
  // 64-bit products (bench: `temporal/year_date32/jit`, `temporal/month_date32/jit`).
  llvm::Value* n1 = b.CreateOr(b.CreateShl(doe, K(doe, 2)), K(doe, 3));
  llvm::Value* century = DivSmall(b, n1, 146'097);  // 0..3
  llvm::Value* n2 = b.CreateOr(b.CreateAnd(b.CreateSub(n1, b.CreateMul(century, K(doe, 146'097))), K(doe, ~int64_t{3})),
                               K(doe, 3));  // 4 * (day of the century) + 3
  llvm::Value* z = DivSmall(b, n2, 1461);  // year of the century, 0..99
  c.century = century;
  c.n2 = n2;
  c.yoe = b.CreateAdd(b.CreateMul(century, K(doe, 100)), z);
  c.doy = b.CreateLShr(b.CreateSub(n2, b.CreateMul(z, K(doe, 1461))), K(doe, 2));
  llvm::Value* n3 = b.CreateAdd(b.CreateMul(c.doy, K(doe, 2141)), K(doe, 197'913));
  llvm::Value* month = b.CreateLShr(n3, K(doe, 16));  // 3..14: March to the next February
  c.day = b.CreateAdd(UDiv(b, b.CreateAnd(n3, K(doe, 0xFFFF)), 2141, 0xFFFF), K(doe, 1));
  c.month = b.CreateSelect(b.CreateICmpUGE(c.doy, K(doe, 306)), b.CreateSub(month, K(doe, 12)), month);
  return c;
}

// The 400-year era split of a date32's days (`days` i32, any value): days + 719468 as
// era * 146097 + doe in 32-bit lanes, where the i64 floor division would keep the vector at the
// i64 width (`temporal/year_date32/jit`). The days biased by 2^31 are an unsigned u < 2^32, and
// days + 719468 = v - kBiasEras * 146097 with v = u + kRest below 2^33, whole in a double:
// v / 146097 is one double multiply (DivByReciprocal), cheaper in vectors than an integer
// division's 64-bit products; the remainder, below 146097, is v - q * 146097 in wrapping 32-bit
// lanes.
DivMod EraOfDate32(llvm::IRBuilder<>& b, llvm::Value* days) {
  constexpr int64_t kEra = 146'097, kBiasEras = 14'695;
  constexpr int64_t kRest = 719'468 - (int64_t{1} << 31) + kBiasEras * kEra;
  static_assert(kRest >= 0 && kRest < kEra, "the bias leaves a remainder of one era at most");
  llvm::Value* u = b.CreateXor(days, K(days, -(int64_t{1} << 31)));  // days + 2^31, as unsigned
  llvm::Type* f64 = u->getType()->getWithNewType(b.getDoubleTy());
  llvm::Value* v = b.CreateFAdd(b.CreateUIToFP(u, f64), llvm::ConstantFP::get(f64, static_cast<double>(kRest)));
  llvm::Value* q = DivByReciprocal(b, v, kEra, u->getType());
  return {b.CreateSub(q, K(q, kBiasEras)), b.CreateSub(b.CreateAdd(u, K(u, kRest)), b.CreateMul(q, K(u, kEra)))};
}

// CivilOf, and for a date32's days (an i32 sign-extended) the era split in 32-bit lanes: `era`
// is then i32 (|era| < 14,700), for the fields only.
Civil CivilOfField(llvm::IRBuilder<>& b, llvm::Value* days) {
  auto* ext = llvm::dyn_cast<llvm::SExtInst>(days);
  if (ext == nullptr || ext->getSrcTy()->getScalarSizeInBits() != 32) return CivilOf(b, days);
  return CivilOf(b, nullptr, EraOfDate32(b, ext->getOperand(0)));
}

// The civil year (i64): January and February belong to the next March-based year. With n2 =
// 1461 z + r (z the March-based year of the century, r / 4 its day), January and February are
// r >= 4 * 306 = 1224, so z plus that test is floor((n2 + 1461 - 1224) / 1461): one float
// division, no remainder, day or month (bench: `temporal/year_date32/jit`). The year is then
// 100 * (4 * era + century) + that.
llvm::Value* YearOf(llvm::IRBuilder<>& b, const Civil& c) {
  llvm::Type* t = c.era->getType();
  llvm::Value* z = DivSmall(b, b.CreateAdd(c.n2, K(c.n2, 1461 - 1224)), 1461);  // n2 + 237 < 2^24
  llvm::Value* centuries = b.CreateAdd(b.CreateShl(c.era, K(c.era, 2)), b.CreateZExtOrBitCast(c.century, t));
  llvm::Value* y = b.CreateAdd(b.CreateMul(centuries, K(centuries, 100)), b.CreateZExtOrBitCast(z, t));
  return b.CreateSExtOrBitCast(y, b.getInt64Ty());
}

// Days since 1970 of the first day of month `month` (1..12, i32) in the March-based year `yoe`
// of `era`, for months March..December of that year and January/February of the next one.
llvm::Value* DaysOfMonthStart(llvm::IRBuilder<>& b, llvm::Value* era, llvm::Value* yoe, llvm::Value* month) {
  llvm::Value* mp = b.CreateSelect(b.CreateICmpUGT(month, K(month, 2)), b.CreateSub(month, K(month, 3)),
                                   b.CreateAdd(month, K(month, 9)));
  llvm::Value* doy = UDiv(b, b.CreateAdd(b.CreateMul(mp, K(mp, 153)), K(mp, 2)), 5, 1685);
  llvm::Value* doe = b.CreateAdd(b.CreateSub(b.CreateAdd(b.CreateMul(yoe, K(yoe, 365)), UDiv(b, yoe, 4, 399)),
                                             UDiv(b, yoe, 100, 399)),
                                 doy);
  llvm::Value* days = b.CreateAdd(b.CreateMul(era, K(era, 146'097)), b.CreateZExtOrBitCast(doe, era->getType()));
  return b.CreateSub(days, K(days, 719'468));
}

llvm::Value* Leap(llvm::IRBuilder<>& b, llvm::Value* year_of_era_civil) {
  llvm::Value* y = year_of_era_civil;  // i32, the civil year modulo 400, in [0, 399]
  llvm::Value* by4 = b.CreateICmpEQ(URem(b, y, 4, 399), K(y, 0));
  llvm::Value* by100 = b.CreateICmpEQ(URem(b, y, 100, 399), K(y, 0));
  llvm::Value* by400 = b.CreateICmpEQ(y, K(y, 0));
  return b.CreateOr(b.CreateAnd(by4, b.CreateNot(by100)), by400);
}

template <TemporalField kField>
Val Field(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const Source s = SourceOf(c, a[0], kField != TemporalField::kEpoch);  // epoch: seconds since 1970 UTC
  llvm::Type* i64 = b.getInt64Ty();
  const int64_t per_second = s.per_day / 86'400;
  if constexpr (kField == TemporalField::kEpoch) {
    if (per_second == 0) return {b.CreateMul(s.v, K(s.v, 86'400))};  // date32: days
    return {b.CreateAdd(MulI64(b, s.days, 86'400), b.CreateSExt(FloorDivModToI32(b, s.within, per_second).q, i64))};
  }
  if constexpr (kField == TemporalField::kHour || kField == TemporalField::kMinute || kField == TemporalField::kSecond) {
    // Seconds of the day fit i32: the rest in i32 lanes.
    llvm::Value* sec = per_second == 0   ? b.getInt32(0)
                       : per_second == 1 ? b.CreateTrunc(s.within, b.getInt32Ty())
                                         : FloorDivModToI32(b, s.within, per_second).q;
    llvm::Value* r = kField == TemporalField::kHour     ? UDiv(b, sec, 3600, 86'399)
                     : kField == TemporalField::kMinute ? URem(b, UDiv(b, sec, 60, 86'399), 60, 1439)
                                                        : URem(b, sec, 60, 86'399);
    return {b.CreateZExt(r, i64)};
  }
  llvm::Value* days = s.days;
  // The calendar is some thirty vector instructions a vector of rows: at the host's widest vectors
  // (bench: `temporal/year_date32/jit`, `temporal/year/jit` against `--vector-width 256`), but for
  // a zone's local time, whose table gathers lose at the wider width (`temporal/year/jit_paris`).
  if (!InLocalZone(c.call.args()[0]->type())) AskWideVectors(c);
  const Civil civil = CivilOfField(b, days);
  switch (kField) {
    case TemporalField::kYear: return {YearOf(b, civil)};
    case TemporalField::kMonth: return {b.CreateZExt(civil.month, i64)};
    case TemporalField::kDay: return {b.CreateZExt(civil.day, i64)};
    case TemporalField::kQuarter:
      return {b.CreateZExt(b.CreateAdd(UDiv(b, b.CreateSub(civil.month, K(civil.month, 1)), 3, 11),
                                       K(civil.month, 1)),
                           i64)};
    case TemporalField::kDayOfWeek:  // days = era * 146097 + doe - 719468; 146097 = 7 * 20871; 719468 % 7 = 1
      return {b.CreateZExt(URem(b, b.CreateAdd(civil.doe, K(civil.doe, 3)), 7, 146'099), i64)};
    case TemporalField::kDayOfYear: {
      // March-based day of year to January-based: January and February close the March-based
      // year; March 1st is day 60, or 61 in a leap year (the civil year is yoe within the era).
      llvm::Value* doy = civil.doy;
      llvm::Value* leap = b.CreateZExt(Leap(b, civil.yoe), doy->getType());
      llvm::Value* early = b.CreateSub(doy, K(doy, 305));                      // January, February
      llvm::Value* late = b.CreateAdd(b.CreateAdd(doy, K(doy, 60)), leap);      // March..December
      return {b.CreateZExt(b.CreateSelect(b.CreateICmpUGE(doy, K(doy, 306)), early, late), i64)};
    }
    default: return {b.CreateSExtOrBitCast(days, i64)};
  }
}

// The first day of the unit's period holding `days` (i64), for units up to a day.
llvm::Value* TruncDays(llvm::IRBuilder<>& b, llvm::Value* days, TemporalUnit unit) {
  if (unit == TemporalUnit::kDay) return days;
  if (unit == TemporalUnit::kWeek) return b.CreateSub(days, FloorDivMod(b, b.CreateAdd(days, K(days, 3)), 7).r);  // Mondays
  const Civil c = CivilOf(b, days);
  // A month's first day is the day-of-month's distance back (the same day number, fewer steps).
  if (unit == TemporalUnit::kMonth) return b.CreateSub(days, b.CreateSExtOrBitCast(b.CreateSub(c.day, K(c.day, 1)), days->getType()));
  llvm::Value* month = c.month;
  if (unit == TemporalUnit::kYear) month = K(month, 1);
  if (unit == TemporalUnit::kQuarter) {
    month = b.CreateAdd(b.CreateMul(UDiv(b, b.CreateSub(month, K(month, 1)), 3, 11), K(month, 3)), K(month, 1));
  }
  // January and February of the civil year lie in the previous March-based year.
  llvm::Value* date_early = b.CreateICmpULE(c.month, K(c.month, 2));  // the date is in Jan/Feb
  llvm::Value* first_early = b.CreateICmpULE(month, K(month, 2));     // the first day is in Jan/Feb
  // March-based year of the first day: the date's, minus one when the date is March..December
  // and the first day January/February (a year or first-quarter start).
  llvm::Value* back = b.CreateAnd(first_early, b.CreateNot(date_early));
  llvm::Value* yoe = b.CreateSub(c.yoe, b.CreateZExt(back, c.yoe->getType()));
  // yoe may become -1 (first year of an era): borrow one era.
  llvm::Value* under = b.CreateICmpSLT(yoe, K(yoe, 0));
  llvm::Value* era = b.CreateSub(c.era, b.CreateZExt(under, c.era->getType()));
  yoe = b.CreateSelect(under, K(yoe, 399), yoe);
  return DaysOfMonthStart(b, era, yoe, month);
}

template <TemporalUnit kUnit>
Val Trunc(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const Source s = SourceOf(c, a[0]);
  llvm::Value* out = s.v;
  llvm::Value* below = b.getFalse();  // the result is below the storage's range
  if (kUnit <= TemporalUnit::kDay) {
    llvm::Value* td = TruncDays(b, s.days, kUnit);
    out = MulI64(b, td, s.per_day);  // wraps only where `below` holds
    // td * per_day >= lo exactly when td >= ceil(lo / per_day), which C++'s division of a
    // negative lo gives.
    const int64_t lo = c.call.args()[0]->type().id == TypeId::kI32 ? INT32_MIN : INT64_MIN;
    below = b.CreateICmpSLT(td, K(td, lo / s.per_day));
    if (const auto zone = ZoneTablesOf(c, c.call.args()[0]->type())) {
      // The local start (which must fit the storage), then its first instant, never after v
      // (a result past INT64_MIN wraps above v).
      below = b.CreateOr(below, b.CreateICmpSGT(td, K(td, INT64_MAX / s.per_day)));
      out = FirstInstantAtOrAfter(b, *zone, out);
      below = b.CreateOr(below, b.CreateICmpSGT(out, s.v));
    }
  } else if (const int64_t len = ir::UnitLength(kUnit, s.per_day); len > 1) {
    // len divides a day: the quotient is below per_day / len (i32 lanes unless nanoseconds by
    // the microsecond, up to 8.64e10). `within` is local: the local time's units in the unit.
    const DivMod m = s.per_day / len < (int64_t{1} << 31) ? FloorDivModToI32(b, s.within, len) : FloorDivMod(b, s.within, len);
    out = b.CreateSub(s.v, m.r);
    below = b.CreateICmpSGT(out, s.v);  // wrapped past INT64_MIN
  }
  llvm::Type* ty = a[0].v->getType();
  c.Evidence(b.CreateZExt(below, ty));
  return {ty == out->getType() ? out : b.CreateTrunc(out, ty)};
}

// cast(t, T) between temporal types (ir::TemporalCastPlan): floor divisions by constants
// (FloorDivMod in i32 lanes for 32-bit storage, FloorDivModWide for i64) and a multiply by a
// constant whose overflow is a range test of the operand; a 32-bit target's range tested last.
Val Cast(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const ir::TemporalConversion plan = *ir::TemporalCastPlan(c.call.args()[0]->type(), c.call.type());
  llvm::Type* i64 = b.getInt64Ty();
  const bool narrow = c.arg_type(0) == TypeId::kI32;
  llvm::Value* v = narrow ? b.CreateSExt(a[0].v, i64) : a[0].v;
  llvm::Value* bad = b.getFalse();
  if (plan.local_from) {  // the instant's local time, which must fit the storage
    const auto zone = ZoneTablesOf(c, c.call.args()[0]->type());
    llvm::Value* off = zone ? OffsetAt(b, *zone, v) : b.getInt64(0);
    llvm::Value* local = b.CreateAdd(v, off);
    bad = AddWrapped(b, v, off, local);
    v = local;
  }
  auto floor_div = [&](llvm::Value* x, bool x_narrow, int64_t d) {
    if (d == 1) return x;
    if (x_narrow) return b.CreateSExt(FloorDivMod(b, b.CreateTrunc(x, b.getInt32Ty()), d).q, i64);
    return FloorDivModWide(b, x, d).q;
  };
  if (plan.to_date) v = floor_div(v, narrow, plan.day_units);
  if (plan.multiply > 1) {
    const int64_t hi = INT64_MAX / plan.multiply;
    const auto lo = static_cast<int64_t>(0 - (uint64_t{1} << 63) / static_cast<uint64_t>(plan.multiply));
    bad = b.CreateOr(bad, b.CreateOr(b.CreateICmpSGT(v, K(v, hi)), b.CreateICmpSLT(v, K(v, lo))));
    v = b.CreateMul(v, K(v, plan.multiply));
  }
  v = floor_div(v, narrow && !plan.to_date, plan.divide);
  if (plan.local_to) {  // a local time of the target's zone, as an instant
    if (const auto zone = ZoneTablesOf(c, c.call.type())) {
      llvm::Value* off = OffsetOfLocal(b, *zone, v);
      llvm::Value* instant = b.CreateSub(v, off);
      bad = b.CreateOr(bad, SubWrapped(b, v, off, instant));
      v = instant;
    }
  }
  if (c.result_type() == TypeId::kI32) {
    bad = b.CreateOr(bad, b.CreateOr(b.CreateICmpSGT(v, K(v, INT32_MAX)), b.CreateICmpSLT(v, K(v, INT32_MIN))));
    c.Evidence(b.CreateZExt(bad, i64));
    return {b.CreateTrunc(v, b.getInt32Ty())};
  }
  c.Evidence(b.CreateZExt(bad, i64));
  return {v};
}

// The parts of an interval (ir/functions_temporal.cc PartsOf): interval_months holds months
// (i32); interval_day_time days (low 32 bits) and milliseconds (high); interval_month_day_nano
// months, days (the low half's two i32) and nanoseconds (the high half).
struct IntervalVals {
  llvm::Value* months;  // i32
  llvm::Value* days;    // i32
  llvm::Value* nanos;   // i64
};

IntervalVals IntervalPartsOf(llvm::IRBuilder<>& b, IntervalUnit unit, const Val& interval) {
  llvm::Value* x = interval.v;
  llvm::Type* i32 = b.getInt32Ty();
  switch (unit) {
    case IntervalUnit::kMonths: return {x, b.getInt32(0), b.getInt64(0)};
    case IntervalUnit::kDayTime:  // milliseconds in the high 32 bits
      return {b.getInt32(0), b.CreateTrunc(x, i32), b.CreateMul(b.CreateAShr(x, K(x, 32)), K(x, 1'000'000))};
    case IntervalUnit::kMonthDayNano: break;
  }
  return {b.CreateTrunc(x, i32), b.CreateTrunc(b.CreateLShr(x, K(x, 32)), i32), interval.high};
}

IntervalUnit IntervalUnitOf(const ir::ExprPtr& e) { return static_cast<IntervalUnit>(e->type().unit); }

template <int64_t ir::IntervalParts::*kPart>
Val IntervalPart(LowerContext& c, std::span<const Val> a) {
  const IntervalVals p = IntervalPartsOf(c.b, IntervalUnitOf(c.call.args()[0]), a[0]);
  if constexpr (kPart == &ir::IntervalParts::nanos) return {p.nanos};
  if constexpr (kPart == &ir::IntervalParts::days) return {p.days};
  return {p.months};
}

// interval_from_parts(months, days, nanos): the 16-byte interval_month_day_nano, months and days
// the low half's two i32 (months low), the nanoseconds its high half.
Val IntervalFromParts(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Type* i64 = b.getInt64Ty();
  Val out;
  out.v = b.CreateOr(b.CreateZExt(a[0].v, i64), b.CreateShl(b.CreateZExt(a[1].v, i64), b.getInt64(32)));
  out.high = a[2].v;
  return out;
}

// interval_compare(x, y) (ir/functions_temporal.cc): the sign of Lx - Ly for lengths L = K·D + N
// (K = months × 30 + days, D = a day in nanoseconds = 2^16 · D', N the nanoseconds), without a
// division or a 128-bit lane. With N = 2^16 · Nh + Nl (Nl in [0, 2^16)),
//   Lx - Ly = 2^16 · A + (Nlx - Nly),  A = (Kx - Ky) · D' - (Nhy - Nhx),
// and |Nlx - Nly| < 2^16, so the sign is A's, or the low parts' where A is 0. |Nhy - Nhx| < 2^48,
// so a difference of K past ±2^20 decides alone (its product passes 2^50): K's difference is
// clamped there, and the product, one signed 32 × 32 → 64 multiply, is exact.
// The sign decider of Lx - Ly (see above): negative, zero or positive as x orders before, with or
// after y.
llvm::Value* IntervalOrder(llvm::IRBuilder<>& b, const IntervalVals& x, const IntervalVals& y) {
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  constexpr int64_t kDayUnits = 1'318'359'375;  // 86,400 · 10^9 / 2^16
  constexpr int64_t kClamp = int64_t{1} << 20;
  auto diff = [&](llvm::Value* p, llvm::Value* q) { return b.CreateSub(b.CreateSExt(p, i64), b.CreateSExt(q, i64)); };
  llvm::Value* dk = b.CreateAdd(b.CreateMul(diff(x.months, y.months), b.getInt64(30)), diff(x.days, y.days));
  dk = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, dk, b.getInt64(kClamp)),
                               b.getInt64(-kClamp));
  llvm::Value* product = MulI64(b, b.CreateTrunc(dk, i32), kDayUnits);
  llvm::Value* high = b.CreateSub(b.CreateAShr(y.nanos, K(y.nanos, 16)), b.CreateAShr(x.nanos, K(x.nanos, 16)));
  llvm::Value* whole = b.CreateSub(product, high);
  llvm::Value* low = b.CreateSub(b.CreateAnd(x.nanos, K(x.nanos, 0xffff)), b.CreateAnd(y.nanos, K(y.nanos, 0xffff)));
  return b.CreateSelect(b.CreateICmpEQ(whole, K(whole, 0)), low, whole);
}

Val CompareIntervals(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* decider = IntervalOrder(b, IntervalPartsOf(b, IntervalUnitOf(c.call.args()[0]), a[0]),
                                       IntervalPartsOf(b, IntervalUnitOf(c.call.args()[1]), a[1]));
  return {b.CreateSub(b.CreateZExt(b.CreateICmpSGT(decider, K(decider, 0)), i32),
                      b.CreateZExt(b.CreateICmpSLT(decider, K(decider, 0)), i32))};
}

constexpr int64_t kDayNanos = 86'400'000'000'000;  // nanoseconds a day

// time_add_interval(t, nanos) and time_sub_interval (ir/functions_temporal.cc): with n = q·u + r
// (u a unit in nanoseconds, r in [0, u)), floor((t·u ± n) / u) is t + q, or t - q - (r > 0); t and
// q are each reduced modulo the day P first (any i64 reduces: a time column may hold anything),
// so the sum lies in [-P, 2P) and one correction brings it into [0, P). No sum can wrap.
template <bool kSub>
Val TimeAddInterval(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Type* i64 = b.getInt64Ty();
  const DataType type = c.call.args()[0]->type();
  const bool narrow = type.id == TypeId::kI32;
  const int64_t per_day = UnitsPerDay(type.time_unit());
  llvm::Value* t = narrow ? b.CreateSExt(a[0].v, i64) : a[0].v;
  llvm::Value* within = FloorDivModWide(b, t, per_day).r;
  const DivMod q = FloorDivModWide(b, a[1].v, kDayNanos / per_day);
  llvm::Value* step = FloorDivModWide(b, q.q, per_day).r;
  llvm::Value* r = nullptr;
  if constexpr (kSub) {
    r = b.CreateSub(b.CreateSub(within, step), b.CreateZExt(b.CreateICmpNE(q.r, K(q.r, 0)), i64));
    r = b.CreateSelect(b.CreateICmpSLT(r, K(r, 0)), b.CreateAdd(r, K(r, per_day)), r);
  } else {
    r = b.CreateAdd(within, step);
    r = b.CreateSelect(b.CreateICmpSGE(r, K(r, per_day)), b.CreateSub(r, K(r, per_day)), r);
  }
  return {narrow ? b.CreateTrunc(r, b.getInt32Ty()) : r};
}

// Days since 1970 (i64) after moving the civil date of `days` by `months` (i64, |months| below
// 2^40), its day of month kept or clamped to the new month's last: the March-based month count
// era * 4800 + yoe * 12 + mp, moved, split again, and Hinnant's days-from-civil; no table, no
// branch.
llvm::Value* AddMonths(llvm::IRBuilder<>& b, llvm::Value* days, llvm::Value* months) {
  llvm::Type* i64 = b.getInt64Ty();
  const Civil c = CivilOf(b, days);
  llvm::Value* mp = b.CreateSelect(b.CreateICmpUGT(c.month, K(c.month, 2)), b.CreateSub(c.month, K(c.month, 3)),
                                   b.CreateAdd(c.month, K(c.month, 9)));
  llvm::Value* count = b.CreateAdd(b.CreateMul(b.CreateSExt(c.era, i64), b.getInt64(4800)),
                                   b.CreateZExt(b.CreateAdd(b.CreateMul(c.yoe, K(c.yoe, 12)), mp), i64));
  const DivMod moved = FloorDivMod(b, b.CreateAdd(count, months), 4800);
  llvm::Value* r = b.CreateTrunc(moved.r, b.getInt32Ty());  // [0, 4799]
  llvm::Value* yoe = UDiv(b, r, 12, 4799);
  mp = b.CreateSub(r, b.CreateMul(yoe, K(yoe, 12)));
  llvm::Value* start = UDiv(b, b.CreateAdd(b.CreateMul(mp, K(mp, 153)), K(mp, 2)), 5, 1685);
  llvm::Value* next = UDiv(b, b.CreateAdd(b.CreateMul(mp, K(mp, 153)), K(mp, 155)), 5, 1838);
  // February closes the March-based year: its civil year is yoe + 1 within the era.
  llvm::Value* civil_year = b.CreateSelect(b.CreateICmpEQ(yoe, K(yoe, 399)), K(yoe, 0), b.CreateAdd(yoe, K(yoe, 1)));
  llvm::Value* february = b.CreateAdd(K(yoe, 28), b.CreateZExt(Leap(b, civil_year), yoe->getType()));
  llvm::Value* length = b.CreateSelect(b.CreateICmpEQ(mp, K(mp, 11)), february, b.CreateSub(next, start));
  llvm::Value* day = b.CreateSelect(b.CreateICmpULT(c.day, length), c.day, length);
  llvm::Value* doe = b.CreateAdd(b.CreateSub(b.CreateAdd(b.CreateMul(yoe, K(yoe, 365)), UDiv(b, yoe, 4, 399)),
                                             UDiv(b, yoe, 100, 399)),
                                 b.CreateSub(b.CreateAdd(start, day), K(day, 1)));
  llvm::Value* out = b.CreateAdd(b.CreateMul(moved.q, b.getInt64(146'097)), b.CreateZExt(doe, i64));
  return b.CreateSub(out, b.getInt64(719'468));
}

// Whether day * per_day + within (units in [0, per_day)) falls outside the storage's range: by
// the day, and at the range's end days by the units (so that no multiply can wrap unseen).
llvm::Value* OutsideStorage(llvm::IRBuilder<>& b, llvm::Value* day, llvm::Value* within, int64_t per_day, bool narrow) {
  const __int128 lo = narrow ? INT32_MIN : INT64_MIN, hi = narrow ? INT32_MAX : INT64_MAX;
  auto floor_div = [](__int128 x, __int128 d) { return x / d - (x % d < 0 ? 1 : 0); };
  const auto lo_day = static_cast<int64_t>(floor_div(lo, per_day)), hi_day = static_cast<int64_t>(floor_div(hi, per_day));
  const auto lo_units = static_cast<int64_t>(lo - lo_day * static_cast<__int128>(per_day));
  const auto hi_units = static_cast<int64_t>(hi - hi_day * static_cast<__int128>(per_day));
  llvm::Value* below = b.CreateOr(b.CreateICmpSLT(day, K(day, lo_day)),
                                  b.CreateAnd(b.CreateICmpEQ(day, K(day, lo_day)), b.CreateICmpSLT(within, K(within, lo_units))));
  llvm::Value* above = b.CreateOr(b.CreateICmpSGT(day, K(day, hi_day)),
                                  b.CreateAnd(b.CreateICmpEQ(day, K(day, hi_day)), b.CreateICmpSGT(within, K(within, hi_units))));
  return b.CreateOr(below, above);
}

// add_interval(t, months, days, nanos) and sub_interval (ir/functions_temporal.cc): without
// months (a literal 0) storage arithmetic, t ± days * units a day ± the nanoseconds in t's unit
// (rounded down: exact, then floored), each step's wrap an overflow; with months t is split into
// days and units within the day, the months and days move the day, the nanoseconds split into
// whole days and a remainder carried into the units, and the result's range is tested on the
// day and units before they are joined (no multiply can wrap unseen). In a zone other than UTC
// the day and units are local, the local result becomes an instant (OffsetOfLocal) unless no
// date moved, and the nanoseconds are added to the instant as in the storage form.
template <bool kSub>
Val AddInterval(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  llvm::Type* i64 = b.getInt64Ty();
  const DataType type = c.call.args()[0]->type();
  const bool narrow = type.id == TypeId::kI32;
  const int64_t per_day = UnitsPerDay(type.time_unit());
  const int64_t unit = kDayNanos / per_day;  // nanoseconds a unit
  llvm::Value* v = narrow ? b.CreateSExt(a[0].v, i64) : a[0].v;
  llvm::Value* days = b.CreateSExt(a[2].v, i64);
  llvm::Value* nanos = a[3].v;
  llvm::Value* bad = b.getFalse();
  // v ± the nanoseconds in units (rounded down: exact, then floored), a wrap an overflow.
  auto add_nanos = [&] {
    if (IsZero(nanos)) return;
    const DivMod q = FloorDivModWide(b, nanos, unit);  // floor(n / unit); sub: ceil, as -floor(-n / unit)
    llvm::Value* step = kSub ? b.CreateAdd(q.q, b.CreateZExt(b.CreateICmpNE(q.r, K(q.r, 0)), i64)) : q.q;
    llvm::Value* r = kSub ? b.CreateSub(v, step) : b.CreateAdd(v, step);
    bad = b.CreateOr(bad, kSub ? SubWrapped(b, v, step, r) : AddWrapped(b, v, step, r));
    v = r;
  };
  // In a zone other than UTC months and days move the local date (its wall-clock time kept) and
  // the time part is added to the instant after, PostgreSQL's order for timestamptz.
  const auto zone = ZoneTablesOf(c, type);
  if (IsZero(a[1].v) && (!zone || IsZero(a[2].v))) {
    if (!IsZero(a[2].v)) {
      if (const int64_t limit = INT64_MAX / per_day; limit < INT32_MAX) {
        bad = b.CreateOr(b.CreateICmpSGT(days, K(days, limit)), b.CreateICmpSLT(days, K(days, -limit)));
      }
      llvm::Value* step = b.CreateMul(days, K(days, per_day));
      llvm::Value* r = kSub ? b.CreateSub(v, step) : b.CreateAdd(v, step);
      bad = b.CreateOr(bad, kSub ? SubWrapped(b, v, step, r) : AddWrapped(b, v, step, r));
      v = r;
    }
    add_nanos();
    if (narrow) bad = b.CreateOr(bad, b.CreateOr(b.CreateICmpSGT(v, K(v, INT32_MAX)), b.CreateICmpSLT(v, K(v, INT32_MIN))));
  } else {
    const Source s = SourceOf(c, a[0]);  // a zone's local day and units
    llvm::Value* months = b.CreateSExt(a[1].v, i64);
    llvm::Value* day = IsZero(a[1].v) ? b.CreateSExt(s.days, i64) : AddMonths(b, s.days, kSub ? b.CreateNeg(months) : months);
    day = kSub ? b.CreateSub(day, days) : b.CreateAdd(day, days);
    llvm::Value* within = s.within;
    if (!IsZero(nanos) && !zone) {
      // n = whole days * kDayNanos + rest; -n the same with the rest taken from the next day.
      DivMod split = FloorDivMod(b, nanos, kDayNanos);
      if (kSub) {
        llvm::Value* exact = b.CreateICmpEQ(split.r, K(split.r, 0));
        split = {b.CreateSelect(exact, b.CreateNeg(split.q), b.CreateSub(K(split.q, -1), split.q)),
                 b.CreateSelect(exact, split.r, b.CreateSub(K(split.r, kDayNanos), split.r))};
      }
      llvm::Value* units = unit == 1 ? split.r : FloorDivMod(b, split.r, unit).q;  // [0, per_day)
      within = b.CreateAdd(within, units);
      llvm::Value* carry = b.CreateICmpSGE(within, K(within, per_day));
      day = b.CreateAdd(day, b.CreateAdd(split.q, b.CreateZExt(carry, i64)));
      within = b.CreateSub(within, b.CreateSelect(carry, K(within, per_day), K(within, 0)));
    }
    bad = OutsideStorage(b, day, within, per_day, narrow);
    v = per_day == 1 ? day : b.CreateAdd(b.CreateMul(day, K(day, per_day)), within);
    if (zone) {  // the local result as an instant (the same instant where no date moved), then the time part
      llvm::Value* off = OffsetOfLocal(b, *zone, v);
      llvm::Value* instant = b.CreateSub(v, off);
      llvm::Value* moved = b.CreateOr(b.CreateICmpNE(a[1].v, K(a[1].v, 0)), b.CreateICmpNE(a[2].v, K(a[2].v, 0)));
      bad = b.CreateAnd(b.CreateOr(bad, SubWrapped(b, v, off, instant)), moved);
      v = b.CreateSelect(moved, instant, narrow ? b.CreateSExt(a[0].v, i64) : a[0].v);
      add_nanos();
    }
  }
  llvm::Type* ty = a[0].v->getType();
  c.Evidence(b.CreateZExt(bad, ty));
  return {narrow ? b.CreateTrunc(v, ty) : v};
}

// cast(utf8 → date, time, timestamp): ir::ParseTemporalText through its helper; a zone's local
// time (no offset written) becomes its instant through the zone's tables, as temporal_cast does.
// Failure evidence: text that is not a value of the type, or a value outside the storage.
Val TextToTemporal(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType& t = c.call.type();
  const ParsedText p = ParseByHelper(c, a[0], kHelperParseTemporal, b.getInt32Ty(), ir::TemporalSyntax::Of(t).Code(), 1);
  constexpr auto kInstant = static_cast<int32_t>(ir::TemporalText::Status::kInstant);
  llvm::Value* bad = b.CreateICmpUGT(p.answer, b.getInt32(kInstant));
  llvm::Value* v = p.words[0];
  if (const auto zone = ZoneTablesOf(c, t)) {
    llvm::Value* off = OffsetOfLocal(b, *zone, v);
    llvm::Value* instant = b.CreateSub(v, off);
    llvm::Value* local = b.CreateICmpNE(p.answer, b.getInt32(kInstant));
    bad = b.CreateOr(bad, b.CreateAnd(local, SubWrapped(b, v, off, instant)));
    v = b.CreateSelect(local, instant, v);
  }
  if (t.id == TypeId::kI32) {
    c.Evidence(b.CreateZExt(bad, b.getInt32Ty()));
    return {b.CreateTrunc(v, b.getInt32Ty())};
  }
  c.Evidence(b.CreateZExt(bad, b.getInt64Ty()));
  return {v};
}

// cast(utf8 → interval or duration): ir::ParseIntervalLiteral (ParseDurationLiteral) through
// their helper (failure evidence: text that is not a value of the type); the helper writes both
// words, a 16-byte result takes both.
Val TextToInterval(LowerContext& c, std::span<const Val> a) {
  auto& b = c.b;
  const DataType& t = c.call.type();
  const int32_t code = t.logical == LogicalKind::kDuration ? kParseDuration + t.unit : t.unit;
  const ParsedText p = ParseByHelper(c, a[0], kHelperParseInterval, b.getInt1Ty(), code, 2);
  if (t.id == TypeId::kI32) {
    c.Evidence(b.CreateZExt(p.answer, b.getInt32Ty()));
    return {b.CreateTrunc(p.words[0], b.getInt32Ty())};
  }
  c.Evidence(b.CreateZExt(p.answer, b.getInt64Ty()));
  Val out{.v = p.words[0]};
  if (t.id == TypeId::kI128) out.high = p.words[1];
  return out;
}

const Lowering kLowerings[] = {
    {"text_to_temporal", TextToTemporal},
    {"text_to_interval", TextToInterval},
    {"text_to_duration", TextToInterval},
    {"interval_months", IntervalPart<&ir::IntervalParts::months>},
    {"interval_days", IntervalPart<&ir::IntervalParts::days>},
    {"interval_nanos", IntervalPart<&ir::IntervalParts::nanos>},
    {"interval_from_parts", IntervalFromParts},
    {"interval_compare", CompareIntervals},
    {"time_add_interval", TimeAddInterval<false>},
    {"time_sub_interval", TimeAddInterval<true>},
    {"add_interval", AddInterval<false>},
    {"sub_interval", AddInterval<true>},
    {"temporal_cast", Cast},
    {"year", Field<TemporalField::kYear>},
    {"quarter", Field<TemporalField::kQuarter>},
    {"month", Field<TemporalField::kMonth>},
    {"day", Field<TemporalField::kDay>},
    {"day_of_week", Field<TemporalField::kDayOfWeek>},
    {"day_of_year", Field<TemporalField::kDayOfYear>},
    {"hour", Field<TemporalField::kHour>},
    {"minute", Field<TemporalField::kMinute>},
    {"second", Field<TemporalField::kSecond>},
    {"epoch", Field<TemporalField::kEpoch>},
    {"date_trunc_year", Trunc<TemporalUnit::kYear>},
    {"date_trunc_quarter", Trunc<TemporalUnit::kQuarter>},
    {"date_trunc_month", Trunc<TemporalUnit::kMonth>},
    {"date_trunc_week", Trunc<TemporalUnit::kWeek>},
    {"date_trunc_day", Trunc<TemporalUnit::kDay>},
    {"date_trunc_hour", Trunc<TemporalUnit::kHour>},
    {"date_trunc_minute", Trunc<TemporalUnit::kMinute>},
    {"date_trunc_second", Trunc<TemporalUnit::kSecond>},
    {"date_trunc_millisecond", Trunc<TemporalUnit::kMillisecond>},
    {"date_trunc_microsecond", Trunc<TemporalUnit::kMicrosecond>},
};

}  // namespace

llvm::Value* IntervalLess(llvm::IRBuilder<>& b, IntervalUnit unit, const Val& x, const Val& y) {
  llvm::Value* decider = IntervalOrder(b, IntervalPartsOf(b, unit, x), IntervalPartsOf(b, unit, y));
  return b.CreateICmpSLT(decider, K(decider, 0));
}

std::span<const Lowering> TemporalLowerings() { return kLowerings; }

}  // namespace rowjit::jit::internal
