// The catalog gate (jit layer, gates room): enumerating catalog kernels and checking them on a
// few threads.
#include "jit/gates/gate_catalog.h"

#include "ir/aggregate.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "ir/analysis.h"
#include "ir/binder.h"
#include "ir/function.h"
#include "jit/codegen/costly.h"
#include "jit/gates/gate_report.h"

namespace rowjit::jit {
namespace {

constexpr int kMaxThreads = 4;

struct Signature {
  std::vector<TypeId> args;
  std::optional<TypeId> type_arg;
};

// Every argument-type combination the function's type rule accepts: one type shared by the
// unified arguments, bool for arguments before them (the condition of `if`), and for casts every
// source × target pair.
std::vector<Signature> Signatures(const ir::Function& f, size_t arity) {
  std::vector<Signature> out;
  // Kernels return no strings yet (the engine refuses string results): `if` and `coalesce` over
  // strings are checked inside string predicates (AddStringKernels), not as roots. Nor nested
  // values: a list_value is built a column at a time (ir/construct.h).
  auto accepts = [&](const Signature& s) {
    std::vector<DataType> types(s.args.begin(), s.args.end());
    auto result = f.type_rule(f.name, types, s.type_arg);
    return result.ok() && !IsString(result->id) && result->id != TypeId::kList;
  };
  std::vector<TypeId> types(std::begin(kAllTypeIds), std::end(kAllTypeIds));
  types.push_back(TypeId::kUtf8);
  types.push_back(TypeId::kBinary);
  for (TypeId t : types) {
    Signature s;
    for (size_t i = 0; i < arity; ++i) {
      const bool condition = f.unify_from > 0 && static_cast<int>(i) < f.unify_from;
      s.args.push_back(condition ? TypeId::kBool : t);
    }
    if (!f.takes_type_arg) {
      if (accepts(s)) out.push_back(s);
      continue;
    }
    for (TypeId to : kAllTypeIds) {
      s.type_arg = to;
      if (accepts(s)) out.push_back(s);
    }
  }
  return out;
}

std::string ColumnName(size_t i) { return std::string(1, static_cast<char>('a' + i)); }

std::string CallText(const ir::Function& f, size_t arity, std::optional<TypeId> type_arg) {
  std::string text = fmt::format("{}(", f.name);
  for (size_t i = 0; i < arity; ++i) text += (i ? ", " : "") + ColumnName(i);
  if (type_arg) text += fmt::format(", {}", TypeIdName(*type_arg));
  return text + ")";
}

std::string SchemaText(const Signature& s, unsigned constant_mask, bool nullable) {
  std::string text;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const bool constant = (constant_mask >> i) & 1;
    text += fmt::format("{}{}:{}{}", i ? ", " : "", ColumnName(i), TypeIdName(s.args[i]),
                        nullable && !constant ? "?" : "");
  }
  return text;
}

// Reduction templates: every fold × every type it accepts, over a plain column with and without
// nulls, and fused over a checked product (`sum(a * b)`) with nullable inputs.
void AddFoldKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kFolds[] = {"sum", "min", "max", "min_max", "min_nan", "max_nan",
                                    "min_max_nan", "count", "nan_count", "any", "all"};
  constexpr TypeId kTypes[] = {TypeId::kBool, TypeId::kI8,  TypeId::kI16, TypeId::kI32,
                               TypeId::kI64,  TypeId::kU8,  TypeId::kU16, TypeId::kU32,
                               TypeId::kU64,  TypeId::kF32, TypeId::kF64};
  for (const char* fold : kFolds) {
    for (TypeId t : kTypes) {
      const std::string type(TypeIdName(t));
      const std::string plain = fmt::format("{}(a)", fold);
      auto schema = ParseSchema("a:" + type);
      if (!schema.ok() || !ir::ParseAndBindAggregate(plain, *schema).ok()) continue;  // not for t
      for (bool nullable : {false, true}) {
        out.push_back({std::string("fold:") + fold,
                       KernelRequest{plain, "a:" + type + (nullable ? "?" : ""), {}, "dense", target}});
      }
      const std::string fused = fmt::format("{}(a * b)", fold);
      const std::string fused_schema = fmt::format("a:{0}?, b:{0}?", type);
      if (ir::ParseAndBindAggregate(fused, *ParseSchema(fused_schema)).ok()) {
        out.push_back({std::string("fold:") + fold, KernelRequest{fused, fused_schema, {}, "dense", target}});
      }
    }
  }
}

// Guarded kernels (ir/reference.h): errors of the arguments of `if`, `coalesce`, `and`, `or`
// masked by their guards keep the vector shape; every integer type, with and without nulls.
void AddGuardedKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kGuarded[] = {"if(b != 0, a / b, 0)", "coalesce(if(b > 0, a, null:{0}), a / b)",
                                      "b = 0 or a / b > c", "if(a > c, a * b, a - b)"};
  constexpr TypeId kTypes[] = {TypeId::kI8, TypeId::kI16, TypeId::kI32, TypeId::kI64,
                               TypeId::kU8, TypeId::kU16, TypeId::kU32, TypeId::kU64};
  for (const char* guarded : kGuarded) {
    for (TypeId t : kTypes) {
      const std::string type(TypeIdName(t));
      const std::string text = fmt::format(fmt::runtime(guarded), type);
      for (bool nullable : {false, true}) {
        const std::string schema = fmt::format("a:{0}{1}, b:{0}{1}, c:{0}{1}", type, nullable ? "?" : "");
        out.push_back({"guard", KernelRequest{text, schema, {}, nullable ? "auto" : "dense", target}});
      }
    }
  }
}

// String kernels specialized on a literal, in every layout: what the literal becomes (a length
// test, two masked compares of a view, a prefix test, a search), and the string values of `if`
// and `coalesce` inside a predicate.
void AddStringKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kTexts[] = {"length(a) > 100", "a = 'literal'", "a = 'a longer literal'",
                                    "starts_with(a, 'AB-')", "a like 'AB-%'", "ends_with(a, 'xyz')",
                                    "a like '%needle%'", "a like 'a_c%'", "coalesce(a, 'x') = 'y'",
                                    "if(length(a) > 3, a, 'short') = 'y'"};
  for (const char* text : kTexts) {
    for (const char* type : {"utf8", "large_utf8", "utf8_view", "binary_view"}) {
      for (bool nullable : {false, true}) {
        out.push_back({"string", KernelRequest{text, fmt::format("a:{}{}", type, nullable ? "?" : ""), {},
                                               "dense", target}});
      }
    }
  }
}

// Temporal functions take logical types, which the storage signatures above do not name: each
// over the dates, timestamps and times it accepts, with and without nulls (the fallible
// truncations also under branch-skip).
void AddTemporalKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kTypes[] = {"date32", "date64", "timestamp(s)", "timestamp(ms)", "timestamp(us, UTC)",
                                    "timestamp(ns)", "time32(ms)", "time64(ns)", "timestamp(s, Europe/Paris)",
                                    "timestamp(us, Australia/Sydney)", "interval_months",
                                    "interval_day_time", "interval_month_day_nano"};
  // Casts between units, dates and timestamps (temporal_cast: its target is its type).
  const std::pair<const char*, const char*> casts[] = {
      {"cast(a, timestamp(ms))", "timestamp(us)"}, {"cast(a, timestamp(ns))", "timestamp(s)"},
      {"cast(a, date32)", "timestamp(us)"},        {"cast(a, date64)", "timestamp(ns)"},
      {"cast(a, timestamp(us))", "date32"},        {"cast(a, time32(s))", "time32(ms)"},
      {"cast(a, date32)", "date64"},                {"cast(a, timestamp(us))", "timestamp(us, Europe/Paris)"},
      {"cast(a, timestamp(ms, Europe/Paris))", "timestamp(ms)"}};
  for (const auto& [text, type] : casts) {
    out.push_back({"temporal_cast", KernelRequest{text, fmt::format("a:{}", type), {}, "dense", target}});
    out.push_back({"temporal_cast", KernelRequest{text, fmt::format("a:{}?", type), {}, "branch-skip", target}});
  }
  // Dates, timestamps and times ± intervals: interval columns of each type, and literals with
  // months (the civil form) and without (the storage form).
  const std::pair<const char*, const char*> intervals[] = {
      {"a + i", "date32"}, {"a - i", "timestamp(s)"}, {"a + i", "timestamp(us, UTC)"}, {"a + i", "timestamp(ns)"},
      {"a + '1 month'", "timestamp(ms)"}, {"a - '2 days 3 hours'", "timestamp(us)"}, {"a + '1 month 1 ms'", "date64"},
      {"a + i", "timestamp(s, Europe/Paris)"}, {"a - '1 day'", "timestamp(us, America/New_York)"},
      {"a + i", "time32(s)"}, {"a - i", "time64(us)"}, {"a - '1 hour 1 ns'", "time64(ns)"}, {"i + a", "time32(ms)"}};
  for (const auto& [text, type] : intervals) {
    for (const char* interval : {"interval_months", "interval_day_time", "interval_month_day_nano"}) {
      const std::string schema = fmt::format("a:{}{{0}}, i:{}{{0}}", type, interval);
      for (bool nullable : {false, true}) {
        const std::string filled = fmt::format(fmt::runtime(schema), nullable ? "?" : "");
        auto bound = ir::ParseAndBind(text, *ParseSchema(filled));
        if (!bound.ok()) continue;
        out.push_back({std::string((*bound)->name()),
                       KernelRequest{text, filled, {}, nullable ? "branch-skip" : "dense", target}});
      }
      if (!std::string_view(text).ends_with(" i")) break;  // a literal: one interval type
    }
  }
  // Interval arithmetic and comparisons (ir/temporal.h BindIntervalCall) over each interval type,
  // with a column and a literal: part by part, and the two-part length compare.
  constexpr const char* kIntervalTexts[] = {"i + j", "i - j", "-i", "i * n", "i < j", "i = '1 month'",
                                            "interval_compare(i, j)", "greatest(i, j)"};
  for (const char* text : kIntervalTexts) {
    for (const char* interval : {"interval_months", "interval_day_time", "interval_month_day_nano"}) {
      for (bool nullable : {false, true}) {
        const std::string schema = fmt::format("i:{0}{1}, j:{0}{1}, n:i64{1}", interval, nullable ? "?" : "");
        auto bound = ir::ParseAndBind(text, *ParseSchema(schema));
        if (!bound.ok()) continue;
        const bool fallible = (*bound)->facts().can_fail;
        out.push_back({std::string((*bound)->name()),
                       KernelRequest{text, schema, {}, nullable && fallible ? "branch-skip" : "dense", target}});
      }
    }
  }
  for (const ir::Function* f : ir::AllFunctions()) {
    if (f->family != ir::Family::kTemporal) continue;
    const std::string text = fmt::format("{}(a)", f->name);
    for (const char* type : kTypes) {
      auto schema = ParseSchema(fmt::format("a:{}", type));
      if (!schema.ok() || !ir::ParseAndBind(text, *schema).ok()) continue;
      out.push_back({std::string(f->name), KernelRequest{text, fmt::format("a:{}", type), {}, "dense", target}});
      out.push_back({std::string(f->name), KernelRequest{text, fmt::format("a:{}?", type), {},
                                                         f->fallible() ? "branch-skip" : "dense", target}});
    }
  }
}

// Decimal functions over decimal32/decimal64/decimal128 operands of a few scale patterns,
// integers and floats, each named by the bound call at its root (decimal_add, decimal_cast, ...).
void AddDecimalKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kTexts[] = {"a + b", "a - b", "a * b", "a * b + c", "a + 1.25", "cast(a, decimal64(12,4))",
                                    "round(a, 1)", "cast(b, decimal64(18,0))", "cast(a, f64)", "cast(f, decimal64(12,2))",
                                    "a < b", "cast(a, i32)", "cast(a, decimal(38,12))", "cast(a, decimal(38,1))", "-a",
                                    "abs(a)", "if(a < b, a, b)"};
  constexpr const char* kSchemas[] = {"a:decimal64(12,2){0}, b:decimal64(12,2){0}, c:decimal64(12,2){0}, f:f64{0}",
                                      "a:decimal64(15,2){0}, b:decimal64(10,4){0}, c:i64{0}, f:f32{0}",
                                      "a:decimal32(9,2){0}, b:decimal32(7,3){0}, c:decimal32(9,0){0}, f:f64{0}",
                                      "a:decimal(12,2){0}, b:decimal(18,4){0}, c:decimal(9,0){0}, f:f64{0}",
                                      // 128 bits: 16-byte operands of more than 18 digits, with 64-bit ones
                                      "a:decimal(38,10){0}, b:decimal(38,10){0}, c:decimal(20,2){0}, f:f64{0}",
                                      "a:decimal(30,4){0}, b:decimal64(12,2){0}, c:i64{0}, f:f32{0}"};
  for (const char* text : kTexts) {
    for (const char* schema_text : kSchemas) {
      for (bool nullable : {false, true}) {
        const std::string schema = fmt::format(fmt::runtime(schema_text), nullable ? "?" : "");
        auto bound = ir::ParseAndBind(text, *ParseSchema(schema));
        if (!bound.ok() || !(*bound)->is_call()) continue;
        out.push_back({std::string((*bound)->name()),
                       KernelRequest{text, schema, {}, nullable ? "branch-skip" : "dense", target}});
      }
    }
  }
}

// Text read as dates, times, timestamps, intervals and decimals (text_to_temporal,
// text_to_interval, text_to_decimal: their target is their type), in each string layout, with and
// without nulls. (Their reverse, logical_to_text, returns strings: no kernel.)
void AddTextCastKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kTargets[] = {"date32", "date64", "time32(ms)", "time64(us)", "timestamp(s)", "timestamp(ns, UTC)",
                                      "timestamp(us, Europe/Paris)", "decimal32(9,2)", "decimal64(12,2)", "decimal(30,4)",
                                      "interval_months", "interval_day_time", "interval_month_day_nano", "duration(s)",
                                      "duration(ns)"};
  for (const char* to : kTargets) {
    const std::string text = fmt::format("cast(a, {})", to);
    for (const char* type : {"utf8", "large_utf8", "utf8_view"}) {
      for (bool nullable : {false, true}) {
        const std::string schema = fmt::format("a:{}{}", type, nullable ? "?" : "");
        auto bound = ir::ParseAndBind(text, *ParseSchema(schema));
        if (!bound.ok()) continue;
        out.push_back({std::string((*bound)->name()),
                       KernelRequest{text, schema, {}, nullable ? "branch-skip" : "dense", target}});
      }
    }
  }
}

// IN lists of literals, each lookup of ir::InListLookup: 3 values compared in turn, 40 close
// together (a bitmap where the type is an integer), 100 spread wide (searched); over every
// fixed-width type, dates, timestamps, decimals and strings, with and without nulls, and with a
// null item.
void AddInListKernels(const std::string& target, std::vector<CatalogKernel>& out) {
  constexpr const char* kTypes[] = {"bool", "i8",  "i16", "i32", "i64", "u8",  "u16", "u32", "u64", "f32",
                                    "f64",  "date32", "timestamp(us)", "decimal64(12,2)", "decimal(30,4)",
                                    "utf8", "large_utf8", "utf8_view"};
  for (const char* type : kTypes) {
    for (size_t size : {3, 40, 100}) {
      std::string items;
      for (size_t k = 0; k < size; ++k) {
        const size_t i = size == 100 ? k * 1001 % 30011 : k;  // spread wide, and within every type
        const std::string t(type);
        const std::string item = t == "bool"                ? (i % 2 ? "true" : "false")
                                 : t == "date32" || t == "timestamp(us)"
                                     ? fmt::format("'{}-{:02}-{:02}{}'", 2024 + i / 336, 1 + i / 28 % 12, 1 + i % 28,
                                                   t == "date32" ? "" : " 12:00:00")
                                 : t.starts_with("decimal") ? fmt::format("{}.{:02}", i / 100, i % 100)
                                 : t.find("utf8") != std::string::npos ? fmt::format("'s{}'", i)
                                 : t[0] == 'f'              ? fmt::format("{}.5", i)
                                                            : std::to_string(i);
        items += (i ? ", " : "") + item;
      }
      for (const char* extra : {"", ", null"}) {
        const std::string text = fmt::format("a in ({}{})", items, extra);
        for (bool nullable : {false, true}) {
          const std::string schema = fmt::format("a:{}{}", type, nullable ? "?" : "");
          if (!ir::ParseAndBind(text, *ParseSchema(schema)).ok()) continue;
          out.push_back({"in_list", KernelRequest{text, schema, {}, "auto", target}});
        }
      }
    }
  }
}

}  // namespace

std::vector<CatalogKernel> CatalogKernels(const std::string& target) {
  std::vector<CatalogKernel> out;
  for (const ir::Function* f : ir::AllFunctions()) {
    std::vector<size_t> arities = {f->arity()};
    if (f->variadic) arities = {2, 3};
    for (size_t arity : arities) {
      for (const Signature& s : Signatures(*f, arity)) {
        const std::string text = CallText(*f, arity, s.type_arg);
        const unsigned all = (1u << arity) - 1;
        for (unsigned mask = 0; mask < all; ++mask) {  // all-constant calls are no kernel
          std::vector<std::pair<std::string, std::string>> constants;
          for (size_t i = 0; i < arity; ++i) {
            if ((mask >> i) & 1) {
              constants.emplace_back(ColumnName(i), s.args[i] == TypeId::kBool ? "true"
                                                    : IsString(s.args[i])     ? "'ab'"
                                                                              : "1");
            }
          }
          auto add = [&](bool nullable, const char* policy) {
            out.push_back({std::string(f->name),
                           KernelRequest{text, SchemaText(s, mask, nullable), constants, policy,
                                         target}});
          };
          add(false, "dense");
          if (f->kernel_cost == ir::KernelCost::kCheckedMultiply && SpeculatesMul(s.args[0])) {  // and its exact twin
            out.push_back(out.back());
            out.back().request.exact_twin = true;
          }
          if (f->strict() && f->fallible()) add(true, "branch-skip");
          if (!f->strict()) add(true, "auto");  // the validity kernel over nullable inputs
        }
      }
    }
  }
  AddFoldKernels(target, out);
  AddGuardedKernels(target, out);
  AddStringKernels(target, out);
  AddTemporalKernels(target, out);
  AddDecimalKernels(target, out);
  AddTextCastKernels(target, out);
  AddInListKernels(target, out);
  return out;
}

Result<CatalogSummary> RunCatalogGate(const std::string& target,
                                      const std::function<void(const KernelCheck&)>& on_kernel,
                                      int threads) {
  const auto start = std::chrono::steady_clock::now();
  ROWJIT_ASSIGN_OR_RETURN(TargetSpec spec, ResolveTarget(target));
  const std::vector<CatalogKernel> kernels = CatalogKernels(spec.name);
  if (threads <= 0) {
    threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxThreads);
  }
  // Checked in parallel, reported in catalog order: results land in slots, and the thread that
  // fills the next slot in order flushes every ready one.
  std::vector<std::optional<Result<KernelCheck>>> slots(kernels.size());
  std::atomic<size_t> next{0};
  std::mutex mu;
  size_t reported = 0;
  CatalogSummary summary;
  summary.target = spec.name;
  std::optional<Error> first_error;
  auto report = [&](const Result<KernelCheck>& r) {
    if (!r.ok()) {
      if (!first_error) first_error = r.error();
      return;
    }
    const KernelCheck& check = *r;
    ++summary.kernels;
    CatalogFailure failure{check.context.kernel, {}};
    std::set<const GateException*> used;  // a kernel counts once per exception
    for (const Violation& v : check.result.violations) {
      if (v.exception == nullptr) {
        failure.violations.push_back(v);
      } else if (used.insert(v.exception).second) {
        const GateException& e = *v.exception;
        ++summary.exceptions_used[fmt::format("{} {} {}: {}", e.rule, e.kernel, e.target, e.reason)];
      }
    }
    if (failure.violations.empty()) {
      ++summary.passed;
    } else {
      ++summary.failed;
      summary.failures.push_back(std::move(failure));
    }
    if (on_kernel) on_kernel(check);
  };
  auto worker = [&] {
    for (size_t i = next++; i < kernels.size(); i = next++) {
      Result<KernelCheck> r = [&]() -> Result<KernelCheck> {
        ROWJIT_ASSIGN_OR_RETURN(PlannedKernel planned, PlanRequest(kernels[i].request));
        return CheckPlanned(planned);
      }();
      if (r.ok()) {  // the IR texts are large and no longer needed
        r->code.raw_ir.clear();
        r->code.optimized_ir.clear();
      }
      std::lock_guard<std::mutex> lock(mu);
      slots[i] = std::move(r);
      while (reported < slots.size() && slots[reported].has_value()) {
        report(*slots[reported]);
        slots[reported].reset();
        ++reported;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (first_error) return *first_error;
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

std::string FormatCatalogSummary(const CatalogSummary& s) {
  std::string out;
  for (const auto& [exception, count] : s.exceptions_used) {
    out += fmt::format("excepted {} kernels: {}\n", count, exception);
  }
  return out + fmt::format("{} kernels: {} passed, {} failed\n", s.kernels, s.passed, s.failed);
}

std::string FormatCatalogJson(const CatalogSummary& s) {
  std::string failures;
  for (size_t i = 0; i < s.failures.size(); ++i) {
    std::string violations;
    for (size_t j = 0; j < s.failures[i].violations.size(); ++j) {
      const Violation& v = s.failures[i].violations[j];
      std::string lines;
      for (size_t k = 0; k < v.lines.size(); ++k) lines += (k ? ", " : "") + JsonString(v.lines[k]);
      violations += fmt::format(R"({}{{"rule": {}, "message": {}, "lines": [{}]}})", j ? ", " : "",
                                JsonString(v.rule), JsonString(v.message), lines);
    }
    failures += fmt::format("{}    {{\"kernel\": {}, \"violations\": [{}]}}", i ? ",\n" : "\n",
                            JsonString(s.failures[i].kernel), violations);
  }
  std::string exceptions;
  size_t i = 0;
  for (const auto& [exception, count] : s.exceptions_used) {
    exceptions += fmt::format("{}    {{\"exception\": {}, \"kernels\": {}}}", i++ ? ",\n" : "\n",
                              JsonString(exception), count);
  }
  return fmt::format(
      "{{\n  \"target\": {},\n  \"kernels\": {},\n  \"passed\": {},\n  \"failed\": {},\n"
      "  \"failures\": [{}{}],\n  \"exceptions_used\": [{}{}]\n}}\n",
      JsonString(s.target), s.kernels, s.passed, s.failed, failures, failures.empty() ? "" : "\n  ",
      exceptions, exceptions.empty() ? "" : "\n  ");
}

}  // namespace rowjit::jit
