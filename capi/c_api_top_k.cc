// C API: top-k selections and their states (capi/rowjit.h), over ir::TopK and ir::TopKState.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "capi/c_api_internal.h"
#include "capi/rowjit.h"
#include "ir/top_k.h"
#include "runtime/arrow_c.h"

struct rowjit_top_k {
  rowjit::ir::TopK top;
  std::string text;  // canonical
};

struct rowjit_top_k_state {
  const rowjit_top_k* top;
  rowjit::ir::TopKState state;
};

using rowjit::ErrorCode;
using rowjit::Status;
using rowjit::capi::About;
using rowjit::capi::Guarded;
using rowjit::capi::Missing;

namespace {

// Whether the batch fits the schema the selection was bound to: each column it reads is there, at
// its index, under its name (types are the engine's check).
Status CheckBatch(const rowjit::ir::TopK& top, const rowjit::RecordBatch& b) {
  for (const rowjit::ir::Expr* c : top.selected->facts().column_nodes) {
    const size_t i = static_cast<size_t>(c->column_index());
    if (i >= b.schema.fields.size() || b.schema.fields[i].name != c->name()) {
      return rowjit::MakeError(ErrorCode::kInvalidInput, "the batch does not hold column '{}' at index {} as the "
                                                         "selection was bound to it", c->name(), i);
    }
  }
  return Status::OK();
}

}  // namespace

extern "C" {

rowjit_status rowjit_top_k_parse(rowjit_engine* engine, const char* text, const struct ArrowSchema* schema,
                                 rowjit_top_k** out, rowjit_error* error) {
  About about;
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (engine == nullptr) return Missing("engine");
    if (text == nullptr) return Missing("selection text");
    ROWJIT_ASSIGN_OR_RETURN(rowjit::Schema s, rowjit::ImportSchema(schema));
    about = text;
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::TopK top, rowjit::ir::ParseAndBindTopK(text, s, {}, engine->bind));
    auto made = std::make_unique<rowjit_top_k>(rowjit_top_k{std::move(top), {}});
    made->text = made->top.ToString();
    *out = made.release();
    return Status::OK();
  }, &about);
}

const char* rowjit_top_k_text(const rowjit_top_k* top) { return top != nullptr ? top->text.c_str() : ""; }
void rowjit_top_k_free(rowjit_top_k* top) { delete top; }

rowjit_status rowjit_top_k_state_new(const rowjit_top_k* top, rowjit_top_k_state** out, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (top == nullptr) return Missing("selection");
    *out = new rowjit_top_k_state{top, rowjit::ir::TopKState(top->top)};
    return Status::OK();
  });
}

rowjit_status rowjit_top_k_state_fold(rowjit_engine* engine, rowjit_top_k_state* state, const rowjit_batch* batch,
                                      int64_t first_row, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (engine == nullptr) return Missing("engine");
    if (state == nullptr) return Missing("state");
    if (batch == nullptr) return Missing("batch");
    if (first_row < 0) return rowjit::MakeError(ErrorCode::kInvalidInput, "a batch's first row is {}", first_row);
    ROWJIT_RETURN_NOT_OK(CheckBatch(state->top->top, batch->batch));
    // Into a copy: an error leaves the state as it was.
    rowjit::ir::TopKState next = state->state;
    ROWJIT_RETURN_NOT_OK(engine->engine->TopK(state->top->top, batch->batch.columns, batch->batch.length, next, first_row));
    state->state = std::move(next);
    return Status::OK();
  });
}

rowjit_status rowjit_top_k_state_merge(rowjit_top_k_state* state, const rowjit_top_k_state* other, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (state == nullptr || other == nullptr) return Missing("state");
    if (state == other) {
      return rowjit::MakeError(ErrorCode::kInvalidInput, "a state cannot be merged into itself (its rows would count twice)");
    }
    return state->state.Merge(other->state);
  });
}

rowjit_status rowjit_top_k_state_serialize(const rowjit_top_k_state* state, uint8_t** bytes, size_t* length,
                                           rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (bytes == nullptr || length == nullptr) return Missing("bytes or length");
    *bytes = nullptr;
    *length = 0;
    if (state == nullptr) return Missing("state");
    return rowjit::capi::CopyOutBytes(state->state.Serialize(), bytes, length);
  });
}

rowjit_status rowjit_top_k_state_deserialize(const rowjit_top_k* top, const uint8_t* bytes, size_t length,
                                             rowjit_top_k_state** out, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return Missing("out");
    *out = nullptr;
    if (top == nullptr) return Missing("selection");
    if (bytes == nullptr && length > 0) return Missing("bytes");
    const std::string_view view(reinterpret_cast<const char*>(bytes), bytes != nullptr ? length : 0);
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::TopKState read, rowjit::ir::TopKState::Deserialize(view));
    rowjit::ir::TopKState empty(top->top);
    ROWJIT_RETURN_NOT_OK(empty.Merge(read));  // refuses another selection's state
    *out = new rowjit_top_k_state{top, std::move(empty)};
    return Status::OK();
  });
}

rowjit_status rowjit_top_k_state_finish(const rowjit_top_k_state* state, struct ArrowArray* out,
                                        struct ArrowSchema* out_schema, rowjit_error* error) {
  return Guarded(error, [&]() -> Status {
    if (state == nullptr) return Missing("state");
    if (out == nullptr || out_schema == nullptr) return Missing("output");
    ROWJIT_ASSIGN_OR_RETURN(rowjit::ir::TopKResult r, state->state.Finish());
    rowjit::Schema schema{{{"row", r.rows->type()}, {"score", r.scores->type()}}};
    ROWJIT_ASSIGN_OR_RETURN(rowjit::RecordBatch batch, rowjit::RecordBatch::Make(std::move(schema), {r.rows, r.scores}));
    return rowjit::ExportRecordBatch(batch, out, out_schema);
  });
}

void rowjit_top_k_state_free(rowjit_top_k_state* state) { delete state; }

}  // extern "C"
