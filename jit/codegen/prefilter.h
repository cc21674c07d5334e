// Word-level work of string predicates (jit layer, codegen room, internal): length prefilters
// and substring searches a word's rows share.
//
// Length prefilters. `s = 'literal'` over
// offsets reads every row's bytes at a row-dependent address, which no vector unit loads well; but
// a row whose length differs cannot match. A dense bool kernel of such a predicate runs each 64-row
// word in two phases: a vectorized lane loop tests the lengths (the offsets only), then the whole
// predicate runs for the lanes that passed, one set bit at a time.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"
#include "ir/spec_key.h"

namespace rowjit::jit::internal {

// `length(column) = length` holds wherever the call is true.
struct LengthTest {
  const ir::Expr* column;
  int64_t length;
};

// The length test of a string equality with a non-null literal (`s = 'x'`, `'x' = s`, a LIKE
// pattern without wildcards or escapes), or nullopt.
std::optional<LengthTest> EqualityLengthTest(const ir::Expr& call);

// The lengths an IN list of a string column and non-null literals (`s in ('ab', 'xyz')`)
// implies, at most kInListPrefilterLengths of them, or nullopt.
inline constexpr size_t kInListPrefilterLengths = 4;
struct LengthSet {
  const ir::Expr* column;
  std::vector<int64_t> lengths;
};
std::optional<LengthSet> InListLengths(const ir::Expr& call);

// Whether `e`, a dense kernel's bool result, is prefiltered: it cannot fail, and it is an
// equality of a string column whose layout reads bytes at a row-dependent address (offsets, or
// views for a literal longer than their 12 inline bytes), or `and` of anything with one, or `or`
// of two (the prefilter of `and` is either side's, of `or` both sides'), or an IN list of a
// string column and literals of few lengths, each of which such an equality would test.
bool UsesLengthPrefilter(const ir::Expr& e, std::span<const ir::InputSpec> specs);

// A constant LIKE pattern without `_` as the anchored pieces between its `%`s: one piece is an
// equality; `p%` a prefix; `%s` a suffix; `%n%` a search; `p%s` a prefix and a suffix that do not
// overlap (`simple`). Others go to the general matcher, and over utf8 (`utf8`) a pattern whose
// piece after a `%` starts with a UTF-8 continuation byte.
struct LikePlan {
  std::vector<std::string> pieces;  // the literal runs between `%`, unescaped
  bool simple = false;
};
LikePlan PlanLike(std::string_view pattern, bool utf8);

// A substring search of a dense word's rows: `contains(s, 'n')`, `s like '%n%'`, `s ilike '%n%'`
// over a flat string column, with a non-empty needle. Over offsets the rows of a word are
// contiguous bytes, searched once for all 64 (kernels::RowsContaining); over views each inline row
// is searched in its view (kernels::RowsContainingViews); both before the lanes run, which read
// their bit. Per row, a search of a short string costs its call and setup, not its bytes (bench:
// `str_search/*`).
struct WordSearch {
  const ir::Expr* column;
  std::string needle;  // lower case where `fold_case`
  bool fold_case;
};
std::optional<WordSearch> WordSearchOf(const ir::Expr& call, std::span<const ir::InputSpec> specs);
// The column of `char_length(s)` over a flat string column, whose code points a word counts for
// all its 64 rows in one helper call (kernels::CodePointCounts over offsets: the lead bytes of the
// word's whole byte range, counted to each row's end; kernels::CodePointCountsViews), before the
// lanes run, which read their row's count: a count a row costs its call and a byte loop
// (bench: `str_char_length/*`). Null otherwise.
const ir::Expr* WordCodePointsOf(const ir::Expr& call, std::span<const ir::InputSpec> specs);
// Whether `e` holds a word search or a word's code point counts: its kernels run 64-row words,
// where they are made.
bool UsesWordSearch(const ir::Expr& e, std::span<const ir::InputSpec> specs);

}  // namespace rowjit::jit::internal
