// Compile economics: the disk cache (round trips, corrupted, truncated and foreign files, key
// separation, eviction, two processes filling one folder), the tiers (fast first, optimized
// later, a threshold, a background compile that fails), Prepare, and deterministic objects.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/reference.h"
#include "jit/cache/disk_cache.h"
#include "jit/api/engine.h"
#include "jit/plan/planner.h"
#include "runtime/builder.h"
#include "runtime/random.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

namespace fs = std::filesystem;

// A fresh folder under the system's temporary folder, removed with the test.
class Folder {
 public:
  Folder() {
    static int counter = 0;
    path_ = (fs::temp_directory_path() /
             fmt::format("rowjit-test-{}-{}-{}", ::getpid(),
                         ::testing::UnitTest::GetInstance()->current_test_info()->name(), counter++))
                .string();
    fs::remove_all(path_);
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  // The stored objects (not the claim lock files beside them).
  std::vector<fs::path> Files() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(path_)) {
      if (e.path().extension() == DiskCache::kSuffix) out.push_back(e.path());
    }
    return out;
  }

 private:
  std::string path_;
};

std::unique_ptr<DiskCache> OpenCache(const std::string& folder, int64_t bound = 1 << 20) {
  return std::move(DiskCache::Open(folder, bound)).value();
}

std::string Object(int i, size_t bytes = 600) {
  std::string s(bytes, '\0');
  std::mt19937_64 rng(i);
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

TEST(DiskCache, StoresAndLoadsVerified) {
  Folder folder;
  auto cache = OpenCache(folder.path());
  EXPECT_FALSE(cache->Load("key a").has_value());
  ASSERT_OK(cache->Store("key a", Object(1)));
  ASSERT_OK(cache->Store("key b", Object(2)));
  EXPECT_EQ(cache->Load("key a"), Object(1));
  EXPECT_EQ(cache->Load("key b"), Object(2));
  const DiskCacheStats s = cache->stats();
  EXPECT_EQ(s.stores, 2);
  EXPECT_EQ(s.hits, 2);
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(folder.Files().size(), 2u);  // no temporary file left behind
}

// Any damage to a file makes it a miss, never a load; the bad file is removed.
TEST(DiskCache, TornTruncatedCorruptedAndForeignFilesAreNeverLoaded) {
  Folder folder;
  auto cache = OpenCache(folder.path());
  const std::string object = Object(3);
  auto damage = [&](const std::function<void(std::string&)>& how) {
    ASSERT_OK(cache->Store("key", object));
    const std::string path = cache->PathOf("key");
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    how(bytes);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  };
  const std::vector<std::pair<std::string, std::function<void(std::string&)>>> cases = {
      {"a flipped object byte", [](std::string& b) { b[b.size() - 7] ^= 0x10; }},
      {"a flipped key byte", [](std::string& b) { b[34] ^= 0x01; }},
      {"a flipped checksum byte", [](std::string& b) { b[25] ^= 0x01; }},
      {"truncated", [](std::string& b) { b.resize(b.size() - 100); }},
      {"torn header", [](std::string& b) { b.resize(20); }},
      {"empty", [](std::string& b) { b.clear(); }},
      {"grown", [](std::string& b) { b += "tail"; }},
      {"another magic", [](std::string& b) { b[0] = 'X'; }},
  };
  int64_t rejected = 0;
  for (const auto& [name, how] : cases) {
    damage(how);
    EXPECT_FALSE(cache->Load("key").has_value()) << name;
    EXPECT_EQ(cache->stats().rejected, ++rejected) << name;
    EXPECT_FALSE(fs::exists(cache->PathOf("key"))) << name << ": the bad file stays";
  }
  // A whole file of another key under this key's name (a hash collision) is not loaded either.
  ASSERT_OK(cache->Store("other key", object));
  fs::rename(cache->PathOf("other key"), cache->PathOf("key"));
  EXPECT_FALSE(cache->Load("key").has_value());
  // And after all that, a store makes the key loadable again.
  ASSERT_OK(cache->Store("key", object));
  EXPECT_EQ(cache->Load("key"), object);
}

TEST(DiskCache, EvictsLeastRecentlyUsedWithinTheBound) {
  Folder folder;
  constexpr int64_t kBound = 20'000;  // about 30 objects of 600 bytes and their headers
  auto cache = OpenCache(folder.path(), kBound);
  for (int i = 0; i < 20; ++i) ASSERT_OK(cache->Store(fmt::format("key {}", i), Object(i)));
  // Key 0 is read (recently used); keys 1.. are not.
  ASSERT_TRUE(cache->Load("key 0").has_value());
  for (int i = 20; i < 60; ++i) {
    ASSERT_OK(cache->Store(fmt::format("key {}", i), Object(i)));
    if (i % 5 == 0) {
      ASSERT_TRUE(cache->Load("key 0").has_value()) << "evicted although used, at " << i;
    }
  }
  int64_t total = 0;
  for (const fs::path& p : folder.Files()) total += static_cast<int64_t>(fs::file_size(p));
  EXPECT_LE(total, kBound);
  EXPECT_GT(cache->stats().evictions, 0);
  EXPECT_FALSE(cache->Load("key 1").has_value());  // the oldest unused ones went first
  EXPECT_TRUE(cache->Load("key 59").has_value());
}

// Two processes store and load overlapping keys in one folder at once, with a bound that keeps
// evicting: every load returns exactly what was stored under its key, or nothing.
TEST(DiskCache, TwoProcessesFillOneFolder) {
  Folder folder;
  ASSERT_NE(OpenCache(folder.path()), nullptr);  // creates the folder
  auto work = [&](int who) -> int {
    auto cache = OpenCache(folder.path(), 60'000);
    int bad = 0;
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 150; ++i) {
        const int key = i % 2 == 0 ? i : 1000 * who + i;  // even keys shared, odd ones own
        if (!cache->Store(fmt::format("key {}", key), Object(key)).ok()) ++bad;
        const std::optional<std::string> back = cache->Load(fmt::format("key {}", key / 2 * 2));
        if (back && *back != Object(key / 2 * 2)) ++bad;
      }
    }
    return bad;
  };
  std::vector<pid_t> children;
  for (int who = 1; who <= 2; ++who) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(work(who) == 0 ? 0 : 1);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer saw a wrong object";
  }
  // What is left is whole: every file verifies under the key it was stored for.
  auto cache = OpenCache(folder.path(), 60'000);
  int whole = 0;
  for (int key = 0; key < 3000; ++key) {
    if (!fs::exists(cache->PathOf(fmt::format("key {}", key)))) continue;
    const auto back = cache->Load(fmt::format("key {}", key));
    ASSERT_TRUE(back.has_value()) << "key " << key << " is torn";
    EXPECT_EQ(*back, Object(key));
    ++whole;
  }
  EXPECT_GT(whole, 0);
  for (const fs::path& p : folder.Files()) EXPECT_EQ(p.extension(), ".rjk") << p;
}

std::unique_ptr<Engine> NewEngine(EngineOptions options) { return std::move(Engine::Make(options)).value(); }

constexpr EngineOptions::Compile kSynchronous = EngineOptions::Compile::kSynchronous;

struct Workload {
  Schema schema = *ParseSchema("a:i32?, b:i32, c:i64");
  RecordBatch batch = *RandomBatch(schema, 3000, 0.9, 11);
  ir::ExprPtr expr = *ir::ParseAndBind("cast(a * b, i64) + c < 100", schema);
  ArrayPtr reference = *ir::EvaluateReference(*expr, batch.columns, batch.length);
};

TEST(DiskCache, AFreshEngineLoadsWhatAnotherStored) {
  Folder folder;
  Workload w;
  {
    auto writer = NewEngine({.cache_dir = folder.path(), .compile = kSynchronous});
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, writer->Evaluate(w.expr, w.batch, {}, &report));
    EXPECT_EQ(report.source, KernelSource::kCompiled);
    EXPECT_EQ(writer->disk_cache_stats().stores, 1);
  }
  auto reader = NewEngine({.cache_dir = folder.path(), .compile = kSynchronous});
  EvalReport report;
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, reader->Evaluate(w.expr, w.batch, {}, &report));
  EXPECT_EQ(report.source, KernelSource::kDisk);
  EXPECT_EQ(report.tier, Tier::kOptimized);
  EXPECT_GT(report.phases.link_ms, 0);
  EXPECT_EQ(report.phases.codegen_ms, 0);
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
  EXPECT_EQ(reader->cache_stats().disk_loads, 1);
  EXPECT_EQ(reader->cache_stats().compiles, 0);
}

TEST(DiskCache, ACorruptedObjectIsRecompiledNotLoaded) {
  Folder folder;
  Workload w;
  ASSERT_OK(NewEngine({.cache_dir = folder.path(), .compile = kSynchronous})->Evaluate(w.expr, w.batch));
  ASSERT_EQ(folder.Files().size(), 1u);
  {
    std::fstream f(folder.Files()[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-40, std::ios::end);
    f.put('\x7f');
  }
  auto engine = NewEngine({.cache_dir = folder.path(), .compile = kSynchronous});
  EvalReport report;
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(w.expr, w.batch, {}, &report));
  EXPECT_EQ(report.source, KernelSource::kCompiled);
  EXPECT_EQ(engine->disk_cache_stats().rejected, 1);
  EXPECT_EQ(engine->disk_cache_stats().stores, 1);  // the good object replaces the bad one
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
}

// The real compiler under another name: objects made for another CPU, LLVM or rowjit version
// (another ObjectEnvironment); optionally failing every optimized compile.
class OtherCompiler final : public JitCompiler {
 public:
  OtherCompiler(std::string environment, bool fail_optimized)
      : real_(std::move(JitCompiler::Make()).value()),
        environment_(std::move(environment)),
        fail_optimized_(fail_optimized) {}
  Result<KernelObject> Emit(const CacheKey& key, Tier tier) override {
    if (fail_optimized_ && tier == Tier::kOptimized) {
      return MakeError(ErrorCode::kInternal, "the optimizing compiler failed (injected)");
    }
    return real_->Emit(key, tier);
  }
  Result<std::shared_ptr<const CompiledKernel>> Link(const KernelObject& object, const KernelShape& shape,
                                                    Tier tier) override {
    return real_->Link(object, shape, tier);
  }
  std::string ObjectEnvironment() const override { return environment_; }

 private:
  std::unique_ptr<JitCompiler> real_;
  std::string environment_;
  bool fail_optimized_;
};

std::unique_ptr<Engine> EngineWith(EngineOptions options, std::string environment, bool fail_optimized = false) {
  return std::move(Engine::Make(options, std::make_unique<OtherCompiler>(std::move(environment), fail_optimized)))
      .value();
}

// A prepared expression whose optimized compile fails: every call reports the compiler's error,
// as Engine::Evaluate does, and no layout is held without its kernel.
TEST(PreparedExpression, AFailedCompileIsAnErrorEveryCallAndNeverHeld) {
  Workload w;
  auto engine = EngineWith({.compile = kSynchronous}, "failing", /*fail_optimized=*/true);
  auto prepared = std::move(engine->PrepareExpression(w.expr)).value();
  for (int call = 0; call < 3; ++call) {
    auto out = prepared->Evaluate(w.batch.columns, w.batch.length);
    ASSERT_FALSE(out.ok()) << call;
    EXPECT_NE(out.error().ToString().find("injected"), std::string::npos) << out.error().ToString();
    EXPECT_EQ(prepared->layouts(), 0u);
  }
}

TEST(DiskCache, AClaimIsExclusiveUntilItsHandleGoes) {
  Folder folder;
  auto cache = OpenCache(folder.path());
  std::shared_ptr<void> first = cache->Claim("key A");
  ASSERT_NE(first, nullptr);
  std::atomic<bool> second_held{false};
  std::thread waiter([&] {
    std::shared_ptr<void> second = OpenCache(folder.path())->Claim("key A");  // another handle: as another process
    second_held = second != nullptr;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(second_held.load()) << "the same key was claimed twice at once";
  first.reset();
  waiter.join();
  EXPECT_TRUE(second_held.load());
}

TEST(DiskCache, ObjectsOfAnotherCpuOrVersionAreNeverShared) {
  Folder folder;
  Workload w;
  const EngineOptions options{.cache_dir = folder.path(), .compile = kSynchronous};
  ASSERT_OK(EngineWith(options, "cpu A, LLVM 19.1.7, rowjit 0.1.0")->Evaluate(w.expr, w.batch));
  for (const char* other : {"cpu B, LLVM 19.1.7, rowjit 0.1.0", "cpu A, LLVM 19.1.8, rowjit 0.1.0",
                            "cpu A, LLVM 19.1.7, rowjit 0.2.0"}) {
    auto engine = EngineWith(options, other);
    EvalReport report;
    ASSERT_OK(engine->Evaluate(w.expr, w.batch, {}, &report));
    EXPECT_EQ(report.source, KernelSource::kCompiled) << other;
    EXPECT_EQ(engine->disk_cache_stats().hits, 0) << other;
  }
  EXPECT_EQ(folder.Files().size(), 4u);  // one object per environment
  auto same = EngineWith(options, "cpu A, LLVM 19.1.7, rowjit 0.1.0");
  EvalReport report;
  ASSERT_OK(same->Evaluate(w.expr, w.batch, {}, &report));
  EXPECT_EQ(report.source, KernelSource::kDisk);
  // The real environment names what decides an object's bytes.
  const std::string env = std::move(JitCompiler::Make()).value()->ObjectEnvironment();
  for (const char* part : {"rowjit ", "kernel ABI ", "LLVM ", "triple ", "cpu ", "features ", "vector width "}) {
    EXPECT_NE(env.find(part), std::string::npos) << part << " missing from " << env;
  }
  // And the build of the code that generated it (its GNU build ID): a rebuilt rowjit under the
  // same version does not load another build's kernels.
  const size_t build = env.find("(build ");
  ASSERT_NE(build, std::string::npos) << env;
  const std::string id = env.substr(build + 7, env.find(')', build) - build - 7);
  EXPECT_GE(id.size(), 16u) << env;
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << env;
  // Also the zone data an expression's kernel was built from.
  const Schema zoned = *ParseSchema("t:timestamp(us, Europe/Paris)");
  const std::vector<ir::InputSpec> spec = {ir::InputSpec{.type = TypeId::kI64}};
  const CacheKey key = *PlanKernel(*ir::ParseAndBind("year(t)", zoned), spec, ir::Policy::kDense);
  EXPECT_NE(key.Serialize().find("zone Europe/Paris "), std::string::npos) << key.Serialize();
  // A cast into a zone holds that zone's offsets too (its argument has none).
  const Schema local = *ParseSchema("d:date32, s:utf8");
  const std::vector<ir::InputSpec> specs = {ir::InputSpec{.type = TypeId::kI32}, ir::InputSpec{.type = TypeId::kUtf8}};
  for (const char* text : {"cast(d, timestamp(s, America/New_York))", "cast(s, timestamp(s, America/New_York))"}) {
    const CacheKey into = *PlanKernel(*ir::ParseAndBind(text, local), specs, ir::Policy::kDense);
    EXPECT_NE(into.Serialize().find("zone America/New_York "), std::string::npos) << text << ": " << into.Serialize();
  }
  // Fewer descriptions than the columns read: an error, not a read past their end.
  auto short_specs = PlanKernel(*ir::ParseAndBind("cast(s, date32)", local), spec, ir::Policy::kDense);
  ASSERT_FALSE(short_specs.ok());
  EXPECT_EQ(short_specs.error().code(), ErrorCode::kInvalidInput);
}

TEST(DiskCache, KeysNameColumnIndexesAndEveryShapeFlag) {
  const Schema ab = *ParseSchema("a:i32, b:i32");
  const Schema ba = *ParseSchema("b:i32, a:i32");
  auto key = [](const Schema& s, const std::string& text) {
    std::vector<ir::InputSpec> specs(s.fields.size(), ir::InputSpec{.type = TypeId::kI32});
    return *PlanKernel(*ir::ParseAndBind(text, s), specs, ir::Policy::kDense);
  };
  // The same text and inputs over columns in another order: another kernel, another key.
  EXPECT_NE(key(ab, "a - b").Serialize(), key(ba, "a - b").Serialize());
  CacheKey k = key(ab, "a - b");
  const std::string plain = k.Serialize();
  for (auto flip : std::vector<std::function<void(KernelShape&)>>{
           [](KernelShape& s) { s.mask_evidence = !s.mask_evidence; },
           [](KernelShape& s) { s.fold_keep_nan = !s.fold_keep_nan; },
           [](KernelShape& s) { s.fold_counts_rows = !s.fold_counts_rows; },
           [](KernelShape& s) { s.writes_validity = !s.writes_validity; },
           [](KernelShape& s) { s.skip_empty_words = !s.skip_empty_words; }}) {
    CacheKey other = k;
    flip(other.shape);
    EXPECT_NE(other.Serialize(), plain);
  }
}

TEST(Tiers, FirstCallsRunFastThenTheOptimizedKernelTakesOver) {
  Workload w;
  auto engine = NewEngine({});
  EvalReport first;
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(w.expr, w.batch, {}, &first));
  EXPECT_EQ(first.tier, Tier::kFast);
  EXPECT_TRUE(first.compiled);
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
  engine->WaitForCompiles();
  EvalReport later;
  ASSERT_OK_AND_ASSIGN(out, engine->Evaluate(w.expr, w.batch, {}, &later));
  EXPECT_EQ(later.tier, Tier::kOptimized);
  EXPECT_FALSE(later.compiled);
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
  const CacheStats s = engine->cache_stats();
  EXPECT_EQ(s.fast_compiles, 1);
  EXPECT_EQ(s.background_compiles, 1);
  EXPECT_EQ(s.compiles, 1);
  EXPECT_EQ(s.tier_switches, 1);
}

TEST(Tiers, OptimizedCompileStartsAfterTheThreshold) {
  Workload w;
  auto engine = NewEngine({.optimize_after_uses = 3});
  for (int call = 1; call <= 2; ++call) {
    EvalReport report;
    ASSERT_OK(engine->Evaluate(w.expr, w.batch, {}, &report));
    EXPECT_EQ(report.tier, Tier::kFast);
    engine->WaitForCompiles();
    EXPECT_EQ(engine->cache_stats().background_compiles, 0) << "call " << call;
  }
  ASSERT_OK(engine->Evaluate(w.expr, w.batch));
  engine->WaitForCompiles();
  EXPECT_EQ(engine->cache_stats().background_compiles, 1);
  EvalReport report;
  ASSERT_OK(engine->Evaluate(w.expr, w.batch, {}, &report));
  EXPECT_EQ(report.tier, Tier::kOptimized);
}

TEST(Tiers, ForcedTiersAndSynchronousEngines) {
  Workload w;
  auto tiered = NewEngine({});
  EvalReport report;
  ASSERT_OK(tiered->Evaluate(w.expr, w.batch, {.tier = Tier::kOptimized}, &report));
  EXPECT_EQ(report.tier, Tier::kOptimized);  // waited for it
  ASSERT_OK(tiered->Evaluate(w.expr, w.batch, {.tier = Tier::kFast}, &report));
  EXPECT_EQ(report.tier, Tier::kOptimized);  // already there: the better kernel runs
  auto other = NewEngine({});
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(other->Evaluate(w.expr, w.batch, {.tier = Tier::kFast}, &report));
    EXPECT_EQ(report.tier, Tier::kFast);
  }
  other->WaitForCompiles();
  EXPECT_EQ(other->cache_stats().background_compiles, 0);  // kFast never starts the optimizer
  auto synchronous = NewEngine({.compile = kSynchronous});
  ASSERT_OK(synchronous->Evaluate(w.expr, w.batch, {}, &report));
  EXPECT_EQ(report.tier, Tier::kOptimized);
  EXPECT_TRUE(report.compiled);
}

TEST(Tiers, AFailedBackgroundCompileLeavesTheFastKernelServing) {
  Workload w;
  auto engine = EngineWith({}, "failing", /*fail_optimized=*/true);
  for (int call = 0; call < 4; ++call) {
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(w.expr, w.batch, {}, &report));
    EXPECT_EQ(report.tier, Tier::kFast);
    EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
    engine->WaitForCompiles();
  }
  const CacheStats s = engine->cache_stats();
  EXPECT_EQ(s.background_compiles, 1);  // tried once, not on every call
  EXPECT_EQ(s.background_failures, 1);
  EXPECT_EQ(s.fast_compiles, 1);
  // Asked for the optimized kernel, the caller gets the compiler's error.
  auto forced = engine->Evaluate(w.expr, w.batch, {.tier = Tier::kOptimized});
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.error().ToString().find("injected"), std::string::npos) << forced.error().ToString();
}

TEST(Tiers, StagedExpressionsRunAnUnoptimizedTierInEveryStage) {
  const Schema schema = *ParseSchema("a:i64, b:i64");
  auto batch = *RandomBatch(schema, 500, 1.0, 3);
  // Adds and subtracts: every stage in the static tier. With abs: a stage the static kernels do
  // not cover runs the fast tier, and the report names the lower tier.
  for (const char* first : {"a", "abs(a)"}) {
    std::string text = first;
    for (int i = 0; i < 40; ++i) text += i % 2 ? " + b" : " - a";
    auto expr = *ir::ParseAndBind(text, schema);
    auto engine = NewEngine({.max_kernel_nodes = 16});
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(expr, batch, {}, &report));
    EXPECT_EQ(report.route, Route::kStaged);
    EXPECT_EQ(report.tier, std::string_view(first) == "a" ? Tier::kStatic : Tier::kFast) << first;
    EXPECT_EQ(FirstDifference(*out, **ir::EvaluateReference(*expr, batch.columns, batch.length)), -1);
  }
}

// The static tier: a never-seen expression of operators the static kernels cover is answered
// without a compile, equal to the reference; a failing row goes to the fast kernel, whose error
// is the JIT's; once the optimized kernel is ready it runs.
TEST(Tiers, StaticTierAnswersWithoutCompilingAndHandsErrorsToTheFastTier) {
  const Schema schema = *ParseSchema("a:i32?, b:i32, c:f64, d:f64?");
  auto batch = *RandomBatch(schema, 5000, 0.8, 21);
  auto engine = NewEngine({});
  for (const char* text : {"a * b + 7", "a - b < b * 3", "c * d + 0.5", "wrapping_mul(a, b) >= a"}) {
    auto expr = *ir::ParseAndBind(text, schema);
    EvalReport report;
    ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(expr, batch, {}, &report));
    EXPECT_EQ(report.tier, Tier::kStatic) << text;
    EXPECT_FALSE(report.compiled) << text;
    EXPECT_EQ(FirstDifference(*out, **ir::EvaluateReference(*expr, batch.columns, batch.length)), -1) << text;
    engine->WaitForCompiles();
    ASSERT_OK(engine->Evaluate(expr, batch, {}, &report));
    EXPECT_EQ(report.tier, Tier::kOptimized) << text;
  }
  EXPECT_EQ(engine->cache_stats().fast_compiles, 0);
  // Values that overflow in a valid row: the chain finds it, the fast kernel reports it.
  const Schema big = *ParseSchema("a:i32?, b:i32");
  ArrayPtr a = *MakeArray<int32_t>({5, std::nullopt, 1 << 30});
  ArrayPtr b = *MakeArray<int32_t>({2, 1 << 30, 4}, /*nullable=*/false);
  const ArrayPtr cols[] = {a, b};
  auto expr = *ir::ParseAndBind("a * b", big);
  EvalReport report;
  // No optimized compile starts on this engine: the answer is the fast tier's, not a race with
  // the background pool (which wins under a sanitizer's slow fast compiles).
  auto fresh = NewEngine({.optimize_after_uses = 1'000'000});
  auto failed = fresh->Evaluate(expr, cols, 3, {}, &report);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(report.tier, Tier::kFast);
  auto reference = ir::EvaluateReference(*expr, cols, 3);
  ASSERT_FALSE(reference.ok());
  EXPECT_EQ(failed.error(), reference.error()) << failed.error().ToString();
  EXPECT_EQ(failed.error().row(), 2);  // row 1 overflows behind a null: not an error
}

TEST(Prepare, TheFirstBatchFindsTheOptimizedKernel) {
  Workload w;
  auto engine = NewEngine({});
  ASSERT_OK(engine->Prepare(w.expr, w.schema));
  engine->WaitForCompiles();
  EvalReport report;
  ASSERT_OK_AND_ASSIGN(ArrayPtr out, engine->Evaluate(w.expr, w.batch, {}, &report));
  EXPECT_EQ(report.tier, Tier::kOptimized);
  EXPECT_EQ(report.source, KernelSource::kMemory);
  EXPECT_EQ(FirstDifference(*out, *w.reference), -1);
  EXPECT_EQ(engine->cache_stats().fast_compiles, 0);
}

TEST(Prepare, StagesAndSynchronousEnginesAndErrors) {
  const Schema schema = *ParseSchema("a:i64?, b:i64");
  std::string text = "a";  // cannot fail: no retry kernel beside the prepared ones
  for (int i = 0; i < 20; ++i) text = (i % 2 ? "max(" : "min(") + text + (i % 2 ? ", b)" : ", a)");
  auto expr = *ir::ParseAndBind(text, schema);
  auto engine = NewEngine({.max_kernel_nodes = 16, .compile = kSynchronous});
  ASSERT_OK(engine->Prepare(expr, schema));
  const int64_t prepared = engine->cache_stats().compiles;
  EXPECT_GT(prepared, 2);  // every stage and the root, compiled now
  auto batch = *RandomBatch(schema, 500, 0.7, 3);
  ASSERT_OK(engine->Evaluate(expr, batch));
  EXPECT_EQ(engine->cache_stats().compiles, prepared);  // nothing left to compile
  EXPECT_FALSE(engine->Prepare(nullptr, schema).ok());
  EXPECT_FALSE(engine->Prepare(*ir::Parse("a + 1"), schema).ok());  // not bound
  EXPECT_FALSE(engine->Prepare(expr, *ParseSchema("a:i64")).ok());  // b is not in that schema
}

TEST(Objects, AKeyCompilesToTheSameBytesEveryTime) {
  Workload w;
  auto compiler = std::move(JitCompiler::Make()).value();
  std::vector<ir::InputSpec> specs;
  for (const ArrayPtr& c : w.batch.columns) specs.push_back(ir::DescribeInput(*c));
  const CacheKey key = *PlanKernel(w.expr, specs, ir::Policy::kAuto);
  for (Tier tier : {Tier::kFast, Tier::kOptimized}) {
    ASSERT_OK_AND_ASSIGN(KernelObject first, compiler->Emit(key, tier));
    ASSERT_OK_AND_ASSIGN(KernelObject second, compiler->Emit(key, tier));
    EXPECT_EQ(first.bytes, second.bytes) << TierName(tier);
    EXPECT_GT(first.phases.codegen_ms, 0);
    EXPECT_EQ(first.phases.optimize_ms > 0, tier == Tier::kOptimized);
  }
}

}  // namespace
}  // namespace rowjit::jit
