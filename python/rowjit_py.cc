// The Python module (python layer, above jit/): rowjit.Engine and the module functions over
// numpy arrays and Arrow PyCapsule objects, through the C++ Engine. Results are written by the
// kernels straight into memory rowjit allocates and handed to numpy without a copy (or returned
// as rowjit.Array for Arrow consumers); the GIL is released while rowjit runs on more than a few
// thousand rows; errors become rowjit.Error with the kind, row and function.
#include <pybind11/stl.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "runtime/environment.h"
#include "ir/aggregate.h"
#include "ir/binder.h"
#include "ir/parser.h"
#include "ir/query.h"
#include "ir/top_k.h"
#include "ir/version.h"
#include "jit/api/engine.h"
#include "kernels/bitmap.h"
#include "python/module.h"

namespace rowjit::python {
namespace {

// Below this many rows a call keeps the GIL: releasing and taking it back costs more than the
// kernel, and another Python thread would gain nothing.
constexpr int64_t kReleaseGilRows = 4096;
// Results of at least this many bytes go to numpy in rowjit's own memory (64-byte aligned, as
// streaming stores need); smaller ones in numpy's, which costs less to make.
constexpr int64_t kRowjitMemoryBytes = int64_t{1} << 20;

// The memory of one result, which the kernels write: a numpy array for flat values going to
// numpy (numpy owns it: no copy, no capsule), rowjit buffers otherwise (bools, whose bits numpy
// gets unpacked, and Arrow results, which keep the buffers); validity bits for nullable results.
struct ResultMemory {
  DataType type;
  int64_t length = 0;
  bool arrow = false;
  uint8_t* values = nullptr;
  uint8_t* validity = nullptr;
  py::object numpy;           // owns `values` for a flat numpy result (null otherwise)
  py::object caller_out;      // out=: the caller's array (bools are unpacked into it); null otherwise
  BufferPtr values_buffer;    // owns `values` otherwise
  BufferPtr validity_buffer;  // owns `validity`

  // `out`: None, or the caller's numpy array for the values (checked here).
  static ResultMemory Make(DataType type, int64_t n, bool arrow, const py::object& out,
                           const std::shared_ptr<MemoryPool>& pool) {
    ResultMemory m;
    m.type = type;
    m.length = n;
    m.arrow = arrow;
    const int64_t words = kernels::NumWords(n);
    // 16-byte results (decimal128) have no numpy dtype: rowjit's memory, objects at the end.
    // Intervals do: structured values (python/convert.cc DtypeOf).
    const bool objects = (type.id == TypeId::kI128 && type.logical != LogicalKind::kInterval) || IsWidened(type);
    const bool own = arrow || objects;
    if (!out.is_none() && objects && !IsWidened(type)) {
      throw py::type_error("rowjit: out= takes no 16-byte (decimal128) results: numpy has no such integer");
    }
    // date32 into out=: the kernel's 4-byte days in rowjit's memory, widened into the caller's
    // datetime64[D] array (8 bytes a row) by Finish.
    if (!out.is_none()) {
      m.caller_out = CheckedOut(out, type, n, arrow);
      if (type.id != TypeId::kBool && !objects) {
        m.values = static_cast<uint8_t*>(py::reinterpret_borrow<py::array>(m.caller_out).mutable_data());
      }
    }
    if (!own && type.id != TypeId::kBool && !m.values && n * ByteWidth(type.id) < kRowjitMemoryBytes) {
      py::array a(DtypeOf(type), n);
      m.values = static_cast<uint8_t*>(a.mutable_data());
      m.numpy = std::move(a);
    } else if (!own && type.id != TypeId::kBool && !m.values) {
      // Large: rowjit's 64-byte aligned memory (huge pages advised), which the kernels may
      // write with streaming stores; numpy gets a view whose base keeps the buffer.
      BufferPtr buffer = Check(Buffer::AllocateForOverwrite(n * ByteWidth(type.id), pool));
      m.values = buffer->mutable_data();
      py::capsule base(new BufferPtr(buffer), [](void* p) { delete static_cast<BufferPtr*>(p); });
      m.numpy = py::array(DtypeOf(type), {static_cast<py::ssize_t>(n)}, {static_cast<py::ssize_t>(ByteWidth(type.id))},
                          m.values, base);
    } else if (!m.values) {
      const int64_t bytes = type.id == TypeId::kBool ? words * 8 : n * ByteWidth(type.id);
      m.values_buffer = Check(Buffer::AllocateForOverwrite(std::max<int64_t>(bytes, 64), pool));
      m.values = m.values_buffer->mutable_data();
    }
    if (type.nullable) {
      m.validity_buffer = Check(Buffer::AllocateForOverwrite(std::max<int64_t>(words * 8, 64)));
      m.validity = m.validity_buffer->mutable_data();
    }
    return m;
  }
  // The caller's out= array: 1-d numpy of the result's dtype and length, C-contiguous, aligned and
  // writable (the engine refuses one that overlaps an input).
  static py::array CheckedOut(const py::object& out, DataType type, int64_t n, bool arrow) {
    if (arrow) throw py::value_error("rowjit: out= gives a numpy result; it cannot be combined with arrow=True");
    if (!py::isinstance<py::array>(out)) throw py::type_error("rowjit: out= takes a numpy array");
    auto a = py::reinterpret_borrow<py::array>(out);
    const bool layout = (a.flags() & py::array::c_style) && (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) &&
                        a.writeable() && a.dtype().byteorder() != '>';
    // Equal, not identical: structured (interval) and datetime64 dtypes are made afresh; their
    // alignment flag says nothing about the storage's, so the address is checked too.
    const int width = IsWidened(type) ? 8 : std::max(ByteWidth(type.id), 1);  // numpy's width
    const bool aligned = reinterpret_cast<uintptr_t>(a.data()) % static_cast<uintptr_t>(width) == 0;
    if (a.ndim() != 1 || a.shape(0) != n || !a.dtype().equal(DtypeOf(type)) || !layout || !aligned) {
      throw py::value_error("rowjit: out= must be a writable, contiguous 1-d " +
                            py::str(static_cast<py::handle>(DtypeOf(type))).cast<std::string>() + " array of " +
                            std::to_string(n) + " rows");
    }
    return a;
  }
  // Bool results: the kernel's bits as numpy bools, into out= when given.
  py::object UnpackInto(kernels::BitSpan bits) const {
    if (!caller_out) return BoolsOfBits(bits, false);
    UnpackBools(bits, false, static_cast<uint8_t*>(py::reinterpret_borrow<py::array>(caller_out).mutable_data()));
    return caller_out;
  }
  // Rows [start, start + len) of it, as the caller-outputs call takes them (start: whole words).
  jit::OutputBuffers Slice(int64_t start, int64_t len) const {
    const int width = ByteWidth(type.id);
    uint8_t* v = values + (width == 0 ? start / 8 : start * width);
    const int64_t bytes = width == 0 ? kernels::NumWords(len) * 8 : len * width;
    if (validity == nullptr) return {v, bytes, nullptr, 0};
    return {v, bytes, validity + start / 8, kernels::NumWords(len) * 8};
  }
  // The result for Python: numpy (masked when it has nulls) or a rowjit.Array.
  py::object Finish(bool any_null) const {
    Validity v = Validity::AllValid();
    if (any_null) v = Check(Validity::FromBitmap(validity_buffer, 0, length));
    if (!arrow && caller_out && IsWidened(type)) {  // date32 days widened into datetime64[D]
      auto days = reinterpret_cast<const int32_t*>(values);
      auto into = static_cast<int64_t*>(py::reinterpret_borrow<py::array>(caller_out).mutable_data());
      for (int64_t r = 0; r < length; ++r) into[r] = days[r];
      return any_null ? Masked(caller_out, v, length) : caller_out;
    }
    if (!arrow && ((type.id == TypeId::kI128 && type.logical != LogicalKind::kInterval) || IsWidened(type))) {
      return ToNumpy(Check(PrimitiveArray::Make(type, length, values_buffer, std::move(v))), false);
    }
    if (!arrow) {
      py::object out = numpy ? numpy : caller_out;
      if (type.id == TypeId::kBool) out = UnpackInto(kernels::BitSpan{values, 0, length});
      return any_null ? Masked(std::move(out), v, length) : out;
    }
    if (type.id == TypeId::kBool) return WrapArray(Check(BoolArray::Make(length, values_buffer, v, 0, type.nullable)));
    return WrapArray(Check(PrimitiveArray::Make(type, length, values_buffer, std::move(v))));
  }
};

// Runs `fn` with the GIL released when the batch is large enough to be worth it.
template <typename Fn>
auto WithoutGil(int64_t rows, Fn&& fn) {
  std::optional<py::gil_scoped_release> release;
  if (rows >= kReleaseGilRows) release.emplace();
  return fn();
}

bool WantArrow(const CallOptions& o, const Columns& cols) { return o.arrow.value_or(cols.arrow); }

// The CPUs this process may run on (its affinity mask; what os.sched_getaffinity(0) counts),
// read at each call since the mask can change; the machine's count when the mask cannot be read.
int AvailableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : static_cast<int>(std::min<unsigned>(hardware, INT_MAX));
}

// threads=None: from this many rows on, a call runs on every CPU available to the process;
// below it on one thread. Starting a thread costs more than evaluating a large batch of a short
// expression, and the chunks share one memory bus, so a split pays only for batches of millions
// of rows (docs/python.md: how to measure it on a host).
constexpr int64_t kParallelRows = int64_t{1} << 21;

// The threads an evaluate call runs on: threads= (0: every CPU from kParallelRows rows on, else
// one), at most the CPUs available to the process and at most one per 64-row word of the batch
// (a chunk is whole words).
int ClampThreads(int requested, int64_t rows) {
  if (requested == 0) requested = rows >= kParallelRows ? AvailableCpus() : 1;
  if (requested <= 1 || rows <= 64) return 1;
  const int64_t most = std::min<int64_t>(AvailableCpus(), kernels::NumWords(rows));
  return static_cast<int>(std::clamp<int64_t>(requested, 1, most));
}

// A numpy result of a nullable type as a masked array even when no row is null (o.masked: the
// pandas layer maps masked arrays to pandas' nullable dtypes, by type rather than by data).
py::object MaskedIfNullable(py::object result, bool nullable, const CallOptions& o) {
  if (!o.masked || !nullable || !py::isinstance<py::array>(result)) return result;
  py::object masked_array = py::module_::import("numpy.ma").attr("MaskedArray");
  if (py::isinstance(result, masked_array)) return result;
  return masked_array(result, py::arg("mask") = false);
}

// --- binding an expression to a call's columns ---------------------------------------------------

// A text with the names the caller gave as None written as `null` (an untyped null, which takes
// its siblings' type as a written one does), and where each was written, so that an error's span
// in it is moved back to the caller's text.
struct NullsWritten {
  struct Splice {
    size_t from = 0, length = 0;  // the name in the caller's text
    size_t to = 0;                // where `null` starts in `text`
  };
  std::string text;
  std::vector<Splice> splices;  // in order
};
constexpr std::string_view kNull = "null";

// The columns of `text` named in `names`, written as `null` where the parser found them (every
// parsed column has the span of its name; a node the parser shares, as `x between a and b` does,
// is written once). Parse errors are about `text` itself.
Result<NullsWritten> WriteNulls(std::string_view text, const std::vector<std::string>& names) {
  ROWJIT_ASSIGN_OR_RETURN(const ir::ExprPtr parsed, ir::Parse(text));
  std::vector<SourceSpan> spans;
  auto walk = [&](auto& self, const ir::ExprPtr& e) -> void {
    if (e->is_column() && std::find(names.begin(), names.end(), e->name()) != names.end()) spans.push_back(e->span());
    for (const ir::ExprPtr& a : e->args()) self(self, a);
  };
  walk(walk, parsed);
  std::sort(spans.begin(), spans.end(), [](const SourceSpan& x, const SourceSpan& y) { return x.offset < y.offset; });
  spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
  NullsWritten w;
  size_t copied = 0;
  for (const SourceSpan& span : spans) {
    if (span.length == 0 || span.offset < copied || span.offset + span.length > text.size()) {
      return Error(ErrorCode::kInternal, fmt::format("a column of '{}' has no place of its own in the text", text));
    }
    w.text.append(text.substr(copied, span.offset - copied));
    w.splices.push_back({span.offset, span.length, w.text.size()});
    w.text.append(kNull);
    copied = span.offset + span.length;
  }
  w.text.append(text.substr(copied));
  return w;
}

// A place in the written text as a place in the caller's: inside a written `null`, the name's
// start (`end`: the name's end, for the end of a span); past one, moved by the difference in
// length (the text between splices is the caller's, byte for byte).
size_t CallerOffset(const NullsWritten& w, size_t offset, bool end) {
  const NullsWritten::Splice* passed = nullptr;  // the last splice wholly before `offset`
  for (const NullsWritten::Splice& s : w.splices) {
    if (offset <= s.to) break;
    if (offset < s.to + kNull.size()) return end ? s.from + s.length : s.from;
    passed = &s;
  }
  if (passed == nullptr) return offset;
  return passed->from + passed->length + (offset - passed->to - kNull.size());
}

// `bind(text, schema)` (a Result) with the names given as None written as `null` first, an
// error's span moved back to the text as the caller wrote it.
template <typename Bind>
auto BindWritten(const std::string& text, const Columns& cols, const Schema& schema, Bind& bind)
    -> decltype(bind(std::string_view(), schema)) {
  if (cols.nulls.empty()) return bind(std::string_view(text), schema);
  Result<NullsWritten> written = WriteNulls(text, cols.nulls);
  if (!written.ok()) return std::move(written).TakeError();  // a parse error: about `text` itself
  auto bound = bind(std::string_view(written->text), schema);
  if (bound.ok() || !bound.error().span()) return bound;
  const SourceSpan span = *bound.error().span();
  const size_t from = CallerOffset(*written, span.offset, false);
  const size_t to = CallerOffset(*written, span.offset + span.length, true);
  return std::move(bound).TakeError().WithSpan({from, std::max(to, from) - from});
}

// Every column the caller gave, for the binder's message about a name found nowhere: the batch's
// (Columns::others) in its order, those the call read as read, the others where they convert;
// then the call's columns the batch does not hold (keywords, constants).
Schema WithOthers(const Columns& cols) {
  Columns scratch;  // only the columns' types are read: each is taken whatever its length
  Schema schema;
  for (auto [name, value] : py::reinterpret_borrow<py::dict>(cols.others)) {
    try {
      const std::string n = TextOf(name, "a column name");
      if (const int i = cols.schema.FieldIndex(n); i >= 0) {
        schema.fields.push_back(cols.schema.fields[static_cast<size_t>(i)]);
        continue;
      }
      scratch.length = -1;
      AddColumn(scratch, n, value, py::none());
      schema.fields.push_back(scratch.schema.fields.back());
    } catch (const std::exception&) {  // a column that does not convert is only left out of the message
    }
  }
  for (const Field& f : cols.schema.fields) {
    if (schema.FieldIndex(f.name) < 0) schema.fields.push_back(f);
  }
  return schema;
}

// `bind(text, schema)`'s value, its error raised about `text` as the caller wrote it. When the
// call's batch was cut to the columns the expression reads and a name was found nowhere, the
// error is the binding's against every column of the batch: the expression reads none of the
// others, so it fails the same way, and its message suggests from and lists them all.
template <typename Bind>
auto BindAbout(const std::string& text, const Columns& cols, Bind bind) {
  auto bound = BindWritten(text, cols, cols.schema, bind);
  if (bound.ok()) return std::move(bound).value();
  if (!cols.others.is_none()) {
    auto again = BindWritten(text, cols, WithOthers(cols), bind);
    if (!again.ok()) RaiseAbout(again.error(), text);
  }
  RaiseAbout(bound.error(), text);
}

ir::ExprPtr BindExpression(const std::string& text, const Columns& cols, const ir::BindOptions& options) {
  return BindAbout(text, cols, [&](std::string_view t, const Schema& s) { return ir::ParseAndBind(t, s, options); });
}

ir::Aggregate BindAggregate(const std::string& text, const Columns& cols, const ir::BindOptions& options) {
  return BindAbout(text, cols,
                   [&](std::string_view t, const Schema& s) { return ir::ParseAndBindAggregate(t, s, options); });
}

// An aggregate's value as a Python value: None for null, exact wide sums as int (decimal.Decimal
// at a scale above 0), timestamps, durations and dates as numpy scalars, intervals as numpy
// structured values, other types as Python numbers and bools.
py::object PyValue(const Scalar& s) {
  if (s.is_null()) return py::none();
  // Exact wide sums are decimal(38, S): a Python int at scale 0, a decimal.Decimal otherwise.
  if (s.type().logical == LogicalKind::kDecimal && s.type().scale > 0) {
    return py::module_::import("decimal").attr("Decimal")(DecimalText(s.int128(), s.type().scale));
  }
  if (s.type().logical == LogicalKind::kTimestamp || s.type().logical == LogicalKind::kDuration) {
    return py::module_::import("numpy").attr(s.type().logical == LogicalKind::kTimestamp ? "datetime64" : "timedelta64")(
        s.value<int64_t>(), std::string(TimeUnitName(s.type().time_unit())));
  }
  if (s.type().logical == LogicalKind::kDate) {  // date32 days, date64 milliseconds
    const bool days = s.type_id() == TypeId::kI32;
    return py::module_::import("numpy").attr("datetime64")(days ? int64_t{s.value<int32_t>()} : s.value<int64_t>(),
                                                           days ? "D" : "ms");
  }
  if (s.type().logical == LogicalKind::kInterval) {  // a numpy structured value, as evaluate's rows
    py::array one(DtypeOf(s.type()), std::vector<py::ssize_t>{1});
    const __int128 bits = s.int128();
    std::memcpy(one.mutable_data(), &bits, static_cast<size_t>(ByteWidth(s.type_id())));
    return one[py::int_(0)];
  }
  if (s.type().is_logical() || s.type_id() == TypeId::kI128) {
    return py::module_::import("builtins").attr("int")(Int128Text(s.int128()));
  }
  return VisitType(s.type_id(), [&]<typename T>(std::type_identity<T>) -> py::object { return py::cast(s.value<T>()); });
}

// An aggregate query bound to a call's columns (the binder's errors raised about `text`).
ir::Query BindQuery(const std::string& text, const Columns& cols, const ir::BindOptions& options) {
  return BindAbout(text, cols,
                   [&](std::string_view t, const Schema& s) { return ir::ParseAndBindQuery(t, s, options); });
}

// A query's answer for Python: (names, columns), the key columns first, a numpy array each
// (masked where a column holds nulls).
py::tuple QueryTable(const ir::QueryResult& result) {
  py::list names, columns;
  for (size_t k = 0; k < result.columns.size(); ++k) {
    names.append(result.names[k]);
    columns.append(ToNumpy(result.columns[k], true));
  }
  return py::make_tuple(names, columns);
}

class PyEngine {
 public:
  PyEngine(const std::string& cache_dir, bool synchronous, int compile_threads, bool implicit_casts) {
    bind_.implicit_casts = implicit_casts;
    jit::EngineOptions o;
    o.cache_dir = cache_dir;
    o.compile = synchronous ? jit::EngineOptions::Compile::kSynchronous : jit::EngineOptions::Compile::kTiered;
    o.compile_threads = compile_threads;
    engine_ = Check(jit::Engine::Make(std::move(o)));
  }

  // Ends the engine before the interpreter does (rowjit/_api.py calls it at exit): its prepared
  // handles go and its background compiles are joined, so that no compile thread is still in
  // LLVM while the process runs its exit handlers. A closed engine refuses calls.
  void Close() {
    std::unique_ptr<jit::Engine> ending;
    {
      std::lock_guard lock(mu_);
      cache_.clear();
      fold_cache_.clear();
      query_cache_.clear();
      for (std::shared_ptr<jit::PreparedExpression>* handle : compiled_) handle->reset();
      ending = std::move(engine_);
    }
    py::gil_scoped_release release;
    ending.reset();
  }

  py::object Evaluate(const std::string& text, const Columns& cols, const CallOptions& o) {
    std::shared_ptr<jit::PreparedExpression> prepared = Prepared(text, cols);
    const TypeId result_id = prepared->expr()->type().id;
    // Text, vectors, lists, maps or structs: rowjit's own array, no out=.
    if (IsString(result_id) || IsNested(result_id)) {
      if (!o.out.is_none()) throw py::type_error("rowjit: out= takes no string, vector or nested results");
      Result<ArrayPtr> rows = WithoutGil(cols.length, [&] { return prepared->Evaluate(cols.arrays, cols.length); });
      ArrayPtr result = Check(std::move(rows));
      if (WantArrow(o, cols)) return WrapArray(std::move(result));
      return MaskedIfNullable(ToNumpy(result, false), result->type().nullable, o);
    }
    const ResultMemory out = ResultMemory::Make(prepared->expr()->type(), cols.length, WantArrow(o, cols), o.out, results_);
    const int threads = ClampThreads(o.threads, cols.length);
    Result<bool> any_null = WithoutGil(cols.length, [&] { return RunChunks(*prepared, cols, out, threads); });
    return MaskedIfNullable(out.Finish(Check(std::move(any_null))), out.type.nullable && !WantArrow(o, cols), o);
  }

  // rowjit.compile: the prepared expression for `text` over `cols` (made from empty arrays of the
  // dtypes given), whose columns must all be plain numbers and whose result must not be text.
  std::shared_ptr<jit::PreparedExpression> PrepareNumeric(const std::string& text, const Columns& cols) {
    if (cols.schema.fields.empty()) {
      throw py::type_error("rowjit: compile takes at least one column's dtype (an expression of constants is "
                           "rowjit.evaluate's)");
    }
    for (const Field& f : cols.schema.fields) {
      const TypeId id = f.type.id;
      if (f.type.is_logical() || id == TypeId::kBool || IsString(id) || id == TypeId::kI128 || id == TypeId::kFixedList) {
        throw py::type_error("rowjit: compile takes numeric columns (integers and floats); '" + f.name + "' is " +
                             f.type.WithNullable(false).ToString() + " (rowjit.evaluate takes it)");
      }
    }
    std::shared_ptr<jit::PreparedExpression> prepared = Prepared(text, cols);
    const TypeId result = prepared->expr()->type().id;
    if (IsString(result)) {
      throw py::type_error("rowjit: compile gives numbers and bools; '" + text + "' gives text (rowjit.evaluate does)");
    }
    if (IsNested(result)) {
      throw py::type_error("rowjit: compile gives numbers and bools; '" + text + "' gives " +
                           prepared->expr()->type().WithNullable(false).ToString() + " (rowjit.evaluate does)");
    }
    return prepared;
  }
  // A compiled expression's handle, let go when the engine closes (before its kernels go); the
  // compiled expression unregisters it when it goes first. Under the GIL.
  void RegisterCompiled(std::shared_ptr<jit::PreparedExpression>* handle) { compiled_.insert(handle); }
  void UnregisterCompiled(std::shared_ptr<jit::PreparedExpression>* handle) { compiled_.erase(handle); }
  // A compiled expression's call over its columns' buffers as they are: into out= or a fresh
  // array, as evaluate's result.
  py::object EvaluateBuffers(jit::PreparedExpression* prepared, std::span<const jit::ColumnBuffers> raw, int64_t n,
                             const py::object& out) {
    Live();  // not after the interpreter closed the engine
    if (prepared == nullptr) throw std::runtime_error("rowjit: this engine was closed (the interpreter is exiting)");
    const ResultMemory m = ResultMemory::Make(prepared->expr()->type(), n, false, out, results_);
    Result<int64_t> nulls = WithoutGil(n, [&] { return prepared->WriteBuffers(raw, n, m.Slice(0, n)); });
    return m.Finish(Check(std::move(nulls)) > 0);
  }

  py::object Filter(const std::string& text, const Columns& cols, const CallOptions& o) {
    std::shared_ptr<jit::PreparedExpression> prepared = Prepared(text, cols);
    Result<SelectionVector> kept = WithoutGil(cols.length, [&] { return prepared->Filter(cols.arrays, cols.length); });
    const SelectionVector s = Check(std::move(kept));
    BufferPtr indices = s.buffer() ? s.buffer() : Check(Buffer::Allocate(64));
    ArrayPtr rows = Check(PrimitiveArray::Make(DataType(TypeId::kU32, false), s.size(), indices, Validity::AllValid()));
    return WantArrow(o, cols) ? WrapArray(std::move(rows)) : ToNumpy(rows, true);
  }

  py::list Project(const std::vector<std::string>& texts, const Columns& cols, const CallOptions& o) {
    std::vector<ir::ExprPtr> exprs;
    bool strings = false;
    for (const std::string& t : texts) {
      exprs.push_back(BindExpression(t, cols, bind_));
      const TypeId id = exprs.back()->type().id;
      strings = strings || IsString(id) || IsNested(id);
    }
    if (strings) {  // string and nested results are rowjit's own arrays (as evaluate's): every result is
      Result<std::vector<ArrayPtr>> results =
          WithoutGil(cols.length, [&] { return Live().Project(exprs, cols.arrays, cols.length); });
      py::list out;
      for (const ArrayPtr& r : Check(std::move(results))) {
        out.append(WantArrow(o, cols) ? WrapArray(r) : MaskedIfNullable(ToNumpy(r, false), r->type().nullable, o));
      }
      return out;
    }
    std::vector<ResultMemory> memory;
    std::vector<jit::OutputBuffers> outs;
    for (const ir::ExprPtr& e : exprs) {
      memory.push_back(ResultMemory::Make(e->type(), cols.length, WantArrow(o, cols), py::none(), results_));
      outs.push_back(memory.back().Slice(0, cols.length));
    }
    Result<std::vector<ArrayPtr>> results =
        WithoutGil(cols.length, [&] { return Live().ProjectInto(exprs, cols.arrays, cols.length, outs); });
    const std::vector<ArrayPtr> r = Check(std::move(results));
    py::list out;
    for (size_t k = 0; k < r.size(); ++k) {
      const bool nullable = memory[k].type.nullable && !WantArrow(o, cols);
      out.append(MaskedIfNullable(memory[k].Finish(r[k]->NullCount() > 0), nullable, o));
    }
    return out;
  }

  py::object Aggregate(const std::string& text, const Columns& cols) {
    std::shared_ptr<jit::PreparedAggregate> prepared = PreparedFold(text, cols);
    const ir::Aggregate& agg = prepared->aggregate();
    Result<ir::AggregateResult> r = WithoutGil(cols.length, [&] { return prepared->Aggregate(cols.arrays, cols.length); });
    const ir::AggregateResult result = Check(std::move(r));
    if (agg.kind == ir::AggKind::kMinMax) return py::make_tuple(PyValue(result.value), PyValue(result.max));
    return PyValue(result.value);
  }

  // A top-k selection over the call's columns: (rows, scores), numpy arrays, best first.
  py::tuple TopK(const std::string& text, const std::string& where, const Columns& cols) {
    const ir::TopK top = BindAbout(text, cols, [&](std::string_view t, const Schema& schema) {
      return ir::ParseAndBindTopK(t, schema, where, bind_);
    });
    ir::TopKState state(top);
    Check(WithoutGil(cols.length, [&] { return Live().TopK(top, cols.arrays, cols.length, state); }));
    const ir::TopKResult r = Check(state.Finish());
    return py::make_tuple(ToNumpy(r.rows, true), ToNumpy(r.scores, true));
  }

  // An aggregate query over the call's columns: QueryTable's (names, columns), or with `scalar`
  // and no GROUP BY the first aggregate's value as Aggregate gives it.
  py::object Query(const std::string& text, const Columns& cols, bool scalar) {
    std::shared_ptr<const ir::Query> q = Held(query_cache_, text, cols, [&] {
      return std::make_shared<const ir::Query>(BindQuery(text, cols, bind_));
    });
    Result<ir::QueryResult> r = WithoutGil(cols.length, [&] { return Live().Query(*q, cols.arrays, cols.length); });
    const ir::QueryResult result = Check(std::move(r));
    if (scalar && q->keys.empty()) return PyValue(result.columns[0]->GetScalar(0));
    return QueryTable(result);
  }
  // Folds `columns` (ordered as the state's query was bound) into `state`.
  void FoldQuery(ir::QueryState& state, std::span<const ArrayPtr> columns, int64_t length) {
    Status s = WithoutGil(length, [&] { return Live().FoldQuery(state, columns, length); });
    Check(s);
  }
  const ir::BindOptions& bind_options() const { return bind_; }

  // The engine's counters: its kernel cache and its disk cache.
  py::dict Stats() {
    const jit::CacheStats c = Live().cache_stats();
    const jit::DiskCacheStats d = Live().disk_cache_stats();
    py::dict out;
    out["compiles"] = c.compiles;
    out["fast_compiles"] = c.fast_compiles;
    out["disk_loads"] = c.disk_loads;
    out["hits"] = c.hits;
    out["background_compiles"] = c.background_compiles;
    out["tier_switches"] = c.tier_switches;
    out["background_refused"] = c.background_refused;  // the compile queue was full
    out["background_dropped"] = c.background_dropped;  // queued compiles whose key left the cache
    out["compile_queue"] = c.compile_queue;
    out["compile_queue_peak"] = c.compile_queue_peak;
    out["disk_hits"] = d.hits;
    out["disk_misses"] = d.misses;
    out["disk_stores"] = d.stores;
    out["disk_rejected"] = d.rejected;
    out["disk_claim_timeouts"] = d.claim_timeouts;
    return out;
  }

 private:
  // A prepared expression (aggregate) per (text, columns' names and types), kept (at most
  // kCached of each): a call on a known pair skips parsing, binding and planning.
  template <typename Handle, typename Make>
  std::shared_ptr<Handle> Held(std::unordered_map<std::string, std::shared_ptr<Handle>>& cache,
                               const std::string& text, const Columns& cols, Make make) {
    thread_local std::string key;  // reused: no allocation per call once warm
    key.assign(text).append(1, '|').append(cols.key);
    {
      std::lock_guard lock(mu_);
      if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    std::shared_ptr<Handle> p = make();
    std::lock_guard lock(mu_);
    if (cache.size() >= kCached) cache.clear();
    cache.emplace(key, p);
    return p;
  }
  std::shared_ptr<jit::PreparedExpression> Prepared(const std::string& text, const Columns& cols) {
    return Held(cache_, text, cols, [&] {
      return std::shared_ptr<jit::PreparedExpression>(Check(Live().PrepareExpression(BindExpression(text, cols, bind_))));
    });
  }
  std::shared_ptr<jit::PreparedAggregate> PreparedFold(const std::string& text, const Columns& cols) {
    return Held(fold_cache_, text, cols, [&] {
      return std::shared_ptr<jit::PreparedAggregate>(Check(Live().PrepareAggregate(BindAggregate(text, cols, bind_))));
    });
  }

  Result<bool> RunChunks(jit::PreparedExpression& prepared, const Columns& cols, const ResultMemory& out,
                         int threads);
  jit::Engine& Live() {
    if (!engine_) throw std::runtime_error("rowjit: this engine was closed (the interpreter is exiting)");
    return *engine_;
  }

  static constexpr size_t kCached = 256;
  ir::BindOptions bind_;  // implicit casts or strict (Engine(implicit_casts=))
  std::unique_ptr<jit::Engine> engine_;
  // Large results' memory: blocks freed when numpy lets go of a result are kept for the next
  // result of the same size, so that a loop over large arrays does not fault in fresh pages.
  std::shared_ptr<MemoryPool> results_ = std::make_shared<RecyclingPool>();
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<jit::PreparedExpression>> cache_;
  std::unordered_map<std::string, std::shared_ptr<jit::PreparedAggregate>> fold_cache_;
  std::unordered_map<std::string, std::shared_ptr<const ir::Query>> query_cache_;
  std::unordered_set<std::shared_ptr<jit::PreparedExpression>*> compiled_;
};

// Evaluates in `threads` chunks of whole 64-row words (ClampThreads bounds it), the first on the
// calling thread and each other on a thread of its own, each into its slice of the result; the
// error is the lowest chunk's (rows counted from the batch's start). True when a row is null. A
// thread that cannot be started is an error (after the started ones are joined), as is an
// exception inside a chunk: nothing here ends in std::terminate.
Result<bool> PyEngine::RunChunks(jit::PreparedExpression& prepared, const Columns& cols, const ResultMemory& out,
                                 int threads) {
  const int64_t n = cols.length;
  if (threads == 1 || n <= 64) {
    ROWJIT_ASSIGN_OR_RETURN(const int64_t nulls, prepared.WriteInto(cols.arrays, n, out.Slice(0, n)));
    return nulls > 0;
  }
  const int64_t per = (kernels::NumWords(n) + threads - 1) / threads * 64;  // rows per chunk
  const int64_t chunks = (n + per - 1) / per;
  // Per chunk, its null count or its error.
  std::vector<Result<int64_t>> results(static_cast<size_t>(chunks), Error(ErrorCode::kInternal, "not run"));
  auto run = [&](int64_t c) noexcept {
    Result<int64_t>& result = results[static_cast<size_t>(c)];
    try {
      const int64_t start = c * per, len = std::min(per, n - start);
      std::vector<ArrayPtr> slice;
      for (const ArrayPtr& a : cols.arrays) {
        Result<ArrayPtr> part = a->Slice(start, len);
        if (!part.ok()) {
          result = std::move(part).TakeError();
          return;
        }
        slice.push_back(std::move(part).value());
      }
      result = prepared.WriteInto(slice, len, out.Slice(start, len));
    } catch (const std::bad_alloc&) {
      result = Error(ErrorCode::kOutOfMemory, fmt::format("evaluate: out of memory in chunk {} of {}", c + 1, chunks));
    } catch (const std::exception& e) {
      result = Error(ErrorCode::kInternal, fmt::format("evaluate: chunk {} of {}: {}", c + 1, chunks, e.what()));
    } catch (...) {
      result = Error(ErrorCode::kInternal, fmt::format("evaluate: chunk {} of {} failed", c + 1, chunks));
    }
  };
  std::vector<std::thread> pool;
  std::optional<Error> not_started;
  try {
    pool.reserve(static_cast<size_t>(chunks - 1));
    for (int64_t c = 1; c < chunks; ++c) pool.emplace_back(run, c);
  } catch (const std::exception& e) {  // std::system_error (EAGAIN: a thread or memory limit), bad_alloc
    not_started = Error(ErrorCode::kOutOfMemory,
                        fmt::format("evaluate: could not start thread {} of {}: {}", pool.size() + 2, chunks, e.what()));
  }
  if (!not_started) run(0);
  for (std::thread& t : pool) t.join();
  if (not_started) return *std::move(not_started);
  bool any_null = false;
  for (int64_t c = 0; c < chunks; ++c) {
    Result<int64_t>& r = results[static_cast<size_t>(c)];
    if (r.ok()) {
      any_null = any_null || *r > 0;
      continue;
    }
    Error e = std::move(r).TakeError();
    if (!e.row() || c == 0) return e;
    std::string function = e.function();
    const int64_t row = *e.row() + c * per;
    return std::move(e).WithRow(std::move(function), row);
  }
  return any_null;
}

// --- compiled expressions (rowjit.compile) ------------------------------------------------------

PyEngine& EngineArg(py::handle engine);

// An expression compiled for numeric columns of fixed dtypes, called with their numpy arrays
// alone: per call, each array's dtype, layout and length are checked against what it was compiled
// for and its memory is read as it is (PreparedExpression::WriteBuffers), with none of
// evaluate's name lookup, conversion or per-call preparation.
class PyCompiled {
 public:
  // `arrays`: the empty array of each column's dtype it was prepared over, by name.
  PyCompiled(py::object engine, std::string text, std::shared_ptr<jit::PreparedExpression> prepared,
             const Columns& cols, const py::dict& arrays)
      : engine_(std::move(engine)), live_(&EngineArg(engine_)), text_(std::move(text)), prepared_(std::move(prepared)) {
    for (const Field& f : cols.schema.fields) {
      names_.push_back(f.name);
      dtypes_.push_back(py::reinterpret_borrow<py::array>(arrays[py::str(f.name)]).dtype());
    }
    live_->RegisterCompiled(&prepared_);  // last: a constructor that throws leaves nothing registered
  }

  ~PyCompiled() { live_->UnregisterCompiled(&prepared_); }
  PyCompiled(const PyCompiled&) = delete;
  PyCompiled& operator=(const PyCompiled&) = delete;

  // The arrays in order, then the output: out=, or one more positional argument (which skips
  // the keyword's handling, a visible part of a call on a few rows). `options`: the keywords'
  // dict, or null (CPython passes none without keywords).
  py::object Call(const py::tuple& arrays, PyObject* options) {
    py::object out = py::none();
    PyObject *key_ptr = nullptr, *value_ptr = nullptr;
    for (Py_ssize_t at = 0; options != nullptr && PyDict_Next(options, &at, &key_ptr, &value_ptr);) {
      const py::handle key(key_ptr), value(value_ptr);
      const std::string k = py::str(key);
      if (k != "out") {
        const bool column = std::find(names_.begin(), names_.end(), k) != names_.end();
        throw py::type_error(fmt::format("rowjit: '{}' got an unexpected keyword argument '{}': {}", text_, k,
                                         column ? fmt::format("the arrays are passed positionally, in order ({})",
                                                              fmt::join(names_, ", "))
                                                : std::string("the one keyword is out=")));
      }
      out = py::reinterpret_borrow<py::object>(value);
    }
    if (arrays.size() == names_.size() + 1) {
      if (!out.is_none()) throw py::type_error("rowjit: '" + text_ + "' got the output twice (positionally and as out=)");
      out = arrays[names_.size()];
    } else if (arrays.size() != names_.size()) {
      throw py::type_error(fmt::format("rowjit: '{}' takes {} arrays ({}), not {}", text_, names_.size(),
                                       fmt::join(names_, ", "), arrays.size()));
    }
    std::array<jit::ColumnBuffers, 16> inline_columns;
    std::vector<jit::ColumnBuffers> more;
    jit::ColumnBuffers* raw = inline_columns.data();
    if (names_.size() > inline_columns.size()) {
      more.resize(names_.size());
      raw = more.data();
    }
    int64_t n = -1;
    for (size_t i = 0; i < names_.size(); ++i) {
      const py::handle a = arrays[i];
      if (!py::isinstance<py::array>(a)) {
        throw py::type_error("rowjit: '" + names_[i] + "' must be a numpy array, not " + TypeName(a));
      }
      if (Py_TYPE(a.ptr()) != reinterpret_cast<PyTypeObject*>(py::detail::npy_api::get().PyArray_Type_) &&
          IsMaskedArray(a)) {
        throw py::type_error("rowjit: '" + names_[i] + "' is a masked array: a compiled expression reads no masks "
                             "(rowjit.evaluate does)");
      }
      const auto arr = py::reinterpret_borrow<py::array>(a);
      const py::ssize_t width = dtypes_[i].itemsize();
      const bool layout = arr.ndim() == 1 && (arr.shape(0) <= 1 || arr.strides(0) == width) &&
                          (arr.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_);
      if (!arr.dtype().equal(dtypes_[i]) || !layout) {
        const std::string dtype = py::str(static_cast<py::handle>(dtypes_[i])).cast<std::string>();
        throw py::value_error("rowjit: '" + names_[i] + "' must be a contiguous, aligned, native-endian 1-d " + dtype +
                              " array, as compiled (np.ascontiguousarray(x, dtype=np." + dtype + ") makes one)");
      }
      if (n >= 0 && arr.shape(0) != n) {
        throw py::value_error(fmt::format("rowjit: '{}' has {} rows and '{}' {}", names_[i], arr.shape(0), names_[0], n));
      }
      n = arr.shape(0);
      raw[i] = {arr.data(), nullptr};
    }
    return live_->EvaluateBuffers(prepared_.get(), std::span(raw, names_.size()), std::max<int64_t>(n, 0), out);
  }
  const std::vector<std::string>& names() const { return names_; }
  const std::string& text() const { return text_; }

 private:
  py::object engine_;  // the rowjit.Engine, kept alive while this is
  PyEngine* live_;     // the same (found once, not per call)
  std::string text_;
  std::shared_ptr<jit::PreparedExpression> prepared_;
  std::vector<std::string> names_;  // the columns in the order the call takes them
  std::vector<py::dtype> dtypes_;
};

// Compiled's tp_call: the arguments as CPython passes them, errors translated as pybind11's
// dispatcher translates them.
PyObject* CompiledTpCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  try {
    PyCompiled& c = py::handle(self).cast<PyCompiled&>();
    return c.Call(py::reinterpret_borrow<py::tuple>(args), kwargs).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
    return nullptr;
  } catch (...) {
    if (py::detail::apply_exception_translators(py::detail::get_local_internals().registered_exception_translators) ||
        py::detail::apply_exception_translators(py::detail::get_internals().registered_exception_translators)) {
      return nullptr;
    }
    PyErr_SetString(PyExc_SystemError, "rowjit: an exception escaped a compiled call");
    return nullptr;
  }
}

// --- partial states of a query (rowjit.QueryState) ---------------------------------------------

// What a query has folded over batches, merged from other states and sent as bytes (Dask). The
// query is bound on the first batch folded, against that batch's columns with every field
// nullable: batches with and without nulls then fold into one state, and states made on
// different workers merge. Later batches must hold the same columns with the same types (in any
// order; a type differing is a ValueError, not a silent cast).
class PyQueryState {
 public:
  explicit PyQueryState(std::string text) : text_(std::move(text)) {}

  void Fold(PyEngine& engine, const Columns& cols) {
    if (!state_) Bind(engine, cols);
    std::vector<ArrayPtr> ordered;
    for (const Field& f : schema_.fields) {
      const int i = cols.schema.FieldIndex(f.name);
      if (i < 0) throw py::value_error("rowjit: the batch has no column '" + f.name + "', which this state's query was bound with");
      const Field& given = cols.schema.fields[static_cast<size_t>(i)];
      if (!given.type.SameType(f.type)) {
        throw py::value_error("rowjit: column '" + f.name + "' is " + given.type.WithNullable(false).ToString() +
                              " in this batch and " + f.type.WithNullable(false).ToString() + " in the state's earlier batches");
      }
      ordered.push_back(cols.arrays[static_cast<size_t>(i)]);
    }
    engine.FoldQuery(*state_, ordered, cols.length);
  }

  void Merge(const PyQueryState& other) {
    if (!other.state_) return;
    if (other.text_ != text_) {
      throw py::value_error("rowjit: cannot merge states of different queries ('" + text_ + "' and '" + other.text_ + "')");
    }
    if (!state_) {
      schema_ = other.schema_;
      implicit_casts_ = other.implicit_casts_;
      state_ = Check(ir::QueryState::Deserialize(other.query_, other.state_->Serialize()));
      query_ = other.query_;
      return;
    }
    if (!(schema_ == other.schema_)) {
      throw py::value_error("rowjit: cannot merge states folded over different columns (" + schema_.ToString() + " and " +
                            other.schema_.ToString() + ")");
    }
    Check(state_->Merge(*other.state_));
  }

  // (query text, schema text, implicit casts, state bytes); the schema text is empty before a fold.
  py::tuple Serialize() const {
    const std::string bytes = state_ ? state_->Serialize() : std::string();
    return py::make_tuple(text_, state_ ? schema_.ToString() : std::string(), implicit_casts_, py::bytes(bytes));
  }
  static std::unique_ptr<PyQueryState> Deserialize(const std::string& text, const std::string& schema,
                                                   bool implicit_casts, const py::bytes& bytes) {
    auto out = std::make_unique<PyQueryState>(text);
    if (schema.empty()) return out;
    out->schema_ = Check(ParseSchema(schema));
    out->implicit_casts_ = implicit_casts;
    ir::BindOptions options;
    options.implicit_casts = implicit_casts;
    Result<ir::Query> q = ir::ParseAndBindQuery(text, out->schema_, options);
    if (!q.ok()) RaiseAbout(q.error(), text);
    out->query_ = std::make_shared<const ir::Query>(std::move(q).value());
    out->state_ = Check(ir::QueryState::Deserialize(out->query_, std::string_view(bytes)));
    return out;
  }

  py::tuple Finish() const {
    if (!state_) throw py::value_error("rowjit: QueryState.finish(): no batch was folded, so the columns' types are not known");
    return QueryTable(Check(state_->Finish()));
  }
  const std::string& text() const { return text_; }
  int64_t groups() const { return state_ ? state_->groups() : 0; }

 private:
  // Binds against the batch as it is first (so that an unknown name gets the call's usual
  // message), then against its fields made nullable and sorted by name, which the state keeps.
  void Bind(PyEngine& engine, const Columns& cols) {
    (void)BindQuery(text_, cols, engine.bind_options());
    schema_ = cols.schema;
    for (Field& f : schema_.fields) f.type = f.type.WithNullable(true);
    // By name: states of batches whose columns came in different orders merge.
    std::sort(schema_.fields.begin(), schema_.fields.end(), [](const Field& a, const Field& b) { return a.name < b.name; });
    auto bind = [&](std::string_view t, const Schema& s) { return ir::ParseAndBindQuery(t, s, engine.bind_options()); };
    Result<ir::Query> q = BindWritten(text_, cols, schema_, bind);
    if (!q.ok()) RaiseAbout(q.error(), text_);
    implicit_casts_ = engine.bind_options().implicit_casts;
    query_ = std::make_shared<const ir::Query>(std::move(q).value());
    state_.emplace(query_);
  }

  std::string text_;
  Schema schema_;
  bool implicit_casts_ = true;
  std::shared_ptr<const ir::Query> query_;
  std::optional<ir::QueryState> state_;
};

// --- entry points: rowjit/_api.py resolves names, pandas inputs, scalars and the default
// engine, and calls these with every argument in place --------------------------------------

PyEngine& EngineArg(py::handle engine) {
  if (!py::isinstance<PyEngine>(engine)) {
    throw py::type_error("rowjit: engine= must be a rowjit.Engine or None, not " + TypeName(engine));
  }
  return engine.cast<PyEngine&>();
}

CallOptions OptionsOf(py::handle threads, py::handle arrow, py::handle out, bool masked) {
  CallOptions o;
  if (!threads.is_none()) o.threads = static_cast<int>(IntOf(threads, "threads=", 1, INT_MAX));
  if (!arrow.is_none()) o.arrow = BoolOf(arrow, "arrow=");
  o.out = py::reinterpret_borrow<py::object>(out);
  o.masked = masked;
  return o;
}

// project's expressions: a list (any sequence but a str or bytes) of str.
std::vector<std::string> TextsArg(py::handle given) {
  if (PyUnicode_Check(given.ptr()) || PyBytes_Check(given.ptr()) || !PySequence_Check(given.ptr())) {
    throw py::type_error("rowjit: project takes a list of expressions (str), not " + TypeName(given));
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(given);
  std::vector<std::string> texts;
  texts.reserve(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) texts.push_back(TextOf(seq[i], "project's expression " + std::to_string(i)));
  return texts;
}

// The columns of one call as ReadColumns takes them: a batch, named columns, scalar constants
// and valid= (each None or as module.h says); and optionally the names given as None (a tuple of
// str), which the expression reads as `null`, and the batch's other columns (None or a dict:
// Columns::others).
Columns Read(const py::tuple& inputs) {
  if (inputs.size() < 4 || inputs.size() > 6) {
    throw py::type_error("rowjit: the inputs are (batch, columns, constants, valid[, nulls[, others]])");
  }
  Columns cols = ReadColumns(inputs[0], inputs[1], inputs[2], inputs[3], false);
  if (inputs.size() >= 5 && !inputs[4].is_none()) {
    if (!PyTuple_Check(inputs[4].ptr())) throw py::type_error("rowjit: the names given as None are a tuple");
    for (py::handle name : py::reinterpret_borrow<py::tuple>(inputs[4])) {
      cols.nulls.push_back(TextOf(name, "a name given as None"));
      cols.key.append("|null:").append(cols.nulls.back());  // the same text binds otherwise without it
    }
  }
  if (inputs.size() == 6 && !inputs[5].is_none()) {
    if (!PyDict_Check(inputs[5].ptr())) throw py::type_error("rowjit: the other columns are a dict");
    cols.others = py::reinterpret_borrow<py::object>(inputs[5]);
  }
  return cols;
}

py::object EvaluateEntry(py::handle engine, py::handle text, const py::tuple& inputs, py::handle threads,
                         py::handle arrow, py::handle out, bool masked) {
  PyEngine& e = EngineArg(engine);
  const CallOptions o = OptionsOf(threads, arrow, out, masked);
  const std::string t = TextOf(text, "the expression");
  return e.Evaluate(t, Read(inputs), o);
}

py::object FilterEntry(py::handle engine, py::handle text, const py::tuple& inputs, py::handle arrow) {
  PyEngine& e = EngineArg(engine);
  const CallOptions o = OptionsOf(py::none(), arrow, py::none(), false);
  const std::string t = TextOf(text, "the predicate");
  return e.Filter(t, Read(inputs), o);
}

py::object ProjectEntry(py::handle engine, py::handle texts, const py::tuple& inputs, py::handle arrow, bool masked) {
  PyEngine& e = EngineArg(engine);
  const CallOptions o = OptionsOf(py::none(), arrow, py::none(), masked);
  const std::vector<std::string> t = TextsArg(texts);
  return e.Project(t, Read(inputs), o);
}

py::object AggregateEntry(py::handle engine, py::handle text, const py::tuple& inputs) {
  PyEngine& e = EngineArg(engine);
  const std::string t = TextOf(text, "the aggregate");
  return e.Aggregate(t, Read(inputs));
}

py::tuple TopKEntry(py::handle engine, py::handle text, py::handle where, const py::tuple& inputs) {
  PyEngine& e = EngineArg(engine);
  const std::string t = TextOf(text, "the selection");
  const std::string w = where.is_none() ? std::string() : TextOf(where, "where=");
  return e.TopK(t, w, Read(inputs));
}

py::object QueryEntry(py::handle engine, py::handle text, const py::tuple& inputs, bool scalar) {
  PyEngine& e = EngineArg(engine);
  const std::string t = TextOf(text, "the query");
  return e.Query(t, Read(inputs), scalar);
}

// The result type of an expression or aggregate over the inputs (only their types are read):
// (type name, nullable), and for an aggregate its function's name.
py::tuple TypeEntry(bool aggregate, py::handle text, const py::tuple& inputs) {
  const std::string t = TextOf(text, aggregate ? "the aggregate" : "the expression");
  const Columns cols = Read(inputs);
  if (!aggregate) {
    const DataType type = BindExpression(t, cols, {})->type();
    return py::make_tuple(std::string(TypeIdName(type.id)), type.nullable, py::none());
  }
  const ir::Aggregate agg = BindAggregate(t, cols, {});
  return py::make_tuple(agg.result.WithNullable(false).ToString(), agg.result.nullable, agg.name());
}

// The names an expression (or aggregate) reads, in order of first use; None when the text does
// not parse (the call itself then raises the parser's error).
py::object NamesEntry(py::handle text, const std::string& what) {
  const std::string t = TextOf(text, what);
  Result<ir::ExprPtr> parsed = ir::Parse(t);
  if (!parsed.ok()) return py::none();
  std::vector<std::string> names;
  auto walk = [&](auto& self, const ir::ExprPtr& e) -> void {
    if (e->is_column() && std::find(names.begin(), names.end(), e->name()) == names.end()) names.push_back(e->name());
    for (const ir::ExprPtr& a : e->args()) self(self, a);
  };
  walk(walk, *parsed);
  return py::cast(names);
}

// Engine(cache_dir="", synchronous=False, compile_threads=1, implicit_casts=True), each argument
// checked: a wrong type is a TypeError, a wrong value a ValueError. The engine clamps
// compile_threads further (to the host's hardware threads); a pool it cannot start is its error,
// rowjit.Error.
std::unique_ptr<PyEngine> MakeEngine(const py::object& cache_dir, const py::object& synchronous,
                                     const py::object& compile_threads, const py::object& implicit_casts) {
  std::string folder = TextOf(cache_dir, "cache_dir=");
  if (folder.find('\0') != std::string::npos) throw py::value_error("rowjit: cache_dir= holds a NUL character");
  const bool sync = BoolOf(synchronous, "synchronous=");
  const auto threads = static_cast<int>(IntOf(compile_threads, "compile_threads=", 1, INT_MAX));
  const bool casts = BoolOf(implicit_casts, "implicit_casts=");
  return std::make_unique<PyEngine>(folder, sync, threads, casts);
}

void DefineEngine(py::module_& m) {
  py::class_<PyEngine>(m, "Engine", "A rowjit engine: its kernel cache, compile pool and prepared expressions.")
      .def(py::init(&MakeEngine), py::arg("cache_dir") = "", py::arg("synchronous") = false,
           py::arg("compile_threads") = 1, py::arg("implicit_casts") = true,
           "Engine(cache_dir='', synchronous=False, compile_threads=1, implicit_casts=True): cache_dir a str (a "
           "folder for the persistent kernel cache, '' for none), synchronous True or False (True: every call waits "
           "for the optimized kernel), compile_threads an int from 1 to 2**31 - 1 (threads of the background compile "
           "pool, which the engine clamps to the host's hardware threads), implicit_casts True or False (False: "
           "strict binding, where operands of different numeric types are a rowjit.Error naming the cast to write). "
           "A wrong type is a TypeError, a wrong value a ValueError.")
      .def("_stats", &PyEngine::Stats)
      .def("_close", &PyEngine::Close);
  py::class_<PyCompiled> compiled(m, "Compiled",
                                  "An expression compiled for numeric columns of fixed dtypes (rowjit.compile): called "
                                  "with their arrays, in order, and out=.");
  compiled
      .def("__call__", [](PyCompiled& c, const py::args& arrays, const py::kwargs& options) {
        return c.Call(arrays, options.ptr());
      })
      .def_property_readonly("names", [](const PyCompiled& c) { return c.names(); })
      .def_property_readonly("expr", [](const PyCompiled& c) { return c.text(); })
      .def("__repr__", [](const PyCompiled& c) {
        return fmt::format("rowjit.Compiled('{}', {})", c.text(), fmt::join(c.names(), ", "));
      });
  // A call goes straight to the type's C slot rather than through pybind11's dispatch of
  // __call__ (its argument conversions are most of a call on a few rows: the peers'
  // python_compiled_call_8_rows); __call__ stays for introspection.
  reinterpret_cast<PyTypeObject*>(compiled.ptr())->tp_call = CompiledTpCall;
  py::class_<PyQueryState>(m, "_QueryState")
      .def(py::init([](py::handle text) { return std::make_unique<PyQueryState>(TextOf(text, "the query")); }))
      .def("fold", [](PyQueryState& s, py::handle engine, const py::tuple& inputs) { s.Fold(EngineArg(engine), Read(inputs)); })
      .def("merge", &PyQueryState::Merge)
      .def("serialize", &PyQueryState::Serialize)
      .def_static("deserialize", &PyQueryState::Deserialize)
      .def("finish", &PyQueryState::Finish)
      .def_property_readonly("text", &PyQueryState::text)
      .def_property_readonly("groups", &PyQueryState::groups);
}

}  // namespace
}  // namespace rowjit::python

PYBIND11_MODULE(_rowjit, m) {
  namespace rp = rowjit::python;
  namespace py = pybind11;
  m.doc() = "rowjit: JIT-compiled row expressions over numpy arrays and Arrow arrays";
  m.def("_set_error_type", [](py::object type) { rp::SetErrorType(std::move(type)); });
  rp::DefineArrow(m);
  rp::DefineEngine(m);
  // The calls behind rowjit/_api.py's functions and Engine methods (which give them their
  // signatures, docstrings, name lookup, pandas and scalar inputs).
  m.def("_evaluate", &rp::EvaluateEntry);
  m.def("_compile", [](py::handle engine, py::handle text, const py::tuple& inputs) {
    const std::string t = rp::TextOf(text, "the expression");
    rp::Columns cols = rp::Read(inputs);
    auto prepared = rp::EngineArg(engine).PrepareNumeric(t, cols);
    return std::make_unique<rp::PyCompiled>(py::reinterpret_borrow<py::object>(engine), t, std::move(prepared), cols,
                                            py::reinterpret_borrow<py::dict>(inputs[1]));
  });
  m.def("_filter", &rp::FilterEntry);
  m.def("_project", &rp::ProjectEntry);
  m.def("_aggregate", &rp::AggregateEntry);
  m.def("_query", &rp::QueryEntry);
  m.def("_top_k", &rp::TopKEntry);
  m.def("_is_query_text", [](py::handle text) { return rowjit::ir::IsQueryText(rp::Utf8Of(text, "the aggregate")); });
  m.def("_expr_type", [](py::handle text, const py::tuple& inputs) { return rp::TypeEntry(false, text, inputs); });
  m.def("_aggregate_type", [](py::handle text, const py::tuple& inputs) { return rp::TypeEntry(true, text, inputs); });
  m.def("_names", &rp::NamesEntry);
  m.def("_default_cache_dir", [] { return rowjit::DefaultCacheDir(); });
  m.def("_version", [] { return std::string(rowjit::Version()); });
  m.def(
      "_interval_dtype",
      [](const py::object& unit) {
        if (!PyUnicode_Check(unit.ptr())) {
          throw py::type_error("rowjit: interval_dtype's unit must be a str, not " + rp::TypeName(unit));
        }
        for (auto [name, u] : {std::pair{"months", rowjit::IntervalUnit::kMonths}, std::pair{"day_time", rowjit::IntervalUnit::kDayTime},
                               std::pair{"month_day_nano", rowjit::IntervalUnit::kMonthDayNano}}) {
          if (PyUnicode_CompareWithASCIIString(unit.ptr(), name) == 0) return rp::IntervalDtype(u);
        }
        throw py::value_error("rowjit: interval_dtype takes 'months', 'day_time' or 'month_day_nano', not " +
                              py::repr(unit).cast<std::string>());
      },
      py::arg("unit"), "The numpy structured dtype of an interval type, laid out as Arrow's: 'months', 'day_time' or 'month_day_nano'.");
  // Any cast left to pybind11 that fails is a wrong type: a TypeError, not a RuntimeError.
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::cast_error& e) {
      PyErr_SetString(PyExc_TypeError, (std::string("rowjit: ") + e.what()).c_str());
    }
  });
}
