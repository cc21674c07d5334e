// Zip on runtime values (runtime layer): the validity of zip(mask, if_true, if_false) from the
// two sides' validities, through the kernels' bool zip.
#pragma once

#include <cstdint>

#include "kernels/bitmap.h"
#include "runtime/status.h"
#include "runtime/validity.h"

namespace rowjit {

// Row i is valid when the selected side's row i is. Both sides all-valid (or all-null) give that
// kind with no bitmap; anything else gives a fresh bitmap at offset 0. A null mask row must
// already read as false (SQL CASE semantics: it selects if_false). mask.length must be `length`.
Result<Validity> ZipValidity(kernels::BitSpan mask, const Validity& if_true,
                             const Validity& if_false, int64_t length);

}  // namespace rowjit
