#include "support/tzif.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/timezone.h"

namespace rowjit::test {
namespace {

void Put(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

void Header(std::string& out, uint32_t times, uint32_t types, uint32_t chars) {
  out += "TZif2";
  out += std::string(15, '\0');
  for (uint32_t n : {0u, 0u, 0u, times, types, chars}) Put(out, n, 4);
}

}  // namespace

void InstallZone(const std::string& name, const std::vector<int64_t>& transitions, const std::vector<int32_t>& offsets,
                 const std::string& footer) {
  ASSERT_EQ(offsets.size(), transitions.size() + 1);
  std::string file;
  Header(file, 0, 1, 4);  // the version 1 block: one type, no transitions
  Put(file, 0, 4), Put(file, 0, 1), Put(file, 0, 1);
  file += std::string("UTC", 4);
  const auto n = static_cast<uint32_t>(transitions.size());
  Header(file, n, static_cast<uint32_t>(offsets.size()), 4);
  for (int64_t t : transitions) Put(file, static_cast<uint64_t>(t), 8);
  for (uint32_t i = 0; i < n; ++i) Put(file, i + 1, 1);  // type i + 1 after transition i
  for (int32_t o : offsets) Put(file, static_cast<uint32_t>(o), 4), Put(file, 0, 1), Put(file, 0, 1);
  file += std::string("ZZZ", 4);
  file += "\n" + footer + "\n";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("rowjit-tz-{}", ::getpid());
  std::filesystem::create_directories((dir / name).parent_path());
  std::ofstream(dir / name, std::ios::binary) << file;
  const char* saved = std::getenv("TZDIR");
  const std::string restore = saved ? saved : "";
  setenv("TZDIR", dir.c_str(), 1);
  auto loaded = LoadZoneRules(name);
  if (saved) {
    setenv("TZDIR", restore.c_str(), 1);
  } else {
    unsetenv("TZDIR");
  }
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
}

std::vector<int64_t> InstallMidnightZone() {
  std::vector<int64_t> at;
  std::vector<int32_t> off = {0};
  for (int k = 0; k < 240; ++k) {
    at.push_back(int64_t{91} * k * 86'400 + 23 * 3600 + 1800);
    off.push_back(k % 2 == 0 ? 3600 : 0);
  }
  InstallZone("Test/Midnight", at, off, "<+00>0");
  return at;
}

}  // namespace rowjit::test
