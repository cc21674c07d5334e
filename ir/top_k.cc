// Top-k selection: parsing, the bounded state and its order, the reference (ir layer).
#include "ir/top_k.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "ir/function.h"
#include "ir/parser.h"
#include "ir/reference.h"
#include "runtime/builder.h"

namespace rowjit::ir {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool StartsWithWord(std::string_view s, std::string_view word) {
  if (s.size() < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != word[i]) return false;
  }
  return s.size() == word.size() || !(std::isalnum(static_cast<unsigned char>(s[word.size()])) || s[word.size()] == '_');
}

// The end of the parenthesis opened at `open` (quotes skipped), or npos.
size_t Closing(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      const size_t end = s.find(c, i + 1);
      if (end == std::string_view::npos) return end;
      i = end;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// A score's place in SQL's order as an unsigned key.
uint64_t FloatKey(double v) {
  if (v != v) return ~uint64_t{0};  // every NaN: the greatest
  if (v == 0) v = 0;                // -0.0 as 0.0
  uint64_t b;
  std::memcpy(&b, &v, 8);
  return (b >> 63) != 0 ? ~b : b | (uint64_t{1} << 63);
}

template <typename T>
uint64_t KeyOf(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return FloatKey(static_cast<double>(v));  // f32 widens exactly, in order
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (uint64_t{1} << 63);
  } else {
    return static_cast<uint64_t>(v);
  }
}

template <typename T>
uint64_t BitsOf(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

}  // namespace

bool IsTopKText(std::string_view text) {
  const std::string_view t = Trim(text);
  auto opens = [&](size_t n) { return Trim(t.substr(n)).starts_with('('); };
  return (StartsWithWord(t, "top_k") && opens(5)) || (StartsWithWord(t, "bottom_k") && opens(8));
}

std::string TopK::ToString() const {
  std::string out = fmt::format("{}({}, {})", largest ? "top_k" : "bottom_k", score ? score->ToString() : "?", k);
  if (where) out += " where " + where->ToString();
  return out;
}

Result<TopK> ParseAndBindTopK(std::string_view text, const Schema& schema, std::string_view where,
                              const BindOptions& options) {
  const std::string_view t = Trim(text);
  TopK top;
  std::string_view rest;
  if (StartsWithWord(t, "top_k")) {
    rest = t.substr(5);
  } else if (StartsWithWord(t, "bottom_k")) {
    top.largest = false;
    rest = t.substr(8);
  } else {
    return MakeError(ErrorCode::kInvalidInput, "a top-k selection is top_k(SCORE, K) or bottom_k(SCORE, K), not '{}'", t);
  }
  const char* name = top.largest ? "top_k" : "bottom_k";
  const size_t open = rest.find('(');
  const size_t close = open == std::string_view::npos ? open : Closing(rest, open);
  if (open == std::string_view::npos || !Trim(rest.substr(0, open)).empty() || close == std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidInput, "{}(SCORE, K): the parentheses are not closed", name);
  }
  // The arguments as a call the parser reads ("list(...)": the score's syntax errors in one parse),
  // and every error's span moved from that text, or the where's, to the caller's.
  const size_t args_at = static_cast<size_t>(rest.data() - text.data()) + open;
  auto in_text = [&](auto r, size_t shift) -> decltype(r) {
    if (r.ok()) return r;
    return std::move(r).TakeError().ShiftSpan(shift);
  };
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr call, in_text(Parse(fmt::format("list{}", rest.substr(open, close - open + 1)),
                                                      options.limits), args_at - 4));
  const std::string_view tail = Trim(rest.substr(close + 1));
  size_t where_at = 0;  // where's offset in `text`; none: given apart (its errors name it instead)
  if (!tail.empty()) {
    if (!StartsWithWord(tail, "where")) {
      return MakeError(ErrorCode::kInvalidInput, "after {}(...) comes nothing or 'where PREDICATE', not '{}'", name, tail);
    }
    if (!Trim(where).empty()) return MakeError(ErrorCode::kInvalidInput, "a top-k selection has one where");
    where = tail.substr(5);
    where_at = static_cast<size_t>(where.data() - text.data());
    if (Trim(where).empty()) return MakeError(ErrorCode::kInvalidInput, "{}(...) where: the predicate is missing", name);
  }
  auto in_where = [&](auto r) -> decltype(r) {
    if (r.ok() || where_at != 0) return where_at != 0 ? in_text(std::move(r), where_at) : std::move(r);
    return Error(r.error().code(), fmt::format("where '{}': {}", where, r.error().message()));
  };
  if (call->args().size() != 2 || !call->args()[1]->is_literal()) {
    return MakeError(ErrorCode::kInvalidInput, "{}(SCORE, K) takes a score and a whole number of rows", name);
  }
  const std::string& k_text = call->args()[1]->literal_text();
  auto k = ParseScalar(TypeId::kI64, k_text);
  const bool whole = !k_text.empty() && std::all_of(k_text.begin(), k_text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!whole || !k.ok() || k->is_null() || k->value<int64_t>() < 1 || k->value<int64_t>() > kMaxTopK) {
    return MakeError(ErrorCode::kInvalidInput, "{}(SCORE, K) selects K = 1 to {} rows, not {}", name, kMaxTopK, k_text);
  }
  top.k = k->value<int64_t>();
  ROWJIT_ASSIGN_OR_RETURN(top.score, in_text(Bind(call->args()[0], schema, options), args_at - 4));
  const DataType st = top.score->type();
  if (!IsNumeric(st.id) || st.is_logical()) {
    return MakeError(ErrorCode::kTypeError, "a top-k score is an integer or a float, not {} ({})",
                     st.WithNullable(false).ToString(), top.score->ToString());
  }
  top.selected = top.score;
  if (where_at != 0 || !Trim(where).empty()) {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr p, in_where(Parse(where, options.limits)));
    ROWJIT_ASSIGN_OR_RETURN(top.where, in_where(Bind(p, schema, options)));
    if (top.where->type().id != TypeId::kBool) {
      return MakeError(ErrorCode::kTypeError, "a top-k's where is a bool, not {}", top.where->type().ToString());
    }
    ROWJIT_ASSIGN_OR_RETURN(top.selected, Bind(Expr::Call("if", {p, call->args()[0], Expr::Literal("null")}), schema, options));
  }
  return top;
}

TopKState::TopKState(int64_t k, bool largest, DataType score)
    : k_(std::clamp<int64_t>(k, 1, kMaxTopK)), largest_(largest), type_(score.WithNullable(false)) {}

void TopKState::Offer(const Entry& e) {
  // The heap's top is its worst entry: kept entries compare as `Better`, so a max-heap under it.
  auto worse_first = [this](const Entry& a, const Entry& b) { return Better(a, b); };
  if (static_cast<int64_t>(heap_.size()) < k_) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), worse_first);
  } else if (Better(e, heap_.front())) {
    std::pop_heap(heap_.begin(), heap_.end(), worse_first);
    heap_.back() = e;
    std::push_heap(heap_.begin(), heap_.end(), worse_first);
  }
}

template <typename T>
void TopKState::AddValues(const T* values, const Validity& validity, int64_t n, int64_t first_row) {
  const bool all_valid = validity.all_valid();
  for (int64_t i = 0; i < n; ++i) {
    if (!all_valid && !validity.IsValid(i)) continue;
    const uint64_t key = KeyOf(values[i]);
    // Once full, a row whose key is not better than the worst kept one's is out (an equal key
    // loses on its later row): one compare for most rows.
    if (static_cast<int64_t>(heap_.size()) == k_) {
      const uint64_t worst = heap_.front().key;
      if (largest_ ? key <= worst : key >= worst) continue;
    }
    Offer({key, BitsOf(values[i]), first_row + i});
  }
}

Status TopKState::Add(const Array& scores, int64_t first_row) {
  if (!scores.type().SameType(type_.WithNullable(scores.type().nullable))) {
    return MakeError(ErrorCode::kTypeError, "top-k of {} scores offered {}", type_.ToString(), scores.type().ToString());
  }
  if (scores.encoding() == Encoding::kPrimitive) {
    const auto& p = static_cast<const PrimitiveArray&>(scores);
    VisitType(type_.id, [&]<typename T>(std::type_identity<T>) {
      if constexpr (!std::is_same_v<T, bool>) AddValues(p.values<T>(), p.validity(), p.length(), first_row);
    });
    return Status::OK();
  }
  for (int64_t i = 0; i < scores.length(); ++i) {  // constants and other encodings: row by row
    const Scalar s = scores.GetScalar(i);
    if (s.is_null()) continue;
    VisitType(type_.id, [&]<typename T>(std::type_identity<T>) {
      if constexpr (!std::is_same_v<T, bool>) Offer({KeyOf(s.value<T>()), BitsOf(s.value<T>()), first_row + i});
    });
  }
  return Status::OK();
}

Status TopKState::Merge(const TopKState& other) {
  if (other.k_ != k_ || other.largest_ != largest_ || !(other.type_ == type_)) {
    return MakeError(ErrorCode::kInvalidInput, "top-k states of different selections do not merge");
  }
  for (const Entry& e : other.heap_) Offer(e);
  return Status::OK();
}

std::string TopKState::Serialize() const {
  std::string out = fmt::format("topk1 {} {} {} {}\n", k_, largest_ ? 1 : 0, static_cast<int>(type_.id), heap_.size());
  for (const Entry& e : heap_) out += fmt::format("{} {} {}\n", e.key, e.bits, e.row);
  return out;
}

Result<TopKState> TopKState::Deserialize(std::string_view bytes) {
  const std::string text(bytes);
  long long k = 0, largest = 0, type = 0, n = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "topk1 %lld %lld %lld %lld\n%n", &k, &largest, &type, &n, &used) != 4 || k < 1 ||
      k > kMaxTopK || n < 0 || n > k || type < 0 || type > static_cast<int>(TypeId::kF64) ||
      !IsNumeric(static_cast<TypeId>(type))) {
    return MakeError(ErrorCode::kInvalidInput, "not a serialized top-k state");
  }
  TopKState state(k, largest != 0, DataType(static_cast<TypeId>(type)));
  size_t at = static_cast<size_t>(used);
  for (long long i = 0; i < n; ++i) {
    unsigned long long key = 0, bits = 0;
    long long row = 0;
    int len = 0;
    if (std::sscanf(text.c_str() + at, "%llu %llu %lld\n%n", &key, &bits, &row, &len) != 3) {
      return MakeError(ErrorCode::kInvalidInput, "a serialized top-k state is cut short");
    }
    at += static_cast<size_t>(len);
    state.Offer({key, bits, row});
  }
  return state;
}

Result<TopKResult> TopKState::Finish() const {
  std::vector<Entry> sorted = heap_;
  std::sort(sorted.begin(), sorted.end(), [this](const Entry& a, const Entry& b) { return Better(a, b); });
  std::vector<Scalar> rows, scores;
  for (const Entry& e : sorted) {
    rows.push_back(Scalar::Of<int64_t>(e.row));
    scores.push_back(Scalar::FromBits(type_.id, e.bits));
  }
  TopKResult out;
  ROWJIT_ASSIGN_OR_RETURN(out.rows, MakeArray(DataType(TypeId::kI64), rows));
  ROWJIT_ASSIGN_OR_RETURN(out.scores, MakeArray(type_, scores));
  return out;
}

Result<TopKResult> TopKReference(const TopK& top, std::span<const ArrayPtr> columns, int64_t length) {
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr scores, EvaluateReference(*top.selected, columns, length));
  std::vector<std::pair<Scalar, int64_t>> rows;
  for (int64_t i = 0; i < length; ++i) {
    Scalar s = scores->GetScalar(i);
    if (!s.is_null()) rows.emplace_back(std::move(s), i);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    const int c = CompareScalarsSql(a.first, b.first);
    return top.largest ? c > 0 : c < 0;
  });
  if (static_cast<int64_t>(rows.size()) > top.k) rows.resize(static_cast<size_t>(top.k));
  std::vector<Scalar> r, s;
  for (const auto& [score, row] : rows) {
    r.push_back(Scalar::Of<int64_t>(row));
    s.push_back(score);
  }
  TopKResult out;
  ROWJIT_ASSIGN_OR_RETURN(out.rows, MakeArray(DataType(TypeId::kI64), r));
  ROWJIT_ASSIGN_OR_RETURN(out.scores, MakeArray(top.score->type().WithNullable(false), s));
  return out;
}

}  // namespace rowjit::ir
