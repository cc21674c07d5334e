// Fuzz target: the JIT against the reference evaluator (fuzz). The fuzzer's bytes choose an
// expression over the catalog, its types, a batch (length, bit offset, null density and layout,
// encodings, constants, extreme values) and a policy; the JIT's result must equal the
// reference's: values, nulls, and the error with its row. A mismatch aborts with the case.
// A quarter of the cases are decimal expressions (64- and 128-bit: +, -, *, casts up and down,
// round, neg, abs, comparisons, if, coalesce, literals) over decimal columns; an eighth are
// temporal (TemporalExpression: intervals, times, timestamps, durations), an eighth are string
// predicates (StringExpression: searches, LIKE and ILIKE patterns, prefixes, equality, lengths)
// over string columns of every layout with rows up to a few hundred bytes. One case in three
// also folds its expression (a fold its type takes: sum, min, max, min_max, count, nan_count,
// min_max_nan, any, all) against the reference fold: value, count, or the error with its row.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "ir/aggregate.h"
#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"
#include "runtime/string_array.h"
#include "support/random_data.h"

namespace {

using namespace rowjit;

constexpr ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                    ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};
constexpr double kDensities[] = {0.0, 0.5, 0.9, 0.99, 1.0};

// One input column as the fuzzer shapes it.
ArrayPtr MakeColumn(FuzzedDataProvider& in, DataType t, int64_t length, std::mt19937_64& rng,
                    std::string& layout) {
  const int pick = in.ConsumeIntegralInRange(0, 7);
  if (pick == 0) {
    const Scalar v = t.nullable && in.ConsumeBool() ? Scalar::Null(t.id) : RandomValue(t.id, rng);
    layout += " constant " + v.ToString();
    return *ConstantArray::Make(v, length, t.nullable);
  }
  ArraySpec spec{t, length, in.PickValueInArray(kDensities), in.ConsumeIntegralInRange<int64_t>(0, 70),
                 in.ConsumeBool() ? NullLayout::kScattered : NullLayout::kClustered,
                 in.ConsumeBool() ? ValueMode::kMixed : ValueMode::kModerate};
  ArrayPtr a = RandomFlatArray(spec, rng);
  layout += fmt::format(" flat(valid {}, offset {})", spec.valid_fraction, spec.bit_offset);
  if (pick == 1 && a != nullptr) {
    a = t.id == TypeId::kBool ? AsByteBool(a) : AsDictionary(a, rng);
    layout += std::string(" as ") + std::string(EncodingName(a->encoding()));
  }
  return a;
}

// A decimal, temporal or i64 column: small storage values (arithmetic that mostly fits) or
// anywhere in the storage (RandomLogicalValue: every digit count, the limits), nulls, a bit
// offset, or a batch constant.
ArrayPtr DecimalColumn(FuzzedDataProvider& in, DataType t, int64_t length, std::mt19937_64& rng, std::string& layout) {
  const double valid = in.PickValueInArray(kDensities);
  const int64_t offset = in.ConsumeIntegralInRange<int64_t>(0, 70);
  const bool small = in.ConsumeBool();
  std::vector<Scalar> rows;
  for (int64_t i = 0; i < offset + std::max<int64_t>(length, 1); ++i) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= valid) {
      rows.push_back(Scalar::Null(t.id).As(t));
    } else if (small) {
      const int64_t v = static_cast<int64_t>(rng() % 2'000'000) - 1'000'000;
      rows.push_back(t.id == TypeId::kI128 ? Scalar::Int128(v, t) : Scalar::FromBits(t.id, static_cast<uint64_t>(v)).As(t));
    } else {
      rows.push_back(t.is_logical() ? RandomLogicalValue(t, rng) : RandomValue(t.id, rng));
    }
  }
  layout += fmt::format(" {}(valid {}, offset {}, {})", t.ToString(), valid, offset, small ? "small" : "any");
  auto full = MakeArray(t.WithNullable(true), rows);
  if (!full.ok()) return nullptr;
  if (in.ConsumeIntegralInRange(0, 7) == 0) {
    layout += " constant";
    return *ConstantArray::Make(rows[static_cast<size_t>(offset)], length, true);
  }
  return *(*full)->Slice(offset, length);
}

// A random decimal expression over x, y (16 bytes, 38 and 20 digits), d (decimal64) and k (i64).
std::string DecimalExpression(FuzzedDataProvider& in, int depth) {
  static constexpr const char* kLeaves[] = {"x", "y", "d", "k", "1.25", "0.001", "7", "12345678901234567890.5",
                                            "99999999999999999999999999999.999999999"};
  if (depth == 0 || in.ConsumeIntegralInRange(0, 3) == 0) return in.PickValueInArray(kLeaves);
  const std::string a = DecimalExpression(in, depth - 1), b = DecimalExpression(in, depth - 1);
  const int scale = in.ConsumeIntegralInRange(0, 20), precision = in.ConsumeIntegralInRange(std::max(scale, 1), 38);
  switch (in.ConsumeIntegralInRange(0, 10)) {
    case 0: return fmt::format("({} + {})", a, b);
    case 1: return fmt::format("({} - {})", a, b);
    case 2: return fmt::format("({} * {})", a, b);
    case 3: return fmt::format("-({})", a);
    case 4: return fmt::format("abs({})", a);
    case 5: return fmt::format("round({}, {})", a, scale % 8);
    case 6: return fmt::format("cast({}, decimal({},{}))", a, precision, scale);
    case 7: return fmt::format("cast({}, decimal64({},{}))", a, std::min(precision, 18), std::min(scale, std::min(precision, 18)));
    case 8: return fmt::format("if({} < {}, {}, {})", a, b, b, a);
    case 9: return fmt::format("coalesce({}, {})", a, b);
    default: return fmt::format("cast({}, {})", a, in.PickValueInArray({"i64", "i32", "u64", "f64", "f32"}));
  }
}

// A string column `s` or `t` of `length` rows: pieces of a small alphabet (so that needles cut
// from the fuzzer's bytes match), one row in eight long; an offsets or view layout, a slice, nulls.
ArrayPtr StringColumn(FuzzedDataProvider& in, DataType t, int64_t length, std::mt19937_64& rng, std::string& layout) {
  static const char* const kPieces[] = {"a", "b", "A", "n", "\xc3\xa9", "%", "_", "\\"};
  const StringLayout sl = in.PickValueInArray({StringLayout::kOffsets32, StringLayout::kOffsets64, StringLayout::kViews});
  const double valid = in.PickValueInArray(kDensities);
  const int64_t offset = in.ConsumeIntegralInRange<int64_t>(0, 70);
  std::vector<std::string> text;
  std::vector<std::optional<std::string_view>> rows;
  text.reserve(static_cast<size_t>(offset + length));
  for (int64_t i = 0; i < offset + length; ++i) {
    const size_t n = rng() % 8 == 0 ? rng() % 300 : rng() % 12;
    std::string r;
    while (r.size() < n) r += kPieces[rng() % std::size(kPieces)];
    text.push_back(std::move(r));
  }
  for (const std::string& r : text) {
    rows.push_back(std::uniform_real_distribution<>(0, 1)(rng) < valid || !t.nullable ? std::optional<std::string_view>(r)
                                                                                        : std::nullopt);
  }
  auto made = MakeStringArray(t, sl, rows);
  if (!made.ok()) return nullptr;
  layout += fmt::format(" {}(valid {}, offset {})", StringLayoutName(sl), valid, offset);
  return *(*made)->Slice(offset, length);
}

// A bool or number over string columns s and t: searches and patterns with needles from the
// fuzzer's bytes, under and/or/not/if.
std::string StringExpression(FuzzedDataProvider& in, int depth) {
  auto lit = [&] { return QuoteString(in.ConsumeRandomLengthString(10)); };
  auto pattern = [&] {
    const std::string n = in.ConsumeRandomLengthString(8);
    return QuoteString(in.PickValueInArray({"%" + n + "%", n + "%", "%" + n, n, "%" + n + "_%"}));
  };
  const char* col = in.ConsumeBool() ? "s" : "t";
  if (depth > 0 && in.ConsumeIntegralInRange(0, 2) == 0) {
    const std::string a = StringExpression(in, depth - 1), b = StringExpression(in, depth - 1);
    switch (in.ConsumeIntegralInRange(0, 2)) {
      case 0: return fmt::format("({} and {})", a, b);
      case 1: return fmt::format("({} or {})", a, b);
      default: return fmt::format("(not {})", a);
    }
  }
  switch (in.ConsumeIntegralInRange(0, 8)) {
    case 0: return fmt::format("contains({}, {})", col, lit());
    case 1: return fmt::format("({} like {})", col, pattern());
    case 2: return fmt::format("({} ilike {})", col, pattern());
    case 3: return fmt::format("starts_with({}, {})", col, lit());
    case 4: return fmt::format("({} = {})", col, lit());
    case 5: return fmt::format("(length({}) > {})", col, in.ConsumeIntegralInRange(0, 40));
    case 6: return "contains(s, t)";
    case 7: return fmt::format("(if(contains({}, {}), 1, 2) = 1)", col, lit());
    default: return fmt::format("({} ilike {} and char_length(s) < 20)", col, pattern());
  }
}

// A random expression over dates, times, timestamps, intervals and durations (t, z, d, h, g, i,
// m, w, u) and k (i64), of the kind `kind` (0 interval, 1 timestamp or date, 2 time, 3 bool,
// 4 number): interval arithmetic and order, ± intervals, time ± interval, text read as one.
std::string TemporalExpression(FuzzedDataProvider& in, int kind, int depth) {
  auto sub = [&](int k) { return TemporalExpression(in, k, depth - 1); };
  const bool leaf = depth == 0 || in.ConsumeIntegralInRange(0, 3) == 0;
  switch (kind) {
    case 0: {
      if (leaf) {
        return in.PickValueInArray({"i", "m", "w", "'1 month 2 days'", "'-3 hours 1 ns'", "'30 days'", "'-1 month'",
                                    "cast('2147483647 months', interval_months)", "cast(cast(k, utf8), interval_day_time)"});
      }
      switch (in.ConsumeIntegralInRange(0, 6)) {
        case 0: return fmt::format("({} + {})", sub(0), sub(0));
        case 1: return fmt::format("({} - {})", sub(0), sub(0));
        case 2: return fmt::format("-({})", sub(0));
        case 3: return fmt::format("({} * {})", sub(0), in.PickValueInArray({"k", "3", "-2", "0", "null"}));
        case 4: return fmt::format("greatest({}, {}, {})", sub(0), sub(0), sub(0));
        case 5: return fmt::format("least({}, {})", sub(0), sub(0));
        default: return fmt::format("coalesce({}, {})", sub(0), sub(0));
      }
    }
    case 1:
      if (leaf) return in.PickValueInArray({"t", "z", "d"});
      switch (in.ConsumeIntegralInRange(0, 3)) {
        case 0: return fmt::format("({} + {})", sub(1), sub(0));
        case 1: return fmt::format("({} - {})", sub(1), sub(0));
        case 2: return fmt::format("date_trunc('{}', {})", in.PickValueInArray({"month", "day", "hour"}), sub(1));
        default: return fmt::format("cast({}, timestamp(ms))", sub(1));
      }
    case 2:
      if (leaf) return in.PickValueInArray({"h", "g"});
      return fmt::format("({} {} {})", sub(2), in.ConsumeBool() ? "+" : "-", sub(0));
    case 3: {
      const int over = in.ConsumeIntegralInRange(0, 2);
      const std::string a = sub(over), b = sub(over);
      switch (in.ConsumeIntegralInRange(0, 3)) {
        case 0: return fmt::format("({} {} {})", a, in.PickValueInArray({"<", "<=", "=", "<>", ">", ">="}), b);
        case 1: return fmt::format("({} between {} and {})", a, b, sub(over));
        case 2: return fmt::format("({} in ({}, {}))", a, b, sub(over));
        default: return fmt::format("({} - {} > '1 hour')", sub(1), sub(1));
      }
    }
    default:
      switch (in.ConsumeIntegralInRange(0, 4)) {
        case 0: return fmt::format("interval_compare({}, {})", sub(0), sub(0));
        case 1: return fmt::format("{}({})", in.PickValueInArray({"year", "month", "day_of_week", "epoch"}), sub(1));
        case 2: return fmt::format("{}({})", in.PickValueInArray({"hour", "minute", "second"}), sub(2));
        case 3: return fmt::format("(u / {})", in.PickValueInArray({"'1 hour'", "u", "(u * k)"}));
        default: return fmt::format("interval_{}({})", in.PickValueInArray({"months", "days", "nanos"}), sub(0));
      }
  }
}

[[noreturn]] void Mismatch(const ir::Expr& expr, const std::string& layout, int64_t length,
                           ir::Policy policy, const std::string& what) {
  std::fprintf(stderr, "differential fuzz: %s\n  expr %s\n  length %lld policy %s\n  inputs%s\n",
               what.c_str(), expr.ToString().c_str(), static_cast<long long>(length),
               std::string(ir::PolicyName(policy)).c_str(), layout.c_str());
  std::abort();
}

// The expression `text` folded by a fold the fuzzer picks, when its type takes that fold: the
// JIT's fold against the reference's, compared as text (value bits, or the error with its row).
void CheckFold(FuzzedDataProvider& in, jit::Engine& engine, const std::string& text, const Schema& s,
               std::span<const ArrayPtr> columns, int64_t length, jit::Tier tier, const std::string& layout) {
  static constexpr const char* kFolds[] = {"sum", "min", "max", "min_max", "count", "nan_count", "min_max_nan", "any", "all"};
  auto agg = ir::ParseAndBindAggregate(std::string(in.PickValueInArray(kFolds)) + "(" + text + ")", s);
  if (!agg.ok()) return;  // a fold this type does not take
  if (std::getenv("ROWJIT_FUZZ_VERBOSE") != nullptr) std::fprintf(stderr, "fold: %s\n", agg->ToString().c_str());
  auto text_of = [&](const Result<ir::AggregateResult>& r) {
    return r.ok() ? r->ToString(agg->kind) : "error " + r.error().ToString();
  };
  const std::string jit = text_of(engine.Aggregate(*agg, columns, length, jit::EvalOptions{.tier = tier}, nullptr));
  const std::string ref = text_of(ir::EvaluateAggregateReference(*agg, columns, length));
  if (jit != ref) {
    std::fprintf(stderr, "differential fuzz: fold %s\n  length %lld inputs%s\n  jit %s\n  reference %s\n",
                 agg->ToString().c_str(), static_cast<long long>(length), layout.c_str(), jit.c_str(), ref.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Schema schema = testing::WideSchema();
  // Synchronous: no background thread may still be compiling when the fuzzer exits; each case
  // picks its tier instead.
  static jit::Engine* engine =
      std::move(jit::Engine::Make({.cache_capacity = 256, .compile = jit::EngineOptions::Compile::kSynchronous}))
          .value()
          .release();
  static const Schema decimals = *ParseSchema("x:decimal(38,10)?, y:decimal(20,4)?, d:decimal64(12,2)?, k:i64?");
  static const Schema temporals = *ParseSchema(
      "t:timestamp(us)?, z:timestamp(ms, Europe/Paris)?, d:date32?, h:time64(us)?, g:time32(s)?, "
      "i:interval_month_day_nano?, m:interval_months?, w:interval_day_time?, u:duration(ms)?, k:i64?");
  FuzzedDataProvider in(data, size);
  std::mt19937_64 rng(in.ConsumeIntegral<uint64_t>());
  static const Schema strings = *ParseSchema("s:utf8?, t:utf8");
  // A quarter of the cases decimal, an eighth temporal, an eighth strings, the rest over the catalog.
  const int family = in.ConsumeIntegralInRange(0, 7);
  const bool decimal = family < 2, temporal = family == 2, text_family = family == 3, logical = decimal || temporal;
  const TypeId want = in.PickValueInArray(kAllTypeIds);
  const int depth = in.ConsumeIntegralInRange(1, 4);
  const std::string text = decimal       ? DecimalExpression(in, depth)
                           : temporal    ? TemporalExpression(in, in.ConsumeIntegralInRange(0, 4), depth)
                           : text_family ? StringExpression(in, depth)
                                         : testing::RandomExpression(want, schema, depth, rng);
  const Schema& s = decimal ? decimals : temporal ? temporals : text_family ? strings : schema;
  auto expr = ir::ParseAndBind(text, s);
  if (logical && !expr.ok()) {  // a rule the operands have not: a scale past 38, u64 operands, mixed intervals
    if (expr.error().code() != ErrorCode::kUnsupported && expr.error().code() != ErrorCode::kTypeError) {
      std::fprintf(stderr, "differential fuzz: %s: %s\n", text.c_str(), expr.error().ToString().c_str());
      std::abort();
    }
    return 0;
  }
  if (!expr.ok()) {
    std::fprintf(stderr, "differential fuzz: the generator's %s does not bind: %s\n", text.c_str(),
                 expr.error().ToString().c_str());
    std::abort();
  }
  const int64_t length = in.PickValueInArray<int64_t>({0, 1, 7, 63, 64, 65, 127, 200, 1000, 2100});
  const ir::Policy policy = in.PickValueInArray(kPolicies);
  const jit::Tier tier = in.ConsumeBool() ? jit::Tier::kFast : jit::Tier::kOptimized;
  std::vector<ArrayPtr> columns(s.fields.size());
  std::string layout;
  for (int c : (*expr)->facts().columns) {
    layout += " " + s.fields[c].name + "=";
    columns[c] = logical       ? DecimalColumn(in, s.fields[c].type, length, rng, layout)
                 : text_family ? StringColumn(in, s.fields[c].type, length, rng, layout)
                               : MakeColumn(in, s.fields[c].type, length, rng, layout);
    if (columns[c] == nullptr) return 0;
  }
  // ROWJIT_FUZZ_VERBOSE=1 prints each case before it runs (to see what a crash ran).
  static const bool verbose = std::getenv("ROWJIT_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "case: %s length %lld policy %s inputs%s\n", (*expr)->ToString().c_str(),
                 static_cast<long long>(length), std::string(ir::PolicyName(policy)).c_str(), layout.c_str());
  }
  if (in.ConsumeIntegralInRange(0, 2) == 0) CheckFold(in, *engine, text, s, columns, length, tier, layout);
  auto jit = engine->Evaluate(*expr, columns, length, jit::EvalOptions{.policy = policy, .tier = tier});
  auto ref = ir::EvaluateReference(**expr, columns, length);
  if (jit.ok() != ref.ok()) {
    Mismatch(**expr, layout, length, policy,
             fmt::format("jit {} but reference {}", jit.ok() ? "succeeded" : jit.error().ToString(),
                         ref.ok() ? "succeeded" : ref.error().ToString()));
  }
  if (!jit.ok()) {
    if (!(jit.error() == ref.error())) {
      Mismatch(**expr, layout, length, policy,
               fmt::format("errors differ: jit {} reference {}", jit.error().ToString(), ref.error().ToString()));
    }
    return 0;
  }
  // The result's type is the expression's (a null computed on the storage would lose a decimal's).
  if (!(*jit)->type().SameType((*expr)->type())) {
    Mismatch(**expr, layout, length, policy,
             fmt::format("jit result is {}, the expression {}", (*jit)->type().ToString(), (*expr)->type().ToString()));
  }
  const int64_t row = FirstDifference(**jit, **ref);
  if (row >= 0) {
    Mismatch(**expr, layout, length, policy,
             fmt::format("row {}: jit {} reference {}", row, (*jit)->GetScalar(row).ToString(),
                         (*ref)->GetScalar(row).ToString()));
  }
  return 0;
}
