// Costly calls (jit layer, codegen room): the checked multiplies and trigonometric functions whose
// exact form costs a row loop more than their plain arithmetic, read from the descriptors'
// KernelCost. The planner picks a kernel's loop from this scan, and codegen builds that loop
// from the same scan, so the two never disagree.
#pragma once

#include <set>

#include "ir/expr.h"
#include "ir/function.h"
#include "jit/base/kernel_abi.h"

namespace rowjit::jit {

// Whether a checked integer multiply of type `t` takes operand-range suspects in a rechecking row
// loop: where its exact evidence costs well over the wrapping multiply. 64 bits: 32-bit limbs;
// unsigned 8: the 16-bit product of every lane (x86 has no byte multiply; the wrapping form is
// two pmaddubsw and a permute). Operands within half the width (signed: [-2^(w/2-1), 2^(w/2-1)))
// cannot overflow. 32 bits do not recheck in the kernel, whose second vectorized pass would
// double the cold compile of the commonest kernels (bench: `compile/ops3/cold`): they speculate
// instead (SpeculatesMul). 16 bits: a pmulhw beside the pmullw.
inline bool RechecksMul(TypeId t) {
  if (!IsInteger(t)) return false;
  const int w = BitWidth(t);
  return w == 64 || (w == 8 && !IsSignedInt(t));
}

// Whether a checked integer multiply of type `t` speculates in a speculative kernel
// (KernelShape::speculative_mul): 32 bits, whose exact evidence is two pmuldq and shuffles beside
// the pmulld.
inline bool SpeculatesMul(TypeId t) { return IsInteger(t) && BitWidth(t) == 32; }

// The costly checked multiplies of an expression: the widths its row loop rechecks in blocks
// (RechecksMul; a decimal product with an operand wider than 32 bits: 64), and whether one of
// them may speculate (SpeculatesMul). The planner speculates only without rechecked ones (a
// kernel takes one of the two loops); codegen builds the loop from the same scan.
//
// Trigonometric functions are costly the same way: their reduction of arguments of 2^20 π/2
// and more reads a table (gathers) in every row. A dense row loop computes them without it and
// reruns a block that has such an argument exactly (suspects of width 64: `trig`).
struct CostlyMuls {
  std::set<unsigned> rechecked;
  bool speculates = false;
  bool trig = false;
};
inline void ScanCostlyMuls(const ir::Expr& e, CostlyMuls& out) {
  if (!e.is_call()) return;
  const TypeId t = e.type().id;
  switch (e.function()->kernel_cost) {
    case ir::KernelCost::kPlain: break;
    case ir::KernelCost::kTrig: out.trig = true; break;
    case ir::KernelCost::kCheckedMultiply:
      if (RechecksMul(t)) out.rechecked.insert(static_cast<unsigned>(BitWidth(t)));
      out.speculates = out.speculates || SpeculatesMul(t);
      break;
    case ir::KernelCost::kDecimalMultiply:
      if (BitWidth(e.args()[0]->type().id) > 32 || BitWidth(e.args()[1]->type().id) > 32) out.rechecked.insert(64);
      break;
  }
  for (const ir::ExprPtr& a : e.args()) ScanCostlyMuls(*a, out);
}

// A fold of sum(x * y) over narrow integers sums the multiply's exact product at twice the
// element's width (one widening multiply, shared by the overflow test); its failure evidence is
// the product's bits beyond the element (signed: of the product biased by 2^(w-1)), OR-reduced at
// that width, where a compare of 64-bit lanes would cost AVX2 a pack to narrow them (bench:
// `fused/sum_i32_mul_scattered_100/jit` with ROWJIT_KERNEL_LEVEL=v3). The width, or 0 when the
// fold sums no such product.
inline int WideProductBits(const ir::Expr& e, const KernelShape& shape) {
  if (shape.fold != ir::AggKind::kSum || !e.is_call() || e.function()->kernel_cost != ir::KernelCost::kCheckedMultiply) {
    return 0;
  }
  const TypeId t = e.type().id;
  return IsInteger(t) && BitWidth(t) < 64 ? 2 * BitWidth(t) : 0;
}

}  // namespace rowjit::jit
