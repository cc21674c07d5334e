// Recursive-descent parser for the expression syntax (ir layer).
#include "ir/parser.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "ir/analysis.h"
#include "ir/function.h"
#include "runtime/deep_stack.h"
#include "runtime/suggest.h"

namespace rowjit::ir {
namespace {

enum class Tok { kEnd, kIdent, kQuotedIdent, kNumber, kString, kOp, kLParen, kRParen, kComma, kColon, kLBracket, kRBracket, kDot };

struct Token {
  Tok kind;
  std::string text;
  size_t pos;
  size_t end;  // one past its last byte in the text
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kNumber: return "number '" + t.text + "'";
    case Tok::kString: return "string " + t.text;
    case Tok::kIdent: return "'" + t.text + "'";
    case Tok::kQuotedIdent: return "the column \"" + t.text + "\"";
    default: return "'" + t.text + "'";
  }
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// The reserved words (never a column's name), read in any case.
bool IsKeyword(const std::string& s) {
  return s == "and" || s == "or" || s == "not" || s == "true" || s == "false" || s == "null" ||
         s == "nan" || s == "inf";
}

// A word of SQL's forms (`in`, `case`, ...): a keyword where the grammar expects one, in any case,
// and a column's name elsewhere.
bool IsWord(const std::string& text, std::string_view word) {
  return text.size() == word.size() && Lower(text) == word;
}

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The end of the number starting at `start`: digits with at most one point, then an optional
// exponent (1e10, 2.5e-3). A number that runs on into a second point, a letter or '_' (12.3.4,
// 1.5e, 3x) is malformed: an error at the first character that cannot continue it.
Result<size_t> NumberEnd(std::string_view s, size_t start) {
  size_t i = start;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && IsDigit(s[j])) {
      i = j;
      while (i < s.size() && IsDigit(s[i])) ++i;
    }
  }
  auto continues = [&](size_t k) { return k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '.' || s[k] == '_'); };
  if (!continues(i)) return i;
  size_t end = i;
  while (continues(end)) ++end;
  return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: malformed number '{}'", i,
                   s.substr(start, end - start))
      .WithSpan({i, 1});
}

// The quoted token that starts at `start`: a string literal, kept quoted ('it''s'), or SQL's
// quoted column name, unquoted ("unit price", "say ""hi"""; never a keyword). A quote is doubled
// inside either.
Result<Token> Quoted(std::string_view s, size_t start) {
  const char quote = s[start];
  const bool name = quote == '"';
  std::string text;
  size_t i = start + 1;
  for (;; ++i) {
    if (i >= s.size()) {
      return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: the {} is not closed", start,
                       name ? "quoted name" : "string")
          .WithSpan({start, s.size() - start});
    }
    if (s[i] == quote && !(i + 1 < s.size() && s[i + 1] == quote)) break;
    if (s[i] == quote) ++i;
    text += s[i];
  }
  ++i;
  if (!name) return Token{Tok::kString, std::string(s.substr(start, i - start)), start, i};
  if (text.empty()) {
    return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: an empty quoted name", start)
        .WithSpan({start, i - start});
  }
  return Token{Tok::kQuotedIdent, std::move(text), start, i};
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
      std::string word(s.substr(start, i - start));
      if (std::string lower = Lower(word); IsKeyword(lower)) word = std::move(lower);  // AND, NULL, TRUE
      out.push_back({Tok::kIdent, std::move(word), start, i});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      ROWJIT_ASSIGN_OR_RETURN(i, NumberEnd(s, start));
      out.push_back({Tok::kNumber, std::string(s.substr(start, i - start)), start, i});
      continue;
    }
    if (c == '\'' || c == '"') {
      ROWJIT_ASSIGN_OR_RETURN(Token token, Quoted(s, start));
      i = token.end;
      out.push_back(std::move(token));
      continue;
    }
    auto two = s.substr(i, 2);
    if (two == "!=" || two == "<>" || two == "<=" || two == ">=" || two == "||" || two == "**" || two == "::" || two == "->" ||
        two == ":=") {
      out.push_back({Tok::kOp, std::string(two), start, start + 2});
      i += 2;
      continue;
    }
    switch (c) {
      case '+': case '-': case '*': case '/': case '%': case '=': case '<': case '>':
        out.push_back({Tok::kOp, std::string(1, c), start, start + 1});
        break;
      case '(': out.push_back({Tok::kLParen, "(", start, start + 1}); break;
      case ')': out.push_back({Tok::kRParen, ")", start, start + 1}); break;
      case ',': out.push_back({Tok::kComma, ",", start, start + 1}); break;
      case ':': out.push_back({Tok::kColon, ":", start, start + 1}); break;
      case '[': out.push_back({Tok::kLBracket, "[", start, start + 1}); break;
      case '.': out.push_back({Tok::kDot, ".", start, start + 1}); break;  // s.x (.5 is a number, above)
      case ']': out.push_back({Tok::kRBracket, "]", start, start + 1}); break;
      default:
        return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: unexpected character '{}'", start, c)
            .WithSpan({start, 1});
    }
    ++i;
  }
  out.push_back({Tok::kEnd, "", s.size(), s.size()});
  return out;
}

bool IsCastName(std::string_view name) {
  return name == "cast" || name == "saturating_cast" || name == "wrapping_cast";
}

// The words that may follow an operand (for a suggestion when an unknown word does).
constexpr std::string_view kOperatorWords[] = {"and", "or", "not", "like", "ilike", "between", "in", "is"};

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens, const Limits& limits)
      : text_(text), t_(std::move(tokens)), limits_(limits) {}

  Result<ExprPtr> ParseAll() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr e, ParseOr());
    if (Peek().kind != Tok::kEnd) return Expected("an operator or end of input", kOperatorWords);
    return e;
  }

 private:
  const Token& Peek() const { return t_[pos_]; }
  const Token& Next() {
    last_end_ = t_[pos_].end;
    return t_[pos_++];
  }
  // The text from `start` to the end of the last token taken: a node's span.
  SourceSpan From(size_t start) const { return {start, last_end_ > start ? last_end_ - start : 0}; }
  static size_t Start(const ExprPtr& e) { return e->span().offset; }
  static SourceSpan SpanOf(const Token& t) { return {t.pos, t.end - t.pos}; }
  // A call made from the tokens since `start`.
  ExprPtr CallFrom(size_t start, std::string name, std::vector<ExprPtr> args,
                   std::optional<TypeId> type_arg = std::nullopt) const {
    return Expr::Call(std::move(name), std::move(args), type_arg, From(start));
  }
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
                       Peek().pos, limits_.max_depth)
          .WithSpan(SpanOf(Peek()));
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
                       Peek().pos, limits_.max_nodes)
          .WithSpan(SpanOf(Peek()));
    }
    return e;
  }
  // A syntax error at the next token; when that is a word close to one of `words`, a suggestion.
  Error Expected(std::string_view what, std::span<const std::string_view> words = {}) const {
    std::string hint = Peek().kind == Tok::kIdent ? DidYouMean(Peek().text, words) : "";
    if (Peek().kind == Tok::kOp && Peek().text == ":=") hint = " (x := value names a field of struct_pack: struct_pack(x := 1))";
    return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: expected {}, found {}{}", Peek().pos,
                     what, Describe(Peek()), hint)
        .WithSpan(SpanOf(Peek()));
  }

  Result<ExprPtr> ParseOr() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
    while (PeekOp("or")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(CallFrom(Start(left), "or", {left, right})));
    }
    return left;
  }
  Result<ExprPtr> ParseAnd() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
    while (PeekOp("and")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(CallFrom(Start(left), "and", {left, right})));
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
      const size_t start = Next().pos;
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr operand, Nested([this] { return ParseNot(); }));
      return Made(CallFrom(start, "not", {operand}));
    }
    return ParseComparison();
  }
  Result<ExprPtr> ParseComparison() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseAdditive());
    static constexpr std::pair<std::string_view, std::string_view> kOps[] = {
        {"=", "eq"}, {"!=", "ne"}, {"<>", "ne"}, {"<", "lt"}, {"<=", "le"}, {">", "gt"}, {">=", "ge"}};
    for (const auto& [sym, fn] : kOps) {
      if (Peek().kind == Tok::kOp && Peek().text == sym) {
        Next();
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
        for (const auto& [sym2, fn2] : kOps) {
          if (Peek().kind == Tok::kOp && Peek().text == sym2) {
            return MakeError(ErrorCode::kInvalidInput,
                             "syntax error at position {}: comparisons do not chain; use "
                             "parentheses or 'and'",
                             Peek().pos)
                .WithSpan(SpanOf(Peek()));
          }
        }
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr compared, Made(CallFrom(Start(left), std::string(fn), {left, right})));
        return ParseIs(std::move(compared));  // a = b is null: IS binds looser (PostgreSQL)
      }
    }
    return ParsePostfixPredicate(std::move(left));
  }
  bool PeekIdent(std::string_view word, size_t ahead = 0) const {
    const Token& t = t_[std::min(pos_ + ahead, t_.size() - 1)];
    return t.kind == Tok::kIdent && IsWord(t.text, word);
  }
  Status ExpectWord(std::string_view word) {
    if (!PeekIdent(word)) return Expected("'" + std::string(word) + "'");
    Next();
    return Status::OK();
  }
  // SQL's predicates written after their operand, each the calls it means (printed as those):
  //   x [not] like p, x [not] ilike p          like(x, p), not(...)
  //   x [not] between lo and hi                between(x, lo, hi)
  //   x [not] in (a, b, ...)                   in_list(x, a, b, ...) (SQL's three values: no
  //                                            match and a null item is null)
  //   x is [not] null                          is_null(x), is_not_null(x)
  //   x is [not] true, x is [not] false        coalesce(x, false), coalesce(not x, false)
  //   x is [not] distinct from y               coalesce(x != y, not (is_null(x) and is_null(y)))
  Result<ExprPtr> ParsePostfixPredicate(ExprPtr left) {
    const bool negated = PeekIdent("not") && (PeekIdent("like", 1) || PeekIdent("ilike", 1) ||
                                              PeekIdent("between", 1) || PeekIdent("in", 1));
    if (negated) Next();
    const size_t start = Start(left);
    auto maybe_not = [&](ExprPtr e) -> Result<ExprPtr> {  // then `is`: x in (1, 2) is null
      ROWJIT_ASSIGN_OR_RETURN(e, Made(std::move(e)));
      if (negated) {
        ROWJIT_ASSIGN_OR_RETURN(e, Made(CallFrom(start, "not", {std::move(e)})));
      }
      return ParseIs(std::move(e));
    };
    if (PeekIdent("like") || PeekIdent("ilike")) {
      const std::string fn = Lower(Next().text);
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
      return maybe_not(CallFrom(start, fn, {left, right}));
    }
    if (PeekIdent("between")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr lo, ParseAdditive());
      ROWJIT_RETURN_NOT_OK(ExpectWord("and"));
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr hi, ParseAdditive());
      return maybe_not(CallFrom(start, "between", {left, lo, hi}));
    }
    if (PeekIdent("in")) {
      Next();
      if (Peek().kind != Tok::kLParen) return Expected("'(' after 'in'");
      Next();
      std::vector<ExprPtr> args = {left};
      while (true) {
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr item, Nested([this] { return ParseOr(); }));
        args.push_back(std::move(item));
        if (Peek().kind != Tok::kComma) break;
        Next();
      }
      if (Peek().kind != Tok::kRParen) return Expected("',' or ')'");
      Next();
      return maybe_not(CallFrom(start, "in_list", std::move(args)));
    }
    return ParseIs(std::move(left));
  }
  Result<ExprPtr> ParseIs(ExprPtr left) {
    if (!PeekIdent("is")) return left;
    Next();
    const size_t start = Start(left);
    const bool is_not = PeekIdent("not");
    if (is_not) Next();
    if (PeekIdent("null")) {
      Next();
      return Made(CallFrom(start, is_not ? "is_not_null" : "is_null", {left}));
    }
    // The forms below are calls the text does not spell: each is the whole `x is ...`.
    if (PeekIdent("true") || PeekIdent("false")) {
      const bool want = Next().text == "true";
      ExprPtr x = want ? left : CallFrom(start, "not", {left});
      ExprPtr is = CallFrom(start, "coalesce", {x, Expr::Literal("false", std::nullopt, From(start))});
      return Made(is_not ? CallFrom(start, "not", {is}) : is);
    }
    if (PeekIdent("distinct")) {
      Next();
      ROWJIT_RETURN_NOT_OK(ExpectWord("from"));
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
      auto call = [&](std::string name, std::vector<ExprPtr> args) { return CallFrom(start, std::move(name), std::move(args)); };
      ExprPtr both_null = call("and", {call("is_null", {left}), call("is_null", {right})});
      ExprPtr distinct = call("coalesce", {call("ne", {left, right}), call("not", {both_null})});
      return Made(is_not ? call("not", {distinct}) : distinct);
    }
    static constexpr std::string_view kAfterIs[] = {"null", "true", "false", "distinct"};
    return Expected("'null', 'true', 'false' or 'distinct from' after 'is'", kAfterIs);
  }
  Result<ExprPtr> ParseAdditive() {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr left, ParseMultiplicative());
    while (Peek().kind == Tok::kOp && (Peek().text == "+" || Peek().text == "-" || Peek().text == "||")) {
      const std::string op = Next().text;
      const std::string fn = op == "+" ? "add" : op == "-" ? "sub" : "concat";  // s || t: concat(s, t)
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseMultiplicative());
      ROWJIT_ASSIGN_OR_RETURN(left, Made(CallFrom(Start(left), fn, {left, right})));
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
      ROWJIT_ASSIGN_OR_RETURN(left, Made(CallFrom(Start(left), fn, {left, right})));
    }
    return left;
  }
  Result<ExprPtr> ParseUnary() {
    if (Peek().kind == Tok::kOp && Peek().text == "-") {
      const size_t start = Next().pos;
      // A minus directly before a number is part of the literal: -7, -1.5, -inf.
      const Token& t = Peek();
      // (Not a literal before **: -2 ** 2 is -(2 ** 2), as in Python.)
      const bool power_follows = t.kind != Tok::kEnd && t_[pos_ + 1].kind == Tok::kOp && t_[pos_ + 1].text == "**";
      if (!power_follows &&
          (t.kind == Tok::kNumber || (t.kind == Tok::kIdent && (t.text == "inf" || t.text == "nan")))) {
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr negative, ParseLiteral("-", start));
        return ParsePostfixCasts(std::move(negative));
      }
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr operand, Nested([this] { return ParseUnary(); }));
      return Made(CallFrom(start, "neg", {operand}));
    }
    // x ** y is power(x, y), numexpr's and Python's operator: tighter than a unary minus on its
    // left, right-associative, and its right side may be negated (2 ** -1). (Here rather than in
    // a function of its own: a parenthesis level's chain of frames bounds how deep the stack
    // goes at Limits::max_depth.)
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr primary, ParsePrimary());
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr base, ParsePostfixCasts(std::move(primary)));
    if (Peek().kind != Tok::kOp || Peek().text != "**") return base;
    Next();
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr exponent, Nested([this] { return ParseUnary(); }));
    return Made(CallFrom(Start(base), "power", {base, exponent}));
  }
  Result<std::optional<TypeId>> ParseSuffix() {
    if (Peek().kind != Tok::kColon) return std::optional<TypeId>();
    Next();
    if (Peek().kind != Tok::kIdent) return Expected("a type name after ':'");
    auto type = ParseDataType(Peek().text);
    if (!type.ok()) return std::move(type).TakeError().ShiftSpan(Peek().pos);  // 42:int32: its suggestion
    // A storage type: a logical one (date32, interval_month_day_nano) is written as a cast. A
    // suffix would keep only the storage, and interval_month_day_nano's has no name to print.
    if (type->nullable || type->is_logical()) {
      return Expected("a type name (bool, i8..i64, u8..u64, f32, f64, utf8, binary)");
    }
    Next();
    return std::optional<TypeId>(type->id);
  }
  Result<ExprPtr> ParseLiteral(std::string prefix, size_t start) {
    std::string text = prefix + Next().text;
    ROWJIT_ASSIGN_OR_RETURN(std::optional<TypeId> suffix, ParseSuffix());
    return Made(Expr::Literal(std::move(text), suffix, From(start)));
  }
  // [0.5, -1, 2e3]: a vector literal of numbers (a sign, digits, nan or inf each), kept as its
  // text; the binder gives it the type of the vector beside it.
  Result<ExprPtr> ParseVectorLiteral() {
    const size_t start = Next().pos;
    std::string text = "[";
    for (size_t count = 0;; ++count) {
      if (count > 0) {
        if (Peek().kind == Tok::kRBracket) break;
        if (Peek().kind != Tok::kComma) return Expected("',' or ']' in a vector literal");
        Next();
        text += ", ";
      }
      if (count == 0 && Peek().kind == Tok::kRBracket) {
        return Expected("a value: a vector literal is not empty, nor a list ([] has no element type)");
      }
      if (Peek().kind == Tok::kOp && (Peek().text == "-" || Peek().text == "+")) text += Next().text == "-" ? "-" : "";
      const bool word = Peek().kind == Tok::kIdent && (Peek().text == "nan" || Peek().text == "inf");
      if (Peek().kind != Tok::kNumber && !word) return Expected("a number in a vector literal");
      text += Next().text;
    }
    Next();
    text += "]";
    return Made(Expr::Literal(std::move(text), std::nullopt, From(start)));
  }
  // [a, 'x', b + 1]: list_value(a, 'x', b + 1).
  Result<ExprPtr> ParseListValue() {
    const size_t start = Next().pos;
    std::vector<ExprPtr> items;
    while (true) {
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr item, Nested([this] { return ParseOr(); }));
      items.push_back(std::move(item));
      if (Peek().kind != Tok::kComma) break;
      Next();
    }
    if (Peek().kind != Tok::kRBracket) return Expected("',' or ']' in a list");
    Next();
    return Made(CallFrom(start, "list_value", std::move(items)));
  }
  Result<ExprPtr> ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kNumber:
      case Tok::kString:
        return ParseLiteral("", t.pos);
      case Tok::kLParen: {
        Next();
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr inner, Nested([this] { return ParseOr(); }));
        if (Peek().kind != Tok::kRParen) return Expected("')'");
        Next();
        return inner;
      }
      case Tok::kQuotedIdent:
        Next();
        return Made(Expr::Column(t.text, From(t.pos)));
      case Tok::kLBracket: {
        // [0.5, -1]: a vector literal; [a, 'x', b + 1], of other values: list_value(a, 'x', b + 1).
        const size_t at = pos_;
        Result<ExprPtr> numbers = ParseVectorLiteral();
        if (numbers.ok() || t_[at + 1].kind == Tok::kRBracket) return numbers;  // [] is no list either
        pos_ = at;
        return ParseListValue();
      }
      case Tok::kIdent:
        break;
      default:
        return Expected("an expression");
    }
    if (t.text == "true" || t.text == "false" || t.text == "null" || t.text == "nan" ||
        t.text == "inf") {
      return ParseLiteral("", t.pos);
    }
    // and(x, y), or(x, y), not(x): the call form of the keyword operators.
    if (IsKeyword(t.text) && !(t_[pos_ + 1].kind == Tok::kLParen &&
                               (t.text == "and" || t.text == "or" || t.text == "not"))) {
      return Expected("an expression");
    }
    const size_t start = t.pos;
    if (IsWord(t.text, "case") && StartsCase()) {
      Next();
      return Nested([this, start] { return ParseCase(start); });
    }
    const std::string name = Next().text;
    if (Peek().kind != Tok::kLParen) return Made(Expr::Column(name, From(start)));
    Next();
    if (Lower(name) == "pi" && Peek().kind == Tok::kRParen) {
      // SQL's pi(): the double nearest π, an untyped literal (f32 beside f32 columns).
      Next();
      return Made(Expr::Literal("3.141592653589793", std::nullopt, From(start)));
    }
    return ParseCallArgs(std::string(CanonicalName(Lower(name))), start);  // COALESCE(a, 0): function names in any case
  }
  // Whether the `case` at the cursor starts CASE rather than naming a column: what follows can
  // begin an operand or `when`, not continue an expression (an operator, a comma, ')', the end,
  // `in`, `is`, `like`, `between`, `not in`, `and`, `then`, ...).
  bool StartsCase() const {
    const Token& n = t_[pos_ + 1];
    if (n.kind == Tok::kOp || n.kind == Tok::kRParen || n.kind == Tok::kComma || n.kind == Tok::kEnd ||
        n.kind == Tok::kColon) {
      return false;
    }
    for (std::string_view word : {"in", "is", "like", "ilike", "between", "and", "or", "then", "else", "end", "from", "as"}) {
      if (PeekIdent(word, 1)) return false;
    }
    return !(PeekIdent("not", 1) && (PeekIdent("in", 2) || PeekIdent("like", 2) || PeekIdent("ilike", 2) ||
                                     PeekIdent("between", 2)));
  }
  // After `case`: [operand] when c then v ... [else e] end, as if(c1, v1, if(c2, v2, e)) (with an
  // operand each condition is operand = c); no else is else null. A null condition is not taken.
  Result<ExprPtr> ParseCase(size_t start) {
    ExprPtr operand;
    if (!PeekIdent("when")) {
      ROWJIT_ASSIGN_OR_RETURN(operand, ParseOr());
    }
    std::vector<std::pair<ExprPtr, ExprPtr>> arms;
    while (PeekIdent("when")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr cond, Nested([this] { return ParseOr(); }));
      ROWJIT_RETURN_NOT_OK(ExpectWord("then"));
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr value, Nested([this] { return ParseOr(); }));
      if (operand) {
        ROWJIT_ASSIGN_OR_RETURN(cond, Made(Expr::Call("eq", {operand, cond}, std::nullopt,
                                                      {Start(operand), cond->span().offset + cond->span().length - Start(operand)})));
      }
      arms.emplace_back(std::move(cond), std::move(value));
    }
    if (arms.empty()) return Expected("'when'");
    ExprPtr out;
    if (PeekIdent("else")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(out, Nested([this] { return ParseOr(); }));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(out, Made(Expr::Literal("null", std::nullopt, {last_end_, 0})));
    }
    ROWJIT_RETURN_NOT_OK(ExpectWord("end"));
    // Each arm's `if` is the whole case expression: the text spells no call of its own.
    for (auto arm = arms.rbegin(); arm != arms.rend(); ++arm) {
      ROWJIT_ASSIGN_OR_RETURN(out, Made(CallFrom(start, "if", {arm->first, arm->second, out})));
    }
    return out;
  }
  // A cast's target: rowjit's names first (i64, decimal(30,4), date32), then SQL's (bigint,
  // double precision, numeric(12, 2), timestamp with time zone, date).
  Result<DataType> ParseTypeName() {
    if (Peek().kind != Tok::kIdent) return Expected("a type name");
    const size_t at = Peek().pos;
    const std::string head = Next().text;
    // SQL's two-word names: double precision, timestamp with[out] time zone.
    if (IsWord(head, "double") && PeekIdent("precision")) Next();
    if (IsWord(head, "timestamp") && (PeekIdent("with") || PeekIdent("without")) && PeekIdent("time", 1) &&
        PeekIdent("zone", 2)) {
      for (int word = 0; word < 3; ++word) Next();
    }
    // A parameterized type: decimal64(12, 2), timestamp(us, UTC), numeric(12, 2).
    if (Peek().kind == Tok::kLParen) {
      while (Peek().kind != Tok::kRParen && Peek().kind != Tok::kEnd) Next();
      if (Peek().kind != Tok::kRParen) return Expected("')'");
      Next();
    }
    // The name as written, read as a schema's type is (one message for one mistake), with SQL's
    // names too; its errors point into it, so they are moved to where it starts.
    auto type = ParseDataType(text_.substr(at, last_end_ - at), TypeNames::kSql);
    if (!type.ok()) return std::move(type).TakeError().ShiftSpan(at);
    return *type;
  }
  // x::T, PostgreSQL's cast: cast(x, T), binding tighter than any operator (-x::i64 is
  // -(cast(x, i64)), x::f64 ** 2 squares the cast).
  Result<ExprPtr> ParsePostfixCasts(ExprPtr e) {
    // s.x, s.x.y: a struct's field, struct_field(s, 'x'); l[i]: a list's element, list_extract(l, i)
    // (m[k], a map's value: the binder's map_extract_value); binding as tightly as a cast.
    while (Peek().kind == Tok::kDot || Peek().kind == Tok::kLBracket) {
      if (Next().kind == Tok::kLBracket) {
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr index, Nested([this] { return ParseOr(); }));
        if (Peek().kind != Tok::kRBracket) return Expected("']'");
        Next();
        ROWJIT_ASSIGN_OR_RETURN(e, Made(CallFrom(Start(e), "list_extract", {e, index})));
        continue;
      }
      if (Peek().kind != Tok::kIdent && Peek().kind != Tok::kQuotedIdent) return Expected("a field's name after '.'");
      const Token& field = Next();
      ExprPtr name = Expr::Literal(QuoteString(field.text), std::nullopt, SpanOf(field));
      ROWJIT_ASSIGN_OR_RETURN(e, Made(CallFrom(Start(e), "struct_field", {e, name})));
    }
    while (Peek().kind == Tok::kOp && Peek().text == "::") {
      Next();
      const size_t at = Peek().pos;
      ROWJIT_ASSIGN_OR_RETURN(DataType type, ParseTypeName());
      if (type.is_logical()) {
        ExprPtr target = Expr::Literal("'" + type.ToString() + "'", std::nullopt, From(at));
        ROWJIT_ASSIGN_OR_RETURN(e, Made(CallFrom(Start(e), "cast", {e, target})));
      } else {
        ROWJIT_ASSIGN_OR_RETURN(e, Made(CallFrom(Start(e), "cast", {e}, type.id)));
      }
    }
    return e;
  }
  Result<ExprPtr> ParseCallArgs(std::string name, size_t start) {
    // SQL's extract(year from t): date_part('year', t), which binds to year(t).
    if (name == "extract" && Peek().kind == Tok::kIdent && t_[pos_ + 1].kind == Tok::kIdent && IsWord(t_[pos_ + 1].text, "from")) {
      const Token& field = Next();
      ExprPtr part = Expr::Literal("'" + field.text + "'", std::nullopt, SpanOf(field));
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr arg, Nested([this] { return ParseOr(); }));
      if (Peek().kind != Tok::kRParen) return Expected("')'");
      Next();
      return Made(CallFrom(start, "date_part", {std::move(part), std::move(arg)}));
    }
    std::vector<ExprPtr> args;
    std::optional<TypeId> type_arg;
    if (Peek().kind != Tok::kRParen) {
      while (true) {
        // The last argument of a cast is a type name.
        if (IsCastName(name) && !args.empty()) {
          const size_t at = Peek().pos;
          ROWJIT_ASSIGN_OR_RETURN(DataType type, ParseTypeName());
          if (!type.is_logical()) {
            type_arg = type.id;
            break;
          }
          // A cast to a logical type: its text as a second argument, which the binder reads.
          if (name != "cast") {
            return MakeError(ErrorCode::kInvalidInput, "{} takes a storage type, not {}", name, type.ToString())
                .WithSpan(From(at));
          }
          args.push_back(Expr::Literal("'" + type.ToString() + "'", std::nullopt, From(at)));
          break;
        }
        // A lambda, x -> body (list_transform, list_filter): lambda('x', body); a named value,
        // x := value (struct_pack): named('x', value). The binder reads both.
        const bool lambda = Peek().kind == Tok::kIdent && t_[pos_ + 1].kind == Tok::kOp && t_[pos_ + 1].text == "->";
        const bool named = (Peek().kind == Tok::kIdent || Peek().kind == Tok::kQuotedIdent) &&
                           t_[pos_ + 1].kind == Tok::kOp && t_[pos_ + 1].text == ":=";
        if (lambda || named) {
          const size_t at = Peek().pos;
          const Token& word = Next();
          ExprPtr name_literal = Expr::Literal(QuoteString(word.text), std::nullopt, SpanOf(word));
          Next();
          ROWJIT_ASSIGN_OR_RETURN(ExprPtr value, Nested([this] { return ParseOr(); }));
          ROWJIT_ASSIGN_OR_RETURN(ExprPtr form, Made(CallFrom(at, lambda ? "lambda" : "named",
                                                              {std::move(name_literal), std::move(value)})));
          args.push_back(std::move(form));
          if (Peek().kind != Tok::kComma) break;
          Next();
          continue;
        }
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr arg, Nested([this] { return ParseOr(); }));
        args.push_back(std::move(arg));
        const bool as = IsCastName(name) && args.size() == 1 && PeekIdent("as");  // SQL's cast(x as i64)
        if (Peek().kind != Tok::kComma && !as) break;
        Next();
      }
    }
    if (Peek().kind != Tok::kRParen) return Expected("',' or ')'");
    Next();
    if (name == "nullif" && args.size() == 2 && !type_arg) {  // SQL's nullif(a, b): if(a = b, null, a)
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr same, Made(CallFrom(start, "eq", {args[0], args[1]})));
      return Made(CallFrom(start, "if", {same, Expr::Literal("null", std::nullopt, From(start)), args[0]}));
    }
    return Made(CallFrom(start, std::move(name), std::move(args), type_arg));
  }

  std::string_view text_;
  std::vector<Token> t_;
  const Limits& limits_;
  size_t pos_ = 0;
  size_t last_end_ = 0;
  int64_t depth_ = 0;
  int64_t nodes_ = 0;
};

// An upper bound of how deep the parser can nest on these tokens: every parenthesis, bracket (an
// index l[i], a list literal), lambda and prefix operator could open a level.
int64_t NestingBound(const std::vector<Token>& tokens) {
  int64_t n = 0;
  for (const Token& t : tokens) {
    n += t.kind == Tok::kLParen || t.kind == Tok::kLBracket ||
         ((t.kind == Tok::kOp || t.kind == Tok::kIdent) &&
          (t.text == "-" || t.text == "->" || t.text == "**" || t.text == "not" || IsWord(t.text, "case") ||
                                     IsWord(t.text, "when") || IsWord(t.text, "then") || IsWord(t.text, "else")));
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
                            return Parser(text, std::move(tokens), limits).ParseAll();
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
