// The calling convention of generated kernels and the shape of one kernel (jit layer, base room:
// the lowest room, which every other reads; it holds this ABI, the targets, the host CPU and the
// one include of LLVM's headers). What the executor passes per input, and what the planner
// decides a kernel does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/aggregate.h"
#include "ir/spec_key.h"

namespace rowjit::jit {

// One input of a kernel, 32 bytes. Which fields are read depends on the input's shape in the
// specialization key.
struct KernelInput {
  const void* values = nullptr;   // flat values (row 0 first), dictionary values, bool bit
                                  // words at bit offset 0, or byte-bool bytes
  const void* codes = nullptr;    // dictionary codes (row 0 first)
  const uint64_t* valid = nullptr;// validity words at bit offset 0, whole words readable
  uint64_t scalar = 0;            // a constant's bits, or a dictionary's value count
};

// How a kernel walks its rows.
enum class KernelLoop : uint8_t {
  // 64-row words: validity and bool words loaded once per word, every lane tests a bit of a
  // loop-invariant word. Row kernels write bool results as bits; folds split each word into two
  // 32-lane halves and skip halves with no row to fold.
  kWords,
  // One loop over rows: no lane needs a bit of a word. Row kernels write bool results one byte
  // a row (the executor packs them); folds over inputs with nulls spread the validity words of a
  // block of rows to a byte mask on their stack and fold by it.
  kRows,
};

// What one kernel does, beyond its specialization key; decided by the planner (jit/plan/planner.h)
// and built as stated (the kernel builder never changes it).
struct KernelShape {
  KernelLoop loop = KernelLoop::kWords;
  bool writes_validity = false;   // computes the output validity row by row (null-aware
                                  // expressions); a failing call yields null in its row
  bool mask_evidence = false;     // evidence only from rows whose inputs are all non-null
  bool skip_empty_words = false;  // branch-and-skip: 64-row words with no valid row are skipped
  std::optional<ir::AggKind> fold = std::nullopt;  // a reduction template: what it folds
  bool fold_keep_nan = false;     // float min/max keep NaN in the totalOrder reduction
  bool fold_counts_rows = false;  // the fold kernel counts the rows it folds; otherwise the
                                  // executor counts a call without nulls (flat folds, except
                                  // NaN-skipping float min/max, where a value drops a row).
                                  // A column fold of NaN-skipping float min/max counts only
                                  // whether anything folded (all a min/max count is read for)
  // Row loops over outputs larger than the last-level cache: the values are written with
  // non-temporal (streaming) stores, which skip reading each output line before writing it. The
  // output must be 64-byte aligned (the kernel assumes it), and the kernel ends with a store
  // fence. x86-64 hosts only.
  bool stream_output = false;
  // A dense bool row kernel over 64-row words whose result implies a string length test
  // (jit/codegen/prefilter.h): each word tests the lengths in a vectorized lane loop, then runs the
  // whole expression only for the lanes that passed.
  bool length_prefilter = false;
  // A dense row loop (KernelLoop::kRows) for a batch of fewer than 64 rows: one loop over the rows
  // in place, its tail folded into masked vector operations where the target has them (a scalar
  // loop elsewhere), so that a short batch costs about one vector word and no padded copies of
  // its inputs (the whole-word kernel would run one padded word).
  bool short_batch = false;
  // A dense row loop whose checked 32-bit multiplies (SpeculatesMul) speculate: each is computed
  // wrapped and tested by its operands' range only (signed: both in [-2^15, 2^15); unsigned:
  // below 2^16), an OR of them a row, so that the kernel runs at the speed of the wrapping
  // multiply. Evidence then means "some operand was out of that range", not "a row failed": the
  // executor reruns the batch through the exact twin (the same key without this flag), compiled
  // when first needed, and sends the next batches straight to the twin for a while
  // (CompiledKernel::MarkWideOperands).
  bool speculative_mul = false;
  // A grouped fold (GroupedFoldFn) of a projection `project(mask, arg1, ..., argK)` into this many
  // group slots (1 to kMaxGroupedSlots; 0: not one): every row whose mask is true and whose code
  // a slot holds adds each integer argument into its slot's sum, in a few loops over
  // the call's rows. Dense inputs only (no validity read).
  int grouped_slots = 0;
  // A vector function's kernel (ir::IsVectorScore; jit/codegen/codegen_vectors.cc): a RowKernelFn
  // over `words` rows (any count; `tail_rows` unused), each row's score computed from its vector
  // arguments (a column's KernelInput::values: its first row's first element; a literal vector is
  // baked into the kernel) and written to `out_values`, one element a row. The rows' validity is
  // the caller's (no vector function is null-aware or fails).
  bool vector_score = false;
  bool operator==(const KernelShape&) const = default;
  bool reads_lane_validity() const { return writes_validity || mask_evidence || skip_empty_words; }
};

// The accumulator state a fold kernel reads and writes, lane by lane: kFoldLanes counts, then
// kFoldLanes of accumulator A, then kFoldLanes of accumulator B, each in a 64-bit slot (integers
// sign- or zero-extended, floats and total-order keys as their bits). Successive calls (whole
// words, then the padded last word; or blocks of rows) continue the same fold.
inline constexpr int kFoldLanes = 32;
// The meaning of the kernels' arguments and state, in the disk cache key: raised when it changes,
// so that no kernel cached under another meaning is loaded (the build ID already tells builds
// apart, but a binary may have none). 2: A of a 64-bit sum holds the sum modulo 2^64 (1: the sum
// of the low 32-bit halves). 3: a grouped fold reads GroupedCodes (2: a u32 slot a row).
inline constexpr int kKernelAbiVersion = 3;
struct FoldState {
  uint64_t count[kFoldLanes];
  uint64_t a[kFoldLanes];
  uint64_t b[kFoldLanes];
};

// Every kernel is one machine function of five arguments (pointer, pointer, pointer, i64, i64)
// returning nonzero when its OR-reduced failure evidence is nonzero. The arguments mean what
// the kernel's shape says; each kind has its own signature, so a call names its arguments:
//
// Row kernels over whole 64-row words only (a single inner loop of constant trip count, which
// keeps kernels small and fully vectorized): the executor runs a last partial word through 64-row
// scratch copies whose padding repeats the last row, so padding can neither fail nor read out of
// bounds. A kernel for a short batch (KernelShape::short_batch) is the other way round: one loop
// over `tail_rows` rows (fewer than 64; `words` is 0) in place, its tail folded into masked vector
// operations where the target has them. Other kernels ignore `tail_rows` (0). `out_values`:
// values (bool: words of bits, or a byte a row for KernelLoop::kRows); `out_valid`: validity
// words when the kernel writes validity. A projection's kernel (ir/projection.h) has one output
// per expression: `out_values` and `out_valid` are then arrays of those pointers, one per output
// in order.
using RowKernelFn = uint64_t (*)(const KernelInput* inputs, void* out_values, uint64_t* out_valid,
                                 int64_t words, int64_t tail_rows);
// The metadata name that marks a short batch's loop (for the gates: left scalar where the target
// cannot mask, and that is by design).
inline constexpr const char* kShortBatchLoop = "rowjit.short_batch";
// The metadata name that marks a loop over validity words whose per-word work (an AND of the
// inputs' words, a popcount, a store) is scalar by design: one iteration a 64-row word.
inline constexpr const char* kWordLoop = "rowjit.word_loop";
// The metadata name that marks a masked row fold's stack buffer of mask bytes (one a row, 0xff:
// fold), which jit/compile/mask_bits.cc replaces by bits where there are mask registers.
inline constexpr const char* kFoldMaskName = "rowjit.fold.mask";
// Word folds: whole words, and `last_word_mask` keeps the padding rows of a padded last word out
// of the fold.
using WordFoldFn = uint64_t (*)(const KernelInput* inputs, FoldState* state, void* unused,
                                int64_t words, uint64_t last_word_mask);
// Row folds (KernelLoop::kRows): `rows` rows, any count when no input has nulls. A kernel for
// inputs with nulls reads their validity words and takes whole words (`rows` a multiple of 64):
// `last_word_mask` is ANDed into every word (all ones, or the rows of a padded last word), and the
// kernel counts the rows it folds.
using RowFoldFn = uint64_t (*)(const KernelInput* inputs, FoldState* state, void* unused,
                               int64_t rows, uint64_t last_word_mask);
// Grouped folds (KernelShape::grouped_slots = S): rows [start, start + rows) of the inputs, at most
// kGroupedFoldRows of them. With S > 1, row start + i belongs to the group of code codes->rows[i],
// and slot s folds the rows of code codes->slot[s] (a code no slot holds: the row folds nowhere);
// one slot (a query without keys) reads no codes. The mask (the projection's first output) decides
// which rows fold. `sums` is written, never read:
//   sums[0 .. S)                     the rows the mask keeps, per slot; sums[0] also counts, times
//                                    2^32, the rows the mask keeps whose code no slot holds (not folded)
//   then per argument k (1..K), 3 * S values: A, B, C per slot
//     A: the sum of the argument's values (sign-extended to 64 bits) modulo 2^64
//     B: the sum of their high 32 bits (shifted as the type's signedness), when the type does not bound
//        kGroupedFoldRows values below 2^63 (GroupedNeedsHigh); 0 otherwise
//     C: the rows folded, when the argument can be null in a row the mask keeps; 0 otherwise (the
//        mask's count is then the argument's)
// A 16-byte argument folds its low half and reports evidence for a row (the mask's) whose value
// does not fit 64 bits; a failing row reports evidence only where the mask is true and a slot
// holds its code.
inline constexpr int kMaxGroupedSlots = 8;
struct GroupedCodes {
  const uint8_t* rows;                  // a code a row of the call
  uint8_t slot[kMaxGroupedSlots];       // each slot's code
};
using GroupedFoldFn = uint64_t (*)(const KernelInput* inputs, int64_t* sums, const GroupedCodes* codes,
                                   int64_t start, int64_t rows);
inline constexpr int64_t kGroupedFoldRows = 8192;
// Whether kGroupedFoldRows values of type `t` may sum past 2^63 in magnitude, so that a grouped
// fold also sums their high halves (B): 64-bit integers and 16-byte values (folded by their low
// half), and decimals of more than 15 digits (10^15 * 8192 < 2^63).
inline bool GroupedNeedsHigh(const DataType& t) {
  if (t.logical == LogicalKind::kDecimal) return t.precision > 15;
  return BitWidth(t.id) >= 64;
}
// The exact sum of at most 2^32 64-bit values from A, their sum modulo 2^64, and B, the sum of
// their high 32-bit halves (FoldState's sum64 slots, a grouped fold's A and B): the low halves'
// sum lies in [0, rows * 2^32), below 2^64, and is congruent to A - B * 2^32 modulo 2^64, so it is
// that difference, and the total is B * 2^32 plus it. `signed_high`: B summed arithmetic shifts.
inline __int128 ExactSumOfHalves(uint64_t a, uint64_t b, bool signed_high) {
  const __int128 high = signed_high ? static_cast<__int128>(static_cast<int64_t>(b)) : static_cast<__int128>(b);
  const uint64_t low = a - (b << 32);
  return static_cast<__int128>(low) + high * (static_cast<__int128>(1) << 32);
}
// Rows a masked row fold spreads to a byte mask at a time (on its stack) before folding them.
inline constexpr int kRowFoldBlock = 1024;

// What one compiled kernel is: its specialization and its shape. The kernel cache's key.
struct CacheKey {
  ir::SpecializationKey spec;
  KernelShape shape;
  bool operator==(const CacheKey& o) const { return shape == o.shape && spec == o.spec; }
  std::string ToString() const;  // the specialization, then the shape where it is not plain
  // Every field that decides the kernel's code, as text: the disk cache's key. Unlike ToString
  // it names each column's index and bound type (two schemas that order the same names
  // differently give different kernels) and every shape flag.
  std::string Serialize() const;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const;
};

}  // namespace rowjit::jit
