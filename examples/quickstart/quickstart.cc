// The C++ quick start: build a batch, bind expressions to its schema, filter, evaluate under the
// selection, fold an aggregate and read a row error. Built against an installed rowjit two ways:
// its CMake package (CMakeLists.txt beside this file) and pkg-config (README.md).
#include <cstdio>
#include <optional>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

using namespace rowjit;

int main() {
  // A batch: columns built from C++ values (std::nullopt is null) or from text, under a schema.
  RecordBatch batch =
      RecordBatch::Make(ParseSchema("qty:i32?, price:f64, name:utf8").value(),
                        {MakeArray<int32_t>({3, std::nullopt, 10, 7}).value(),
                         MakeArray<double>({2.5, 4.0, 0.5, 1.25}, false).value(),
                         ArrayFromText(DataType(TypeId::kUtf8, false), "['pen', 'ink', 'clip', 'pad']").value()})
          .value();

  std::unique_ptr<jit::Engine> engine = jit::Engine::Make().value();  // one per process is enough
  ir::ExprPtr cost = ir::ParseAndBind("qty * price", batch.schema).value();
  ir::ExprPtr cheap = ir::ParseAndBind("price < 3 and name <> 'clip'", batch.schema).value();

  ArrayPtr all = engine->Evaluate(cost, batch).value();
  std::printf("%s = %s\n", cost->ToString().c_str(), all->ToString().c_str());

  SelectionVector rows = engine->Filter(cheap, batch.columns, batch.length).value();
  ArrayPtr kept = engine->Evaluate(cost, batch.columns, batch.length, rows).value();
  std::printf("where %s: %lld rows, %s\n", cheap->ToString().c_str(), static_cast<long long>(rows.size()),
              kept->ToString().c_str());

  ir::Aggregate total = ir::ParseAndBindAggregate("sum(qty * price)", batch.schema).value();
  std::printf("%s = %s\n", total.ToString().c_str(),
              engine->Aggregate(total, batch.columns, batch.length).value().ToString(total.kind).c_str());

  // Checked arithmetic: a failing row is an error that names the function and the row.
  Result<ArrayPtr> bad = engine->Evaluate(ir::ParseAndBind("qty * 1000000000", batch.schema).value(), batch);
  if (!bad.ok()) std::printf("error: %s\n", bad.error().ToString().c_str());
  return 0;
}
