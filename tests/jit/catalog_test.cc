// The catalog against the kernels' lowerings and the function reference (jit): every lowering
// names a registered function, every function is documented (docs/functions.md is generated
// from the descriptors), and every function is computed somewhere: by a kernel's lowering, or,
// a string result, a column at a time outside kernels.
#include <gtest/gtest.h>

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/construct.h"
#include "ir/expr.h"
#include "ir/function.h"
#include "ir/list_functions.h"
#include "jit/codegen/lowerings.h"
#include "support/assert_ok.h"

namespace rowjit::jit {
namespace {

TEST(Catalog, EveryLoweringNamesAFunction) {
  std::string text;
  for (const std::string& problem : internal::LoweringProblems()) text += "\n  " + problem;
  EXPECT_TRUE(text.empty()) << "the lowering lists of jit/codegen/lower/*.cc:" << text;
}

TEST(Catalog, EveryFunctionIsDocumented) {
  for (const ir::Function* f : ir::AllFunctions()) {
    EXPECT_FALSE(f->summary.empty()) << f->name << " has no .summary (docs/functions.md is generated from it)";
    EXPECT_TRUE(f->summary.ends_with('.')) << f->name << "'s summary is not a sentence ending with a period: "
                                           << f->summary;
    EXPECT_TRUE(f->notes.empty() || f->notes.ends_with('.')) << f->name << "'s notes do not end with a period";
  }
}

// Bound calls of `f` over columns of every combination of storage types its type rule accepts
// (a variadic function with two arguments; a cast with every target).
std::vector<ir::ExprPtr> StorageCalls(const ir::Function& f) {
  std::vector<TypeId> types(std::begin(kAllTypeIds), std::end(kAllTypeIds));
  types.push_back(TypeId::kUtf8);
  types.push_back(TypeId::kBinary);
  const size_t arity = f.variadic ? 2 : f.arity();
  const size_t positions = arity + (f.takes_type_arg ? 1 : 0);  // the type argument last
  std::vector<ir::ExprPtr> calls;
  std::vector<size_t> at(positions, 0);
  for (bool more = positions > 0; more;) {
    std::vector<DataType> args;
    std::vector<ir::ExprPtr> columns;
    for (size_t i = 0; i < arity; ++i) {
      args.emplace_back(types[at[i]]);
      columns.push_back(ir::Expr::BoundColumn(std::string(1, static_cast<char>('a' + i)), static_cast<int>(i), args[i]));
    }
    const std::optional<TypeId> type_arg = f.takes_type_arg ? std::optional<TypeId>(types[at[arity]]) : std::nullopt;
    Result<DataType> type = f.type_rule(f.name, args, type_arg);
    if (type.ok()) calls.push_back(ir::Expr::BoundCall(&f, columns, type_arg, *type));
    more = false;
    for (size_t k = positions; k-- > 0;) {
      if (++at[k] < types.size()) {
        more = true;
        break;
      }
      at[k] = 0;
    }
  }
  return calls;
}

// A function with no lowering is computed outside kernels, which the engine does for calls that
// return strings: a column at a time by the function's column form, or as a string builder
// (ir::IsStringBuilder) row by row. No function is an exception to this today.
TEST(Catalog, EveryFunctionRunsSomewhere) {
  // Functions whose type rule refuses every call by name (the binder builds them from another
  // form): a call of each as the binder builds it.
  struct Built {
    std::string_view function;
    const char* expr;
    const char* schema;
  };
  const Built kBuiltByBinder[] = {{"logical_to_text", "cast(a, utf8)", "a:date32"},
                                  {"logical_to_text", "cast(a, utf8)", "a:decimal64(12,2)"}};
  for (const ir::Function* f : ir::AllFunctions()) {
    if (internal::HasLowering(*f)) continue;
    // A vector function is its own kernel's (jit/codegen/codegen_vectors.cc: every one is
    // compared with the reference in tests/jit/vector_test.cc).
    if (f->family == ir::Family::kVector) {
      EXPECT_TRUE(f->vector_score.has_value()) << f->name << " is a vector function that names no score";
      continue;
    }
    if (f->family == ir::Family::kStruct) continue;  // a field is its child column (tests/jit/struct_test.cc)
    // A list or map function is its column form (ir/list_columns.cc), compared with the reference in
    // tests/jit/list_test.cc.
    if (f->family == ir::Family::kList) {
      EXPECT_TRUE(ir::ListOpOf(*f).has_value()) << f->name << " is a list function the column form does not know";
      continue;
    }
    // A constructor builds its value a column at a time (ir/functions_construct.cc), compared with
    // the reference in tests/jit/construct_test.cc.
    if (f->family == ir::Family::kConstruct) {
      EXPECT_TRUE(ir::ConstructOpOf(*f).has_value()) << f->name << " is a constructor the column form does not know";
      continue;
    }
    std::vector<ir::ExprPtr> calls = StorageCalls(*f);
    for (const Built& b : kBuiltByBinder) {
      if (b.function != f->name) continue;
      ASSERT_OK_AND_ASSIGN(const Schema schema, ParseSchema(b.schema));
      ASSERT_OK_AND_ASSIGN(const ir::ExprPtr call, ir::ParseAndBind(b.expr, schema));
      ASSERT_TRUE(call->is_call()) << b.expr;
      EXPECT_EQ(call->function(), f) << b.expr << " binds to " << call->ToString();
      calls.push_back(call);
    }
    ASSERT_FALSE(calls.empty()) << f->name << " has no lowering (jit/codegen/lower/*.cc) and no call to check: "
                                << "list one the binder builds in kBuiltByBinder";
    for (const ir::ExprPtr& call : calls) {
      EXPECT_TRUE(IsString(call->type().id))
          << f->name << " has no lowering (jit/codegen/lower/*.cc), yet " << call->ToString() << " returns "
          << call->type().ToString() << ": no kernel and no column form computes it";
      EXPECT_TRUE(f->columns != nullptr || ir::IsStringBuilder(*call))
          << call->ToString() << " has no lowering, no column form and builds no string";
    }
  }
}

}  // namespace
}  // namespace rowjit::jit
