// Test support: expressions the binder must refuse, each with its error code and a fragment of
// its message (tests).
#pragma once

#include <span>

#include "runtime/array.h"
#include "runtime/status.h"

namespace rowjit::test {

struct Refusal {
  const char* text;
  ErrorCode code;
  const char* fragment;
};

// Binds each over `schema`; a failure names the text, and the bound form when it bound.
void ExpectRefused(const Schema& schema, std::span<const Refusal> refused);

}  // namespace rowjit::test
