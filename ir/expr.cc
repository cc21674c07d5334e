// Expression nodes: construction, structural hash and equality, canonical printing (ir layer).
#include "ir/expr.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>

#include "ir/analysis.h"
#include "ir/function.h"
#include "ir/temporal.h"
#include "runtime/builder.h"
#include "runtime/deep_stack.h"

namespace rowjit::ir {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  // splitmix64-style combine: cheap, and good enough for a cache key checked by Equals.
  v += 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
  v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (v ^ (v >> 31));
}

uint64_t HashString(const std::string& s) { return std::hash<std::string>{}(s); }

}  // namespace

void Expr::ComputeHash() {
  uint64_t h = Mix(static_cast<uint64_t>(kind_), bound_);
  h = Mix(h, HashString(name_));
  h = Mix(h, type_arg_ ? static_cast<uint64_t>(*type_arg_) + 1 : 0);
  h = Mix(h, HashString(literal_text_));
  if (bound_) {
    h = Mix(h, static_cast<uint64_t>(type_.id) * 2 + type_.nullable);
    h = Mix(h, static_cast<uint64_t>(column_index_));
    if (kind_ == ExprKind::kLiteral) {
      h = Mix(h, value_.is_null() ? ~uint64_t{0} : value_.bits());
      if (IsString(value_.type_id())) h = Mix(h, HashString(std::string(value_.str())));
    }
  }
  for (const ExprPtr& a : args_) h = Mix(h, a->hash());
  hash_ = h;
}

ExprPtr Expr::Column(std::string name, SourceSpan span) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kColumn;
  e->name_ = std::move(name);
  e->span_ = span;
  e->ComputeHash();
  return e;
}

ExprPtr Expr::Literal(std::string text, std::optional<TypeId> suffix, SourceSpan span) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kLiteral;
  e->literal_text_ = std::move(text);
  e->type_arg_ = suffix;
  e->span_ = span;
  e->ComputeHash();
  return e;
}

ExprPtr Expr::Call(std::string function, std::vector<ExprPtr> args,
                   std::optional<TypeId> type_arg, SourceSpan span) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kCall;
  e->name_ = std::move(function);
  e->args_ = std::move(args);
  e->type_arg_ = type_arg;
  e->span_ = span;
  e->ComputeHash();
  return e;
}

ExprPtr Expr::BoundColumn(std::string name, int index, DataType type) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kColumn;
  e->bound_ = true;
  e->name_ = std::move(name);
  e->column_index_ = index;
  e->type_ = type;
  e->ComputeHash();
  return e;
}

ExprPtr Expr::BoundLiteral(Scalar value) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kLiteral;
  e->bound_ = true;
  e->value_ = value;
  e->type_ = value.type();  // its logical type too (a decimal literal)
  e->ComputeHash();
  return e;
}

ExprPtr Expr::BoundCall(const Function* function, std::vector<ExprPtr> args,
                        std::optional<TypeId> type_arg, DataType type) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kCall;
  e->bound_ = true;
  e->name_ = std::string(function->name);
  e->function_ = function;
  e->args_ = std::move(args);
  e->type_arg_ = type_arg;
  e->type_ = type;
  e->ComputeHash();
  return e;
}

bool Expr::CanFail() const {
  if (!is_call() || function_ == nullptr || !function_->fallible()) return false;
  std::vector<DataType> arg_types;
  arg_types.reserve(args_.size());
  for (const ExprPtr& a : args_) arg_types.push_back(a->type());
  return function_->can_fail(arg_types, type_);
}

// Children are released without recursion: the last owner of a child takes its children before
// dropping it, so destroying a tree a million levels deep uses a vector, not the stack.
Expr::~Expr() {
  std::vector<ExprPtr> pending = std::move(args_);
  while (!pending.empty()) {
    ExprPtr e = std::move(pending.back());
    pending.pop_back();
    if (e.use_count() == 1) {  // no one else can reach it: its children are ours to release
      std::vector<ExprPtr>& kids = const_cast<Expr&>(*e).args_;
      for (ExprPtr& k : kids) pending.push_back(std::move(k));
      kids.clear();
    }
  }
}

const ExprFacts& Expr::facts() const {
  if (const ExprFacts* ready = facts_ready_.load(std::memory_order_acquire)) return *ready;
  std::call_once(facts_once_, [this] {
    facts_ = std::make_unique<const ExprFacts>(AnalyzeExpr(*this));
    facts_ready_.store(facts_.get(), std::memory_order_release);
  });
  return *facts_;
}

namespace {

// The node itself, not its arguments.
bool SameNode(const Expr& a, const Expr& b) {
  if (a.hash() != b.hash() || a.kind() != b.kind() || a.bound() != b.bound() ||
      a.name() != b.name() || a.type_arg() != b.type_arg() ||
      a.literal_text() != b.literal_text() || a.args().size() != b.args().size()) {
    return false;
  }
  return !a.bound() || (a.type() == b.type() && a.column_index() == b.column_index() &&
                        (!a.is_literal() || a.value() == b.value()));
}

}  // namespace

// Pairs compared over an explicit stack (any depth); shared subtrees compare by pointer first.
bool Expr::Equals(const Expr& o) const {
  std::vector<std::pair<const Expr*, const Expr*>> stack = {{this, &o}};
  while (!stack.empty()) {
    auto [a, b] = stack.back();
    stack.pop_back();
    if (a == b) continue;
    if (!SameNode(*a, *b)) return false;
    for (size_t i = 0; i < a->args().size(); ++i) stack.push_back({a->args()[i].get(), b->args()[i].get()});
  }
  return true;
}

namespace {

// The descriptor a call prints by: a bound call's, or for an unbound one the function its name
// is the canonical name of (an alias prints as written).
const Function* PrintedFunction(const Expr& e) {
  if (!e.is_call()) return nullptr;
  if (e.bound()) return e.function();
  const Function* f = FindFunction(e.name());
  return f != nullptr && f->name == e.name() ? f : nullptr;
}

bool HasSyntax(const Expr& e, Syntax syntax, size_t min_args, size_t max_args) {
  const Function* f = PrintedFunction(e);
  return f != nullptr && f->syntax == syntax && e.args().size() >= min_args && e.args().size() <= max_args;
}

std::string_view InfixSymbol(const Expr& e) { return HasSyntax(e, Syntax::kInfix, 2, 2) ? PrintedFunction(e)->symbol : ""; }

// in_list(x, a, b) prints as SQL's `x in (a, b)`, which parses back to it.
bool IsInList(const Expr& e) { return HasSyntax(e, Syntax::kInList, 2, SIZE_MAX); }

bool IsPrefix(const Expr& e) { return HasSyntax(e, Syntax::kPrefix, 1, 1); }

bool IsOperator(const Expr& e) { return !InfixSymbol(e).empty() || IsPrefix(e) || IsInList(e); }

void Append(const Expr& e, std::string& out);

void AppendOperand(const Expr& e, std::string& out) {
  if (!IsOperator(e)) return Append(e, out);
  out += '(';
  Append(e, out);
  out += ')';
}

// A value of a logical type as the cast that binds to it again: a decimal from its text
// (cast('1.50', decimal64(3,2))), the others from their storage (cast(19782:i32, date32)).
std::string LogicalLiteralText(const Scalar& v) {
  const DataType t = v.type().WithNullable(false);
  const std::string storage = v.is_null() ? fmt::format("null:{}", t.id == TypeId::kI128 ? "i64" : TypeIdName(t.id))
                              : t.logical == LogicalKind::kDecimal ? fmt::format("'{}'", DecimalText(v.int128(), t.scale))
                              : t.logical == LogicalKind::kInterval ? fmt::format("'{}'", IntervalText(v))
                                                                   : fmt::format("{}:{}", Int128Text(v.int128()), TypeIdName(t.id));
  return fmt::format("cast({}, {})", storage, t.ToString());
}

// The calls that stand for a cast print as one (their target is their type), and so does the
// parser's form of a cast to a logical type, whose type is a string literal.
bool PrintsAsCast(const Expr& e) {
  if (!e.bound()) {
    if (SurfaceFormOf(e) != SurfaceForm::kLogicalCast) return false;
    const std::string& type = e.args()[1]->is_literal() ? e.args()[1]->literal_text() : "";
    return type.size() > 1 && type.front() == '\'';
  }
  return HasSyntax(e, Syntax::kCast, 1, 1);
}

// Canonical text, appended (linear in the text's length). Recursive: ToString runs it on a stack
// that holds the expression's depth.
// A column's name as the parser reads it back: bare when it is a plain identifier that is no
// keyword or word of SQL's forms, else in double quotes ("unit price", "case", a quote doubled).
void AppendColumnName(std::string_view name, std::string& out) {
  static constexpr std::string_view kWords[] = {"and", "or",   "not",  "true", "false", "null", "nan",
                                                "inf", "case", "when", "then", "else",  "end",  "in",
                                                "like", "ilike", "between", "is", "distinct", "from", "as"};
  const auto plain_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(), plain_char) &&
                     std::find(std::begin(kWords), std::end(kWords), lower) == std::end(kWords);
  if (plain) {
    out += name;
    return;
  }
  out += '"';
  for (char c : name) out += c == '"' ? std::string_view("\"\"") : std::string_view(&c, 1);
  out += '"';
}

void Append(const Expr& e, std::string& out) {
  switch (e.kind()) {
    case ExprKind::kColumn:
      AppendColumnName(e.name(), out);
      return;
    case ExprKind::kLiteral:
      if (e.bound()) {
        out += e.value().type().is_logical() ? LogicalLiteralText(e.value()) : e.value().ToString();
      } else {
        out += e.literal_text();
        if (e.literal_suffix()) out += ":" + std::string(TypeIdName(*e.literal_suffix()));
      }
      return;
    case ExprKind::kCall:
      break;
  }
  if (std::string_view sym = InfixSymbol(e); !sym.empty()) {
    AppendOperand(*e.args()[0], out);
    out += fmt::format(" {} ", sym);
    AppendOperand(*e.args()[1], out);
    return;
  }
  if (IsPrefix(e)) {
    out += fmt::format("{} ", PrintedFunction(e)->symbol);
    return AppendOperand(*e.args()[0], out);
  }
  if (IsInList(e)) {
    AppendOperand(*e.args()[0], out);
    out += " in (";
    for (size_t i = 1; i < e.args().size(); ++i) {
      if (i > 1) out += ", ";
      Append(*e.args()[i], out);
    }
    out += ')';
    return;
  }
  if (PrintsAsCast(e)) {
    out += "cast(";
    Append(*e.args()[0], out);
    const std::string& text = e.bound() ? "" : e.args()[1]->literal_text();
    out += ", " + (e.bound() ? e.type().WithNullable(false).ToString() : text.substr(1, text.size() - 2)) + ")";
    return;
  }
  if (SurfaceFormOf(e) == SurfaceForm::kNamed && e.args()[0]->is_literal()) {  // x := value
    Result<Scalar> name = ParseScalar(TypeId::kUtf8, e.args()[0]->literal_text());
    if (name.ok()) {
      AppendColumnName(name->str(), out);
      out += " := ";
      return Append(*e.args()[1], out);
    }
  }
  if (e.bound() && e.function()->family == Family::kConstruct && e.type().id == TypeId::kStruct) {  // struct_pack
    out += e.name() + "(";
    const std::vector<StructField>& fields = StructFields(e.type());
    for (size_t i = 0; i < e.args().size(); ++i) {
      if (i) out += ", ";
      AppendColumnName(fields[i].name, out);
      out += " := ";
      Append(*e.args()[i], out);
    }
    out += ')';
    return;
  }
  out += e.name() + "(";
  for (size_t i = 0; i < e.args().size(); ++i) {
    if (i) out += ", ";
    Append(*e.args()[i], out);
  }
  if (e.type_arg()) out += ", " + std::string(TypeIdName(*e.type_arg()));
  out += ')';
}

}  // namespace

std::string Expr::ToString() const {
  Result<std::string> text = WithStackForDepth(facts().depth, [this]() -> Result<std::string> {
    std::string out;
    Append(*this, out);
    return out;
  });
  return text.ok() ? std::move(text).value() : "<" + text.error().ToString() + ">";
}

const std::vector<int>& ReferencedColumns(const Expr& e) { return e.facts().columns; }

}  // namespace rowjit::ir
