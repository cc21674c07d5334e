// The Arrow C Data Interface from C++: a record batch exported and imported back (ownership moves
// with the structs), an expression evaluated over it, and the result exported to a consumer.
#include <cstdio>
#include <optional>
#include <vector>

#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/arrow_c.h"
#include "runtime/builder.h"

int main() {
  using namespace rowjit;
  auto engine = jit::Engine::Make().value();
  const Schema schema = ParseSchema("a:i32?, b:i32").value();
  RecordBatch batch = RecordBatch::Make(schema, {MakeArray<int32_t>({1, std::nullopt, 3}).value(),
                                                 MakeArray<int32_t>({10, 20, 30}, false).value()})
                          .value();

  // A producer fills the two structs (here rowjit itself, as a stand-in for any Arrow library).
  ArrowArray c_array;
  ArrowSchema c_schema;
  if (!ExportRecordBatch(batch, &c_array, &c_schema).ok()) return 1;

  // Import: takes ownership of both structs (on success and on error), zero-copy.
  Result<RecordBatch> imported = ImportRecordBatch(&c_array, &c_schema);
  if (!imported.ok()) return std::puts(imported.error().ToString().c_str()), 1;
  std::printf("imported %s, released: %s\n", imported->schema.ToString().c_str(),
              c_array.release == nullptr && c_schema.release == nullptr ? "yes" : "no");

  ir::ExprPtr expr = ir::ParseAndBind("a * b", imported->schema).value();
  Result<ArrayPtr> result = engine->Evaluate(expr, *imported);
  if (!result.ok()) return std::puts(result.error().ToString().c_str()), 1;

  // Export: the consumer owns the structs and calls each release once.
  ArrowArray out;
  ArrowSchema out_schema;
  Status st = ExportArray(*result, &out, &out_schema);
  if (!st.ok()) return std::puts(st.ToString().c_str()), 1;
  const int32_t* values = static_cast<const int32_t*>(out.buffers[1]);
  std::printf("format %s, length %lld, null_count %lld, row 2 = %d\n", out_schema.format,
              static_cast<long long>(out.length), static_cast<long long>(out.null_count), values[2]);
  out.release(&out);
  out_schema.release(&out_schema);
  return 0;
}
