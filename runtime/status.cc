// Error formatting (runtime layer).
#include "runtime/status.h"

#include <cstdio>
#include <cstdlib>

namespace rowjit {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput: return "invalid input";
    case ErrorCode::kTypeError: return "type error";
    case ErrorCode::kOverflow: return "overflow";
    case ErrorCode::kDivisionByZero: return "division by zero";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kOutOfMemory: return "out of memory";
    case ErrorCode::kIoError: return "i/o error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown error";
}

std::string Error::ToString() const {
  std::string out(ErrorCodeName(code_));
  if (!function_.empty()) out += fmt::format(": {}", function_);
  if (row_) out += fmt::format(" at row {}", *row_);
  if (!message_.empty()) out += fmt::format(": {}", message_);
  return out;
}

namespace internal {

void DieOnBadAccess(std::string_view what) {
  std::fprintf(stderr, "rowjit: bad Result access: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace internal

}  // namespace rowjit
