// Aggregate queries: the query form's parsing and binding (ir layer). Each part (an aggregate,
// a FILTER predicate, a key, WHERE) is parsed by the expression parser from the whole text with
// the other parts blanked out, so every node's span, and every error's, points into the text
// the caller wrote.
#include "ir/query.h"

#include <cctype>

#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/top_k.h"

namespace rowjit::ir {
namespace {

struct Part {
  size_t begin = 0, end = 0;
  bool empty(std::string_view text) const {
    for (size_t i = begin; i < end; ++i) {
      if (!std::isspace(static_cast<unsigned char>(text[i]))) return false;
    }
    return true;
  }
};

// Top-level structure of a text: depth-0 commas and keywords, outside quotes and parentheses.
struct Scan {
  std::vector<size_t> commas;
  struct Word {
    size_t at, end;
    std::string lower;
  };
  std::vector<Word> words;  // depth-0 identifiers, lower-cased
};

Scan ScanTopLevel(std::string_view text, size_t begin, size_t end) {
  Scan scan;
  int depth = 0;
  for (size_t i = begin; i < end; ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"') {  // a string literal or a quoted name: '' and "" escape
      for (++i; i < end; ++i) {
        if (text[i] != c) continue;
        if (i + 1 < end && text[i + 1] == c) { ++i; continue; }
        break;
      }
      continue;
    }
    if (c == '(' || c == '[') ++depth;  // calls and vector literals
    if (c == ')' || c == ']') --depth;
    if (depth != 0) continue;
    if (c == ',') scan.commas.push_back(i);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      std::string word;
      while (j < end && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) {
        word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[j]))));
        ++j;
      }
      scan.words.push_back({i, j, std::move(word)});
      i = j - 1;
    }
  }
  return scan;
}

// The part as its own text: every byte outside it blanked, so parsed spans are the text's.
std::string Blanked(std::string_view text, Part p) {
  std::string out(text.size(), ' ');
  for (size_t i = p.begin; i < p.end; ++i) out[i] = text[i];
  return out;
}

Error At(Part p, Error e) { return std::move(e).WithSpan({p.begin, p.end - p.begin}); }

// The clauses: aggregates, then GROUP BY and WHERE in either order.
struct Clauses {
  Part aggregates, keys, where;
  bool has_keys = false, has_where = false;
};

Result<Clauses> SplitClauses(std::string_view text) {
  const Scan scan = ScanTopLevel(text, 0, text.size());
  Clauses c;
  size_t aggregates_end = text.size();
  struct Start {
    size_t keyword, body;
    bool keys;
  };
  std::vector<Start> starts;
  for (size_t i = 0; i < scan.words.size(); ++i) {
    const Scan::Word& w = scan.words[i];
    if (w.lower == "where") starts.push_back({w.at, w.end, false});
    if (w.lower == "group") {
      if (i + 1 >= scan.words.size() || scan.words[i + 1].lower != "by") {
        return At({w.at, w.end}, MakeError(ErrorCode::kInvalidInput, "expected 'by' after 'group'"));
      }
      starts.push_back({w.at, scan.words[i + 1].end, true});
    }
  }
  for (size_t k = 0; k < starts.size(); ++k) {
    const Part body{starts[k].body, k + 1 < starts.size() ? starts[k + 1].keyword : text.size()};
    bool& has = starts[k].keys ? c.has_keys : c.has_where;
    if (has) {
      return At({starts[k].keyword, starts[k].body},
                MakeError(ErrorCode::kInvalidInput, "'{}' appears twice", starts[k].keys ? "group by" : "where"));
    }
    has = true;
    (starts[k].keys ? c.keys : c.where) = body;
    aggregates_end = std::min(aggregates_end, starts[k].keyword);
  }
  c.aggregates = {0, aggregates_end};
  return c;
}

std::vector<Part> SplitCommas(std::string_view text, Part p) {
  std::vector<Part> parts;
  size_t begin = p.begin;
  for (size_t comma : ScanTopLevel(text, p.begin, p.end).commas) {
    parts.push_back({begin, comma});
    begin = comma + 1;
  }
  parts.push_back({begin, p.end});
  return parts;
}

Part Trimmed(std::string_view text, Part p) {
  while (p.begin < p.end && std::isspace(static_cast<unsigned char>(text[p.begin]))) ++p.begin;
  while (p.end > p.begin && std::isspace(static_cast<unsigned char>(text[p.end - 1]))) --p.end;
  return p;
}

Result<ExprPtr> ParsePart(std::string_view text, Part p, const BindOptions& options, std::string_view what) {
  if (p.empty(text)) return At(p, MakeError(ErrorCode::kInvalidInput, "expected {}", what));
  return Parse(Blanked(text, p), options.limits);
}

// Binds `e` alone, for its errors; the query binds it again inside the guarded argument.
Result<ExprPtr> BindPredicate(const ExprPtr& e, Part p, const Schema& schema, const BindOptions& options,
                              std::string_view what) {
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr bound, Bind(e, schema, options));
  if (bound->type().id != TypeId::kBool) {
    return At(p, MakeError(ErrorCode::kTypeError, "{} must be bool, not {}", what,
                           bound->type().WithNullable(false).ToString()));
  }
  return bound;
}

ExprPtr Guarded(const ExprPtr& cond, const ExprPtr& value) {
  if (cond == nullptr) return value;
  return Expr::Call("if", {cond, value, Expr::Literal("null")});
}

struct AggregateItem {
  Part call, filter;
  bool has_filter = false;
};

// "agg(x)" or "agg(x) filter (where p)".
Result<AggregateItem> SplitItem(std::string_view text, Part p) {
  AggregateItem item;
  item.call = Trimmed(text, p);
  const Scan scan = ScanTopLevel(text, item.call.begin, item.call.end);
  for (const Scan::Word& w : scan.words) {
    if (w.lower != "filter") continue;
    item.has_filter = true;
    Part rest = Trimmed(text, {w.end, item.call.end});
    item.call.end = w.at;
    const size_t open = rest.begin;
    if (rest.begin == rest.end || text[open] != '(' || text[rest.end - 1] != ')') {
      return At({w.at, p.end}, MakeError(ErrorCode::kInvalidInput, "expected 'filter (where predicate)'"));
    }
    Part inner = Trimmed(text, {open + 1, rest.end - 1});
    const Scan in = ScanTopLevel(text, inner.begin, inner.end);
    if (in.words.empty() || in.words[0].lower != "where" || in.words[0].at != inner.begin) {
      return At({w.at, p.end}, MakeError(ErrorCode::kInvalidInput, "expected 'filter (where predicate)'"));
    }
    item.filter = {in.words[0].end, inner.end};
    break;
  }
  item.call = Trimmed(text, item.call);
  return item;
}

bool IsCountStar(std::string_view text, Part p) {
  std::string compact;
  for (size_t i = p.begin; i < p.end; ++i) {
    if (!std::isspace(static_cast<unsigned char>(text[i]))) {
      compact.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i]))));
    }
  }
  return compact == "count(*)";
}

Status CheckAvg(const Aggregate& sum, Part p) {
  const DataType& t = sum.arg->type();
  if (t.logical == LogicalKind::kInterval || t.logical == LogicalKind::kDuration) {
    return At(p, MakeError(ErrorCode::kTypeError, "avg({}): expects a numeric or decimal argument",
                           t.WithNullable(false).ToString()));
  }
  return Status::OK();
}

// One aggregate: its call, with WHERE and its FILTER guarding the argument.
Result<QueryAggregate> BindItem(std::string_view text, Part p, const ExprPtr& where, const Schema& schema,
                                const BindOptions& options) {
  ROWJIT_ASSIGN_OR_RETURN(AggregateItem item, SplitItem(text, p));
  QueryAggregate q;
  q.text = std::string(text.substr(item.call.begin, item.call.end - item.call.begin));
  ExprPtr cond = where;
  if (item.has_filter) {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr f, ParsePart(text, item.filter, options, "a predicate"));
    ROWJIT_ASSIGN_OR_RETURN(q.filter, BindPredicate(f, item.filter, schema, options, "filter (where ...)"));
    cond = where == nullptr ? f : Expr::Call("and", {where, f});
    const Part written = Trimmed(text, p);  // the aggregate and its FILTER, as the caller wrote them
    q.text = std::string(text.substr(written.begin, written.end - written.begin));
  }
  q.count_star = IsCountStar(text, item.call);
  if (q.count_star) {
    ROWJIT_ASSIGN_OR_RETURN(q.fold.arg, Bind(Guarded(cond, Expr::Literal("true")), schema, options));
    q.fold.kind = AggKind::kCount;
    q.fold.result = q.result = DataType(TypeId::kI64, false);
    return q;
  }
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr call, ParsePart(text, item.call, options, "an aggregate"));
  q.avg = call->is_call() && call->name() == "avg" && call->args().size() == 1;
  if (!call->is_call() || call->args().size() != 1 || (!q.avg && !IsAggregateText(Blanked(text, item.call)))) {
    return At(item.call, MakeError(ErrorCode::kInvalidInput,
                                   "'{}' is not an aggregate (sum, avg, min, max, count, count(*), nan_count, any, "
                                   "all, min_nan, max_nan of one argument)", q.text));
  }
  if (call->name() == "min_max" || call->name() == "min_max_nan") {
    return At(item.call, MakeError(ErrorCode::kInvalidInput, "{} in a query: write min(x), max(x)", call->name()));
  }
  // The argument alone first, so that its errors are its own; then guarded by the conditions.
  ROWJIT_ASSIGN_OR_RETURN(q.arg, Bind(call->args()[0], schema, options));
  ExprPtr folded = Expr::Call(q.avg ? "sum" : call->name(), {Guarded(cond, call->args()[0])}, std::nullopt, call->span());
  ROWJIT_ASSIGN_OR_RETURN(q.fold, BindAggregate(folded, text, schema, options));
  if (q.avg) ROWJIT_RETURN_NOT_OK(CheckAvg(q.fold, item.call));
  q.result = q.avg ? DataType(TypeId::kF64, true) : q.fold.result;
  return q;
}

Result<std::vector<ExprPtr>> BindKeys(std::string_view text, Part keys, const Schema& schema,
                                      const BindOptions& options) {
  std::vector<ExprPtr> out;
  for (Part p : SplitCommas(text, keys)) {
    p = Trimmed(text, p);
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, ParsePart(text, p, options, "a column name"));
    if (!e->is_column()) return At(p, MakeError(ErrorCode::kInvalidInput, "group by takes column names"));
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr bound, Bind(e, schema, options));
    const TypeId t = bound->type().id;
    if (IsNested(t)) {
      return At(p, MakeError(ErrorCode::kTypeError, "group by takes a column of a flat type; {} is {}", bound->name(),
                             bound->type().ToString()));
    }
    out.push_back(std::move(bound));
  }
  return out;
}

}  // namespace

Result<Query> ParseAndBindQuery(std::string_view text, const Schema& schema, const BindOptions& options) {
  ROWJIT_ASSIGN_OR_RETURN(Clauses c, SplitClauses(text));
  Query q;
  ExprPtr where;
  if (c.has_where) {
    ROWJIT_ASSIGN_OR_RETURN(where, ParsePart(text, c.where, options, "a predicate after 'where'"));
    ROWJIT_ASSIGN_OR_RETURN(q.where, BindPredicate(where, Trimmed(text, c.where), schema, options, "where"));
  }
  if (c.has_keys) {
    ROWJIT_ASSIGN_OR_RETURN(q.keys, BindKeys(text, c.keys, schema, options));
  }
  if (c.aggregates.empty(text)) {
    return At({0, text.size()}, MakeError(ErrorCode::kInvalidInput, "expected an aggregate (sum(x), count(*), ...)"));
  }
  for (Part p : SplitCommas(text, c.aggregates)) {
    ROWJIT_ASSIGN_OR_RETURN(QueryAggregate a, BindItem(text, p, where, schema, options));
    q.aggregates.push_back(std::move(a));
  }
  return q;
}

bool IsQueryText(std::string_view text) {
  if (IsTopKText(text)) return false;  // top_k(s, k) where p: a selection, whose where is its own
  auto c = SplitClauses(text);
  if (!c.ok()) return false;
  if (c->has_keys || c->has_where) return true;
  const std::vector<Part> items = SplitCommas(text, c->aggregates);
  if (items.size() > 1) return true;
  auto item = SplitItem(text, items[0]);
  if (!item.ok() || item->has_filter || IsCountStar(text, item->call)) return true;
  auto e = Parse(Blanked(text, item->call));
  return e.ok() && (*e)->is_call() && (*e)->name() == "avg" && (*e)->args().size() == 1;
}

std::string Query::ToString() const {
  std::string out;
  for (const QueryAggregate& a : aggregates) out += (out.empty() ? "" : ", ") + a.text;
  for (size_t k = 0; k < keys.size(); ++k) out += (k == 0 ? " group by " : ", ") + keys[k]->ToString();
  if (where != nullptr) out += " where " + where->ToString();
  return out;
}

uint64_t Query::hash() const {
  uint64_t h = where == nullptr ? 7 : where->hash();
  for (const QueryAggregate& a : aggregates) h = h * 31 + a.fold.hash() * 3 + a.avg + a.count_star * 2;
  for (const ExprPtr& k : keys) h = h * 37 + k->hash();
  return h;
}

}  // namespace rowjit::ir
