// Checks shared by the array factories (runtime layer, internal).
#pragma once

#include <cstdint>

#include "runtime/status.h"
#include "runtime/validity.h"

namespace rowjit::internal {

// A non-negative offset and length whose sum leaves room for byte arithmetic.
Status CheckExtent(int64_t offset, int64_t length);
// A validity given for rows starting at the array's own first row must cover `length` rows; a
// non-nullable type must not have nulls.
Status CheckValidity(const Validity& validity, int64_t length, bool nullable);

}  // namespace rowjit::internal
