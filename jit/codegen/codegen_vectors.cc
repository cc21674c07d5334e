// Vector kernels (jit layer, codegen room): one vector function's call (dot, l2_squared,
// l2_distance, cosine_similarity, cosine_distance) over a batch of fixed_size_list rows,
// specialized to the list size and element type and, for a literal vector, to its values (a
// constant array in the kernel; its squared norm a constant). KernelShape::vector_score.
//
// The rows are not lanes here: a row is a whole vector, so the kernel loops over rows and, within
// a row, over chunks of kVectorAccumulators elements held as one vector of accumulators, which is
// exactly the order of ir/vector_math.h (element j into accumulator j mod 32, then the pairwise
// tree); the last partial chunk is read element by element and added only into its own lanes (a
// select), so a lane it does not reach keeps its value bit for bit (-0.0 stays -0.0). Products and
// differences are separate instructions without fast-math flags: the same bits as the reference on
// every target, with or without FMA.
#include <bit>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "ir/vector_math.h"
#include "jit/base/target.h"
#include "jit/codegen/codegen_internal.h"

namespace rowjit::jit::internal {
namespace {

constexpr int kLanes = ir::kVectorAccumulators;

// What the kernel sums for its score: the dot product, the squared difference, and (cosine) the
// squares of each side.
struct Sums {
  bool dot = false;
  bool l2 = false;
  bool squares_a = false;
  bool squares_b = false;  // a literal `b`: a constant instead
};

class VectorKernel {
 public:
  VectorKernel(const CacheKey& key, llvm::Module& m, bool byte_dots)
      : key_(key), m_(m), ctx_(m.getContext()), b_(ctx_), byte_dots_(byte_dots) {}

  Status Build(const std::string& name) {
    const ir::Expr& call = *key_.spec.expr;
    if (call.args().size() != 2 || call.args()[0]->type().id != TypeId::kFixedList) {
      return MakeError(ErrorCode::kInternal, "a vector kernel of {}", call.ToString());
    }
    const DataType vt = call.args()[0]->type();
    elem_ = vt.elem;
    n_ = vt.list_size;
    integral_ = elem_ == TypeId::kI8;
    half_ = IsHalfWidthFloat(elem_);
    sum_ty_ = integral_ ? b_.getInt32Ty() : half_ ? b_.getFloatTy() : LlvmType(ctx_, elem_);
    score_ = ScoreOf(call);
    Sums sums;
    sums.dot = score_ == ir::VectorScore::kDot || Cosine();
    sums.l2 = score_ == ir::VectorScore::kL2Squared || score_ == ir::VectorScore::kL2Distance;
    sums.squares_a = Cosine();
    sums.squares_b = Cosine() && !call.args()[1]->is_literal();
    narrow_diff_ = integral_ && sums.l2;

    auto* fn_ty = llvm::FunctionType::get(
        b_.getInt64Ty(), {b_.getPtrTy(), b_.getPtrTy(), b_.getPtrTy(), b_.getInt64Ty(), b_.getInt64Ty()}, false);
    llvm::Function* fn = llvm::Function::Create(fn_ty, llvm::Function::ExternalLinkage, name, m_);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    // Half-width elements make the loop compute-bound (a conversion a chunk of each): at the host's
    // widest vectors it takes half the instructions (bench: `vectors/l2_distance_{f16,bf16}_768/jit`
    // against `vectors/read_floor_f16_768/static`); f32 and i8 rows run at the read floor as they are.
    if (half_) fn->addFnAttr(kWideMathAttribute);
    for (unsigned i = 0; i < 3; ++i) {
      fn->addParamAttr(i, llvm::Attribute::NoAlias);
      fn->addParamAttr(i, llvm::Attribute::NoCapture);
    }
    fn->addParamAttr(0, llvm::Attribute::ReadOnly);
    llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx_, "entry", fn);
    b_.SetInsertPoint(entry);
    llvm::Value* inputs = fn->getArg(0);
    llvm::Value* out = fn->getArg(1);
    llvm::Value* rows = fn->getArg(3);  // the third argument (validity) is unused: the caller's
    std::vector<llvm::Value*> base(2);
    for (size_t i = 0; i < 2; ++i) base[i] = Operand(*call.args()[i], inputs);
    const int64_t row_bytes = vt.ListRowBytes();

    // for (row = 0; row < rows; ++row)
    llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "row", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "done", fn);
    b_.CreateCondBr(b_.CreateICmpSGT(rows, b_.getInt64(0)), header, done);
    b_.SetInsertPoint(header);
    llvm::PHINode* row = b_.CreatePHI(b_.getInt64Ty(), 2, "row");
    row->addIncoming(b_.getInt64(0), entry);
    std::vector<llvm::Value*> at(2);
    for (size_t i = 0; i < 2; ++i) {
      at[i] = call.args()[i]->is_literal() ? base[i] : b_.CreateInBoundsGEP(b_.getInt8Ty(), base[i], b_.CreateMul(row, b_.getInt64(row_bytes)));
    }
    const std::vector<llvm::Value*> totals = RowSums(sums, at[0], at[1], *call.args()[1]);
    llvm::Value* score = Score(sums, totals, *call.args()[1]);
    b_.CreateStore(score, b_.CreateInBoundsGEP(LlvmType(ctx_, call.type().id), out, row));
    llvm::Value* next = b_.CreateAdd(row, b_.getInt64(1), "", true, true);
    row->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpSLT(next, rows), header, done);
    b_.SetInsertPoint(done);
    b_.CreateRet(b_.getInt64(0));
    return Status::OK();
  }

 private:
  bool Cosine() const {
    return score_ == ir::VectorScore::kCosineSimilarity || score_ == ir::VectorScore::kCosineDistance;
  }

  static ir::VectorScore ScoreOf(const ir::Expr& call) {
    return call.function()->vector_score.value_or(ir::VectorScore::kDot);
  }

  // A column's first element (KernelInput::values), or a literal's constant array.
  llvm::Value* Operand(const ir::Expr& arg, llvm::Value* inputs) {
    if (arg.is_literal()) {
      const std::string_view bytes = arg.value().str();
      if (half_) {
        // Half-width floats baked as the f32 values they are: a row's chunk then converts its
        // own elements only, half the conversions (bench: `vectors/l2_distance_f16_768/jit`).
        const std::vector<float> wide = WidenedLiteral(bytes);
        llvm::Constant* data = llvm::ConstantDataArray::get(ctx_, llvm::ArrayRef<float>(wide));
        wide_query_ = new llvm::GlobalVariable(m_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, "query");
        return wide_query_;
      }
      llvm::Constant* data = llvm::ConstantDataArray::getRaw(bytes, static_cast<uint64_t>(n_), LlvmType(ctx_, elem_));
      return new llvm::GlobalVariable(m_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, "query");
    }
    const uint64_t at = static_cast<uint64_t>(arg.column_index()) * sizeof(KernelInput) + offsetof(KernelInput, values);
    llvm::Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), inputs, at);
    return b_.CreateLoad(b_.getPtrTy(), slot);
  }

  llvm::VectorType* VecTy(llvm::Type* t) const { return llvm::FixedVectorType::get(t, kLanes); }

  // What a chunk's elements are computed in: floats as they are; i8 widened to i32 for products
  // of elements (which x86 turns into multiply-adds of words itself), and to i16 for squared
  // differences (-255..255: exact), each widened to i32 for its square: x86 then also squares in
  // words, where an i32 difference takes 32-bit multiplies (bench `vectors/l2_squared_i8_768/jit`
  // and `vectors/dot_i8_768/jit` against `vectors/read_floor_i8_768/static`).
  llvm::Type* LaneTy() const {
    if (!integral_) return sum_ty_;
    return narrow_diff_ ? llvm::Type::getInt16Ty(ctx_) : sum_ty_;
  }
  llvm::VectorType* AccTy() const { return VecTy(sum_ty_); }

  // kLanes elements from `p` (element offset `first`), widened to LaneTy.
  llvm::Value* LoadChunk(llvm::Value* p, llvm::Value* first) {
    if (p == wide_query_) {
      return b_.CreateAlignedLoad(VecTy(sum_ty_), b_.CreateInBoundsGEP(sum_ty_, p, first), llvm::Align(4));
    }
    llvm::Type* et = LlvmType(ctx_, elem_);
    llvm::Value* v = b_.CreateAlignedLoad(VecTy(et), b_.CreateInBoundsGEP(et, p, first), llvm::Align(ByteWidth(elem_)));
    if (half_) return Widened(v);
    return integral_ ? b_.CreateSExt(v, VecTy(LaneTy())) : v;
  }

  // Half-width floats (one or a vector of them) as the f32 values they are, exactly: a half
  // through its conversion, a bfloat16 as a float's upper 16 bits (its bits shifted up).
  llvm::Value* Widened(llvm::Value* v) {
    llvm::Type* wide = sum_ty_;
    if (auto* vt = llvm::dyn_cast<llvm::VectorType>(v->getType())) wide = llvm::VectorType::get(sum_ty_, vt->getElementCount());
    if (elem_ == TypeId::kF16) return b_.CreateFPExt(v, wide);
    llvm::Type* bits = wide->getWithNewType(b_.getInt32Ty());
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, bits), 16), wide);
  }

  // The last `count` (< kLanes) elements from element `first`, read one by one into lanes
  // [0, count) of a zero vector.
  llvm::Value* LoadTail(llvm::Value* p, int64_t first, int64_t count) {
    llvm::Type* et = LlvmType(ctx_, elem_);
    llvm::Value* v = llvm::Constant::getNullValue(VecTy(LaneTy()));
    for (int64_t k = 0; k < count && p == wide_query_; ++k) {
      llvm::Value* x = b_.CreateAlignedLoad(sum_ty_, b_.CreateConstInBoundsGEP1_64(sum_ty_, p, static_cast<uint64_t>(first + k)),
                                            llvm::Align(4));
      v = b_.CreateInsertElement(v, x, static_cast<uint64_t>(k));
    }
    for (int64_t k = 0; k < count && p != wide_query_; ++k) {
      llvm::Value* x = b_.CreateAlignedLoad(et, b_.CreateConstInBoundsGEP1_64(et, p, static_cast<uint64_t>(first + k)),
                                            llvm::Align(ByteWidth(elem_)));
      if (integral_) x = b_.CreateSExt(x, LaneTy());
      if (half_) x = Widened(x);
      v = b_.CreateInsertElement(v, x, static_cast<uint64_t>(k));
    }
    return v;
  }

  // The terms of one chunk added into the accumulators (in `sums` order: dot, l2, a², b²); the
  // lanes past a partial chunk keep their sums (`lanes`, floats: -0.0 + 0.0 would be +0.0).
  std::vector<llvm::Value*> Accumulate(const Sums& sums, std::vector<llvm::Value*> acc, llvm::Value* x, llvm::Value* y,
                                       llvm::Value* lanes) {
    std::vector<llvm::Value*> terms;
    auto product = [&](llvm::Value* p, llvm::Value* q) {
      if (!integral_) return b_.CreateFMul(p, q);
      if (narrow_diff_) {
        p = b_.CreateSExt(p, VecTy(sum_ty_));
        q = b_.CreateSExt(q, VecTy(sum_ty_));
      }
      return b_.CreateMul(p, q, "", false, true);
    };
    if (sums.dot) terms.push_back(product(x, y));
    if (sums.l2) {
      llvm::Value* d = integral_ ? b_.CreateSub(x, y, "", false, true) : b_.CreateFSub(x, y);
      terms.push_back(product(d, d));
    }
    if (sums.squares_a) terms.push_back(product(x, x));
    if (sums.squares_b) terms.push_back(product(y, y));
    for (size_t i = 0; i < acc.size(); ++i) {
      if (integral_) {
        acc[i] = b_.CreateAdd(acc[i], terms[i]);  // a lane past a partial chunk adds 0
      } else {
        llvm::Value* sum = b_.CreateFAdd(acc[i], terms[i]);
        acc[i] = lanes == nullptr ? sum : b_.CreateSelect(lanes, sum, acc[i]);
      }
    }
    return acc;
  }

  // How far ahead the byte blocks (ByteDotSums) prefetch the column they read. The hardware
  // prefetchers alone leave an i8 l2_squared a quarter slower than a plain read of the vectors;
  // 2 KiB ahead (about three rows of 768 bytes) brings it to that read's speed, where 1 and 4 KiB
  // fall short (bench `vectors/l2_squared_i8_768/jit` against `vectors/read_floor_i8_768/static`).
  // The f32 and half-width chunks, with more work a byte, gain nothing from it.
  static constexpr int64_t kPrefetchBytes = 2048;

  // Prefetches the cache lines of `bytes` bytes at p + offset (bytes), kPrefetchBytes ahead: a
  // hint, which never faults, and the plain GEP wraps rather than making poison past the end.
  // A byte block of 32 bytes prefetches each line twice; the second costs a load slot, which this
  // loop has to spare.
  void PrefetchAhead(llvm::Value* p, llvm::Value* offset, int64_t bytes) {
    llvm::Function* prefetch = llvm::Intrinsic::getDeclaration(&m_, llvm::Intrinsic::prefetch, {b_.getPtrTy()});
    for (int64_t line = 0; line < std::max<int64_t>(bytes, 1); line += 64) {
      llvm::Value* at = b_.CreateAdd(offset, b_.getInt64(kPrefetchBytes + line));
      b_.CreateCall(prefetch, {b_.CreateGEP(b_.getInt8Ty(), p, at), b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
    }
  }

  // Each sum of one row, in `sums` order, as a scalar of the sum type. i8 vectors on a target
  // that multiply-adds bytes: their whole 64-element blocks by ByteDotSums, the rest as below
  // (exact integer sums: any split and order gives the same ones).
  std::vector<llvm::Value*> RowSums(const Sums& sums, llvm::Value* a, llvm::Value* b, const ir::Expr& b_arg) {
    const int64_t blocks = integral_ && byte_dots_ ? n_ / kByteBlock : 0;
    if (blocks == 0) return RangeSums(sums, a, b, 0, n_);
    std::vector<llvm::Value*> head = ByteDotSums(sums, a, b, blocks, b_arg);
    if (blocks * kByteBlock == n_) return head;
    const std::vector<llvm::Value*> rest = RangeSums(sums, a, b, blocks * kByteBlock, n_ - blocks * kByteBlock);
    for (size_t i = 0; i < head.size(); ++i) head[i] = b_.CreateAdd(head[i], rest[i]);  // wrapping: exact
    return head;
  }

  // Bytes a block of ByteDotSums reads from each side: 256-bit registers, which every kernel's
  // width allows (a 512-bit intrinsic would have to be split, which LLVM cannot do for these).
  static constexpr int64_t kByteBlock = 32;

  // The sums of the first `blocks` * 32 elements of i8 vectors with x86's u8 × s8 multiply-add
  // (vpdpbusd: four byte products into each of 8 i32 lanes) and byte sums (vpsadbw). A signed x
  // read as the unsigned u = x ^ 0x80 is x + 128, so Σ u·y = Σ x·y + 128 Σy, Σ u·x = Σ x² + 128 Σx,
  // and Σ u = Σx + 128 m over m elements. Each sum is then exact in i32 (wrapping adds: the
  // final value fits, as the reference's does). Per 32 bytes of a: one xor, a multiply-add per
  // product sum, one byte sum, where the widening path takes eight instructions
  // (bench `vectors/l2_squared_i8_768/jit` against `vectors/read_floor_i8_768/static`).
  std::vector<llvm::Value*> ByteDotSums(const Sums& sums, llvm::Value* a, llvm::Value* b, int64_t blocks,
                                        const ir::Expr& b_arg) {
    llvm::Type* i32 = b_.getInt32Ty();
    llvm::Type* i64 = b_.getInt64Ty();
    auto* bytes_ty = llvm::FixedVectorType::get(b_.getInt8Ty(), kByteBlock);
    auto* words_ty = llvm::FixedVectorType::get(i32, kByteBlock / 4);
    auto* quads_ty = llvm::FixedVectorType::get(i64, kByteBlock / 8);
    llvm::FunctionCallee dpbusd = m_.getOrInsertFunction(
        "llvm.x86.avx512.vpdpbusd.256", llvm::FunctionType::get(words_ty, {words_ty, words_ty, words_ty}, false));
    llvm::FunctionCallee psadbw =
        m_.getOrInsertFunction("llvm.x86.avx2.psad.bw", llvm::FunctionType::get(quads_ty, {bytes_ty, bytes_ty}, false));
    const bool literal_b = b_arg.is_literal();
    const bool need_ux = sums.l2 || sums.squares_a;
    const bool need_uy = sums.dot || sums.l2;
    const bool need_vy = !literal_b && (sums.l2 || sums.squares_b);  // Σ v·y, v = y ^ 0x80
    const bool need_sy = !literal_b && (sums.dot || sums.l2 || sums.squares_b);
    // Accumulators: Σ u·x, Σ u·y, Σ v·y (i32 lanes), Σ u, Σ v (i64 lanes).
    enum { kUX, kUY, kVY, kSU, kSV, kCount };
    const bool used[kCount] = {need_ux, need_uy, need_vy, need_ux, need_sy};

    llvm::BasicBlock* before = b_.GetInsertBlock();
    llvm::Function* fn = before->getParent();
    llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "byte_block", fn);
    llvm::BasicBlock* after = llvm::BasicBlock::Create(ctx_, "byte_blocks_done", fn);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    llvm::PHINode* c = b_.CreatePHI(i64, 2, "block");
    c->addIncoming(b_.getInt64(0), before);
    llvm::PHINode* acc[kCount] = {};
    for (int k = 0; k < kCount; ++k) {
      if (!used[k]) continue;
      llvm::Type* t = k == kSU || k == kSV ? static_cast<llvm::Type*>(quads_ty) : words_ty;
      acc[k] = b_.CreatePHI(t, 2, "byte_acc");
      acc[k]->addIncoming(llvm::Constant::getNullValue(t), before);
    }
    llvm::Value* first = b_.CreateMul(c, b_.getInt64(kByteBlock));
    auto load = [&](llvm::Value* p) {
      return b_.CreateAlignedLoad(bytes_ty, b_.CreateInBoundsGEP(b_.getInt8Ty(), p, first), llvm::Align(1));
    };
    llvm::Value* x = load(a);
    llvm::Value* y = load(b);
    PrefetchAhead(a, first, kByteBlock);
    llvm::Value* flip = llvm::ConstantInt::get(bytes_ty, 0x80);
    llvm::Value* u = b_.CreateXor(x, flip);
    llvm::Value* zero = llvm::Constant::getNullValue(bytes_ty);
    auto words = [&](llvm::Value* v) { return b_.CreateBitCast(v, words_ty); };
    llvm::Value* next[kCount] = {};
    if (used[kUX]) next[kUX] = b_.CreateCall(dpbusd, {acc[kUX], words(u), words(x)});
    if (used[kUY]) next[kUY] = b_.CreateCall(dpbusd, {acc[kUY], words(u), words(y)});
    if (used[kSU]) next[kSU] = b_.CreateAdd(acc[kSU], b_.CreateCall(psadbw, {u, zero}));
    if (used[kVY] || used[kSV]) {
      llvm::Value* v = b_.CreateXor(y, flip);
      if (used[kVY]) next[kVY] = b_.CreateCall(dpbusd, {acc[kVY], words(v), words(y)});
      if (used[kSV]) next[kSV] = b_.CreateAdd(acc[kSV], b_.CreateCall(psadbw, {v, zero}));
    }
    llvm::Value* c1 = b_.CreateAdd(c, b_.getInt64(1), "", true, true);
    c->addIncoming(c1, b_.GetInsertBlock());
    for (int k = 0; k < kCount; ++k) {
      if (used[k]) acc[k]->addIncoming(next[k], b_.GetInsertBlock());
    }
    b_.CreateCondBr(b_.CreateICmpSLT(c1, b_.getInt64(blocks)), body, after);
    b_.SetInsertPoint(after);
    llvm::Value* total[kCount] = {};
    for (int k = 0; k < kCount; ++k) {
      if (!used[k]) continue;
      llvm::PHINode* out = b_.CreatePHI(next[k]->getType(), 1);
      out->addIncoming(next[k], body);
      llvm::Value* sum = b_.CreateAddReduce(out);
      total[k] = sum->getType() == i32 ? sum : b_.CreateTrunc(sum, i32);  // wrapping: exact mod 2^32
    }

    return FromByteTotals(sums, ByteTotals{total[kUX], total[kUY], total[kVY], total[kSU], total[kSV]},
                          blocks * kByteBlock, b_arg);
  }

  // ByteDotSums' totals over m elements (null where not summed): Σ u·x, Σ u·y, Σ v·y, Σu, Σv.
  struct ByteTotals {
    llvm::Value* ux;
    llvm::Value* uy;
    llvm::Value* vy;
    llvm::Value* su;
    llvm::Value* sv;
  };

  // The row's sums, in `sums` order, from ByteDotSums' totals over its first m elements.
  std::vector<llvm::Value*> FromByteTotals(const Sums& sums, const ByteTotals& t, int64_t m, const ir::Expr& b_arg) {
    // Σy and Σy² of the first m elements: a literal's, counted now; a column's, from its sums.
    llvm::Value* sum_y = nullptr;
    llvm::Value* squares_y = nullptr;
    if (b_arg.is_literal()) {
      const std::string_view q = b_arg.value().str();
      int64_t sy = 0, syy = 0;
      for (int64_t j = 0; j < m; ++j) {
        const auto v = static_cast<int64_t>(static_cast<int8_t>(q[static_cast<size_t>(j)]));
        sy += v;
        syy += v * v;
      }
      sum_y = b_.getInt32(static_cast<uint32_t>(sy));
      squares_y = b_.getInt32(static_cast<uint32_t>(syy));
    } else if (t.sv != nullptr) {
      sum_y = b_.CreateSub(t.sv, b_.getInt32(static_cast<uint32_t>(128 * m)));
      if (t.vy != nullptr) squares_y = b_.CreateSub(t.vy, b_.CreateShl(sum_y, 7));
    }
    llvm::Value* dot = t.uy != nullptr ? b_.CreateSub(t.uy, b_.CreateShl(sum_y, 7)) : nullptr;
    llvm::Value* squares_x = nullptr;
    if (t.ux != nullptr) {
      llvm::Value* sum_x = b_.CreateSub(t.su, b_.getInt32(static_cast<uint32_t>(128 * m)));
      squares_x = b_.CreateSub(t.ux, b_.CreateShl(sum_x, 7));
    }
    std::vector<llvm::Value*> out;
    if (sums.dot) out.push_back(dot);
    if (sums.l2) out.push_back(b_.CreateAdd(b_.CreateSub(squares_x, b_.CreateShl(dot, 1)), squares_y));
    if (sums.squares_a) out.push_back(squares_x);
    if (sums.squares_b) out.push_back(squares_y);
    return out;
  }

  // The sums of elements [first, first + count) of one row, in `sums` order.
  std::vector<llvm::Value*> RangeSums(const Sums& sums, llvm::Value* a, llvm::Value* b, int64_t first_element,
                                      int64_t count_elements) {
    const int count = sums.dot + sums.l2 + sums.squares_a + sums.squares_b;
    std::vector<llvm::Value*> acc(static_cast<size_t>(count), llvm::Constant::getNullValue(AccTy()));
    if (first_element > 0) {
      llvm::Type* et = LlvmType(ctx_, elem_);
      a = b_.CreateConstInBoundsGEP1_64(et, a, static_cast<uint64_t>(first_element));
      b = b_.CreateConstInBoundsGEP1_64(et, b, static_cast<uint64_t>(first_element));
    }
    const int64_t chunks = count_elements / kLanes, tail = count_elements % kLanes;
    if (chunks > 0) {
      llvm::BasicBlock* before = b_.GetInsertBlock();
      llvm::Function* fn = before->getParent();
      llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "chunk", fn);
      llvm::BasicBlock* after = llvm::BasicBlock::Create(ctx_, "chunks_done", fn);
      b_.CreateBr(body);
      b_.SetInsertPoint(body);
      llvm::PHINode* c = b_.CreatePHI(b_.getInt64Ty(), 2, "c");
      c->addIncoming(b_.getInt64(0), before);
      std::vector<llvm::PHINode*> phis;
      for (llvm::Value* v : acc) {
        phis.push_back(b_.CreatePHI(v->getType(), 2, "acc"));
        phis.back()->addIncoming(v, before);
      }
      llvm::Value* first = b_.CreateMul(c, b_.getInt64(kLanes));
      std::vector<llvm::Value*> in(phis.begin(), phis.end());
      std::vector<llvm::Value*> next = Accumulate(sums, in, LoadChunk(a, first), LoadChunk(b, first), nullptr);
      llvm::Value* c1 = b_.CreateAdd(c, b_.getInt64(1), "", true, true);
      c->addIncoming(c1, b_.GetInsertBlock());
      for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(next[i], b_.GetInsertBlock());
      b_.CreateCondBr(b_.CreateICmpSLT(c1, b_.getInt64(chunks)), body, after);
      b_.SetInsertPoint(after);
      for (size_t i = 0; i < acc.size(); ++i) {
        llvm::PHINode* out = b_.CreatePHI(next[i]->getType(), 1);
        out->addIncoming(next[i], body);
        acc[i] = out;
      }
    }
    if (tail > 0) {
      std::vector<llvm::Constant*> mask;
      for (int k = 0; k < kLanes; ++k) mask.push_back(b_.getInt1(k < tail));
      llvm::Value* lanes = llvm::ConstantVector::get(mask);
      acc = Accumulate(sums, acc, LoadTail(a, chunks * kLanes, tail), LoadTail(b, chunks * kLanes, tail), lanes);
    }
    for (llvm::Value*& v : acc) v = Reduce(v);
    return acc;
  }

  // acc[i] += acc[i + h] for h = 16, 8, 4, 2, 1: lane 0's value (ir::StridedSum's tree).
  llvm::Value* Reduce(llvm::Value* acc) {
    if (integral_) return b_.CreateAddReduce(acc);  // exact: any order
    for (int h = kLanes / 2; h >= 1; h /= 2) {
      std::vector<int> lo, hi;
      for (int i = 0; i < h; ++i) {
        lo.push_back(i);
        hi.push_back(i + h);
      }
      acc = b_.CreateFAdd(b_.CreateShuffleVector(acc, lo), b_.CreateShuffleVector(acc, hi));
    }
    return b_.CreateExtractElement(acc, uint64_t{0});
  }

  // A literal vector of half-width floats widened to the f32 values they are, as the kernel and
  // the reference widen them.
  std::vector<float> WidenedLiteral(std::string_view bytes) const {
    std::vector<float> v(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * j, 2);
      v[static_cast<size_t>(j)] = elem_ == TypeId::kBF16 ? FloatOfBf16(h) : static_cast<float>(std::bit_cast<_Float16>(h));
    }
    return v;
  }

  // The squared norm of a literal vector, summed as the reference sums it.
  llvm::Value* LiteralSquares(const ir::Expr& literal) {
    const std::string_view bytes = literal.value().str();
    auto squares = [&]<typename T>(const T*) {
      std::vector<T> v(static_cast<size_t>(n_));
      std::memcpy(v.data(), bytes.data(), bytes.size());
      return ir::SquaresOf(v.data(), n_);
    };
    if (half_) {
      const std::vector<float> v = WidenedLiteral(bytes);
      return llvm::ConstantFP::get(sum_ty_, ir::SquaresOf(v.data(), n_));
    }
    switch (elem_) {
      case TypeId::kF32: return llvm::ConstantFP::get(sum_ty_, squares(static_cast<const float*>(nullptr)));
      case TypeId::kF64: return llvm::ConstantFP::get(sum_ty_, squares(static_cast<const double*>(nullptr)));
      default: return b_.getInt32(static_cast<uint32_t>(squares(static_cast<const int8_t*>(nullptr))));
    }
  }

  // The score from the row's sums, as ir/functions_vector.cc computes it.
  llvm::Value* Score(const Sums& sums, const std::vector<llvm::Value*>& totals, const ir::Expr& b) {
    llvm::Type* ft = integral_ ? b_.getFloatTy() : sum_ty_;
    auto as_float = [&](llvm::Value* v) { return integral_ ? b_.CreateSIToFP(v, ft) : v; };
    auto sqrt = [&](llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v); };
    switch (score_) {
      case ir::VectorScore::kDot:
      case ir::VectorScore::kL2Squared: return totals[0];
      case ir::VectorScore::kL2Distance: return sqrt(as_float(totals[0]));
      case ir::VectorScore::kCosineSimilarity:
      case ir::VectorScore::kCosineDistance: {
        llvm::Value* dot = as_float(totals[0]);
        llvm::Value* aa = as_float(totals[1]);
        llvm::Value* bb = as_float(sums.squares_b ? totals[2] : LiteralSquares(b));
        llvm::Value* r = b_.CreateFDiv(dot, sqrt(b_.CreateFMul(aa, bb)));
        llvm::Value* one = llvm::ConstantFP::get(ft, 1.0);
        llvm::Value* minus_one = llvm::ConstantFP::get(ft, -1.0);
        r = b_.CreateSelect(b_.CreateFCmpOGT(r, one), one, r);
        r = b_.CreateSelect(b_.CreateFCmpOLT(r, minus_one), minus_one, r);
        return score_ == ir::VectorScore::kCosineSimilarity ? r : b_.CreateFSub(one, r);
      }
    }
    return totals[0];
  }

  const CacheKey& key_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  TypeId elem_ = TypeId::kF32;
  int64_t n_ = 0;
  bool integral_ = false;
  bool half_ = false;  // f16 or bf16 elements, widened to f32 as they are loaded
  llvm::Value* wide_query_ = nullptr;  // a literal of half-width floats, baked as f32
  bool narrow_diff_ = false;  // i8 squared differences: i16 lanes (LaneTy)
  const bool byte_dots_;      // the target multiply-adds bytes (ByteDotSums)
  llvm::Type* sum_ty_ = nullptr;
  ir::VectorScore score_ = ir::VectorScore::kDot;
};

}  // namespace

Status EmitVectorKernel(const CacheKey& key, llvm::Module& module, const std::string& name, bool byte_dots) {
  return VectorKernel(key, module, byte_dots).Build(name);
}

}  // namespace rowjit::jit::internal
