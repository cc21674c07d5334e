// Decimal row functions and the binder's decimal rules (ir layer): add, sub and mul at the SQL
// scales, rescaling casts (half away from zero), and conversions to and from floats, over
// decimal32/decimal64 storage and integers (read at scale 0). The semantics compute exactly in
// 128 bits and then check the 64-bit result's precision; the kernels (jit/lower_decimal.cc)
// compute in 64 bits and detect the same overflows.
#include <cmath>

#include "ir/decimal.h"
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

using I128 = __int128;

I128 Pow10Wide(int k) {
  I128 p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}
I128 Abs(I128 v) { return v < 0 ? -v : v; }

int ScaleOf(const DataType& t) { return t.logical == LogicalKind::kDecimal ? t.scale : 0; }

bool IsDecimal(const DataType& t) { return t.logical == LogicalKind::kDecimal; }

Error DoesNotFit(std::string_view what, DataType result) {
  return internal::Overflow(fmt::format("{} does not fit {}", what, result.WithNullable(false).ToString()));
}

// The storage value of a result checked against its precision.
Result<Scalar> Stored(I128 v, DataType result, std::string_view what) {
  if (Abs(v) >= Pow10Wide(result.precision)) return DoesNotFit(what, result);
  if (result.id == TypeId::kI32) return Scalar::Of(static_cast<int32_t>(v)).As(result);
  return Scalar::Of(static_cast<int64_t>(v)).As(result);
}

// An operand at the result's scale, which must stay within 18 digits.
Result<I128> Rescaled(const Scalar& x, DataType result) {
  const I128 v = x.int128() * Pow10Wide(result.scale - ScaleOf(x.type()));
  if (Abs(v) >= Pow10Wide(kMaxDecimal64Digits)) {
    return internal::Overflow(fmt::format("{} at scale {} needs more than 18 digits", x.ToString(), result.scale));
  }
  return v;
}

template <int kOp>
Result<Scalar> AddSub(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(const I128 x, Rescaled(a[0], result));
  ROWJIT_ASSIGN_OR_RETURN(const I128 y, Rescaled(a[1], result));
  return Stored(kOp == 0 ? x + y : x - y, result, kOp == 0 ? "the sum" : "the difference");
}

Result<Scalar> Mul(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  return Stored(a[0].int128() * a[1].int128(), result, "the product");
}

// x / 10^k rounded half away from zero.
I128 RoundDiv(I128 x, int k) {
  const I128 d = Pow10Wide(k);
  I128 q = x / d;
  const I128 r = x % d;
  if (2 * Abs(r) >= d) q += x < 0 ? -1 : 1;
  return q;
}

Result<Scalar> Cast(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const int k = result.scale - ScaleOf(a[0].type());
  const I128 v = k >= 0 ? a[0].int128() * Pow10Wide(k) : RoundDiv(a[0].int128(), -k);
  return Stored(v, result, a[0].ToString());
}

// The storage in double (correctly rounded), divided by 10^scale (correctly rounded): exact
// decimals up to 2^53 in storage give the nearest double. f32 results round that double.
Result<Scalar> ToFloat(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const double v = static_cast<double>(static_cast<int64_t>(a[0].int128())) /
                   static_cast<double>(Pow10(ScaleOf(a[0].type())));
  if (result.id == TypeId::kF32) return Scalar::Of(static_cast<float>(v));
  return Scalar::Of(v);
}

// x * 10^scale in double (one rounding), rounded half away from zero; NaN, infinities and values
// beyond the precision are overflow errors.
Result<Scalar> FromFloat(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const double x = a[0].type_id() == TypeId::kF32 ? static_cast<double>(a[0].value<float>()) : a[0].value<double>();
  const double v = std::round(x * static_cast<double>(Pow10(result.scale)));
  if (!(std::fabs(v) < static_cast<double>(Pow10(result.precision)))) return DoesNotFit(a[0].ToString(), result);
  return Stored(static_cast<int64_t>(v), result, a[0].ToString());
}

bool MayFail(std::span<const DataType>, DataType) { return true; }

// --- types ----------------------------------------------------------------------------------

Result<std::pair<DecimalSpec, DecimalSpec>> Operands(std::string_view name, std::span<const DataType> args) {
  const auto x = DecimalOperand(args[0]), y = DecimalOperand(args[1]);
  if (!x || !y || !(IsDecimal(args[0]) || IsDecimal(args[1]))) {
    return internal::TypeMismatch(name, args, "a decimal (decimal32 or decimal64) and a decimal or integer");
  }
  return std::pair{*x, *y};
}

// add, sub: the larger scale, the larger integer part plus a carry digit (PostgreSQL, DuckDB),
// capped at 18 digits.
Result<DataType> AddSubRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(auto xy, Operands(name, args));
  const auto [x, y] = xy;
  const int s = std::max(x.scale, y.scale);
  const int p = std::min(kMaxDecimal64Digits, std::max(x.precision - x.scale, y.precision - y.scale) + s + 1);
  return Decimal64(p, s).WithNullable(internal::AnyNullable(args));
}

// mul: the sum of the scales and of the precisions, capped at 18 digits.
Result<DataType> MulRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(auto xy, Operands(name, args));
  const auto [x, y] = xy;
  const int s = x.scale + y.scale;
  if (s > kMaxDecimal64Digits) {
    return MakeError(ErrorCode::kUnsupported,
                     "{}: the product of {} and {} has scale {}; more than 18 needs 128-bit decimals, not built yet",
                     name, args[0].WithNullable(false).ToString(), args[1].WithNullable(false).ToString(), s);
  }
  return Decimal64(std::min(kMaxDecimal64Digits, x.precision + y.precision), s).WithNullable(internal::AnyNullable(args));
}

// The target of a cast is not in the arguments: the binder writes these calls with their type
// (cast(x, decimal64(12, 2)), round(x, 2)).
Result<DataType> TargetRule(std::string_view name, std::span<const DataType>, std::optional<TypeId>) {
  return MakeError(ErrorCode::kInvalidInput, "{} is written cast(x, decimal64(P, S)) or round(x, digits)", name);
}

Result<DataType> ToFloatRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (!IsDecimal(args[0]) || !DecimalOperand(args[0])) return internal::TypeMismatch(name, args, "a decimal");
  return DataType(TypeId::kF64, args[0].nullable);
}

const Function kFunctions[] = {
    {.name = "decimal_add", .arg_names = {"x", "y"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = AddSubRule, .eval = AddSub<0>, .logical = LogicalArgs::kAny},
    {.name = "decimal_sub", .arg_names = {"x", "y"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = AddSubRule, .eval = AddSub<1>, .logical = LogicalArgs::kAny},
    {.name = "decimal_mul", .arg_names = {"x", "y"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = MulRule, .eval = Mul, .logical = LogicalArgs::kAny},
    {.name = "decimal_cast", .arg_names = {"x"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = TargetRule, .eval = Cast, .logical = LogicalArgs::kAny},
    {.name = "decimal_to_float", .arg_names = {"x"}, .family = Family::kDecimal, .unify_from = -1,
     .type_rule = ToFloatRule, .eval = ToFloat, .logical = LogicalArgs::kAny},
    {.name = "float_to_decimal", .arg_names = {"x"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = TargetRule, .eval = FromFloat, .logical = LogicalArgs::kAny},
};

// --- the binder's rules ---------------------------------------------------------------------

bool AnyNullable(std::span<const ExprPtr> args) {
  for (const ExprPtr& a : args) {
    if (a->type().nullable) return true;
  }
  return false;
}

ExprPtr Call(std::string_view name, std::vector<ExprPtr> args, DataType type, FoldFn fold,
             std::optional<TypeId> type_arg = std::nullopt) {
  const Function* f = FindFunction(name);
  if (f->strict()) type.nullable = AnyNullable(args);
  return fold(Expr::BoundCall(f, std::move(args), type_arg, type));
}

std::string TypeText(const ExprPtr& e) { return e->type().WithNullable(false).ToString(); }

ExprPtr ToFloat(const ExprPtr& x, TypeId to, FoldFn fold) {
  if (x->type().id == to && !x->type().is_logical()) return x;
  if (IsDecimal(x->type())) return Call("decimal_to_float", {x}, DataType(to), fold);
  return Call("cast", {x}, DataType(to), fold, to);
}

ExprPtr Rescale(const ExprPtr& x, DataType to, FoldFn fold) {
  if (x->type().SameType(to)) return x;
  return Call("decimal_cast", {x}, to, fold);
}

// Every operand a decimal, an integer or a float; the float type the call computes in, if any.
Result<std::optional<TypeId>> CheckOperands(std::string_view name, std::span<const ExprPtr> args) {
  std::optional<TypeId> floats;
  for (const ExprPtr& a : args) {
    if (IsFloat(a->type().id) && !a->type().is_logical()) {
      floats = floats == TypeId::kF64 ? TypeId::kF64 : a->type().id;
    } else if (!DecimalOperand(a->type())) {
      std::string types;
      for (const ExprPtr& b : args) types += (types.empty() ? "" : ", ") + TypeText(b);
      return MakeError(a->type().id == TypeId::kI128 ? ErrorCode::kUnsupported : ErrorCode::kTypeError,
                       "{}({}): {} is not a decimal operand (decimals over i32 or i64 storage, integers other "
                       "than u64, floats; decimal128 arithmetic is not built yet)",
                       name, types, TypeText(a));
    }
  }
  return floats;
}

// The one decimal type that holds every operand exactly: the largest scale and integer part.
DataType CommonType(std::span<const ExprPtr> args) {
  int scale = 0, integer = 1;
  for (const ExprPtr& a : args) {
    const DecimalSpec d = *DecimalOperand(a->type());
    scale = std::max(scale, d.scale);
    integer = std::max(integer, d.precision - d.scale);
  }
  return Decimal64(std::min(kMaxDecimal64Digits, integer + scale), scale);
}

bool AllSameType(std::span<const ExprPtr> args) {
  for (const ExprPtr& a : args) {
    if (!a->type().SameType(args[0]->type())) return false;
  }
  return true;
}

bool IsCompare(std::string_view n) {
  return n == "eq" || n == "ne" || n == "lt" || n == "le" || n == "gt" || n == "ge" || n == "between";
}

}  // namespace

std::span<const Function> DecimalFunctions() { return kFunctions; }

int64_t Pow10(int k) {
  int64_t p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

std::optional<DecimalSpec> DecimalOperand(const DataType& t) {
  if (IsDecimal(t)) {
    if (t.id == TypeId::kI128) return std::nullopt;
    return DecimalSpec{t.precision, t.scale};
  }
  if (t.is_logical()) return std::nullopt;
  switch (t.id) {
    case TypeId::kI8: case TypeId::kU8: return DecimalSpec{3, 0};
    case TypeId::kI16: case TypeId::kU16: return DecimalSpec{5, 0};
    case TypeId::kI32: case TypeId::kU32: return DecimalSpec{10, 0};
    case TypeId::kI64: return DecimalSpec{kMaxDecimal64Digits, 0};
    default: return std::nullopt;
  }
}

DataType Decimal64(int precision, int scale) { return DataType::Decimal(precision, scale, TypeId::kI64).value(); }

Result<Scalar> DecimalLiteral(std::string_view text) {
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  const size_t point = digits.find('.');
  const std::string_view whole = digits.substr(0, point);
  const std::string_view fraction = point == std::string_view::npos ? std::string_view() : digits.substr(point + 1);
  auto all_digits = [](std::string_view s) {
    return s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (whole.empty() || !all_digits(whole) || !all_digits(fraction) || (point != std::string_view::npos && fraction.empty())) {
    return MakeError(ErrorCode::kTypeError, "{} is not a decimal literal (digits, a point, digits)", text);
  }
  const std::string_view integer = whole.substr(std::min(whole.find_first_not_of('0'), whole.size()));
  const int precision = std::max<int>(1, static_cast<int>(integer.size() + fraction.size()));
  if (precision > kMaxDecimal64Digits) {
    return MakeError(ErrorCode::kUnsupported, "decimal literal {} has {} digits; 18 are supported", text, precision);
  }
  int64_t v = 0;
  for (char c : integer) v = v * 10 + (c - '0');
  for (char c : fraction) v = v * 10 + (c - '0');
  return Scalar::Of(negative ? -v : v).As(Decimal64(precision, static_cast<int>(fraction.size())));
}

bool HasDecimalRule(std::string_view n) {
  return n == "add" || n == "sub" || n == "mul" || n == "div" || n == "neg" || n == "abs" || n == "round" ||
         n == "if" || n == "coalesce" || n == "cast" || IsCompare(n);
}

ExprPtr NarrowDecimal128(const ExprPtr& x, FoldFn fold) {
  const DataType t = x->type();
  if (!IsDecimal(t) || t.id != TypeId::kI128 || t.precision > kMaxDecimal64Digits) return x;
  return Call("decimal_cast", {x}, Decimal64(t.precision, t.scale), fold);
}

Result<ExprPtr> BindDecimalCast(const ExprPtr& x, DataType to, FoldFn fold) {
  if (to.id == TypeId::kI128) {
    if (to.precision > kMaxDecimal64Digits) {
      return MakeError(ErrorCode::kUnsupported, "cast to {}: decimals above 18 digits are not computed yet",
                       to.ToString());
    }
    to = Decimal64(to.precision, to.scale);  // computed, and exported, as decimal64
  }
  const DataType from = x->type();
  if (IsFloat(from.id) && !from.is_logical()) return Call("float_to_decimal", {x}, to, fold);
  if (IsString(from.id) && x->is_literal() && !x->value().is_null()) {  // cast('1.50', decimal64(3,2)): exact
    ROWJIT_ASSIGN_OR_RETURN(const Scalar value, DecimalLiteral(x->value().str()));
    return Rescale(Expr::BoundLiteral(value), to, fold);
  }
  const bool decimal128 = IsDecimal(from) && from.id == TypeId::kI128;  // narrowed by the cast's kernel
  if (!DecimalOperand(from) && from.id != TypeId::kU64 && !decimal128) {
    return MakeError(ErrorCode::kUnsupported, "cast from {} to {} is not supported{}", TypeText(x), to.ToString(),
                     from.id == TypeId::kI128 ? " (16-byte decimal128 storage is not computed on yet)" : "");
  }
  if (from.id == TypeId::kU64) {
    return MakeError(ErrorCode::kUnsupported, "cast from u64 to {}: cast to i64 first", to.ToString());
  }
  return Rescale(x, to, fold);
}

Result<ExprPtr> BindDecimalRound(const ExprPtr& given, int digits, FoldFn fold) {
  const ExprPtr x = NarrowDecimal128(given, fold);
  const DataType t = x->type();
  if (!IsDecimal(t) || !DecimalOperand(t)) {
    return MakeError(ErrorCode::kTypeError, "round(x, digits) rounds a decimal (decimal32 or decimal64), not {}",
                     TypeText(x));
  }
  if (digits < 0 || digits >= t.scale) {
    if (digits >= 0) return x;
    return MakeError(ErrorCode::kUnsupported, "round(x, {}): digits before the point are not supported", digits);
  }
  return Rescale(x, Decimal64(std::min(kMaxDecimal64Digits, t.precision - t.scale + digits + 1), digits), fold);
}

Result<std::optional<ExprPtr>> BindDecimalCall(std::string_view name, std::vector<ExprPtr> args,
                                               std::optional<TypeId> type_arg, FoldFn fold) {
  using Out = std::optional<ExprPtr>;
  const Function* f = FindFunction(name);
  // decimal128 of at most 18 digits computes as decimal64: narrowed first, by row (a value past
  // its precision is an overflow there).
  bool narrowed = false;
  for (ExprPtr& a : args) {
    ExprPtr n = NarrowDecimal128(a, fold);
    narrowed = narrowed || n != a;
    a = std::move(n);
  }
  if (name == "cast") {
    if (!type_arg || (!IsInteger(*type_arg) && !IsFloat(*type_arg))) {
      return MakeError(ErrorCode::kUnsupported, "cast of {} to {}: decimals cast to integers, floats and decimals",
                       TypeText(args[0]), type_arg ? TypeIdName(*type_arg) : "?");
    }
    if (IsFloat(*type_arg)) return Out(ToFloat(args[0], *type_arg, fold));
    // To an integer: rounded half away from zero (PostgreSQL, DuckDB), then the checked cast.
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr whole, BindDecimalRound(args[0], 0, fold));
    return Out(Call("cast", {whole}, DataType(*type_arg), fold, *type_arg));
  }
  if (name == "neg" || name == "abs") return Out(Call(name, args, args[0]->type(), fold));
  if (name == "round") {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, BindDecimalRound(args[0], 0, fold));
    return Out(r);
  }
  const size_t first = f->unify_from > 0 ? static_cast<size_t>(f->unify_from) : 0;
  std::vector<ExprPtr> values(args.begin() + static_cast<std::ptrdiff_t>(first), args.end());
  const bool compare = IsCompare(name) || name == "if" || name == "coalesce";
  if (compare && AllSameType(values) && !narrowed) return Out();  // the storage comparison (LogicalArgs::kCompare)
  ROWJIT_ASSIGN_OR_RETURN(const std::optional<TypeId> floats, CheckOperands(name, values));
  if (floats || name == "div") {
    // With a float, or divided: in floating point (DuckDB divides decimals as doubles).
    const TypeId to = floats.value_or(TypeId::kF64);
    for (ExprPtr& v : values) v = ToFloat(v, to, fold);
  } else if (compare) {
    const DataType common = CommonType(values);
    for (ExprPtr& v : values) v = Rescale(v, common, fold);
  } else {
    const std::string decimal_name = "decimal_" + std::string(name);
    std::vector<DataType> types = {values[0]->type(), values[1]->type()};
    const Function* d = FindFunction(decimal_name);
    ROWJIT_ASSIGN_OR_RETURN(DataType type, d->type_rule(d->name, types, std::nullopt));
    return Out(Call(decimal_name, values, type, fold));
  }
  std::copy(values.begin(), values.end(), args.begin() + static_cast<std::ptrdiff_t>(first));
  std::vector<DataType> types;
  for (const ExprPtr& a : args) types.push_back(a->type());
  ROWJIT_ASSIGN_OR_RETURN(DataType type, f->type_rule(f->name, types, type_arg));
  if (f->propagates_type || name == "if" || name == "coalesce") {
    const DataType& like = values[0]->type();
    if (like.is_logical() && type.id == like.id) type = like.WithNullable(type.nullable);
  }
  if (!f->strict()) return Out(fold(Expr::BoundCall(f, std::move(args), type_arg, type)));
  return Out(Call(name, std::move(args), type, fold, type_arg));
}

}  // namespace rowjit::ir
