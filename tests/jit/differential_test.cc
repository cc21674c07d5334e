// Differential tests: the JIT against the reference evaluator over random expressions (every
// catalog function, every type), constant patterns, null densities, bit offsets, lengths around
// 64, encodings and every forced policy. Values, nulls and first-failing-row errors must match.
#include <gtest/gtest.h>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/engine.h"
#include "runtime/random.h"
#include "support/random_data.h"

namespace rowjit::jit {
namespace {

// One nullable and one non-nullable column of every type: n_i32 is i32?, c_i32 is i32.
Schema WideSchema() {
  Schema s;
  for (TypeId id : kAllTypeIds) {
    s.fields.push_back(Field{"n_" + std::string(TypeIdName(id)), DataType(id, true)});
    s.fields.push_back(Field{"c_" + std::string(TypeIdName(id)), DataType(id, false)});
  }
  return s;
}

struct Case {
  int64_t length;
  double valid;
  int64_t offset;
  ir::Policy policy;
  bool moderate;
};

constexpr int64_t kLengths[] = {0, 1, 63, 64, 65, 4097};
constexpr double kDensities[] = {0.0, 0.5, 0.99, 1.0};
constexpr int64_t kOffsets[] = {0, 3, 63};
constexpr ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                    ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};

std::string Describe(const Case& c) {
  return fmt::format("length {} valid {} offset {} policy {} values {}", c.length, c.valid, c.offset,
                     ir::PolicyName(c.policy), c.moderate ? "moderate" : "mixed");
}

// Columns for one case: the referenced ones random (flat, dictionary, byte-bool or constant),
// the others absent.
std::vector<ArrayPtr> MakeColumns(const Schema& schema, const std::vector<int>& refs, const Case& c,
                                  std::mt19937_64& rng, std::string* layout) {
  std::vector<ArrayPtr> columns(schema.fields.size());
  for (int i : refs) {
    const DataType t = schema.fields[i].type;
    const int pick = static_cast<int>(rng() % 8);
    std::string how;
    if (pick == 0) {  // a batch constant, sometimes null
      Scalar v = t.nullable && rng() % 3 == 0 ? Scalar::Null(t.id) : RandomValue(t.id, rng);
      columns[i] = *ConstantArray::Make(v, c.length, t.nullable);
      how = "constant " + v.ToString();
    } else {
      ArraySpec spec{t, c.length, c.valid, c.offset,
                     rng() % 2 ? NullLayout::kScattered : NullLayout::kClustered,
                     c.moderate ? ValueMode::kModerate : ValueMode::kMixed};
      columns[i] = RandomFlatArray(spec, rng);
      how = "flat";
      if (pick == 1) {
        columns[i] = t.id == TypeId::kBool ? AsByteBool(columns[i]) : AsDictionary(columns[i], rng);
        how = std::string(EncodingName(columns[i]->encoding()));
      }
    }
    *layout += fmt::format(" {}={}", schema.fields[i].name, how);
  }
  return columns;
}

// Compares one evaluation; returns an empty string when JIT and reference agree.
std::string Compare(const Result<ArrayPtr>& jit, const Result<ArrayPtr>& ref) {
  if (jit.ok() != ref.ok()) {
    return fmt::format("jit {} but reference {}", jit.ok() ? "succeeded" : jit.error().ToString(),
                       ref.ok() ? "succeeded" : ref.error().ToString());
  }
  if (!jit.ok()) {
    if (jit.error() == ref.error()) return "";
    return fmt::format("errors differ: jit {} reference {}", jit.error().ToString(), ref.error().ToString());
  }
  const Array& a = **jit;
  const Array& b = **ref;
  if (a.type() != b.type() || a.length() != b.length()) {
    return fmt::format("shape differs: jit {} x{} reference {} x{}", a.type().ToString(), a.length(),
                       b.type().ToString(), b.length());
  }
  const int64_t d = FirstDifference(a, b);
  if (d < 0) return "";
  return fmt::format("row {} differs: jit {} reference {}", d, a.GetScalar(d).ToString(), b.GetScalar(d).ToString());
}

struct Totals {
  int64_t cases = 0, errors = 0, failures = 0;
};

// `expressions` random expressions from `first_seed`, `per_expression` cases each.
Totals RunDifferential(Engine& engine, uint64_t first_seed, int expressions, int per_expression,
                       int max_depth) {
  const Schema schema = WideSchema();
  Totals totals;
  for (uint64_t seed = first_seed; seed < first_seed + expressions; ++seed) {
    std::mt19937_64 rng(seed);
    const TypeId want = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    const int depth = 1 + static_cast<int>(rng() % max_depth);
    const std::string text = testing::RandomExpression(want, schema, depth, rng);
    auto expr = ir::ParseAndBind(text, schema);
    if (!expr.ok()) {
      ADD_FAILURE() << "seed " << seed << ": " << text << ": " << expr.error().ToString();
      continue;
    }
    const auto refs = ir::ReferencedColumns(**expr);
    for (int k = 0; k < per_expression; ++k) {
      Case c{kLengths[rng() % std::size(kLengths)], kDensities[rng() % std::size(kDensities)],
             kOffsets[rng() % std::size(kOffsets)], kPolicies[rng() % std::size(kPolicies)],
             rng() % 2 == 0};
      if (c.length == 4097 && rng() % 3 != 0) c.length = 65;  // keep the long case occasional
      std::string layout;
      const auto columns = MakeColumns(schema, refs, c, rng, &layout);
      auto jit = engine.Evaluate(*expr, columns, c.length, EvalOptions{c.policy});
      auto ref = ir::EvaluateReference(**expr, columns, c.length);
      ++totals.cases;
      totals.errors += !ref.ok();
      const std::string diff = Compare(jit, ref);
      if (!diff.empty()) {
        ++totals.failures;
        if (totals.failures <= 10) {
          ADD_FAILURE() << "seed " << seed << " case " << k << ": " << (*expr)->ToString() << "\n  "
                        << Describe(c) << "\n  inputs:" << layout << "\n  " << diff;
        }
      }
    }
  }
  return totals;
}

TEST(Differential, RandomExpressionsAgainstReference) {
  auto engine = std::move(Engine::Make()).value();
  const Totals t = RunDifferential(*engine, 1, 100, 200, 4);
  std::printf("differential: %lld cases (%lld reference errors), %lld failures, %lld kernels compiled\n",
              static_cast<long long>(t.cases), static_cast<long long>(t.errors),
              static_cast<long long>(t.failures), static_cast<long long>(engine->cache_stats().compiles));
  EXPECT_EQ(t.failures, 0);
  EXPECT_GE(t.cases, 20000);
}

}  // namespace
}  // namespace rowjit::jit
