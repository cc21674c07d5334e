// The Python module (python layer, above jit/): rowjit.Engine and the module functions over
// numpy arrays and Arrow PyCapsule objects, through the C++ Engine. Results are written by the
// kernels straight into memory rowjit allocates and handed to numpy without a copy (or returned
// as rowjit.Array for Arrow consumers); the GIL is released while rowjit runs on more than a few
// thousand rows; errors become rowjit.Error with the kind, row and function.
#include <pybind11/stl.h>
#include <sched.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <thread>
#include <unordered_map>

#include "runtime/environment.h"
#include "ir/aggregate.h"
#include "ir/binder.h"
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

// The threads an evaluate call runs on: threads= (at least 1), at most the CPUs available to the
// process and at most one per 64-row word of the batch (a chunk is whole words).
int ClampThreads(int requested, int64_t rows) {
  if (requested <= 1 || rows <= 64) return 1;
  const int64_t most = std::min<int64_t>(AvailableCpus(), kernels::NumWords(rows));
  return static_cast<int>(std::clamp<int64_t>(requested, 1, most));
}

class PyEngine {
 public:
  PyEngine(const std::string& cache_dir, bool synchronous, int compile_threads) {
    jit::EngineOptions o;
    o.cache_dir = cache_dir;
    o.compile = synchronous ? jit::EngineOptions::Compile::kSynchronous : jit::EngineOptions::Compile::kTiered;
    o.compile_threads = compile_threads;
    engine_ = Check(jit::Engine::Make(std::move(o)));
  }

  py::object Evaluate(const std::string& text, const Columns& cols, const CallOptions& o) {
    std::shared_ptr<jit::PreparedExpression> prepared = Prepared(text, cols);
    if (IsString(prepared->expr()->type().id)) {  // a string result: rowjit's own array, no out=
      if (!o.out.is_none()) throw py::type_error("rowjit: out= takes no string results");
      Result<ArrayPtr> rows = WithoutGil(cols.length, [&] { return prepared->Evaluate(cols.arrays, cols.length); });
      ArrayPtr result = Check(std::move(rows));
      return WantArrow(o, cols) ? WrapArray(std::move(result)) : ToNumpy(result, false);
    }
    const ResultMemory out = ResultMemory::Make(prepared->expr()->type(), cols.length, WantArrow(o, cols), o.out, results_);
    const int threads = ClampThreads(o.threads, cols.length);
    Result<bool> any_null = WithoutGil(cols.length, [&] { return RunChunks(*prepared, cols, out, threads); });
    return out.Finish(Check(std::move(any_null)));
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
      exprs.push_back(Check(ir::ParseAndBind(t, cols.schema)));
      strings = strings || IsString(exprs.back()->type().id);
    }
    if (strings) {  // string results are rowjit's own arrays (as evaluate's): every result is
      Result<std::vector<ArrayPtr>> results =
          WithoutGil(cols.length, [&] { return engine_->Project(exprs, cols.arrays, cols.length); });
      py::list out;
      for (const ArrayPtr& r : Check(std::move(results))) out.append(WantArrow(o, cols) ? WrapArray(r) : ToNumpy(r, false));
      return out;
    }
    std::vector<ResultMemory> memory;
    std::vector<jit::OutputBuffers> outs;
    for (const ir::ExprPtr& e : exprs) {
      memory.push_back(ResultMemory::Make(e->type(), cols.length, WantArrow(o, cols), py::none(), results_));
      outs.push_back(memory.back().Slice(0, cols.length));
    }
    Result<std::vector<ArrayPtr>> results =
        WithoutGil(cols.length, [&] { return engine_->ProjectInto(exprs, cols.arrays, cols.length, outs); });
    const std::vector<ArrayPtr> r = Check(std::move(results));
    py::list out;
    for (size_t k = 0; k < r.size(); ++k) out.append(memory[k].Finish(r[k]->NullCount() > 0));
    return out;
  }

  py::object Aggregate(const std::string& text, const Columns& cols) {
    std::shared_ptr<jit::PreparedAggregate> prepared = PreparedFold(text, cols);
    const ir::Aggregate& agg = prepared->aggregate();
    Result<ir::AggregateResult> r = WithoutGil(cols.length, [&] { return prepared->Aggregate(cols.arrays, cols.length); });
    const ir::AggregateResult result = Check(std::move(r));
    auto scalar = [](const Scalar& s) -> py::object {
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
    };
    if (agg.kind == ir::AggKind::kMinMax) return py::make_tuple(scalar(result.value), scalar(result.max));
    return scalar(result.value);
  }

  // The engine's counters: its kernel cache and its disk cache.
  py::dict Stats() const {
    const jit::CacheStats c = engine_->cache_stats();
    const jit::DiskCacheStats d = engine_->disk_cache_stats();
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
      return std::shared_ptr<jit::PreparedExpression>(Check(engine_->PrepareExpression(Check(ir::ParseAndBind(text, cols.schema)))));
    });
  }
  std::shared_ptr<jit::PreparedAggregate> PreparedFold(const std::string& text, const Columns& cols) {
    return Held(fold_cache_, text, cols, [&] {
      return std::shared_ptr<jit::PreparedAggregate>(
          Check(engine_->PrepareAggregate(Check(ir::ParseAndBindAggregate(text, cols.schema)))));
    });
  }

  Result<bool> RunChunks(jit::PreparedExpression& prepared, const Columns& cols, const ResultMemory& out,
                         int threads);

  static constexpr size_t kCached = 256;
  std::unique_ptr<jit::Engine> engine_;
  // Large results' memory: blocks freed when numpy lets go of a result are kept for the next
  // result of the same size, so that a loop over large arrays does not fault in fresh pages.
  std::shared_ptr<MemoryPool> results_ = std::make_shared<RecyclingPool>();
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<jit::PreparedExpression>> cache_;
  std::unordered_map<std::string, std::shared_ptr<jit::PreparedAggregate>> fold_cache_;
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
    ROWJIT_ASSIGN_OR_RETURN(ArrayPtr r, prepared.EvaluateInto(cols.arrays, n, out.Slice(0, n)));
    return r->NullCount() > 0;
  }
  const int64_t per = (kernels::NumWords(n) + threads - 1) / threads * 64;  // rows per chunk
  const int64_t chunks = (n + per - 1) / per;
  std::vector<Result<ArrayPtr>> results(static_cast<size_t>(chunks), Error(ErrorCode::kInternal, "not run"));
  auto run = [&](int64_t c) noexcept {
    Result<ArrayPtr>& result = results[static_cast<size_t>(c)];
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
      result = prepared.EvaluateInto(slice, len, out.Slice(start, len));
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
    Result<ArrayPtr>& r = results[static_cast<size_t>(c)];
    if (r.ok()) {
      any_null = any_null || (*r)->NullCount() > 0;
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

// --- entry points: (expr, [batch], **columns and options) -------------------------------------

py::handle& ModuleObject() {  // borrowed: the module outlives every call into it
  static py::handle m;
  return m;
}

// The engine the module functions use unless engine= names one: tiered compiles, and the
// persistent kernel cache in the default folder (DefaultCacheDir: the CLI's and the Dask
// helpers' rule). Held by the module (rowjit._rowjit._default).
py::object DefaultEngineObject() {
  py::handle m = ModuleObject();
  py::object e = m.attr("_default");
  if (e.is_none()) {
    e = py::cast(std::make_unique<PyEngine>(DefaultCacheDir(), false, 1));
    m.attr("_default") = e;
  }
  return e;
}
PyEngine& DefaultEngine() { return DefaultEngineObject().cast<PyEngine&>(); }

std::string TextArg(const py::args& args, const char* what) {
  if (args.empty()) throw py::type_error(std::string("rowjit: the first argument is the ") + what + " (a str)");
  return TextOf(args[0], std::string("the ") + what);
}

PyEngine& EngineOf(PyEngine* self, const CallOptions& o) {
  if (self != nullptr) return *self;
  if (o.engine.is_none()) return DefaultEngine();
  if (!py::isinstance<PyEngine>(o.engine)) {
    throw py::type_error("rowjit: engine= must be a rowjit.Engine or None, not " + TypeName(o.engine));
  }
  return o.engine.cast<PyEngine&>();
}

// project's expressions: a list (any sequence but a str or bytes) of str.
std::vector<std::string> TextsArg(const py::args& args) {
  if (args.empty()) throw py::type_error("rowjit: project takes a list of expressions (str)");
  py::handle given = args[0];
  if (PyUnicode_Check(given.ptr()) || PyBytes_Check(given.ptr()) || !PySequence_Check(given.ptr())) {
    throw py::type_error("rowjit: project takes a list of expressions (str), not " + TypeName(given));
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(given);
  std::vector<std::string> texts;
  texts.reserve(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) texts.push_back(TextOf(seq[i], "project's expression " + std::to_string(i)));
  return texts;
}

py::object EvaluateCall(PyEngine* self, const py::args& args, const py::kwargs& kwargs) {
  CallOptions o;
  const std::string text = TextArg(args, "expression");
  const Columns cols = ReadCall(args, 1, kwargs, kThreads | kValid | kArrow | kOut | (self ? 0u : kEngine), o, false);
  return EngineOf(self, o).Evaluate(text, cols, o);
}

py::object FilterCall(PyEngine* self, const py::args& args, const py::kwargs& kwargs) {
  CallOptions o;
  const std::string text = TextArg(args, "predicate");
  const Columns cols = ReadCall(args, 1, kwargs, kValid | kArrow | (self ? 0u : kEngine), o, false);
  return EngineOf(self, o).Filter(text, cols, o);
}

py::object ProjectCall(PyEngine* self, const py::args& args, const py::kwargs& kwargs) {
  CallOptions o;
  const std::vector<std::string> texts = TextsArg(args);
  const Columns cols = ReadCall(args, 1, kwargs, kValid | kArrow | (self ? 0u : kEngine), o, false);
  return EngineOf(self, o).Project(texts, cols, o);
}

py::object AggregateCall(PyEngine* self, const py::args& args, const py::kwargs& kwargs) {
  CallOptions o;
  const std::string text = TextArg(args, "aggregate");
  const Columns cols = ReadCall(args, 1, kwargs, kValid | (self ? 0u : kEngine), o, false);
  return EngineOf(self, o).Aggregate(text, cols);
}

// The result type of an expression or aggregate over the columns (only their types are read):
// (type name, nullable), and for an aggregate its function's name.
py::tuple TypeCall(bool aggregate, py::args args, py::kwargs kwargs) {
  CallOptions o;
  const std::string text = TextArg(args, aggregate ? "aggregate" : "expression");
  const Columns cols = ReadCall(args, 1, kwargs, kValid, o, false);
  if (!aggregate) {
    const DataType t = Check(ir::ParseAndBind(text, cols.schema))->type();
    return py::make_tuple(std::string(TypeIdName(t.id)), t.nullable, py::none());
  }
  const ir::Aggregate agg = Check(ir::ParseAndBindAggregate(text, cols.schema));
  return py::make_tuple(agg.result.WithNullable(false).ToString(), agg.result.nullable, agg.name());
}

// The docstrings of the calls (the module's functions name engine= too).
#define ROWJIT_THREADS_DOC                                                                                      \
  "threads: an int from 1 to 2**31 - 1 (another type is a TypeError, another value a ValueError); the batch " \
  "is split into that many chunks of whole 64-row words, each evaluated on a thread of its own, but never " \
  "on more threads than the CPUs available to the process (len(os.sched_getaffinity(0))) nor more than one " \
  "per 64 rows: a larger count is clamped. A thread that cannot be started raises rowjit.Error."
constexpr const char* kEvaluateDoc =
    "evaluate(expr, [batch], *, threads=1, valid=None, arrow=None, out=None, engine=None, **columns)\n\n"
    "One array of the columns' length. " ROWJIT_THREADS_DOC;
constexpr const char* kEngineEvaluateDoc =
    "evaluate(expr, [batch], *, threads=1, valid=None, arrow=None, out=None, **columns)\n\n"
    "One array of the columns' length. " ROWJIT_THREADS_DOC;
#undef ROWJIT_THREADS_DOC

// Engine(cache_dir="", synchronous=False, compile_threads=1), each argument checked: a wrong type
// is a TypeError, a wrong value a ValueError. The engine clamps compile_threads further (to the
// host's hardware threads); a pool it cannot start is its error, rowjit.Error.
std::unique_ptr<PyEngine> MakeEngine(const py::object& cache_dir, const py::object& synchronous,
                                     const py::object& compile_threads) {
  std::string folder = TextOf(cache_dir, "cache_dir=");
  if (folder.find('\0') != std::string::npos) throw py::value_error("rowjit: cache_dir= holds a NUL character");
  const bool sync = BoolOf(synchronous, "synchronous=");
  const auto threads = static_cast<int>(IntOf(compile_threads, "compile_threads=", 1, INT_MAX));
  return std::make_unique<PyEngine>(folder, sync, threads);
}

void DefineEngine(py::module_& m) {
  py::class_<PyEngine>(m, "Engine", "A rowjit engine: its kernel cache, compile pool and prepared expressions.")
      .def(py::init(&MakeEngine), py::arg("cache_dir") = "", py::arg("synchronous") = false,
           py::arg("compile_threads") = 1,
           "Engine(cache_dir='', synchronous=False, compile_threads=1): cache_dir a str (a folder for the "
           "persistent kernel cache, '' for none), synchronous True or False (True: every call waits for the "
           "optimized kernel), compile_threads an int from 1 to 2**31 - 1 (threads of the background compile "
           "pool, which the engine clamps to the host's hardware threads). A wrong type is a TypeError, a wrong value a "
           "ValueError.")
      .def("evaluate", [](PyEngine& e, py::args a, py::kwargs k) { return EvaluateCall(&e, a, k); }, kEngineEvaluateDoc)
      .def("filter", [](PyEngine& e, py::args a, py::kwargs k) { return FilterCall(&e, a, k); },
           "filter(predicate, [batch], *, valid=None, arrow=None, **columns)")
      .def("project", [](PyEngine& e, py::args a, py::kwargs k) { return ProjectCall(&e, a, k); },
           "project(exprs, [batch], *, valid=None, arrow=None, **columns)")
      .def("aggregate", [](PyEngine& e, py::args a, py::kwargs k) { return AggregateCall(&e, a, k); },
           "aggregate(agg, [batch], *, valid=None, **columns)")
      .def("stats", &PyEngine::Stats, "Counters: compiles, disk loads, cache hits, disk cache hits and stores.");
}

}  // namespace
}  // namespace rowjit::python

PYBIND11_MODULE(_rowjit, m) {
  namespace rp = rowjit::python;
  namespace py = pybind11;
  m.doc() = "rowjit: JIT-compiled row expressions over numpy arrays and Arrow arrays";
  rp::ModuleObject() = m;
  m.attr("_default") = py::none();
  m.def("_set_error_type", [](py::object type) { rp::SetErrorType(std::move(type)); });
  rp::DefineArrow(m);
  rp::DefineEngine(m);
  m.def("default_engine", [] { return rp::DefaultEngineObject(); },
        "The engine the module functions use unless engine= is given.");
  m.def("default_cache_dir", [] { return rowjit::DefaultCacheDir(); },
        "The persistent kernel cache's default folder: $ROWJIT_CACHE_DIR, else $XDG_CACHE_HOME/rowjit, "
        "else ~/.cache/rowjit ('' when none can be named); the default engine's, the CLI's and rowjit.dask's.");
  m.def("_expr_type", [](py::args a, py::kwargs k) { return rp::TypeCall(false, a, k); });
  m.def("_aggregate_type", [](py::args a, py::kwargs k) { return rp::TypeCall(true, a, k); });
  m.def(
      "interval_dtype",
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
  m.def("evaluate", [](py::args a, py::kwargs k) { return rp::EvaluateCall(nullptr, a, k); }, rp::kEvaluateDoc);
  m.def("filter", [](py::args a, py::kwargs k) { return rp::FilterCall(nullptr, a, k); },
        "filter(predicate, [batch], *, valid=None, arrow=None, engine=None, **columns): the rows where a bool "
        "expression is true (null counts as false), as uint32 indices.");
  m.def("project", [](py::args a, py::kwargs k) { return rp::ProjectCall(nullptr, a, k); },
        "project(exprs, [batch], *, valid=None, arrow=None, engine=None, **columns): several expressions (a list "
        "of str) in one pass over the columns, a list of arrays.");
  m.def("aggregate", [](py::args a, py::kwargs k) { return rp::AggregateCall(nullptr, a, k); },
        "aggregate(agg, [batch], *, valid=None, engine=None, **columns): sum, min, max, min_max (a tuple), "
        "count, nan_count, any, all over the non-null rows; a Python value (None when null).");
  // Any cast left to pybind11 that fails is a wrong type: a TypeError, not a RuntimeError.
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::cast_error& e) {
      PyErr_SetString(PyExc_TypeError, (std::string("rowjit: ") + e.what()).c_str());
    }
  });
}
