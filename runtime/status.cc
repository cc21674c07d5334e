// Error formatting (runtime layer).
#include "runtime/status.h"

#include <algorithm>
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

namespace {

// A UTF-8 continuation byte (10xxxxxx): not a character of its own on screen.
bool Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Characters (not bytes) in `s`.
size_t Columns(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return !Continuation(c); }));
}

// `s` with tabs, line ends and other control bytes as spaces, so that the caret line below it
// lines up.
std::string Shown(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

// `s` from its character `from` on, at most `count` characters.
std::string_view Characters(std::string_view s, size_t from, size_t count) {
  size_t begin = 0, seen = 0;
  while (begin < s.size() && seen < from) {
    ++begin;
    while (begin < s.size() && Continuation(s[begin])) ++begin;
    ++seen;
  }
  size_t end = begin;
  for (seen = 0; end < s.size() && seen < count; ++seen) {
    ++end;
    while (end < s.size() && Continuation(s[end])) ++end;
  }
  return s.substr(begin, end - begin);
}

// Lines past this many characters are cut around the span.
constexpr size_t kShownColumns = 100;
constexpr size_t kContextColumns = 30;  // characters kept before a span in a cut line

}  // namespace

std::string FormatError(std::string_view text, const Error& error) {
  const std::string head = error.ToString();
  if (!error.span() || error.span()->offset > text.size()) return head;
  const size_t offset = error.span()->offset;
  // The line the span starts on; a span that goes on past it is underlined to the line's end.
  const size_t newline = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  const size_t line_end = std::min(text.find('\n', offset), text.size());
  const std::string_view line = text.substr(line_start, line_end - line_start);
  const size_t column = Columns(line.substr(0, offset - line_start));
  const size_t width = Columns(line.substr(offset - line_start, std::min(error.span()->length, line_end - offset)));
  // A long line: the span with some text before it, "..." where the line was cut.
  const size_t total = Columns(line);
  const size_t first = total > kShownColumns && column > kContextColumns ? column - kContextColumns : 0;
  const size_t shown = std::min(total - first, kShownColumns);
  const std::string before = first > 0 ? "..." : "";
  const std::string after = first + shown < total ? "..." : "";
  const std::string body = Shown(Characters(line, first, shown));
  const size_t caret = column - first + before.size();
  const size_t room = before.size() + Columns(body) - std::min(caret, before.size() + Columns(body));
  const size_t tildes = std::min(std::max<size_t>(width, 1), std::max<size_t>(room, 1)) - 1;
  return fmt::format("{}\n  {}{}{}\n  {}^{}", head, before, body, after, std::string(caret, ' '),
                     std::string(tildes, '~'));
}

namespace internal {

void DieOnBadAccess(std::string_view what) {
  std::fprintf(stderr, "rowjit: bad Result access: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

}  // namespace internal

}  // namespace rowjit
