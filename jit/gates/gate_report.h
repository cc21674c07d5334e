// Printing gate results (jit layer, gates room, public, LLVM-free): the text and JSON that `rowjit
// check` and `rowjit explain` print, kept here so that tests read exactly what the CLI prints.
#pragma once

#include <string>

#include "jit/gates/gates.h"

namespace rowjit::jit {

// Per loop: vectorized or not, widths, interleave, element types, reductions; then each
// violation with its IR lines, and a last line "passed" / "failed (N violations)".
std::string FormatCheckText(const KernelCheck& check);
// The same as one JSON document.
std::string FormatCheckJson(const KernelCheck& check);
// LLVM's loop-vectorize remarks, one a line ("missed: loop not vectorized: ..."), after a
// line per loop saying whether it vectorized.
std::string FormatRemarksText(const KernelCheck& check);

// "  RULE: MESSAGE" (with "(excepted: REASON)" when listed) plus indented IR lines: one violation;
// the kernel it belongs to is printed once above its violations.
std::string FormatViolationText(const Violation& v);

// A JSON string literal.
std::string JsonString(std::string_view s);

}  // namespace rowjit::jit
