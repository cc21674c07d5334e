// The C API's aggregate queries (capi layer): rowjit_query and rowjit_query_state over ir::Query,
// ir::QueryState and Engine::Query / FoldQuery. Every entry point checks what the caller passed
// before anything is changed, and runs its body through Guarded (no exception leaves).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "capi/c_api_internal.h"
#include "capi/rowjit.h"
#include "ir/query.h"
#include "ir/reference.h"
#include "runtime/arrow_c.h"
#include "runtime/selection.h"

struct rowjit_query {
  std::shared_ptr<const rowjit::ir::Query> query;  // shared with the states made of it
  std::string text;                                // canonical
  std::vector<std::string> names;                  // the result's columns: keys, then aggregates
  std::vector<std::string> formats;                // their Arrow formats
};

struct rowjit_query_state {
  rowjit::ir::QueryState state;
};

using rowjit::ErrorCode;
using rowjit::Status;
using rowjit::capi::About;
using rowjit::capi::Guarded;
using rowjit::capi::Missing;

namespace {

// Every bound expression of the query that reads the batch's columns.
std::vector<const rowjit::ir::Expr*> ReadingExprs(const rowjit::ir::Query& q) {
  std::vector<const rowjit::ir::Expr*> out;
  for (const rowjit::ir::ExprPtr& k : q.keys) out.push_back(k.get());
  if (q.where) out.push_back(q.where.get());
  for (const rowjit::ir::QueryAggregate& a : q.aggregates) {
    if (a.fold.arg) out.push_back(a.fold.arg.get());
    if (a.filter) out.push_back(a.filter.get());
  }
  return out;
}

// Whether the batch fits the schema the query was bound to: each column read is there, at its
// index, under its name. Types, lengths and nulls of the GROUP BY columns are checked here too;
// those of the other columns by the projection the engine runs (the same check).
Status CheckBatch(const rowjit::ir::Query& q, const rowjit::RecordBatch& b) {
  for (const rowjit::ir::Expr* e : ReadingExprs(q)) {
    for (const rowjit::ir::Expr* c : e->facts().column_nodes) {
      const size_t i = static_cast<size_t>(c->column_index());
      if (i >= b.schema.fields.size() || i >= b.columns.size()) {
        return rowjit::MakeError(ErrorCode::kInvalidInput, "the batch has {} columns, the query reads '{}' at index {}",
                                 b.columns.size(), c->name(), i);
      }
      if (b.schema.fields[i].name != c->name()) {
        return rowjit::MakeError(ErrorCode::kInvalidInput,
                                 "the batch's column {} is '{}', the query was bound to '{}' there", i,
                                 b.schema.fields[i].name, c->name());
      }
    }
  }
  for (const rowjit::ir::ExprPtr& k : q.keys) ROWJIT_RETURN_NOT_OK(rowjit::ir::CheckInputs(*k, b.columns, b.length));
  return Status::OK();
}

// The caller's selection as a SelectionVector of the batch (none: every row).
rowjit::Result<std::optional<rowjit::SelectionVector>> SelectionOf(const rowjit_selection* selection,
                                                                   int64_t batch_length) {
  if (selection == nullptr) return std::optional<rowjit::SelectionVector>();
  if (selection->length < 0) {
    return rowjit::MakeError(ErrorCode::kInvalidInput, "a selection of {} rows", selection->length);
  }
  if (selection->rows == nullptr && selection->length > 0) return Missing("selection rows");
  const std::span<const uint32_t> rows(selection->length > 0 ? selection->rows : nullptr,
                                       static_cast<size_t>(selection->length));
  ROWJIT_ASSIGN_OR_RETURN(rowjit::SelectionVector s, rowjit::SelectionVector::FromIndices(rows, batch_length));
  return std::optional<rowjit::SelectionVector>(std::move(s));
}

// The answer as a struct array: one child per result column, named as the query names them.
Status ExportResult(rowjit::ir::QueryResult result, ArrowArray* out, ArrowSchema* out_schema) {
  rowjit::Schema schema;
  for (size_t i = 0; i < result.columns.size(); ++i) {
    schema.fields.push_back({result.names[i], result.columns[i]->type()});
  }
  ROWJIT_ASSIGN_OR_RETURN(rowjit::RecordBatch batch,
                          rowjit::RecordBatch::Make(std::move(schema), std::move(result.columns)));
  return rowjit::ExportRecordBatch(batch, out, out_schema);
}

// Folds the batch (under the selection, if any) into `state`, after the checks every call over a
// batch makes.
Status Fold(rowjit_engine* engine, rowjit::ir::QueryState& state, const rowjit_batch* batch,
            const rowjit_selection* selection) {
  if (engine == nullptr) return Missing("engine");
  if (batch == nullptr) return Missing("batch");
  const rowjit::RecordBatch& b = batch->batch;
  ROWJIT_RETURN_NOT_OK(CheckBatch(state.query(), b));
  ROWJIT_ASSIGN_OR_RETURN(std::optional<rowjit::SelectionVector> rows, SelectionOf(selection, b.length));
  if (rows) return engine->engine->FoldQuery(state, b.columns, b.length, *rows);
  return engine->engine->FoldQuery(state, b.columns, b.length);
}

// Whether two states' queries are one query: the same text over the same types (the text alone
// does not show a column's type, and accumulators of different types do not add).
bool SameQuery(const rowjit::ir::Query& a, const rowjit::ir::Query& b) {
  if (&a == &b) return true;
  if (a.hash() != b.hash() || a.ToString() != b.ToString() || a.keys.size() != b.keys.size() ||
      a.aggregates.size() != b.aggregates.size()) {
    return false;
  }
  for (size_t k = 0; k < a.keys.size(); ++k) {
    if (!a.keys[k]->type().SameType(b.keys[k]->type())) return false;
  }
  for (size_t i = 0; i < a.aggregates.size(); ++i) {
    const rowjit::ir::QueryAggregate &x = a.aggregates[i], &y = b.aggregates[i];
    if (!x.result.SameType(y.result) || (x.fold.arg && y.fold.arg && !x.fold.arg->type().SameType(y.fold.arg->type()))) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" {

rowjit_status rowjit_query_parse(rowjit_engine* engine, const char* text, const struct ArrowSchema* schema,
                                 rowjit_query** out, rowjit_error* error) {
  About about;
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (engine == nullptr) return Missing("engine");
    if (text == nullptr) return Missing("query text");
    ROWJIT_ASSIGN_OR_RETURN(rowjit::Schema s, rowjit::ImportSchema(schema));
    about = text;  // from here on an error with a span is about the query's text
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::Query q, rowjit::ir::ParseAndBindQuery(text, s, engine->bind));
    auto query = std::make_unique<rowjit_query>();
    for (const rowjit::ir::ExprPtr& k : q.keys) {
      query->names.push_back(k->name());
      query->formats.push_back(rowjit::ArrowFormatOf(k->type()));
    }
    for (const rowjit::ir::QueryAggregate& a : q.aggregates) {
      query->names.push_back(a.text);
      query->formats.push_back(rowjit::ArrowFormatOf(a.result));
    }
    query->text = q.ToString();
    query->query = std::make_shared<const rowjit::ir::Query>(std::move(q));
    *out = query.release();
    return Status::OK();
  }, &about);
}

const char* rowjit_query_text(const rowjit_query* query) { return query != nullptr ? query->text.c_str() : ""; }
size_t rowjit_query_columns(const rowjit_query* query) { return query != nullptr ? query->names.size() : 0; }
size_t rowjit_query_keys(const rowjit_query* query) { return query != nullptr ? query->query->keys.size() : 0; }

const char* rowjit_query_column_name(const rowjit_query* query, size_t i) {
  return query != nullptr && i < query->names.size() ? query->names[i].c_str() : nullptr;
}

const char* rowjit_query_column_format(const rowjit_query* query, size_t i) {
  return query != nullptr && i < query->formats.size() ? query->formats[i].c_str() : nullptr;
}

void rowjit_query_free(rowjit_query* query) { delete query; }

rowjit_status rowjit_query_run(rowjit_engine* engine, const rowjit_query* query, const rowjit_batch* batch,
                               const rowjit_selection* selection, struct ArrowArray* out,
                               struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (query == nullptr) return Missing("query");
    if (out == nullptr || out_schema == nullptr) return Missing("output");
    rowjit::ir::QueryState state(query->query);
    ROWJIT_RETURN_NOT_OK(Fold(engine, state, batch, selection));
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::QueryResult result, state.Finish());
    return ExportResult(std::move(result), out, out_schema);
  });
}

rowjit_status rowjit_query_state_new(const rowjit_query* query, rowjit_query_state** out, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (query == nullptr) return Missing("query");
    *out = new rowjit_query_state{rowjit::ir::QueryState(query->query)};
    return Status::OK();
  });
}

rowjit_status rowjit_query_state_fold(rowjit_engine* engine, rowjit_query_state* state, const rowjit_batch* batch,
                                      const rowjit_selection* selection, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (state == nullptr) return Missing("state");
    return Fold(engine, state->state, batch, selection);
  });
}

rowjit_status rowjit_query_state_merge(rowjit_query_state* state, const rowjit_query_state* other,
                                       rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (state == nullptr) return Missing("state");
    if (other == nullptr) return Missing("other state");
    if (state == other) {
      return rowjit::MakeError(ErrorCode::kInvalidInput, "a state cannot be merged into itself (its rows would count twice)");
    }
    if (!SameQuery(state->state.query(), other->state.query())) {
      return rowjit::MakeError(ErrorCode::kInvalidInput, "cannot merge states of different queries ('{}' and '{}')",
                               state->state.query().ToString(), other->state.query().ToString());
    }
    return state->state.Merge(other->state);
  });
}

rowjit_status rowjit_query_state_serialize(const rowjit_query_state* state, uint8_t** bytes, size_t* length,
                                           rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (bytes == nullptr || length == nullptr) return Missing("bytes or length");
    *bytes = nullptr;
    *length = 0;
    if (state == nullptr) return Missing("state");
    return rowjit::capi::CopyOutBytes(state->state.Serialize(), bytes, length);
  });
}

rowjit_status rowjit_query_state_deserialize(const rowjit_query* query, const uint8_t* bytes, size_t length,
                                             rowjit_query_state** out, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (query == nullptr) return Missing("query");
    if (bytes == nullptr && length > 0) return Missing("bytes");
    const std::string_view view(reinterpret_cast<const char*>(bytes), bytes != nullptr ? length : 0);
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::QueryState state, rowjit::ir::QueryState::Deserialize(query->query, view));
    *out = new rowjit_query_state{std::move(state)};
    return Status::OK();
  });
}

int64_t rowjit_query_state_groups(const rowjit_query_state* state) {
  return state != nullptr ? state->state.groups() : 0;
}

rowjit_status rowjit_query_state_finish(const rowjit_query_state* state, struct ArrowArray* out,
                                        struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (state == nullptr) return Missing("state");
    if (out == nullptr || out_schema == nullptr) return Missing("output");
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::QueryResult result, state->state.Finish());
    return ExportResult(std::move(result), out, out_schema);
  });
}

void rowjit_query_state_free(rowjit_query_state* state) { delete state; }
void rowjit_bytes_free(void* bytes) { std::free(bytes); }

}  // extern "C"
