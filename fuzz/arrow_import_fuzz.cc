// Fuzz target: Arrow C Data import of fuzzer-shaped structs (fuzz). Formats, lengths, offsets,
// null counts, buffer counts, dictionaries, nested struct children, fixed_size_list elements and
// list and map offsets and children come from the fuzzer's bytes; buffers hold as many bytes as the claimed layout needs (claims no
// host could hold are refused before a buffer is read). Import must never read out of bounds,
// what it accepts must read back and survive an export/import round trip, and each top-level
// struct is released exactly once.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/bitmap.h"
#include "runtime/arrow_c.h"
#include "runtime/builder.h"

namespace {

using rowjit::ArrayPtr;

// Everything one input builds; it outlives the import (buffers are used in place).
struct Arena {
  std::deque<std::vector<uint8_t>> bytes;
  std::deque<std::vector<const void*>> buffer_lists;
  std::deque<std::vector<ArrowArray*>> array_lists;
  std::deque<std::vector<ArrowSchema*>> schema_lists;
  std::deque<ArrowArray> arrays;
  std::deque<ArrowSchema> schemas;
  std::deque<std::string> strings;
  std::deque<int> release_counts;
};

void ReleaseArray(ArrowArray* a) {
  ++*static_cast<int*>(a->private_data);
  a->release = nullptr;
}
void ReleaseSchema(ArrowSchema* s) {
  ++*static_cast<int*>(s->private_data);
  s->release = nullptr;
}

constexpr const char* kFormats[] = {"b", "c", "C", "s", "S", "i", "I", "l", "L", "f", "g",
                                    "+s", "u", "z", "U", "Z", "vu", "vz", "tdD", "n", "", "+l", "e",
                                    "d:12,2", "d:9,2,32", "d:18,4,64", "d:38,10", "d:40,2", "d:12,2,256",
                                    "tdm", "tts", "ttn", "tsu:", "tsn:UTC", "tsm:Europe/Paris", "tDu",
                                    "tiM", "tiD", "tin", "+w:3", "+w:1", "+w:64", "+w:0", "+w:65537", "+w:",
                                    "+L", "+m", "+vl"};
constexpr int64_t kHuge = int64_t{1} << 41;

// Bytes per value of a format (read as the C string the importer sees, up to its first NUL), 0
// for bits, -1 when rowjit does not read it as values.
int Width(const std::string& format) {
  const std::string f(format.c_str());
  if (f == "b") return 0;
  if (f == "c" || f == "C") return 1;
  if (f == "s" || f == "S") return 2;
  if (f == "i" || f == "I" || f == "f") return 4;
  if (f == "l" || f == "L" || f == "g") return 8;
  // Logical types: the storage's width (an unsupported decimal or unit is refused unread).
  if (f.starts_with("d:")) return f.ends_with(",32") ? 4 : f.ends_with(",64") ? 8 : 16;
  if (f == "tdD" || f == "tts" || f == "ttm" || f == "tiM") return 4;
  if (f == "tin") return 16;
  if (f.starts_with("td") || f.starts_with("tt") || f.starts_with("ts") || f.starts_with("tD") || f == "tiD") return 8;
  return -1;
}

// String layouts: the width of an offset (4 or 8), 16 for views, 0 for other formats.
int StringWidth(const std::string& format) {
  const std::string f(format.c_str());
  if (f == "u" || f == "z") return 4;
  if (f == "U" || f == "Z") return 8;
  if (f == "vu" || f == "vz") return 16;
  return 0;
}

class Builder {
 public:
  Builder(FuzzedDataProvider& in, Arena& arena) : in_(in), arena_(arena) {}

  // One array and its schema; `depth` bounds struct nesting.
  void Node(ArrowArray& a, ArrowSchema& s, int depth, const char* forced = nullptr) {
    const std::string& format = forced != nullptr ? arena_.strings.emplace_back(forced) : Format();
    s = ArrowSchema{};
    s.format = format.c_str();
    s.name = "x";
    s.flags = in_.ConsumeIntegral<uint8_t>() & 7;
    a = ArrowArray{};
    a.length = Pick<int64_t>({0, 1, 3, 63, 64, 65, 200, kHuge, -1});
    a.offset = Pick<int64_t>({0, 0, 1, 7, 64, kHuge, -1});
    a.null_count = Pick<int64_t>({-1, 0, 1, 5, a.length});
    const bool is_struct = std::string(format.c_str()) == "+s";
    const bool is_list = std::string(format.c_str()).starts_with("+w:");  // a fixed_size_list: one child
    const std::string f(format.c_str());
    const int offsets_width = f == "+l" || f == "+m" ? 4 : f == "+L" ? 8 : 0;  // lists, maps: offsets, one child
    const int string_width = StringWidth(format);
    const int64_t usual = is_struct || is_list ? 1 : string_width == 16 ? 3 + in_.ConsumeIntegralInRange<int64_t>(0, 3)
                                        : string_width > 0     ? 3
                                                               : 2;
    a.n_buffers = in_.ConsumeBool() ? usual : in_.ConsumeIntegralInRange<int64_t>(0, 5);
    const int64_t rows = a.length >= 0 && a.offset >= 0 && a.length + a.offset <= 4096 ? a.length + a.offset : -1;
    if ((string_width > 0 || offsets_width > 0) && rows >= 0) {
      StringBuffers(a, offsets_width > 0 ? offsets_width : string_width, rows, offsets_width == 0);
    } else {
      Buffers(a, format, rows);
    }
    // A map's child is mostly its entries' struct of a key and a value.
    const char* child = f == "+m" && in_.ConsumeIntegralInRange(0, 3) != 0 ? "+s" : nullptr;
    if ((is_struct || is_list || offsets_width > 0) && depth < 3) Children(a, s, depth, !is_struct, child);
    const bool nested = is_struct || is_list || offsets_width > 0;
    if (depth < 2 && !nested && in_.ConsumeIntegralInRange(0, 7) == 0) Dictionary(a, s, depth);
  }

 private:
  template <typename T>
  T Pick(std::initializer_list<T> options) {
    return *(options.begin() + in_.ConsumeIntegralInRange<size_t>(0, options.size() - 1));
  }

  const std::string& Format() {
    if (in_.ConsumeIntegralInRange(0, 9) == 0) return arena_.strings.emplace_back(in_.ConsumeRandomLengthString(4));
    return arena_.strings.emplace_back(in_.PickValueInArray(kFormats));
  }

  // Validity, then values (or codes): each null, or as large as `rows` rows need (16 bytes when
  // the claim is past what the fuzzer allocates: rowjit must refuse such claims unread).
  void Buffers(ArrowArray& a, const std::string& format, int64_t rows) {
    if (a.n_buffers <= 0) return;
    auto& list = arena_.buffer_lists.emplace_back(static_cast<size_t>(a.n_buffers), nullptr);
    const int width = Width(format);
    for (int64_t b = 0; b < a.n_buffers; ++b) {
      if (in_.ConsumeIntegralInRange(0, 5) == 0) continue;
      int64_t size = 16;
      if (rows >= 0) size = b == 0 || width == 0 ? rowjit::kernels::NumBytes(rows) : rows * std::max(width, 1);
      auto& bytes = arena_.bytes.emplace_back(static_cast<size_t>(std::max<int64_t>(size, 1)));
      const std::vector<uint8_t> fill = in_.ConsumeBytes<uint8_t>(bytes.size());
      std::copy(fill.begin(), fill.end(), bytes.begin());
      list[static_cast<size_t>(b)] = bytes.data();
    }
    a.buffers = list.data();
  }

  // A buffer of `size` fuzzer bytes (or null one time in six).
  uint8_t* Fill(int64_t size) {
    if (in_.ConsumeIntegralInRange(0, 5) == 0) return nullptr;
    auto& bytes = arena_.bytes.emplace_back(static_cast<size_t>(std::max<int64_t>(size, 1)));
    const std::vector<uint8_t> fill = in_.ConsumeBytes<uint8_t>(bytes.size());
    std::copy(fill.begin(), fill.end(), bytes.begin());
    return bytes.data();
  }

  // String buffers as large as the layout claims (the C interface carries no sizes; a producer
  // that lies about them is out of any importer's reach): offsets of fuzzer bytes kept within
  // ±4096 (so they may still decrease, be negative or point past the data), the data as large as
  // the largest of them; views of fuzzer bytes, data buffers of fuzzer sizes, and those sizes.
  void StringBuffers(ArrowArray& a, int width, int64_t rows, bool data = true) {
    if (a.n_buffers <= 0) return;
    auto& list = arena_.buffer_lists.emplace_back(static_cast<size_t>(a.n_buffers), nullptr);
    a.buffers = list.data();
    list[0] = Fill(rowjit::kernels::NumBytes(rows));
    if (a.n_buffers < 2) return;
    if (width == 16) {
      list[1] = Fill(rows * 16);
      if (a.n_buffers < 3) return;
      auto& sizes = arena_.bytes.emplace_back(static_cast<size_t>(a.n_buffers - 3) * 8 + 8);
      for (int64_t b = 2; b + 1 < a.n_buffers; ++b) {
        const int64_t size = in_.ConsumeIntegralInRange<int64_t>(0, 256);
        list[static_cast<size_t>(b)] = Fill(size);
        const int64_t claimed = list[static_cast<size_t>(b)] ? size : in_.ConsumeIntegralInRange<int64_t>(0, 1);
        std::memcpy(sizes.data() + (b - 2) * 8, &claimed, 8);
      }
      list[static_cast<size_t>(a.n_buffers - 1)] = in_.ConsumeIntegralInRange(0, 7) == 0 ? nullptr : sizes.data();
      return;
    }
    uint8_t* offsets = Fill((rows + 1) * width);
    list[1] = offsets;
    int64_t largest = 0;
    for (int64_t i = 0; offsets != nullptr && i <= rows; ++i) {
      int64_t v = 0;
      std::memcpy(&v, offsets + i * width, static_cast<size_t>(width));
      if (width == 4) v = static_cast<int32_t>(v);
      v %= 4097;
      std::memcpy(offsets + i * width, &v, static_cast<size_t>(width));
      largest = std::max(largest, v);
    }
    if (a.n_buffers >= 3 && data) list[2] = Fill(largest + 1);
  }

  // A child or dictionary node, live (its release callbacks set), in the arena.
  std::pair<ArrowArray*, ArrowSchema*> LiveNode(int depth, const char* forced = nullptr) {
    ArrowArray& a = arena_.arrays.emplace_back();
    ArrowSchema& s = arena_.schemas.emplace_back();
    Node(a, s, depth, forced);
    a.release = ReleaseArray;
    a.private_data = &arena_.release_counts.emplace_back(0);
    s.release = ReleaseSchema;
    s.private_data = &arena_.release_counts.emplace_back(0);
    return {&a, &s};
  }

  // A struct's children, or a list's one (mostly: sometimes none or several).
  void Children(ArrowArray& a, ArrowSchema& s, int depth, bool one, const char* forced = nullptr) {
    const int64_t n = one && in_.ConsumeBool() ? 1 : in_.ConsumeIntegralInRange<int64_t>(0, 3);
    auto& arrays = arena_.array_lists.emplace_back();
    auto& schemas = arena_.schema_lists.emplace_back();
    for (int64_t i = 0; i < n; ++i) {
      auto [ca, cs] = LiveNode(depth + 1, forced);
      arrays.push_back(ca);
      schemas.push_back(cs);
    }
    a.n_children = in_.ConsumeBool() ? n : in_.ConsumeIntegralInRange<int64_t>(-1, 3);
    s.n_children = n;
    a.children = a.n_children > 0 && a.n_children <= n ? arrays.data() : nullptr;
    s.children = n > 0 ? schemas.data() : nullptr;
  }

  void Dictionary(ArrowArray& a, ArrowSchema& s, int depth) {
    std::tie(a.dictionary, s.dictionary) = LiveNode(depth + 1);
  }

  FuzzedDataProvider& in_;
  Arena& arena_;
};

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "arrow import fuzz: %s\n", what);
  std::abort();
}

// Every row of an accepted array reads back, and an export/import round trip keeps it.
void Exercise(const ArrayPtr& array) {
  if (!array->Validate().ok()) Fail("an imported array does not validate");
  for (int64_t i = 0; i < array->length(); ++i) {
    if (!array->IsNull(i)) (void)array->GetScalar(i);
  }
  ArrowArray out;
  ArrowSchema out_schema;
  if (!rowjit::ExportArray(array, &out, &out_schema).ok()) return;
  auto back = rowjit::ImportArray(&out, &out_schema);
  if (!back.ok()) Fail("an exported array does not import");
  if (rowjit::FirstDifference(*array, **back) != -1) Fail("the round trip changed a row");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Arena arena;
  ArrowArray array;
  ArrowSchema schema;
  Builder(in, arena).Node(array, schema, 0);
  int array_released = 0, schema_released = 0;
  array.release = ReleaseArray;
  array.private_data = &array_released;
  schema.release = ReleaseSchema;
  schema.private_data = &schema_released;
  if (in.ConsumeBool()) {
    auto batch = rowjit::ImportRecordBatch(&array, &schema);
    if (batch.ok()) {
      for (const ArrayPtr& c : batch->columns) Exercise(c);
    }
  } else {
    auto imported = rowjit::ImportArray(&array, &schema);
    if (imported.ok()) Exercise(*imported);
  }
  if (array.release != nullptr || schema.release != nullptr) Fail("import left a struct unreleased");
  if (array_released != 1 || schema_released != 1) Fail("a struct was not released exactly once");
  return 0;
}
