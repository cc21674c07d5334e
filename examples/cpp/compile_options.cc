// Compile economics from the host's side: a persistent kernel cache, tiered compiles, Prepare
// ahead of the first batch, and what EvalReport tells about one call.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ir/binder.h"
#include "jit/api/engine.h"
#include "runtime/builder.h"

using namespace rowjit;

namespace {

// One evaluation, and where its kernel came from.
bool Run(jit::Engine& engine, const ir::ExprPtr& expr, const std::vector<ArrayPtr>& columns, int64_t n,
         const jit::EvalOptions& options = {}) {
  jit::EvalReport report;
  Result<ArrayPtr> out = engine.Evaluate(expr, columns, n, options, &report);
  if (!out.ok()) return std::puts(out.error().ToString().c_str()), false;
  std::printf("strategy %s, tier %s, kernel from %s\n", std::string(jit::StrategyName(report.strategy)).c_str(),
              report.tier ? std::string(jit::TierName(*report.tier)).c_str() : "-",
              std::string(jit::KernelSourceName(report.source)).c_str());
  return true;
}

}  // namespace

int main() {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "rowjit-example-cache";
  std::filesystem::remove_all(folder);
  std::vector<std::optional<int64_t>> a, b;
  for (int64_t i = 0; i < 1000; ++i) {
    a.push_back(i % 10 == 0 ? std::nullopt : std::optional<int64_t>(i));
    b.push_back(3);
  }
  const std::vector<ArrayPtr> columns = {MakeArray<int64_t>(a).value(), MakeArray<int64_t>(b, false).value()};
  const Schema schema = ParseSchema("a:i64?, b:i64").value();
  const ir::ExprPtr expr = ir::ParseAndBind("a * b - 3", schema).value();

  jit::EngineOptions options;
  options.cache_dir = folder.string();                      // persistent kernel cache (empty: none)
  options.disk_cache_bytes = int64_t{64} << 20;             // its bound; least recently used out
  options.compile = jit::EngineOptions::Compile::kTiered;   // the default; or kSynchronous
  options.compile_threads = 1;                              // the background pool
  options.optimize_after_uses = 1;                          // lookups before the optimized compile
  {
    auto engine = jit::Engine::Make(options).value();
    if (!engine->Prepare(expr, schema).ok()) return 1;      // compiles ahead of the first batch
    engine->WaitForCompiles();
    if (!Run(*engine, expr, columns, 1000)) return 1;
    if (!Run(*engine, expr, columns, 1000, jit::EvalOptions{.tier = jit::Tier::kFast})) return 1;
  }
  auto restarted = jit::Engine::Make(options).value();      // a new process would do the same
  if (!Run(*restarted, expr, columns, 1000)) return 1;
  const jit::CacheStats stats = restarted->cache_stats();
  std::printf("compiles %lld, disk loads %lld, disk hits %lld\n", static_cast<long long>(stats.compiles),
              static_cast<long long>(stats.disk_loads),
              static_cast<long long>(restarted->disk_cache_stats().hits));
  std::filesystem::remove_all(folder);
  return 0;
}
