// Aggregate queries: partial states (groups, merge, bytes, results) and the row-at-a-time
// reference fold (ir layer).
#include <cmath>
#include <cstring>

#include "ir/query.h"
#include "ir/reference.h"
#include "runtime/builder.h"

namespace rowjit::ir {
namespace {

constexpr std::string_view kMagic = "rowjit-query-state-1";

// Nulls after every value; values in FoldLess order.
bool KeyValueLess(const Scalar& a, const Scalar& b) {
  if (a.is_null() || b.is_null()) return !a.is_null() && b.is_null();
  return FoldLess(a, b);
}

// --- bytes -----------------------------------------------------------------------------------

class Writer {
 public:
  template <typename T>
  void Put(const T& v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void PutScalar(const Scalar& s) {
    Put<uint8_t>(s.is_null());
    if (s.is_null()) return;
    if (IsString(s.type_id())) {
      Put<uint64_t>(s.str().size());
      out_.append(s.str());
    } else {
      Put<__int128>(s.int128());
      Put<uint64_t>(s.bits());
    }
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  bool Get(T& v) {
    if (in_.size() < sizeof(T)) return false;
    std::memcpy(&v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return true;
  }
  bool GetScalar(DataType type, Scalar& s) {
    uint8_t null = 0;
    if (!Get(null)) return false;
    if (null) {
      s = Scalar::Null(type.id).As(type);
      return true;
    }
    if (IsString(type.id)) {
      uint64_t n = 0;
      if (!Get(n) || n > in_.size()) return false;
      s = Scalar::String(in_.substr(0, n), type.id).As(type.WithNullable(false));
      in_.remove_prefix(n);
      return true;
    }
    __int128 wide = 0;
    uint64_t bits = 0;
    if (!Get(wide) || !Get(bits)) return false;
    s = type.id == TypeId::kI128 ? Scalar::Int128(wide, type) : Scalar::FromBits(type.id, bits).As(type);
    s = s.As(type.WithNullable(false));
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

void PutAccumulator(Writer& w, const FoldAccumulator& a) {
  w.Put(a.count);
  w.Put(a.nan_count);
  w.Put(a.int_sum);
  w.Put(a.sum_carry);
  w.Put(a.months);
  w.Put(a.days);
  w.Put(a.nanos);
  w.Put(a.lanes);
  w.Put<uint8_t>(a.any);
  w.Put<uint8_t>(a.all);
  w.PutScalar(a.count > 0 ? a.lo : Scalar());
  w.PutScalar(a.count > 0 ? a.hi : Scalar());
}

bool GetAccumulator(Reader& r, const Aggregate& agg, FoldAccumulator& a) {
  uint8_t any = 0, all = 0;
  const DataType t = agg.arg->type();
  return r.Get(a.count) && r.Get(a.nan_count) && r.Get(a.int_sum) && r.Get(a.sum_carry) && r.Get(a.months) &&
         r.Get(a.days) && r.Get(a.nanos) && r.Get(a.lanes) && r.Get(any) && r.Get(all) && (a.any = any, a.all = all, true) &&
         r.GetScalar(t, a.lo) && r.GetScalar(t, a.hi) && a.count >= 0 && a.nan_count >= 0;
}

// --- results ---------------------------------------------------------------------------------

Result<Scalar> FinishAvg(const QueryAggregate& a, const FoldAccumulator& acc) {
  if (acc.count == 0) return Scalar::Null(TypeId::kF64);
  const DataType t = a.fold.arg->type();
  double sum;
  if (IsFloat(t.id)) {
    ROWJIT_ASSIGN_OR_RETURN(AggregateResult r, acc.Finish(a.fold));
    sum = r.value.value<double>();
  } else {
    // The exact total (a 16-byte sum's carry counts 2^128s), rounded once to f64.
    sum = static_cast<double>(acc.int_sum) + static_cast<double>(acc.sum_carry) * 0x1p128;
    if (t.logical == LogicalKind::kDecimal) sum /= std::pow(10.0, t.scale);
  }
  return Scalar::Of<double>(sum / static_cast<double>(acc.count));
}

Result<Scalar> FinishOne(const QueryAggregate& a, const FoldAccumulator& acc) {
  if (a.avg) return FinishAvg(a, acc);
  ROWJIT_ASSIGN_OR_RETURN(AggregateResult r, acc.Finish(a.fold));
  return r.value;
}

}  // namespace

Scalar NormalizeKey(Scalar key) {
  if (key.is_null() || !IsFloat(key.type_id())) return key;
  const bool f32 = key.type_id() == TypeId::kF32;
  const double v = f32 ? key.value<float>() : key.value<double>();
  if (std::isnan(v)) return Scalar::FromBits(key.type_id(), f32 ? 0x7fc00000u : 0x7ff8000000000000ULL).As(key.type());
  if (v == 0) return Scalar::FromBits(key.type_id(), 0).As(key.type());
  return key;
}

bool QueryState::KeyLess::operator()(const std::vector<Scalar>& a, const std::vector<Scalar>& b) const {
  for (size_t k = 0; k < a.size(); ++k) {
    if (KeyValueLess(a[k], b[k])) return true;
    if (KeyValueLess(b[k], a[k])) return false;
  }
  return false;
}

QueryState::QueryState(std::shared_ptr<const Query> query) : query_(std::move(query)) {}

std::span<FoldAccumulator> QueryState::Group(std::vector<Scalar> key) {
  auto [it, inserted] = groups_.try_emplace(std::move(key));
  if (inserted) it->second.resize(query_->aggregates.size());
  return it->second;
}

Status QueryState::Merge(const QueryState& other) {
  if (other.query_.get() != query_.get() && other.query_->ToString() != query_->ToString()) {
    return MakeError(ErrorCode::kInvalidInput, "cannot merge states of different queries ('{}' and '{}')",
                     query_->ToString(), other.query_->ToString());
  }
  for (const auto& [key, accs] : other.groups_) {
    std::span<FoldAccumulator> mine = Group(key);
    for (size_t k = 0; k < accs.size(); ++k) mine[k].Merge(query_->aggregates[k].fold, accs[k]);
  }
  return Status::OK();
}

Status QueryState::AddBatch(QueryState&& batch) {
  if (groups_.empty() && batch.query_ == query_) {
    groups_ = std::move(batch.groups_);
    return Status::OK();
  }
  return Merge(batch);
}

std::string QueryState::Serialize() const {
  Writer w;
  for (char c : kMagic) w.Put(c);
  w.Put<uint64_t>(query_->hash());
  w.Put<uint64_t>(groups_.size());
  for (const auto& [key, accs] : groups_) {
    for (const Scalar& s : key) w.PutScalar(s);
    for (const FoldAccumulator& a : accs) PutAccumulator(w, a);
  }
  return w.take();
}

Result<QueryState> QueryState::Deserialize(std::shared_ptr<const Query> query, std::string_view bytes) {
  const Error bad(ErrorCode::kInvalidInput, "not a state of this query (wrong query, version or truncated bytes)");
  if (bytes.substr(0, kMagic.size()) != kMagic) return bad;
  Reader r(bytes.substr(kMagic.size()));
  uint64_t hash = 0, groups = 0;
  if (!r.Get(hash) || hash != query->hash() || !r.Get(groups)) return bad;
  QueryState state(query);
  const Query& q = *query;
  for (uint64_t g = 0; g < groups; ++g) {
    std::vector<Scalar> key(q.keys.size());
    for (size_t k = 0; k < key.size(); ++k) {
      if (!r.GetScalar(q.keys[k]->type(), key[k])) return bad;
    }
    std::span<FoldAccumulator> accs = state.Group(std::move(key));
    for (size_t k = 0; k < accs.size(); ++k) {
      if (!GetAccumulator(r, q.aggregates[k].fold, accs[k])) return bad;
    }
  }
  if (!r.done() || state.groups() != static_cast<int64_t>(groups)) return bad;
  return state;
}

Result<QueryResult> QueryState::Finish() const {
  const Query& q = *query_;
  std::vector<std::vector<Scalar>> key_rows(q.keys.size()), value_rows(q.aggregates.size());
  auto add = [&](const std::vector<Scalar>& key, std::span<const FoldAccumulator> accs) -> Status {
    for (size_t k = 0; k < key.size(); ++k) key_rows[k].push_back(key[k]);
    for (size_t a = 0; a < accs.size(); ++a) {
      ROWJIT_ASSIGN_OR_RETURN(Scalar v, FinishOne(q.aggregates[a], accs[a]));
      value_rows[a].push_back(v);
    }
    return Status::OK();
  };
  for (const auto& [key, accs] : groups_) ROWJIT_RETURN_NOT_OK(add(key, accs));
  if (q.keys.empty() && groups_.empty()) {  // SQL: no GROUP BY gives one row, even over no rows
    ROWJIT_RETURN_NOT_OK(add({}, std::vector<FoldAccumulator>(q.aggregates.size())));
  }
  QueryResult out;
  out.groups = q.keys.empty() ? 1 : static_cast<int64_t>(groups_.size());
  for (size_t k = 0; k < q.keys.size(); ++k) {
    out.names.push_back(q.keys[k]->name());
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr col, MakeArray(q.keys[k]->type().WithNullable(true), key_rows[k]));
    out.columns.push_back(std::move(col));
  }
  for (size_t a = 0; a < q.aggregates.size(); ++a) {
    out.names.push_back(q.aggregates[a].text);
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr col, MakeArray(q.aggregates[a].result.WithNullable(true), value_rows[a]));
    out.columns.push_back(std::move(col));
  }
  return out;
}

std::string QueryResult::ToString() const {
  std::string out;
  for (size_t c = 0; c < names.size(); ++c) out += (c ? " | " : "") + names[c];
  out += "\n";
  for (int64_t r = 0; r < groups; ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      out += (c ? " | " : "") + columns[c]->Slice(r, 1).value()->ToString().substr(1);
      out.pop_back();  // a cell as its one-row array prints it, without the brackets
    }
    out += "\n";
  }
  return out;
}

// --- the reference ---------------------------------------------------------------------------

namespace {

// The first error by row among the parts' evaluations (WHERE first at a tie, then the
// aggregates in order): what every engine path reports.
Status FirstError(std::vector<Status> errors) {
  const Status* first = nullptr;
  for (const Status& s : errors) {
    if (s.ok()) continue;
    const int64_t row = s.error().row().value_or(INT64_MAX);
    if (first == nullptr || row < first->error().row().value_or(INT64_MAX)) first = &s;
  }
  return first == nullptr ? Status::OK() : *first;
}

}  // namespace

namespace {

Status FoldReferenceRows(QueryState& state, std::span<const ArrayPtr> columns, int64_t length) {
  const Query& q = state.query();
  std::vector<Status> errors;
  ArrayPtr where;
  if (q.where != nullptr) {
    auto w = EvaluateReference(*q.where, columns, length);
    errors.push_back(w.status());
    if (w.ok()) where = *w;
  }
  std::vector<ArrayPtr> args;
  for (const QueryAggregate& a : q.aggregates) {
    auto v = EvaluateReference(*a.fold.arg, columns, length);
    errors.push_back(v.status());
    args.push_back(v.ok() ? *v : nullptr);
  }
  ROWJIT_RETURN_NOT_OK(FirstError(std::move(errors)));
  for (int64_t i = 0; i < length; ++i) {
    if (where != nullptr && (where->IsNull(i) || !where->GetScalar(i).value<bool>())) continue;
    std::vector<Scalar> key;
    for (const ExprPtr& k : q.keys) key.push_back(NormalizeKey(columns[k->column_index()]->GetScalar(i)));
    std::span<FoldAccumulator> accs = state.Group(std::move(key));
    for (size_t a = 0; a < args.size(); ++a) {
      Scalar s = args[a]->GetScalar(i);
      if (s.is_null()) continue;
      const Aggregate& fold = q.aggregates[a].fold;
      if (IsFloat(s.type_id()) && !fold.arg->is_column() && std::isnan(s.type_id() == TypeId::kF32 ? s.value<float>() : s.value<double>())) {
        s = Scalar::FromBits(s.type_id(), s.type_id() == TypeId::kF32 ? 0x7fc00000u : 0x7ff8000000000000ULL);
      }
      accs[a].Fold(fold, s, i);
    }
  }
  return Status::OK();
}

}  // namespace

Status FoldQueryReference(QueryState& state, std::span<const ArrayPtr> columns, int64_t length) {
  QueryState batch(state.shared_query());
  ROWJIT_RETURN_NOT_OK(FoldReferenceRows(batch, columns, length));
  return state.AddBatch(std::move(batch));
}

Result<QueryResult> EvaluateQueryReference(const Query& query, std::span<const ArrayPtr> columns, int64_t length) {
  QueryState state(std::make_shared<const Query>(query));
  ROWJIT_RETURN_NOT_OK(FoldQueryReference(state, columns, length));
  return state.Finish();
}

}  // namespace rowjit::ir
