// Differential tests: the JIT against the reference evaluator over random expressions (every
// catalog function, every type), constant patterns, null densities, bit offsets, lengths around
// 64, encodings, every forced policy and tier, and kernels read from the disk cache. Values,
// nulls and first-failing-row errors must match.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>

#include "ir/binder.h"
#include "ir/reference.h"
#include "jit/api/engine.h"
#include "jit/plan/planner.h"
#include "jit/plan/route.h"
#include "kernels/bitmap.h"
#include "runtime/selection.h"
#include "runtime/random.h"
#include "support/random_data.h"
#include "support/sanitized.h"

namespace rowjit::jit {
namespace {

struct Case {
  int64_t length;
  double valid;
  int64_t offset;
  ir::Policy policy;
  bool moderate;
  std::optional<Tier> tier = std::nullopt;  // forced, or the engine's tiering
};

constexpr int64_t kLengths[] = {0, 1, 63, 64, 65, 4097};
constexpr double kDensities[] = {0.0, 0.5, 0.99, 1.0};
constexpr int64_t kOffsets[] = {0, 3, 63};
constexpr ir::Policy kPolicies[] = {ir::Policy::kAuto, ir::Policy::kDense, ir::Policy::kDenseRetry,
                                    ir::Policy::kBranchSkip, ir::Policy::kFilterScatter};

constexpr std::optional<Tier> kTiers[] = {std::nullopt, Tier::kFast, Tier::kOptimized};

// Random batches per expression in the long differential runs, and the floors on what they reach
// (rows compared, errors, layouts, tiers), which scale with it. Under the sanitizers every
// expression still runs, over half as many batches: the two runs are among the longest of the
// sanitized JIT tests (ctest prints each test's time).
constexpr int kBatchesPerExpression = testing::kSanitized ? 100 : 200;
constexpr int64_t AtLeast(int64_t at_200_batches) { return at_200_batches * kBatchesPerExpression / 200; }

std::string Describe(const Case& c) {
  return fmt::format("length {} valid {} offset {} policy {} values {} tier {}", c.length, c.valid, c.offset,
                     ir::PolicyName(c.policy), c.moderate ? "moderate" : "mixed",
                     c.tier ? TierName(*c.tier) : "engine's");
}

// Columns for one case: the referenced ones random (flat, dictionary, byte-bool or constant),
// the others absent.
std::vector<ArrayPtr> MakeColumns(const Schema& schema, const std::vector<int>& refs, const Case& c,
                                  std::mt19937_64& rng, std::string* layout,
                                  std::map<std::string, int64_t>* drawn = nullptr) {
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
    EXPECT_NE(columns[i], nullptr) << "no array for " << schema.fields[i].name;
    if (drawn != nullptr) ++(*drawn)[how.substr(0, how.find(' '))];
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

// WriteInto's answer read back as an array over the caller's memory, whose null count must be
// the one WriteInto returned.
Result<ArrayPtr> WrittenArray(const Result<int64_t>& nulls, const DataType& type, int64_t n, const OutputBuffers& out) {
  if (!nulls.ok()) return nulls.error();
  const bool bits = type.id == TypeId::kBool;
  BufferPtr values = Buffer::Lend(out.values, bits ? (n + 63) / 64 * 8 : n * ByteWidth(type.id));
  Validity validity = Validity::AllValid();
  if (type.nullable) {
    ROWJIT_ASSIGN_OR_RETURN(validity, Validity::FromBitmap(Buffer::Lend(out.validity, (n + 63) / 64 * 8), 0, n));
  }
  Result<ArrayPtr> a = bits ? Result<ArrayPtr>(BoolArray::Make(n, values, validity, 0, type.nullable))
                            : Result<ArrayPtr>(PrimitiveArray::Make(type, n, values, validity));
  if (a.ok() && (*a)->NullCount() != *nulls) {
    return MakeError(ErrorCode::kInternal, "WriteInto counted {} nulls; its validity holds {}", *nulls,
                     (*a)->NullCount());
  }
  return a;
}

// The referenced columns as raw buffers for WriteBuffers (their bits copied to offset 0; other
// encodings flattened first), or nullopt when one has no raw form (strings) or stays encoded.
struct RawBatch {
  std::vector<ColumnBuffers> columns;
  std::vector<std::vector<uint64_t>> bits;  // copies the columns point into
  std::vector<ArrayPtr> flat;               // flattened columns they point into
};
std::optional<RawBatch> RawOf(const std::vector<ArrayPtr>& columns, const std::vector<int>& refs, int64_t n) {
  RawBatch raw;
  raw.columns.resize(columns.size());
  raw.bits.reserve(2 * refs.size());  // no reallocation: the columns point into them
  auto copy_bits = [&](kernels::BitSpan s) {
    raw.bits.emplace_back(static_cast<size_t>(kernels::NumWords(n)) + 1);
    kernels::BitmapCopy(s, reinterpret_cast<uint8_t*>(raw.bits.back().data()));
    return raw.bits.back().data();
  };
  for (int c : refs) {
    ArrayPtr a = columns[static_cast<size_t>(c)];
    if (IsString(a->type().id)) return std::nullopt;
    if (a->encoding() != Encoding::kPrimitive && a->encoding() != Encoding::kBool) {
      Result<ArrayPtr> flat = Take(*a, *SelectionVector::All(n));
      if (!flat.ok()) return std::nullopt;
      a = *flat;
      raw.flat.push_back(a);
    }
    const Validity v = ValidityOf(*a);
    ColumnBuffers& b = raw.columns[static_cast<size_t>(c)];
    if (v.has_bitmap()) b.validity = copy_bits(v.Span(n));
    if (v.all_null()) b.validity = copy_bits({nullptr, 0, 0});  // zero words: every row null
    if (a->encoding() == Encoding::kPrimitive) {
      b.values = static_cast<const PrimitiveArray&>(*a).raw_values();
    } else if (a->encoding() == Encoding::kBool) {
      b.values = copy_bits(static_cast<const BoolArray&>(*a).bits());
    } else {
      return std::nullopt;
    }
  }
  return raw;
}

struct Totals {
  int64_t cases = 0, errors = 0, failures = 0;
  int64_t compared_rows = 0;  // rows of successful evaluations compared value by value
  std::map<std::string, int64_t> inputs;  // inputs drawn, by layout ("flat", "dictionary", ...)
  std::map<std::string, int64_t> tiers;   // evaluations by the tier that ran
  int64_t prepared_layouts = 0;           // prepared runs: layouts planned and held
  int64_t direct_calls = 0;               // prepared runs: calls the held kernel answered directly
  int64_t buffers_calls = 0;              // prepared runs: calls through WriteBuffers
  int64_t buffers_direct = 0;             // of those, calls the held kernel answered directly
};

// How a differential run evaluates: through Engine::Evaluate, or through a PreparedExpression
// per expression and options (its layouts met batch after batch, in random order), returning
// fresh arrays or writing into caller memory (EvaluateInto and WriteInto, in turn).
enum class Through : uint8_t { kEvaluate, kPrepared };

// `expressions` random expressions from `first_seed`, `per_expression` cases each.
Totals RunDifferential(Engine& engine, uint64_t first_seed, int expressions, int per_expression,
                       int max_depth, bool force_tiers = true, Through through = Through::kEvaluate) {
  const Schema schema = testing::WideSchema();
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
    std::map<std::string, std::unique_ptr<PreparedExpression>> handles;  // by policy and tier
    for (int k = 0; k < per_expression; ++k) {
      Case c{kLengths[rng() % std::size(kLengths)], kDensities[rng() % std::size(kDensities)],
             kOffsets[rng() % std::size(kOffsets)], kPolicies[rng() % std::size(kPolicies)],
             rng() % 2 == 0, kTiers[rng() % std::size(kTiers)]};
      if (!force_tiers) c.tier = std::nullopt;
      if (c.length == 4097 && rng() % 3 != 0) c.length = 65;  // keep the long case occasional
      std::string layout;
      const auto columns = MakeColumns(schema, refs, c, rng, &layout, &totals.inputs);
      EvalReport report;
      const EvalOptions options{.policy = c.policy, .tier = c.tier};
      Result<ArrayPtr> jit = Error(ErrorCode::kInternal, "not evaluated");
      std::vector<uint64_t> values(static_cast<size_t>(c.length) + 1), validity(static_cast<size_t>(c.length) / 64 + 1);
      if (through == Through::kPrepared) {
        std::unique_ptr<PreparedExpression>& handle = handles[fmt::format(
            "{} {}", ir::PolicyName(c.policy), c.tier ? TierName(*c.tier) : "engine's")];
        if (handle == nullptr) handle = engine.PrepareExpression(*expr, options).value();
        const OutputBuffers out{.values = values.data(), .values_bytes = static_cast<int64_t>(values.size() * 8),
                                .validity = validity.data(), .validity_bytes = static_cast<int64_t>(validity.size() * 8)};
        const std::optional<RawBatch> raw = k % 4 == 3 ? RawOf(columns, refs, c.length) : std::nullopt;
        if (k % 4 == 0) jit = handle->Evaluate(columns, c.length, &report);
        if (k % 4 == 1) jit = handle->EvaluateInto(columns, c.length, out, &report);
        if (k % 4 == 2 || (k % 4 == 3 && !raw)) {
          jit = WrittenArray(handle->WriteInto(columns, c.length, out, &report), (*expr)->type(), c.length, out);
        }
        if (raw) {
          jit = WrittenArray(handle->WriteBuffers(raw->columns, c.length, out, &report), (*expr)->type(), c.length, out);
          ++totals.buffers_calls;
          totals.buffers_direct += report.direct;
        }
      } else {
        jit = engine.Evaluate(*expr, columns, c.length, options, &report);
      }
      if (report.tier) ++totals.tiers[std::string(TierName(*report.tier))];
      totals.direct_calls += report.direct;
      auto ref = ir::EvaluateReference(**expr, columns, c.length);
      ++totals.cases;
      totals.errors += !ref.ok();
      if (jit.ok() && ref.ok()) totals.compared_rows += c.length;
      const std::string diff = Compare(jit, ref);
      if (!diff.empty()) {
        ++totals.failures;
        if (totals.failures <= 10) {
          ADD_FAILURE() << "seed " << seed << " case " << k << ": " << (*expr)->ToString() << "\n  "
                        << Describe(c) << "\n  inputs:" << layout << "\n  " << diff;
        }
      }
    }
    for (const auto& [options, handle] : handles) totals.prepared_layouts += static_cast<int64_t>(handle->layouts());
  }
  return totals;
}

TEST(Differential, RandomExpressionsAgainstReference) {
  auto engine = Engine::Make();
  ASSERT_TRUE(engine.ok()) << engine.error().ToString();
  const Totals t = RunDifferential(**engine, 1, 100, kBatchesPerExpression, 4);
  EXPECT_EQ(t.failures, 0);
  // What the cases reached: many rows compared value by value, the error paths, and every input
  // layout (the encoders fall back to flat where they cannot re-encode).
  EXPECT_GE(t.compared_rows, AtLeast(1000000));
  EXPECT_GE(t.errors, AtLeast(100));
  for (const char* layout : {"flat", "dictionary", "byte-bool", "constant"}) {
    EXPECT_GE(t.inputs.count(layout) ? t.inputs.at(layout) : 0, AtLeast(100)) << layout;
  }
  // Both compiled tiers answered many cases (the static tier has its own test below).
  for (const char* tier : {"fast", "optimized"}) {
    EXPECT_GE(t.tiers.count(tier) ? t.tiers.at(tier) : 0, AtLeast(1000)) << tier;
  }
}

// The same through prepared expressions: each handle meets one expression's batches in random
// layouts, lengths, offsets and densities, and must answer as the reference does, whether a
// layout is new (planned), held (its kernel run directly) or beyond what it keeps.
TEST(Differential, PreparedExpressionsAgainstReference) {
  auto engine = Engine::Make();
  ASSERT_TRUE(engine.ok()) << engine.error().ToString();
  const Totals t =
      RunDifferential(**engine, 3001, 60, kBatchesPerExpression, 4, /*force_tiers=*/true, Through::kPrepared);
  EXPECT_EQ(t.failures, 0);
  EXPECT_GE(t.compared_rows, AtLeast(500000));
  EXPECT_GE(t.errors, AtLeast(50));
  EXPECT_GE(t.prepared_layouts, AtLeast(500));  // layouts held: later batches of them ran the held kernel
  EXPECT_GE(t.direct_calls, AtLeast(300)) << "calls answered by a held kernel's direct call";
  EXPECT_GE(t.buffers_calls, AtLeast(300)) << "calls through WriteBuffers";
  EXPECT_GE(t.buffers_direct, AtLeast(50)) << "WriteBuffers calls answered by the direct call";
  for (const char* tier : {"fast", "optimized"}) {
    EXPECT_GE(t.tiers.count(tier) ? t.tiers.at(tier) : 0, AtLeast(500)) << tier;
  }
}

// An expression the static kernels cover: checked and wrapping add, sub, mul over columns and
// literals of type `t`, under a comparison at the root half of the time.
std::string StaticExpression(TypeId t, int depth, std::mt19937_64& rng) {
  auto leaf = [&] {
    if (rng() % 4 == 0) return RandomValue(t, rng).ToString();
    return fmt::format("{}_{}", rng() % 2 ? "n" : "c", TypeIdName(t));
  };
  std::function<std::string(int)> node = [&](int d) -> std::string {
    if (d == 0 || rng() % 4 == 0) return leaf();
    const char* ops[] = {"add", "sub", "mul", "wrapping_add", "wrapping_sub", "wrapping_mul"};
    const bool is_float = t == TypeId::kF32 || t == TypeId::kF64;
    const char* op = ops[rng() % (is_float ? 3 : 6)];
    return fmt::format("{}({}, {})", op, node(d - 1), node(d - 1));
  };
  std::string e = node(depth);
  if (rng() % 2 == 0) {
    const char* cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    e = fmt::format("{}({}, {})", cmps[rng() % 6], e, node(depth - 1));
  }
  return e;
}

// The static tier against the reference: expressions it covers, through an engine whose
// optimized compile never starts, so every evaluation of them runs the static kernels (a row
// that fails goes to the fast kernel, whose error must still equal the reference's).
TEST(Differential, StaticTierAgainstReference) {
  auto engine = Engine::Make({.optimize_after_uses = 1 << 30});
  ASSERT_TRUE(engine.ok()) << engine.error().ToString();
  const Schema schema = testing::WideSchema();
  Totals totals;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    std::mt19937_64 rng(seed);
    TypeId t = kAllTypeIds[rng() % std::size(kAllTypeIds)];
    if (t == TypeId::kBool) t = TypeId::kI16;
    const std::string text = StaticExpression(t, 1 + static_cast<int>(rng() % 3), rng);
    auto expr = ir::ParseAndBind(text, schema);
    ASSERT_TRUE(expr.ok()) << "seed " << seed << ": " << text << ": " << expr.error().ToString();
    const auto refs = ir::ReferencedColumns(**expr);
    for (int k = 0; k < 30; ++k) {
      Case c{kLengths[rng() % std::size(kLengths)], kDensities[rng() % std::size(kDensities)],
             kOffsets[rng() % std::size(kOffsets)], ir::Policy::kAuto, rng() % 2 == 0};
      std::string layout;
      const auto columns = MakeColumns(schema, refs, c, rng, &layout, &totals.inputs);
      EvalReport report;
      auto jit = (*engine)->Evaluate(*expr, columns, c.length, {}, &report);
      if (report.tier) ++totals.tiers[std::string(TierName(*report.tier))];
      auto ref = ir::EvaluateReference(**expr, columns, c.length);
      totals.errors += !ref.ok();
      const std::string diff = Compare(jit, ref);
      if (!diff.empty() && ++totals.failures <= 10) {
        ADD_FAILURE() << "seed " << seed << " case " << k << ": " << (*expr)->ToString() << "\n  "
                      << Describe(c) << "\n  inputs:" << layout << "\n  " << diff;
      }
    }
  }
  EXPECT_EQ(totals.failures, 0);
  EXPECT_GE(totals.tiers["static"], 1000);  // the rest: constant or all-null batches, failing rows
  EXPECT_GE(totals.errors, 50);  // overflowing rows, handed to the fast tier
  EXPECT_EQ((*engine)->cache_stats().compiles, 0);
}

// The disk cache path: one engine compiles and stores every kernel of these cases, a fresh
// tiered engine on the same folder answers them all from disk (no compile in either tier), and
// both agree with the reference.
TEST(Differential, KernelsReadFromTheDiskCacheAgainstReference) {
  const std::string folder = (std::filesystem::temp_directory_path() /
                              fmt::format("rowjit-differential-{}", ::getpid())).string();
  std::filesystem::remove_all(folder);
  {
    auto writer = Engine::Make({.cache_dir = folder, .compile = EngineOptions::Compile::kSynchronous});
    ASSERT_TRUE(writer.ok()) << writer.error().ToString();
    EXPECT_EQ(RunDifferential(**writer, 500, 20, 40, 3, /*force_tiers=*/false).failures, 0);
    EXPECT_GT((*writer)->disk_cache_stats().stores, 20);
  }
  auto reader = Engine::Make({.cache_dir = folder});
  ASSERT_TRUE(reader.ok()) << reader.error().ToString();
  const Totals t = RunDifferential(**reader, 500, 20, 40, 3, /*force_tiers=*/false);
  EXPECT_EQ(t.failures, 0);
  const CacheStats s = (*reader)->cache_stats();
  EXPECT_GT(s.disk_loads, 20);
  EXPECT_EQ(s.compiles + s.fast_compiles, 0) << "a kernel was compiled although it was on disk";
  std::filesystem::remove_all(folder);
}

// Whether every referenced input is flat (no batch constant, dictionary or byte-bool): then the
// batch is what a schema describes.
bool AllFlat(const std::vector<ArrayPtr>& columns, const std::vector<int>& refs) {
  for (int c : refs) {
    if (columns[c]->encoding() != Encoding::kPrimitive && columns[c]->encoding() != Encoding::kBool) {
      return false;
    }
  }
  return true;
}

// The engine runs the route and the kernel the route and the planner name: over random
// expressions and batches (every policy, encodings, nulls, offsets, lengths), the route in
// EvalReport is the one RouteEvaluation returns for the call, and its kernel the one PlanKernel
// names for the same batch; and for flat batches it is the one PlanKernel names from the inputs'
// descriptions, which is what `rowjit ir`, `check` and the catalog gate inspect. A fresh engine
// per expression: policy auto is compared on its first evaluation, before any retry pressure.
TEST(Differential, EngineRunsTheRouteAndKernelThePlannerNames) {
  const Schema schema = testing::WideSchema();
  int compared = 0, from_specs = 0, without_kernel = 0;
  for (uint64_t seed = 500; seed < 540; ++seed) {
    auto engine = Engine::Make();
    ASSERT_TRUE(engine.ok()) << engine.error().ToString();
    std::mt19937_64 rng(seed);
    const std::string text = testing::RandomExpression(kAllTypeIds[rng() % std::size(kAllTypeIds)],
                                                       schema, 1 + static_cast<int>(rng() % 3), rng);
    auto expr = ir::ParseAndBind(text, schema);
    ASSERT_TRUE(expr.ok()) << text << ": " << expr.error().ToString();
    const auto refs = ir::ReferencedColumns(**expr);
    for (int k = 0; k < 25; ++k) {
      Case c{kLengths[rng() % std::size(kLengths)], kDensities[rng() % std::size(kDensities)],
             kOffsets[rng() % std::size(kOffsets)],
             k == 0 ? ir::Policy::kAuto : kPolicies[1 + rng() % (std::size(kPolicies) - 1)], rng() % 2 == 0};
      std::string layout;
      const auto columns = MakeColumns(schema, refs, c, rng, &layout);
      EvalReport report;
      (void)(*engine)->Evaluate(*expr, columns, c.length, EvalOptions{c.policy}, &report);
      const std::string where = fmt::format("seed {} case {}: {}\n  {}\n  inputs:{}", seed, k,
                                            (*expr)->ToString(), Describe(c), layout);
      const Route route = RouteEvaluation(**expr, CallFacts{.columns = columns, .length = c.length, .policy = c.policy});
      EXPECT_EQ(report.route, route) << where << "\n  ran route " << RouteName(report.route) << ", routed "
                                     << RouteName(route);
      auto planned = PlanKernel(*expr, columns, c.length, c.policy);
      if (!report.kernel) {
        EXPECT_FALSE(planned.ok()) << where << "\n  ran no kernel, planned " << planned->ToString();
        ++without_kernel;
        continue;
      }
      ASSERT_TRUE(planned.ok()) << where << "\n  " << planned.error().ToString();
      // A speculative kernel whose data had a wide operand hands its batches to its exact twin,
      // which the report then names.
      const bool twin = planned->shape.speculative_mul && !report.kernel->shape.speculative_mul;
      if (twin) planned->shape.speculative_mul = false;
      EXPECT_EQ(*report.kernel, *planned) << where << "\n  ran " << report.kernel->ToString()
                                          << "\n  planned " << planned->ToString();
      ++compared;
      if (!AllFlat(columns, refs)) continue;
      std::vector<ir::InputSpec> specs(columns.size());
      for (int col : refs) specs[col] = ir::DescribeInput(*columns[col]);
      auto described = PlanKernel(*expr, specs, c.policy);
      ASSERT_TRUE(described.ok()) << where << "\n  " << described.error().ToString();
      // Descriptions plan a full-size batch; a batch under 64 rows runs the same kernel but for
      // its short-batch loop (KernelShape::short_batch), which never speculates. A bool result
      // is packed by a word loop over full-size batches (unless a lane reads a bool word), and
      // a short batch's loop writes it a byte a row.
      const bool reads_bool_words = std::any_of(refs.begin(), refs.end(), [&](int col) {
        return specs[col].shape == ir::InputShape::kFlat && specs[col].type == TypeId::kBool;
      });
      const bool packs_words = described->shape.loop == KernelLoop::kWords && (*expr)->type().id == TypeId::kBool &&
                               !reads_bool_words && !described->shape.length_prefilter && !described->shape.fold &&
                               !described->shape.mask_evidence;
      if (IsShortBatch(c.length) && (described->shape.loop == KernelLoop::kRows || packs_words)) {
        described->shape.loop = KernelLoop::kRows;
        described->shape.short_batch = true;
        described->shape.speculative_mul = false;
      }
      if (twin) described->shape.speculative_mul = false;
      EXPECT_EQ(*report.kernel, *described) << where << "\n  ran " << report.kernel->ToString()
                                            << "\n  described " << described->ToString();
      ++from_specs;
    }
  }
  EXPECT_GE(compared, 500);
  EXPECT_GE(from_specs, 200);
  EXPECT_GE(without_kernel, 20);  // empty, constant and null-constant batches are covered
}

}  // namespace
}  // namespace rowjit::jit
