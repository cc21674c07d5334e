// Cutting an expression into stages of bounded size (jit layer, plan room).
#include "jit/plan/staging.h"

#include <algorithm>
#include <unordered_map>

#include "ir/analysis.h"
#include "ir/function.h"

namespace rowjit::jit::internal {
namespace {

// A node after cutting: its rewritten tree and the nodes that tree has that are not yet
// materialized.
struct Cut {
  ir::ExprPtr expr;
  int64_t pending;
};

class Splitter {
 public:
  Splitter(int num_columns, int64_t max_nodes) : num_columns_(num_columns), max_nodes_(max_nodes) {}

  Stages Run(const ir::ExprPtr& root) {
    // Post-order over an explicit stack; each distinct node is cut once.
    std::vector<std::pair<const ir::ExprPtr*, bool>> stack = {{&root, false}};
    while (!stack.empty()) {
      auto [node, expanded] = stack.back();
      if (cuts_.count(node->get())) {
        stack.pop_back();
        continue;
      }
      if (!expanded && !(*node)->args().empty()) {
        stack.back().second = true;
        for (const ir::ExprPtr& a : (*node)->args()) stack.push_back({&a, false});
        continue;
      }
      stack.pop_back();
      cuts_.emplace(node->get(), CutNode(*node));
    }
    out_.root = cuts_.at(root.get()).expr;
    return std::move(out_);
  }

 private:
  // The node's arguments are cut; when together they pass the budget, each argument that is a
  // call becomes a stage of its own.
  Cut CutNode(const ir::ExprPtr& e) {
    if (!e->is_call()) return {e, 1};
    std::vector<Cut> args;
    for (const ir::ExprPtr& a : e->args()) args.push_back(cuts_.at(a.get()));
    int64_t pending = Pending(*e, args);
    if (pending > max_nodes_) {
      for (Cut& a : args) {
        if (a.pending > 1) a = Materialize(a.expr);
      }
      pending = Pending(*e, args);
    }
    // A variadic call of more arguments than a kernel holds (coalesce of 200 columns): its
    // arguments in groups, in order, each group the same call as a stage (coalesce, concat,
    // greatest and least are associative, and their first-of-equals survives grouping in
    // order), until the call fits. An IN list's items are grouped behind its value, each
    // `in_list(x, group)` a stage, and the call becomes `in_list(true, stages...)`: true where a
    // stage is, else null where one is — the Kleene OR of the stages, which is the list's answer.
    // Without this the call never shrinks and staging would not end.
    while (pending > max_nodes_ && e->function()->variadic && args.size() > 2) {
      const bool in_list = e->function()->literal_set;
      const size_t first = in_list ? 1 : 0;
      const int64_t budget = std::max<int64_t>(2, max_nodes_ - 1 - static_cast<int64_t>(first));
      std::vector<std::vector<Cut>> groups(1);
      int64_t weight = 0;
      for (size_t i = first; i < args.size(); ++i) {
        const int64_t w = in_list && args[i].expr->is_literal() ? 0 : args[i].pending;
        if (weight + w > budget && !groups.back().empty()) {
          groups.emplace_back();
          weight = 0;
        }
        groups.back().push_back(args[i]);
        weight += w;
      }
      std::vector<Cut> grouped;
      if (in_list) grouped.push_back({ir::Expr::BoundLiteral(Scalar::Of(true)), 1});
      for (std::vector<Cut>& g : groups) {
        if (g.size() == 1 && !in_list) {
          grouped.push_back(g[0]);
          continue;
        }
        if (in_list) g.insert(g.begin(), args[0]);
        std::vector<ir::ExprPtr> part;
        std::vector<DataType> types;
        for (const Cut& a : g) {
          part.push_back(a.expr);
          types.push_back(a.expr->type());
        }
        DataType type = e->type();  // its logical type; the nullability of this group's rule
        auto rule = e->function()->type_rule(e->function()->name, types, e->type_arg());
        type.nullable = rule.ok() ? rule->nullable : true;
        grouped.push_back(Materialize(ir::Expr::BoundCall(e->function(), std::move(part), e->type_arg(), type)));
      }
      args = std::move(grouped);
      pending = 1 + static_cast<int64_t>(args.size());
    }
    bool changed = args.size() != e->args().size();
    std::vector<ir::ExprPtr> rewritten;
    for (size_t i = 0; i < args.size(); ++i) {
      changed = changed || args[i].expr != e->args()[i];
      rewritten.push_back(args[i].expr);
    }
    if (!changed) return {e, pending};
    return {ir::Expr::BoundCall(e->function(), std::move(rewritten), e->type_arg(), e->type()), pending};
  }

  // The nodes of a call over cut arguments that are not yet materialized: itself and what its
  // arguments hold (an IN list's literal items are one constant set: ir::CountsAsNodes).
  static int64_t Pending(const ir::Expr& call, std::span<const Cut> args) {
    int64_t pending = 1;
    for (size_t i = 0; i < args.size(); ++i) {
      if (ir::CountsAsNodes(call, i)) pending += args[i].pending;
    }
    return pending;
  }

  // `e` as a stage: computed by its own kernel, read by its parent as a column.
  Cut Materialize(const ir::ExprPtr& e) {
    const int index = num_columns_ + static_cast<int>(out_.stages.size());
    out_.stages.push_back(e);
    return {ir::Expr::BoundColumn(fmt::format("$stage{}", out_.stages.size() - 1), index, e->type()), 1};
  }

  const int num_columns_;
  const int64_t max_nodes_;
  std::unordered_map<const ir::Expr*, Cut> cuts_;
  Stages out_;
};

}  // namespace

Stages SplitIntoStages(const ir::ExprPtr& expr, int num_columns, int64_t max_nodes) {
  return Splitter(num_columns, max_nodes).Run(expr);
}

}  // namespace rowjit::jit::internal
