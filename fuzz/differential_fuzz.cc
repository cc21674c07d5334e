// Fuzz target: the JIT against the reference evaluator (fuzz). The fuzzer's bytes choose an
// expression over the catalog, its types, a batch (length, bit offset, null density and layout,
// encodings, constants, extreme values) and a policy; the JIT's result must equal the
// reference's: values, nulls, and the error with its row. A mismatch aborts with the case.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/engine.h"
#include "runtime/builder.h"
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

[[noreturn]] void Mismatch(const ir::Expr& expr, const std::string& layout, int64_t length,
                           ir::Policy policy, const std::string& what) {
  std::fprintf(stderr, "differential fuzz: %s\n  expr %s\n  length %lld policy %s\n  inputs%s\n",
               what.c_str(), expr.ToString().c_str(), static_cast<long long>(length),
               std::string(ir::PolicyName(policy)).c_str(), layout.c_str());
  std::abort();
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
  FuzzedDataProvider in(data, size);
  std::mt19937_64 rng(in.ConsumeIntegral<uint64_t>());
  const TypeId want = in.PickValueInArray(kAllTypeIds);
  const std::string text = testing::RandomExpression(want, schema, in.ConsumeIntegralInRange(1, 4), rng);
  auto expr = ir::ParseAndBind(text, schema);
  if (!expr.ok()) {
    std::fprintf(stderr, "differential fuzz: the generator's %s does not bind: %s\n", text.c_str(),
                 expr.error().ToString().c_str());
    std::abort();
  }
  const int64_t length = in.PickValueInArray<int64_t>({0, 1, 7, 63, 64, 65, 127, 200, 1000});
  const ir::Policy policy = in.PickValueInArray(kPolicies);
  const jit::Tier tier = in.ConsumeBool() ? jit::Tier::kFast : jit::Tier::kOptimized;
  std::vector<ArrayPtr> columns(schema.fields.size());
  std::string layout;
  for (int c : (*expr)->facts().columns) {
    layout += " " + schema.fields[c].name + "=";
    columns[c] = MakeColumn(in, schema.fields[c].type, length, rng, layout);
    if (columns[c] == nullptr) return 0;
  }
  // ROWJIT_FUZZ_VERBOSE=1 prints each case before it runs (to see what a crash ran).
  static const bool verbose = std::getenv("ROWJIT_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    std::fprintf(stderr, "case: %s length %lld policy %s inputs%s\n", (*expr)->ToString().c_str(),
                 static_cast<long long>(length), std::string(ir::PolicyName(policy)).c_str(), layout.c_str());
  }
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
  const int64_t row = FirstDifference(**jit, **ref);
  if (row >= 0) {
    Mismatch(**expr, layout, length, policy,
             fmt::format("row {}: jit {} reference {}", row, (*jit)->GetScalar(row).ToString(),
                         (*ref)->GetScalar(row).ToString()));
  }
  return 0;
}
