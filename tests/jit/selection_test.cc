// Evaluation under a selection over every logical type (jit): decimals of the three widths, dates,
// times, timestamps with and without a zone, durations, the three intervals and the string
// layouts, flat, as dictionaries and as constants, under selections of 0.1 % to 100 % of the
// batch (both sides of the fraction where the whole batch is computed instead of the gathered
// rows), through Engine::Evaluate, EvaluateInto, PreparedExpression::Evaluate, Filter (engine
// and prepared) with an input selection, Project, ProjectInto and PreparedProjection::Project.
// Every result equals the reference's over the taken rows: type, value for value, null for null,
// and the same error at the same batch row.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/plan/route.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "runtime/selection.h"
#include "support/result_text.h"
#include "support/sanitized.h"

namespace rowjit::jit {
namespace {

// A logical type and expressions over its columns t and u (and an i32 column a): its functions,
// arithmetic, comparisons, casts and guards, some failing in a few rows (overflow past the
// type's range, division by zero where a % 101 is 0).
struct TypeCase {
  const char* type;
  std::vector<const char*> exprs;
};

const TypeCase kTypeCases[] = {
    {"decimal32(9,2)", {"t + u", "t * u", "t < u", "cast(t, decimal64(18,2))", "if(t > u, t, u)", "t / u"}},
    {"decimal64(18,4)", {"t + u", "t * a", "greatest(t, u)", "cast(t, utf8)", "t >= u"}},
    {"decimal(38,10)", {"t - u", "least(t, u)", "cast(t, f64)", "t < u", "cast(t, decimal64(18,2))"}},
    {"date32", {"year(t)", "t - u", "t + '1 month'", "date_trunc_month(t)", "coalesce(t, u)", "t < u"}},
    {"date64", {"day(t)", "cast(t, date32)", "t - '40 days'", "t <= u"}},
    {"time32(s)", {"hour(t) / cast(a % 101, i64)", "t + '1 hour'", "greatest(t, u)", "t >= u"}},
    {"time32(ms)", {"minute(t)", "t > u"}},
    {"time64(us)", {"second(t)", "coalesce(t, u)", "t = u"}},
    {"time64(ns)", {"t - '3 hours'", "minute(t) / cast(a % 101, i64)", "t < u"}},
    {"timestamp(s)", {"year(t)", "t - u", "t + '1 month 2 days'", "t < u"}},
    {"timestamp(ms)", {"hour(t)", "epoch(t)", "date_trunc_day(t)", "if(t < u, t, u)"}},
    {"timestamp(us)", {"t - u", "cast(t, date32)", "t < u"}},
    {"timestamp(ns)", {"year(t)", "t - u", "t + '1 day'", "t != u"}},
    {"timestamp(us, UTC)", {"hour(t)", "t + '1 month'", "t < u"}},
    {"timestamp(ns, Europe/Paris)", {"hour(t)", "date_trunc_day(t)", "cast(t, utf8)", "t - u", "t > u"}},
    {"timestamp(ms, America/New_York)", {"day_of_year(t)", "t + '1 month 1 hour'", "cast(t, timestamp(us))", "t = u"}},
    {"duration(s)", {"t + u", "t * 2", "cast(t, duration(ns))", "t < u"}},
    {"duration(ns)", {"t + u", "cast(t, duration(us))", "t > u"}},
    {"interval_months", {"t + u", "interval_months(t) / (a % 101)", "t < '1 year'"}},
    {"interval_day_time", {"t - u", "interval_days(t) / (a % 101)", "t > '1 day'"}},
    {"interval_month_day_nano", {"t + u", "interval_nanos(t)", "greatest(t, u)", "-t", "between(t, u, '10 years')"}},
    {"utf8", {"length(t) / cast(a % 101, i64)", "concat(t, u)", "upper(t)", "t like 'a%'", "t < u"}},
    {"large_utf8", {"char_length(t)", "coalesce(t, u)", "starts_with(t, 'a')"}},
    {"utf8_view", {"length(t)", "t || 'x'", "t > u"}},
    {"binary", {"length(t) / cast(a % 101, i64)", "t < u"}},
};

// The fractions of the batch selected: both sides of the fraction above which the whole batch is
// computed (jit/plan/route.cc WholeFrom), and the extremes.
constexpr double kFractions[] = {0.001, 0.01, 0.1, 0.19, 0.21, 0.5, 1.0};
// 0.1 % of it is 2 rows (1 under the sanitizers, whose run is the longest: every case still runs).
constexpr int64_t kLength = testing::kSanitized ? 1000 : 2000;

// `fraction` of `length` rows (at least one), drawn at random, ascending.
SelectionVector Fraction(int64_t length, double fraction, std::mt19937_64& rng) {
  const auto n = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(length) * fraction + 0.5));
  std::vector<uint32_t> rows(static_cast<size_t>(length));
  std::iota(rows.begin(), rows.end(), 0u);
  std::shuffle(rows.begin(), rows.end(), rng);
  rows.resize(static_cast<size_t>(n));
  std::sort(rows.begin(), rows.end());
  return SelectionVector::FromIndices(rows, length).value();
}

// A column of `field`'s type: flat (at a bit offset, with nulls), as a dictionary, or a constant.
enum class Shape { kFlat, kDictionary, kConstant };
ArrayPtr Column(const Field& field, Shape shape, double valid, std::mt19937_64& rng) {
  if (shape == Shape::kConstant) {
    const Scalar v = rng() % 4 == 0                ? Scalar::Null(field.type.id).As(field.type)
                     : IsString(field.type.id) ? Scalar::String("ab", field.type.id)
                                               : RandomLogicalValue(field.type, rng);
    return *ConstantArray::Make(v, kLength, true);
  }
  ArraySpec spec{field.type, kLength, valid, rng() % 2 ? 3 : 0, NullLayout::kScattered, ValueMode::kModerate};
  spec.string_layout = field.layout;
  ArrayPtr flat = RandomFlatArray(spec, rng);
  return shape == Shape::kDictionary ? AsDictionary(flat, rng) : flat;
}

// The taken rows of every column.
std::vector<ArrayPtr> Taken(const std::vector<ArrayPtr>& cols, const SelectionVector& s) {
  std::vector<ArrayPtr> taken;
  for (const ArrayPtr& c : cols) taken.push_back(Take(*c, s).value());
  return taken;
}

// A reference error at row i of the taken rows, as the error at batch row s[i].
Error AtBatchRow(Error e, const SelectionVector& s) {
  if (!e.row()) return e;
  std::string f = e.function();
  const int64_t row = s[*e.row()];
  return std::move(e).WithRow(std::move(f), row);
}

Result<ArrayPtr> ReferenceUnder(const ir::Expr& e, const std::vector<ArrayPtr>& taken, const SelectionVector& s) {
  auto r = ir::EvaluateReference(e, taken, s.size());
  if (r.ok()) return r;
  return AtBatchRow(std::move(r).TakeError(), s);
}

// A projection's reference: every output, or the lowest failing batch row over them (at it the
// first failing output), its message naming the output.
Result<std::vector<ArrayPtr>> ProjectionReference(const std::vector<Result<ArrayPtr>>& outputs) {
  std::vector<ArrayPtr> out;
  std::optional<Error> first;
  size_t at = 0;
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].ok()) {
      out.push_back(*outputs[k]);
    } else if (!first || (outputs[k].error().row() && first->row() && *outputs[k].error().row() < *first->row())) {
      first = outputs[k].error();
      at = k;
    }
  }
  if (!first) return out;
  std::string f = first->function();
  Error named(first->code(), fmt::format("expression {}: {}", at, first->message()));
  return first->row() ? std::move(named).WithRow(std::move(f), *first->row()) : named;
}

// The selected rows where a predicate's reference is true, or its error.
Result<SelectionVector> TrueRowsOf(const Result<ArrayPtr>& ref, const SelectionVector& s) {
  if (!ref.ok()) return ref.error();
  std::vector<uint32_t> rows;
  for (int64_t i = 0; i < s.size(); ++i) {
    const Scalar v = (*ref)->GetScalar(i);
    if (!v.is_null() && v.value<bool>()) rows.push_back(s[i]);
  }
  return SelectionVector::FromIndices(rows, s.batch_length());
}

// Caller memory for one output of `n` rows (16-byte aligned, for decimal128 and intervals).
struct Memory {
  std::vector<unsigned __int128> values, validity;
  explicit Memory(int64_t n)
      : values(static_cast<size_t>(n) + 1), validity(static_cast<size_t>(n) / 128 + 1) {}
  OutputBuffers Buffers() {
    return {.values = values.data(), .values_bytes = static_cast<int64_t>(values.size() * 16),
            .validity = validity.data(), .validity_bytes = static_cast<int64_t>(validity.size() * 16)};
  }
};

struct Counts {
  int64_t evaluations = 0, errors = 0, whole = 0, gathered = 0, filters = 0, projections = 0, rows = 0;
};

// One type's expressions, bound and prepared: each with a predicate for Filter (itself when bool,
// else whether it is not null, which still raises its errors), and the projection of them all.
struct Bound {
  std::vector<ir::ExprPtr> exprs, predicates;
  std::vector<ir::ExprPtr> fixed;  // the outputs of a fixed width, which caller memory can take
  std::vector<std::unique_ptr<PreparedExpression>> handles, predicate_handles;
  std::unique_ptr<PreparedProjection> projection;
};

Result<Bound> BindType(Engine& engine, const TypeCase& tc, const Schema& schema) {
  Bound b;
  for (const char* text : tc.exprs) {
    ROWJIT_ASSIGN_OR_RETURN(ir::ExprPtr e, ir::ParseAndBind(text, schema));
    ROWJIT_ASSIGN_OR_RETURN(
        ir::ExprPtr p, e->type().id == TypeId::kBool ? e : ir::ParseAndBind(fmt::format("is_not_null({})", text), schema));
    ROWJIT_ASSIGN_OR_RETURN(b.handles.emplace_back(), engine.PrepareExpression(e));
    ROWJIT_ASSIGN_OR_RETURN(b.predicate_handles.emplace_back(), engine.PrepareExpression(p));
    if (!IsString(e->type().id)) b.fixed.push_back(e);
    b.exprs.push_back(std::move(e));
    b.predicates.push_back(std::move(p));
  }
  ROWJIT_ASSIGN_OR_RETURN(b.projection, engine.PrepareProjection(b.exprs));
  return b;
}

// Every call under `sel` against the reference over the taken rows; `where` names the case.
void CheckUnder(Engine& engine, const Bound& b, const std::vector<ArrayPtr>& cols, const SelectionVector& sel,
                const EvalOptions& o, const std::string& where, Counts& n) {
  const std::vector<ArrayPtr> taken = Taken(cols, sel);
  std::vector<Result<ArrayPtr>> refs;
  for (size_t k = 0; k < b.exprs.size(); ++k) {
    const ir::ExprPtr& e = b.exprs[k];
    const std::string at = where + ": " + e->ToString();
    const Result<ArrayPtr> ref = ReferenceUnder(*e, taken, sel);
    const std::string want = testing::ResultText(ref);
    // The columns bind (a type error on both sides would compare equal and prove nothing).
    ASSERT_TRUE(ref.ok() || ref.error().code() != ErrorCode::kTypeError) << at << ": " << want;
    refs.push_back(ref);
    ++n.evaluations;
    n.errors += !ref.ok();
    if (ref.ok()) n.rows += sel.size();
    ++(RouteSelection(*e, cols, kLength, sel.size()) == SelectionWay::kWhole ? n.whole : n.gathered);
    ASSERT_EQ(testing::ResultText(engine.Evaluate(e, cols, kLength, sel, o)), want) << at << " (Evaluate)";
    ASSERT_EQ(testing::ResultText(b.handles[k]->Evaluate(cols, kLength, sel)), want) << at << " (prepared)";
    if (!IsString(e->type().id)) {
      Memory m(sel.size());
      ASSERT_EQ(testing::ResultText(engine.EvaluateInto(e, cols, kLength, sel, m.Buffers(), o)), want)
          << at << " (EvaluateInto)";
    }
    // The filter of the selected rows: those where the predicate's reference is true.
    const std::string rows = testing::ResultText(TrueRowsOf(ReferenceUnder(*b.predicates[k], taken, sel), sel));
    const std::string pred = " (Filter: " + b.predicates[k]->ToString() + ")";
    ASSERT_EQ(testing::ResultText(engine.Filter(b.predicates[k], cols, kLength, sel, o)), rows) << at << pred;
    ASSERT_EQ(testing::ResultText(b.predicate_handles[k]->Filter(cols, kLength, sel)), rows) << at << " prepared" << pred;
    ++n.filters;
  }
  // Every expression in one projection, and (so that values are compared where one output
  // fails) the outputs the reference computes without an error.
  const std::string want = testing::ResultText(ProjectionReference(refs));
  ASSERT_EQ(testing::ResultText(engine.Project(b.exprs, cols, kLength, sel, o)), want) << where << " (Project)";
  ASSERT_EQ(testing::ResultText(b.projection->Project(cols, kLength, sel)), want) << where << " (prepared Project)";
  std::vector<ir::ExprPtr> good;
  std::vector<Result<ArrayPtr>> good_refs, fixed_refs;
  for (size_t k = 0; k < b.exprs.size(); ++k) {
    if (refs[k].ok()) {
      good.push_back(b.exprs[k]);
      good_refs.push_back(refs[k]);
    }
    if (!IsString(b.exprs[k]->type().id)) fixed_refs.push_back(refs[k]);
  }
  if (!good.empty()) {
    ASSERT_EQ(testing::ResultText(engine.Project(good, cols, kLength, sel, o)),
              testing::ResultText(ProjectionReference(good_refs)))
        << where << " (Project of the outputs that succeed)";
  }
  // Into caller memory: the outputs of a fixed width.
  std::vector<Memory> memory;
  std::vector<OutputBuffers> outs;
  for (size_t k = 0; k < b.fixed.size(); ++k) memory.emplace_back(sel.size());
  for (Memory& m : memory) outs.push_back(m.Buffers());
  ASSERT_FALSE(b.fixed.empty()) << where;
  ASSERT_EQ(testing::ResultText(engine.ProjectInto(b.fixed, cols, kLength, sel, outs, o)),
            testing::ResultText(ProjectionReference(fixed_refs)))
      << where << " (ProjectInto)";
  ++n.projections;
}

TEST(Selection, EveryLogicalTypeUnderEverySelectedFractionAgainstReference) {
  auto engine = std::move(Engine::Make()).value();
  Counts n;
  uint64_t seed = 5500;
  for (const TypeCase& tc : kTypeCases) {
    const Schema schema = *ParseSchema(fmt::format("t:{0}?, u:{0}?, a:i32", tc.type));
    Result<Bound> bound = BindType(*engine, tc, schema);
    ASSERT_TRUE(bound.ok()) << tc.type << ": " << bound.error().ToString();
    // Two batches per type, each under every fraction: t flat, then t a dictionary; u flat, a
    // dictionary or a constant.
    for (Shape t_shape : {Shape::kFlat, Shape::kDictionary}) {
      ++seed;
      std::mt19937_64 rng(seed);
      const Shape u_shape = std::vector<Shape>{Shape::kFlat, Shape::kDictionary, Shape::kConstant}[rng() % 3];
      const std::vector<ArrayPtr> cols = {Column(schema.fields[0], t_shape, 0.85, rng),
                                          Column(schema.fields[1], u_shape, 0.95, rng),
                                          Column(schema.fields[2], Shape::kFlat, 1.0, rng)};
      for (size_t c = 0; c < cols.size(); ++c) {  // every encoding keeps the field's whole type
        ASSERT_NE(cols[c], nullptr) << "seed " << seed << " " << tc.type;
        ASSERT_TRUE(cols[c]->type().SameType(schema.fields[c].type))
            << "seed " << seed << ": " << EncodingName(cols[c]->encoding()) << " " << cols[c]->type().ToString();
      }
      for (double fraction : kFractions) {
        const SelectionVector sel = Fraction(kLength, fraction, rng);
        const EvalOptions o{.tier = rng() % 3 == 0 ? std::optional<Tier>(Tier::kFast) : std::nullopt};
        const std::string where = fmt::format("seed {}: {} t {} u {}, {} of {} rows selected", seed, tc.type,
                                              EncodingName(cols[0]->encoding()), EncodingName(cols[1]->encoding()),
                                              sel.size(), kLength);
        CheckUnder(*engine, *bound, cols, sel, o, where, n);
        ASSERT_FALSE(HasFatalFailure());
      }
    }
  }
  // What the cases reached: both ways of evaluating under a selection, errors, and values.
  EXPECT_GE(n.whole, 250);
  EXPECT_GE(n.gathered, 800);
  EXPECT_GE(n.errors, 150);
  EXPECT_GE(n.rows, 250 * kLength);
  EXPECT_EQ(n.filters, n.evaluations);
  EXPECT_EQ(n.projections, static_cast<int64_t>(std::size(kTypeCases) * 2 * std::size(kFractions)));
}

}  // namespace
}  // namespace rowjit::jit
