// Golden tests: the stable lines of the optimized IR of representative kernels (vector loads,
// stores, reductions and calls) against tests/jit/gates/golden/*.txt, for fixed targets so that the
// host does not matter. Regenerate with tools/regen-golden (tests for jit/inspect).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "jit/gates/inspect.h"
#include "jit/gates/kernel_request.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

struct Golden {
  std::string name;
  bool opened = false;
  std::vector<std::string> keys;  // the header keys read, in order
  KernelRequest request;
  std::vector<std::string> lines;
};

Golden ReadGolden(const std::filesystem::path& path) {
  Golden g;
  g.name = path.stem().string();
  std::ifstream in(path);
  g.opened = in.is_open();
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("# ")) {
      if (!line.empty()) g.lines.push_back(line);
      continue;
    }
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(2, colon - 2), value = line.substr(colon + 2);
    g.keys.push_back(key);
    if (key == "expr") g.request.expr = value;
    if (key == "schema") g.request.schema = value;
    if (key == "target") g.request.target = value;
    if (key == "policy") g.request.policy = value;
    if (key == "const") {
      const size_t eq = value.find('=');
      g.request.constants.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    }
  }
  return g;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(Golden, VectorShapesMatch) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ROWJIT_GOLDEN_DIR)) {
    if (entry.path().extension() != ".txt") continue;
    const Golden g = ReadGolden(entry.path());
    SCOPED_TRACE(g.name);
    ++files;
    // The file names a whole request (a misspelt key would leave a default in its place: the
    // native target or the auto policy) and holds a shape with vector operations in it: a golden
    // regenerated empty or scalar would let the comparison pass for a kernel that lost its vectors.
    ASSERT_TRUE(g.opened) << entry.path();
    for (const char* key : {"expr", "schema", "target", "policy"}) {
      EXPECT_NE(std::find(g.keys.begin(), g.keys.end(), key), g.keys.end()) << "no '# " << key << ":'";
    }
    for (const std::string& key : g.keys) {
      EXPECT_TRUE(key == "expr" || key == "schema" || key == "target" || key == "policy" ||
                  key == "const")
          << "unknown key '" << key << "'";
    }
    EXPECT_NE(g.request.target, "native") << "a golden names a fixed target";
    ASSERT_FALSE(g.lines.empty());
    // Every kernel reads its inputs in vectors (a fold stores nothing, so only loads are required).
    EXPECT_TRUE(std::any_of(g.lines.begin(), g.lines.end(),
                            [](const std::string& l) { return l.starts_with("load <"); }))
        << "no vector load in the golden shape";
    ASSERT_OK_AND_ASSIGN(PlannedKernel planned, PlanRequest(g.request));
    ASSERT_OK_AND_ASSIGN(KernelCode code, GenerateCode(planned, false));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> lines,
                         ShapeLines(code.optimized_ir, code.function_name));
    EXPECT_EQ(Join(lines), Join(g.lines))
        << g.name << ": the vector shape changed; if intended, run tools/regen-golden";
  }
  EXPECT_GE(files, 8);  // the files checked in under tests/jit/gates/golden
}

}  // namespace
}  // namespace rowjit::jit
