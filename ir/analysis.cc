// The analysis of a bound expression: one iterative walk (ir layer).
#include "ir/analysis.h"

#include <algorithm>
#include <utility>

#include "ir/function.h"

namespace rowjit::ir {
namespace {

void SortUnique(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// What one call adds to the facts.
void AddCall(const Expr& call, ExprFacts& facts) {
  const Function& f = *call.function();
  facts.strict = facts.strict && f.strict();
  facts.decode_cost += f.decode_cost;
  facts.calls.push_back(&call);
  if (!call.CanFail()) return;
  facts.can_fail = true;
  const TypeId arg = call.args().empty() ? call.type().id : call.args()[0]->type().id;
  if (arg == TypeId::kBool) return;
  facts.evidence_widths.push_back(BitWidth(arg));
  facts.narrow_integer_evidence = facts.narrow_integer_evidence || (IsInteger(arg) && BitWidth(arg) < 64);
}

}  // namespace

ExprFacts AnalyzeExpr(const Expr& expr) {
  ExprFacts facts;
  // Post-order over an explicit stack: (node, depth, arguments already pushed).
  struct Frame {
    const Expr* node;
    int depth;
    bool expanded;
  };
  std::vector<Frame> stack = {{&expr, 1, false}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (!top.expanded && !top.node->args().empty()) {
      top.expanded = true;
      const Expr* node = top.node;
      const int depth = top.depth;
      for (auto it = node->args().rbegin(); it != node->args().rend(); ++it) {
        stack.push_back({it->get(), depth + 1, false});
      }
      continue;
    }
    const Frame done = top;
    stack.pop_back();
    const Expr& e = *done.node;
    ++facts.nodes;
    facts.depth = std::max(facts.depth, done.depth);
    if (e.is_column()) facts.columns.push_back(e.column_index());
    if (e.is_literal() && e.bound() && e.value().is_null()) facts.has_null_literal = true;
    if (e.is_call() && e.function() != nullptr) AddCall(e, facts);
  }
  SortUnique(facts.columns);
  SortUnique(facts.evidence_widths);
  return facts;
}

}  // namespace rowjit::ir
