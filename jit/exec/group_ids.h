// Group slots of a batch (jit layer, exec room): one dense slot per row from a query's GROUP BY
// columns, so that grouped folds index accumulator tables by it.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "runtime/array.h"

namespace rowjit::jit::internal {

// Batches without keys of up to this many rows share one array of zero slots (64 KiB, static)
// instead of filling one a call (bench: `duckdb/avg_f64/jit_chunks2048`).
inline constexpr int64_t kSharedZeroSlotRows = 16384;

struct GroupSlots {
  std::vector<uint32_t> slot;       // per row; empty where every row is slot 0 (ids() reads zeros)
  int64_t slots = 1;                // table entries: every slot < slots
  std::vector<int64_t> first_row;   // per slot, a row of it (-1: no row), whose keys are the slot's
  // Each row's slot.
  const uint32_t* ids() const {
    alignas(64) static const uint32_t kZeros[kSharedZeroSlotRows] = {};
    return slot.empty() ? kZeros : slot.data();
  }
};

// Rows with equal keys (nulls equal, -0.0 equal to 0.0, every NaN equal) share a slot, and rows
// with different keys do not. Small domains map directly (bools, 8- and 16-bit integers,
// dictionary codes, integers whose batch range is at most 2^16), so a slot is a key code with no
// lookup; other keys are numbered through a hash table. A slot space past 2^16 entries and the
// batch length is renumbered densely, and so are slot spaces with codes no row has. No keys:
// every row is slot 0.
Result<GroupSlots> ComputeGroupSlots(std::span<const ArrayPtr> keys, int64_t length);

// Group codes of a byte a row, written a block of rows at a time, for keys whose codes compose
// into at most kByteCodes values: integer columns whose batch range is that small and dictionary
// columns of that few values. Rows with equal keys share a code; rows with different keys do
// not, except through a dictionary holding one value twice (the caller merges by key).
class ByteGroupCoder {
 public:
  static constexpr int kByteCodes = 255;  // codes 0..254: 255 is no code
  // None when a key does not code so, or the keys' codes compose past kByteCodes.
  static std::optional<ByteGroupCoder> Make(std::span<const ArrayPtr> keys, int64_t length);
  // The codes of rows [start, start + n) into out[0, n).
  void Codes(int64_t start, int64_t n, uint8_t* out) const;

 private:
  struct Key {
    const Array* column;  // an integer column, or a dictionary's codes
    int64_t lo = 0;       // subtracted (integers: the batch minimum; dictionary codes: 0)
    uint32_t domain = 1;  // codes per key: values, then one for null where a row can be null
    uint32_t null_code = 0;
    bool dictionary = false;  // codes past the dictionary's values are nulls
  };
  std::vector<Key> keys_;
};

}  // namespace rowjit::jit::internal
