// `rowjit functions`: the function reference, generated from the catalog (tools layer). Every
// registered function's signature, aliases, operator form, summary, the argument types it
// accepts with the result type and whether the call can fail there, its null behaviour, whether
// kernels compute it, and its notes. `--markdown` writes docs/functions.md (tools/regen-docs).
//
// The types table is probed, never written by hand: each function's type rule is called over a
// fixed set of argument types (the storage types, and one type of each logical kind for functions
// that take logical arguments; for those whose logical rules the binder owns, the call is bound
// instead), and the accepted combinations are collapsed into rows. Deterministic: the same
// catalog gives the same text.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/expr.h"
#include "ir/function.h"
#include "jit/codegen/lowerings.h"
#include "tools/commands.h"

namespace rowjit::cli {

namespace {

constexpr const char* kHelp = R"(usage: rowjit functions [--markdown]

Lists every row function of the catalog with its signature and what it computes. With
--markdown, writes the full function reference (docs/functions.md: signatures, aliases,
operators, accepted argument types and result types, null behaviour, errors, notes) to standard
output; tools/regen-docs regenerates the checked-in file with it.

options:
  --markdown   the reference as Markdown
)";

// --- the probe -------------------------------------------------------------------------------

// The argument types probed: the storage types, then one type of each logical kind.
const std::vector<DataType>& StorageTypes() {
  static const std::vector<DataType> types = [] {
    std::vector<DataType> out;
    for (TypeId id : kAllTypeIds) out.emplace_back(id);
    out.emplace_back(TypeId::kUtf8);
    out.emplace_back(TypeId::kBinary);
    return out;
  }();
  return types;
}

const std::vector<DataType>& LogicalTypes() {
  static const std::vector<DataType> types = [] {
    std::vector<DataType> out;
    for (const char* text : {"decimal64(12,2)", "date32", "time64(us)", "timestamp(us)", "duration(us)",
                             "interval_month_day_nano"}) {
      Result<DataType> t = ParseDataType(text);
      if (t.ok()) out.push_back(t->WithNullable(false));
    }
    return out;
  }();
  return types;
}

// Where a type sorts among the probed ones (sets print in this order).
size_t Rank(const DataType& t) {
  size_t i = 0;
  for (const auto* list : {&StorageTypes(), &LogicalTypes()}) {
    for (const DataType& p : *list) {
      if (p.SameType(t)) return i;
      ++i;
    }
  }
  return i;
}

// What one accepted combination of argument types gives.
struct Outcome {
  DataType result;
  bool can_fail = false;
  std::string binds_to;  // the bound call, when the binder rewrites the call into another
};

// The names of the probed call's arguments: the descriptor's, or for a variadic function x, y
// (an IN list: x and two items a, b).
std::vector<std::string> ProbeNames(const ir::Function& f) {
  if (!f.variadic) {
    std::vector<std::string> names;
    for (std::string_view n : f.arg_names) names.emplace_back(n);
    return names;
  }
  if (f.syntax == ir::Syntax::kInList) return {"x", "a", "b"};
  return {"x", "y"};
}

// The call of `f` over arguments of `args` types: its type rule's answer; for logical arguments
// of a function whose logical rules the binder owns (LogicalArgs other than kAny), the bound
// call's, since the binder decides those (ir/binder.cc).
std::optional<Outcome> TryCall(const ir::Function& f, const std::vector<DataType>& args,
                               std::optional<TypeId> type_arg, const std::vector<std::string>& names) {
  const bool logical = std::any_of(args.begin(), args.end(), [](const DataType& t) { return t.is_logical(); });
  if (logical && f.logical == ir::LogicalArgs::kRefused) return std::nullopt;
  if (!logical || f.logical == ir::LogicalArgs::kAny) {
    Result<DataType> r = f.type_rule(f.name, args, type_arg);
    if (!r.ok()) return std::nullopt;
    return Outcome{.result = r->WithNullable(false), .can_fail = f.can_fail != nullptr && f.can_fail(args, *r),
                   .binds_to = ""};
  }
  Schema schema;
  std::vector<ir::ExprPtr> columns;
  for (size_t i = 0; i < args.size(); ++i) {
    Field field;
    field.name = names[i];
    field.type = args[i];
    schema.fields.push_back(field);
    columns.push_back(ir::Expr::Column(names[i]));
  }
  Result<ir::ExprPtr> bound = ir::Bind(ir::Expr::Call(std::string(f.name), columns, type_arg), schema);
  if (!bound.ok()) return std::nullopt;
  const ir::Expr& e = **bound;
  bool direct = e.is_call() && e.function() == &f && e.args().size() == args.size();
  for (size_t i = 0; direct && i < args.size(); ++i) {
    direct = e.args()[i]->is_column() && e.args()[i]->column_index() == static_cast<int>(i);
  }
  if (direct) return Outcome{.result = e.type().WithNullable(false), .can_fail = e.CanFail(), .binds_to = ""};
  return Outcome{.result = e.type().WithNullable(false), .can_fail = e.facts().can_fail, .binds_to = e.ToString()};
}

// The probe's slots: each argument alone, but the unified arguments (from unify_from on) share
// one slot, as they share one type; then the type argument's slot, if any.
struct Shape {
  std::vector<std::vector<size_t>> slots;  // argument positions per slot
  int unified = -1;                        // the unified arguments' slot
  int type_slot = -1;                      // the type argument's slot
  size_t arity = 0;
};

Shape ShapeOf(const ir::Function& f) {
  Shape s;
  s.arity = f.variadic ? (f.syntax == ir::Syntax::kInList ? 3 : 2) : f.arity();
  const size_t unify = f.unify_from < 0 ? s.arity : static_cast<size_t>(f.unify_from);
  for (size_t i = 0; i < std::min(unify, s.arity); ++i) s.slots.push_back({i});
  if (unify < s.arity) {
    s.unified = static_cast<int>(s.slots.size());
    s.slots.emplace_back();
    for (size_t i = unify; i < s.arity; ++i) s.slots.back().push_back(i);
  }
  if (f.takes_type_arg) {
    s.type_slot = static_cast<int>(s.slots.size());
    s.slots.emplace_back();
  }
  return s;
}

// One row of the types table: a set of types per slot (every combination of them is accepted and
// gives the same answer), and the result: a type, or the type of a slot's member.
struct Row {
  std::vector<std::vector<DataType>> sets;
  DataType result;
  int result_slot = -1;
  bool can_fail = false;
  std::string binds_to;
};

struct Probe {
  Shape shape;
  std::vector<Row> rows;
  std::vector<DataType> first_accepted;  // the argument types of the first accepted combination
  std::optional<TypeId> first_type_arg;
};

// Every combination of probed types, the first slot varying slowest; each accepted one a row.
Probe ProbeFunction(const ir::Function& f) {
  Probe p;
  p.shape = ShapeOf(f);
  const Shape& s = p.shape;
  std::vector<DataType> arg_types = StorageTypes();
  if (f.logical != ir::LogicalArgs::kRefused) {
    arg_types.insert(arg_types.end(), LogicalTypes().begin(), LogicalTypes().end());
  }
  const std::vector<DataType>& type_args = StorageTypes();
  const std::vector<std::string> names = ProbeNames(f);
  auto candidates = [&](size_t slot) -> const std::vector<DataType>& {
    return static_cast<int>(slot) == s.type_slot ? type_args : arg_types;
  };
  std::vector<size_t> at(s.slots.size(), 0);
  bool more = !s.slots.empty();
  while (more) {
    std::vector<DataType> args(s.arity);
    std::optional<TypeId> type_arg;
    for (size_t k = 0; k < s.slots.size(); ++k) {
      const DataType t = candidates(k)[at[k]];
      if (static_cast<int>(k) == s.type_slot) type_arg = t.id;
      for (size_t i : s.slots[k]) args[i] = t;
    }
    if (std::optional<Outcome> o = TryCall(f, args, type_arg, names)) {
      Row row;
      for (size_t k = 0; k < s.slots.size(); ++k) row.sets.push_back({candidates(k)[at[k]]});
      row.result = o->result;
      row.can_fail = o->can_fail;
      row.binds_to = o->binds_to;
      p.rows.push_back(std::move(row));
      if (p.first_accepted.empty()) {
        p.first_accepted = args;
        p.first_type_arg = type_arg;
      }
    }
    more = false;
    for (size_t k = s.slots.size(); k-- > 0;) {
      if (++at[k] < candidates(k).size()) {
        more = true;
        break;
      }
      at[k] = 0;
    }
  }
  return p;
}

// The slot whose type is the result in most rows (the unified arguments' first, then the type
// argument's, then the others), when that is more than half of at least two rows; -1 otherwise.
int ResultSlot(const Probe& p) {
  std::vector<int> order;
  if (p.shape.unified >= 0) order.push_back(p.shape.unified);
  if (p.shape.type_slot >= 0) order.push_back(p.shape.type_slot);
  for (int k = 0; k < static_cast<int>(p.shape.slots.size()); ++k) {
    if (k != p.shape.unified && k != p.shape.type_slot) order.push_back(k);
  }
  for (int k : order) {
    size_t same = 0;
    for (const Row& r : p.rows) same += r.result.SameType(r.sets[static_cast<size_t>(k)][0]) ? 1 : 0;
    if (same >= 2 && same * 2 > p.rows.size()) return k;
  }
  return -1;
}

bool SameSet(const std::vector<DataType>& a, const std::vector<DataType>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](const DataType& x, const DataType& y) { return x.SameType(y); });
}

// Rows that differ only in slot k become one row whose slot k is the union of theirs.
bool MergeOn(std::vector<Row>& rows, size_t k) {
  std::vector<Row> out;
  for (Row& r : rows) {
    auto same_but_k = [&](const Row& o) {
      if (o.result_slot != r.result_slot || o.can_fail != r.can_fail || o.binds_to != r.binds_to) return false;
      if (r.result_slot < 0 && !o.result.SameType(r.result)) return false;
      for (size_t j = 0; j < r.sets.size(); ++j) {
        if (j != k && !SameSet(o.sets[j], r.sets[j])) return false;
      }
      return true;
    };
    auto it = std::find_if(out.begin(), out.end(), same_but_k);
    if (it == out.end()) {
      out.push_back(std::move(r));
      continue;
    }
    std::vector<DataType>& set = it->sets[k];
    for (const DataType& t : r.sets[k]) {
      if (std::none_of(set.begin(), set.end(), [&](const DataType& u) { return u.SameType(t); })) set.push_back(t);
    }
    std::stable_sort(set.begin(), set.end(), [](const DataType& x, const DataType& y) { return Rank(x) < Rank(y); });
  }
  const bool merged = out.size() != rows.size();
  rows = std::move(out);
  return merged;
}

void Collapse(Probe& p) {
  const int slot = ResultSlot(p);
  for (Row& r : p.rows) {
    if (slot >= 0 && r.result.SameType(r.sets[static_cast<size_t>(slot)][0])) r.result_slot = slot;
  }
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t k = p.shape.slots.size(); k-- > 0;) merged = MergeOn(p.rows, k) || merged;
  }
}

// --- the text --------------------------------------------------------------------------------

std::string_view FamilyTitle(ir::Family family) {
  switch (family) {
    case ir::Family::kArithmetic: return "Arithmetic";
    case ir::Family::kComparison: return "Comparisons";
    case ir::Family::kBoolean: return "Boolean logic";
    case ir::Family::kBitwise: return "Bitwise";
    case ir::Family::kCast: return "Casts";
    case ir::Family::kNullAware: return "Null-aware functions";
    case ir::Family::kFloat: return "Floating point";
    case ir::Family::kString: return "Strings";
    case ir::Family::kTemporal: return "Dates, times and intervals";
    case ir::Family::kDecimal: return "Decimals";
    case ir::Family::kVector: return "Vectors";
    case ir::Family::kStruct: return "Structs";
    case ir::Family::kList: return "Lists and maps";
    case ir::Family::kConstruct: return "Building structs, lists and maps";
  }
  return "Other";
}

// The anchor GitHub gives a heading: lower case, spaces as hyphens, other punctuation dropped.
std::string Anchor(std::string_view title) {
  std::string out;
  for (char c : title) {
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      out += c;
    } else if (c == ' ') {
      out += '-';
    }
  }
  return out;
}

std::string Joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(separator) : "") + parts[i];
  return out;
}

std::string TypeText(const DataType& t) { return t.WithNullable(false).ToString(); }

// name(x, y), name(x, ...) or cast(x, T).
std::string Signature(const ir::Function& f) {
  std::vector<std::string> args = ProbeNames(f);
  if (f.variadic) args = {"x", "..."};
  if (f.takes_type_arg) args.push_back("T");
  return fmt::format("{}({})", f.name, Joined(args, ", "));
}

// How the call is written as an operator, or empty.
std::string OperatorForm(const ir::Function& f) {
  const std::vector<std::string> names = ProbeNames(f);
  switch (f.syntax) {
    case ir::Syntax::kInfix: return fmt::format("{} {} {}", names[0], f.symbol, names[1]);
    case ir::Syntax::kPrefix: return fmt::format("{} {}", f.symbol, names[0]);
    case ir::Syntax::kInList: return "x in (a, b, ...)";
    case ir::Syntax::kCast: return fmt::format("cast({}, T)", names.empty() ? "x" : names[0]);
    case ir::Syntax::kCall: break;
  }
  return "";
}

// The letter standing for a slot's types in the table: T for the unified arguments (or the type
// argument), then A, B, ... for the others.
std::vector<std::string> SlotLetters(const Shape& s) {
  std::vector<std::string> letters(s.slots.size());
  char next = 'A';
  for (size_t k = 0; k < s.slots.size(); ++k) {
    const int slot = static_cast<int>(k);
    if (slot == s.unified || (slot == s.type_slot && s.unified < 0)) {
      letters[k] = "T";
    } else if (slot == s.type_slot) {
      letters[k] = "R";
    } else {
      letters[k] = std::string(1, next++);
    }
  }
  return letters;
}

std::string Cell(std::string text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string TypesTable(const ir::Function& f, const Probe& p) {
  const Shape& s = p.shape;
  std::vector<std::string> header = ProbeNames(f);
  if (s.type_slot >= 0) header.push_back("T");
  const std::vector<std::string> letters = SlotLetters(s);
  std::string out = fmt::format("| {} → result | where | can fail |\n|---|---|---|\n", Joined(header, ", "));
  for (const Row& r : p.rows) {
    auto slot_text = [&](size_t k) { return r.sets[k].size() == 1 ? TypeText(r.sets[k][0]) : letters[k]; };
    std::vector<std::string> args(s.arity);
    for (size_t k = 0; k < s.slots.size(); ++k) {
      for (size_t i : s.slots[k]) args[i] = slot_text(k);
    }
    if (s.type_slot >= 0) args.push_back(slot_text(static_cast<size_t>(s.type_slot)));
    const std::string result = r.result_slot >= 0 ? slot_text(static_cast<size_t>(r.result_slot)) : TypeText(r.result);
    std::vector<std::string> where;
    for (size_t k = 0; k < s.slots.size(); ++k) {
      if (r.sets[k].size() < 2) continue;
      std::vector<std::string> types;
      for (const DataType& t : r.sets[k]) types.push_back("`" + TypeText(t) + "`");
      where.push_back(letters[k] + ": " + Joined(types, " "));
    }
    if (!r.binds_to.empty()) where.push_back("binds to `" + r.binds_to + "`");
    out += fmt::format("| `{} → {}` | {} | {} |\n", Joined(args, ", "), result, Cell(Joined(where, "; ")),
                       r.can_fail ? "yes" : "no");
  }
  return out;
}

// Which arguments make the result of a null-aware function nullable, from its type rule at the
// first accepted argument types.
std::string NullableText(const ir::Function& f, const Probe& p) {
  if (p.first_accepted.empty()) return "";
  const std::vector<std::string> names = ProbeNames(f);
  auto nullable_with = [&](const std::vector<bool>& which) {
    std::vector<DataType> args = p.first_accepted;
    for (size_t i = 0; i < args.size(); ++i) args[i] = args[i].WithNullable(which[i]);
    Result<DataType> r = f.type_rule(f.name, args, p.first_type_arg);
    return r.ok() && r->nullable;
  };
  const size_t n = p.first_accepted.size();
  if (!nullable_with(std::vector<bool>(n, true))) return "The result is never null.";
  std::vector<std::string> alone;
  for (size_t i = 0; i < n; ++i) {
    std::vector<bool> which(n, false);
    which[i] = true;
    if (nullable_with(which)) alone.push_back("`" + names[i] + "`");
  }
  if (alone.size() == n) return "The result type is nullable when any argument's is.";
  if (alone.empty()) return "The result type is nullable only when every argument's is.";
  return fmt::format("The result type is nullable when {} is.", Joined(alone, " or "));
}

std::string GuardText(const ir::Function& f) {
  const std::vector<std::string> n = ProbeNames(f);
  switch (f.guard) {
    case ir::Guard::kNone: return "";
    case ir::Guard::kIf:
      return fmt::format("errors of `{1}` count only where `{0}` is true, errors of `{2}` only where it is false "
                         "or null.",
                         n[0], n[1], n[2]);
    case ir::Guard::kCoalesce: return "an argument's errors count only where every argument before it is null.";
    case ir::Guard::kAnd: return fmt::format("errors of `{}` count only where `{}` is not false.", n[1], n[0]);
    case ir::Guard::kOr: return fmt::format("errors of `{}` count only where `{}` is not true.", n[1], n[0]);
  }
  return "";
}

// Where the semantics of a function over nested values are told (empty for a flat one).
std::string_view NestedSection(const ir::Function& f) {
  switch (f.family) {
    case ir::Family::kStruct: return "semantics.md#structs";
    case ir::Family::kList: return "semantics.md#lists-and-maps";
    case ir::Family::kConstruct: return "semantics.md#building-structs-lists-and-maps";
    default: return "";
  }
}

std::string ComputedText(const ir::Function& f) {
  if (!NestedSection(f).empty()) return "a column at a time outside kernels; no kernel computes it.";
  if (jit::internal::HasLowering(f)) {
    return f.columns != nullptr
               ? "kernels; it also has a column form, which computes its string results a column at a time."
               : "kernels.";
  }
  if (f.columns != nullptr) return "a column at a time outside kernels (its column form); no kernel computes it.";
  return "row by row outside kernels; no kernel computes it.";
}

std::string FunctionSection(const ir::Function& f) {
  Probe p = ProbeFunction(f);
  Collapse(p);
  std::string out = fmt::format("### {}\n\n`{}`", f.name, Signature(f));
  if (const std::string op = OperatorForm(f); !op.empty()) {
    out += fmt::format(" · {} `{}`", f.syntax == ir::Syntax::kCast ? "written" : "operator", op);
  }
  if (const std::vector<std::string_view> aliases = ir::AliasesOf(f.name); !aliases.empty()) {
    std::vector<std::string> quoted;
    for (std::string_view a : aliases) quoted.push_back(fmt::format("`{}`", a));
    out += fmt::format(" · alias{} {}", aliases.size() > 1 ? "es" : "", Joined(quoted, ", "));
  }
  out += fmt::format("\n\n{}\n\n", f.summary.empty() ? "(no summary)" : f.summary);
  if (p.rows.empty() && !NestedSection(f).empty()) {
    out += fmt::format("It reads or builds nested values, typed by the binder ([semantics]({})).\n\n", NestedSection(f));
  } else if (p.rows.empty()) {
    out += f.syntax == ir::Syntax::kCast
               ? "No call by name binds to it: the binder builds it for the casts it stands for, and it prints as "
                 "that cast.\n\n"
               : "No call by name binds to it: the binder builds it.\n\n";
  } else {
    out += TypesTable(f, p) + "\n";
  }
  if (f.strict()) {
    out += "**Nulls:** strict: the result is null where any argument is null, and such a row is never an "
           "error.\n\n";
  } else {
    const std::string nullable = NullableText(f, p);
    out += fmt::format("**Nulls:** null-aware: it sees null arguments and decides.{}{}\n\n", nullable.empty() ? "" : " ",
                       nullable);
  }
  if (const std::string guard = GuardText(f); !guard.empty()) out += fmt::format("**Guard:** {}\n\n", guard);
  if (f.literal_set) {
    out += "**Literal items:** the arguments after the first that are literals form one constant set, held by "
           "the kernel.\n\n";
  }
  out += fmt::format("**Computed by:** {}\n\n", ComputedText(f));
  if (!f.notes.empty()) out += fmt::format("**Notes:** {}\n\n", f.notes);
  return out;
}

// The families in the registry's order, each with its functions.
std::vector<std::pair<ir::Family, std::vector<const ir::Function*>>> ByFamily() {
  std::vector<std::pair<ir::Family, std::vector<const ir::Function*>>> out;
  for (const ir::Function* f : ir::AllFunctions()) {
    if (out.empty() || out.back().first != f->family) out.emplace_back(f->family, std::vector<const ir::Function*>());
    out.back().second.push_back(f);
  }
  return out;
}

std::string ProbedLogicalTypes() {
  std::vector<std::string> names;
  for (const DataType& t : LogicalTypes()) names.push_back("`" + TypeText(t) + "`");
  return Joined(names, ", ");
}

std::string Markdown() {
  const auto families = ByFamily();
  std::string out = fmt::format(R"(# Function reference

Every row function of the catalog: its signature, aliases and operator form, what it computes,
the argument types it accepts with the result type, whether a call can fail, its null behaviour,
where it is computed, and the rules at its edges. This file is generated by
`rowjit functions --markdown` from the function descriptors (`ir/functions_*.cc`) and must not
be edited by hand: change the descriptors and regenerate it with `tools/regen-docs` (the
`functions_doc_current` test fails when it differs from the command's output). The rules the
entries follow, and the reasons for them, are in [semantics.md](semantics.md).

**Types tables** are probed from each function's type rule: a row lists the argument types and
the result type, a capital letter standing for each of the types listed beside it (the same one
wherever it appears in the row; nothing widens implicitly). Arguments are probed over the
storage types (`bool`, the integers, `f32`, `f64`, `utf8`, `binary`) and, for functions that
take logical types, one type of each kind: {}; other precisions, units and zones follow the
same rules. A variadic function is shown with two arguments (an IN list with three). "Can
fail" is the function's fail rule at those types: whether a row whose arguments are not null can
be an error. "Binds to" shows the call the binder rewrites such a call into.

## Contents

)",
                                ProbedLogicalTypes());
  for (const auto& [family, functions] : families) {
    std::vector<std::string> links;
    for (const ir::Function* f : functions) links.push_back(fmt::format("[`{}`](#{})", f->name, Anchor(f->name)));
    const std::string_view title = FamilyTitle(family);
    out += fmt::format("- [{}](#{}): {}\n", title, Anchor(title), Joined(links, " "));
  }
  for (const auto& [family, functions] : families) {
    out += fmt::format("\n## {}\n\n", FamilyTitle(family));
    for (const ir::Function* f : functions) out += FunctionSection(*f);
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

std::string PlainList() {
  std::string out;
  for (const auto& [family, functions] : ByFamily()) {
    out += fmt::format("{}:\n", FamilyTitle(family));
    for (const ir::Function* f : functions) out += fmt::format("  {:<28} {}\n", Signature(*f), f->summary);
  }
  return out;
}

}  // namespace

int Functions(const Args& args) {
  if (args.Has("--help")) return PrintHelp(kHelp);
  if (const std::string u = args.Unknown({"--markdown", "--help"}); !u.empty()) {
    fmt::print(stderr, "rowjit: unknown option '{}'\n\n{}", u, kHelp);
    return 2;
  }
  if (!args.Positionals({}).empty()) {
    fmt::print(stderr, "rowjit: functions takes no arguments\n\n{}", kHelp);
    return 2;
  }
  const std::string text = args.Has("--markdown") ? Markdown() : PlainList();
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace rowjit::cli
