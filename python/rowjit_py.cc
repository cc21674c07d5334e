// The Python module (python layer, above jit/): numpy arrays in, numpy or masked arrays out,
// through the C++ Engine. Inputs are read in place when numpy's layout allows (C-contiguous,
// aligned to the element width) and copied otherwise; results are written straight into the
// numpy arrays returned (Engine::EvaluateInto); the GIL is released while rowjit runs; errors
// become rowjit.Error with the kind, row and function.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <list>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "ir/aggregate.h"
#include "ir/binder.h"
#include "jit/engine.h"
#include "kernels/bitmap.h"
#include "runtime/builder.h"

namespace py = pybind11;

namespace rowjit::python {
namespace {

py::object error_type;  // rowjit.Error, set by the package's __init__

[[noreturn]] void Raise(const Error& e) {
  py::object row = e.row() ? py::object(py::int_(*e.row())) : py::object(py::none());
  py::object function = e.row() ? py::object(py::str(e.function())) : py::object(py::none());
  py::object args = py::make_tuple(e.ToString(), std::string(ErrorCodeName(e.code())), row, function);
  PyErr_SetObject(error_type.ptr(), args.ptr());
  throw py::error_already_set();
}

template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) Raise(r.error());
  return std::move(r).value();
}

TypeId TypeOfDtype(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'b') return TypeId::kBool;
  if (kind == 'f' && size == 4) return TypeId::kF32;
  if (kind == 'f' && size == 8) return TypeId::kF64;
  if (kind == 'i' || kind == 'u') {
    const bool s = kind == 'i';
    switch (size) {
      case 1: return s ? TypeId::kI8 : TypeId::kU8;
      case 2: return s ? TypeId::kI16 : TypeId::kU16;
      case 4: return s ? TypeId::kI32 : TypeId::kU32;
      case 8: return s ? TypeId::kI64 : TypeId::kU64;
      default: break;
    }
  }
  throw py::type_error("rowjit: unsupported dtype " + py::str(static_cast<const py::handle&>(dt)).cast<std::string>());
}

py::dtype DtypeOf(TypeId id) {
  switch (id) {
    case TypeId::kBool: return py::dtype::of<bool>();
    case TypeId::kI8: return py::dtype::of<int8_t>();
    case TypeId::kI16: return py::dtype::of<int16_t>();
    case TypeId::kI32: return py::dtype::of<int32_t>();
    case TypeId::kI64: return py::dtype::of<int64_t>();
    case TypeId::kU8: return py::dtype::of<uint8_t>();
    case TypeId::kU16: return py::dtype::of<uint16_t>();
    case TypeId::kU32: return py::dtype::of<uint32_t>();
    case TypeId::kU64: return py::dtype::of<uint64_t>();
    case TypeId::kF32: return py::dtype::of<float>();
    case TypeId::kF64: return py::dtype::of<double>();
  }
  throw py::type_error("rowjit: no dtype");
}

// The columns of one call, read from numpy: arrays rowjit reads in place (kept alive by `keep`
// for the whole call) and the schema they make.
struct Columns {
  Schema schema;
  std::vector<ArrayPtr> arrays;
  std::vector<py::object> keep;  // the numpy arrays the rowjit arrays borrow from
  int64_t length = -1;
  std::string key;  // the schema as text: the prepared-expression cache key
};

// A numpy bool mask (true: valid) as a validity bitmap (rowjit owns it).
Validity ValidityOfMask(const py::array& valid, int64_t n) {
  auto mask = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(valid);
  if (!mask || mask.ndim() != 1 || mask.shape(0) != n) throw py::value_error("rowjit: a validity mask must be 1-d of the column's length");
  BufferPtr bits = Check(Buffer::Allocate(kernels::NumBytes(n)));
  const bool* m = mask.data();
  uint8_t* out = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) out[i >> 3] |= static_cast<uint8_t>(m[i]) << (i & 7);
  return Check(Validity::FromBitmap(std::move(bits), 0, n));
}

// One column: values read in place when C-contiguous and aligned, else copied; nulls from a
// masked array's mask (true: null) or from an explicit `valid` array (true: valid).
ArrayPtr ColumnOf(const std::string& name, py::handle value, py::handle valid, Columns& cols) {
  py::module_ np = py::module_::import("numpy");
  py::object data = py::reinterpret_borrow<py::object>(value);
  std::optional<py::array> null_mask;  // true: null
  if (py::isinstance(value, np.attr("ma").attr("MaskedArray"))) {
    null_mask = np.attr("ma").attr("getmaskarray")(value).cast<py::array>();
    data = value.attr("data");
  }
  py::array arr = py::array::ensure(data);
  if (!arr || arr.ndim() != 1) throw py::value_error("rowjit: column '" + name + "' is not a 1-d array");
  const auto align = static_cast<uintptr_t>(std::max<py::ssize_t>(arr.itemsize(), 1));
  const bool in_place = (arr.flags() & py::array::c_style) != 0 && reinterpret_cast<uintptr_t>(arr.data()) % align == 0;
  if (!in_place) arr = py::array::ensure(np.attr("ascontiguousarray")(arr));  // strided or unaligned: a copy
  const int64_t n = arr.shape(0);
  if (cols.length >= 0 && n != cols.length) throw py::value_error("rowjit: columns of different lengths");
  cols.length = n;
  const TypeId id = TypeOfDtype(arr.dtype());
  Validity validity = Validity::AllValid();
  if (null_mask) validity = ValidityOfMask(py::array(np.attr("logical_not")(*null_mask)), n);
  if (!valid.is_none()) validity = ValidityOfMask(py::reinterpret_borrow<py::array>(valid), n);
  const bool nullable = null_mask.has_value() || !valid.is_none();
  cols.keep.push_back(arr);
  // Borrowed with no owner: the numpy array is held in `keep` until the call returns, and no
  // rowjit object made here outlives the call.
  BufferPtr buffer = Buffer::Borrow(arr.data(), n * arr.itemsize(), nullptr);
  cols.schema.fields.push_back({name, DataType(id, nullable)});
  cols.key += name + ":" + std::string(TypeIdName(id)) + (nullable ? "?," : ",");
  if (id == TypeId::kBool) return Check(ByteBoolArray::Make(n, std::move(buffer), std::move(validity), 0, nullable));
  return Check(PrimitiveArray::Make(DataType(id, nullable), n, std::move(buffer), std::move(validity)));
}

Columns ReadColumns(const py::kwargs& columns, const py::object& valid) {
  Columns cols;
  py::dict valid_dict = valid.is_none() ? py::dict() : valid.cast<py::dict>();
  for (auto item : columns) {
    const std::string name = py::str(item.first);
    py::object v = py::none();
    if (valid_dict.contains(item.first)) v = valid_dict[item.first];
    cols.arrays.push_back(ColumnOf(name, item.second, v, cols));
  }
  for (auto item : valid_dict) {
    if (!columns.contains(item.first)) {
      throw py::value_error("rowjit: valid= names '" + py::str(item.first).cast<std::string>() + "', which is not a column");
    }
  }
  if (cols.length < 0) cols.length = 0;
  return cols;
}

// The numpy result of an array rowjit wrote: values (bool: bits unpacked) and, when it has
// nulls, a masked array.
py::object ToNumpy(const py::array& values_out, const ArrayPtr& result, const std::vector<uint64_t>& validity) {
  py::module_ np = py::module_::import("numpy");
  const int64_t n = result->length();
  py::object values = values_out;
  if (result->type().id == TypeId::kBool) {
    py::array_t<uint8_t> bytes(static_cast<py::ssize_t>(kernels::NumWords(n) * 8));
    std::memcpy(bytes.mutable_data(), values_out.data(), static_cast<size_t>(kernels::NumWords(n) * 8));
    values = np.attr("unpackbits")(bytes, py::arg("count") = n, py::arg("bitorder") = "little").attr("astype")("bool");
  }
  if (result->NullCount() == 0) return values;
  py::array_t<bool> mask(n);  // true: null
  bool* m = mask.mutable_data();
  const auto* bits = reinterpret_cast<const uint8_t*>(validity.data());
  for (int64_t i = 0; i < n; ++i) m[i] = !kernels::GetBit(bits, i);
  return np.attr("ma").attr("MaskedArray")(values, py::arg("mask") = mask);
}

class PyEngine {
 public:
  explicit PyEngine(const std::string& cache_dir, bool synchronous, int compile_threads) {
    jit::EngineOptions o;
    o.cache_dir = cache_dir;
    o.compile = synchronous ? jit::EngineOptions::Compile::kSynchronous : jit::EngineOptions::Compile::kTiered;
    o.compile_threads = compile_threads;
    engine_ = Check(jit::Engine::Make(std::move(o)));
  }

  py::object Evaluate(const std::string& text, int threads, const py::object& valid, const py::kwargs& columns) {
    Columns cols = ReadColumns(columns, valid);
    std::shared_ptr<jit::PreparedExpression> prepared = Prepared(text, cols);
    const ir::ExprPtr& expr = prepared->expr();
    const int64_t n = cols.length;
    const TypeId id = expr->type().id;
    // The result's memory: a numpy array rowjit writes (bool: bits in whole words), and a bitmap.
    py::array values(id == TypeId::kBool ? py::dtype::of<uint8_t>() : DtypeOf(id),
                     id == TypeId::kBool ? kernels::NumWords(n) * 8 : n);
    std::vector<uint64_t> validity(static_cast<size_t>(kernels::NumWords(n)) + 1);
    Result<ArrayPtr> result = Error(ErrorCode::kInternal, "not run");
    void* out = values.mutable_data();
    {
      py::gil_scoped_release release;  // no Python object is touched until it is taken back
      result = RunChunks(*prepared, cols, out, validity.data(), std::max(threads, 1));
    }
    return ToNumpy(values, Check(std::move(result)), validity);
  }

  py::object Filter(const std::string& text, const py::object& valid, const py::kwargs& columns) {
    Columns cols = ReadColumns(columns, valid);
    std::shared_ptr<jit::PreparedExpression> prepared = Prepared(text, cols);
    Result<SelectionVector> kept = Error(ErrorCode::kInternal, "not run");
    {
      py::gil_scoped_release release;
      kept = prepared->Filter(cols.arrays, cols.length);
    }
    const SelectionVector s = Check(std::move(kept));
    py::array_t<uint32_t> out(s.size());
    std::copy(s.indices().begin(), s.indices().end(), out.mutable_data());
    return out;
  }

  py::list Project(const std::vector<std::string>& texts, const py::object& valid, const py::kwargs& columns) {
    py::list out;
    // Each output written into its own numpy array; one kernel pass for all of them.
    Columns cols = ReadColumns(columns, valid);
    std::vector<ir::ExprPtr> exprs;
    for (const std::string& t : texts) exprs.push_back(Check(ir::ParseAndBind(t, cols.schema)));
    const int64_t n = cols.length;
    std::vector<py::array> values;
    std::vector<std::vector<uint64_t>> validity(exprs.size(), std::vector<uint64_t>(kernels::NumWords(n) + 1));
    std::vector<jit::OutputBuffers> outs;
    for (size_t k = 0; k < exprs.size(); ++k) {
      const TypeId id = exprs[k]->type().id;
      values.emplace_back(id == TypeId::kBool ? py::dtype::of<uint8_t>() : DtypeOf(id),
                          id == TypeId::kBool ? kernels::NumWords(n) * 8 : n);
      outs.push_back({values[k].mutable_data(), values[k].nbytes(), validity[k].data(),
                      static_cast<int64_t>(validity[k].size() * 8)});
    }
    Result<std::vector<ArrayPtr>> results = Error(ErrorCode::kInternal, "not run");
    {
      py::gil_scoped_release release;
      results = engine_->ProjectInto(exprs, cols.arrays, n, outs);
    }
    std::vector<ArrayPtr> r = Check(std::move(results));
    for (size_t k = 0; k < r.size(); ++k) out.append(ToNumpy(values[k], r[k], validity[k]));
    return out;
  }

  py::object Aggregate(const std::string& text, const py::object& valid, const py::kwargs& columns) {
    Columns cols = ReadColumns(columns, valid);
    ir::Aggregate agg = Check(ir::ParseAndBindAggregate(text, cols.schema));
    Result<ir::AggregateResult> r = Error(ErrorCode::kInternal, "not run");
    {
      py::gil_scoped_release release;
      r = engine_->Aggregate(agg, cols.arrays, cols.length);
    }
    const ir::AggregateResult result = Check(std::move(r));
    auto scalar = [](const Scalar& s) -> py::object {
      if (s.is_null()) return py::none();
      return VisitType(s.type_id(), [&]<typename T>(std::type_identity<T>) -> py::object { return py::cast(s.value<T>()); });
    };
    if (agg.kind == ir::AggKind::kMinMax) return py::make_tuple(scalar(result.value), scalar(result.max));
    return scalar(result.value);
  }

 private:
  // A prepared expression per (text, schema), kept (at most kCached): a call on a known pair
  // skips parsing, binding and planning.
  std::shared_ptr<jit::PreparedExpression> Prepared(const std::string& text, const Columns& cols) {
    const std::string key = text + "|" + cols.key;
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    ir::ExprPtr expr = Check(ir::ParseAndBind(text, cols.schema));
    std::shared_ptr<jit::PreparedExpression> p = Check(engine_->PrepareExpression(expr));
    if (cache_.size() >= kCached) cache_.clear();
    cache_.emplace(key, p);
    return p;
  }

  // Evaluates in `threads` chunks of whole 64-row words, each into its slice of the output; the
  // error is the lowest chunk's (rows counted from the batch's start).
  Result<ArrayPtr> RunChunks(jit::PreparedExpression& prepared, const Columns& cols, void* values,
                             uint64_t* validity, int threads);

  static constexpr size_t kCached = 256;
  std::unique_ptr<jit::Engine> engine_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<jit::PreparedExpression>> cache_;
};

Result<ArrayPtr> PyEngine::RunChunks(jit::PreparedExpression& prepared, const Columns& cols, void* values,
                                     uint64_t* validity, int threads) {
  const int64_t n = cols.length;
  const TypeId id = prepared.expr()->type().id;
  const int64_t words = kernels::NumWords(n);
  const int64_t per = std::max<int64_t>(1, (words + threads - 1) / threads) * 64;  // rows per chunk
  const int64_t chunks = n == 0 ? 1 : (n + per - 1) / per;
  std::vector<Result<ArrayPtr>> results(static_cast<size_t>(chunks), Error(ErrorCode::kInternal, "not run"));
  auto run = [&](int64_t c) {
    const int64_t start = c * per, len = std::min(per, n - start);
    std::vector<ArrayPtr> slice;
    for (const ArrayPtr& a : cols.arrays) slice.push_back(len == n ? a : *a->Slice(start, len));
    const int width = id == TypeId::kBool ? 0 : ByteWidth(id);
    auto* v = static_cast<uint8_t*>(values) + (width == 0 ? start / 8 : start * width);
    const jit::OutputBuffers out{v, width == 0 ? kernels::NumWords(len) * 8 : len * width, validity + start / 64,
                                 kernels::NumWords(len) * 8};
    results[static_cast<size_t>(c)] = prepared.EvaluateInto(slice, len, out);
  };
  std::vector<std::thread> pool;
  for (int64_t c = 1; c < chunks; ++c) pool.emplace_back(run, c);
  run(0);
  for (std::thread& t : pool) t.join();
  for (int64_t c = 0; c < chunks; ++c) {
    Result<ArrayPtr>& r = results[static_cast<size_t>(c)];
    if (r.ok()) continue;
    Error e = std::move(r).TakeError();
    if (!e.row() || c == 0) return e;
    std::string function = e.function();
    const int64_t row = *e.row() + c * per;
    return std::move(e).WithRow(std::move(function), row);
  }
  if (chunks == 1) return std::move(results[0]);
  // The whole result over the chunks' memory: the same values and bitmap, one array.
  const bool nullable = prepared.expr()->type().nullable;
  Validity v = Validity::AllValid();
  bool any_null = false;
  for (const auto& r : results) any_null = any_null || (*r)->NullCount() > 0;
  if (any_null) {
    ROWJIT_ASSIGN_OR_RETURN(v, Validity::FromBitmap(Buffer::Borrow(validity, words * 8, nullptr), 0, n));
  }
  if (id == TypeId::kBool) {
    ROWJIT_ASSIGN_OR_RETURN(auto bits, BoolArray::Make(n, Buffer::Borrow(values, words * 8, nullptr), v, 0, nullable));
    return ArrayPtr(std::move(bits));
  }
  ROWJIT_ASSIGN_OR_RETURN(auto all, PrimitiveArray::Make(DataType(id, nullable), n,
                                                         Buffer::Borrow(values, n * ByteWidth(id), nullptr), v));
  return ArrayPtr(std::move(all));
}

}  // namespace
}  // namespace rowjit::python

PYBIND11_MODULE(_rowjit, m) {
  using rowjit::python::PyEngine;
  m.doc() = "rowjit: JIT-compiled row expressions over numpy arrays";
  m.def("_set_error_type", [](py::object type) { rowjit::python::error_type = std::move(type); });
  py::class_<PyEngine>(m, "Engine")
      .def(py::init<const std::string&, bool, int>(), py::arg("cache_dir") = "", py::arg("synchronous") = false,
           py::arg("compile_threads") = 1)
      .def("evaluate", &PyEngine::Evaluate, py::arg("expr"), py::kw_only(), py::arg("threads") = 1,
           py::arg("valid") = py::none())
      .def("filter", &PyEngine::Filter, py::arg("predicate"), py::kw_only(), py::arg("valid") = py::none())
      .def("project", &PyEngine::Project, py::arg("exprs"), py::kw_only(), py::arg("valid") = py::none())
      .def("aggregate", &PyEngine::Aggregate, py::arg("aggregate"), py::kw_only(), py::arg("valid") = py::none());
}
