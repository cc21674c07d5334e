// `rowjit eval`: evaluate an expression over random inputs and summarise the result (tools).
#include "tools/commands.h"

#include <chrono>
#include <cstdlib>

#include "ir/binder.h"
#include "ir/reference.h"
#include "runtime/random.h"

namespace rowjit::cli {

namespace {

constexpr const char* kHelp = R"(usage: rowjit eval EXPR --schema 'a:i32?,b:i32' [options]

Evaluates EXPR over random inputs with the reference evaluator and prints a summary: rows,
nulls, the first error (function and row), and a checksum of the result.

options:
  --schema S         columns as NAME:TYPE, '?' for nullable (required)
  --rows N           rows to generate (default 1000)
  --valid F          fraction of non-null rows in nullable columns (default 0.9)
  --const NAME=V     make column NAME a batch constant of value V (V may be null); repeatable
  --seed S           random seed (default 1)
)";

}  // namespace

int Eval(const Args& args) {
  if (args.Has("--help")) return PrintHelp(kHelp);
  EvalOptions o;
  if (int rc = ParseEvalOptions(args, o, kHelp); rc >= 0) return rc;
  auto schema = ParseSchema(o.schema);
  if (!schema.ok()) return Fail(schema.error());
  auto expr = ir::ParseAndBind(o.expr, *schema);
  if (!expr.ok()) return Fail(expr.error());
  auto batch = RandomBatch(*schema, o.rows, o.valid, o.seed, o.constants, o.offset);
  if (!batch.ok()) return Fail(batch.error());
  fmt::print("expr     {}\ntype     {}\n", (*expr)->ToString(), (*expr)->type().ToString());
  auto out = ir::EvaluateReference(**expr, batch->columns, batch->length);
  PrintSummary("reference", out);
  return out.ok() || out.error().row().has_value() ? 0 : 1;
}

}  // namespace rowjit::cli
