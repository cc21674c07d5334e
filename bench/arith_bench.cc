// JIT vs static kernels on arithmetic row expressions (bench): families ordinary, nullable,
// constant, checked and single. Impls: jit (Engine::Evaluate), jit_prepared (a PreparedExpression),
// jit_prepared_chunks2048 (the same over 2,048-row slices), jit_kernel (the compiled kernel
// alone), static (one static kernel), static_chain (one static kernel per operator, intermediates
// materialized), scalar (per-row null and error branches), stream (read the inputs, write one
// column: the machine's floor).
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"
#include "kernels/arith.h"
#include "runtime/builder.h"

namespace rowjit::bench {
namespace {

namespace k = kernels;
using k::ArithOp;
using k::BitSpan;
using k::CompareOp;
using k::Operand;

// One argument of an expression as the static and scalar loops see it.
template <typename T>
struct Arg {
  Operand<T> op;
  BitSpan valid;  // data == nullptr: every row valid
  T at(int64_t i) const { return op.is_constant() ? op.constant : op.values[i]; }
  bool valid_at(int64_t i) const {
    return valid.data == nullptr || k::GetBit(valid.data, valid.offset + i);
  }
};

template <typename T>
Arg<T> ArgOf(const ArrayPtr& a) {
  if (a->encoding() == Encoding::kConstant) {
    return Arg<T>{Operand<T>::Constant(static_cast<const ConstantArray&>(*a).value().template value<T>()), {}};
  }
  return Arg<T>{Operand<T>::Flat(Values<T>(a)), ValidSpan(a)};
}

// The expressions: a * b + c, and a * b + c < d.
enum class Shape { kMulAdd, kMulAddLt };

// static_chain: validity AND once, then checked mul into an intermediate, checked add into
// another, and (for < d) a compare to bits. Buffers are reused across iterations.
template <typename T>
class Chain {
 public:
  explicit Chain(int64_t rows) : t1_(rows), t2_(rows), bits_(rows / 8 + 8), valid_(rows / 8 + 8) {}
  int64_t Run(Shape shape, const std::vector<Arg<T>>& args, int64_t n) {
    BitSpan v{};
    for (const Arg<T>& a : args) {
      if (a.valid.data == nullptr) continue;
      if (v.data == nullptr) {
        v = a.valid;
      } else {
        if (v.data != valid_.data()) k::BitmapCopy(v, valid_.data());
        k::BitmapAndInPlace(valid_.data(), a.valid);
        v = BitSpan{valid_.data(), 0, n};
      }
    }
    int64_t row = k::CheckedArith(ArithOp::kMul, args[0].op, args[1].op, n, t1_.data(), v);
    if (row >= 0) return row;
    row = k::CheckedArith(ArithOp::kAdd, Operand<T>::Flat(t1_.data()), args[2].op, n, t2_.data(), v);
    if (row >= 0 || shape == Shape::kMulAdd) return row;
    k::Compare(CompareOp::kLt, Operand<T>::Flat(t2_.data()), args[3].op, n, bits_.data());
    return -1;
  }

 private:
  Scratch<T> t1_, t2_;
  Scratch<uint8_t> bits_, valid_;
};

template <typename T>
bool MulFails(T x, T y, T* r) {
  if constexpr (std::is_floating_point_v<T>) {
    *r = x * y;
    return false;
  } else {
    return __builtin_mul_overflow(x, y, r);
  }
}
template <typename T>
bool AddFails(T x, T y, T* r) {
  if constexpr (std::is_floating_point_v<T>) {
    *r = x + y;
    return false;
  } else {
    return __builtin_add_overflow(x, y, r);
  }
}

// scalar: one row at a time, a branch per null and per error.
template <typename T>
int64_t ScalarRun(Shape shape, const std::vector<Arg<T>>& args, int64_t n, T* out,
                  uint8_t* out_valid, uint8_t* bits) {
  for (int64_t i = 0; i < n; ++i) {
    bool valid = true;
    for (const Arg<T>& a : args) valid = valid && a.valid_at(i);
    if (!valid) {
      k::SetBitTo(out_valid, i, false);
      continue;
    }
    T t, u;
    if (MulFails(args[0].at(i), args[1].at(i), &t)) return i;
    if (AddFails(t, args[2].at(i), &u)) return i;
    if (shape == Shape::kMulAddLt) {
      k::SetBitTo(bits, i, u < args[3].at(i));
    } else {
      out[i] = u;
    }
    k::SetBitTo(out_valid, i, true);
  }
  return -1;
}

// stream: out[i] = a[i] ^ b[i] ^ c[i] compiled for AVX2 whatever the build's target (the floor
// is the memory's, not the loop's): reads three columns and writes one, the bytes a * b + c must
// move.
template <typename U>
__attribute__((target("avx2"), noinline)) void Stream3(const U* a, const U* b, const U* c, U* out,
                                                       int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] ^ b[i] ^ c[i];
}

// Inputs are made once per (case, rows, valid) and shared by every impl of the case.
using MakeInputs = std::function<std::vector<ArrayPtr>(int64_t rows, double valid)>;
const std::vector<ArrayPtr>& CachedInputs(const std::string& key, const MakeInputs& make,
                                          int64_t rows, double valid) {
  static std::map<std::string, std::vector<ArrayPtr>> cache;
  const std::string full = key + "/" + std::to_string(rows) + "/" + std::to_string(valid);
  auto it = cache.find(full);
  if (it == cache.end()) it = cache.emplace(full, make(rows, valid)).first;
  return it->second;
}

struct Case {
  std::string family, name;
  std::string expr, schema;
  MakeInputs make;
  std::vector<int64_t> rows;
  std::vector<int64_t> valid_pcts = {100};
};

template <typename T>
int64_t RowBytesX8(Shape shape, size_t flat_args) {
  return static_cast<int64_t>(8 * sizeof(T) * flat_args) + (shape == Shape::kMulAdd ? 8 * sizeof(T) : 1);
}

void Register(const Case& c, const std::string& impl,
              std::function<void(benchmark::State&, const std::vector<ArrayPtr>&, int64_t)> body) {
  auto* b = benchmark::RegisterBenchmark(Name(c.family, c.name, impl).c_str(),
                                         [c, body](benchmark::State& state) {
    const int64_t rows = state.range(0);
    const double valid = static_cast<double>(state.range(1)) / 100.0;
    body(state, CachedInputs(c.family + "/" + c.name, c.make, rows, valid), rows);
  });
  for (int64_t r : c.rows) {
    for (int64_t v : c.valid_pcts) b->Args({r, v});
  }
  b->ArgNames({"rows", "valid"});
}

size_t FlatArgs(const std::vector<ArrayPtr>& cols) {
  size_t n = 0;
  for (const ArrayPtr& a : cols) n += a->encoding() != Encoding::kConstant;
  return n;
}

// Registers jit, jit_prepared, static_chain, scalar (and optionally jit_prepared_chunks2048,
// jit_prepared_into_chunks2048, jit_kernel, jit_kernel_chunks2048, stream) for a * b + c [< d].
template <typename T>
void RegisterExpression(const Case& c, Shape shape, bool with_kernel, bool with_stream) {
  const LazyExpr expr(c.expr, c.schema);
  Register(c, "jit", [expr, shape](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJit(state, expr.get(), cols, rows);
    SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
  });
  Register(c, "jit_prepared", [expr, shape](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJitPrepared(state, expr.get(), cols, rows);
    SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
  });
  if (with_kernel) {
    Register(c, "jit_prepared_chunks2048", [expr, shape](benchmark::State& state, const std::vector<ArrayPtr>& cols,
                                                         int64_t rows) {
      RunJitPreparedChunks(state, expr.get(), cols, rows, 2048);
      SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
    });
    Register(c, "jit_prepared_into_chunks2048", [expr, shape](benchmark::State& state,
                                                              const std::vector<ArrayPtr>& cols, int64_t rows) {
      RunJitPreparedChunks(state, expr.get(), cols, rows, 2048, PreparedCall::kWriteInto);
      SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
    });
    Register(c, "jit_prepared_buffers_chunks2048", [expr, shape](benchmark::State& state,
                                                                 const std::vector<ArrayPtr>& cols, int64_t rows) {
      RunJitPreparedChunks(state, expr.get(), cols, rows, 2048, PreparedCall::kWriteBuffers);
      SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
    });
    Register(c, "jit_kernel", [expr, shape](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
      RunJitKernel(state, expr.get(), cols, rows, shape == Shape::kMulAdd ? sizeof(T) : 1);
      SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
    });
    Register(c, "jit_kernel_chunks2048", [expr, shape](benchmark::State& state, const std::vector<ArrayPtr>& cols,
                                                       int64_t rows) {
      RunJitKernel(state, expr.get(), cols, rows, shape == Shape::kMulAdd ? sizeof(T) : 1, 2048);
      SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
    });
  }
  Register(c, "static_chain", [shape](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    std::vector<Arg<T>> args;
    for (const ArrayPtr& a : cols) args.push_back(ArgOf<T>(a));
    Chain<T> chain(rows);
    for (auto _ : state) benchmark::DoNotOptimize(chain.Run(shape, args, rows));
    SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
  });
  Register(c, "scalar", [shape](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    std::vector<Arg<T>> args;
    for (const ArrayPtr& a : cols) args.push_back(ArgOf<T>(a));
    Scratch<T> out(rows);
    Scratch<uint8_t> valid(rows / 8 + 8), bits(rows / 8 + 8);
    for (auto _ : state) {
      benchmark::DoNotOptimize(ScalarRun(shape, args, rows, out.data(), valid.data(), bits.data()));
      benchmark::ClobberMemory();
    }
    SetCounters(state, rows, RowBytesX8<T>(shape, FlatArgs(cols)));
  });
  if (with_stream) {
    Register(c, "stream", [shape](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
      using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
      Scratch<U> out(rows);
      const U* a = reinterpret_cast<const U*>(Values<T>(cols[0]));
      const U* b = reinterpret_cast<const U*>(Values<T>(cols[1]));
      const U* cc = reinterpret_cast<const U*>(Values<T>(cols[2]));
      for (auto _ : state) {
        Stream3(a, b, cc, out.data(), rows);
        benchmark::ClobberMemory();
      }
      SetCounters(state, rows, RowBytesX8<T>(shape, 3));
    });
  }
}

template <typename T>
MakeInputs Columns(int n, bool nullable, NullLayout layout) {
  return [n, nullable, layout](int64_t rows, double valid) {
    std::vector<ColumnSpec> specs(static_cast<size_t>(n), ColumnSpec{TypeIdOf<T>(), nullable, false});
    return MakeColumns(specs, rows, valid, layout, 42);
  };
}

std::string Schema(TypeId t, int n, bool nullable) {
  std::vector<ColumnSpec> specs(static_cast<size_t>(n), ColumnSpec{t, nullable, false});
  return SchemaText(specs);
}

// ordinary and nullable: a * b + c and a * b + c < d over i32, i64, f64.
// ordinary/i32_wrapping_mul_add: wrapping_add(wrapping_mul(a, b), c) over the i32 columns of
// i32_mul_add (jit_prepared and jit_kernel): the checked kernel's yardstick, whose evidence should
// cost nothing once the loop waits on memory.
void RegisterWrapping() {
  const Case c{"ordinary", "i32_wrapping_mul_add", "wrapping_add(wrapping_mul(a, b), c)",
               Schema(TypeId::kI32, 3, false), Columns<int32_t>(3, false, NullLayout::kScattered),
               {kHotRows, kSmallRows, int64_t{1} << 20, kLargeRows}};
  const LazyExpr expr(c.expr, c.schema);
  Register(c, "jit_prepared", [expr](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJitPrepared(state, expr.get(), cols, rows);
    SetCounters(state, rows, RowBytesX8<int32_t>(Shape::kMulAdd, 3));
  });
  for (const auto& [impl, how] : {std::pair{"jit_prepared_into_chunks2048", PreparedCall::kWriteInto},
                                   std::pair{"jit_prepared_buffers_chunks2048", PreparedCall::kWriteBuffers}}) {
    Register(c, impl, [expr, how](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
      RunJitPreparedChunks(state, expr.get(), cols, rows, 2048, how);
      SetCounters(state, rows, RowBytesX8<int32_t>(Shape::kMulAdd, 3));
    });
  }
  Register(c, "jit_kernel", [expr](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJitKernel(state, expr.get(), cols, rows, sizeof(int32_t));
    SetCounters(state, rows, RowBytesX8<int32_t>(Shape::kMulAdd, 3));
  });
}

template <typename T>
void RegisterOrdinary(const char* type) {
  const TypeId id = TypeIdOf<T>();
  for (Shape shape : {Shape::kMulAdd, Shape::kMulAddLt}) {
    const int n = shape == Shape::kMulAdd ? 3 : 4;
    const std::string expr = shape == Shape::kMulAdd ? "a * b + c" : "a * b + c < d";
    const std::string base = std::string(type) + (shape == Shape::kMulAdd ? "_mul_add" : "_mul_add_lt");
    RegisterExpression<T>(Case{"ordinary", base, expr, Schema(id, n, false),
                               Columns<T>(n, false, NullLayout::kScattered),
                               // 1M rows: inputs and output fit the last-level cache (an engine's
                               // table scanned in its vectors), the size its chunked calls are compared at.
                               // i32 a * b + c also on one 2,048-row batch (kHotRows).
                               shape != Shape::kMulAdd ? std::vector<int64_t>{kSmallRows, kLargeRows}
                               : std::is_same_v<T, int32_t>
                                   ? std::vector<int64_t>{kHotRows, kSmallRows, int64_t{1} << 20, kLargeRows}
                                   : std::vector<int64_t>{kSmallRows, int64_t{1} << 20, kLargeRows}},
                          shape, true, shape == Shape::kMulAdd);
    for (NullLayout layout : {NullLayout::kScattered, NullLayout::kClustered}) {
      const std::string name = base + (layout == NullLayout::kScattered ? "_scattered" : "_clustered");
      RegisterExpression<T>(Case{"nullable", name, expr, Schema(id, n, true), Columns<T>(n, true, layout),
                                 {kSmallRows, kLargeRows}, {50, 90, 100}},
                            shape, false, false);
    }
  }
}

// constant: a batch-constant column in each position of a * b + c, and literals.
void RegisterConstant() {
  const std::string schema = Schema(TypeId::kI32, 3, false);
  for (int pos = 0; pos < 3; ++pos) {
    MakeInputs make = [pos](int64_t rows, double valid) {
      std::vector<ArrayPtr> cols = Columns<int32_t>(3, false, NullLayout::kScattered)(rows, valid);
      cols[static_cast<size_t>(pos)] = *ConstantArray::Make(Scalar::Of<int32_t>(7), rows);
      return cols;
    };
    const std::string name = std::string("i32_mul_add_const_") + static_cast<char>('a' + pos);
    RegisterExpression<int32_t>(Case{"constant", name, "a * b + c", schema, make, {kSmallRows, kLargeRows}},
                                Shape::kMulAdd, false, false);
  }
  RegisterExpression<int32_t>(
      Case{"constant", "i32_mul_lit3_add", "a * 3 + c", schema,
           [](int64_t rows, double valid) {
             std::vector<ArrayPtr> cols = Columns<int32_t>(3, false, NullLayout::kScattered)(rows, valid);
             cols[1] = *ConstantArray::Make(Scalar::Of<int32_t>(3), rows);  // what the literal reads as
             return cols;
           },
           {kSmallRows, kLargeRows}},
      Shape::kMulAdd, false, false);
}

// One static kernel call for a single operator.
template <typename T>
using SingleFn = std::function<int64_t(const T* a, const T* b, int64_t n, void* out)>;

// Single-operator cases over two flat columns: jit, jit_kernel, static, scalar.
template <typename T>
void RegisterSingle(const std::string& family, const std::string& name, const std::string& expr,
                    int out_width, SingleFn<T> static_fn, SingleFn<T> scalar_fn,
                    std::vector<int64_t> rows = {kSmallRows}) {
  const TypeId id = TypeIdOf<T>();
  const Case c{family, name, expr, Schema(id, 2, false), Columns<T>(2, false, NullLayout::kScattered), rows};
  const LazyExpr bound(expr, c.schema);
  const int64_t bytes_x8 = 8 * (2 * static_cast<int64_t>(sizeof(T))) + (out_width == 0 ? 1 : 8 * out_width);
  Register(c, "jit", [bound, bytes_x8](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJit(state, bound.get(), cols, rows);
    SetCounters(state, rows, bytes_x8);
  });
  Register(c, "jit_kernel", [bound, bytes_x8, out_width](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJitKernel(state, bound.get(), cols, rows, out_width == 0 ? 1 : out_width);
    SetCounters(state, rows, bytes_x8);
  });
  for (auto [impl, fn] : {std::pair{"static", static_fn}, std::pair{"scalar", scalar_fn}}) {
    if (!fn) continue;
    Register(c, impl, [fn = fn, bytes_x8](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
      Scratch<uint64_t> out(rows);
      const T* a = Values<T>(cols[0]);
      const T* b = Values<T>(cols[1]);
      for (auto _ : state) {
        benchmark::DoNotOptimize(fn(a, b, rows, out.data()));
        benchmark::ClobberMemory();
      }
      SetCounters(state, rows, bytes_x8);
    });
  }
}

// checked: checked multiply against the wrapping form, every integer width.
template <typename T>
void RegisterChecked(const char* type) {
  const std::string t = type;
  RegisterSingle<T>("checked", t + "_mul", "a * b", sizeof(T),
      [](const T* a, const T* b, int64_t n, void* out) {
        return k::CheckedArith(ArithOp::kMul, Operand<T>::Flat(a), Operand<T>::Flat(b), n, static_cast<T*>(out));
      },
      [](const T* a, const T* b, int64_t n, void* out) -> int64_t {
        T* o = static_cast<T*>(out);
        for (int64_t i = 0; i < n; ++i) {
          if (__builtin_mul_overflow(a[i], b[i], &o[i])) return i;
        }
        return -1;
      });
  RegisterSingle<T>("checked", t + "_wrapping_mul", "wrapping_mul(a, b)", sizeof(T),
      [](const T* a, const T* b, int64_t n, void* out) -> int64_t {
        k::WrappingArith(ArithOp::kMul, Operand<T>::Flat(a), Operand<T>::Flat(b), n, static_cast<T*>(out));
        return -1;
      },
      nullptr);
}

// single: one operator each, for "jit no slower than static" (tools/bench-report's target
// single-op-jit-vs-static: ratio <= 1.05).
template <typename T>
void RegisterSingleOps(const char* type) {
  const std::string t = type;
  for (auto [op, sym, name] : {std::tuple{ArithOp::kAdd, "+", "_add"}, std::tuple{ArithOp::kMul, "*", "_mul"}}) {
    RegisterSingle<T>("single", t + name, std::string("a ") + sym + " b", sizeof(T),
        [op = op](const T* a, const T* b, int64_t n, void* out) {
          return k::CheckedArith(op, Operand<T>::Flat(a), Operand<T>::Flat(b), n, static_cast<T*>(out));
        },
        nullptr, {kSmallRows, kLargeRows});
  }
  RegisterSingle<T>("single", t + "_lt", "a < b", 0,
      [](const T* a, const T* b, int64_t n, void* out) -> int64_t {
        k::Compare(CompareOp::kLt, Operand<T>::Flat(a), Operand<T>::Flat(b), n, static_cast<uint8_t*>(out));
        return -1;
      },
      nullptr, {kSmallRows, kLargeRows});
}

// The literal compare a < 42: one flat column.
void RegisterLiteralCompare() {
  const Case c{"constant", "i32_lt_lit42", "a < 42", "a:i32", Columns<int32_t>(1, false, NullLayout::kScattered),
               {kSmallRows, kLargeRows}};
  const LazyExpr bound(c.expr, c.schema);
  Register(c, "jit", [bound](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    RunJit(state, bound.get(), cols, rows);
    SetCounters(state, rows, 33);
  });
  Register(c, "static", [](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    Scratch<uint8_t> out(rows / 8 + 8);
    for (auto _ : state) {
      k::Compare(CompareOp::kLt, Operand<int32_t>::Flat(Values<int32_t>(cols[0])),
                 Operand<int32_t>::Constant(42), rows, out.data());
      benchmark::ClobberMemory();
    }
    SetCounters(state, rows, 33);
  });
  Register(c, "scalar", [](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
    Scratch<uint8_t> out(rows / 8 + 8);
    const int32_t* a = Values<int32_t>(cols[0]);
    for (auto _ : state) {
      for (int64_t i = 0; i < rows; ++i) k::SetBitTo(out.data(), i, a[i] < 42);
      benchmark::ClobberMemory();
    }
    SetCounters(state, rows, 33);
  });
}

// guarded: `if(b != 0, a / b, 0)` against the unguarded `a / b` over inputs without zeros
// (the guard's cost: its evidence masked by the condition), 65,536 rows; `valid` 50 runs both
// inputs nullable, half the rows null.
template <typename T>
void RegisterGuarded(const char* type) {
  const std::string t = type;
  for (int nullable : {0, 1}) {
    const std::string schema = fmt::format("a:{0}{1}, b:{0}{1}", t, nullable ? "?" : "");
    auto make = [nullable](int64_t rows, double valid) {
      std::mt19937_64 rng(99);
      std::vector<ArrayPtr> cols;
      for (int c = 0; c < 2; ++c) {
        std::vector<std::optional<T>> v(static_cast<size_t>(rows));
        for (auto& x : v) {
          if (nullable && rng() % 1000 >= static_cast<uint64_t>(valid * 1000)) continue;
          T y = static_cast<T>(1 + rng() % 100);
          if (std::is_signed_v<T> && rng() % 2) y = static_cast<T>(-y);
          x = y;
        }
        cols.push_back(*MakeArray<T>(v, nullable != 0));
      }
      return cols;
    };
    for (auto [name, expr] : {std::pair{"_div", "a / b"}, std::pair{"_guarded_div", "if(b != 0, a / b, 0)"}}) {
      const Case c{"guarded", t + name, expr, schema, make, {kSmallRows}, {nullable ? int64_t{50} : int64_t{100}}};
      const LazyExpr bound(expr, schema);
      Register(c, "jit", [bound](benchmark::State& state, const std::vector<ArrayPtr>& cols, int64_t rows) {
        RunJit(state, bound.get(), cols, rows);
        SetCounters(state, rows, static_cast<int64_t>(3 * 8 * sizeof(T)));
      });
    }
  }
}

const bool kRegistered = [] {
  RegisterOrdinary<int32_t>("i32");
  RegisterOrdinary<int64_t>("i64");
  RegisterOrdinary<double>("f64");
  RegisterWrapping();
  RegisterConstant();
  RegisterLiteralCompare();
  RegisterChecked<uint8_t>("u8");
  RegisterChecked<uint16_t>("u16");
  RegisterChecked<uint32_t>("u32");
  RegisterChecked<uint64_t>("u64");
  RegisterChecked<int8_t>("i8");
  RegisterChecked<int16_t>("i16");
  RegisterChecked<int32_t>("i32");
  RegisterChecked<int64_t>("i64");
  RegisterSingleOps<int32_t>("i32");
  RegisterSingleOps<int64_t>("i64");
  RegisterSingleOps<double>("f64");
  RegisterGuarded<int8_t>("i8");
  RegisterGuarded<int32_t>("i32");
  RegisterGuarded<int64_t>("i64");
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
