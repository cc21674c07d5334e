// Recursive-descent parser for the expression syntax (ir layer).
#include "ir/parser.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "ir/analysis.h"
#include "ir/function.h"
#include "runtime/deep_stack.h"

namespace rowjit::ir {
namespace {

enum class Tok { kEnd, kIdent, kNumber, kString, kOp, kLParen, kRParen, kComma, kColon };

struct Token {
  Tok kind;
  std::string text;
  size_t pos;
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kNumber: return "number '" + t.text + "'";
    case Tok::kString: return "string " + t.text;
    case Tok::kIdent: return "'" + t.text + "'";
    default: return "'" + t.text + "'";
  }
}

Result<std::vector<Token>> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    const size_t start = i;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Tok::kIdent, std::string(s.substr(start, i - start)), start});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
      // Exponent: 1e10, 2.5e-3.
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
          i = j;
          while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        }
      }
      out.push_back({Tok::kNumber, std::string(s.substr(start, i - start)), start});
      continue;
    }
    if (c == '\'') {  // a string literal, kept quoted: 'it''s'
      for (++i;; ++i) {
        if (i >= s.size()) {
          return MakeError(ErrorCode::kInvalidInput,
                           "syntax error at position {}: the string is not closed", start);
        }
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            ++i;
            continue;
          }
          break;
        }
      }
      ++i;
      out.push_back({Tok::kString, std::string(s.substr(start, i - start)), start});
      continue;
    }
    auto two = s.substr(i, 2);
    if (two == "!=" || two == "<=" || two == ">=" || two == "||") {
      out.push_back({Tok::kOp, std::string(two), start});
      i += 2;
      continue;
    }
    switch (c) {
      case '+': case '-': case '*': case '/': case '%': case '=': case '<': case '>':
        out.push_back({Tok::kOp, std::string(1, c), start});
        break;
      case '(': out.push_back({Tok::kLParen, "(", start}); break;
      case ')': out.push_back({Tok::kRParen, ")", start}); break;
      case ',': out.push_back({Tok::kComma, ",", start}); break;
      case ':': out.push_back({Tok::kColon, ":", start}); break;
      default:
        return MakeError(ErrorCode::kInvalidInput,
                         "syntax error at position {}: unexpected character '{}'", start, c);
    }
    ++i;
  }
  out.push_back({Tok::kEnd, "", s.size()});
  return out;
}

bool IsKeyword(const std::string& s) {
  return s == "and" || s == "or" || s == "not" || s == "true" || s == "false" || s == "null" ||
         s == "nan" || s == "inf";
}

bool IsCastName(std::string_view name) {
  return name == "cast" || name == "saturating_cast" || name == "wrapping_cast";
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const Limits& limits) : t_(std::move(tokens)), limits_(limits) {}

  Result<ExprPtr> ParseAll() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, ParseOr());
    if (Peek().kind != Tok::kEnd) return Expected("an operator or end of input");
    return e;
  }

 private:
  const Token& Peek() const { return t_[pos_]; }
  const Token& Next() { return t_[pos_++]; }
  bool PeekOp(std::string_view op) const {
    return (Peek().kind == Tok::kOp || Peek().kind == Tok::kIdent) && Peek().text == op;
  }
  // One level of nesting (parentheses, a call's arguments, a prefix operator), refused past the
  // depth limit before the parser descends.
  template <typename F>
  Result<ExprPtr> Nested(F&& parse) {
    if (++depth_ > limits_.max_depth) {
      return MakeError(ErrorCode::kInvalidInput,
                       "syntax error at position {}: the expression nests more than {} levels "
                       "deep (Limits::max_depth)",
                       Peek().pos, limits_.max_depth);
    }
    Result<ExprPtr> out = parse();
    --depth_;
    return out;
  }
  // Every node the parser makes, counted against the node limit.
  Result<ExprPtr> Made(ExprPtr e) {
    if (++nodes_ > limits_.max_nodes) {
      return MakeError(ErrorCode::kInvalidInput,
                       "syntax error at position {}: the expression has more than {} nodes "
                       "(Limits::max_nodes)",
                       Peek().pos, limits_.max_nodes);
    }
    return e;
  }
  Error Expected(std::string_view what) const {
    return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: expected {}, found {}",
                     Peek().pos, what, Describe(Peek()));
  }

  Result<ExprPtr> ParseOr() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
    while (PeekOp("or")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(Expr::Call("or", {left, right})));
    }
    return left;
  }
  Result<ExprPtr> ParseAnd() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
    while (PeekOp("and")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(Expr::Call("and", {left, right})));
    }
    return left;
  }
  // Whether tokens from `i` are a parenthesized list of no or several arguments: `not()` and
  // `not(a, b)` are then the call form (as the printer writes a call of that name), not `not`
  // over a parenthesis.
  bool SeveralArguments(size_t i) const {
    if (t_[i].kind != Tok::kLParen) return false;
    if (t_[i + 1].kind == Tok::kRParen) return true;
    int depth = 0;
    for (; t_[i].kind != Tok::kEnd; ++i) {
      depth += t_[i].kind == Tok::kLParen ? 1 : t_[i].kind == Tok::kRParen ? -1 : 0;
      if (depth == 0) return false;
      if (depth == 1 && t_[i].kind == Tok::kComma) return true;
    }
    return false;
  }
  Result<ExprPtr> ParseNot() {
    if (PeekOp("not") && !SeveralArguments(pos_ + 1)) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr operand, Nested([this] { return ParseNot(); }));
      return Made(Expr::Call("not", {operand}));
    }
    return ParseComparison();
  }
  Result<ExprPtr> ParseComparison() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseAdditive());
    static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
        {"=", "eq"}, {"!=", "ne"}, {"<", "lt"}, {"<=", "le"}, {">", "gt"}, {">=", "ge"}};
    for (const auto& [sym, fn] : kOps) {
      if (Peek().kind == Tok::kOp && Peek().text == sym) {
        Next();
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
        for (const auto& [sym2, fn2] : kOps) {
          if (Peek().kind == Tok::kOp && Peek().text == sym2) {
            return MakeError(ErrorCode::kInvalidInput,
                             "syntax error at position {}: comparisons do not chain; use "
                             "parentheses or 'and'",
                             Peek().pos);
          }
        }
        return Made(Expr::Call(std::string(fn), {left, right}));
      }
    }
    // s like 'pattern', s ilike 'pattern': the infix form of the calls.
    if (Peek().kind == Tok::kIdent && (Peek().text == "like" || Peek().text == "ilike")) {
      const std::string fn = Next().text;
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
      return Made(Expr::Call(fn, {left, right}));
    }
    return left;
  }
  Result<ExprPtr> ParseAdditive() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseMultiplicative());
    while (Peek().kind == Tok::kOp && (Peek().text == "+" || Peek().text == "-" || Peek().text == "||")) {
      const std::string op = Next().text;
      const std::string fn = op == "+" ? "add" : op == "-" ? "sub" : "concat";  // s || t: concat(s, t)
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseMultiplicative());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(Expr::Call(fn, {left, right})));
    }
    return left;
  }
  Result<ExprPtr> ParseMultiplicative() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseUnary());
    while (Peek().kind == Tok::kOp &&
           (Peek().text == "*" || Peek().text == "/" || Peek().text == "%")) {
      const std::string op = Next().text;
      const std::string fn = op == "*" ? "mul" : op == "/" ? "div" : "mod";
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseUnary());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(Expr::Call(fn, {left, right})));
    }
    return left;
  }
  Result<ExprPtr> ParseUnary() {
    if (Peek().kind == Tok::kOp && Peek().text == "-") {
      Next();
      // A minus directly before a number is part of the literal: -7, -1.5, -inf.
      const Token& t = Peek();
      if (t.kind == Tok::kNumber || (t.kind == Tok::kIdent && (t.text == "inf" || t.text == "nan"))) {
        return ParseLiteral("-");
      }
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr operand, Nested([this] { return ParseUnary(); }));
      return Made(Expr::Call("neg", {operand}));
    }
    return ParsePrimary();
  }
  Result<std::optional<TypeId>> ParseSuffix() {
    if (Peek().kind != Tok::kColon) return std::optional<TypeId>();
    Next();
    if (Peek().kind != Tok::kIdent) return Expected("a type name after ':'");
    auto type = ParseDataType(Peek().text);
    if (!type.ok() || type->nullable) return Expected("a type name (bool, i8..i64, u8..u64, f32, f64, utf8, binary)");
    Next();
    return std::optional<TypeId>(type->id);
  }
  Result<ExprPtr> ParseLiteral(std::string prefix) {
    std::string text = prefix + Next().text;
    ROWJIT_ASSIGN_OR_RETURN(std::optional<TypeId> suffix, ParseSuffix());
    return Made(Expr::Literal(std::move(text), suffix));
  }
  Result<ExprPtr> ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kNumber:
      case Tok::kString:
        return ParseLiteral("");
      case Tok::kLParen: {
        Next();
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr inner, Nested([this] { return ParseOr(); }));
        if (Peek().kind != Tok::kRParen) return Expected("')'");
        Next();
        return inner;
      }
      case Tok::kIdent:
        break;
      default:
        return Expected("an expression");
    }
    if (t.text == "true" || t.text == "false" || t.text == "null" || t.text == "nan" ||
        t.text == "inf") {
      return ParseLiteral("");
    }
    // and(x, y), or(x, y), not(x): the call form of the keyword operators.
    if (IsKeyword(t.text) && !(t_[pos_ + 1].kind == Tok::kLParen &&
                               (t.text == "and" || t.text == "or" || t.text == "not"))) {
      return Expected("an expression");
    }
    const std::string name = Next().text;
    if (Peek().kind != Tok::kLParen) return Made(Expr::Column(name));
    Next();
    return ParseCallArgs(std::string(CanonicalName(name)));
  }
  Result<ExprPtr> ParseCallArgs(std::string name) {
    // SQL's extract(year from t): date_part('year', t), which binds to year(t).
    if (name == "extract" && Peek().kind == Tok::kIdent && t_[pos_ + 1].kind == Tok::kIdent && t_[pos_ + 1].text == "from") {
      const std::string field = Next().text;
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr arg, Nested([this] { return ParseOr(); }));
      if (Peek().kind != Tok::kRParen) return Expected("')'");
      Next();
      return Made(Expr::Call("date_part", {Expr::Literal("'" + field + "'"), std::move(arg)}));
    }
    std::vector<ExprPtr> args;
    std::optional<TypeId> type_arg;
    if (Peek().kind != Tok::kRParen) {
      while (true) {
        // The last argument of a cast is a type name.
        if (IsCastName(name) && !args.empty()) {
          if (Peek().kind != Tok::kIdent) return Expected("a type name");
          std::string text = Next().text;
          // A parameterized type: decimal64(12, 2), timestamp(us, UTC).
          if (Peek().kind == Tok::kLParen) {
            while (Peek().kind != Tok::kRParen && Peek().kind != Tok::kEnd) text += Next().text;
            if (Peek().kind != Tok::kRParen) return Expected("')'");
            text += Next().text;
          }
          auto type = ParseDataType(text);
          if (!type.ok() || type->nullable) return Expected("a type name");
          if (!type->is_logical()) {
            type_arg = type->id;
            break;
          }
          // A cast to a logical type: its text as a second argument, which the binder reads.
          if (name != "cast") return Expected("a storage type name (" + name + " of a logical type)");
          args.push_back(Expr::Literal("'" + type->ToString() + "'"));
          break;
        }
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr arg, Nested([this] { return ParseOr(); }));
        args.push_back(std::move(arg));
        if (Peek().kind != Tok::kComma) break;
        Next();
      }
    }
    if (Peek().kind != Tok::kRParen) return Expected("',' or ')'");
    Next();
    return Made(Expr::Call(std::move(name), std::move(args), type_arg));
  }

  std::vector<Token> t_;
  const Limits& limits_;
  size_t pos_ = 0;
  int64_t depth_ = 0;
  int64_t nodes_ = 0;
};

// An upper bound of how deep the parser can nest on these tokens: every parenthesis and prefix
// operator could open a level.
int64_t NestingBound(const std::vector<Token>& tokens) {
  int64_t n = 0;
  for (const Token& t : tokens) {
    n += t.kind == Tok::kLParen || ((t.kind == Tok::kOp || t.kind == Tok::kIdent) &&
                                    (t.text == "-" || t.text == "not"));
  }
  return n;
}

}  // namespace

namespace {

Result<ExprPtr> ParseWithin(std::string_view text, const Limits& limits) {
  if (static_cast<int64_t>(text.size()) > limits.max_text_bytes) {
    return MakeError(ErrorCode::kInvalidInput,
                     "expression text of {} bytes; the limit is {} (Limits::max_text_bytes)",
                     text.size(), limits.max_text_bytes);
  }
  ROWJIT_ASSIGN_OR_RETURN(std::vector<Token> tokens, Lex(text));
  const int64_t nesting = std::min(NestingBound(tokens), limits.max_depth);
  ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, WithStackForDepth(nesting, [&] {
                            return Parser(std::move(tokens), limits).ParseAll();
                          }));
  // Chains of binary operators build depth without nesting the parser: checked on the tree.
  ROWJIT_RETURN_NOT_OK(CheckLimits(e->facts(), limits));
  return e;
}

}  // namespace

Result<ExprPtr> Parse(std::string_view text, const Limits& limits) {
  return NoThrow([&] { return ParseWithin(text, limits); });
}

}  // namespace rowjit::ir
