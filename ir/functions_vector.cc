// Vector row functions (ir layer): scores of two fixed_size_list vectors of one type — dot
// (inner_product), l2_squared, l2_distance, cosine_similarity, cosine_distance — over f32, f64
// and i8 elements. Each is a number a row, summed in the one order of ir/vector_math.h. No
// kernel of the rows computes them: each call is computed a column at a time by its own vector
// kernel (jit/codegen/codegen_vectors.cc), specialized to the size and, for a literal vector,
// to its values.
#include <bit>
#include <string>
#include <vector>

#include "ir/function_internal.h"
#include "ir/vector_math.h"

namespace rowjit::ir {
namespace {

bool VectorElement(TypeId t) {
  return t == TypeId::kF32 || t == TypeId::kF64 || IsHalfWidthFloat(t) || t == TypeId::kI8;
}

// Two vectors of one type (nullability aside) with f32, f64 or i8 elements; the result type of
// `score` over them.
Result<DataType> ScoreType(std::string_view name, std::span<const DataType> args, VectorScore score) {
  if (args.size() != 2 || args[0].id != TypeId::kFixedList || !args[0].SameType(args[1])) {
    return internal::TypeMismatch(name, args, "two vectors of one type (fixed_size_list<T, N>, or a vector "
                                              "literal [x, y, ...] beside one)");
  }
  const DataType& v = args[0];
  if (!VectorElement(v.elem)) {
    return MakeError(ErrorCode::kTypeError, "{}({}): the vector functions take f32, f64, f16, bf16 or i8 vectors", name,
                     internal::ArgTypes(args));
  }
  if (v.elem == TypeId::kI8 && v.list_size > kMaxI8VectorSize) {
    return MakeError(ErrorCode::kUnsupported, "{}: i8 vectors of at most {} elements (their sums are exact in 32 bits)",
                     name, kMaxI8VectorSize);
  }
  const bool integral = score == VectorScore::kDot || score == VectorScore::kL2Squared;
  // f16 and bf16 vectors are scored in f32 (their elements widened exactly), i8 sums are exact in i32.
  const TypeId result = IsHalfWidthFloat(v.elem) ? TypeId::kF32 : v.elem != TypeId::kI8 ? v.elem : integral ? TypeId::kI32 : TypeId::kF32;
  return DataType(result, internal::AnyNullable(args));
}

template <VectorScore kScore>
Result<DataType> ScoreRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  return ScoreType(name, args, kScore);
}

template <typename T>
Scalar ScoreOf(VectorScore score, const T* a, const T* b, int64_t n) {
  using F = VectorFloat<T>;
  switch (score) {
    case VectorScore::kDot: return Scalar::Of(DotOf(a, b, n));
    case VectorScore::kL2Squared: return Scalar::Of(L2SquaredOf(a, b, n));
    case VectorScore::kL2Distance: return Scalar::Of(static_cast<F>(std::sqrt(static_cast<F>(L2SquaredOf(a, b, n)))));
    case VectorScore::kCosineSimilarity:
    case VectorScore::kCosineDistance: {
      const F c = CosineOf(static_cast<F>(DotOf(a, b, n)), static_cast<F>(SquaresOf(a, n)), static_cast<F>(SquaresOf(b, n)));
      return Scalar::Of(score == VectorScore::kCosineSimilarity ? c : static_cast<F>(F(1) - c));
    }
  }
  return Scalar::Null(TypeId::kF64);
}

template <VectorScore kScore>
Result<Scalar> EvalScore(std::span<const Scalar> args, DataType, std::optional<TypeId>) {
  const DataType t = args[0].type();
  const int64_t n = t.list_size;
  const std::string_view x = args[0].str(), y = args[1].str();
  if (static_cast<int64_t>(x.size()) != t.ListRowBytes() || static_cast<int64_t>(y.size()) != t.ListRowBytes()) {
    return Error(ErrorCode::kInternal, "a vector value of the wrong size");
  }
  auto x_bytes = [&](int64_t j) { return x.data() + 2 * j; };
  auto y_bytes = [&](int64_t j) { return y.data() + 2 * j; };
  // The elements are copied out: a scalar's bytes need not be aligned for T.
  auto score = [&]<typename T>(std::type_identity<T>) -> Result<Scalar> {
    std::vector<T> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    std::memcpy(a.data(), x.data(), x.size());
    std::memcpy(b.data(), y.data(), y.size());
    return ScoreOf(kScore, a.data(), b.data(), n);
  };
  if (IsHalfWidthFloat(t.elem)) {  // widened to f32 exactly, then scored as f32 vectors are
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    const auto widen = [&](const char* at) {
      uint16_t bits;
      std::memcpy(&bits, at, 2);
      return t.elem == TypeId::kBF16 ? FloatOfBf16(bits) : static_cast<float>(std::bit_cast<_Float16>(bits));
    };
    for (int64_t j = 0; j < n; ++j) {
      a[static_cast<size_t>(j)] = widen(x_bytes(j));
      b[static_cast<size_t>(j)] = widen(y_bytes(j));
    }
    return ScoreOf(kScore, a.data(), b.data(), n);
  }
  switch (t.elem) {
    case TypeId::kF32: return score(std::type_identity<float>{});
    case TypeId::kF64: return score(std::type_identity<double>{});
    case TypeId::kI8: return score(std::type_identity<int8_t>{});
    default: return MakeError(ErrorCode::kInternal, "a vector score of {}", t.ToString());
  }
}

template <VectorScore kScore>
Function Score(std::string_view name, std::string_view summary, std::string_view notes) {
  return {.name = name, .arg_names = {"a", "b"}, .family = Family::kVector, .unify_from = -1,
          .type_rule = ScoreRule<kScore>, .eval = EvalScore<kScore>, .logical = LogicalArgs::kAny,
          .summary = summary, .notes = notes, .vector_score = kScore};
}

constexpr std::string_view kSumNotes =
    "Over two vectors of one type (a vector literal beside a column takes the column's type); f32 and f64 "
    "vectors give their type, summed in it in a fixed order (element j into one of 32 partial sums, j mod 32, "
    "then those pairwise), so a result is the same bits on every CPU; f16 vectors are summed as f32 ones "
    "(their elements widened exactly); i8 vectors give an exact i32 (at most 32,768 elements).";

const Function kVectorFunctions[] = {
    Score<VectorScore::kDot>("dot", "The dot (inner) product of two vectors: the sum of a[j] * b[j].", kSumNotes),
    Score<VectorScore::kL2Squared>("l2_squared", "The squared Euclidean distance of two vectors: the sum of (a[j] - b[j])^2.",
                                   kSumNotes),
    Score<VectorScore::kL2Distance>("l2_distance", "The Euclidean distance of two vectors: the square root of l2_squared.",
                                    "f32 and f64 vectors give their type, i8 vectors f32 (the square root of the exact "
                                    "sum); summed as dot is."),
    Score<VectorScore::kCosineSimilarity>(
        "cosine_similarity", "The cosine of the angle between two vectors: dot(a, b) / sqrt((a.a) (b.b)), within [-1, 1].",
        "NaN when either vector is all zeros. f32 and f64 vectors give their type, i8 vectors f32; the three sums "
        "as dot's."),
    Score<VectorScore::kCosineDistance>("cosine_distance", "One minus the cosine similarity of two vectors.",
                                        "NaN when either vector is all zeros; types as cosine_similarity."),
};

}  // namespace

std::span<const Function> VectorFunctions() { return kVectorFunctions; }

}  // namespace rowjit::ir
