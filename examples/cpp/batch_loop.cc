// The batch loop a host writes: prepared handles for an expression written into the host's own
// memory, a filter and evaluation under its selection, a projection and an aggregate.
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <vector>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

using namespace rowjit;

namespace {

// One of the host's batches: a (nullable), b and c, four rows.
std::vector<ArrayPtr> Batch(const std::vector<std::optional<int32_t>>& a) {
  return {MakeArray<int32_t>(a).value(), MakeArray<int32_t>({10, 20, 30, 40}, false).value(),
          MakeArray<int32_t>({5, 5, 5, -200}, false).value()};
}

ir::ExprPtr Bind(const char* text, const Schema& schema) { return ir::ParseAndBind(text, schema).value(); }

}  // namespace

int main() {
  auto engine = jit::Engine::Make({.compile = jit::EngineOptions::Compile::kSynchronous}).value();
  const Schema schema = ParseSchema("a:i32?, b:i32, c:i32").value();
  const std::vector<std::vector<ArrayPtr>> batches = {Batch({1, std::nullopt, 3, 4}),
                                                      Batch({2, 2, std::nullopt, -1})};
  constexpr int64_t n = 4;  // rows a batch

  // Memory the host owns and reuses batch after batch (here for i32 results of up to n rows).
  std::vector<int32_t> values(n);
  std::vector<uint64_t> validity((n + 63) / 64);
  const jit::OutputBuffers out{.values = values.data(), .values_bytes = n * 4,
                               .validity = validity.data(), .validity_bytes = (n + 63) / 64 * 8};
  auto prepared = engine->PrepareExpression(Bind("a * b + c", schema)).value();
  auto filter = engine->PrepareExpression(Bind("a * b + c > 20", schema)).value();  // a bool expression
  auto ratio = engine->PrepareExpression(Bind("c * 10 / a", schema)).value();
  const std::vector<ir::ExprPtr> exprs = {Bind("a * b", schema), Bind("a * b > c", schema)};
  auto projection = engine->PrepareProjection(exprs).value();  // a PreparedProjection
  auto fold = engine->PrepareAggregate(ir::ParseAndBindAggregate("sum(a * b)", schema).value()).value();

  for (const std::vector<ArrayPtr>& columns : batches) {
    ArrayPtr r = prepared->EvaluateInto(columns, n, out).value();  // lies in `values`
    int64_t nulls = prepared->WriteInto(columns, n, out).value();  // the same, no array: its null count
    SelectionVector kept = filter->Filter(columns, n).value();     // the rows where it is true
    ArrayPtr sel = ratio->Evaluate(columns, n, kept).value();      // kept.size() rows
    std::vector<ArrayPtr> outs = projection->Project(columns, n).value();  // one pass, a * b once
    ir::AggregateResult total = fold->Aggregate(columns, n).value();

    std::printf("into     %s, validity %" PRIx64 ", %" PRId64 " null\n", r->ToString().c_str(), validity[0], nulls);
    std::printf("filter   rows");
    for (uint32_t row : kept.indices()) std::printf(" %u", row);
    std::printf(", c * 10 / a over them %s\n", sel->ToString().c_str());
    std::printf("project  %s %s\n", outs[0]->ToString().c_str(), outs[1]->ToString().c_str());
    std::printf("sum      %s\n", total.ToString(fold->aggregate().kind).c_str());
  }
  return 0;
}
