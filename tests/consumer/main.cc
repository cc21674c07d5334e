// A host embedding rowjit through its installed headers and library: an expression bound to a
// schema, evaluated over a batch, filtered, and written into memory the host owns. Prints the
// results; tools/consumer-test compares them with the expected lines.
#include <cstdio>
#include <vector>

#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

int main() {
  using namespace rowjit;
  auto engine = jit::Engine::Make({.compile = jit::EngineOptions::Compile::kSynchronous});
  if (!engine.ok()) return std::fprintf(stderr, "%s\n", engine.error().ToString().c_str()), 1;
  const Schema schema = ParseSchema("a:i32?, b:i32, c:i32").value();
  const std::vector<ArrayPtr> columns = {MakeArray<int32_t>({1, std::nullopt, 3, 4}).value(),
                                         MakeArray<int32_t>({10, 20, 30, 40}, false).value(),
                                         MakeArray<int32_t>({5, 5, 5, -200}, false).value()};
  auto expr = ir::ParseAndBind("a * b + c", schema);
  auto pred = ir::ParseAndBind("a * b + c > 0", schema);
  if (!expr.ok() || !pred.ok()) return 1;
  auto out = (*engine)->Evaluate(*expr, columns, 4);
  auto kept = (*engine)->Filter(*pred, columns, 4);
  if (!out.ok() || !kept.ok()) return 1;
  std::printf("evaluate: %s\n", (*out)->ToString().c_str());
  std::printf("filter: %lld rows, first %u\n", static_cast<long long>(kept->size()), (*kept)[0]);
  std::vector<int32_t> values(4);
  std::vector<uint64_t> validity(1);
  const jit::OutputBuffers into{values.data(), 16, validity.data(), 8};
  auto written = (*engine)->EvaluateInto(*expr, columns, 4, into);
  if (!written.ok()) return 1;
  std::printf("into: %d %d %d, validity %llx\n", values[0], values[2], values[3],
              static_cast<unsigned long long>(validity[0]));
  auto bad = (*engine)->Evaluate(*ir::ParseAndBind("b / (b - 20)", schema), columns, 4);
  std::printf("error: %s\n", bad.ok() ? "none" : bad.error().ToString().c_str());
  return 0;
}
