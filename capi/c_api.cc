// The C API (capi layer, above jit/): capi/rowjit.h over the C++ Engine. Every entry point checks
// its handles, converts errors to a status and a filled rowjit_error, and lets no exception out.
#include "capi/rowjit.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>

#include "capi/c_api_internal.h"
#include "ir/aggregate.h"
#include "ir/query.h"
#include "runtime/arrow_c.h"
#include "runtime/builder.h"

struct rowjit_expr {
  rowjit::ir::ExprPtr expr;                          // a row expression, or
  std::optional<rowjit::ir::Aggregate> aggregate;    // an aggregate
  std::string text;                                  // canonical
  std::string format;                                // the result's Arrow format
  bool nullable = true;                              // whether the result may hold nulls
};

// One of the three kinds of prepared handle. The engine is declared first so that it outlives the
// handle, which must not outlive it.
struct rowjit_prepared {
  std::shared_ptr<rowjit::jit::Engine> engine;
  std::unique_ptr<rowjit::jit::PreparedExpression> expression;
  std::unique_ptr<rowjit::jit::PreparedAggregate> aggregate;
  std::unique_ptr<rowjit::jit::PreparedProjection> projection;
  std::string text;  // what was prepared, for errors: "a * b", "sum(a)", "projection of 3 expressions"
};

using rowjit::ErrorCode;
using rowjit::Status;
using rowjit::capi::About;
using rowjit::capi::Guarded;
using rowjit::capi::Missing;

namespace {

rowjit_status StatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput: return ROWJIT_INVALID_INPUT;
    case ErrorCode::kTypeError: return ROWJIT_TYPE_ERROR;
    case ErrorCode::kOverflow: return ROWJIT_OVERFLOW;
    case ErrorCode::kDivisionByZero: return ROWJIT_DIVISION_BY_ZERO;
    case ErrorCode::kUnsupported: return ROWJIT_UNSUPPORTED;
    case ErrorCode::kOutOfMemory: return ROWJIT_OUT_OF_MEMORY;
    case ErrorCode::kIoError: return ROWJIT_IO_ERROR;
    case ErrorCode::kInternal: return ROWJIT_INTERNAL;
  }
  return ROWJIT_INTERNAL;
}

// `text` into a fixed buffer, cut to fit and always terminated. A cut falls between UTF-8
// characters (a message may quote a name or a row's text), so the host never reads half of one.
template <size_t N>
void CopyText(char (&out)[N], const std::string& text) {
  size_t n = std::min(text.size(), N - 1);
  if (n < text.size()) {
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // text[n]: a continuation byte
  }
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace

namespace rowjit::capi {

rowjit_status Report(rowjit_error* error, rowjit_status code, const std::string& message, int64_t row,
                     const std::string& function) {
  if (error != nullptr) {
    error->code = code;
    error->row = row;
    CopyText(error->function, function);
    CopyText(error->message, message);
    error->span_offset = -1;
    error->span_length = -1;
  }
  return code;
}

rowjit_status Report(rowjit_error* error, const Error& e, const About& about) {
  const rowjit_status code = StatusOf(e.code());
  const bool spanned = about && e.span() && e.span()->offset <= about->size();
  if (error == nullptr || !spanned) {
    return Report(error, code, e.ToString(), e.row().value_or(-1), e.row() ? e.function() : "");
  }
  const std::string rendered = FormatError(*about, e);
  Report(error, code, rendered.size() < sizeof(error->message) ? rendered : e.ToString(), e.row().value_or(-1),
         e.row() ? e.function() : "");
  const SourceSpan span = *e.span();
  error->span_offset = static_cast<int64_t>(span.offset);
  error->span_length = static_cast<int64_t>(std::min(span.length, about->size() - span.offset));
  return code;
}

Status Missing(const char* what) { return MakeError(ErrorCode::kInvalidInput, "{} is null", what); }

Status CopyOutBytes(const std::string& serialized, uint8_t** bytes, size_t* length) {
  // malloc, not new[]: rowjit_bytes_free is free(), whatever the caller's language allocates with.
  auto* copy = static_cast<uint8_t*>(std::malloc(std::max<size_t>(serialized.size(), 1)));
  if (copy == nullptr) return MakeError(ErrorCode::kOutOfMemory, "{} bytes for a state", serialized.size());
  std::memcpy(copy, serialized.data(), serialized.size());
  *bytes = copy;
  *length = serialized.size();
  return Status::OK();
}

}  // namespace rowjit::capi

namespace {

// The structs rowjit_batch_import was given and did not take: released (a released struct's
// `release` is NULL, so none is released twice).
void ReleaseUntaken(ArrowArray* array, ArrowSchema* schema) {
  if (array != nullptr && array->release != nullptr) array->release(array);
  if (schema != nullptr && schema->release != nullptr) schema->release(schema);
}

// The common checks of the calls over a batch, and the row expression they run.
Status CheckCall(const rowjit_engine* engine, const rowjit_expr* expr, const rowjit_batch* batch,
                 const ArrowArray* out, const ArrowSchema* out_schema, bool aggregate) {
  if (engine == nullptr) return Missing("engine");
  if (expr == nullptr) return Missing("expression");
  if (batch == nullptr) return Missing("batch");
  if (out == nullptr || out_schema == nullptr) return Missing("output");
  if (aggregate && !expr->aggregate) {
    return rowjit::MakeError(ErrorCode::kInvalidInput, "'{}' is not an aggregate (rowjit_evaluate runs it)", expr->text);
  }
  if (!aggregate && expr->aggregate) {
    return rowjit::MakeError(ErrorCode::kInvalidInput, "'{}' is an aggregate (rowjit_aggregate runs it)", expr->text);
  }
  return Status::OK();
}

// The checks every call on a prepared handle makes before its kind's.
Status CheckPreparedCall(const rowjit_prepared* prepared, const rowjit_batch* batch, const ArrowArray* out,
                         const ArrowSchema* out_schema) {
  if (prepared == nullptr) return Missing("prepared handle");
  if (batch == nullptr) return Missing("batch");
  if (out == nullptr || out_schema == nullptr) return Missing("output");
  return Status::OK();
}

Status WrongKind(const rowjit_prepared& prepared, const char* call) {
  const char* runs = prepared.aggregate ? "rowjit_prepared_aggregate"
                     : prepared.projection ? "rowjit_prepared_project"
                                           : "rowjit_prepared_evaluate or rowjit_prepared_filter";
  return rowjit::MakeError(ErrorCode::kInvalidInput, "{} cannot run '{}', prepared as {} ({} runs it)", call,
                           prepared.text,
                           prepared.aggregate ? "an aggregate" : prepared.projection ? "a projection" : "an expression",
                           runs);
}

// A selection's rows as a u32 array over the selection's own buffer.
Status ExportSelection(const rowjit::SelectionVector& kept, ArrowArray* out, ArrowSchema* out_schema) {
  rowjit::BufferPtr indices = rowjit::Buffer::Borrow(kept.data(), kept.size() * 4, kept.buffer());
  ROWJIT_ASSIGN_OR_RETURN(auto rows, rowjit::PrimitiveArray::Make(rowjit::DataType(rowjit::TypeId::kU32, false),
                                                                  kept.size(), std::move(indices),
                                                                  rowjit::Validity::AllValid()));
  return rowjit::ExportArray(rows, out, out_schema);
}

// A projection's outputs as a struct array, children named "0", "1", ...
Status ExportProjection(std::vector<rowjit::ArrayPtr> results, ArrowArray* out, ArrowSchema* out_schema) {
  rowjit::Schema schema;
  for (size_t i = 0; i < results.size(); ++i) schema.fields.push_back({std::to_string(i), results[i]->type()});
  ROWJIT_ASSIGN_OR_RETURN(rowjit::RecordBatch projected, rowjit::RecordBatch::Make(std::move(schema), std::move(results)));
  return rowjit::ExportRecordBatch(projected, out, out_schema);
}

// An aggregate's result as an array of one row (two for min_max: min, then max).
Status ExportAggregate(const rowjit::ir::Aggregate& agg, const rowjit::ir::AggregateResult& r, ArrowArray* out,
                       ArrowSchema* out_schema) {
  std::vector<rowjit::Scalar> rows = {r.value};
  if (agg.kind == rowjit::ir::AggKind::kMinMax) rows.push_back(r.max);
  ROWJIT_ASSIGN_OR_RETURN(rowjit::ArrayPtr values, rowjit::MakeArray(agg.result.WithNullable(true), rows));
  return rowjit::ExportArray(values, out, out_schema);
}

// Binds `text` (an aggregate or a row expression) into `expr`.
Status Bind(rowjit_expr& expr, const char* text, const rowjit::Schema& s, const rowjit::ir::BindOptions& bind) {
  if (rowjit::ir::IsAggregateText(text)) {
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::Aggregate agg, rowjit::ir::ParseAndBindAggregate(text, s, bind));
    expr.text = agg.ToString();
    expr.format = rowjit::ArrowFormatOf(agg.result);
    expr.nullable = true;  // no row folds: null
    expr.aggregate = std::move(agg);
    return Status::OK();
  }
  ROWJIT_ASSIGN_OR_RETURN(expr.expr, rowjit::ir::ParseAndBind(text, s, bind));
  expr.text = expr.expr->ToString();
  expr.format = rowjit::ArrowFormatOf(expr.expr->type());
  expr.nullable = expr.expr->type().nullable;
  return Status::OK();
}

}  // namespace

extern "C" {

const char* rowjit_version(void) { return ROWJIT_VERSION_STRING; }  // the project version, from CMake

void rowjit_engine_options_init(rowjit_engine_options* options) {
  if (options == nullptr) return;
  const rowjit::jit::EngineOptions d;
  *options = rowjit_engine_options{.cache_capacity = static_cast<int64_t>(d.cache_capacity),
                                   .retained_output_bytes = d.retained_output_bytes,
                                   .cache_dir = nullptr,
                                   .disk_cache_bytes = d.disk_cache_bytes,
                                   .compile_threads = d.compile_threads,
                                   .synchronous = 0,
                                   .implicit_casts = 1};
}

rowjit_status rowjit_engine_create(const rowjit_engine_options* options, rowjit_engine** out, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    rowjit_engine_options o;
    rowjit_engine_options_init(&o);
    if (options != nullptr) o = *options;
    if (o.cache_capacity <= 0 || o.retained_output_bytes < 0 || o.disk_cache_bytes <= 0 || o.compile_threads <= 0) {
      return rowjit::MakeError(ErrorCode::kInvalidInput,
                               "engine options out of range (cache_capacity {}, retained_output_bytes {}, "
                               "disk_cache_bytes {}, compile_threads {})",
                               o.cache_capacity, o.retained_output_bytes, o.disk_cache_bytes, o.compile_threads);
    }
    rowjit::jit::EngineOptions eo;
    eo.cache_capacity = static_cast<size_t>(o.cache_capacity);
    eo.retained_output_bytes = o.retained_output_bytes;
    eo.cache_dir = o.cache_dir ? o.cache_dir : "";
    eo.disk_cache_bytes = o.disk_cache_bytes;
    eo.compile_threads = o.compile_threads;
    eo.compile = o.synchronous ? rowjit::jit::EngineOptions::Compile::kSynchronous
                               : rowjit::jit::EngineOptions::Compile::kTiered;
    auto engine = std::make_unique<rowjit_engine>();
    engine->bind = rowjit::ir::BindOptions{.implicit_casts = o.implicit_casts != 0, .limits = eo.limits};
    ROWJIT_ASSIGN_OR_RETURN(engine->engine, rowjit::jit::Engine::Make(std::move(eo)));
    *out = engine.release();
    return Status::OK();
  });
}

void rowjit_engine_free(rowjit_engine* engine) { delete engine; }

rowjit_status rowjit_expr_parse(rowjit_engine* engine, const char* text, const struct ArrowSchema* schema,
                                rowjit_expr** out, rowjit_error* error) {
  About about;
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (engine == nullptr) return Missing("engine");
    if (text == nullptr) return Missing("expression text");
    ROWJIT_ASSIGN_OR_RETURN(rowjit::Schema s, rowjit::ImportSchema(schema));
    about = text;  // from here on an error with a span is about the expression's text
    auto expr = std::make_unique<rowjit_expr>();
    const Status bound = Bind(*expr, text, s, engine->bind);
    if (!bound.ok() && rowjit::ir::IsQueryText(text)) {
      return rowjit::MakeError(ErrorCode::kInvalidInput,
                               "'{}' reads as an aggregate query (GROUP BY, WHERE, FILTER, avg, count(*) or several "
                               "aggregates): rowjit_query_parse parses those", text);
    }
    ROWJIT_RETURN_NOT_OK(bound);
    *out = expr.release();
    return Status::OK();
  }, &about);
}

int rowjit_expr_is_aggregate(const rowjit_expr* expr) { return expr != nullptr && expr->aggregate ? 1 : 0; }
const char* rowjit_expr_text(const rowjit_expr* expr) { return expr != nullptr ? expr->text.c_str() : ""; }
const char* rowjit_expr_format(const rowjit_expr* expr) { return expr != nullptr ? expr->format.c_str() : ""; }
int rowjit_expr_nullable(const rowjit_expr* expr) { return expr != nullptr && expr->nullable ? 1 : 0; }
void rowjit_expr_free(rowjit_expr* expr) { delete expr; }

rowjit_status rowjit_batch_import(struct ArrowArray* array, struct ArrowSchema* schema, rowjit_batch** out,
                                  rowjit_error* error) {
  const rowjit_status status = Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (array == nullptr) return Missing("array");
    if (schema == nullptr) return Missing("schema");
    // Takes both (an already released one is an error), and releases them on its errors.
    ROWJIT_ASSIGN_OR_RETURN(rowjit::RecordBatch batch, rowjit::ImportRecordBatch(array, schema));
    *out = new rowjit_batch{std::move(batch)};
    return Status::OK();
  });
  // Ownership moves on every path: whatever was given and not taken above (its partner or `out`
  // was null, or an exception came first) is released here, once.
  ReleaseUntaken(array, schema);
  return status;
}

int64_t rowjit_batch_length(const rowjit_batch* batch) { return batch != nullptr ? batch->batch.length : 0; }
void rowjit_batch_free(rowjit_batch* batch) { delete batch; }

rowjit_status rowjit_evaluate(rowjit_engine* engine, const rowjit_expr* expr, const rowjit_batch* batch,
                              struct ArrowArray* out, struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckCall(engine, expr, batch, out, out_schema, false));
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ArrayPtr result, engine->engine->Evaluate(expr->expr, batch->batch));
    return rowjit::ExportArray(result, out, out_schema);
  });
}

rowjit_status rowjit_filter(rowjit_engine* engine, const rowjit_expr* predicate, const rowjit_batch* batch,
                            struct ArrowArray* out, struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckCall(engine, predicate, batch, out, out_schema, false));
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(rowjit::SelectionVector kept, engine->engine->Filter(predicate->expr, b.columns, b.length));
    return ExportSelection(kept, out, out_schema);
  });
}

rowjit_status rowjit_project(rowjit_engine* engine, const rowjit_expr* const* exprs, size_t n_exprs,
                             const rowjit_batch* batch, struct ArrowArray* out, struct ArrowSchema* out_schema,
                             rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (exprs == nullptr && n_exprs > 0) return Missing("expression list");
    if (n_exprs == 0) return rowjit::MakeError(ErrorCode::kInvalidInput, "a projection of no expressions");
    std::vector<rowjit::ir::ExprPtr> bound;
    for (size_t i = 0; i < n_exprs; ++i) {
      ROWJIT_RETURN_NOT_OK(CheckCall(engine, exprs[i], batch, out, out_schema, false));
      bound.push_back(exprs[i]->expr);
    }
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(std::vector<rowjit::ArrayPtr> results, engine->engine->Project(bound, b.columns, b.length));
    return ExportProjection(std::move(results), out, out_schema);
  });
}

rowjit_status rowjit_aggregate(rowjit_engine* engine, const rowjit_expr* aggregate, const rowjit_batch* batch,
                               struct ArrowArray* out, struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckCall(engine, aggregate, batch, out, out_schema, true));
    const rowjit::ir::Aggregate& agg = *aggregate->aggregate;
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::AggregateResult r, engine->engine->Aggregate(agg, b.columns, b.length));
    return ExportAggregate(agg, r, out, out_schema);
  });
}

rowjit_status rowjit_prepare(rowjit_engine* engine, const rowjit_expr* expr, rowjit_prepared** out,
                             rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (engine == nullptr) return Missing("engine");
    if (expr == nullptr) return Missing("expression");
    auto prepared = std::make_unique<rowjit_prepared>();
    prepared->engine = engine->engine;
    prepared->text = expr->text;
    if (expr->aggregate) {
      ROWJIT_ASSIGN_OR_RETURN(prepared->aggregate, engine->engine->PrepareAggregate(*expr->aggregate));
    } else {
      ROWJIT_ASSIGN_OR_RETURN(prepared->expression, engine->engine->PrepareExpression(expr->expr));
    }
    *out = prepared.release();
    return Status::OK();
  });
}

rowjit_status rowjit_prepare_projection(rowjit_engine* engine, const rowjit_expr* const* exprs, size_t n_exprs,
                                        rowjit_prepared** out, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (engine == nullptr) return Missing("engine");
    if (exprs == nullptr && n_exprs > 0) return Missing("expression list");
    if (n_exprs == 0) return rowjit::MakeError(ErrorCode::kInvalidInput, "a projection of no expressions");
    std::vector<rowjit::ir::ExprPtr> bound;
    for (size_t i = 0; i < n_exprs; ++i) {
      if (exprs[i] == nullptr) return rowjit::MakeError(ErrorCode::kInvalidInput, "expression {} is null", i);
      if (exprs[i]->aggregate) {
        return rowjit::MakeError(ErrorCode::kInvalidInput, "expression {} '{}' is an aggregate (rowjit_prepare takes it)",
                                 i, exprs[i]->text);
      }
      bound.push_back(exprs[i]->expr);
    }
    auto prepared = std::make_unique<rowjit_prepared>();
    prepared->engine = engine->engine;
    prepared->text = "projection of " + std::to_string(n_exprs) + (n_exprs == 1 ? " expression" : " expressions");
    ROWJIT_ASSIGN_OR_RETURN(prepared->projection, engine->engine->PrepareProjection(bound));
    *out = prepared.release();
    return Status::OK();
  });
}

rowjit_status rowjit_prepared_evaluate(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                       struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckPreparedCall(prepared, batch, out, out_schema));
    if (!prepared->expression) return WrongKind(*prepared, "rowjit_prepared_evaluate");
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ArrayPtr result, prepared->expression->Evaluate(b.columns, b.length));
    return rowjit::ExportArray(result, out, out_schema);
  });
}

rowjit_status rowjit_prepared_filter(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                     struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckPreparedCall(prepared, batch, out, out_schema));
    if (!prepared->expression) return WrongKind(*prepared, "rowjit_prepared_filter");
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(rowjit::SelectionVector kept, prepared->expression->Filter(b.columns, b.length));
    return ExportSelection(kept, out, out_schema);
  });
}

rowjit_status rowjit_prepared_project(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                      struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckPreparedCall(prepared, batch, out, out_schema));
    if (!prepared->projection) return WrongKind(*prepared, "rowjit_prepared_project");
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(std::vector<rowjit::ArrayPtr> results, prepared->projection->Project(b.columns, b.length));
    return ExportProjection(std::move(results), out, out_schema);
  });
}

rowjit_status rowjit_prepared_aggregate(rowjit_prepared* prepared, const rowjit_batch* batch, struct ArrowArray* out,
                                        struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    ROWJIT_RETURN_NOT_OK(CheckPreparedCall(prepared, batch, out, out_schema));
    if (!prepared->aggregate) return WrongKind(*prepared, "rowjit_prepared_aggregate");
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::AggregateResult r, prepared->aggregate->Aggregate(b.columns, b.length));
    return ExportAggregate(prepared->aggregate->aggregate(), r, out, out_schema);
  });
}

rowjit_status rowjit_prepared_evaluate_into(rowjit_prepared* prepared, const rowjit_batch* batch,
                                            const rowjit_output* out, int64_t* null_count, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (prepared == nullptr) return Missing("prepared handle");
    if (batch == nullptr) return Missing("batch");
    if (out == nullptr) return Missing("output");
    if (!prepared->expression) return WrongKind(*prepared, "rowjit_prepared_evaluate_into");
    if (rowjit::IsString(prepared->expression->expr()->type().id)) {
      return rowjit::MakeError(ErrorCode::kInvalidInput,
                               "'{}' gives strings, which have no fixed-width layout (rowjit_prepared_evaluate "
                               "returns them)", prepared->text);
    }
    const rowjit::jit::OutputBuffers buffers{out->values, out->values_bytes, out->validity, out->validity_bytes};
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(const int64_t nulls, prepared->expression->WriteInto(b.columns, b.length, buffers));
    if (null_count != nullptr) *null_count = nulls;
    return Status::OK();
  });
}

rowjit_status rowjit_prepared_evaluate_buffers(rowjit_prepared* prepared, const rowjit_column* columns,
                                               size_t n_columns, int64_t length, const rowjit_output* out,
                                               int64_t* null_count, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (prepared == nullptr) return Missing("prepared handle");
    if (columns == nullptr && n_columns > 0) return Missing("columns");
    if (out == nullptr) return Missing("output");
    if (!prepared->expression) return WrongKind(*prepared, "rowjit_prepared_evaluate_buffers");
    if (rowjit::IsString(prepared->expression->expr()->type().id)) {
      return rowjit::MakeError(ErrorCode::kInvalidInput,
                               "'{}' gives strings, which have no fixed-width layout (rowjit_prepared_evaluate "
                               "returns them)", prepared->text);
    }
    // The C structs copied into the C++ ones (on the stack for up to 16 columns).
    std::array<rowjit::jit::ColumnBuffers, 16> inline_columns;
    std::vector<rowjit::jit::ColumnBuffers> more;
    rowjit::jit::ColumnBuffers* copy = inline_columns.data();
    if (n_columns > inline_columns.size()) {
      more.resize(n_columns);
      copy = more.data();
    }
    for (size_t i = 0; i < n_columns; ++i) copy[i] = {columns[i].values, columns[i].validity};
    const std::span<const rowjit::jit::ColumnBuffers> raw(copy, n_columns);
    const rowjit::jit::OutputBuffers buffers{out->values, out->values_bytes, out->validity, out->validity_bytes};
    ROWJIT_ASSIGN_OR_RETURN(const int64_t nulls, prepared->expression->WriteBuffers(raw, length, buffers));
    if (null_count != nullptr) *null_count = nulls;
    return Status::OK();
  });
}

rowjit_status rowjit_prepared_project_into(rowjit_prepared* prepared, const rowjit_batch* batch,
                                           const rowjit_output* outs, size_t n_outs, int64_t* null_counts,
                                           rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (prepared == nullptr) return Missing("prepared handle");
    if (batch == nullptr) return Missing("batch");
    if (outs == nullptr) return Missing("outputs");
    if (!prepared->projection) return WrongKind(*prepared, "rowjit_prepared_project_into");
    const std::span<const rowjit::ir::ExprPtr> exprs = prepared->projection->exprs();
    if (n_outs != exprs.size()) {
      return rowjit::MakeError(ErrorCode::kInvalidInput, "{} outputs for a projection of {} expressions", n_outs,
                               exprs.size());
    }
    std::vector<rowjit::jit::OutputBuffers> buffers;
    buffers.reserve(n_outs);
    for (size_t i = 0; i < n_outs; ++i) {
      if (rowjit::IsString(exprs[i]->type().id)) {
        return rowjit::MakeError(ErrorCode::kInvalidInput,
                                 "output {} ('{}') gives strings, which have no fixed-width layout "
                                 "(rowjit_prepared_project returns them)", i, exprs[i]->ToString());
      }
      buffers.push_back({outs[i].values, outs[i].values_bytes, outs[i].validity, outs[i].validity_bytes});
    }
    const rowjit::RecordBatch& b = batch->batch;
    ROWJIT_ASSIGN_OR_RETURN(std::vector<rowjit::ArrayPtr> results,
                            prepared->projection->ProjectInto(b.columns, b.length, buffers));
    if (null_counts != nullptr) {
      for (size_t i = 0; i < results.size(); ++i) null_counts[i] = results[i]->NullCount();
    }
    return Status::OK();
  });
}

size_t rowjit_prepared_layouts(const rowjit_prepared* prepared) {
  if (prepared == nullptr) return 0;
  if (prepared->expression) return prepared->expression->layouts();
  if (prepared->aggregate) return prepared->aggregate->layouts();
  return prepared->projection ? prepared->projection->layouts() : 0;
}

void rowjit_prepared_free(rowjit_prepared* prepared) { delete prepared; }

}  // extern "C"
