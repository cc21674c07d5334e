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
      out.push_back({Tok::kIdent, std::move(word), start});
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
    if (two == "!=" || two == "<>" || two == "<=" || two == ">=" || two == "||" || two == "**" || two == "::") {
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

// SQL's type names (PostgreSQL's and DuckDB's, any case) as rowjit's, for the target of a cast:
// `cast(x as bigint)`, `cast(s as timestamp)`, `cast(d as numeric(12, 2))`. `parameters` is the
// parenthesized text after the name ("(12,2)"), or empty. Nullopt for a name that is not one.
std::optional<std::string> SqlTypeName(std::string_view name, std::string_view parameters) {
  static const std::pair<std::string_view, std::string_view> kPlain[] = {
      {"tinyint", "i8"},      {"int1", "i8"},         {"smallint", "i16"},    {"int2", "i16"},
      {"integer", "i32"},     {"int", "i32"},         {"int4", "i32"},        {"bigint", "i64"},
      {"int8", "i64"},        {"utinyint", "u8"},     {"usmallint", "u16"},   {"uinteger", "u32"},
      {"ubigint", "u64"},     {"real", "f32"},        {"float4", "f32"},      {"double", "f64"},
      {"float8", "f64"},      {"float", "f64"},       {"boolean", "bool"},    {"varchar", "utf8"},
      {"text", "utf8"},       {"string", "utf8"},     {"blob", "binary"},     {"bytea", "binary"},
      {"date", "date32"},     {"time", "time64(us)"}, {"timestamp", "timestamp(us)"},
      {"timestamptz", "timestamp(us, UTC)"},          {"interval", "interval_month_day_nano"}};
  const std::string lower = Lower(name);
  if (lower == "decimal" || lower == "numeric") {
    if (parameters.empty()) return "decimal(18,3)";  // DuckDB's DECIMAL
    if (parameters.find(',') == std::string_view::npos) {  // DECIMAL(p): scale 0
      return fmt::format("decimal({},0)", parameters.substr(1, parameters.size() - 2));
    }
    return "decimal" + std::string(parameters);
  }
  if ((lower == "timestamp" || lower == "timestamptz") && !parameters.empty()) {  // fractional digits
    const std::string_view unit = parameters == "(0)" ? "s" : parameters == "(3)" ? "ms"
                                  : parameters == "(6)" ? "us" : parameters == "(9)" ? "ns" : "";
    if (unit.empty()) return std::nullopt;
    return fmt::format("timestamp({}{})", unit, lower == "timestamptz" ? ", UTC" : "");
  }
  if (!parameters.empty()) return std::nullopt;  // varchar(n): no length limits
  for (const auto& [sql, ours] : kPlain) {
    if (lower == sql) return std::string(ours);
  }
  return std::nullopt;
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
                             Peek().pos);
          }
        }
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr compared, Made(Expr::Call(std::string(fn), {left, right})));
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
    auto maybe_not = [&](ExprPtr e) -> Result<ExprPtr> {  // then `is`: x in (1, 2) is null
      ROWJIT_ASSIGN_OR_RETURN(e, Made(std::move(e)));
      if (negated) {
        ROWJIT_ASSIGN_OR_RETURN(e, Made(Expr::Call("not", {std::move(e)})));
      }
      return ParseIs(std::move(e));
    };
    if (PeekIdent("like") || PeekIdent("ilike")) {
      const std::string fn = Lower(Next().text);
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
      return maybe_not(Expr::Call(fn, {left, right}));
    }
    if (PeekIdent("between")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr lo, ParseAdditive());
      ROWJIT_RETURN_NOT_OK(ExpectWord("and"));
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr hi, ParseAdditive());
      return maybe_not(Expr::Call("between", {left, lo, hi}));
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
      return maybe_not(Expr::Call("in_list", std::move(args)));
    }
    return ParseIs(std::move(left));
  }
  Result<ExprPtr> ParseIs(ExprPtr left) {
    if (!PeekIdent("is")) return left;
    Next();
    const bool is_not = PeekIdent("not");
    if (is_not) Next();
    if (PeekIdent("null")) {
      Next();
      return Made(Expr::Call(is_not ? "is_not_null" : "is_null", {left}));
    }
    if (PeekIdent("true") || PeekIdent("false")) {
      const bool want = Next().text == "true";
      ExprPtr x = want ? left : Expr::Call("not", {left});
      ExprPtr is = Expr::Call("coalesce", {x, Expr::Literal("false")});
      return Made(is_not ? Expr::Call("not", {is}) : is);
    }
    if (PeekIdent("distinct")) {
      Next();
      ROWJIT_RETURN_NOT_OK(ExpectWord("from"));
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
      ExprPtr both_null = Expr::Call("and", {Expr::Call("is_null", {left}), Expr::Call("is_null", {right})});
      ExprPtr distinct = Expr::Call("coalesce", {Expr::Call("ne", {left, right}), Expr::Call("not", {both_null})});
      return Made(is_not ? Expr::Call("not", {distinct}) : distinct);
    }
    return Expected("'null', 'true', 'false' or 'distinct from' after 'is'");
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
      // (Not a literal before **: -2 ** 2 is -(2 ** 2), as in Python.)
      const bool power_follows = t.kind != Tok::kEnd && t_[pos_ + 1].kind == Tok::kOp && t_[pos_ + 1].text == "**";
      if (!power_follows &&
          (t.kind == Tok::kNumber || (t.kind == Tok::kIdent && (t.text == "inf" || t.text == "nan")))) {
        ROWJIT_ASSIGN_OR_RETURN(ExprPtr negative, ParseLiteral("-"));
        return ParsePostfixCasts(std::move(negative));
      }
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr operand, Nested([this] { return ParseUnary(); }));
      return Made(Expr::Call("neg", {operand}));
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
    return Made(Expr::Call("power", {base, exponent}));
  }
  Result<std::optional<TypeId>> ParseSuffix() {
    if (Peek().kind != Tok::kColon) return std::optional<TypeId>();
    Next();
    if (Peek().kind != Tok::kIdent) return Expected("a type name after ':'");
    auto type = ParseDataType(Peek().text);
    // A storage type: a logical one (date32, interval_month_day_nano) is written as a cast. A
    // suffix would keep only the storage, and interval_month_day_nano's has no name to print.
    if (!type.ok() || type->nullable || type->is_logical()) {
      return Expected("a type name (bool, i8..i64, u8..u64, f32, f64, utf8, binary)");
    }
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
    if (IsWord(t.text, "case") && StartsCase()) {
      Next();
      return Nested([this] { return ParseCase(); });
    }
    const std::string name = Next().text;
    if (Peek().kind != Tok::kLParen) return Made(Expr::Column(name));
    Next();
    if (Lower(name) == "pi" && Peek().kind == Tok::kRParen) {
      // SQL's pi(): the double nearest π, an untyped literal (f32 beside f32 columns).
      Next();
      return Made(Expr::Literal("3.141592653589793", std::nullopt));
    }
    return ParseCallArgs(std::string(CanonicalName(Lower(name))));  // COALESCE(a, 0): function names in any case
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
  Result<ExprPtr> ParseCase() {
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
        ROWJIT_ASSIGN_OR_RETURN(cond, Made(Expr::Call("eq", {operand, cond})));
      }
      arms.emplace_back(std::move(cond), std::move(value));
    }
    if (arms.empty()) return Expected("'when'");
    ExprPtr out;
    if (PeekIdent("else")) {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(out, Nested([this] { return ParseOr(); }));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(out, Made(Expr::Literal("null")));
    }
    ROWJIT_RETURN_NOT_OK(ExpectWord("end"));
    for (auto arm = arms.rbegin(); arm != arms.rend(); ++arm) {
      ROWJIT_ASSIGN_OR_RETURN(out, Made(Expr::Call("if", {arm->first, arm->second, out})));
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
    std::string sql_head = head;
    if (IsWord(head, "double") && PeekIdent("precision")) Next();
    if (IsWord(head, "timestamp") && (PeekIdent("with") || PeekIdent("without")) && PeekIdent("time", 1) &&
        PeekIdent("zone", 2)) {
      if (IsWord(Next().text, "with")) sql_head = "timestamptz";
      Next();
      Next();
    }
    // A parameterized type: decimal64(12, 2), timestamp(us, UTC), numeric(12, 2).
    std::string parameters;
    if (Peek().kind == Tok::kLParen) {
      while (Peek().kind != Tok::kRParen && Peek().kind != Tok::kEnd) parameters += Next().text;
      if (Peek().kind != Tok::kRParen) return Expected("')'");
      parameters += Next().text;
    }
    auto type = ParseDataType(head + parameters);
    if (!type.ok() || sql_head != head) {
      if (std::optional<std::string> ours = SqlTypeName(sql_head, parameters)) type = ParseDataType(*ours);
    }
    if (!type.ok() || type->nullable) {
      return MakeError(ErrorCode::kInvalidInput, "syntax error at position {}: '{}{}' is not a type name", at, head,
                       parameters);
    }
    return *type;
  }
  // x::T, PostgreSQL's cast: cast(x, T), binding tighter than any operator (-x::i64 is
  // -(cast(x, i64)), x::f64 ** 2 squares the cast).
  Result<ExprPtr> ParsePostfixCasts(ExprPtr e) {
    while (Peek().kind == Tok::kOp && Peek().text == "::") {
      Next();
      ROWJIT_ASSIGN_OR_RETURN(DataType type, ParseTypeName());
      if (type.is_logical()) {
        ROWJIT_ASSIGN_OR_RETURN(e, Made(Expr::Call("cast", {e, Expr::Literal("'" + type.ToString() + "'")})));
      } else {
        ROWJIT_ASSIGN_OR_RETURN(e, Made(Expr::Call("cast", {e}, type.id)));
      }
    }
    return e;
  }
  Result<ExprPtr> ParseCallArgs(std::string name) {
    // SQL's extract(year from t): date_part('year', t), which binds to year(t).
    if (name == "extract" && Peek().kind == Tok::kIdent && t_[pos_ + 1].kind == Tok::kIdent && IsWord(t_[pos_ + 1].text, "from")) {
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
          ROWJIT_ASSIGN_OR_RETURN(DataType type, ParseTypeName());
          if (!type.is_logical()) {
            type_arg = type.id;
            break;
          }
          // A cast to a logical type: its text as a second argument, which the binder reads.
          if (name != "cast") return Expected("a storage type name (" + name + " of a logical type)");
          args.push_back(Expr::Literal("'" + type.ToString() + "'"));
          break;
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
      ROWJIT_ASSIGN_OR_RETURN(ExprPtr same, Made(Expr::Call("eq", {args[0], args[1]})));
      return Made(Expr::Call("if", {same, Expr::Literal("null"), args[0]}));
    }
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
                                    (t.text == "-" || t.text == "**" || t.text == "not" || IsWord(t.text, "case") ||
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
