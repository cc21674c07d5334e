// Decimal row functions and the binder's decimal rules (ir layer): add, sub and mul at the SQL
// scales, rescaling casts (half away from zero), and conversions to and from floats, over
// decimal32/decimal64 storage and integers (read at scale 0). The semantics compute exactly in
// 128 bits and then check the 64-bit result's precision; the kernels (jit/codegen/lower/decimal.cc)
// compute in 64 bits and detect the same overflows.
#include <cmath>

#include "ir/decimal.h"
#include "ir/function_internal.h"

namespace rowjit::ir {
namespace {

using I128 = __int128;
using U128 = unsigned __int128;

// |v| without overflow (a 16-byte column may hold any value: Arrow does not check precisions).
U128 Magnitude(I128 v) { return v < 0 ? U128(0) - static_cast<U128>(v) : static_cast<U128>(v); }

int ScaleOf(const DataType& t) { return t.logical == LogicalKind::kDecimal ? t.scale : 0; }

bool IsDecimal(const DataType& t) { return t.logical == LogicalKind::kDecimal; }

// The digits a result of this storage class holds: 38 in 16 bytes, 18 in 64 bits.
int ClassDigits(const DataType& t) { return t.id == TypeId::kI128 ? kMaxDecimalDigits : kMaxDecimal64Digits; }

Error DoesNotFit(std::string_view what, DataType result) {
  return internal::Overflow(fmt::format("{} does not fit {}", what, result.WithNullable(false).ToString()));
}

// The storage value of a result checked against its precision (a plain integer result, the
// decimal128-to-integer step, against its storage).
Result<Scalar> Stored(I128 v, DataType result, std::string_view what) {
  if (!IsDecimal(result)) {
    const bool fits = result.id == TypeId::kU64 ? v >= 0 && v <= static_cast<I128>(UINT64_MAX)
                                                : v >= INT64_MIN && v <= INT64_MAX;
    if (!fits) return DoesNotFit(what, result);
    return Scalar::FromBits(result.id, static_cast<uint64_t>(v));
  }
  if (Magnitude(v) >= static_cast<U128>(Pow10Wide(result.precision))) return DoesNotFit(what, result);
  if (result.id == TypeId::kI128) return Scalar::Int128(v, result);
  if (result.id == TypeId::kI32) return Scalar::Of(static_cast<int32_t>(v)).As(result);
  return Scalar::Of(static_cast<int64_t>(v)).As(result);
}

// x * 10^k when that has at most `digits` digits.
std::optional<I128> ScaledUp(I128 x, int k, int digits) {
  if (k > digits) return x == 0 ? std::optional<I128>(0) : std::nullopt;
  if (Magnitude(x) >= static_cast<U128>(Pow10Wide(digits - k))) return std::nullopt;
  return x * Pow10Wide(k);
}

// An operand at the result's scale, which must stay within the result's storage class.
Result<I128> Rescaled(const Scalar& x, DataType result) {
  const std::optional<I128> v = ScaledUp(x.int128(), result.scale - ScaleOf(x.type()), ClassDigits(result));
  if (!v) {
    return internal::Overflow(fmt::format("{} at scale {} needs more than {} digits", x.ToString(), result.scale,
                                          ClassDigits(result)));
  }
  return *v;
}

template <int kOp>
Result<Scalar> AddSub(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(const I128 x, Rescaled(a[0], result));
  ROWJIT_ASSIGN_OR_RETURN(const I128 y, Rescaled(a[1], result));
  const std::string_view what = kOp == 0 ? "the sum" : "the difference";
  I128 r;
  if (kOp == 0 ? __builtin_add_overflow(x, y, &r) : __builtin_sub_overflow(x, y, &r)) return DoesNotFit(what, result);
  return Stored(r, result, what);
}

Result<Scalar> Mul(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  I128 r;
  if (__builtin_mul_overflow(a[0].int128(), a[1].int128(), &r)) return DoesNotFit("the product", result);
  return Stored(r, result, "the product");
}

// x / 10^k rounded half away from zero (k <= 38).
I128 RoundDiv(I128 x, int k) {
  const I128 d = Pow10Wide(k);
  I128 q = x / d;
  const U128 r = Magnitude(x % d);
  if (r >= static_cast<U128>(d) - r) q += x < 0 ? -1 : 1;
  return q;
}

Result<Scalar> Cast(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const I128 x = a[0].int128();
  const int k = ScaleOf(result) - ScaleOf(a[0].type());
  if (k < 0) return Stored(RoundDiv(x, -k), result, a[0].ToString());
  if (!IsDecimal(result)) return Stored(x, result, a[0].ToString());
  const std::optional<I128> v = ScaledUp(x, k, result.precision);
  if (!v) return DoesNotFit(a[0].ToString(), result);
  return Stored(*v, result, a[0].ToString());
}

// The storage in double (correctly rounded), divided by 10^scale in double (correctly rounded):
// exact decimals up to 2^53 in storage give the nearest double. f32 results round that double.
Result<Scalar> ToFloat(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const double v = static_cast<double>(a[0].int128()) / static_cast<double>(Pow10Wide(ScaleOf(a[0].type())));
  if (result.id == TypeId::kF32) return Scalar::Of(static_cast<float>(v));
  return Scalar::Of(v);
}

// x * 10^scale in double (one rounding), rounded half away from zero; NaN, infinities and values
// beyond the precision are overflow errors.
Result<Scalar> FromFloat(std::span<const Scalar> a, DataType result, std::optional<TypeId>) {
  const double x = a[0].type_id() == TypeId::kF32 ? static_cast<double>(a[0].value<float>()) : a[0].value<double>();
  const double v = std::round(x * static_cast<double>(Pow10Wide(result.scale)));
  if (!(std::fabs(v) < 0x1p127)) return DoesNotFit(a[0].ToString(), result);
  return Stored(static_cast<I128>(v), result, a[0].ToString());
}

bool MayFail(std::span<const DataType>, DataType) { return true; }

// --- types ----------------------------------------------------------------------------------

Result<std::pair<DecimalSpec, DecimalSpec>> Operands(std::string_view name, std::span<const DataType> args) {
  const auto x = DecimalOperand(args[0]), y = DecimalOperand(args[1]);
  if (!x || !y || !(IsDecimal(args[0]) || IsDecimal(args[1]))) {
    return internal::TypeMismatch(name, args, "a decimal and a decimal or integer");
  }
  return std::pair{*x, *y};
}

// The result's storage class: 16 bytes when an operand has it (more than 18 digits), else 64
// bits.
bool WideResult(std::span<const DataType> args) {
  for (const DataType& a : args) {
    if (IsDecimal128(a)) return true;
  }
  return false;
}

// decimal(precision, scale) of the class, its precision capped at what the class holds (scale
// at most that).
DataType ResultType(std::span<const DataType> args, int precision, int scale) {
  const DataType t = WideResult(args) ? DataType::Decimal(std::min(kMaxDecimalDigits, precision), scale).value()
                                      : Decimal64(std::min(kMaxDecimal64Digits, precision), scale);
  return t.WithNullable(internal::AnyNullable(args));
}

// add, sub: the larger scale, the larger integer part plus a carry digit (PostgreSQL, DuckDB).
Result<DataType> AddSubRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(auto xy, Operands(name, args));
  const auto [x, y] = xy;
  const int s = std::max(x.scale, y.scale);
  return ResultType(args, std::max(x.precision - x.scale, y.precision - y.scale) + s + 1, s);
}

// mul: the sum of the scales and of the precisions.
Result<DataType> MulRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  ROWJIT_ASSIGN_OR_RETURN(auto xy, Operands(name, args));
  const auto [x, y] = xy;
  const int s = x.scale + y.scale;
  const bool wide = WideResult(args);
  if (s > (wide ? kMaxDecimalDigits : kMaxDecimal64Digits)) {
    return MakeError(ErrorCode::kUnsupported, "{}: the product of {} and {} has scale {}, more than {} holds{}", name,
                     args[0].WithNullable(false).ToString(), args[1].WithNullable(false).ToString(), s,
                     wide ? "decimal(38,S)" : "decimal64",
                     wide ? "" : " (cast an operand to decimal(38,S) for 128-bit arithmetic)");
  }
  return ResultType(args, x.precision + y.precision, s);
}

// The target of a cast is not in the arguments: the binder writes these calls with their type
// (cast(x, decimal64(12, 2)), round(x, 2)).
Result<DataType> TargetRule(std::string_view name, std::span<const DataType>, std::optional<TypeId>) {
  return MakeError(ErrorCode::kInvalidInput, "{} is written cast(x, decimal64(P, S)) or round(x, digits)", name);
}

Result<DataType> ToFloatRule(std::string_view name, std::span<const DataType> args, std::optional<TypeId>) {
  if (!IsDecimal(args[0])) return internal::TypeMismatch(name, args, "a decimal");
  return DataType(TypeId::kF64, args[0].nullable);
}

const Function kFunctions[] = {
    {.name = "decimal_add", .arg_names = {"x", "y"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = AddSubRule, .eval = AddSub<0>, .logical = LogicalArgs::kAny,
     .summary = "The exact sum of two decimals, or of a decimal and an integer, at the larger scale.",
     .notes = "What `x + y` binds to over decimals. Result: decimal(max integer digits + scale + 1, larger "
              "scale), at most 18 digits (38 with a 16-byte operand). An operand that needs more digits at "
              "that scale, or a sum past the precision, is an `overflow` error."},
    {.name = "decimal_sub", .arg_names = {"x", "y"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = AddSubRule, .eval = AddSub<1>, .logical = LogicalArgs::kAny,
     .summary = "The exact difference of two decimals, or of a decimal and an integer, at the larger scale.",
     .notes = "What `x - y` binds to over decimals. Result: decimal(max integer digits + scale + 1, larger "
              "scale), at most 18 digits (38 with a 16-byte operand). An operand that needs more digits at "
              "that scale, or a difference past the precision, is an `overflow` error."},
    {.name = "decimal_mul", .arg_names = {"x", "y"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = MulRule, .eval = Mul, .logical = LogicalArgs::kAny,
     .kernel_cost = KernelCost::kDecimalMultiply,
     .summary = "The exact product of two decimals, or of a decimal and an integer, at the sum of their "
                "scales.",
     .notes = "What `x * y` binds to over decimals. Result: decimal(p1 + p2, s1 + s2), at most 18 digits (38 "
              "with a 16-byte operand); a product past it is an `overflow` error, and a scale beyond 18 (38) "
              "is refused as unsupported."},
    {.name = "decimal_cast", .arg_names = {"x"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = TargetRule, .eval = Cast, .logical = LogicalArgs::kAny,
     .syntax = Syntax::kCast,
     .summary = "A decimal or integer at the call's decimal or integer type: scaled up exactly, or down "
                "rounded half away from zero.",
     .notes = "Written `cast(x, decimal64(P,S))` and `round(x, n)`; also the steps of a decimal's cast to an "
              "integer. A value past the target's precision (an integer target: its range) is an `overflow` "
              "error."},
    {.name = "decimal_to_float", .arg_names = {"x"}, .family = Family::kDecimal, .unify_from = -1,
     .type_rule = ToFloatRule, .eval = ToFloat, .logical = LogicalArgs::kAny, .syntax = Syntax::kCast,
     .summary = "A decimal as a float: its storage in double divided by 10^scale, each step correctly rounded.",
     .notes = "Written `cast(x, f64)`; also how a decimal meets a float operand and how `x / y` divides "
              "decimals. Exact decimals up to 2^53 in storage give the nearest double; an f32 result rounds "
              "that double. Never fails."},
    {.name = "float_to_decimal", .arg_names = {"x"}, .family = Family::kDecimal, .can_fail = MayFail,
     .unify_from = -1, .type_rule = TargetRule, .eval = FromFloat, .logical = LogicalArgs::kAny,
     .syntax = Syntax::kCast,
     .summary = "A float as a decimal of the call's type: x · 10^scale in double, rounded half away from zero.",
     .notes = "Written `cast(x, decimal64(P,S))` of an f32 or f64. NaN, ±inf and values past the precision are "
              "`overflow` errors."},
};

// --- the binder's rules ---------------------------------------------------------------------

using internal::BuildCall;

std::string TypeText(const ExprPtr& e) { return e->type().WithNullable(false).ToString(); }

ExprPtr ToFloat(const ExprPtr& x, TypeId to, FoldFn fold) {
  if (x->type().id == to && !x->type().is_logical()) return x;
  if (IsDecimal(x->type())) return BuildCall("decimal_to_float", {x}, DataType(to), fold);
  return BuildCall("cast", {x}, DataType(to), fold, to);
}

ExprPtr Rescale(const ExprPtr& x, DataType to, FoldFn fold) {
  if (x->type().SameType(to)) return x;
  return BuildCall("decimal_cast", {x}, to, fold);
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
      return MakeError(ErrorCode::kTypeError,
                       "{}({}): {} is not a decimal operand (decimals, integers other than u64, floats)", name,
                       types, TypeText(a));
    }
  }
  return floats;
}

// The one decimal type that holds every operand exactly: the largest scale and integer part.
DataType CommonType(std::span<const ExprPtr> args) {
  int scale = 0, integer = 1;
  std::vector<DataType> types;
  for (const ExprPtr& a : args) {
    const DecimalSpec d = *DecimalOperand(a->type());
    scale = std::max(scale, d.scale);
    integer = std::max(integer, d.precision - d.scale);
    types.push_back(a->type().WithNullable(false));
  }
  return ResultType(types, integer + scale, scale);
}

bool AllSameType(std::span<const ExprPtr> args) {
  for (const ExprPtr& a : args) {
    if (!a->type().SameType(args[0]->type())) return false;
  }
  return true;
}

bool IsCompare(std::string_view n) {
  return n == "eq" || n == "ne" || n == "lt" || n == "le" || n == "gt" || n == "ge" || n == "between" || n == "in_list";
}

}  // namespace

std::span<const Function> DecimalFunctions() { return kFunctions; }

int64_t Pow10(int k) {
  int64_t p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

I128 Pow10Wide(int k) {
  I128 p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  return p;
}

bool IsDecimal128(const DataType& t) { return IsDecimal(t) && t.id == TypeId::kI128; }

std::optional<DecimalSpec> DecimalOperand(const DataType& t) {
  if (IsDecimal(t)) return DecimalSpec{t.precision, t.scale};
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
  if (precision > kMaxDecimalDigits) {
    return MakeError(ErrorCode::kUnsupported, "decimal literal {} has {} digits; 38 are supported", text, precision);
  }
  I128 v = 0;
  for (char c : integer) v = v * 10 + (c - '0');
  for (char c : fraction) v = v * 10 + (c - '0');
  if (negative) v = -v;
  const int scale = static_cast<int>(fraction.size());
  if (precision <= kMaxDecimal64Digits) return Scalar::Of(static_cast<int64_t>(v)).As(Decimal64(precision, scale));
  return Scalar::Int128(v, DataType::Decimal(precision, scale).value());
}

bool HasDecimalRule(std::string_view n) {
  return n == "add" || n == "sub" || n == "mul" || n == "div" || n == "neg" || n == "abs" || n == "round" ||
         n == "if" || n == "coalesce" || n == "list_value" || n == "cast" || IsCompare(n);
}

ExprPtr NarrowDecimal128(const ExprPtr& x, FoldFn fold) {
  const DataType t = x->type();
  if (!IsDecimal(t) || t.id != TypeId::kI128 || t.precision > kMaxDecimal64Digits) return x;
  return BuildCall("decimal_cast", {x}, Decimal64(t.precision, t.scale), fold);
}

Result<ExprPtr> BindDecimalCast(const ExprPtr& x, DataType to, FoldFn fold) {
  if (to.id == TypeId::kI128 && to.precision <= kMaxDecimal64Digits) {
    to = Decimal64(to.precision, to.scale);  // computed, and exported, as decimal64
  }
  const DataType from = x->type();
  if (IsFloat(from.id) && !from.is_logical()) return BuildCall("float_to_decimal", {x}, to, fold);
  // A row's text, or a literal's (folded): cast(s, decimal64(3,2)), cast('1.50', decimal64(3,2)).
  if (from.id == TypeId::kUtf8 && !from.is_logical()) {
    return BuildCall("text_to_decimal", {x}, to, fold);
  }
  if (!DecimalOperand(from) && from.id != TypeId::kU64) {
    return MakeError(ErrorCode::kUnsupported, "cast from {} to {} is not supported", TypeText(x), to.ToString());
  }
  if (from.id == TypeId::kU64) {
    return MakeError(ErrorCode::kUnsupported, "cast from u64 to {}: cast to i64 first", to.ToString());
  }
  return Rescale(x, to, fold);
}

Result<ExprPtr> BindDecimalRound(const ExprPtr& given, int digits, FoldFn fold) {
  const ExprPtr x = NarrowDecimal128(given, fold);
  const DataType t = x->type();
  if (!IsDecimal(t)) {
    return MakeError(ErrorCode::kTypeError, "round(x, digits) rounds a decimal, not {}", TypeText(x));
  }
  if (digits < 0 || digits >= t.scale) {
    if (digits >= 0) return x;
    return MakeError(ErrorCode::kUnsupported, "round(x, {}): digits before the point are not supported", digits);
  }
  const DataType operand[] = {t};
  return Rescale(x, ResultType(operand, t.precision - t.scale + digits + 1, digits).WithNullable(false), fold);
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
    // To an integer: rounded half away from zero (PostgreSQL, DuckDB), then the checked cast; a
    // 16-byte whole number first to i64 (or u64) by decimal_cast, which checks the storage.
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr whole, BindDecimalRound(args[0], 0, fold));
    if (IsDecimal128(whole->type())) {
      const TypeId storage = *type_arg == TypeId::kU64 ? TypeId::kU64 : TypeId::kI64;
      whole = BuildCall("decimal_cast", {whole}, DataType(storage), fold);
      if (storage == *type_arg) return Out(whole);
    }
    return Out(BuildCall("cast", {whole}, DataType(*type_arg), fold, *type_arg));
  }
  if (name == "neg" || name == "abs") return Out(BuildCall(name, args, args[0]->type(), fold));
  if (name == "round") {
    ROWJIT_ASSIGN_OR_RETURN(ExprPtr r, BindDecimalRound(args[0], 0, fold));
    return Out(r);
  }
  const size_t first = f->unify_from > 0 ? static_cast<size_t>(f->unify_from) : 0;
  std::vector<ExprPtr> values(args.begin() + static_cast<std::ptrdiff_t>(first), args.end());
  // Compared, or picked: the values rescaled to one type that holds each.
  const bool compare = IsCompare(name) || name == "if" || name == "coalesce" || name == "list_value";
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
    return Out(BuildCall(decimal_name, values, type, fold));
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
  return Out(BuildCall(name, std::move(args), type, fold, type_arg));
}

}  // namespace rowjit::ir
