// Aggregate queries on the engine (jit layer, api room): the whole batch through the grouped fold
// kernel (sums, averages and counts over few groups: PlanQueryFold), a byte group code a row; or,
// a block of rows at a time, the block's group slots from its keys, WHERE and every aggregate's
// guarded argument computed by one projection kernel (a subexpression they share computed once)
// and each argument folded per slot by the static grouped folds (kernels/grouped_fold.h). Either
// way the groups are merged into the caller's state by key.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>

#include "ir/query.h"
#include "jit/api/engine_impl.h"
#include "jit/exec/group_ids.h"
#include "kernels/fold.h"
#include "kernels/grouped_fold.h"
#include "runtime/selection.h"

namespace rowjit::jit {
namespace {

using internal::GroupSlots;
using ir::AggKind;
using ir::FoldAccumulator;

// The rows a fold reads, over the batch (or the selection's rows): a validity bitmap, or none
// when every row is, or no row when none is.
struct Rows {
  kernels::BitSpan span;  // data == nullptr: every row
  bool none = false;
  std::vector<uint8_t> owned;  // a bitmap made here (a predicate's true and non-null rows)
};

Rows ValidRows(const Array& a, int64_t n) {
  const Validity* v = nullptr;
  if (a.encoding() == Encoding::kPrimitive) v = &static_cast<const PrimitiveArray&>(a).validity();
  if (a.encoding() == Encoding::kBool) v = &static_cast<const BoolArray&>(a).validity();
  Rows r;
  if (v == nullptr || v->all_valid()) return r;
  if (v->all_null()) {
    r.none = true;
    return r;
  }
  r.span = v->Span(n);
  return r;
}

// The rows where a bool column is true and not null (WHERE's rows).
Rows TrueRows(const Array& a, int64_t n) {
  Rows r;
  r.owned.assign(kernels::NumBytes(n) + 8, 0);
  r.span = {r.owned.data(), 0, n};
  if (a.encoding() == Encoding::kBool) {  // a word at a time: the values AND the validity
    const auto& b = static_cast<const BoolArray&>(a);
    const kernels::BitSpan bits = b.bits();
    for (int64_t w = 0; w < kernels::NumWords(n); ++w) {
      const uint64_t word = kernels::ReadWord(bits, w) & b.validity().Word(w, n);
      std::memcpy(&r.owned[w * 8], &word, 8);
    }
    return r;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!a.IsNull(i) && a.GetScalar(i).value<bool>()) kernels::SetBitTo(r.owned.data(), i, true);
  }
  return r;
}

// The rows both name. The result may point into `a`'s or `b`'s bitmap: it lives no longer.
Rows AndRows(const Rows& a, const Rows& b, int64_t n) {
  Rows r;
  if (a.none || b.none) {
    r.none = true;
    return r;
  }
  if (a.span.data == nullptr || b.span.data == nullptr) {
    r.span = a.span.data == nullptr ? b.span : a.span;
    return r;
  }
  r.owned.assign(kernels::NumBytes(n) + 8, 0);
  for (int64_t w = 0; w < kernels::NumWords(n); ++w) {
    const uint64_t word = kernels::ReadWord(a.span, w) & kernels::ReadWord(b.span, w);
    std::memcpy(&r.owned[w * 8], &word, 8);
  }
  r.span = {r.owned.data(), 0, n};
  return r;
}

// The slots with a row WHERE keeps, each with its group's accumulators in the state (a
// std::map node's vector: stable while the batch folds). Folds touch only these slots, so a batch
// of many slots costs its tables, not an accumulator per slot and aggregate.
struct Live {
  std::vector<int64_t> slots;
  std::vector<std::span<FoldAccumulator>> accs;
  std::vector<int32_t> index;  // per slot: its place in `slots`, or -1
};

Scalar CanonicalNan(TypeId t) {
  return Scalar::FromBits(t, t == TypeId::kF32 ? 0x7fc00000u : 0x7ff8000000000000ULL);
}

// Any fold, a row at a time (what the static folds do not cover: strings, intervals, constant
// arguments, 16-byte sums near the edge of 128 bits): the reference's own steps.
void FoldRows(const ir::QueryAggregate& q, const Array& values, const GroupSlots& g, int64_t n, const Live& live,
              size_t a, int64_t first, const Rows* kept) {
  const TypeId t = q.fold.arg->type().id;
  const uint32_t* slot = g.ids();
  for (int64_t i = 0; i < n; ++i) {
    const int32_t at = live.index[slot[i]];
    if (at < 0) continue;
    if (kept != nullptr && kept->span.data != nullptr && !kernels::GetBit(kept->span.data, kept->span.offset + i)) continue;
    Scalar s = values.GetScalar(i);
    if (s.is_null()) continue;
    if (IsFloat(t) && !q.fold.arg->is_column() &&
        std::isnan(t == TypeId::kF32 ? s.value<float>() : s.value<double>())) {
      s = CanonicalNan(t);
    }
    live.accs[at][a].Fold(q.fold, s, first + i);  // into the group's own accumulator: the reference's order
  }
}

// Where a fold's per-slot tables go: for each live slot, its accumulator of aggregate `a`
// filled by `fill` and merged into the group's.
struct Sink {
  const Live& live;
  const ir::Aggregate& fold;
  size_t a;
  int64_t first;  // the position of the block's first row in the fold (float sums' lanes)
  template <typename Fill>
  void Each(Fill&& fill) const {
    for (size_t k = 0; k < live.slots.size(); ++k) {
      FoldAccumulator acc;
      fill(live.slots[k], acc);
      live.accs[k][a].Merge(fold, acc);
    }
  }
};

// Whether n 64-bit values (null rows' included: a bound over more rows than fold) add up to less
// than 2^63 in absolute value, so that their grouped sums run in int64 (kernels::GroupedSumBounded),
// not 128 bits. The static min/max fold (vectorized at the CPU's level) finds the bound in a
// fraction of the sums' time (bench: tpch/q1/jit, grouped/).
bool Bounded(const int64_t* v, int64_t n) {
  const std::optional<kernels::MinMaxValue<int64_t>> range = kernels::MinMax<int64_t>(v, n);
  if (!range) return true;
  const auto magnitude = [](int64_t x) { return x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x); };
  const uint64_t most = std::max(magnitude(range->min), magnitude(range->max));
  return static_cast<unsigned __int128>(most) * static_cast<uint64_t>(n) < (static_cast<unsigned __int128>(1) << 63);
}

template <typename T>
void SumSlots(const T* v, const GroupSlots& g, int64_t n, const Rows& rows, const Sink& sink) {
  std::vector<int64_t> counts(g.slots, 0);
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int kLanes = kernels::kFloatSumLanes;
    // The tables start from the groups' lanes and are written back: each lane adds its rows in
    // order across a batch's blocks, as the reference does (merging fresh lanes would reassociate).
    std::vector<double> lanes(g.slots * kLanes, 0.0);
    for (size_t k = 0; k < sink.live.slots.size(); ++k) {
      std::memcpy(&lanes[sink.live.slots[k] * kLanes], sink.live.accs[k][sink.a].lanes.data(), sizeof(double) * kLanes);
    }
    kernels::GroupedFloatSum<T>(v, g.ids(), n, rows.span, sink.first, g.slots, lanes.data(), counts.data());
    for (size_t k = 0; k < sink.live.slots.size(); ++k) {
      FoldAccumulator& acc = sink.live.accs[k][sink.a];
      std::memcpy(acc.lanes.data(), &lanes[sink.live.slots[k] * kLanes], sizeof(double) * kLanes);
      acc.count += counts[sink.live.slots[k]];
    }
  } else if (std::is_same_v<T, int64_t> && Bounded(reinterpret_cast<const int64_t*>(v), n)) {
    std::vector<int64_t> sums(g.slots, 0);
    kernels::GroupedSumBounded(reinterpret_cast<const int64_t*>(v), g.ids(), n, rows.span, g.slots, sums.data(),
                               counts.data());
    sink.Each([&](int64_t s, FoldAccumulator& acc) {
      acc.int_sum = sums[s];
      acc.count = counts[s];
    });
  } else {
    std::vector<kernels::GroupedSumType<T>> sums(g.slots, 0);
    kernels::GroupedSum<T>(v, g.ids(), n, rows.span, g.slots, sums.data(), counts.data());
    sink.Each([&](int64_t s, FoldAccumulator& acc) {
      acc.int_sum = sums[s];
      acc.count = counts[s];
    });
  }
}

bool SumI128Slots(const __int128* v, const GroupSlots& g, int64_t n, const Rows& rows, const Sink& sink) {
  std::vector<__int128> sums(g.slots, 0);
  std::vector<int64_t> counts(g.slots, 0);
  if (!kernels::GroupedSumI128Checked(v, g.ids(), n, rows.span, g.slots, sums.data(), counts.data())) {
    return false;  // a running total left 128 bits: the row fold counts its carries
  }
  sink.Each([&](int64_t s, FoldAccumulator& acc) {
    acc.int_sum = sums[s];
    acc.count = counts[s];
  });
  return true;
}

template <typename T>
Scalar ScalarOf(T v, const DataType& type) {
  if constexpr (std::is_same_v<T, __int128>) {
    return Scalar::Int128(v, type.WithNullable(false));
  } else {
    return Scalar::Of<T>(v).As(type.WithNullable(false));
  }
}

template <typename T>
void ExtremeSlots(const ir::QueryAggregate& q, const T* v, const GroupSlots& g, int64_t n, const Rows& rows,
                  const Sink& sink) {
  const kernels::NanMode nan = q.fold.keep_nan ? kernels::NanMode::kTotalOrder : kernels::NanMode::kSkip;
  std::vector<T> canonical;
  if constexpr (std::is_floating_point_v<T>) {
    if (q.fold.keep_nan && !q.fold.arg->is_column()) {  // as the reference reads computed NaNs
      canonical.assign(v, v + n);
      for (T& x : canonical) x = std::isnan(x) ? std::numeric_limits<T>::quiet_NaN() : x;
      v = canonical.data();
    }
  }
  const bool min = q.fold.kind == AggKind::kMin;
  std::vector<T> best(g.slots, T{});
  std::vector<uint8_t> seen(g.slots, 0);
  if (min) {
    kernels::GroupedMin<T>(v, g.ids(), n, rows.span, nan, g.slots, best.data(), seen.data());
  } else {
    kernels::GroupedMax<T>(v, g.ids(), n, rows.span, nan, g.slots, best.data(), seen.data());
  }
  const DataType type = q.fold.arg->type();
  sink.Each([&](int64_t s, FoldAccumulator& acc) {
    if (!seen[s]) return;
    acc.count = 1;  // min and max read the count as "something folded"
    (min ? acc.lo : acc.hi) = ScalarOf<T>(best[s], type);
  });
}

std::vector<int64_t> CountRows(const GroupSlots& g, int64_t n, const Rows& rows) {
  std::vector<int64_t> counts(g.slots, 0);
  kernels::GroupedCount(g.ids(), n, rows.span, g.slots, counts.data());
  return counts;
}

template <typename T>
void NanCountSlots(const T* v, const GroupSlots& g, int64_t n, const Rows& rows, const Sink& sink) {
  const std::vector<int64_t> counts = CountRows(g, n, rows);
  std::vector<int64_t> nans(g.slots, 0);
  kernels::GroupedNanCount<T>(v, g.ids(), n, rows.span, g.slots, nans.data());
  sink.Each([&](int64_t s, FoldAccumulator& acc) {
    acc.count = counts[s];
    acc.nan_count = nans[s];
  });
}

// A primitive argument through the static grouped folds; false: not one they cover.
bool FoldPrimitive(const ir::QueryAggregate& q, const PrimitiveArray& a, const GroupSlots& g, int64_t n,
                   const Rows& rows, const Sink& sink) {
  const TypeId t = a.type().id;
  const AggKind kind = q.fold.kind;
  if (a.type().logical == LogicalKind::kInterval) return false;
  if (t == TypeId::kI128) {
    if (kind == AggKind::kSum) return SumI128Slots(a.values<__int128>(), g, n, rows, sink);
    if (kind != AggKind::kMin && kind != AggKind::kMax) return false;
    ExtremeSlots<__int128>(q, a.values<__int128>(), g, n, rows, sink);
    return true;
  }
  if (!IsNumeric(t)) return false;
  return VisitType(t, [&]<typename T>(std::type_identity<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      return false;
    } else {
      const T* v = a.values<T>();
      switch (kind) {
        case AggKind::kSum: SumSlots<T>(v, g, n, rows, sink); return true;
        case AggKind::kMin:
        case AggKind::kMax: ExtremeSlots<T>(q, v, g, n, rows, sink); return true;
        case AggKind::kNanCount:
          if constexpr (std::is_floating_point_v<T>) {
            NanCountSlots<T>(v, g, n, rows, sink);
            return true;
          }
          return false;
        default: return false;
      }
    }
  });
}

// One aggregate's rows folded per slot and merged into the live groups.
void FoldSlots(const ir::QueryAggregate& q, const Array& values, const GroupSlots& g, int64_t n, const Live& live,
               size_t a, int64_t first, const Rows* kept) {
  const Rows valid = ValidRows(values, n);
  const Rows rows = kept == nullptr ? AndRows(valid, Rows{}, n) : AndRows(valid, *kept, n);
  if (rows.none) return;
  const Sink sink{live, q.fold, a, first};
  const bool kernel_encoding = values.encoding() == Encoding::kPrimitive || values.encoding() == Encoding::kBool;
  if (kernel_encoding && q.fold.kind == AggKind::kCount) {
    const std::vector<int64_t> counts = CountRows(g, n, rows);
    sink.Each([&](int64_t s, FoldAccumulator& acc) { acc.count = counts[s]; });
    return;
  }
  if (values.encoding() == Encoding::kBool && (q.fold.kind == AggKind::kAny || q.fold.kind == AggKind::kAll)) {
    std::vector<uint8_t> any(g.slots, 0), all(g.slots, 1), seen(g.slots, 0);
    kernels::GroupedAnyAll(static_cast<const BoolArray&>(values).bits(), g.ids(), n, rows.span, g.slots,
                           any.data(), all.data(), seen.data());
    sink.Each([&](int64_t s, FoldAccumulator& acc) {
      acc.count = seen[s];
      acc.any = any[s];
      acc.all = all[s];
    });
    return;
  }
  if (values.encoding() == Encoding::kPrimitive &&
      FoldPrimitive(q, static_cast<const PrimitiveArray&>(values), g, n, rows, sink)) {
    return;
  }
  FoldRows(q, values, g, n, live, a, first, kept);
}

// What the projection computes: WHERE (when given) and every argument a static fold reads, each
// once; count(*) without FILTER counts the rows WHERE keeps and needs none. An argument that
// cannot fail, under WHERE alone, is computed unguarded and folded over the rows WHERE keeps (a
// plain column is then not projected at all): the kernel writes no select and no validity for it.
// Without WHERE, an argument that is a plain flat column (in `columns`, the batch's) is folded as
// it is: projecting it would only copy it (bench: `duckdb/avg_f64/jit_chunks2048`).
struct QueryPlan {
  std::vector<ir::ExprPtr> exprs;
  int where = -1;
  std::vector<int> arg;     // per aggregate: its output, or -1
  std::vector<int> column;  // per aggregate: the input column folded as it is, or -1
  std::vector<bool> masked;  // per aggregate: folded over the rows WHERE keeps
};

QueryPlan MakePlan(const ir::Query& q, bool unguarded, std::span<const ArrayPtr> columns = {}) {
  QueryPlan p;
  auto output = [&](const ir::ExprPtr& e) {
    for (size_t k = 0; k < p.exprs.size(); ++k) {
      if (p.exprs[k]->Equals(*e)) return static_cast<int>(k);
    }
    p.exprs.push_back(e);
    return static_cast<int>(p.exprs.size() - 1);
  };
  if (q.where != nullptr) p.where = output(q.where);
  for (const ir::QueryAggregate& a : q.aggregates) {
    const bool direct = unguarded && q.where != nullptr && a.filter == nullptr && a.arg != nullptr &&
                        !a.arg->facts().can_fail &&
                        a.arg->type().WithNullable(false) == a.fold.arg->type().WithNullable(false);
    const auto flat = [&](const ir::ExprPtr& e) {
      const auto c = static_cast<size_t>(e->column_index());
      return c < columns.size() && columns[c] != nullptr && columns[c]->encoding() == Encoding::kPrimitive;
    };
    const bool plain = unguarded && q.where == nullptr && a.filter == nullptr && a.arg != nullptr &&
                       a.arg->is_column() && a.fold.arg->Equals(*a.arg) && flat(a.arg);
    p.masked.push_back(direct);
    p.column.push_back((direct || plain) && a.arg->is_column() ? a.arg->column_index() : -1);
    if (a.count_star && a.filter == nullptr) {
      p.arg.push_back(-1);
    } else {
      p.arg.push_back(p.column.back() >= 0 ? -1 : output(direct ? a.arg : a.fold.arg));
    }
  }
  return p;
}

// Folds n rows (a block of the batch, or the selection's rows), the first at position `first` of
// the fold, into `state`.
Status FoldProjected(ir::QueryState& state, const QueryPlan& plan, std::span<const ArrayPtr> outputs,
                     std::span<const ArrayPtr> inputs, std::span<const ArrayPtr> keys, int64_t n, int64_t first) {
  const ir::Query& q = state.query();
  ROWJIT_ASSIGN_OR_RETURN(GroupSlots g, internal::ComputeGroupSlots(keys, n));
  const Rows kept = plan.where >= 0 ? TrueRows(*outputs[plan.where], n) : Rows{};
  const std::vector<int64_t> rows_kept = CountRows(g, n, kept);
  Live live;
  live.index.assign(g.slots, -1);
  for (int64_t s = 0; s < g.slots; ++s) {
    if (rows_kept[s] == 0) continue;
    std::vector<Scalar> key;
    for (const ArrayPtr& k : keys) key.push_back(ir::NormalizeKey(k->GetScalar(g.first_row[s])));
    live.index[s] = static_cast<int32_t>(live.slots.size());
    live.slots.push_back(s);
    live.accs.push_back(state.Group(std::move(key)));
  }
  for (size_t a = 0; a < q.aggregates.size(); ++a) {
    const Array* values = plan.column[a] >= 0 ? inputs[plan.column[a]].get()
                          : plan.arg[a] >= 0  ? outputs[plan.arg[a]].get()
                                              : nullptr;
    if (values != nullptr) {
      FoldSlots(q.aggregates[a], *values, g, n, live, a, first, plan.masked[a] ? &kept : nullptr);
      continue;
    }
    Sink{live, q.aggregates[a].fold, a, first}.Each([&](int64_t s, FoldAccumulator& acc) { acc.count = rows_kept[s]; });
  }
  return Status::OK();
}

// The rows of one block of a query's fold (a multiple of 64, so blocks start on validity words,
// and of 16, so a block's float lanes are the batch's).
constexpr int64_t kQueryBlock = 16384;

Status CheckKeys(const ir::Query& q, std::span<const ArrayPtr> columns, int64_t length) {
  for (const ir::ExprPtr& k : q.keys) {
    const size_t c = static_cast<size_t>(k->column_index());
    if (c >= columns.size() || columns[c] == nullptr || columns[c]->length() < length) {
      return MakeError(ErrorCode::kInvalidInput, "group by {}: no column of {} rows at index {}", k->name(), length, c);
    }
    if (columns[c]->type().WithNullable(false) != k->type().WithNullable(false)) {
      return MakeError(ErrorCode::kTypeError, "group by {}: the column at index {} is {}, the query was bound to {}",
                       k->name(), c, columns[c]->type().WithNullable(false).ToString(),
                       k->type().WithNullable(false).ToString());
    }
  }
  return Status::OK();
}

// The columns folded as they are: the projection does not read (and check) them.
Status CheckDirect(const ir::Query& q, const QueryPlan& plan, std::span<const ArrayPtr> columns, int64_t length) {
  for (size_t a = 0; a < q.aggregates.size(); ++a) {
    if (plan.column[a] < 0) continue;
    const size_t c = static_cast<size_t>(plan.column[a]);
    const DataType want = q.aggregates[a].arg->type().WithNullable(false);
    if (c >= columns.size() || columns[c] == nullptr || columns[c]->length() < length ||
        columns[c]->type().WithNullable(false) != want) {
      return MakeError(ErrorCode::kInvalidInput, "{}: no {} column of {} rows at index {}", q.aggregates[a].text,
                       want.ToString(), length, c);
    }
  }
  return Status::OK();
}

// --- the grouped fold kernel ---------------------------------------------------------------------

// A query whose aggregates are all count(*) and sums and averages of integers and decimals,
// without FILTER (PlanQueryFold), folds blocks of few groups over dense inputs through one
// grouped fold kernel: WHERE and every argument computed in registers and added into the slots'
// sums in the same pass, nothing stored between them.

// Each kernel slot's code (GroupedCodes::slot); kNoCode: unused.
using SlotCodes = std::array<uint8_t, kMaxGroupedSlots>;
constexpr uint8_t kNoCode = 255;

// The codes folded so far in a batch, at most kMaxGroupedSlots: per code, the rows the mask kept,
// each argument's total and count, and the first call that kept one of its rows.
struct CodeTotals {
  explicit CodeTotals(size_t args) : args(args) { index.fill(-1); }
  size_t args;
  std::array<int8_t, 256> index;
  std::vector<uint8_t> codes;
  std::vector<int64_t> kept, first_call, counts;
  std::vector<__int128> totals;
  // The totals of `code`; none past kMaxGroupedSlots codes.
  std::optional<size_t> Of(uint8_t code, int64_t call) {
    if (index[code] >= 0) return static_cast<size_t>(index[code]);
    if (codes.size() == kMaxGroupedSlots) return std::nullopt;
    index[code] = static_cast<int8_t>(codes.size());
    codes.push_back(code);
    kept.push_back(0);
    first_call.push_back(call);
    counts.resize(counts.size() + args, 0);
    totals.resize(totals.size() + args, 0);
    return codes.size() - 1;
  }
  // A call's sums (GroupedFoldFn's layout) over `slots` slots holding `slot_codes` (nullptr: one
  // slot, code 0) added in; false past kMaxGroupedSlots codes or a total past 128 bits.
  bool Add(std::span<const int64_t> sums, int slots, const uint8_t* slot_codes, int64_t call,
           std::span<const ir::ExprPtr> outputs);
};

// Slot codes as the engine keeps them between batches (EngineImpl::QueryFold::codes_hint).
uint64_t Pack(std::span<const uint8_t> codes) {
  SlotCodes slots;
  slots.fill(kNoCode);
  std::copy(codes.begin(), codes.end(), slots.begin());
  uint64_t packed;
  std::memcpy(&packed, slots.data(), sizeof(packed));
  return packed;
}

SlotCodes Unpack(uint64_t packed) {
  SlotCodes slots;
  std::memcpy(slots.data(), &packed, sizeof(packed));
  return slots;
}

// The codes of a call's rows and those folded so far, as kernel slots; none past kMaxGroupedSlots.
std::optional<SlotCodes> CodesToFold(std::span<const uint8_t> rows, const CodeTotals& folded) {
  std::array<bool, 256> seen{};
  for (const uint8_t c : rows) seen[c] = true;
  for (const uint8_t c : folded.codes) seen[c] = true;
  SlotCodes out;
  out.fill(kNoCode);
  size_t n = 0;
  for (int c = 0; c < kNoCode; ++c) {
    if (!seen[c]) continue;
    if (n == out.size()) return std::nullopt;
    out[n++] = static_cast<uint8_t>(c);
  }
  return out;
}

// The descriptions of the columns the grouped fold kernel reads; none when one is not dense and
// flat, or is not the bound query's (the general path's Project names that error).
std::optional<std::vector<ir::InputSpec>> FusedInputs(const GroupedFoldPlan& plan, std::span<const ArrayPtr> columns,
                                                      int64_t n) {
  std::vector<ir::InputSpec> specs(columns.size());
  for (const ir::Expr* c : plan.root->facts().column_nodes) {
    const auto i = static_cast<size_t>(c->column_index());
    if (i >= columns.size() || columns[i] == nullptr || columns[i]->length() < n ||
        columns[i]->type().WithNullable(false) != c->type().WithNullable(false)) {
      return std::nullopt;
    }
    specs[i] = ir::DescribeInput(*columns[i]);
    if (specs[i].shape != ir::InputShape::kFlat || specs[i].has_nulls || IsString(specs[i].type) ||
        specs[i].type == TypeId::kBool) {
      return std::nullopt;
    }
  }
  return specs;
}

bool CodeTotals::Add(std::span<const int64_t> sums, int slots, const uint8_t* slot_codes, int64_t call,
                     std::span<const ir::ExprPtr> outputs) {
  for (int s = 0; s < slots; ++s) {
    if (sums[s] == 0) continue;
    const std::optional<size_t> at = Of(slot_codes == nullptr ? 0 : slot_codes[s], call);
    if (!at) return false;
    kept[*at] += sums[s];
    for (size_t k = 0; k < args; ++k) {
      const int64_t* a = &sums[(1 + 3 * k) * slots];
      const DataType type = outputs[k + 1]->type();
      const __int128 sum = GroupedNeedsHigh(type) ? ExactSumOfHalves(a[s], a[slots + s], !IsUnsignedInt(type.id))
                                                  : a[s];  // signed: below 2^63 in magnitude
      __int128& total = totals[*at * args + k];
      if (__builtin_add_overflow(total, sum, &total)) return false;
      counts[*at * args + k] += outputs[k + 1]->facts().StrictRows() ? sums[s] : a[2 * slots + s];
    }
  }
  return true;
}

// The folded codes' totals into `state`, each under the keys of a row of its code (found in the
// call that first kept one: `codes_of(call's first row)`).
template <typename CodesOf>
void MergeFolded(ir::QueryState& state, const GroupedFoldPlan& plan, const CodeTotals& folded,
                 std::span<const ArrayPtr> keys, int64_t n, CodesOf codes_of) {
  const ir::Query& q = state.query();
  for (size_t g = 0; g < folded.codes.size(); ++g) {
    std::vector<Scalar> key;
    if (!keys.empty()) {
      const int64_t start = folded.first_call[g] * kGroupedFoldRows;
      const uint8_t* call_codes = codes_of(start);
      const auto rows = static_cast<size_t>(std::min(kGroupedFoldRows, n - start));
      const auto* at = static_cast<const uint8_t*>(std::memchr(call_codes, folded.codes[g], rows));
      const int64_t row = start + (at - call_codes);
      for (const ArrayPtr& k : keys) key.push_back(ir::NormalizeKey(k->GetScalar(row)));
    }
    const std::span<FoldAccumulator> accs = state.Group(std::move(key));
    for (size_t a = 0; a < q.aggregates.size(); ++a) {
      const int k = plan.output[a] - 1;
      if (k < 0) {
        accs[a].MergeSum(0, folded.kept[g]);
      } else {
        accs[a].MergeSum(folded.totals[g * folded.args + k], folded.counts[g * folded.args + k]);
      }
    }
  }
}

// The grouped fold kernel of `slots` slots for inputs `specs`: one the query's batches ran before
// when it is the optimized one, else planned and found through the kernel cache in the tier
// `options` want (and remembered once optimized, unless the fast tier was asked for).
Result<internal::EngineImpl::QueryFold::Kernel> KernelOfFold(internal::EngineImpl& engine,
                                                             internal::EngineImpl::QueryFold& fold,
                                                             const GroupedFoldPlan& plan,
                                                             const std::vector<ir::InputSpec>& specs, int slots,
                                                             const EvalOptions& options) {
  const TierWant want = engine.WantOf(options);
  if (want != TierWant::kFast) {
    if (auto known = fold.FindKernel(specs, slots)) return std::move(*known);
  }
  Plan kernel_plan = PlanGroupedFold(plan.root, specs, slots);
  EvalReport report;
  ROWJIT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledKernel> kernel, engine.TieredKernelOf(kernel_plan, options, report));
  internal::EngineImpl::QueryFold::Kernel out{.specs = specs, .slots = slots, .key = *report.kernel, .kernel = std::move(kernel)};
  if (want != TierWant::kFast && out.kernel->tier() == Tier::kOptimized) fold.Remember(out);
  return out;
}

// The batch's rows folded through the grouped fold kernel into `state`, a call of
// kGroupedFoldRows rows at a time; false, the state as it was, when the batch is not one the
// kernel covers (inputs with nulls or not flat, more than kMaxGroupedSlots groups) or one of its
// rows asks for the exact path: a failing row (whose error that path raises at its row), a
// 16-byte value outside 64 bits, a total past 128 bits. The rows' group codes are a byte each,
// composed a call at a time from keys that code so (ByteGroupCoder), else the batch's slots
// (ComputeGroupSlots); the kernel's slots take the codes the query's last batch had, and a call
// with a kept row of another code runs again with its codes.
Result<bool> FoldFused(internal::EngineImpl& engine, ir::QueryState& state, internal::EngineImpl::QueryFold& fold,
                       std::span<const ArrayPtr> columns, std::span<const ArrayPtr> keys, int64_t n,
                       const EvalOptions& options) {
  const GroupedFoldPlan& plan = *fold.plan;
  const std::optional<std::vector<ir::InputSpec>> specs = FusedInputs(plan, columns, n);
  if (!specs) return false;
  std::optional<internal::ByteGroupCoder> coder;
  std::vector<uint8_t> slots;  // the batch's slots, where the keys do not code in a byte
  if (!keys.empty()) {
    coder = internal::ByteGroupCoder::Make(keys, n);
    if (!coder) {
      ROWJIT_ASSIGN_OR_RETURN(GroupSlots g, internal::ComputeGroupSlots(keys, n));
      if (g.slots > kMaxGroupedSlots) return false;
      slots.assign(g.ids(), g.ids() + n);
    }
  }
  const std::vector<ir::ExprPtr>& outputs = plan.root->args();
  const size_t args = outputs.size() - 1;
  std::vector<uint8_t> buffer(coder ? kGroupedFoldRows : 0);
  int64_t buffered = -1;  // the first row of the call whose codes `buffer` holds
  auto codes_of = [&](int64_t start, int64_t rows) -> const uint8_t* {
    if (coder) {
      if (buffered != start) coder->Codes(start, rows, buffer.data());
      buffered = start;
      return buffer.data();
    }
    return slots.empty() ? nullptr : slots.data() + start;
  };
  // The kernel of the slots' count, and its inputs.
  int slot_count = 0;
  std::shared_ptr<const CompiledKernel> kernel;
  internal::PreparedInputs inputs;
  GroupedCodes codes{};
  auto use = [&](const SlotCodes& held) -> Status {
    std::copy(held.begin(), held.end(), codes.slot);
    const auto codes_held = std::count_if(held.begin(), held.end(), [](uint8_t c) { return c != kNoCode; });
    // Keys: two slots at least, so that one slot always means "no codes read".
    const int wanted = keys.empty() ? 1 : std::max(2, GroupedFoldSlots(codes_held));
    if (wanted == slot_count) return Status::OK();
    ROWJIT_ASSIGN_OR_RETURN(auto found, KernelOfFold(engine, fold, plan, *specs, wanted, options));
    kernel = std::move(found.kernel);
    ROWJIT_ASSIGN_OR_RETURN(inputs, internal::PrepareInputs(columns, plan.root->facts().columns, n, found.key));
    slot_count = wanted;
    return Status::OK();
  };
  CodeTotals folded(args);
  SlotCodes held = Unpack(fold.codes_hint.load(std::memory_order_relaxed));
  if (!keys.empty() && held[0] == kNoCode) {  // no guess: the first call's codes
    const int64_t rows = std::min(kGroupedFoldRows, n);
    const std::optional<SlotCodes> first = CodesToFold({codes_of(0, rows), static_cast<size_t>(rows)}, folded);
    if (!first) return false;
    held = *first;
  }
  ROWJIT_RETURN_NOT_OK(use(held));
  std::vector<int64_t> sums((1 + 3 * args) * kMaxGroupedSlots);
  for (int64_t start = 0, call = 0; start < n; start += kGroupedFoldRows, ++call) {
    const int64_t rows = std::min(kGroupedFoldRows, n - start);
    codes.rows = codes_of(start, rows);
    for (;;) {
      if (kernel->grouped_fold_fn()(inputs.inputs.data(), sums.data(), &codes, start, rows) != 0) return false;
      const auto strays = static_cast<uint64_t>(sums[0]) >> 32;  // kept rows of no slot's code
      sums[0] &= 0xffffffff;
      if (strays == 0) break;
      const std::optional<SlotCodes> next = CodesToFold({codes.rows, static_cast<size_t>(rows)}, folded);
      // Past the slots, or (never for codes below 255) no code the slots lack: the general path.
      if (!next || std::equal(next->begin(), next->end(), codes.slot)) return false;
      ROWJIT_RETURN_NOT_OK(use(*next));
    }
    if (!folded.Add(sums, slot_count, keys.empty() ? nullptr : codes.slot, call, outputs)) return false;
  }
  if (!keys.empty()) fold.codes_hint.store(Pack(folded.codes), std::memory_order_relaxed);
  MergeFolded(state, plan, folded, keys, n,
              [&](int64_t start) { return codes_of(start, std::min(kGroupedFoldRows, n - start)); });
  return true;
}

// A block's error as the batch's: its row moved by the block's first row.
Status ShiftRow(const Error& e, int64_t begin) {
  if (!e.row()) return e;
  return Error(e.code(), e.message()).WithRow(e.function(), *e.row() + begin);
}

}  // namespace

namespace internal {

std::shared_ptr<EngineImpl::QueryFold> EngineImpl::QueryFoldPlanOf(const std::shared_ptr<const ir::Query>& query) {
  std::lock_guard lock(query_plans_mutex_);
  for (const auto& [q, plan] : query_plans_) {
    if (q == query) return plan;
  }
  if (query_plans_.size() == kQueryPlans) query_plans_.erase(query_plans_.begin());
  auto fold = std::make_shared<QueryFold>();
  fold->plan = PlanQueryFold(*query);
  query_plans_.emplace_back(query, std::move(fold));
  return query_plans_.back().second;
}

}  // namespace internal

Status Engine::FoldQuery(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                         const EvalOptions& options) {
  // The grouped fold kernel writes a state only once the whole batch folded: the caller's.
  const std::shared_ptr<internal::EngineImpl::QueryFold> fold = impl_->QueryFoldPlanOf(state.shared_query());
  if (fold->plan && length > 0) {
    ROWJIT_RETURN_NOT_OK(CheckKeys(state.query(), columns, length));
    std::vector<ArrayPtr> keys;
    for (const ir::ExprPtr& k : state.query().keys) keys.push_back(columns[k->column_index()]);
    ROWJIT_ASSIGN_OR_RETURN(const bool folded, FoldFused(*impl_, state, *fold, columns, keys, length, options));
    if (folded) return Status::OK();
  }
  // Otherwise the batch folds into a state of its own, so that an error leaves the caller's as it
  // was.
  ir::QueryState batch(state.shared_query());
  ROWJIT_RETURN_NOT_OK(FoldBatch(batch, columns, length, options));
  return state.AddBatch(std::move(batch));
}

Status Engine::FoldBatch(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                         const EvalOptions& options) {
  const QueryPlan plan = MakePlan(state.query(), true, columns);
  ROWJIT_RETURN_NOT_OK(CheckKeys(state.query(), columns, length));
  ROWJIT_RETURN_NOT_OK(CheckDirect(state.query(), plan, columns, length));
  // Blocks keep the projection's output columns in L2 while the folds read them back; a batch
  // whose columns are not all `length` long runs whole, so that Project names the mismatch.
  const bool blocked = length > kQueryBlock && std::all_of(columns.begin(), columns.end(), [&](const ArrayPtr& c) {
                         return c != nullptr && c->length() == length;
                       });
  const int64_t block = blocked ? kQueryBlock : std::max<int64_t>(length, 1);
  std::vector<ArrayPtr> slices;  // a blocked batch's block (a whole one reads `columns` as they are)
  for (int64_t begin = 0; begin < std::max<int64_t>(length, 1); begin += block) {
    const int64_t n = std::min(block, length - begin);
    std::span<const ArrayPtr> part = columns;
    if (blocked) {
      slices.resize(columns.size());
      for (size_t c = 0; c < columns.size(); ++c) {
        ROWJIT_ASSIGN_OR_RETURN(slices[c], columns[c]->Slice(begin, n));
      }
      part = slices;
    }
    std::vector<ArrayPtr> keys;
    for (const ir::ExprPtr& k : state.query().keys) keys.push_back(part[k->column_index()]);
    std::vector<ArrayPtr> outputs;
    if (!plan.exprs.empty()) {
      auto projected = Project(plan.exprs, part, n, options);
      if (!projected.ok()) return ShiftRow(projected.error(), begin);
      outputs = std::move(*projected);
    }
    ROWJIT_RETURN_NOT_OK(FoldProjected(state, plan, outputs, part, keys, n, begin));
  }
  return Status::OK();
}

Status Engine::FoldQuery(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                         const SelectionVector& selection, const EvalOptions& options) {
  ir::QueryState batch(state.shared_query());
  ROWJIT_RETURN_NOT_OK(FoldBatch(batch, columns, length, selection, options));
  return state.AddBatch(std::move(batch));
}

Status Engine::FoldBatch(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length,
                         const SelectionVector& selection, const EvalOptions& options) {
  const ir::Query& q = state.query();
  const QueryPlan plan = MakePlan(q, false);  // the projection's rows are the selection's
  std::vector<ArrayPtr> outputs;
  if (!plan.exprs.empty()) {
    ROWJIT_ASSIGN_OR_RETURN(outputs, Project(plan.exprs, columns, length, selection, options));
  }
  ROWJIT_RETURN_NOT_OK(CheckKeys(q, columns, length));
  std::vector<ArrayPtr> keys;
  for (const ir::ExprPtr& k : q.keys) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr taken, Take(*columns[k->column_index()], selection));
    keys.push_back(std::move(taken));
  }
  return FoldProjected(state, plan, outputs, {}, keys, selection.size(), 0);
}

Result<ir::QueryResult> Engine::Query(const ir::Query& query, std::span<const ArrayPtr> columns, int64_t length,
                                      const EvalOptions& options) {
  ir::QueryState state(std::make_shared<const ir::Query>(query));
  ROWJIT_RETURN_NOT_OK(FoldQuery(state, columns, length, options));
  return state.Finish();
}

Result<ir::QueryResult> Engine::Query(const ir::Query& query, std::span<const ArrayPtr> columns, int64_t length,
                                      const SelectionVector& selection, const EvalOptions& options) {
  ir::QueryState state(std::make_shared<const ir::Query>(query));
  ROWJIT_RETURN_NOT_OK(FoldQuery(state, columns, length, selection, options));
  return state.Finish();
}

}  // namespace rowjit::jit
