// Text syntax of expressions: parse and print (ir layer).
//   infix + - * / %, comparisons = != < <= > >=, and or not, calls f(x, y), casts cast(x, T),
//   literals 42 -7 1.5 true false null nan inf with an optional type suffix (42:u8, null:i32),
//   parentheses. Precedence, loosest first: or, and, not, comparison, + -, * / %, unary -.
#pragma once

#include <string_view>

#include "ir/expr.h"
#include "ir/limits.h"

namespace rowjit::ir {

// A syntax error is kInvalidInput naming the position (0-based byte offset) and what was
// expected, with the span of the offending text (Error::span; FormatError shows it); a number
// that runs on (12.3.4) is malformed at the character that cannot continue it. A type name is
// read as a schema's is (ParseDataType with SQL's names), its errors pointing into the text.
// Every node records the span it was parsed from (Expr::span), which binding errors point at.
// Aliases (checked_mul) are replaced by canonical names (mul). Text, nesting and nodes are
// bounded by `limits`: a breach is kInvalidInput naming the limit.
Result<ExprPtr> Parse(std::string_view text, const Limits& limits = {});

}  // namespace rowjit::ir
