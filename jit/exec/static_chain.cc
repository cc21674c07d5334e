// The static chain (jit layer, exec room): one static kernel per operator, intermediates
// materialized.
#include "jit/exec/static_chain.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <map>

#include "ir/analysis.h"
#include "kernels/arith.h"
#include "runtime/deep_stack.h"

namespace rowjit::jit {
namespace {

namespace k = kernels;

// One operand of a kernel call: a flat column or intermediate, or a batch constant.
struct Operand {
  TypeId type = TypeId::kI32;
  const void* values = nullptr;  // flat
  uint64_t constant = 0;         // bits, when values == nullptr
  BufferPtr keep;                // an intermediate's storage
};

struct CallKind {
  bool compare = false, checked = false;
  k::ArithOp arith = k::ArithOp::kAdd;
  k::CompareOp cmp = k::CompareOp::kEq;
};

Result<CallKind> Classify(const std::string& name) {
  static const std::map<std::string, CallKind> kCalls = {
      {"add", {false, true, k::ArithOp::kAdd}},           {"sub", {false, true, k::ArithOp::kSub}},
      {"mul", {false, true, k::ArithOp::kMul}},           {"wrapping_add", {false, false, k::ArithOp::kAdd}},
      {"wrapping_sub", {false, false, k::ArithOp::kSub}}, {"wrapping_mul", {false, false, k::ArithOp::kMul}},
      {"eq", {true, false, {}, k::CompareOp::kEq}},       {"ne", {true, false, {}, k::CompareOp::kNe}},
      {"lt", {true, false, {}, k::CompareOp::kLt}},       {"le", {true, false, {}, k::CompareOp::kLe}},
      {"gt", {true, false, {}, k::CompareOp::kGt}},       {"ge", {true, false, {}, k::CompareOp::kGe}},
  };
  auto it = kCalls.find(name);
  if (it == kCalls.end()) return MakeError(ErrorCode::kUnsupported, "{} has no static kernel", name);
  return it->second;
}

class Chain {
 public:
  Chain(std::span<const ArrayPtr> columns, int64_t length, k::BitSpan validity,
        std::shared_ptr<MemoryPool> pool)
      : columns_(columns), length_(length), validity_(validity), pool_(std::move(pool)) {}

  // The operands of every node, leaves first. A failing row stops the chain.
  Result<Operand> Eval(const ir::Expr& e, StaticChainRun& run) {
    if (e.is_literal()) {
      if (e.value().is_null()) return MakeError(ErrorCode::kUnsupported, "null literals");
      return Operand{e.type().id, nullptr, e.value().bits(), nullptr};
    }
    if (e.is_column()) {
      const Array& a = *columns_[static_cast<size_t>(e.column_index())];
      if (a.encoding() == Encoding::kConstant) {
        return Operand{e.type().id, nullptr, static_cast<const ConstantArray&>(a).value().bits(), nullptr};
      }
      if (a.encoding() != Encoding::kPrimitive) {
        return MakeError(ErrorCode::kUnsupported, "column {} is not flat", e.name());
      }
      return Operand{e.type().id, static_cast<const PrimitiveArray&>(a).raw_values(), 0, nullptr};
    }
    ROWJIT_ASSIGN_OR_RETURN(CallKind kind, Classify(e.name()));
    if (e.args().size() != 2) return MakeError(ErrorCode::kUnsupported, "{} with {} arguments", e.name(), e.args().size());
    ROWJIT_ASSIGN_OR_RETURN(Operand x, Eval(*e.args()[0], run));
    if (run.failed_row >= 0) return x;
    ROWJIT_ASSIGN_OR_RETURN(Operand y, Eval(*e.args()[1], run));
    if (run.failed_row >= 0) return y;
    if (x.type == TypeId::kBool) return MakeError(ErrorCode::kUnsupported, "{} over bools", e.name());
    const int64_t n = length_;
    Operand out{e.type().id, nullptr, 0, nullptr};
    ROWJIT_ASSIGN_OR_RETURN(out.keep, Buffer::AllocateForOverwrite(kind.compare ? k::NumBytes(n) : n * ByteWidth(x.type), pool_));
    out.values = out.keep->data();
    ++run.kernels;
    return VisitType(x.type, [&](auto tag) -> Result<Operand> {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        return MakeError(ErrorCode::kUnsupported, "bool arithmetic");
      } else {
        auto operand = [](const Operand& o) {
          if (o.values != nullptr) return k::Operand<T>::Flat(static_cast<const T*>(o.values));
          T c;
          std::memcpy(&c, &o.constant, sizeof(T));
          return k::Operand<T>::Constant(c);
        };
        if (kind.compare) {
          k::Compare(kind.cmp, operand(x), operand(y), n, out.keep->mutable_data());
        } else if (kind.checked || std::is_floating_point_v<T>) {
          const int64_t row = k::CheckedArith(kind.arith, operand(x), operand(y), n,
                                              out.keep->mutable_data_as<T>(), validity_);
          if (row >= 0) {
            run.failed_row = row;
            run.failed_function = e.name();
          }
        } else if constexpr (std::is_integral_v<T>) {
          k::WrappingArith(kind.arith, operand(x), operand(y), n, out.keep->mutable_data_as<T>());
        }
        return out;
      }
    });
  }

 private:
  std::span<const ArrayPtr> columns_;
  int64_t length_;
  k::BitSpan validity_;
  std::shared_ptr<MemoryPool> pool_;
};

}  // namespace

Result<StaticChainRun> RunStaticChain(const ir::Expr& expr, std::span<const ArrayPtr> columns,
                                      int64_t length, std::shared_ptr<MemoryPool> pool) {
  const std::vector<int> refs = ir::ReferencedColumns(expr);
  StaticChainRun run;
  const auto start = std::chrono::steady_clock::now();
  std::vector<Validity> validities;
  for (int c : refs) validities.push_back(ValidityOf(*columns[static_cast<size_t>(c)]));
  ROWJIT_ASSIGN_OR_RETURN(Validity validity, AndValidity(validities, length));
  if (validity.all_null()) return MakeError(ErrorCode::kUnsupported, "every row is null");
  run.kernels += validities.size() > 1 ? 1 : 0;
  const k::BitSpan mask = validity.has_bitmap() ? validity.Span(length) : k::BitSpan{};
  Chain chain(columns, length, mask, std::move(pool));
  // Eval recurses over the expression: a stack that holds its depth.
  ROWJIT_ASSIGN_OR_RETURN(Operand root, WithStackForDepth(expr.facts().depth, [&] { return chain.Eval(expr, run); }));
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (run.failed_row >= 0) return run;
  if (root.keep == nullptr) return MakeError(ErrorCode::kUnsupported, "an expression without an operator");
  const DataType type = expr.type();
  if (type.id == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(run.result, BoolArray::Make(length, root.keep, validity, 0, type.nullable));
  } else {
    ROWJIT_ASSIGN_OR_RETURN(run.result, PrimitiveArray::Make(type, length, root.keep, validity));
  }
  return run;
}

Result<StaticChainRun> RunStaticChain(const ir::Expr& expr, const RecordBatch& batch,
                                      std::shared_ptr<MemoryPool> pool) {
  return RunStaticChain(expr, batch.columns, batch.length, std::move(pool));
}

bool StaticChainCovers(const ir::Expr& expr, std::span<const ArrayPtr> columns) {
  if (!expr.is_call()) return false;  // a bare column or literal: nothing to compute
  for (const ir::Expr* c : expr.facts().column_nodes) {
    const Array& a = *columns[static_cast<size_t>(c->column_index())];
    if (a.type().id == TypeId::kBool) return false;
    if (a.encoding() != Encoding::kPrimitive && a.encoding() != Encoding::kConstant) return false;
    if (a.encoding() == Encoding::kConstant && static_cast<const ConstantArray&>(a).value().is_null()) {
      return false;
    }
  }
  for (const ir::Expr* call : expr.facts().calls) {
    if (!Classify(call->name()).ok() || call->args().size() != 2) return false;
    for (const ir::ExprPtr& arg : call->args()) {
      if (arg->type().id == TypeId::kBool) return false;
      if (arg->is_literal() && arg->value().is_null()) return false;
    }
  }
  return true;
}

}  // namespace rowjit::jit
