// The C++ API in one sitting: bind an expression to a schema, evaluate it, read an error, fold an aggregate.
#include <cstdio>
#include <optional>
#include <vector>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

int main() {
  using namespace rowjit;
  std::unique_ptr<jit::Engine> engine = jit::Engine::Make().value();  // one LLJIT and its caches
  const Schema schema = ParseSchema("a:i32?, b:i32, c:i32").value();
  const std::vector<ArrayPtr> columns = {MakeArray<int32_t>({1, std::nullopt, 3, 4}).value(),
                                         MakeArray<int32_t>({10, 20, 30, 40}, false).value(),
                                         MakeArray<int32_t>({5, 5, 5, -200}, false).value()};

  Result<ir::ExprPtr> expr = ir::ParseAndBind("a * b + c", schema);
  if (!expr.ok()) return std::puts(expr.error().ToString().c_str()), 1;
  Result<ArrayPtr> out = engine->Evaluate(*expr, columns, 4);
  if (!out.ok()) return std::puts(out.error().ToString().c_str()), 1;
  std::printf("%s: %s\n", (*expr)->ToString().c_str(), (*out)->ToString().c_str());

  // Checked arithmetic: the error names the function and the first failing row.
  Result<ArrayPtr> bad = engine->Evaluate(ir::ParseAndBind("b * 100000000", schema).value(), columns, 4);
  if (!bad.ok()) {
    const Error& e = bad.error();
    std::printf("%s (row %lld, function %s)\n", e.ToString().c_str(), static_cast<long long>(*e.row()),
                e.function().c_str());
  }

  // A reduction template: a * b is folded over the non-null rows, never materialized.
  ir::Aggregate sum = ir::ParseAndBindAggregate("sum(a * b)", schema).value();
  Result<ir::AggregateResult> total = engine->Aggregate(sum, columns, 4);
  if (!total.ok()) return std::puts(total.error().ToString().c_str()), 1;
  std::printf("%s = %s\n", sum.ToString().c_str(), total->ToString(sum.kind).c_str());
  return 0;
}
