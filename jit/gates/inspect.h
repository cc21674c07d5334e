// IR inspection (jit layer, gates room, public, LLVM-free): the shape of a kernel's optimized code,
// loop by loop — vectorized or not (from real <N x T> operations), widths, interleave, reductions,
// overflow intrinsics, i128 operations and calls — plus LLVM's loop-vectorize remarks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jit/compile/compiler.h"
#include "jit/base/target.h"

namespace rowjit::jit {

// One `llvm.vector.reduce.<op>` call, or an OR reduction written as a bitcast of a vector to
// one wide integer (what InstCombine makes of `reduce.or(v) != 0`).
struct ReductionInfo {
  std::string op;           // "or", "add", "umax", ...
  std::string vector_type;  // "<32 x i8>", "<vscale x 16 x i8>"
  std::string element;      // "i8"
  int element_bits = 0;     // 8 (0 for non-integers)
  bool feeds_return = false;  // part of the failure evidence the kernel returns
  std::string line;         // the instruction, as printed
};

struct LoopReport {
  std::string header;  // name of the loop's header block
  int depth = 1;       // 1 for a top-level loop
  // Vectorized: the loop's own blocks (not its subloops') hold vector loads, stores or
  // arithmetic — real <N x T> operations, not a `vector.body` label.
  bool vectorized = false;
  // A scalar loop the vectorizer left for the iterations a vector loop did not cover (marked
  // llvm.loop.isvectorized and entered from a vectorized loop).
  bool remainder = false;
  // A short batch's loop left scalar (KernelShape::short_batch, marked kShortBatchLoop, on a
  // target without masked operations); counted as a remainder.
  bool short_batch = false;
  // A loop over validity words left scalar (one iteration a 64-row word, marked kWordLoop: a
  // masked row fold's words kept for its mask registers, jit/compile/mask_bits.cc).
  bool word_loop = false;
  bool encloses_vectorized = false;  // a subloop is vectorized (the word loop around lane loops)
  // The row work became llvm.memcpy / memset / memmove of whole words (an identity or a
  // constant): as good as vector code.
  bool bulk_memory = false;
  std::vector<std::string> widths;   // lane counts of vector operations: "32", "vscale x 4"
  // Vector memory operations on one base pointer per iteration: the interleave count for a
  // vector loop; for a word loop into which a vectorized lane loop was unrolled, the copies
  // that cover one 64-row word.
  int interleave = 0;
  std::vector<std::string> element_types;  // of vector operations: "i8", "i64", "float"
  int vector_ops = 0;
  int vector_phis = 0;  // loop-carried vectors in the header: accumulators and inductions
  std::vector<ReductionInfo> reductions;     // in the loop's own blocks
  std::vector<std::string> overflow_intrinsics;  // `*.with.overflow` calls (scalar or vector)
  std::vector<std::string> i128_ops;   // instructions on i128 or <N x i128>
  std::vector<std::string> calls;      // calls other than vector intrinsics and markers
  std::vector<std::string> scalar_row_ops;  // scalar loads/stores of a scalar loop (a sample)
};

struct KernelReport {
  std::string function_name;
  std::vector<LoopReport> loops;  // in the order of their headers in the function
  std::vector<ReductionInfo> reductions;  // every reduction of the function
  bool returns_evidence = false;  // the returned failure evidence is not a constant
  // The kernel reads its third argument: for a fold kernel, the byte-a-row mask (KernelLoop::kRows)
  // that the executor unpacks from the validity bitmap.
  bool reads_row_mask = false;
  // The kernel spreads its rows' masks to a byte a row itself and loads 8 or more of them at once
  // (a masked row fold's stack buffer, marked kFoldMaskName): what jit/compile/mask_bits.cc replaces by
  // bits where there are mask registers. (Fewer than 8, at 256 bits over 64-bit values, cost a
  // load and a `vpmovb2m`: no more than the bits would, shifted out of their byte.)
  bool spreads_row_mask = false;
  // Values loaded inside a loop (not a remainder loop) that reach the returned evidence without
  // passing through a vector reduction: evidence accumulated row by row in scalars. Evidence
  // that is loop-invariant (division by a batch constant) reaches no such load; i64 loads
  // (validity and bool words, one per 64 rows) do not count.
  std::vector<std::string> scalar_evidence;
  std::string return_line;
  std::vector<Remark> remarks;    // loop-vectorize: passed, missed, analysis

  // The vectorized loop that does the row or lane work, or nullptr: of the deepest vectorized
  // loops, one that carries vectors (accumulators), then the one with the most vector operations
  // (a masked row fold spreads its mask bytes in a loop beside its row loop).
  const LoopReport* MainLoop() const;
};

// Inspects `function_name` in an optimized module given as IR text (what GenerateCode returns).
Result<KernelReport> InspectIr(std::string_view optimized_ir, std::string_view function_name);
// Inspects generated code: its optimized IR, and carries its remarks.
Result<KernelReport> InspectCode(const KernelCode& code);

// The stable lines of a function's vector shape, sorted and deduplicated, without value names:
// vector loads and stores ("load <32 x i8>"), vector intrinsics ("call
// @llvm.vector.reduce.or.v32i8"), overflow intrinsics, library calls and i128 operations. What the golden tests compare; arithmetic is left out, as it changes
// with every lowering tweak while widths, reductions and calls are the contract.
Result<std::vector<std::string>> ShapeLines(std::string_view optimized_ir,
                                            std::string_view function_name);

// Runs a hand-written module (IR text) through the same O3 pipeline, target attributes and
// remark capture as generated kernels: for tests that prove the gates reject bad code.
Result<KernelCode> OptimizeIr(std::string_view ir_text, std::string_view function_name,
                              const TargetSpec& target);

}  // namespace rowjit::jit
