// Errors, Status and Result<T>: how every public rowjit API reports failure (runtime layer).
// The public API never throws; it returns a Status or a Result holding a value or an Error.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace rowjit {

enum class ErrorCode : uint8_t {
  kInvalidInput,
  kTypeError,
  kOverflow,
  kDivisionByZero,
  kUnsupported,
  kOutOfMemory,  // an allocation failed, or would pass a configured limit
  kIoError,      // a file could not be read or written
  kInternal,
};

std::string_view ErrorCodeName(ErrorCode code);

// Where in a text an error is: `length` bytes from byte `offset` (0-based). A zero length marks
// a point, such as the end of the text where more was expected.
struct SourceSpan {
  size_t offset = 0;
  size_t length = 0;
  bool operator==(const SourceSpan&) const = default;
};

// One error: a code, a message, for row errors the function name and the first failing row, and
// for errors about a text (an expression, a schema, a type name) the span of the text it is
// about. The span is the caller's to show (FormatError); ToString() does not print it.
class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::optional<int64_t>& row() const { return row_; }
  const std::string& function() const { return function_; }
  const std::optional<SourceSpan>& span() const { return span_; }

  Error&& WithRow(std::string function, int64_t row) && {
    function_ = std::move(function);
    row_ = row;
    return std::move(*this);
  }
  // This error about the text at `span`.
  Error&& WithSpan(SourceSpan span) && {
    span_ = span;
    return std::move(*this);
  }
  // A span found in a part of a text, moved to the whole text, where the part starts at `offset`
  // (a schema's field, a type name in an expression); no span stays none.
  Error&& ShiftSpan(size_t offset) && {
    if (span_) span_->offset += offset;
    return std::move(*this);
  }

  // "overflow: checked_mul at row 17: ..." — stable enough to match in tests.
  std::string ToString() const;

  bool operator==(const Error&) const = default;

 private:
  ErrorCode code_;
  std::string message_;
  std::string function_;
  std::optional<int64_t> row_;
  std::optional<SourceSpan> span_;
};

// The error as ToString() writes it and, when it has a span inside `text` (the text it was
// made from: the expression, or the schema), that line of the text under it with a caret and
// tildes under the span:
//   type error: add(i32, utf8): expects numeric arguments
//     a + s
//     ^~~~~
// Columns count UTF-8 characters; tabs and control characters show as spaces; a long line is
// cut around the span with "...". Without a span, or with one outside `text`: ToString().
std::string FormatError(std::string_view text, const Error& error);

template <typename... Args>
Error MakeError(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  return Error(code, fmt::format(format, std::forward<Args>(args)...));
}

namespace internal {
// Prints `what` and aborts: a Result read the wrong way (a programmer error, never bad input).
[[noreturn]] void DieOnBadAccess(std::string_view what);
}  // namespace internal

// Success, or one Error. Cheap to return when OK (a null pointer).
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::make_unique<Error>(std::move(error))) {}  // NOLINT
  Status(const Status& other)
      : error_(other.error_ ? std::make_unique<Error>(*other.error_) : nullptr) {}
  Status& operator=(const Status& other) {
    error_ = other.error_ ? std::make_unique<Error>(*other.error_) : nullptr;
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  bool ok() const { return error_ == nullptr; }
  const Error& error() const {
    if (ok()) internal::DieOnBadAccess("error() on an OK Status");
    return *error_;
  }
  Error&& TakeError() && {
    if (ok()) internal::DieOnBadAccess("TakeError() on an OK Status");
    return std::move(*error_);
  }
  std::string ToString() const { return ok() ? "OK" : error_->ToString(); }
  const Status& status() const { return *this; }  // lets ROWJIT_RETURN_NOT_OK take both kinds

 private:
  std::unique_ptr<Error> error_;
};

// A value or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}  // NOLINT
  Result(Error error) : storage_(std::move(error)) {}  // NOLINT
  Result(Status status) : storage_(std::move(status).TakeError()) {}  // NOLINT: must not be OK
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U, T> &&
                                                    !std::is_same_v<std::decay_t<U>, T>>>
  Result(U&& value) : storage_(T(std::forward<U>(value))) {}  // NOLINT

  // Result<Derived*> → Result<Base*> and similar conversions.
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U, T> &&
                                                    !std::is_same_v<U, T>>>
  Result(Result<U> other)  // NOLINT
      : storage_(other.ok() ? std::variant<T, Error>(T(std::move(other).value()))
                            : std::variant<T, Error>(std::move(other).TakeError())) {}

  bool ok() const { return storage_.index() == 0; }
  const Error& error() const {
    if (ok()) internal::DieOnBadAccess("error() on a Result that holds a value");
    return *std::get_if<1>(&storage_);
  }
  Status status() const { return ok() ? Status() : Status(error()); }

  // The value; only after ok() says there is one. Asking an error for its value is a
  // programmer error: it stops the process with the error's text (never an exception through an
  // API that promises not to throw).
  const T& value() const& { return *CheckedValue(); }
  T& value() & { return *CheckedValue(); }
  T&& value() && { return std::move(*CheckedValue()); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  Error&& TakeError() && {
    if (ok()) internal::DieOnBadAccess("TakeError() on a Result that holds a value");
    return std::move(*std::get_if<1>(&storage_));
  }

 private:
  T* CheckedValue() {
    if (!ok()) internal::DieOnBadAccess(std::get_if<1>(&storage_)->ToString());
    return std::get_if<0>(&storage_);
  }
  const T* CheckedValue() const { return const_cast<Result*>(this)->CheckedValue(); }

  std::variant<T, Error> storage_;
};

// Runs `fn` (returning a Result or a Status) so that nothing is thrown past it: an allocation
// failure anywhere inside (a std::vector, a string) becomes an out-of-memory error, any other
// exception an internal error. Wraps the public entry points, which promise not to throw.
template <typename Fn>
auto NoThrow(Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Error(ErrorCode::kOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    return Error(ErrorCode::kInternal, std::string("unexpected exception: ") + e.what());
  } catch (...) {
    return Error(ErrorCode::kInternal, "unexpected exception");
  }
}

#define ROWJIT_CONCAT_INNER(a, b) a##b
#define ROWJIT_CONCAT(a, b) ROWJIT_CONCAT_INNER(a, b)

#define ROWJIT_RETURN_NOT_OK(expr)                          \
  do {                                                      \
    auto&& _rowjit_status = (expr);                         \
    if (!_rowjit_status.ok()) return _rowjit_status.status(); \
  } while (false)

#define ROWJIT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                 \
  if (!tmp.ok()) return std::move(tmp).TakeError();   \
  lhs = std::move(tmp).value()

#define ROWJIT_ASSIGN_OR_RETURN(lhs, rexpr) \
  ROWJIT_ASSIGN_OR_RETURN_IMPL(ROWJIT_CONCAT(_rowjit_result_, __LINE__), lhs, rexpr)

}  // namespace rowjit
