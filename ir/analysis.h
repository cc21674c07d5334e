// The one analysis of a bound expression (ir layer): what every consumer (planner, executor,
// kernel builder, gates) needs to know about it, computed once per expression and cached on it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/expr.h"

namespace rowjit::ir {

struct ExprFacts {
  // No null-aware function: a call is null exactly when one of its arguments is.
  bool strict = true;
  bool has_null_literal = false;
  // Some call can fail on non-null input (each descriptor's FailRule at its argument types).
  bool can_fail = false;
  // The widths (bits) of failure evidence, ascending, each once: the first argument's width of
  // every call that can fail (bool arguments excluded). A kernel keeps one evidence accumulator
  // per width, and the evidence gate expects OR reductions over elements of these widths.
  std::vector<int> evidence_widths;
  // Some call that can fail takes an integer narrower than 64 bits (the evidence gate applies).
  bool narrow_integer_evidence = false;
  // Some call that can fail reads a string (a parse, a UTF-8 check): padding rows must repeat a
  // real row, as an empty string could fail where no row does.
  bool string_evidence = false;
  // Some call builds a new string (a string function returning one, a cast of a number to
  // text: IsStringBuilder), which no kernel computes: the engine computes such calls a column at
  // a time before the kernel of the rest.
  bool builds_strings = false;
  // Some call scores vectors (a vector function: IsVectorScore), which no kernel of the rows
  // computes: each such call is its own vector kernel, run a column at a time before the kernel
  // of the rest.
  bool scores_vectors = false;
  // Some call reads a struct's field (s.x) or is a list or map function (len, l[i], m[k], ...), or
  // a list or map column is read: computed as a column before the kernel of the rest, as vector
  // functions are.
  bool reads_fields = false;
  // Whether some call reads a nested column (vectors, struct fields, lists, maps): the route
  // nested, whose reads are columns made before the kernel of the rest.
  bool reads_nested() const { return scores_vectors || reads_fields; }
  // The summed decode cost of the functions (per-row work beyond reading numbers).
  int decode_cost = 0;
  // Every column index the expression reads, ascending, each once.
  std::vector<int> columns;
  bool any_nullable_column = false;  // some column it reads has a nullable type
  // Every distinct column node (what input checks compare against the batch).
  std::vector<const Expr*> column_nodes;
  // Every distinct call node, arguments before the calls that use them (pointers into the
  // expression).
  std::vector<const Expr*> calls;
  int64_t nodes = 0;  // nodes of the tree, a shared subtree counted at each use (saturating)
  // The nodes a kernel holds, as planning and staging count them (jit/plan/staging.h): as `nodes`,
  // but the literal items of an IN list are one constant set (CountsAsNodes), not counted.
  int64_t kernel_nodes = 0;
  int depth = 0;      // the longest root-to-leaf path, in nodes

  // Rows are null exactly where some input is: strict, and no null literal makes rows null on
  // its own. Such expressions run with the AND of their inputs' validity computed outside the
  // kernel; the others get a kernel that computes validity row by row.
  bool StrictRows() const { return strict && !has_null_literal; }
};

// Walks an expression once, without recursion (any depth), each distinct node once. Prefer
// Expr::facts(), which computes this once and keeps it. Unbound expressions get their shape
// (nodes, depth, calls by name) and nothing that needs types.
ExprFacts AnalyzeExpr(const Expr& expr);

// Whether a bound call builds a new string: a string function returning one, or a cast of a
// non-string to text (a cast between utf8 and binary keeps the bytes, which kernels read in place).
bool IsStringBuilder(const Expr& call);

// Whether a bound call is a vector function (dot, l2_distance, ...): its arguments are vector
// columns and literals (nothing else has a vector type).
bool IsVectorScore(const Expr& call);

// Whether argument `i` of the call `call` adds its nodes to the call's: every argument does but
// the literal items of an IN list (`in_list`), which a kernel holds as one constant set whatever
// its size (counted with the call).
bool CountsAsNodes(const Expr& call, size_t i);

// The constant set a kernel holds for an IN list (a bound `in_list` call): the distinct values of
// its non-null literal items, in SQL's order (CompareScalarsSql).
std::vector<Scalar> InListSet(const Expr& call);

// How a kernel tests a row against that set (jit/codegen/lower/logic.cc, jit/codegen/lower/string.cc):
//   kCompared  value by value: up to kInListComparedValues values;
//   kBitmap    integers within kInListBitmapSpan of the least of more than kInListBitmapMin
//              values (every 8-bit set): a constant bitmap whose word a tree of selects picks;
//   kSearched  the rest: integers in a two-choice cuckoo table (two hashes, two row-dependent
//              loads), other values (and a set no table holds) by a branchless binary search
//              over a constant array (decimal128: two, of halves), a row-dependent load a step;
//              loads are gathers where the target has them; strings a helper's search.
// The IR gates tag searched sets "searched:in_list".
enum class SetLookup : uint8_t { kCompared, kBitmap, kSearched };
inline constexpr size_t kInListComparedValues = 64;
inline constexpr size_t kInListBitmapMin = 8;
inline constexpr int64_t kInListBitmapSpan = 256;
SetLookup InListLookup(TypeId storage, std::span<const Scalar> set);

}  // namespace rowjit::ir
