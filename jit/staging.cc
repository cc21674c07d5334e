// Cutting an expression into stages of bounded size (jit layer).
#include "jit/staging.h"

#include <algorithm>
#include <unordered_map>

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
    int64_t pending = 1;
    for (const ir::ExprPtr& a : e->args()) {
      args.push_back(cuts_.at(a.get()));
      pending += args.back().pending;
    }
    if (pending > max_nodes_) {
      pending = 1;
      for (Cut& a : args) {
        if (a.pending > 1) a = Materialize(a.expr);
        pending += a.pending;
      }
    }
    // A variadic call of more arguments than a kernel holds (coalesce of 200 columns): its
    // arguments in groups, in order, each group the same call as a stage (coalesce, concat,
    // greatest and least are associative, and their first-of-equals survives grouping in
    // order), until the call fits. Without this the call never shrinks and staging would
    // not end.
    while (pending > max_nodes_ && e->function()->variadic && args.size() > 2) {
      const size_t group = static_cast<size_t>(std::max<int64_t>(2, max_nodes_ - 1));
      std::vector<Cut> grouped;
      for (size_t i = 0; i < args.size(); i += group) {
        const size_t end = std::min(args.size(), i + group);
        if (end - i == 1) {
          grouped.push_back(args[i]);
          continue;
        }
        std::vector<ir::ExprPtr> part;
        std::vector<DataType> types;
        for (size_t j = i; j < end; ++j) {
          part.push_back(args[j].expr);
          types.push_back(args[j].expr->type());
        }
        DataType type = e->type();  // its logical type; the nullability of this group's rule
        auto rule = e->function()->type_rule(e->function()->name, types, e->type_arg());
        type.nullable = rule.ok() ? rule->nullable : true;
        grouped.push_back(Materialize(ir::Expr::BoundCall(e->function(), std::move(part), e->type_arg(), type)));
      }
      args = std::move(grouped);
      pending = 1 + static_cast<int64_t>(args.size());
    }
    bool changed = false;
    std::vector<ir::ExprPtr> rewritten;
    for (size_t i = 0; i < args.size(); ++i) {
      changed = changed || args[i].expr != e->args()[i];
      rewritten.push_back(args[i].expr);
    }
    if (!changed) return {e, pending};
    return {ir::Expr::BoundCall(e->function(), std::move(rewritten), e->type_arg(), e->type()), pending};
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
