// The pieces of compilation shared by generated kernels and hand-written IR under inspection
// (jit layer, compile room, internal): target machines, target attributes, the pass pipelines,
// object emission, remark capture.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "jit/compile/compiler.h"
#include "jit/base/llvm_internal.h"
#include "jit/base/target.h"

namespace rowjit::jit::internal {

// A target machine for `target`; the fast tier's does no codegen optimization and selects
// instructions with FastISel.
Result<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const TargetSpec& target,
                                                               Tier tier = Tier::kOptimized);
// This thread's target machine for `target` and `tier`, made on first use and kept: making one
// builds the target's lowering tables, several milliseconds that every compile would otherwise
// pay twice (optimization and codegen). A target machine serves one module at a time, hence
// per thread.
Result<llvm::TargetMachine*> ThreadTargetMachine(const TargetSpec& target, Tier tier = Tier::kOptimized);
// Object code (or assembly text) for `m`.
Result<std::string> EmitMachineCode(llvm::Module& m, llvm::TargetMachine& tm, bool assembly);
// The optimization and code generation options every kernel object depends on, as text: part
// of the disk cache's key, so that a change of pipeline never reuses an old object.
std::string CodegenOptions();
// target-cpu, target-features and the preferred vector width, as every kernel gets them.
void SetTargetAttributes(llvm::Function& fn, const TargetSpec& target);
// Which optimization pipeline a kernel gets: the generic O3 one, or the short one built for row
// loops (jit/compile/pipeline.cc says what it holds and why).
enum class KernelPipeline : uint8_t { kGeneric, kRowLoop };
KernelPipeline PipelineFor(const KernelShape& shape);
// Optimizes `m` with the target machine's cost model, loop and SLP vectorization on. The pass
// builder and pipelines are made once per thread and target machine.
// A streaming kernel (KernelShape::stream_output), after optimization: every vector store into
// the output argument that is aligned to its own size becomes non-temporal. The loop vectorizer
// will not widen a non-temporal scalar store (its alignment is the element's), so the mark goes
// on the vector stores it made, which infer-alignment aligned from the output's 64 bytes.
void MarkStreamingStores(llvm::Module& m);
// After a row loop's optimization: where a vectorized loop multiplies i32 columns widened to
// i64 and every lane ends in an order-free reduction, pairs of widening loads become one
// full-width load whose even and odd halves `pmuldq` reads (x86 only; jit/compile/lane_order.cc).
// With mask registers, a masked row fold's mask bytes are paired too (even and odd rows).
void PairWideningProducts(llvm::Module& m, const llvm::TargetMachine& tm);
// Whether `tm` targets x86 with mask registers of 64 lanes and BMI2 (AVX-512BW hosts, x86-64-v4).
bool HasMaskRegisters(const llvm::TargetMachine& tm);
// After a row loop's optimization, on targets with mask registers: a masked row fold keeps its
// block's validity words (and their even and odd rows' bits, where its mask was paired) and loads
// its lanes' masks as bits of them, not as the bytes it spread them to (jit/compile/mask_bits.cc).
void LoadFoldMasksAsBits(llvm::Module& m, const llvm::TargetMachine& tm);
// After a row loop's optimization, in kernels marked with kPrefetchRowsAttribute: software
// prefetches of the vectorized loops' input streams (jit/compile/prefetch.cc).
void PrefetchInputStreams(llvm::Module& m);

void OptimizeModule(llvm::Module& m, llvm::TargetMachine& tm,
                    KernelPipeline pipeline = KernelPipeline::kGeneric);
// Captures loop-vectorize remarks (passed, missed, analysis) into `out`.
std::unique_ptr<llvm::DiagnosticHandler> MakeRemarkCollector(std::vector<Remark>* out);
// For kernels the JIT runs: optimization remarks are neither built nor printed.
std::unique_ptr<llvm::DiagnosticHandler> MakeQuietHandler();
std::string PrintModule(const llvm::Module& m);

}  // namespace rowjit::jit::internal
