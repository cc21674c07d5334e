// Aggregate queries from C++: several aggregates per group in one pass, and partial states that
// fold batches apart, travel as bytes and merge.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/query.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

int main() {
  using namespace rowjit;
  std::unique_ptr<jit::Engine> engine = jit::Engine::Make().value();
  const Schema schema = ParseSchema("region:u8, qty:i32?, price:f64").value();
  const std::vector<ArrayPtr> columns = {
      MakeArray<uint8_t>({1, 2, 1, 2, 1, 3}, false).value(),
      MakeArray<int32_t>({4, std::nullopt, 6, 1, 2, 9}).value(),
      MakeArray<double>({2.5, 4.0, 1.0, 8.0, 3.5, 0.5}, false).value()};

  Result<ir::Query> query = ir::ParseAndBindQuery(
      "sum(qty), avg(price), count(*), max(price) filter (where qty > 3) group by region where price < 8",
      schema);
  if (!query.ok()) return std::puts(query.error().ToString().c_str()), 1;
  Result<ir::QueryResult> result = engine->Query(*query, columns, 6);
  if (!result.ok()) return std::puts(result.error().ToString().c_str()), 1;
  std::fputs(result->ToString().c_str(), stdout);

  // The same query batch by batch: a state per batch (or thread), sent as bytes, merged.
  auto shared = std::make_shared<const ir::Query>(*query);
  ir::QueryState total(shared);
  for (int64_t begin : {0, 3}) {
    std::vector<ArrayPtr> half;
    for (const ArrayPtr& c : columns) half.push_back(c->Slice(begin, 3).value());
    ir::QueryState partial(shared);
    if (Status s = engine->FoldQuery(partial, half, 3); !s.ok()) return std::puts(s.ToString().c_str()), 1;
    const std::string bytes = partial.Serialize();
    ir::QueryState received = ir::QueryState::Deserialize(shared, bytes).value();
    if (Status s = total.Merge(received); !s.ok()) return std::puts(s.ToString().c_str()), 1;
  }
  std::printf("merged: %s", total.Finish().value().ToString() == result->ToString() ? "same answer\n" : "differs\n");
  return 0;
}
