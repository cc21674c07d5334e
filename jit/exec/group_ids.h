// Group slots of a batch (jit layer, exec room): one dense slot per row from a query's GROUP BY
// columns, so that grouped folds index accumulator tables by it.
#pragma once

#include <span>
#include <vector>

#include "runtime/array.h"

namespace rowjit::jit::internal {

struct GroupSlots {
  std::vector<uint32_t> slot;       // per row
  int64_t slots = 1;                // table entries: every slot < slots
  std::vector<int64_t> first_row;   // per slot, a row of it (-1: no row), whose keys are the slot's
};

// Rows with equal keys (nulls equal, -0.0 equal to 0.0, every NaN equal) share a slot, and rows
// with different keys do not. Small domains map directly (bools, 8- and 16-bit integers,
// dictionary codes, integers whose batch range is at most 2^16), so a slot is a key code with no
// lookup; other keys are numbered through a hash table. A slot space past 2^16 entries and the
// batch length is renumbered densely, and so are slot spaces with codes no row has. No keys:
// every row is slot 0.
Result<GroupSlots> ComputeGroupSlots(std::span<const ArrayPtr> keys, int64_t length);

}  // namespace rowjit::jit::internal
