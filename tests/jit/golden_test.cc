// Golden tests: the stable lines of the optimized IR of representative kernels (vector loads,
// stores, reductions and calls) against tests/jit/golden/*.txt, for fixed targets so that the
// host does not matter. Regenerate with tools/regen-golden (tests for jit/inspect).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "jit/inspect.h"
#include "jit/kernel_request.h"

namespace rowjit::jit {
namespace {

struct Golden {
  std::string name;
  KernelRequest request;
  std::vector<std::string> lines;
};

Golden ReadGolden(const std::filesystem::path& path) {
  Golden g;
  g.name = path.stem().string();
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("# ")) {
      if (!line.empty()) g.lines.push_back(line);
      continue;
    }
    const size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(2, colon - 2), value = line.substr(colon + 2);
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
    auto planned = PlanRequest(g.request);
    ASSERT_TRUE(planned.ok()) << planned.status().ToString();
    auto code = GenerateCode(*planned, false);
    ASSERT_TRUE(code.ok()) << code.status().ToString();
    auto lines = ShapeLines(code->optimized_ir, code->function_name);
    ASSERT_TRUE(lines.ok()) << lines.status().ToString();
    EXPECT_EQ(Join(*lines), Join(g.lines))
        << g.name << ": the vector shape changed; if intended, run tools/regen-golden";
  }
  EXPECT_GE(files, 6);
}

}  // namespace
}  // namespace rowjit::jit
