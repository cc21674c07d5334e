// The process environment (runtime/environment.h): the default kernel cache folder's one rule.
#include "runtime/environment.h"

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace rowjit {
namespace {

// Sets (or, with nullopt, unsets) a variable for one scope, restoring it after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* was = std::getenv(name)) saved_ = was;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(Environment, DefaultCacheDirTakesTheFirstFolderNamed) {
  {
    ScopedVariable dir("ROWJIT_CACHE_DIR", "/tmp/kernels"), xdg("XDG_CACHE_HOME", "/x"), home("HOME", "/h");
    EXPECT_EQ(DefaultCacheDir(), "/tmp/kernels");
  }
  {
    ScopedVariable dir("ROWJIT_CACHE_DIR", std::nullopt), xdg("XDG_CACHE_HOME", "/x"), home("HOME", "/h");
    EXPECT_EQ(DefaultCacheDir(), "/x/rowjit");
  }
  {
    ScopedVariable dir("ROWJIT_CACHE_DIR", ""), xdg("XDG_CACHE_HOME", "relative"), home("HOME", "/h");
    EXPECT_EQ(DefaultCacheDir(), "/h/.cache/rowjit");  // empty is unset; XDG must be absolute
  }
  {
    ScopedVariable dir("ROWJIT_CACHE_DIR", std::nullopt), xdg("XDG_CACHE_HOME", std::nullopt), home("HOME", std::nullopt);
    EXPECT_EQ(DefaultCacheDir(), "");  // no folder can be named: no disk cache
  }
}

TEST(Environment, ZoneDirectoryIsReadAtEachCall) {
  {
    ScopedVariable tz("TZDIR", "/somewhere/zoneinfo");
    EXPECT_EQ(ZoneDirectoryVariable(), "/somewhere/zoneinfo");
  }
  ScopedVariable none("TZDIR", std::nullopt);
  EXPECT_EQ(ZoneDirectoryVariable(), std::nullopt);
}

}  // namespace
}  // namespace rowjit
