// Expression nodes: construction, structural hash and equality, canonical printing (ir layer).
#include "ir/expr.h"

#include <algorithm>
#include <functional>

#include "ir/analysis.h"
#include "ir/function.h"

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
    if (kind_ == ExprKind::kLiteral) h = Mix(h, value_.is_null() ? ~uint64_t{0} : value_.bits());
  }
  for (const ExprPtr& a : args_) h = Mix(h, a->hash());
  hash_ = h;
}

ExprPtr Expr::Column(std::string name) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kColumn;
  e->name_ = std::move(name);
  e->ComputeHash();
  return e;
}

ExprPtr Expr::Literal(std::string text, std::optional<TypeId> suffix) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kLiteral;
  e->literal_text_ = std::move(text);
  e->type_arg_ = suffix;
  e->ComputeHash();
  return e;
}

ExprPtr Expr::Call(std::string function, std::vector<ExprPtr> args,
                   std::optional<TypeId> type_arg) {
  auto e = std::shared_ptr<Expr>(new Expr);
  e->kind_ = ExprKind::kCall;
  e->name_ = std::move(function);
  e->args_ = std::move(args);
  e->type_arg_ = type_arg;
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
  e->type_ = DataType(value.type_id(), value.is_null());
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

Expr::~Expr() = default;

const ExprFacts& Expr::facts() const {
  std::call_once(facts_once_, [this] { facts_ = std::make_unique<const ExprFacts>(AnalyzeExpr(*this)); });
  return *facts_;
}

bool Expr::Equals(const Expr& o) const {
  if (this == &o) return true;
  if (hash_ != o.hash_ || kind_ != o.kind_ || bound_ != o.bound_ || name_ != o.name_ ||
      type_arg_ != o.type_arg_ || literal_text_ != o.literal_text_ ||
      args_.size() != o.args_.size()) {
    return false;
  }
  if (bound_ && (type_ != o.type_ || column_index_ != o.column_index_ ||
                 (kind_ == ExprKind::kLiteral && !(value_ == o.value_)))) {
    return false;
  }
  for (size_t i = 0; i < args_.size(); ++i) {
    if (!args_[i]->Equals(*o.args_[i])) return false;
  }
  return true;
}

namespace {

// Infix operators by canonical function name; everything else prints as a call.
struct InfixOp {
  std::string_view function;
  std::string_view symbol;
};
constexpr InfixOp kInfix[] = {{"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"},
                              {"mod", "%"}, {"eq", "="},  {"ne", "!="}, {"lt", "<"},
                              {"le", "<="}, {"gt", ">"},  {"ge", ">="}, {"and", "and"},
                              {"or", "or"}};

std::string_view InfixSymbol(const Expr& e) {
  if (!e.is_call() || e.args().size() != 2) return {};
  for (const auto& op : kInfix) {
    if (op.function == e.name()) return op.symbol;
  }
  return {};
}

bool IsOperator(const Expr& e) {
  return !InfixSymbol(e).empty() || (e.is_call() && e.name() == "not" && e.args().size() == 1);
}

std::string Operand(const Expr& e) {
  return IsOperator(e) ? "(" + e.ToString() + ")" : e.ToString();
}

}  // namespace

std::string Expr::ToString() const {
  switch (kind_) {
    case ExprKind::kColumn:
      return name_;
    case ExprKind::kLiteral:
      if (bound_) return value_.ToString();
      return type_arg_ ? literal_text_ + ":" + std::string(TypeIdName(*type_arg_)) : literal_text_;
    case ExprKind::kCall:
      break;
  }
  if (std::string_view sym = InfixSymbol(*this); !sym.empty()) {
    return Operand(*args_[0]) + " " + std::string(sym) + " " + Operand(*args_[1]);
  }
  if (name_ == "not" && args_.size() == 1) return "not " + Operand(*args_[0]);
  std::string out = name_ + "(";
  for (size_t i = 0; i < args_.size(); ++i) {
    if (i) out += ", ";
    out += args_[i]->ToString();
  }
  if (type_arg_) out += ", " + std::string(TypeIdName(*type_arg_));
  return out + ")";
}

const std::vector<int>& ReferencedColumns(const Expr& e) { return e.facts().columns; }

}  // namespace rowjit::ir
