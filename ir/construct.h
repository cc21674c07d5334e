// Nested values made from a row's values (ir layer): struct_pack, list_value and map, the calls
// whose value is a struct, a list or a map built from their arguments. Computed a column at a
// time (ConstructColumn: a struct's children are its arguments' columns, a list's elements its
// arguments' values interleaved) and, by the reference, a row at a time (ConstructRow); no kernel
// builds one, and the kernel of the rest of an expression reads what the list, map and field
// functions take from them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ir/expr.h"
#include "runtime/array.h"

namespace rowjit::ir {

// In the catalog's order (ir/functions_construct.cc).
enum class ConstructOp : uint8_t { kStruct, kList, kMap };

std::optional<ConstructOp> ConstructOpOf(const Function& f);
bool IsConstructor(const Expr& e);

// A bound constructor at one row: `args` are its arguments' values there, each a one-row array
// of the argument's type (a null row where the value is null). Its value as a one-row array of
// the call's type; an error (map's: keys of unequal count, a null or repeated key) carries no row.
Result<ArrayPtr> ConstructRow(const Expr& call, std::span<const ArrayPtr> args);

// The call over `length` rows of its arguments' arrays (a constant is read as its rows): the
// same rows as ConstructRow's row by row. Rows where that fails are null in the result and
// listed, ascending, in `failed`.
Result<ArrayPtr> ConstructColumn(const Expr& call, std::span<const ArrayPtr> args, int64_t length,
                                 const std::shared_ptr<MemoryPool>& pool, std::vector<int64_t>& failed);

}  // namespace rowjit::ir
