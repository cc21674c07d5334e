// The C API's shared machinery (capi layer, internal to capi/): the handles that more than one
// file of the API opens, and the boundary every entry point runs its body through (Guarded).
#pragma once

#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>

#include "capi/rowjit.h"
#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/array.h"
#include "runtime/status.h"

struct rowjit_engine {
  std::shared_ptr<rowjit::jit::Engine> engine;  // shared with the prepared handles made from it
  rowjit::ir::BindOptions bind;                  // the engine's limits, and implicit_casts
};

struct rowjit_batch {
  rowjit::RecordBatch batch;
};

namespace rowjit::capi {

// The text an error of a parse is about (its span is in it); none for the other errors, whose
// span, if any, is in no text the caller gave.
using About = std::optional<std::string_view>;

// Fills `error` (when not NULL) and returns the code.
rowjit_status Report(rowjit_error* error, rowjit_status code, const std::string& message, int64_t row = -1,
                     const std::string& function = "");
// The error, and when it is about `about` at a span inside it, the span and the message with the
// span's line under it (FormatError) if that fits the message field, else the first line alone.
rowjit_status Report(rowjit_error* error, const Error& e, const About& about);

// "`what` is null": the error of a missing argument.
Status Missing(const char* what);

// Serialized state as the caller's bytes (`*bytes`, `*length` of them, freed with rowjit_bytes_free).
Status CopyOutBytes(const std::string& serialized, uint8_t** bytes, size_t* length);

// Runs `body` (returning a Status), converting its error and any exception. `about`: where the
// body says what text its error is about (a parse's text, once the schema is read).
template <typename F>
rowjit_status Guarded(rowjit_error* error, F&& body, const About* about = nullptr) {
  try {
    Status s = body();
    if (s.ok()) {
      if (error != nullptr) Report(error, ROWJIT_OK, "");
      return ROWJIT_OK;
    }
    return Report(error, s.error(), about != nullptr ? *about : About());
  } catch (const std::bad_alloc&) {
    return Report(error, ROWJIT_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Report(error, ROWJIT_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Report(error, ROWJIT_INTERNAL, "internal error");
  }
}

}  // namespace rowjit::capi
