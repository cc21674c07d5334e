// Running a recursive pass on a stack sized for its depth (runtime layer). Expressions are trees
// whose depth the limits bound (ir/limits.h) but the caller's stack may not hold: a host thread
// may have a small stack, and a CASE of thousands of branches nests thousands deep. Passes over a
// deep tree run on a fresh thread whose stack holds the depth, and the caller waits; shallow
// trees run in place. The stack is reserved, not touched: pages are committed as it grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "runtime/status.h"

namespace rowjit {

// Trees at most this deep run on the caller's stack.
inline constexpr int64_t kShallowDepth = 256;
// Stack reserved per level of depth: the deepest pass, the parser, takes about 4.5 KiB a level
// in a Release build (seven frames from ParseOr down to ParsePrimary; -fstack-usage lists their
// sizes); AddressSanitizer's redzones make frames several times larger. Reserved, not committed.
#if defined(__SANITIZE_ADDRESS__)
#define ROWJIT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ROWJIT_ASAN 1
#endif
#endif
#ifdef ROWJIT_ASAN
inline constexpr size_t kStackPerLevel = 64 << 10;
#else
inline constexpr size_t kStackPerLevel = 8 << 10;
#endif
// The deepest tree a pass may take (ir::Limits keeps bound expressions far below): beyond it the
// pass is refused rather than given a stack of gigabytes.
inline constexpr int64_t kMaxStackLevels = 200'000;

namespace internal {
// Runs fn(arg) on a thread with a stack for `levels` levels and joins it; an out-of-memory error
// when the thread cannot be made.
Status RunOnThreadWithStack(int64_t levels, void (*fn)(void*), void* arg);
// The levels this thread's stack was made for: kShallowDepth on any thread rowjit did not make.
int64_t StackLevels();
}  // namespace internal

// Calls `fn()` (which returns a Result or a Status) in place when `depth` is shallow, otherwise
// on a stack that holds `depth` levels. Nothing is thrown across the thread boundary: rowjit's
// passes return errors, not exceptions.
template <typename Fn>
auto WithStackForDepth(int64_t depth, Fn&& fn) -> decltype(fn()) {
  using R = decltype(fn());
  if (depth <= internal::StackLevels()) return fn();  // shallow, or already on a deep stack
  if (depth > kMaxStackLevels) {
    return R(MakeError(ErrorCode::kInvalidInput, "expression nests {} levels deep; at most {} can be processed",
                       depth, kMaxStackLevels));
  }
  static_assert(std::is_constructible_v<R, Error>, "a deep pass returns a Result or a Status");
  struct Call {
    Fn* fn;
    std::optional<R> out;
  } call{&fn, std::nullopt};
  Status started = internal::RunOnThreadWithStack(
      depth,
      [](void* p) {
        auto* c = static_cast<Call*>(p);
        try {
          c->out.emplace((*c->fn)());
        } catch (...) {  // allocation failure inside the pass: no exception leaves the thread
          c->out.emplace(Error(ErrorCode::kOutOfMemory, "out of memory in a deep expression"));
        }
      },
      &call);
  if (!started.ok()) return R(std::move(started).TakeError());
  return std::move(*call.out);
}

}  // namespace rowjit
