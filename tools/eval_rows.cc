// `rowjit eval --print N` and `--output FILE`: the result rows of EXPR, of every --expr, of an
// aggregate or of an aggregate query (one row per group), under --filter's selection, checked against the reference with --verify (tools layer).
#include <algorithm>
#include <optional>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/query.h"
#include "ir/reference.h"
#include "runtime/builder.h"
#include "tools/csv_output.h"
#include "tools/eval_internal.h"

namespace rowjit::cli {

namespace {

// The expressions bound: row expressions (EXPR and every --expr) and a filter, an aggregate, or
// an aggregate query.
struct Bound {
  std::vector<ir::ExprPtr> exprs;
  std::optional<ir::Aggregate> aggregate;
  std::optional<ir::Query> query;
  ir::ExprPtr filter;
};

// Binds every text of the options; on an error, *failed is the text it is about.
Result<Bound> BindAll(const EvalOptions& o, const Schema& schema, std::string* failed) {
  Bound b;
  const bool query = ir::IsQueryText(o.expr);
  if (query || ir::IsAggregateText(o.expr)) {
    if (!o.filter.empty() || !o.more_exprs.empty()) {
      return Error(ErrorCode::kInvalidInput,
                   query ? "--filter and --expr take row expressions, not an aggregate query (its "
                           "WHERE clause filters its rows)"
                         : "--filter and --expr take row expressions, not an aggregate");
    }
    *failed = o.expr;
    if (query) {
      ROWJIT_ASSIGN_OR_RETURN(b.query, ir::ParseAndBindQuery(o.expr, schema));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(b.aggregate, ir::ParseAndBindAggregate(o.expr, schema));
    }
    return b;
  }
  std::vector<std::string> texts = {o.expr};
  texts.insert(texts.end(), o.more_exprs.begin(), o.more_exprs.end());
  for (const std::string& text : texts) {
    *failed = text;
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    b.exprs.push_back(std::move(e));
  }
  if (!o.filter.empty()) {
    *failed = o.filter;
    ROWJIT_ASSIGN_OR_RETURN(b.filter, ir::ParseAndBind(o.filter, schema));
  }
  return b;
}

// The output columns' names: the expressions' (min_max gives NAME.min and NAME.max); a query's
// GROUP BY columns, then its aggregates as written.
std::vector<std::string> OutputNames(const EvalOptions& o, const Bound& b) {
  if (b.query) {
    std::vector<std::string> names;
    for (const ir::ExprPtr& key : b.query->keys) names.push_back(key->name());
    for (const ir::QueryAggregate& a : b.query->aggregates) names.push_back(a.text);
    return names;
  }
  if (b.aggregate && b.aggregate->kind == ir::AggKind::kMinMax) {
    return {o.names[0] + ".min", o.names[0] + ".max"};
  }
  return o.names;
}

// An aggregate's result as one row of one column per value.
Result<std::vector<ArrayPtr>> AggregateRow(const ir::Aggregate& agg,
                                           const ir::AggregateResult& result) {
  std::vector<Scalar> values = {result.value};
  if (agg.kind == ir::AggKind::kMinMax) values.push_back(result.max);
  std::vector<ArrayPtr> out;
  for (const Scalar& v : values) {
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr column, MakeArray(v.type().WithNullable(true), {v}));
    out.push_back(std::move(column));
  }
  return out;
}

Result<std::vector<ArrayPtr>> JitColumns(const Bound& b, const RecordBatch& batch,
                                         jit::Engine& engine, const jit::EvalOptions& options) {
  if (b.query) {
    ROWJIT_ASSIGN_OR_RETURN(ir::QueryResult r,
                            engine.Query(*b.query, batch.columns, batch.length, options));
    return std::move(r.columns);
  }
  if (b.aggregate) {
    ROWJIT_ASSIGN_OR_RETURN(
        ir::AggregateResult r,
        engine.Aggregate(*b.aggregate, batch.columns, batch.length, options, nullptr));
    return AggregateRow(*b.aggregate, r);
  }
  if (!b.filter) {
    if (b.exprs.size() > 1) return engine.Project(b.exprs, batch.columns, batch.length, options);
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr out,
                            engine.Evaluate(b.exprs[0], batch.columns, batch.length, options));
    return std::vector<ArrayPtr>{out};
  }
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector sel,
                          engine.Filter(b.filter, batch.columns, batch.length, options));
  if (b.exprs.size() > 1) return engine.Project(b.exprs, batch.columns, batch.length, sel, options);
  ROWJIT_ASSIGN_OR_RETURN(ArrayPtr out,
                          engine.Evaluate(b.exprs[0], batch.columns, batch.length, sel, options));
  return std::vector<ArrayPtr>{out};
}

// The reference's columns: an error is the lowest failing row over the outputs (the engine's
// rule for a projection).
Result<std::vector<ArrayPtr>> ReferenceColumns(const Bound& b, const RecordBatch& batch) {
  if (b.query) {
    ROWJIT_ASSIGN_OR_RETURN(ir::QueryResult r,
                            ir::EvaluateQueryReference(*b.query, batch.columns, batch.length));
    return std::move(r.columns);
  }
  if (b.aggregate) {
    ROWJIT_ASSIGN_OR_RETURN(ir::AggregateResult r, ir::EvaluateAggregateReference(
                                                       *b.aggregate, batch.columns, batch.length));
    return AggregateRow(*b.aggregate, r);
  }
  ROWJIT_ASSIGN_OR_RETURN(SelectionVector sel, b.filter ? ReferenceSelection(*b.filter, batch)
                                                        : SelectionVector::All(batch.length));
  std::vector<ArrayPtr> out;
  std::optional<Error> first;
  for (const ir::ExprPtr& e : b.exprs) {
    Result<ArrayPtr> r = ReferenceUnder(*e, batch, sel);
    if (r.ok()) {
      out.push_back(*r);
    } else if (!first || (r.error().row() && first->row() && *r.error().row() < *first->row())) {
      first = std::move(r).TakeError();
    }
  }
  if (first) return std::move(*first);
  return out;
}

// Whether the JIT's and the reference's results agree: the same error code at the same row, or
// the same values; prints the verdict on stderr (the rows are stdout's).
int Verify(const Result<std::vector<ArrayPtr>>& jit, const Result<std::vector<ArrayPtr>>& ref,
           const CsvInput* input) {
  std::string differs;
  if (jit.ok() != ref.ok()) {
    differs = fmt::format("the jit {} but the reference {}",
                          jit.ok() ? "succeeded" : ErrorText(jit.error(), input),
                          ref.ok() ? "succeeded" : ErrorText(ref.error(), input));
  } else if (!jit.ok()) {
    if (jit.error().code() != ref.error().code() || jit.error().row() != ref.error().row()) {
      differs = fmt::format("the jit reports {}, the reference {}", ErrorText(jit.error(), input),
                            ErrorText(ref.error(), input));
    }
  } else {
    for (size_t k = 0; k < jit->size() && differs.empty(); ++k) {
      const Array& a = *(*jit)[k];
      const Array& b = *(*ref)[k];
      const int64_t row =
          a.type() != b.type() || a.length() != b.length() ? 0 : FirstDifference(a, b);
      if (row >= 0) differs = fmt::format("output {} at row {}", k, row);
    }
  }
  fmt::print(stderr, "verify    {}\n",
             differs.empty() ? "ok: the jit and the reference agree" : "DIFFERENT: " + differs);
  return differs.empty() ? 0 : 1;
}

Status WriteRows(const EvalOptions& o, const ResultRows& rows, jit::Engine& engine) {
  if (o.print_rows) ROWJIT_RETURN_NOT_OK(PrintTable(rows, *o.print_rows, engine, stdout));
  if (!o.output.empty()) ROWJIT_RETURN_NOT_OK(WriteCsv(rows, o.output, o.null_text, engine));
  return Status::OK();
}

}  // namespace

int EvalRows(const EvalOptions& o, const RecordBatch& batch, const CsvInput* input,
             jit::Engine& engine, const jit::EvalOptions& eval_options) {
  std::string failed;
  const Result<Bound> bound = BindAll(o, batch.schema, &failed);
  if (!bound.ok()) return Fail(bound.error(), failed);
  const Result<std::vector<ArrayPtr>> jit = JitColumns(*bound, batch, engine, eval_options);
  const int verify_rc = o.verify ? Verify(jit, ReferenceColumns(*bound, batch), input) : 0;
  if (!jit.ok()) {
    fmt::print(stderr, "rowjit: {}\n", ErrorText(jit.error(), input));
    return std::max(verify_rc, ExitCode(jit.error()));
  }
  const int64_t length = jit->empty() ? 0 : jit->front()->length();
  if (Status written = WriteRows(o, ResultRows{OutputNames(o, *bound), *jit, length}, engine);
      !written.ok()) {
    return Fail(written.error());
  }
  return verify_rc;
}

}  // namespace rowjit::cli
