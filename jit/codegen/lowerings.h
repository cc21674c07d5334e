// The lowering registry's LLVM-free queries (jit layer, codegen room): whether a catalog function
// has a kernel lowering, and what is wrong with the family lists (a name no registered function
// has, a function lowered twice). The catalog test walks the registry with these.
#pragma once

#include <string>
#include <vector>

#include "ir/function.h"

namespace rowjit::jit::internal {

bool HasLowering(const ir::Function& f);
std::vector<std::string> LoweringProblems();

}  // namespace rowjit::jit::internal
