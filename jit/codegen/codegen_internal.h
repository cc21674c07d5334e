// Kernel code generation (jit layer, codegen room, internal). The codegen room, above base and
// under compile, builds a kernel's LLVM IR from its CacheKey: the kernel builder, row and fold
// loops, one lowering per catalog function, string helpers. This header: the values a lowering
// sees and produces, the context it emits into, and the per-family lowering lists.
#pragma once

#include <map>
#include <span>
#include <string_view>

#include "ir/expr.h"
#include "ir/function.h"
#include "ir/spec_key.h"
#include "jit/base/kernel_abi.h"
#include "jit/base/llvm_internal.h"

namespace rowjit::jit::internal {

// One row's value during codegen: `v` is i1 for bool, iN for integers, float/double for floats,
// and for strings a {ptr, i64} pair (the bytes and their length); `valid` is an i1, or nullptr
// when the value is always valid.
struct Val {
  llvm::Value* v = nullptr;
  llvm::Value* valid = nullptr;
  // Set by a checked narrow integer operation when asked (LowerContext::wide_wanted): its exact
  // result at twice the width, equal to `v` whenever the row does not fail.
  llvm::Value* wide = nullptr;
  // A string read from a 16-byte view (Arrow's view layout): the view's address, for lowerings
  // that compare its length and inline bytes or prefix in registers.
  llvm::Value* view = nullptr;
  // A 16-byte input (decimal128): `v` holds its low 64 bits and this its high 64 bits (i64).
  llvm::Value* high = nullptr;
};

llvm::Type* LlvmType(llvm::LLVMContext& ctx, TypeId id);
// A string value as `{ptr, i64}` pointing at a private constant copy of `bytes`.
llvm::Constant* StringConstant(llvm::Module& m, std::string_view bytes);

// What a lowering emits into. Lowerings of strict functions compute only `v`; the kernel builder
// sets validity. Null-aware lowerings compute both.
class LowerContext {
 public:
  LowerContext(llvm::IRBuilder<>& b, const ir::Expr& call) : b(b), call(call) {}
  virtual ~LowerContext() = default;

  llvm::IRBuilder<>& b;
  const ir::Expr& call;

  // The call's consumer folds its exact value (a sum over a checked product): a lowering may
  // return Val::wide and pick the evidence form that shares the widened result.
  bool wide_wanted = false;

  TypeId arg_type(size_t i) const { return call.args()[i]->type().id; }
  TypeId result_type() const { return call.type().id; }
  llvm::Type* Ty(TypeId id) const { return LlvmType(b.getContext(), id); }
  llvm::Module& module() const { return *b.GetInsertBlock()->getModule(); }

  // Failure evidence of this row: an integer whose width is the element's, nonzero iff the row
  // fails. It is OR-reduced in a loop-local accumulator of that width, never stored per row.
  virtual void Evidence(llvm::Value* evidence) = 0;

  // Row loops that recheck or speculate (jit/codegen/codegen_rows.cc) let a costly checked multiply
  // (64-bit and unsigned 8-bit: RechecksMul; 32-bit: SpeculatesMul) report cheap, conservative
  // evidence: `Suspect` takes a value whose high half is nonzero where the row *may* fail
  // (OR-accumulated, so an OR of operands will do). A rechecking loop reruns the rows of any
  // block with a suspect row through the exact lowering; a speculative kernel reports them as
  // evidence, which the executor answers with the exact twin. `TakesSuspects(w)`: whether the loop
  // being emitted accumulates suspects of width w.
  virtual bool TakesSuspects(unsigned /*width*/) const { return false; }
  virtual void Suspect(llvm::Value* suspect) { Evidence(suspect); }

  // The SQL order of floats (NaN greatest, NaN = NaN, -0.0 = 0.0) and of integers and bools.
  llvm::Value* Less(llvm::Value* x, llvm::Value* y, TypeId t);
  llvm::Value* Equal(llvm::Value* x, llvm::Value* y, TypeId t);
  // Kleene and/or of two nullable bools.
  Val KleeneAnd(const Val& a, const Val& b);
  Val KleeneOr(const Val& a, const Val& b);
  llvm::Value* And(llvm::Value* a, llvm::Value* b);  // of validities (nullptr = true)
  llvm::Value* Or(llvm::Value* a, llvm::Value* b);
};

// The order of strings (bytewise, unsigned; a prefix first), through the compare helper.
llvm::Value* StringLess(LowerContext& c, llvm::Value* x, llvm::Value* y);
llvm::Value* StringEqual(LowerContext& c, llvm::Value* x, llvm::Value* y);
// PostgreSQL's order of intervals of one type (a month 30 days; jit/codegen/lower/temporal.cc).
llvm::Value* IntervalLess(llvm::IRBuilder<>& b, IntervalUnit unit, const Val& x, const Val& y);

using LowerFn = Val (*)(LowerContext& ctx, std::span<const Val> args);

// One entry of a family's lowering list: the canonical name of the function it lowers (resolved
// once to the function's descriptor; codegen finds a call's lowering by its descriptor) and the
// lowering.
struct Lowering {
  std::string_view function;
  LowerFn lower;
};

std::span<const Lowering> ArithmeticLowerings();  // arithmetic and bitwise
std::span<const Lowering> LogicLowerings();       // comparison, boolean, null-aware
std::span<const Lowering> CastFloatLowerings();   // casts and float functions
std::span<const Lowering> MathLowerings();        // exp, ln, power, ... (jit/codegen/lower/math.cc)
std::span<const Lowering> StringLowerings();      // string functions (jit/codegen/lower/string.cc)
std::span<const Lowering> TemporalLowerings();    // dates and timestamps (jit/codegen/lower/temporal.cc)
// String comparisons, specialized on a literal operand (jit/codegen/lower/string.cc).
Val LowerStringCompare(LowerContext& c, std::span<const Val> a, int op);
// Whether the string `s` is one of `set` (sorted bytewise, without repeats): a few compared in
// turn, more by a binary search in a helper over a constant table (jit/codegen/lower/string.cc).
llvm::Value* StringInSet(LowerContext& c, const Val& s, std::span<const Scalar> set);
// A cast from or to a string (jit/codegen/lower/string.cc): a parse, a UTF-8 check, or the same bytes.
Val LowerStringCast(LowerContext& c, std::span<const Val> a);
// A row's text (a string Val) parsed by a helper (jit/codegen/string_helpers.h) called with
// (bytes, length, code, slot): the helper's answer of type `answer`, and the `words` i64 words it
// wrote into the slot (one slot in the kernel's entry block, reused by every row).
struct ParsedText {
  llvm::Value* answer;
  std::vector<llvm::Value*> words;
};
ParsedText ParseByHelper(LowerContext& c, const Val& text, std::string_view helper, llvm::Type* answer, int32_t code,
                         int words);

std::span<const Lowering> DecimalLowerings();     // decimals (jit/codegen/lower/decimal.cc)

// Marks the kernel being built as heavy with arithmetic a row (float math, the civil calendar): it
// runs at the host's widest vectors (jit/base/target.h kWideMathAttribute; jit/codegen/lower/math.cc).
void AskWideVectors(LowerContext& c);

// 64-bit arithmetic that vectorizes on x86 without AVX-512 (jit/codegen/lower/temporal.cc).
// Where the target converts i64 lanes to and from f64 in one instruction (x86's AVX-512DQ
// vcvtqq2pd and vcvttpd2qq: TargetSpec::quad_conversions), EmitKernel marks the module with
// kQuadConversionsFlag and these helpers emit the plain conversions; elsewhere LLVM would
// convert lane by lane, so they build the value from 32-bit halves.
inline constexpr const char* kQuadConversionsFlag = "rowjit-quad-conversions";
bool QuadConversions(llvm::IRBuilder<>& b);
// An i64 (or vector of i64) as double, correctly rounded.
llvm::Value* I64ToF64(llvm::IRBuilder<>& b, llvm::Value* x);
// An integral double below 2^63 in magnitude as i64.
llvm::Value* IntegralF64ToI64(llvm::IRBuilder<>& b, llvm::Value* f);
// Floor division by a positive constant, with its remainder in [0, d): FloorDivMod for
// quotients below 2^50 in magnitude (or i32 x), FloorDivModWide for every i64.
struct DivMod {
  llvm::Value* q;
  llvm::Value* r;
};
DivMod FloorDivMod(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d);
DivMod FloorDivModWide(llvm::IRBuilder<>& b, llvm::Value* x, int64_t d);

// 128-bit two's complement integers as their i64 halves (jit/codegen/int128.cc): decimal128 values.
// `<N x i128>` is split into scalar code, so kernels never hold an i128: every operation here
// is on 64-bit lanes, multiplies on 32-bit limbs (one vpmuludq each on x86).
struct Int128 {
  llvm::Value* lo;
  llvm::Value* hi;
};
// A value of storage `t` (an integer, or 16 bytes: v and high) as 128 bits.
Int128 Widen128(llvm::IRBuilder<>& b, const Val& v, TypeId t);
Int128 Const128(llvm::IRBuilder<>& b, __int128 v);
Int128 Add128(llvm::IRBuilder<>& b, Int128 x, Int128 y);
Int128 Sub128(llvm::IRBuilder<>& b, Int128 x, Int128 y);
Int128 Neg128(llvm::IRBuilder<>& b, Int128 x);
// |x| as an unsigned 128-bit value (the 16-byte minimum's is 2^127).
Int128 Magnitude128(llvm::IRBuilder<>& b, Int128 x);
Int128 Select128(llvm::IRBuilder<>& b, llvm::Value* c, Int128 x, Int128 y);
// Whether x + y (x - y) wrapped past the signed range, given the wrapped result r.
llvm::Value* AddWrapped128(llvm::IRBuilder<>& b, Int128 x, Int128 y, Int128 r);
llvm::Value* SubWrapped128(llvm::IRBuilder<>& b, Int128 x, Int128 y, Int128 r);
llvm::Value* Less128(llvm::IRBuilder<>& b, Int128 x, Int128 y);  // signed
llvm::Value* Equal128(llvm::IRBuilder<>& b, Int128 x, Int128 y);
// |x| >= limit, for 0 < limit < 2^127.
llvm::Value* OutOf128(llvm::IRBuilder<>& b, Int128 x, __int128 limit);
// x * k modulo 2^128 (signed or not: the same bits).
Int128 MulLow128(llvm::IRBuilder<>& b, Int128 x, __int128 k);
// The unsigned product of two i64 as 128 bits.
Int128 MulWide64(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y);
// x / 10^k rounded half away from zero, for 0 < k <= 38 (long division by 32-bit limbs).
Int128 RoundDivPow10(llvm::IRBuilder<>& b, Int128 x, int k);
// x as a double, correctly rounded; an integral double below 2^127 in magnitude as 128 bits.
llvm::Value* I128ToF64(llvm::IRBuilder<>& b, Int128 x);
Int128 IntegralF64ToI128(llvm::IRBuilder<>& b, llvm::Value* f);

// The lowering of a registered function (jit/codegen/lowerings.h for the LLVM-free queries).
LowerFn LoweringFor(const ir::Function& f);

// Emits the kernel `key` names into `module` as a function named `name`, with the signature
// of its kind (jit/base/kernel_abi.h): a row kernel, or a word or row fold.
struct CodegenFeatures {
  bool mask_registers = false;    // 64-bit mask registers (TargetSpec::mask_registers)
  bool byte_dots = false;         // vectors multiply-add bytes (AVX512-VNNI vpdpbusd, with BW and VL)
  bool quad_conversions = false;  // i64 <-> f64 lanes in one instruction (QuadConversions)
};
Status EmitKernel(const CacheKey& key, llvm::Module& module, const std::string& name, const CodegenFeatures& features);
// A vector function's kernel (KernelShape::vector_score; jit/codegen/codegen_vectors.cc).
Status EmitVectorKernel(const CacheKey& key, llvm::Module& module, const std::string& name, bool byte_dots);

}  // namespace rowjit::jit::internal
