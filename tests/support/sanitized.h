// Whether the tests run under a sanitizer (tests): sizes that only make a test slower there (long
// expressions compiled in many stages) are cut, never the cases a test covers.
#pragma once

namespace rowjit::testing {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)  // GCC
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)  // Clang
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace rowjit::testing
