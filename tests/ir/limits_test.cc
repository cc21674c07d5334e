// Hostile expressions: depth, width, shared subtrees and small host stacks give a clear error or
// a correct result, never a crash (ir).
#include <gtest/gtest.h>

#include <pthread.h>

#include <functional>
#include <string>

#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/reference.h"
#include "runtime/builder.h"
#include "support/assert_ok.h"

namespace rowjit::ir {
namespace {

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// `depth` nested parentheses around a.
std::string Parenthesised(int depth) { return Repeat("(", depth) + "a" + Repeat(")", depth); }

// A CASE of `branches` branches written as nested if: if(a = 0, 0, if(a = 1, 1, ... a)).
std::string NestedIf(int branches) {
  std::string out;
  for (int i = 0; i < branches; ++i) out += fmt::format("if(a = {0}, {0}, ", i);
  return out + "a" + std::string(static_cast<size_t>(branches), ')');
}

void ExpectLimitError(const Result<ExprPtr>& r, std::string_view limit) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(r.error().message().find(limit), std::string::npos) << r.error().ToString();
}

TEST(Limits, DeepParenthesesAreAnErrorNamingTheLimit) {
  ExpectLimitError(Parse(Parenthesised(60'000)), "Limits::max_depth");
  ExpectLimitError(Parse(Parenthesised(1'000'000)), "Limits::max_depth");
}

TEST(Limits, DeepPrefixOperatorsAreAnErrorNamingTheLimit) {
  ExpectLimitError(Parse(Repeat("not ", 1'000'000) + "b"), "Limits::max_depth");
  ExpectLimitError(Parse(Repeat("- ", 1'000'000) + "a"), "Limits::max_depth");
}

TEST(Limits, WideChainsAreAnErrorNamingTheLimit) {
  // a + a + ... + a: a left-deep tree as deep as it is wide.
  ExpectLimitError(Parse("a" + Repeat(" + a", 1'000'000)), "Limits::max_nodes");
  ExpectLimitError(Parse("a" + Repeat(" + a", 60'000)), "Limits::max_depth");
}

TEST(Limits, AreSettable) {
  const Limits tight{.max_depth = 10, .max_nodes = 50};
  ASSERT_OK(Parse(Parenthesised(9), tight));
  ExpectLimitError(Parse(Parenthesised(11), tight), "Limits::max_depth");
  ExpectLimitError(Parse("a" + Repeat(" + a", 30), tight), "Limits::max_nodes");
  ExpectLimitError(Parse("a + b", Limits{.max_text_bytes = 3}), "Limits::max_text_bytes");
  Schema wide;
  for (int i = 0; i < 20; ++i) wide.fields.push_back(Field{fmt::format("c{}", i), DataType(TypeId::kI32)});
  ASSERT_OK_AND_ASSIGN(ExprPtr e, Parse("c0 + c1"));
  auto bound = Bind(e, wide, Limits{.max_columns = 10});
  ASSERT_FALSE(bound.ok());
  EXPECT_NE(bound.error().message().find("Limits::max_columns"), std::string::npos);
}

// Runs `fn` on a thread with a 256 KiB stack: a host's small thread must not matter.
void OnSmallStack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// A CASE of 5,000 branches parses, binds, prints, reparses and evaluates on a small host stack:
// the recursive passes run on a stack sized for the depth.
TEST(Limits, CaseOfThousandsOfBranchesWorksOnASmallStack) {
  OnSmallStack([] {
    const Schema schema = *ParseSchema("a:i32");
    auto bound = ParseAndBind(NestedIf(5'000), schema);
    ASSERT_TRUE(bound.ok()) << bound.error().ToString();
    EXPECT_EQ((*bound)->facts().depth, 5'002);
    auto again = ParseAndBind((*bound)->ToString(), schema);
    ASSERT_TRUE(again.ok()) << again.error().ToString();
    EXPECT_TRUE((*again)->Equals(**bound));
    auto column = ArrayFromText(DataType(TypeId::kI32), "[0, 7, 4999, 5000, -3]");
    ASSERT_TRUE(column.ok());
    const ArrayPtr cols[] = {*column};
    auto out = EvaluateReference(**bound, cols, 5);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    EXPECT_EQ((*out)->ToString(), "[0, 7, 4999, 5000, -3]");
  });
}

// A DAG whose every node is used twice stands for a tree of 2^60 nodes: analysing it costs its
// size, and binding refuses it by the node limit instead of walking 2^60 nodes.
TEST(Limits, SharedSubtreesAreCountedAtEachUseWithoutWalkingThem) {
  ExprPtr e = Expr::Column("a");
  for (int i = 0; i < 60; ++i) e = Expr::Call("add", {e, e});
  EXPECT_EQ(e->facts().depth, 61);
  EXPECT_GT(e->facts().nodes, int64_t{1} << 60);
  auto bound = Bind(e, *ParseSchema("a:i32"));
  ASSERT_FALSE(bound.ok());
  EXPECT_NE(bound.error().message().find("Limits::max_nodes"), std::string::npos);
}

// Trees built through the API past every limit: destroying, comparing and analysing them uses
// no recursion.
TEST(Limits, MillionDeepTreesAreDestroyedComparedAndAnalysedWithoutRecursion) {
  ExprPtr a = Expr::Column("a"), b = Expr::Column("a");
  for (int i = 0; i < 1'000'000; ++i) {
    a = Expr::Call("neg", {a});
    b = Expr::Call("neg", {b});
  }
  EXPECT_EQ(a->facts().depth, 1'000'001);
  EXPECT_TRUE(a->Equals(*b));
  auto bound = Bind(a, *ParseSchema("a:i32"));
  ASSERT_FALSE(bound.ok());
  EXPECT_NE(bound.error().message().find("Limits::max_depth"), std::string::npos);
  a.reset();  // a million nested destructors would overflow the stack
  b.reset();
}

}  // namespace
}  // namespace rowjit::ir
