// String predicates (bench): the JIT kernel with the literal baked in (`jit`: Engine::Evaluate,
// the result a bitmap), beside a static C++ baseline of the same work over the same Arrow arrays
// (`static`: std::string_view compares, memmem, writing the same bitmap into reused memory).
// 65,536 and 1M rows. `str_eq`: short strings (4-12 bytes), 1 % equal to the 8-byte literal, over 32-bit
// offsets and over views (`jit_view`: the view's length and inline bytes compared in registers).
// `str_prefix`: 10 % start with 'AB-' (`starts_with` and `like 'AB-%'`). `str_search`: 64-byte
// strings, or 4 to 64 bytes, 1 % holding 'needle' (`like '%needle%'`, `ilike '%NEEDLE%'`); bytes
// processed are the strings' bytes. `str_length`:
// length(s) > 100 over lengths 0-200 (offsets only). `str_parse`: text to integers (RegisterParse).
// `str_char_length`: code points of short rows (RegisterCharLength).
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <random>

#include "bench_support.h"
#include "ir/reference.h"
#include "kernels/strings.h"
#include "runtime/random.h"
#include "runtime/string_array.h"

namespace rowjit::bench {
namespace {

constexpr int64_t kRows = int64_t{1} << 20;

struct Strings {
  std::vector<std::string> rows;
  ArrayPtr offsets, views;
  int64_t bytes = 0;
};

// `make(i, rng)` gives row i.
template <typename Make>
std::shared_ptr<const Strings> Build(Make make) {
  auto s = std::make_shared<Strings>();
  std::mt19937_64 rng(7);
  for (int64_t i = 0; i < kRows; ++i) s->rows.push_back(make(i, rng));
  std::vector<std::optional<std::string_view>> views(s->rows.begin(), s->rows.end());
  for (const auto& r : s->rows) s->bytes += static_cast<int64_t>(r.size());
  s->offsets = *MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, views);
  s->views = *MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kViews, views);
  return s;
}

std::string Letters(std::mt19937_64& rng, size_t n) {
  std::string s(n, ' ');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

const Strings& ShortStrings() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    return rng() % 100 == 0 ? std::string("ABCDEFGH") : Letters(rng, 4 + rng() % 9);
  });
  return *s;
}
const Strings& Prefixed() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    return (rng() % 10 == 0 ? "AB-" : "ab-") + Letters(rng, 2 + rng() % 10);
  });
  return *s;
}
const Strings& Long64() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    std::string r = Letters(rng, 64);
    if (rng() % 100 == 0) std::memcpy(&r[rng() % 58], "needle", 6);
    return r;
  });
  return *s;
}
// 4-64 bytes, 1 % holding 'needle' (the rows a host's text columns hold: names, codes, titles).
const Strings& Short4To64() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    std::string r = Letters(rng, 4 + rng() % 61);
    if (r.size() >= 6 && rng() % 100 == 0) std::memcpy(&r[rng() % (r.size() - 5)], "needle", 6);
    return r;
  });
  return *s;
}
const Strings& Lengths() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) { return std::string(rng() % 201, 'x'); });
  return *s;
}

// The first `rows` rows of `array` (a slice: the same buffers).
ArrayPtr First(const ArrayPtr& array, int64_t rows) { return rows == array->length() ? array : *array->Slice(0, rows); }

// The static side: a predicate over each row's bytes of a 32-bit-offsets array, as bits.
template <typename Pred>
void RunStatic(benchmark::State& state, const ArrayPtr& array, int64_t rows, Pred pred) {
  const auto& s = static_cast<const StringArray&>(*array);
  const auto* offsets = reinterpret_cast<const int32_t*>(s.raw_offsets());
  const char* data = reinterpret_cast<const char*>(s.data());
  Scratch<uint64_t> out(rows / 64 + 1);
  for (auto _ : state) {
    uint64_t* words = out.data();
    for (int64_t w = 0; w < rows / 64; ++w) {
      uint64_t word = 0;
      for (int64_t r = 0; r < 64; ++r) {
        const int64_t i = w * 64 + r;
        const std::string_view v(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
        word |= uint64_t{pred(v)} << r;
      }
      words[w] = word;
    }
    benchmark::DoNotOptimize(words);
    benchmark::ClobberMemory();
  }
}

// XOR of the 8-byte words of [p, p + n): a read at the memory's pace.
uint64_t ReadAll(const uint8_t* p, int64_t n) {
  uint64_t acc[4] = {};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      acc[k] ^= w;
    }
  }
  for (; i < n; ++i) acc[0] ^= p[i];
  return acc[0] ^ acc[1] ^ acc[2] ^ acc[3];
}

// `floor` and `floor_view`: one pass reading every byte a kernel over the layout may read (the
// offsets and the strings' bytes; the views and their data buffers): the memory floor beside
// which the kernels' figures are read.
void RunFloor(benchmark::State& state, const ArrayPtr& array, int64_t rows, bool reads_bytes) {
  const auto& s = static_cast<const StringArray&>(*array);
  std::vector<std::pair<const uint8_t*, int64_t>> ranges;
  if (s.layout() == StringLayout::kViews) {
    ranges.emplace_back(s.raw_views(), rows * kViewBytes);
    for (const BufferPtr& b : s.data_buffers()) {
      if (b != nullptr && reads_bytes) ranges.emplace_back(b->data(), b->size() * rows / s.length());
    }
  } else {
    const auto* offsets = reinterpret_cast<const int32_t*>(s.raw_offsets());
    ranges.emplace_back(s.raw_offsets(), (rows + 1) * 4);
    if (reads_bytes) ranges.emplace_back(s.data() + offsets[0], offsets[rows] - offsets[0]);
  }
  for (auto _ : state) {
    uint64_t x = 0;
    for (const auto& [p, n] : ranges) x ^= ReadAll(p, n);
    benchmark::DoNotOptimize(x);
  }
}

// Every string family at 65,536 rows (the inputs fit in the caches: the kernels' own cost) and
// at 1M rows (they do not: 12 to 80 MB per pass, bound by the memory's bandwidth).
constexpr int64_t kSizes[] = {65536, kRows};

// `bytes_are_strings`: the counters count the strings' bytes. `reads_bytes`: kernels read them
// (the floor does too), or only the offsets or views (length tests).
void Register(const std::string& family, const std::string& expr, const Strings& (*data)(),
              bool bytes_are_strings, bool (*pred)(std::string_view), bool reads_bytes = true) {
  const LazyExpr bound(expr, "s:utf8");
  auto counters = [data, bytes_are_strings](benchmark::State& state) {
    const int64_t rows = state.range(0);
    state.SetItemsProcessed(state.iterations() * rows);
    if (bytes_are_strings) state.SetBytesProcessed(state.iterations() * data().bytes * rows / kRows);
  };
  auto reg = [&](const char* impl, auto run) {
    auto* b = benchmark::RegisterBenchmark((family + "/" + impl).c_str(), [=](benchmark::State& state) {
      run(state, state.range(0));
      counters(state);
    });
    b->ArgNames({"rows", "valid"});
    for (int64_t rows : kSizes) b->Args({rows, 100});
  };
  reg("jit", [=](benchmark::State& state, int64_t rows) { RunJit(state, bound.get(), {First(data().offsets, rows)}, rows); });
  reg("jit_view", [=](benchmark::State& state, int64_t rows) { RunJit(state, bound.get(), {First(data().views, rows)}, rows); });
  if (pred != nullptr) {
    reg("static", [=](benchmark::State& state, int64_t rows) { RunStatic(state, data().offsets, rows, pred); });
  }
  reg("floor", [=](benchmark::State& state, int64_t rows) { RunFloor(state, data().offsets, rows, reads_bytes); });
  reg("floor_view", [=](benchmark::State& state, int64_t rows) { RunFloor(state, data().views, rows, reads_bytes); });
}

// `str_dict`: 1M rows through i32 codes into `values` distinct 16-byte strings (the benchmark
// argument, random codes): `jit` (the engine evaluates once per dictionary value and gathers
// through the codes, up to one value per kDictionaryRowsPerValue rows; beyond, it decodes the
// column) against `jit_flat` (the same rows as a flat utf8 array): the crossover of
// Strategy::kOverDictionary.
struct Dictionary {
  ArrayPtr dict, flat;
};
const Dictionary& DictionaryData(int64_t values) {
  static std::map<int64_t, Dictionary> made;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = made.find(values); it != made.end()) return it->second;
  std::mt19937_64 rng(9);
  std::vector<std::string> distinct;
  for (int64_t i = 0; i < values; ++i) distinct.push_back(Letters(rng, 16));
  std::vector<std::optional<std::string_view>> dict_rows(distinct.begin(), distinct.end()), rows;
  BufferPtr codes = *Buffer::Allocate(kRows * 4);
  for (int64_t i = 0; i < kRows; ++i) {
    const int32_t c = static_cast<int32_t>(rng() % distinct.size());
    reinterpret_cast<int32_t*>(codes->mutable_data())[i] = c;
    rows.push_back(distinct[static_cast<size_t>(c)]);
  }
  auto code_array = *PrimitiveArray::Make(DataType(TypeId::kI32), kRows, codes, Validity::AllValid());
  ArrayPtr values_array = *MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, dict_rows);
  return made[values] = Dictionary{*DictionaryArray::Make(code_array, values_array),
                                   *MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, rows)};
}

void RegisterDictionary() {
  // `str_dict/upper`: a string-valued call over the dictionary's values, then read through the
  // codes (`jit`: the root's rows copied out; `jit_nested`: read by the kernel of the rest).
  const LazyExpr upper("upper(s)", "s:utf8"), nested("upper(s) = 'ABC'", "s:utf8");
  for (const char* impl : {"jit", "jit_nested", "jit_flat"}) {
    const bool flat = std::string(impl) == "jit_flat", in_kernel = std::string(impl) == "jit_nested";
    benchmark::RegisterBenchmark((std::string("str_dict/upper/") + impl).c_str(), [=](benchmark::State& state) {
      const Dictionary& d = DictionaryData(state.range(0));
      RunJit(state, in_kernel ? nested.get() : upper.get(), {flat ? d.flat : d.dict}, kRows);
      state.SetItemsProcessed(state.iterations() * kRows);
    })->ArgNames({"values"})->Arg(1000)->Arg(65536);
  }
  const LazyExpr bound("s like '%x%'", "s:utf8");
  for (const char* impl : {"jit", "jit_flat"}) {
    const bool flat = std::string(impl) == "jit_flat";
    benchmark::RegisterBenchmark((std::string("str_dict/like_x/") + impl).c_str(), [=](benchmark::State& state) {
      const Dictionary& d = DictionaryData(state.range(0));
      RunJit(state, bound.get(), {flat ? d.flat : d.dict}, kRows);
      state.SetItemsProcessed(state.iterations() * kRows);
    })->ArgNames({"values"})->Arg(1000)->Arg(65536)->Arg(262144)->Arg(524288)->Arg(kRows)->Arg(2 * kRows);
  }
}


// `str_produce`: functions returning strings over 1M (and 65,536) words of 4-12 mixed-case
// letters, a tenth with spaces around them, 90 % valid: `jit` (Engine::Evaluate over 32-bit
// offsets: the column forms of ir/string_columns.h), `jit_view` (over views), `reference` (the
// row-at-a-time reference semantics: these calls without the column forms), and
// `floor` (copying the offsets and the bytes into fresh buffers: what any result costs).
const Strings& Words() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    std::string w = Letters(rng, 4 + rng() % 9);
    for (char& c : w) {
      if (rng() % 3 == 0) c = static_cast<char>(c - 32);
    }
    return rng() % 10 == 0 ? "  " + w + " " : w;
  });
  return *s;
}
struct WordColumns {
  ArrayPtr offsets, views, other;
};
const WordColumns& WordData() {
  static const WordColumns w = [] {
    const Strings& s = Words();
    std::mt19937_64 rng(11);
    std::vector<std::optional<std::string_view>> rows;
    for (const std::string& r : s.rows) rows.push_back(rng() % 10 == 0 ? std::nullopt : std::optional<std::string_view>(r));
    std::vector<std::optional<std::string_view>> other(rows.rbegin(), rows.rend());
    for (auto& o : other) o = o.value_or("x");
    const DataType t(TypeId::kUtf8, true);
    return WordColumns{*MakeStringArray(t, StringLayout::kOffsets32, rows), *MakeStringArray(t, StringLayout::kViews, rows),
                       *MakeStringArray(DataType(TypeId::kUtf8), StringLayout::kOffsets32, other)};
  }();
  return w;
}

void RunCopyFloor(benchmark::State& state, const StringArray& s, int64_t rows) {
  const int64_t offsets = (rows + 1) * 4, bytes = s.ValueBytes();
  for (auto _ : state) {
    BufferPtr o = *Buffer::AllocateForOverwrite(offsets), d = *Buffer::AllocateForOverwrite(bytes);
    std::memcpy(o->mutable_data(), s.raw_offsets(), static_cast<size_t>(offsets));
    std::memcpy(d->mutable_data(), s.data(), static_cast<size_t>(bytes));
    benchmark::DoNotOptimize(o);
    benchmark::DoNotOptimize(d);
  }
}

void RegisterProducers() {
  for (const char* text : {"lower(s)", "upper(s)", "trim(s)", "substr(s, 2, 4)", "concat(s, '-', t)",
                           "replace(s, 'a', 'xy')", "coalesce(s, t)"}) {
    const LazyExpr bound(text, "s:utf8?,t:utf8");
    std::string name = text;
    name = name.substr(0, name.find('('));
    auto reg = [&](const char* impl, auto run) {
      auto* b = benchmark::RegisterBenchmark(("str_produce/" + name + "/" + impl).c_str(), [=](benchmark::State& state) {
        run(state, state.range(0));
        state.SetItemsProcessed(state.iterations() * state.range(0));
      });
      b->ArgNames({"rows"});
      for (int64_t rows : kSizes) b->Arg(rows);
    };
    reg("jit", [=](benchmark::State& state, int64_t rows) {
      RunJit(state, bound.get(), {First(WordData().offsets, rows), First(WordData().other, rows)}, rows);
    });
    reg("jit_view", [=](benchmark::State& state, int64_t rows) {
      RunJit(state, bound.get(), {First(WordData().views, rows), First(WordData().other, rows)}, rows);
    });
    reg("reference", [=](benchmark::State& state, int64_t rows) {
      const std::vector<ArrayPtr> cols = {First(WordData().offsets, rows), First(WordData().other, rows)};
      for (auto _ : state) {
        auto r = ir::EvaluateReference(*bound.get(), cols, rows);
        benchmark::DoNotOptimize(r);
      }
    });
    if (name == "lower") {
      reg("floor", [=](benchmark::State& state, int64_t rows) {
        RunCopyFloor(state, static_cast<const StringArray&>(*First(WordData().offsets, rows)), rows);
      });
    }
  }
}


// `str_format`: casts to text of 1M (and 65,536) random i64 (moderate values), f64, date32 and
// decimal64(12,2) values, 90 % valid: `jit` (the column forms) against `reference` (row by row).
void RegisterFormats() {
  for (const char* type : {"i64?", "f64?", "date32?", "decimal64(12,2)?"}) {
    const LazyExpr bound("cast(x, utf8)", std::string("x:") + type);
    std::string name = type;
    name = name.substr(0, name.find_first_of("(?"));
    const auto column = std::make_shared<ArrayPtr>();
    auto data = [column, type](int64_t rows) {
      if (*column == nullptr) {
        std::mt19937_64 rng(13);
        *column = RandomFlatArray({.type = *ParseDataType(type), .length = kRows, .valid_fraction = 0.9,
                                   .values = ValueMode::kModerate}, rng);
      }
      return First(*column, rows);
    };
    for (const char* impl : {"jit", "reference"}) {
      const bool jit = std::string(impl) == "jit";
      auto* b = benchmark::RegisterBenchmark(("str_format/" + name + "/" + impl).c_str(), [=](benchmark::State& state) {
        const int64_t rows = state.range(0);
        const std::vector<ArrayPtr> cols = {data(rows)};
        if (jit) {
          RunJit(state, bound.get(), cols, rows);
        } else {
          for (auto _ : state) {
            auto r = ir::EvaluateReference(*bound.get(), cols, rows);
            benchmark::DoNotOptimize(r);
          }
        }
        state.SetItemsProcessed(state.iterations() * rows);
      });
      b->ArgNames({"rows"});
      for (int64_t rows : kSizes) b->Arg(rows);
    }
  }
}

// `str_parse/i64`: `cast(s, i64)` over integer text of 1 to 12 digits, a third negative (`jit`),
// beside `static`, std::from_chars a row into a reused i64 vector (no validity, no errors).
const Strings& IntegerText() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    std::string r = rng() % 3 == 0 ? "-" : "";
    const size_t n = 1 + rng() % 12;
    r += static_cast<char>('1' + rng() % 9);
    while (r.size() < n + (r[0] == '-')) r += static_cast<char>('0' + rng() % 10);
    return r;
  });
  return *s;
}

// `name/jit`: `expr` over the first rows of `strings` (32-bit offsets), beside `name/static`:
// `per_row(view of row i)` into a reused i64 vector (no validity, no errors).
template <typename PerRow>
void RegisterJitAndStatic(const std::string& name, const char* expr, const Strings& (*strings)(), PerRow per_row) {
  const LazyExpr bound(expr, "s:utf8");
  auto* jit = benchmark::RegisterBenchmark((name + "/jit").c_str(), [bound, strings](benchmark::State& state) {
    const int64_t rows = state.range(0);
    RunJit(state, bound.get(), {First(strings().offsets, rows)}, rows);
    state.SetItemsProcessed(state.iterations() * rows);
  });
  auto* fixed = benchmark::RegisterBenchmark((name + "/static").c_str(), [strings, per_row](benchmark::State& state) {
    const int64_t rows = state.range(0);
    const auto& a = static_cast<const StringArray&>(*strings().offsets);
    const auto* offsets = reinterpret_cast<const int32_t*>(a.raw_offsets());
    const char* data = reinterpret_cast<const char*>(a.data());
    std::vector<int64_t> out(static_cast<size_t>(rows));
    for (auto _ : state) {
      for (int64_t i = 0; i < rows; ++i) {
        out[i] = per_row(std::string_view(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i])));
      }
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * rows);
  });
  for (auto* b : {jit, fixed}) {
    b->ArgNames({"rows"});
    for (int64_t rows : kSizes) b->Arg(rows);
  }
}

void RegisterParse() {
  RegisterJitAndStatic("str_parse/i64", "cast(s, i64)", IntegerText, [](std::string_view v) {
    int64_t value = 0;
    std::from_chars(v.data(), v.data() + v.size(), value);
    return value;
  });
}

// `str_char_length/4to30B`: `char_length(s)` over rows of 4 to 30 bytes, a quarter of their
// characters two-byte 'é' (`jit`), beside `static`, kernels::CountCodePoints a row into a reused
// i64 vector.
const Strings& Short4To30() {
  static auto s = Build([](int64_t, std::mt19937_64& rng) {
    std::string r;
    const size_t n = 4 + rng() % 27;
    while (r.size() < n) r += rng() % 4 == 0 && r.size() + 2 <= n ? "\xc3\xa9" : "x";
    return r;
  });
  return *s;
}

void RegisterCharLength() {
  RegisterJitAndStatic("str_char_length/4to30B", "char_length(s)", Short4To30, [](std::string_view v) {
    return kernels::CountCodePoints(reinterpret_cast<const uint8_t*>(v.data()), v.size());
  });
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterParse();
  RegisterCharLength();
  RegisterDictionary();
  RegisterProducers();
  RegisterFormats();
  Register("str_eq/short_1pct", "s = 'ABCDEFGH'", ShortStrings, false,
           [](std::string_view v) { return v == "ABCDEFGH"; });
  Register("str_prefix/starts_with", "starts_with(s, 'AB-')", Prefixed, false,
           [](std::string_view v) { return v.starts_with("AB-"); });
  Register("str_prefix/like", "s like 'AB-%'", Prefixed, false, nullptr);
  Register("str_search/64B_like", "s like '%needle%'", Long64, true,
           [](std::string_view v) { return memmem(v.data(), v.size(), "needle", 6) != nullptr; });
  Register("str_search/4to64B_like", "s like '%needle%'", Short4To64, true,
           [](std::string_view v) { return memmem(v.data(), v.size(), "needle", 6) != nullptr; });
  Register("str_search/4to64B_ilike", "s ilike '%NEEDLE%'", Short4To64, true, nullptr);
  Register("str_length/gt100", "length(s) > 100", Lengths, false,
           [](std::string_view v) { return v.size() > 100; }, /*reads_bytes=*/false);
  return true;
}();

}  // namespace
}  // namespace rowjit::bench
