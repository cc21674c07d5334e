// The analysis of a bound expression: one iterative walk (ir layer).
#include "ir/analysis.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

#include "ir/function.h"
#include "ir/limits.h"

namespace rowjit::ir {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

void SortUnique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// What one call adds to the facts.
void AddCall(const Expr& call, ExprFacts& facts) {
  const Function& f = *call.function();
  facts.strict = facts.strict && f.strict();
  facts.decode_cost += f.decode_cost;
  facts.builds_strings = facts.builds_strings || IsStringBuilder(call);
  facts.scores_vectors = facts.scores_vectors || f.family == Family::kVector;
  facts.reads_fields = facts.reads_fields || f.family == Family::kStruct || f.family == Family::kList ||
                      f.family == Family::kConstruct;
  facts.calls.push_back(&call);
  if (!call.CanFail()) return;
  facts.can_fail = true;
  const TypeId arg = call.args().empty() ? call.type().id : call.args()[0]->type().id;
  if (arg == TypeId::kBool) return;
  // A parse or UTF-8 check: a byte; a 16-byte decimal's narrowing: its 64-bit halves; an 8-bit
  // multiply: its 16-bit product's high byte (x86 multiplies no bytes; narrowing it costs more).
  const bool byte_product = f.kernel_cost == KernelCost::kCheckedMultiply && BitWidth(arg) == 8 && IsInteger(arg);
  facts.evidence_widths.push_back(IsString(arg) ? 8 : arg == TypeId::kI128 ? 64 : byte_product ? 16 : BitWidth(arg));
  facts.string_evidence = facts.string_evidence || IsString(arg);
  facts.narrow_integer_evidence = facts.narrow_integer_evidence || (IsInteger(arg) && BitWidth(arg) < 64);
}

}  // namespace

bool IsStringBuilder(const Expr& e) {
  if (!e.is_call() || !IsString(e.type().id) || e.function() == nullptr) return false;
  if (e.function()->family == Family::kCast) return !IsString(e.args()[0]->type().id);
  return e.function()->family == Family::kString;
}

bool IsVectorScore(const Expr& e) {
  return e.is_call() && e.function() != nullptr && e.function()->family == Family::kVector;
}

bool CountsAsNodes(const Expr& call, size_t i) {
  if (i == 0 || !call.is_call() || !call.args()[i]->is_literal()) return true;
  const Function* f = call.bound() ? call.function() : FindFunction(call.name());
  return f == nullptr || !f->literal_set;
}

std::vector<Scalar> InListSet(const Expr& call) {
  std::vector<Scalar> set;
  for (size_t i = 1; i < call.args().size(); ++i) {
    const Expr& item = *call.args()[i];
    if (item.is_literal() && item.bound() && !item.value().is_null()) set.push_back(item.value());
  }
  std::sort(set.begin(), set.end(), [](const Scalar& p, const Scalar& q) { return CompareScalarsSql(p, q) < 0; });
  set.erase(std::unique(set.begin(), set.end(), [](const Scalar& p, const Scalar& q) { return CompareScalarsSql(p, q) == 0; }),
            set.end());
  return set;
}

SetLookup InListLookup(TypeId storage, std::span<const Scalar> set) {
  if (set.size() > kInListBitmapMin && IsInteger(storage) &&
      set.back().int128() - set.front().int128() < kInListBitmapSpan) {
    return SetLookup::kBitmap;
  }
  if (set.size() <= kInListComparedValues) return SetLookup::kCompared;
  return SetLookup::kSearched;
}

ExprFacts AnalyzeExpr(const Expr& expr) {
  ExprFacts facts;
  // Post-order over an explicit stack, each distinct node once: a tree shared by several parents
  // (built through the API) is counted at each use by arithmetic, not by walking it again, so a
  // small DAG that stands for a huge tree costs its size, not the tree's.
  struct Size {
    int64_t nodes;
    int64_t kernel_nodes;
    int depth;
  };
  std::unordered_map<const Expr*, Size> done;
  std::vector<std::pair<const Expr*, bool>> stack = {{&expr, false}};
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    if (done.count(node)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (auto it = node->args().rbegin(); it != node->args().rend(); ++it) {
        if (!done.count(it->get())) stack.push_back({it->get(), false});
      }
      continue;
    }
    stack.pop_back();
    Size size{1, 1, 1};
    for (size_t i = 0; i < node->args().size(); ++i) {
      const Size& child = done.at(node->args()[i].get());
      size.nodes = SaturatingAdd(size.nodes, child.nodes);
      if (CountsAsNodes(*node, i)) size.kernel_nodes = SaturatingAdd(size.kernel_nodes, child.kernel_nodes);
      size.depth = std::max(size.depth, child.depth + 1);
    }
    done.emplace(node, size);
    const Expr& e = *node;
    if (e.is_column()) {
      facts.columns.push_back(e.column_index());
      facts.column_nodes.push_back(&e);
      // A list, map or struct column is read as a column is made, never by a row kernel.
      const TypeId t = e.bound() ? e.type().id : TypeId::kBool;
      facts.reads_fields = facts.reads_fields || t == TypeId::kList || t == TypeId::kMap || t == TypeId::kStruct;
      facts.any_nullable_column = facts.any_nullable_column || (e.bound() && e.type().nullable);
    }
    if (e.is_literal() && e.bound() && e.value().is_null()) facts.has_null_literal = true;
    if (e.is_call() && e.function() != nullptr) AddCall(e, facts);
  }
  facts.nodes = done.at(&expr).nodes;
  facts.kernel_nodes = done.at(&expr).kernel_nodes;
  facts.depth = done.at(&expr).depth;
  SortUnique(facts.columns);
  SortUnique(facts.evidence_widths);
  return facts;
}

Status CheckLimits(const ExprFacts& facts, const Limits& limits) {
  if (facts.depth > limits.max_depth) {
    return MakeError(ErrorCode::kInvalidInput,
                     "expression nests {} levels deep; the limit is {} (Limits::max_depth)",
                     facts.depth, limits.max_depth);
  }
  if (facts.nodes > limits.max_nodes) {
    return MakeError(ErrorCode::kInvalidInput,
                     "expression has {} nodes; the limit is {} (Limits::max_nodes)", facts.nodes,
                     limits.max_nodes);
  }
  return Status::OK();
}

}  // namespace rowjit::ir
