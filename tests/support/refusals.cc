#include "support/refusals.h"

#include <gtest/gtest.h>

#include "ir/binder.h"

namespace rowjit::test {

void ExpectRefused(const Schema& schema, std::span<const Refusal> refused) {
  for (const Refusal& c : refused) {
    auto r = ir::ParseAndBind(c.text, schema);
    ASSERT_FALSE(r.ok()) << c.text << " bound as " << (*r)->ToString();
    EXPECT_EQ(r.error().code(), c.code) << c.text << ": " << r.error().ToString();
    EXPECT_NE(r.error().message().find(c.fragment), std::string::npos) << c.text << ": " << r.error().ToString();
  }
}

}  // namespace rowjit::test
