// Test support: assertions on a Status or Result that stop the test with the error's text,
// instead of dereferencing a failed Result (tests).
#pragma once

#include <gtest/gtest.h>

#include <utility>

#include "runtime/status.h"

// `expr` (a Status or a Result) is OK; otherwise the test stops, printing the error.
#define ASSERT_OK(expr)                                                                    \
  do {                                                                                     \
    const auto& _rowjit_assert_ok = (expr);                                                \
    ASSERT_TRUE(_rowjit_assert_ok.ok()) << #expr << ": " << _rowjit_assert_ok.status().ToString(); \
  } while (false)

#define ROWJIT_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, rexpr)              \
  auto tmp = (rexpr);                                                  \
  ASSERT_TRUE(tmp.ok()) << #rexpr << ": " << tmp.error().ToString();   \
  lhs = std::move(tmp).value()

// `lhs = *rexpr` once `rexpr` (a Result) is known to be OK; otherwise the test stops, printing the
// error. Only in functions returning void (a TEST body, or a helper called through
// ASSERT_NO_FATAL_FAILURE).
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ROWJIT_ASSERT_OK_AND_ASSIGN_IMPL(ROWJIT_CONCAT(_rowjit_assert_result_, __LINE__), lhs, rexpr)
