// The Python module's conversions (python layer): numpy arrays, masked arrays and Arrow PyCapsule
// objects into rowjit arrays; rowjit arrays back out as numpy views or as rowjit.Array and
// rowjit.RecordBatch, which speak the Arrow PyCapsule protocol (__arrow_c_array__,
// __arrow_c_schema__) so that pyarrow, polars and other Arrow libraries take them without copies.
#include <pybind11/stl.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/bitmap.h"
#include "kernels/bytebool.h"
#include "python/module.h"
#include "runtime/arrow_c.h"
#include "runtime/string_array.h"

namespace rowjit::python {
namespace {

// Python objects the module looks up once, at import (never destroyed: the interpreter may be
// gone by the time static destructors run).
struct Types {
  py::object error;
  py::object masked_array;  // numpy.ma.MaskedArray
  py::object nomask;        // numpy.ma.nomask
  py::object getmask;       // numpy.ma.getmask
};
Types& Globals() {
  static auto* t = new Types();
  return *t;
}

// rowjit.Array and rowjit.RecordBatch: a rowjit array or batch, immutable, shared with Arrow
// consumers through the PyCapsule protocol.
struct PyArrowArray {
  ArrayPtr array;
};
struct PyBatch {
  RecordBatch batch;
};

PyTypeObject* NdarrayType() {
  return reinterpret_cast<PyTypeObject*>(py::detail::npy_api::get().PyArray_Type_);
}

// A Python object as the owner of memory a rowjit buffer borrows: released (under the GIL) when
// the last rowjit reference goes, unless the interpreter is shutting down.
std::shared_ptr<const void> PythonOwner(py::object o) {
  return std::shared_ptr<const void>(o.release().ptr(), [](const void* p) {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(const_cast<void*>(p)));
  });
}

// --- Arrow PyCapsules ----------------------------------------------------------------------

constexpr const char* kSchemaCapsule = "arrow_schema";
constexpr const char* kArrayCapsule = "arrow_array";
constexpr const char* kStreamCapsule = "arrow_array_stream";

// A capsule's destructor releases its struct unless a consumer moved it out (release is null).
template <typename T>
void DropCapsule(PyObject* capsule, const char* name) {
  auto* s = static_cast<T*>(PyCapsule_GetPointer(capsule, name));
  if (s == nullptr) {
    PyErr_Clear();
    return;
  }
  if (s->release != nullptr) s->release(s);
  delete s;
}

template <typename T>
py::capsule MakeCapsule(std::unique_ptr<T> s, const char* name, PyCapsule_Destructor drop) {
  PyObject* c = PyCapsule_New(s.get(), name, drop);
  if (c == nullptr) throw py::error_already_set();
  s.release();
  return py::reinterpret_steal<py::capsule>(c);
}

py::tuple ExportCapsules(const ArrayPtr* array, const RecordBatch* batch) {
  auto schema = std::make_unique<ArrowSchema>();
  auto out = std::make_unique<ArrowArray>();
  schema->release = nullptr;
  out->release = nullptr;
  Check(array != nullptr ? ExportArray(*array, out.get(), schema.get())
                         : ExportRecordBatch(*batch, out.get(), schema.get()));
  return py::make_tuple(
      MakeCapsule(std::move(schema), kSchemaCapsule, [](PyObject* c) { DropCapsule<ArrowSchema>(c, kSchemaCapsule); }),
      MakeCapsule(std::move(out), kArrayCapsule, [](PyObject* c) { DropCapsule<ArrowArray>(c, kArrayCapsule); }));
}

py::capsule SchemaOnly(const ArrayPtr* array, const RecordBatch* batch) {
  py::tuple both = ExportCapsules(array, batch);
  return both[0].cast<py::capsule>();  // the array capsule is dropped (released) here
}

template <typename T>
T* CapsulePointer(py::handle capsule, const char* name, const char* what) {
  if (!PyCapsule_IsValid(capsule.ptr(), name)) {
    throw py::type_error(std::string("rowjit: ") + what + " did not return a '" + name + "' capsule");
  }
  auto* p = static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
  if (p == nullptr || p->release == nullptr) throw py::value_error(std::string("rowjit: ") + what + " returned a released struct");
  return p;
}

// An Arrow array (or struct array) from `obj`: __arrow_c_array__, or __arrow_c_stream__ of at
// most one chunk. Ownership of the structs moves to rowjit; the capsules are left empty.
struct Imported {
  ArrowSchema schema{};
  ArrowArray array{};
  ~Imported() {
    if (array.release != nullptr) array.release(&array);
    if (schema.release != nullptr) schema.release(&schema);
  }
};

void ImportFromStream(py::handle obj, Imported& out) {
  py::object capsule = obj.attr("__arrow_c_stream__")();
  auto* stream = CapsulePointer<ArrowArrayStream>(capsule, kStreamCapsule, "__arrow_c_stream__");
  auto fail = [&](const char* step) {
    const char* why = stream->get_last_error ? stream->get_last_error(stream) : nullptr;
    throw py::value_error(std::string("rowjit: an Arrow stream's ") + step + " failed" + (why ? std::string(": ") + why : ""));
  };
  if (stream->get_schema(stream, &out.schema) != 0) fail("get_schema");
  if (stream->get_next(stream, &out.array) != 0) fail("get_next");
  if (out.array.release == nullptr) {
    throw py::value_error("rowjit: an Arrow stream with no chunk (an empty column has one chunk of length 0)");
  }
  ArrowArray more{};
  if (stream->get_next(stream, &more) != 0) fail("get_next");
  if (more.release != nullptr) {
    more.release(&more);
    throw py::value_error("rowjit: an Arrow stream of several chunks: pass one chunk at a time (or combine them first)");
  }
}

void ImportObject(py::handle obj, Imported& out) {
  if (!py::hasattr(obj, "__arrow_c_array__")) {
    ImportFromStream(obj, out);
    return;
  }
  py::object pair = obj.attr("__arrow_c_array__")();
  if (!py::isinstance<py::tuple>(pair) || py::len(pair) != 2) {
    throw py::type_error("rowjit: __arrow_c_array__ did not return a (schema, array) tuple");
  }
  auto* schema = CapsulePointer<ArrowSchema>(pair.cast<py::tuple>()[0], kSchemaCapsule, "__arrow_c_array__");
  auto* array = CapsulePointer<ArrowArray>(pair.cast<py::tuple>()[1], kArrayCapsule, "__arrow_c_array__");
  out.schema = *schema;  // moved: the capsules' destructors see released structs
  schema->release = nullptr;
  out.array = *array;
  array->release = nullptr;
}

bool SpeaksArrow(py::handle obj) {
  return py::hasattr(obj, "__arrow_c_array__") || py::hasattr(obj, "__arrow_c_stream__");
}

ArrayPtr ImportArrowArray(py::handle obj) {
  Imported in;
  ImportObject(obj, in);
  return Check(ImportArray(&in.array, &in.schema));
}

RecordBatch ImportArrowBatch(py::handle obj) {
  Imported in;
  ImportObject(obj, in);
  return Check(ImportRecordBatch(&in.array, &in.schema));
}

// --- numpy in ----------------------------------------------------------------------------------

// A numpy bool mask as a validity bitmap; `mask_is_null`: true means null (numpy.ma), else valid.
// Anything numpy makes a bool array of is taken; a scalar (a 0-d array of one) is a TypeError.
Validity ValidityOfMask(const std::string& name, py::handle mask_obj, int64_t n, bool mask_is_null) {
  auto mask = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(mask_obj);
  if (!mask || (mask.ndim() == 0 && !py::isinstance<py::array>(mask_obj))) {
    throw py::type_error("rowjit: the validity mask of column '" + name + "' must be a 1-d bool array, not " +
                         TypeName(mask_obj));
  }
  if (mask.ndim() != 1 || mask.shape(0) != n) {
    throw py::value_error("rowjit: the validity mask of column '" + name + "' must be a 1-d bool array of the column's length" +
                          (n >= 0 ? " (" + std::to_string(n) + " rows)" : std::string()));
  }
  BufferPtr bits = Check(Buffer::Allocate(kernels::NumBytes(n)));
  kernels::PackByteBools(reinterpret_cast<const uint8_t*>(mask.data()), n, bits->mutable_data());
  if (mask_is_null) kernels::BitmapNot(kernels::BitSpan{bits->data(), 0, n}, bits->mutable_data());  // in place
  return Check(Validity::FromBitmap(std::move(bits), 0, n));
}

// A numpy array rowjit can read in place: C-contiguous, aligned to its element and in native
// byte order; anything else is copied into a fresh array first.
py::array ReadableLayout(const py::array& arr) {
  const auto align = static_cast<uintptr_t>(std::max<py::ssize_t>(arr.itemsize(), 1));
  const bool contiguous = (arr.flags() & py::array::c_style) != 0;
  const bool aligned = reinterpret_cast<uintptr_t>(arr.data()) % align == 0;
  const bool native = arr.dtype().byteorder() != '>';
  if (contiguous && aligned && native) return arr;
  py::object dtype = native ? py::object(arr.dtype()) : arr.dtype().attr("newbyteorder")("=");
  return py::array::ensure(arr.attr("astype")(dtype, py::arg("order") = "C", py::arg("copy") = true));
}

void Append(Columns& cols, const std::string& name, ArrayPtr array) {
  const int64_t n = array->length();
  if (cols.length >= 0 && n != cols.length) {
    throw py::value_error("rowjit: column '" + name + "' has " + std::to_string(n) + " rows, the others " +
                          std::to_string(cols.length));
  }
  cols.length = n;
  const DataType type = array->type();
  Field field{name, type};
  if (array->encoding() == Encoding::kString) field.layout = static_cast<const StringArray&>(*array).layout();
  cols.key += name;
  cols.key += ':';
  cols.key += IsString(type.id) ? StringTypeName(type.id, field.layout) : type.WithNullable(false).ToString();
  cols.schema.fields.push_back(std::move(field));
  cols.key += type.nullable ? "?," : ",";
  cols.arrays.push_back(std::move(array));
}

// A numpy array of fixed-width strings read in place at any stride, without a Python object a
// row: 'S' rows are their bytes, 'U' rows numpy's UCS-4 code points encoded to UTF-8 here; both
// without their trailing NULs, as numpy reads them. A code point that is a surrogate or past
// U+10FFFF cannot be UTF-8: a ValueError (str.encode() raises UnicodeEncodeError, a ValueError).
ArrayPtr FixedWidthStrings(const std::string& name, const py::array& arr, std::optional<Validity> validity) {
  const bool bytes = arr.dtype().kind() == 'S';
  const int64_t n = arr.shape(0), stride = arr.strides(0);
  const auto width = static_cast<size_t>(arr.dtype().itemsize()) / (bytes ? 1 : 4);
  const auto* base = static_cast<const char*>(arr.data());
  // The 'U' rows one after another: at most 4 UTF-8 bytes a code point, written in place.
  std::string utf8(bytes ? 0 : static_cast<size_t>(n) * width * 4, '\0');
  char* out = utf8.data();
  std::vector<size_t> ends(static_cast<size_t>(n));
  std::vector<std::optional<std::string_view>> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const char* at = base + i * stride;
    if (bytes) {
      size_t len = width;
      while (len > 0 && at[len - 1] == '\0') --len;
      rows[static_cast<size_t>(i)] = std::string_view(at, len);
      continue;
    }
    auto code = [&](size_t k) {
      uint32_t c = 0;
      std::memcpy(&c, at + 4 * k, 4);
      return c;
    };
    size_t len = width;
    while (len > 0 && code(len - 1) == 0) --len;
    for (size_t k = 0; k < len; ++k) {
      const uint32_t c = code(k);
      if (c < 0x80) {
        *out++ = static_cast<char>(c);
      } else if (c < 0x800) {
        *out++ = static_cast<char>(0xC0 | c >> 6);
        *out++ = static_cast<char>(0x80 | (c & 0x3F));
      } else if (c < 0x10000 && (c < 0xD800 || c > 0xDFFF)) {
        *out++ = static_cast<char>(0xE0 | c >> 12);
        *out++ = static_cast<char>(0x80 | (c >> 6 & 0x3F));
        *out++ = static_cast<char>(0x80 | (c & 0x3F));
      } else if (c >= 0x10000 && c <= 0x10FFFF) {
        *out++ = static_cast<char>(0xF0 | c >> 18);
        *out++ = static_cast<char>(0x80 | (c >> 12 & 0x3F));
        *out++ = static_cast<char>(0x80 | (c >> 6 & 0x3F));
        *out++ = static_cast<char>(0x80 | (c & 0x3F));
      } else {
        throw py::value_error(fmt::format("rowjit: column '{}' row {} holds code point U+{:04X}, which UTF-8 cannot encode",
                                          name, i, c));
      }
    }
    ends[static_cast<size_t>(i)] = static_cast<size_t>(out - utf8.data());
  }
  bool nulls = false;
  for (int64_t i = 0; i < n; ++i) {
    std::optional<std::string_view>& row = rows[static_cast<size_t>(i)];
    if (!bytes) {
      const size_t begin = i == 0 ? 0 : ends[static_cast<size_t>(i) - 1];
      row = std::string_view(utf8).substr(begin, ends[static_cast<size_t>(i)] - begin);
    }
    if (validity && !validity->IsValid(i)) {
      row.reset();
      nulls = true;
    }
  }
  return Check(MakeStringArray(DataType(bytes ? TypeId::kBinary : TypeId::kUtf8, nulls || validity.has_value()),
                               StringLayout::kOffsets32, rows));
}

// A numpy array of strings, copied into a utf8 (or, for bytes, binary) array with 32-bit
// offsets: 'U' (UCS-4, encoded to UTF-8), 'S' (bytes; numpy drops trailing NULs, as here) or
// object arrays of str (or bytes) and None (null).
ArrayPtr NumpyStrings(const std::string& name, const py::array& arr, std::optional<Validity> validity) {
  const char kind = arr.dtype().kind();
  const int64_t n = arr.shape(0);
  const auto* base = static_cast<const char*>(arr.data());
  const bool native = arr.dtype().byteorder() != '>';
  if (kind == 'S' || (kind == 'U' && native)) return FixedWidthStrings(name, arr, std::move(validity));
  // Object arrays are read in place (their items live as long as the array, which the call
  // holds); big-endian 'U' arrays become Python objects first, held by `items` until the copy.
  py::list items;
  if (kind != 'O') items = arr.attr("tolist")();
  auto item_at = [&](int64_t i) -> PyObject* {
    if (kind != 'O') return items[static_cast<size_t>(i)].ptr();
    return *reinterpret_cast<PyObject* const*>(base + i * arr.strides(0));
  };
  // Each row's bytes where they already are: a str's UTF-8 (cached on the object by CPython; an
  // ASCII str's own data), a bytes object's buffer. No copy until the array is built.
  std::vector<std::optional<std::string_view>> rows(static_cast<size_t>(n));
  bool saw_str = false, saw_bytes = false, nulls = false;
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = item_at(i);
    std::optional<std::string_view>& row = rows[static_cast<size_t>(i)];
    if (item == Py_None) {
      nulls = true;
    } else if (PyUnicode_Check(item)) {
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
      if (utf8 == nullptr) RaiseNotText(fmt::format("column '{}' row {}", name, i));  // a lone surrogate
      row = std::string_view(utf8, static_cast<size_t>(size));
      saw_str = true;
    } else if (PyBytes_Check(item)) {
      row = std::string_view(PyBytes_AS_STRING(item), static_cast<size_t>(PyBytes_GET_SIZE(item)));
      saw_bytes = true;
    } else {
      throw py::type_error("rowjit: column '" + name + "' holds " +
                           py::str(py::handle(item).get_type()).cast<std::string>() + " where strings are expected");
    }
    if (row && validity && !validity->IsValid(i)) {
      row.reset();
      nulls = true;
    }
  }
  if (saw_str && saw_bytes) throw py::type_error("rowjit: column '" + name + "' mixes str and bytes");
  const TypeId id = saw_bytes || (kind == 'S' && !saw_str) ? TypeId::kBinary : TypeId::kUtf8;
  return Check(MakeStringArray(DataType(id, nulls || validity.has_value()), StringLayout::kOffsets32, rows));
}

// numpy's NaT (the i64 minimum) is a null: a column holding one gets a validity without it.
ArrayPtr TemporalColumn(DataType type, int64_t n, BufferPtr values, Validity validity, bool nullable) {
  const auto* v = reinterpret_cast<const int64_t*>(values->data());
  int64_t first_nat = -1;
  for (int64_t i = 0; i < n && first_nat < 0; ++i) {
    if (v[i] == INT64_MIN) first_nat = i;
  }
  if (first_nat >= 0) {
    BufferPtr bits = Check(Buffer::Allocate(kernels::NumBytes(n)));
    for (int64_t i = 0; i < n; ++i) kernels::SetBitTo(bits->mutable_data(), i, v[i] != INT64_MIN && validity.IsValid(i));
    validity = Check(Validity::FromBitmap(std::move(bits), 0, n));
    nullable = true;
  }
  return Check(PrimitiveArray::Make(type.WithNullable(nullable), n, std::move(values), std::move(validity)));
}

// numpy's datetime64[D] (i64 days) as a date32 column: a narrowing copy, NaT a null, a day past
// 32 bits an error.
ArrayPtr DateColumn(const std::string& name, int64_t n, const Buffer& days, Validity validity, bool nullable) {
  const auto* v = reinterpret_cast<const int64_t*>(days.data());
  BufferPtr out = Check(Buffer::AllocateForOverwrite(std::max<int64_t>(n * 4, 64)));
  auto* o = reinterpret_cast<int32_t*>(out->mutable_data());
  BufferPtr bits;
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] == INT64_MIN) {  // NaT
      if (!bits) {
        bits = Check(Buffer::Allocate(kernels::NumBytes(n)));
        for (int64_t k = 0; k < n; ++k) kernels::SetBitTo(bits->mutable_data(), k, validity.IsValid(k));
      }
      kernels::SetBitTo(bits->mutable_data(), i, false);
      o[i] = 0;
      continue;
    }
    if (!validity.IsValid(i)) {  // a masked row's value is not read
      o[i] = 0;
      continue;
    }
    if (v[i] < INT32_MIN || v[i] > INT32_MAX) {
      throw py::value_error("rowjit: column '" + name + "' row " + std::to_string(i) + ": day " + std::to_string(v[i]) +
                            " is past date32");
    }
    o[i] = static_cast<int32_t>(v[i]);
  }
  if (bits) validity = Check(Validity::FromBitmap(std::move(bits), 0, n)), nullable = true;
  const DataType date32 = *DataType::Temporal(LogicalKind::kDate, TimeUnit::kDay);
  return Check(PrimitiveArray::Make(date32.WithNullable(nullable), n, std::move(out), std::move(validity)));
}

// `held`: the caller's own reference keeps `given` alive for the whole call (a keyword argument
// or a batch dict's value), so that only a copy needs holding here.
// A 2-d numeric array (rows x N): a column of vectors, fixed_size_list<T, N>, over the array's
// memory (a copy first when it is not C-contiguous, aligned and in native byte order).
ArrayPtr NumpyVectors(Columns& cols, const std::string& name, const py::array& given, std::optional<Validity> validity) {
  const char kind = given.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u') {
    throw py::type_error("rowjit: column '" + name + "' is a 2-d array of " + std::string(py::str(given.dtype())) +
                         "; a 2-d array is a column of vectors, of numbers");
  }
  const py::array arr = ReadableLayout(given);  // C order, aligned, native byte order
  const int64_t n = arr.shape(0), size = arr.shape(1);
  const bool half = kind == 'f' && arr.itemsize() == 2;  // float16: a vector's elements only
  const DataType type = Check(DataType::FixedList(half ? TypeId::kF16 : TypeOfDtype(arr.dtype()), size, validity.has_value()));
  BufferPtr buffer = Buffer::Borrow(arr.data(), n * size * arr.itemsize(), cols.hold_inputs ? PythonOwner(arr) : nullptr);
  if (!cols.hold_inputs) cols.keep.push_back(arr);
  return Check(FixedListArray::Make(type, n, std::move(buffer), validity.value_or(Validity::AllValid())));
}

ArrayPtr NumpyColumn(Columns& cols, const std::string& name, const py::array& given, std::optional<Validity> validity,
                     bool held = false);

// The first item of an object array that is not None (null when every item is).
PyObject* FirstItem(const py::array& arr) {
  const auto* base = static_cast<const char*>(arr.data());
  for (int64_t i = 0; i < arr.shape(0); ++i) {
    PyObject* item = *reinterpret_cast<PyObject* const*>(base + i * arr.strides(0));
    if (item != Py_None) return item;
  }
  return nullptr;
}

bool IsSequenceRow(PyObject* item) {
  return item != nullptr && (PyList_Check(item) || PyTuple_Check(item) || Py_TYPE(item) == NdarrayType() ||
                             PyObject_TypeCheck(item, NdarrayType()));
}

// Values numpy joined into one array (a list's elements, a struct's field) as a column: an object
// array of numbers with None among them is read as the numbers with those rows null (strings
// take None as null themselves; dicts are structs, sequences lists).
ArrayPtr ValuesColumn(Columns& cols, const std::string& name, py::array values) {
  std::optional<Validity> valid;
  PyObject* first = values.dtype().kind() == 'O' ? FirstItem(values) : nullptr;
  if (first != nullptr && !PyUnicode_Check(first) && !PyBytes_Check(first) && !PyDict_Check(first) &&
      !IsSequenceRow(first)) {
    const auto* items = static_cast<const char*>(values.data());
    py::list filled;
    std::vector<bool> present(static_cast<size_t>(values.shape(0)));
    for (int64_t j = 0; j < values.shape(0); ++j) {
      PyObject* x = *reinterpret_cast<PyObject* const*>(items + j * values.strides(0));
      present[static_cast<size_t>(j)] = x != Py_None;
      filled.append(x == Py_None ? py::handle(first) : py::handle(x));
    }
    values = py::module_::import("numpy").attr("asarray")(filled);
    BufferPtr bits = Check(AllocateBitmap(values.shape(0)));
    for (size_t j = 0; j < present.size(); ++j) kernels::SetBitTo(bits->mutable_data(), static_cast<int64_t>(j), present[j]);
    valid = Check(Validity::FromBitmap(std::move(bits), 0, values.shape(0)));
  }
  return NumpyColumn(cols, name, values, std::move(valid));
}

// An object array whose rows are dicts or None: a struct column, as pyarrow reads one — a field
// per key in the order first seen, a row's missing key a null field, a None row a null row; each
// field's values read as a column is (numpy's promotion gives its type).
ArrayPtr NumpyStructs(Columns& cols, const std::string& name, const py::array& arr, std::optional<Validity> validity) {
  const int64_t n = arr.shape(0);
  const auto* base = static_cast<const char*>(arr.data());
  std::vector<std::string> keys;
  std::vector<py::list> values;
  std::vector<bool> valid(static_cast<size_t>(n), true);
  bool null_rows = validity.has_value();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = *reinterpret_cast<PyObject* const*>(base + i * arr.strides(0));
    if (item == Py_None || (validity && !validity->IsValid(i))) {
      valid[static_cast<size_t>(i)] = false;
      null_rows = true;
      continue;
    }
    if (!PyDict_Check(item)) {
      throw py::type_error("rowjit: column '" + name + "' row " + std::to_string(i) + " holds " +
                           std::string(Py_TYPE(item)->tp_name) + " where a dict (a struct's row) is expected");
    }
    for (auto [key, value] : py::reinterpret_borrow<py::dict>(item)) {
      if (!PyUnicode_Check(key.ptr())) {
        throw py::type_error("rowjit: column '" + name + "' row " + std::to_string(i) + " has a key that is no str");
      }
      const std::string k = py::cast<std::string>(key);
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
        keys.push_back(k);
        values.emplace_back();
      }
    }
  }
  if (keys.empty()) throw py::type_error("rowjit: column '" + name + "' holds no dict with a key: a struct has a field or more");
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = *reinterpret_cast<PyObject* const*>(base + i * arr.strides(0));
    const bool row = valid[static_cast<size_t>(i)];
    for (size_t f = 0; f < keys.size(); ++f) {
      PyObject* v = row ? PyDict_GetItemString(item, keys[f].c_str()) : nullptr;  // borrowed
      values[f].append(v != nullptr ? py::handle(v) : py::none());
    }
  }
  py::module_ np = py::module_::import("numpy");
  std::vector<StructField> fields;
  std::vector<ArrayPtr> children;
  for (size_t f = 0; f < keys.size(); ++f) {
    // The values stored as objects (numpy's item assignment would read a list as a sequence).
    py::array column = np.attr("empty")(n, py::arg("dtype") = "object");
    auto** slots = static_cast<PyObject**>(column.mutable_data());
    for (int64_t i = 0; i < n; ++i) {
      PyObject* v = values[f][static_cast<size_t>(i)].ptr();
      Py_INCREF(v);
      Py_XDECREF(slots[i]);
      slots[i] = v;
    }
    if (PyObject* first = FirstItem(column); first != nullptr && !PyUnicode_Check(first) && !PyBytes_Check(first) &&
                                             !PyDict_Check(first) && !IsSequenceRow(first)) {
      column = np.attr("asarray")(values[f]);  // numbers: numpy's promotion (None makes it object)
    }
    ArrayPtr child = ValuesColumn(cols, name + "." + keys[f], column);
    child = Check(WithNullability(child, true));
    fields.push_back(StructField{keys[f], child->type()});
    children.push_back(std::move(child));
  }
  Validity rows = Validity::AllValid();
  if (null_rows) {
    BufferPtr bits = Check(AllocateBitmap(n));
    for (int64_t i = 0; i < n; ++i) kernels::SetBitTo(bits->mutable_data(), i, valid[static_cast<size_t>(i)]);
    rows = Check(Validity::FromBitmap(std::move(bits), 0, n));
  }
  const DataType type = Check(DataType::Struct(fields, null_rows));
  return Check(StructArray::Make(type, n, std::move(children), std::move(rows)));
}

// An object array whose rows are sequences (lists, tuples, 1-d arrays) or None: a list column. The
// rows' elements are joined into one numpy array (numpy's promotion gives their type: ints i64,
// any float f64, str utf8, bool) and read as a column is; a None element is a null element.
ArrayPtr NumpyLists(Columns& cols, const std::string& name, const py::array& arr, std::optional<Validity> validity) {
  py::module_ np = py::module_::import("numpy");
  const int64_t n = arr.shape(0);
  const auto* base = static_cast<const char*>(arr.data());
  std::vector<int64_t> offsets{0};
  offsets.reserve(static_cast<size_t>(n) + 1);
  std::vector<bool> valid(static_cast<size_t>(n), true);
  bool null_rows = validity.has_value();
  py::list pieces;
  for (int64_t i = 0; i < n; ++i) {
    PyObject* item = *reinterpret_cast<PyObject* const*>(base + i * arr.strides(0));
    if (item == Py_None || (validity && !validity->IsValid(i))) {
      valid[static_cast<size_t>(i)] = false;
      null_rows = true;
      offsets.push_back(offsets.back());
      continue;
    }
    if (!IsSequenceRow(item)) {
      throw py::type_error("rowjit: column '" + name + "' row " + std::to_string(i) + " holds " +
                           std::string(Py_TYPE(item)->tp_name) + " where a list (a sequence or a 1-d array) is expected");
    }
    const std::string where = "rowjit: column '" + name + "' row " + std::to_string(i);
    py::array row;
    try {
      row = np.attr("asarray")(py::handle(item));
    } catch (py::error_already_set&) {  // numpy's ragged nesting
      throw py::type_error(where + " is a list of lists: lists of lists come through Arrow (__arrow_c_array__)");
    }
    if (row.dtype().kind() == 'O' && row.ndim() == 1 && row.shape(0) > 0 && IsSequenceRow(FirstItem(row))) {
      throw py::type_error(where + " is a list of lists: lists of lists come through Arrow (__arrow_c_array__)");
    }
    if (row.ndim() != 1) throw py::type_error(where + " is a " + std::to_string(row.ndim()) + "-d array; a list's row is 1-d");
    offsets.push_back(offsets.back() + row.shape(0));
    pieces.append(row);
  }
  py::array elements = pieces.empty() ? py::array(np.attr("empty")(0, py::arg("dtype") = "float64"))
                                      : py::array(np.attr("concatenate")(pieces));
  ArrayPtr child = ValuesColumn(cols, name, elements);
  const bool large = offsets.back() > INT32_MAX;
  const int64_t width = large ? 8 : 4;
  BufferPtr offset_buffer = Check(Buffer::Allocate(static_cast<int64_t>(offsets.size()) * width));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (large) {
      reinterpret_cast<int64_t*>(offset_buffer->mutable_data())[i] = offsets[i];
    } else {
      reinterpret_cast<int32_t*>(offset_buffer->mutable_data())[i] = static_cast<int32_t>(offsets[i]);
    }
  }
  Validity rows = Validity::AllValid();
  if (null_rows) {
    BufferPtr bits = Check(AllocateBitmap(n));
    for (int64_t i = 0; i < n; ++i) kernels::SetBitTo(bits->mutable_data(), i, valid[static_cast<size_t>(i)]);
    rows = Check(Validity::FromBitmap(std::move(bits), 0, n));
  }
  const DataType type = Check(DataType::List(child->type(), null_rows));
  return Check(ListArray::Make(type, n, large, std::move(offset_buffer), std::move(child), std::move(rows)));
}

ArrayPtr NumpyColumn(Columns& cols, const std::string& name, const py::array& given, std::optional<Validity> validity,
                     bool held) {
  if (given.ndim() == 2) return NumpyVectors(cols, name, given, std::move(validity));
  if (given.ndim() != 1) {
    throw py::value_error("rowjit: column '" + name + "' is a " + std::to_string(given.ndim()) +
                          "-d array: a column is 1-d (2-d: a column of vectors)");
  }
  if (given.dtype().kind() == 'O' && IsSequenceRow(FirstItem(given))) return NumpyLists(cols, name, given, std::move(validity));
  if (given.dtype().kind() == 'O' && FirstItem(given) != nullptr && PyDict_Check(FirstItem(given))) {
    return NumpyStructs(cols, name, given, std::move(validity));
  }
  if (const char kind = given.dtype().kind(); kind == 'U' || kind == 'S' || kind == 'O') {
    return NumpyStrings(name, given, std::move(validity));
  }
  const char kind = given.dtype().kind();
  const bool temporal = kind == 'M' || kind == 'm';
  const DataType logical = kind == 'V'  ? TypeOfIntervalDtype(given.dtype())
                           : temporal ? TypeOfTemporalDtype(given.dtype())
                                      : DataType(TypeOfDtype(given.dtype()));
  const TypeId id = logical.id;
  const py::array arr = ReadableLayout(given);
  const int64_t n = arr.shape(0);
  const bool nullable = validity.has_value();
  // Within a call the array is held in `keep` and borrowed without an owner; arrays that outlive
  // the call (rowjit.array) own a reference to it.
  BufferPtr buffer = Buffer::Borrow(arr.data(), n * arr.itemsize(), cols.hold_inputs ? PythonOwner(arr) : nullptr);
  if (!cols.hold_inputs && (!held || arr.ptr() != given.ptr())) cols.keep.push_back(arr);
  Validity v = validity.value_or(Validity::AllValid());
  if (id == TypeId::kBool) return Check(ByteBoolArray::Make(n, std::move(buffer), std::move(v), 0, nullable));
  if (logical.logical == LogicalKind::kDate) return DateColumn(name, n, *buffer, std::move(v), nullable);
  if (temporal) return TemporalColumn(logical, n, std::move(buffer), std::move(v), nullable);
  return Check(PrimitiveArray::Make(logical.WithNullable(nullable), n, std::move(buffer), std::move(v)));
}

}  // namespace

// --- shared --------------------------------------------------------------------------------------

std::string TypeName(py::handle o) {
  const PyTypeObject* t = Py_TYPE(o.ptr());
  return t->tp_name != nullptr ? t->tp_name : "an unnamed type";
}

// A str's UTF-8 could not be made (the error is pending): a lone surrogate is a ValueError whose
// cause is the UnicodeEncodeError; another error (MemoryError) is raised as it is.
[[noreturn]] void RaiseNotText(std::string_view what) {
  py::error_already_set cause;  // fetches the pending error
  if (!cause.matches(PyExc_UnicodeEncodeError)) throw cause;
  const std::string why = py::str(cause.value()).cast<std::string>();
  py::raise_from(cause, PyExc_ValueError, fmt::format("rowjit: {} is not valid text: {}", what, why).c_str());
  throw py::error_already_set();
}

std::string_view Utf8Of(py::handle o, std::string_view what) {
  if (!PyUnicode_Check(o.ptr())) throw py::type_error(fmt::format("rowjit: {} must be a str, not {}", what, TypeName(o)));
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(o.ptr(), &size);
  if (data == nullptr) RaiseNotText(what);
  return {data, static_cast<size_t>(size)};
}

bool BoolOf(py::handle o, std::string_view what) {
  if (o.ptr() == Py_True || o.ptr() == Py_False) return o.ptr() == Py_True;
  if (py::isinstance(o, py::module_::import("numpy").attr("bool_"))) return PyObject_IsTrue(o.ptr()) == 1;
  throw py::type_error(fmt::format("rowjit: {} must be True or False, not {}", what, TypeName(o)));
}

int64_t IntOf(py::handle o, std::string_view what, int64_t lo, int64_t hi) {
  if (!PyIndex_Check(o.ptr())) throw py::type_error(fmt::format("rowjit: {} must be an int, not {}", what, TypeName(o)));
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(o.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || v < lo || v > hi) {
    throw py::value_error(fmt::format("rowjit: {} must be from {} to {}, not {}", what, lo, hi,
                                      py::str(index).cast<std::string>()));
  }
  return v;
}

void SetErrorType(py::object type) { Globals().error = std::move(type); }

bool IsMaskedArray(py::handle o) { return py::isinstance(o, Globals().masked_array); }

namespace {

// `bytes` as a str; a message may quote a row's bytes: invalid UTF-8 is replaced, never a
// decoding error.
py::object Decoded(std::string_view bytes) {
  py::object s = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "backslashreplace"));
  if (!s) throw py::error_already_set();
  return s;
}

// Characters (code points, as a str counts them) in UTF-8 `bytes`.
int64_t CodePoints(std::string_view bytes) {
  return std::count_if(bytes.begin(), bytes.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// rowjit.Error(message, kind, row, function, partition=None, span, text).
[[noreturn]] void RaiseWith(const Error& e, const std::string& message, py::object span, py::object text) {
  py::object row = e.row() ? py::object(py::int_(*e.row())) : py::object(py::none());
  py::object function = e.row() ? py::object(py::str(e.function())) : py::object(py::none());
  py::object args = py::make_tuple(Decoded(message), std::string(ErrorCodeName(e.code())), row, function, py::none(),
                                   std::move(span), std::move(text));
  PyErr_SetObject(Globals().error.ptr(), args.ptr());
  throw py::error_already_set();
}

}  // namespace

[[noreturn]] void Raise(const Error& e) { RaiseWith(e, e.ToString(), py::none(), py::none()); }

[[noreturn]] void RaiseAbout(const Error& e, std::string_view text) {
  if (!e.span() || e.span()->offset > text.size()) Raise(e);
  const size_t offset = e.span()->offset, length = std::min(e.span()->length, text.size() - offset);
  py::object span = py::make_tuple(CodePoints(text.substr(0, offset)), CodePoints(text.substr(offset, length)));
  RaiseWith(e, FormatError(text, e), std::move(span), Decoded(text));
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

// Intervals as numpy structured values laid out as Arrow's: interval_months a months field,
// interval_day_time days and milliseconds, interval_month_day_nano months, days and nanoseconds.
py::dtype IntervalDtype(IntervalUnit unit) {
  py::list fields;
  auto field = [&](const char* name, const char* type) { fields.append(py::make_tuple(name, type)); };
  if (unit != IntervalUnit::kDayTime) field("months", "<i4");
  if (unit != IntervalUnit::kMonths) field("days", "<i4");
  if (unit == IntervalUnit::kDayTime) field("milliseconds", "<i4");
  if (unit == IntervalUnit::kMonthDayNano) field("nanoseconds", "<i8");
  return py::dtype::from_args(fields);
}

bool IsIntervalValues(const DataType& type) { return type.logical == LogicalKind::kInterval; }

// date32: numpy's dates are 8 bytes, so its values are copied wider (ToNumpy); none other is.
bool IsWidened(const DataType& type) { return type.logical == LogicalKind::kDate && type.id == TypeId::kI32; }

py::dtype DtypeOf(const DataType& type) {
  if (IsIntervalValues(type)) return IntervalDtype(static_cast<IntervalUnit>(type.unit));
  if (type.logical == LogicalKind::kDate) return py::dtype(type.id == TypeId::kI32 ? "datetime64[D]" : "datetime64[ms]");
  const bool timestamp = type.logical == LogicalKind::kTimestamp, duration = type.logical == LogicalKind::kDuration;
  if (timestamp || duration) {
    return py::dtype(fmt::format("{}[{}]", timestamp ? "datetime64" : "timedelta64", TimeUnitName(type.time_unit())));
  }
  return VisitType(type.id, []<typename T>(std::type_identity<T>) { return py::dtype::of<T>(); });
}

DataType TypeOfIntervalDtype(const py::dtype& dt) {
  for (IntervalUnit unit : {IntervalUnit::kMonths, IntervalUnit::kDayTime, IntervalUnit::kMonthDayNano}) {
    if (dt.equal(IntervalDtype(unit))) return DataType::Interval(unit);
  }
  throw py::type_error("rowjit: unsupported dtype " + py::str(static_cast<const py::handle&>(dt)).cast<std::string>() +
                       " (structured columns are intervals: rowjit.interval_dtype('month_day_nano'), 'day_time' or "
                       "'months')");
}

DataType TypeOfTemporalDtype(const py::dtype& dt) {
  // "<M8[us]": datetime64 -> timestamp(us) (no zone: numpy's are local), timedelta64 -> duration.
  const std::string text = py::str(dt.attr("str")).cast<std::string>();
  const size_t open = text.find('['), close = text.find(']');
  const std::string unit = open == std::string::npos || close == std::string::npos ? "" : text.substr(open + 1, close - open - 1);
  if (dt.kind() == 'M' && unit == "D") return *DataType::Temporal(LogicalKind::kDate, TimeUnit::kDay);  // date32
  for (TimeUnit u : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    if (unit == TimeUnitName(u)) return *DataType::Temporal(dt.kind() == 'M' ? LogicalKind::kTimestamp : LogicalKind::kDuration, u);
  }
  throw py::type_error("rowjit: " + py::str(static_cast<const py::handle&>(dt)).cast<std::string>() +
                       ": datetime64 is taken in D (date32), s, ms, us or ns, timedelta64 in s, ms, us or ns");
}

// A Python list numpy makes no array of (rows of different lengths: a list column), as an object
// array of its rows; null when it is not that.
py::array RaggedRows(py::handle value) {
  const auto list = py::reinterpret_borrow<py::list>(value);
  bool rows = list.size() > 0;
  for (py::handle item : list) rows = rows && (item.is_none() || IsSequenceRow(item.ptr()));
  if (!rows) return py::array();
  py::array out = py::module_::import("numpy").attr("empty")(list.size(), py::arg("dtype") = "object");
  for (size_t i = 0; i < list.size(); ++i) out.attr("__setitem__")(i, list[i]);
  return out;
}

void AddColumn(Columns& cols, const std::string& name, py::handle value, py::handle valid) {
  Types& g = Globals();
  const bool has_valid = valid && !valid.is_none();
  if (Py_TYPE(value.ptr()) == NdarrayType()) {  // the common case first: a plain numpy array
    std::optional<Validity> v;
    const auto arr = py::reinterpret_borrow<py::array>(value);
    if (has_valid) v = ValidityOfMask(name, valid, arr.ndim() == 1 || arr.ndim() == 2 ? arr.shape(0) : -1, false);
    Append(cols, name, NumpyColumn(cols, name, arr, std::move(v), true));
    return;
  }
  if (py::isinstance(value, g.masked_array)) {
    if (has_valid) throw py::value_error("rowjit: column '" + name + "' is a masked array and has a valid= mask");
    auto data = py::array::ensure(value.attr("data"));
    if (data && data.ndim() == 2) {
      throw py::type_error("rowjit: column '" + name + "' is a masked 2-d array: a vector's elements are not null; "
                           "make whole rows null with valid={'" + name + "': rows}");
    }
    py::object mask = g.getmask(value);
    if (!mask.is(g.nomask) && !mask.attr("dtype").attr("names").is_none()) {
      // A structured column (intervals) masks each field: a row is null where any field is.
      mask = py::module_::import("numpy.lib.recfunctions").attr("structured_to_unstructured")(mask).attr("any")(py::arg("axis") = 1);
    }
    std::optional<Validity> v = Validity::AllValid();  // nullable even without a masked row
    if (!mask.is(g.nomask)) v = ValidityOfMask(name, mask, data.ndim() == 1 || data.ndim() == 2 ? data.shape(0) : -1, true);
    Append(cols, name, NumpyColumn(cols, name, data, std::move(v)));
    return;
  }
  if (py::isinstance<py::array>(value) || !SpeaksArrow(value)) {  // ndarray subclasses, lists
    auto arr = py::array::ensure(value);
    if (!arr && PyErr_Occurred() == nullptr && PyList_Check(value.ptr())) arr = RaggedRows(value);
    if (!arr || (arr.ndim() == 0 && !py::isinstance<py::array>(value))) {  // numpy makes a 0-d array of a scalar
      throw py::type_error("rowjit: column '" + name + "' must be an array or an Arrow array, not " + TypeName(value));
    }
    std::optional<Validity> v;
    if (has_valid) v = ValidityOfMask(name, valid, arr.ndim() == 1 || arr.ndim() == 2 ? arr.shape(0) : -1, false);
    Append(cols, name, NumpyColumn(cols, name, arr, std::move(v)));
    return;
  }
  if (has_valid) throw py::value_error("rowjit: valid= applies to numpy columns; '" + name + "' is an Arrow array");
  cols.arrow = true;
  if (py::isinstance<PyArrowArray>(value)) {  // ours: no export and import round trip
    Append(cols, name, value.cast<const PyArrowArray&>().array);
    return;
  }
  Append(cols, name, ImportArrowArray(value));
}

void AddBatch(Columns& cols, py::handle batch, const py::dict& valid) {
  if (py::isinstance<py::dict>(batch)) {
    for (auto item : batch.cast<py::dict>()) {
      if (!PyUnicode_Check(item.first.ptr())) {
        throw py::type_error("rowjit: a batch dict's keys are column names, which must be str, not " + TypeName(item.first));
      }
      const std::string name = TextOf(item.first, "a column name");
      py::object v = valid.contains(item.first) ? py::object(valid[item.first]) : py::object(py::none());
      AddColumn(cols, name, item.second, v);
    }
    return;
  }
  if (!valid.empty()) throw py::value_error("rowjit: valid= applies to numpy columns, not to an Arrow batch");
  if (!py::isinstance<PyBatch>(batch) && !SpeaksArrow(batch)) {
    throw py::type_error("rowjit: a batch is a dict of columns or an Arrow record batch (__arrow_c_array__)");
  }
  cols.arrow = true;
  const RecordBatch b = py::isinstance<PyBatch>(batch) ? batch.cast<const PyBatch&>().batch : ImportArrowBatch(batch);
  for (size_t i = 0; i < b.columns.size(); ++i) Append(cols, b.schema.fields[i].name, b.columns[i]);
  if (b.columns.empty()) cols.length = std::max<int64_t>(cols.length, b.length);
}

// --- out -------------------------------------------------------------------------------------

namespace {

// A flat array's values as a numpy array over the same memory; the capsule base keeps the
// rowjit array alive.
py::array FlatView(const PrimitiveArray& flat, const ArrayPtr& owner, bool writable) {
  py::capsule base(new ArrayPtr(owner), [](void* p) { delete static_cast<ArrayPtr*>(p); });
  const py::ssize_t width = ByteWidth(flat.type().id);
  py::array view(IsWidened(flat.type()) ? py::dtype::of<int32_t>() : DtypeOf(flat.type()),
                 {static_cast<py::ssize_t>(flat.length())}, {width},
                 flat.raw_values(), base);
  if (!writable) py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return view;
}

// 16-byte values (decimal128; numpy has no such integer): an object array of Python ints at
// scale 0 and decimal.Decimal values otherwise, as exact wide sums are returned; None where null.
py::array SixteenByteObjects(const Array& a) {
  py::array out(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(a.length())});
  auto* o = static_cast<PyObject**>(out.mutable_data());
  const bool decimal = a.type().logical == LogicalKind::kDecimal && a.type().scale > 0;
  py::object make = decimal ? py::module_::import("decimal").attr("Decimal") : py::module_::import("builtins").attr("int");
  for (int64_t i = 0; i < a.length(); ++i) {
    const Scalar s = a.GetScalar(i);
    py::object item = s.is_null() ? py::object(py::none())
                                  : make(decimal ? DecimalText(s.int128(), s.type().scale) : Int128Text(s.int128()));
    Py_XDECREF(o[i]);
    o[i] = item.release().ptr();
  }
  return out;
}

// Any other encoding (constant, dictionary, byte bools), row by row: a copy.
py::array RowByRow(const Array& a) {
  if (a.type().id == TypeId::kI128 && IsIntervalValues(a.type())) {  // the storage's bytes, zeros where null
    py::array out(DtypeOf(a.type()), std::vector<py::ssize_t>{static_cast<py::ssize_t>(a.length())});
    auto* o = static_cast<uint8_t*>(out.mutable_data());
    for (int64_t i = 0; i < a.length(); ++i) {
      const Scalar s = a.GetScalar(i);
      const __int128 v = s.is_null() ? 0 : s.int128();
      std::memcpy(o + i * 16, &v, 16);
    }
    return out;
  }
  if (a.type().id == TypeId::kI128) return SixteenByteObjects(a);
  if (IsString(a.type().id)) {  // an object array: str for utf8, bytes for binary, None for null
    py::array out(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(a.length())});
    auto* o = static_cast<PyObject**>(out.mutable_data());
    for (int64_t i = 0; i < a.length(); ++i) {
      const std::optional<std::string_view> v = StringAt(a, i);
      py::object item = !v ? py::object(py::none())
                        : a.type().id == TypeId::kUtf8
                            ? py::object(py::reinterpret_steal<py::object>(
                                  PyUnicode_DecodeUTF8(v->data(), static_cast<Py_ssize_t>(v->size()), "surrogateescape")))
                            : py::object(py::bytes(v->data(), v->size()));
      if (!item) throw py::error_already_set();
      Py_XDECREF(o[i]);
      o[i] = item.release().ptr();
    }
    return out;
  }
  py::array out = VisitType(a.type().id, [&]<typename T>(std::type_identity<T>) -> py::array {
    py::array_t<T> values(a.length());
    T* o = values.mutable_data();
    for (int64_t i = 0; i < a.length(); ++i) {
      const Scalar s = a.GetScalar(i);
      o[i] = s.is_null() ? T{} : s.value<T>();
    }
    return values;
  });
  return a.type().is_logical() && !IsWidened(a.type()) ? py::array(out.attr("view")(DtypeOf(a.type()))) : out;
}

}  // namespace

void UnpackBools(kernels::BitSpan bits, bool invert, uint8_t* bytes) {
  kernels::UnpackBits(bits, bytes);  // 0xff or 0
  const uint8_t flip = invert ? 1 : 0;
  for (int64_t i = 0; i < bits.length; ++i) bytes[i] = static_cast<uint8_t>((bytes[i] & 1) ^ flip);
}

py::array_t<bool> BoolsOfBits(kernels::BitSpan bits, bool invert) {
  py::array_t<bool> out(bits.length);
  UnpackBools(bits, invert, reinterpret_cast<uint8_t*>(out.mutable_data()));
  return out;
}

py::object Masked(py::object values, const Validity& validity, int64_t n) {
  py::object mask = validity.all_null() ? py::object(py::array_t<bool>(n)) : BoolsOfBits(validity.Span(n), true);
  if (validity.all_null()) mask.attr("fill")(true);
  return Globals().masked_array(values, py::arg("mask") = mask);
}

// Vectors as a 2-d numpy array (rows x N) over the same memory; null rows masked whole. numpy has
// no bfloat16: bf16 vectors come back as float32 ones (widened exactly, a copy).
py::object VectorsToNumpy(const ArrayPtr& array, bool writable) {
  const auto& l = static_cast<const FixedListArray&>(*array);
  py::capsule base(new ArrayPtr(array), [](void* p) { delete static_cast<ArrayPtr*>(p); });
  const py::ssize_t width = ByteWidth(l.type().elem), size = l.list_size();
  py::array view;
  if (l.type().elem == TypeId::kBF16) {
    py::array_t<float> wide({static_cast<py::ssize_t>(l.length()), size});
    float* to = wide.mutable_data();
    const auto* from = reinterpret_cast<const uint16_t*>(l.raw_values());
    for (py::ssize_t k = 0; k < static_cast<py::ssize_t>(l.length()) * size; ++k) to[k] = FloatOfBf16(from[k]);
    view = wide;
  } else {
    const py::dtype dtype = l.type().elem == TypeId::kF16 ? py::dtype("float16") : DtypeOf(DataType(l.type().elem));
    view = py::array(dtype, {static_cast<py::ssize_t>(l.length()), size}, {size * width, width}, l.raw_values(), base);
  }
  if (!writable) py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  if (l.NullCount() == 0) return view;
  py::object rows = BoolsOfBits(l.validity().Span(l.length()), true);
  py::object mask = py::module_::import("numpy").attr("repeat")(rows.attr("reshape")(-1, 1), size, py::arg("axis") = 1);
  return Globals().masked_array(view, py::arg("mask") = mask);
}

py::object ToNumpy(const ArrayPtr& array, bool writable) {
  const Array& a = *array;
  if (a.encoding() == Encoding::kFixedList) return VectorsToNumpy(array, writable);
  if (a.encoding() == Encoding::kStruct) {  // an object array: each row a dict of its fields, None where null
    const auto& st = static_cast<const StructArray&>(a);
    std::vector<py::list> fields;
    for (const ArrayPtr& c : st.children()) fields.push_back(ToNumpy(c, false).attr("tolist")());  // None where null
    py::array out = py::module_::import("numpy").attr("empty")(st.length(), py::arg("dtype") = "object");
    const std::vector<StructField>& names = StructFields(st.type());
    for (int64_t i = 0; i < st.length(); ++i) {
      if (st.IsNull(i)) continue;
      py::dict row;
      for (size_t f = 0; f < fields.size(); ++f) row[py::str(names[f].name)] = fields[f][static_cast<size_t>(i)];
      out.attr("__setitem__")(i, row);
    }
    return out;
  }
  if (a.encoding() == Encoding::kList && a.type().id == TypeId::kMap) {  // each row a dict of its entries
    const auto& m = static_cast<const ListArray&>(a);
    const auto& entries = static_cast<const StructArray&>(*m.elements());
    py::list keys = ToNumpy(entries.children()[0], false).attr("tolist")();
    py::list values = ToNumpy(entries.children()[1], false).attr("tolist")();
    py::array out = py::module_::import("numpy").attr("empty")(m.length(), py::arg("dtype") = "object");
    for (int64_t i = 0; i < m.length(); ++i) {
      if (m.IsNull(i)) continue;
      py::dict row;
      for (int64_t j = m.Start(i); j < m.End(i); ++j) {
        py::object key = keys[static_cast<size_t>(j)];
        if (!row.contains(key)) row[key] = values[static_cast<size_t>(j)];  // m[k] reads the first of equal keys
      }
      out.attr("__setitem__")(i, row);
    }
    return out;
  }
  if (a.encoding() == Encoding::kList) {  // an object array: each row its elements' array (a view), None where null
    const auto& l = static_cast<const ListArray&>(a);
    py::object elements = ToNumpy(l.elements(), writable);
    py::array out = py::module_::import("numpy").attr("empty")(l.length(), py::arg("dtype") = "object");
    for (int64_t i = 0; i < l.length(); ++i) {
      if (l.IsNull(i)) continue;  // numpy.empty's object array holds None
      py::slice rows(static_cast<py::ssize_t>(l.Start(i)), static_cast<py::ssize_t>(l.End(i)), 1);
      out.attr("__setitem__")(i, elements[rows]);
    }
    return out;
  }
  py::object values;
  if (a.encoding() == Encoding::kPrimitive && (a.type().id != TypeId::kI128 || IsIntervalValues(a.type()))) {
    values = FlatView(static_cast<const PrimitiveArray&>(a), array, writable);
  } else if (a.encoding() == Encoding::kBool) {
    values = BoolsOfBits(static_cast<const BoolArray&>(a).bits(), false);
  } else {
    values = RowByRow(a);
  }
  if (IsWidened(a.type())) values = values.attr("astype")(DtypeOf(a.type()));  // a copy
  if (a.NullCount() == 0) return values;
  return Masked(std::move(values), ValidityOf(a), a.length());
}

py::object WrapArray(ArrayPtr array) { return py::cast(PyArrowArray{std::move(array)}); }

namespace {

// A decimal constant (unscaled int, precision, scale): decimal64 storage up to 18 digits,
// 16 bytes past that.
Scalar DecimalScalar(py::handle spec) {
  const auto t = py::reinterpret_borrow<py::tuple>(spec);
  const int precision = static_cast<int>(IntOf(t[1], "a decimal's precision", 1, 38));
  const int scale = static_cast<int>(IntOf(t[2], "a decimal's scale", 0, precision));
  const bool wide = precision > 18;
  const DataType type = Check(DataType::Decimal(precision, scale, wide ? TypeId::kI128 : TypeId::kI64));
  py::object unscaled = t[0];
  const uint64_t lo = PyLong_AsUnsignedLongLongMask(unscaled.ptr());
  py::object high = unscaled.attr("__rshift__")(64);
  const long long hi = PyLong_AsLongLong(high.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  if (!wide) return Scalar::FromBits(TypeId::kI64, lo).As(type);
  const auto v = static_cast<__int128>((static_cast<unsigned __int128>(static_cast<uint64_t>(hi)) << 64) | lo);
  return Scalar::Int128(v, type);
}

// A constant's value: row 0 of a one-row numpy array (its dtype decides the type), or a decimal.
Scalar ConstantScalar(const std::string& name, py::handle value) {
  if (PyTuple_Check(value.ptr())) return DecimalScalar(value);
  Columns one;
  AddColumn(one, name, value, py::none());
  if (one.length != 1) throw py::value_error("rowjit: constant '" + name + "' is not one value");
  const TypeId t = one.arrays[0]->type().id;
  if (IsNested(t)) {
    throw py::type_error("rowjit: constant '" + name + "' is a " + one.arrays[0]->type().ToString() +
                         ": a nested value is a column, not a constant");
  }
  return one.arrays[0]->GetScalar(0);
}

py::dict DictArg(py::handle value, const char* what) {
  if (value.is_none()) return py::dict();
  if (!PyDict_Check(value.ptr())) {
    throw py::type_error(std::string("rowjit: ") + what + " must be a dict of column name -> " +
                         (std::string_view(what) == "valid=" ? "bool array" : "column") + ", not " + TypeName(value));
  }
  return py::reinterpret_borrow<py::dict>(value);
}

}  // namespace

Columns ReadColumns(py::handle batch, py::handle columns, py::handle constants, py::handle valid_arg, bool hold_inputs) {
  Columns cols;
  cols.hold_inputs = hold_inputs;
  const py::dict valid = DictArg(valid_arg, "valid=");
  const py::dict named = DictArg(columns, "the columns");
  const py::dict fixed = DictArg(constants, "the constants");
  for (auto item : valid) {
    if (!PyUnicode_Check(item.first.ptr())) {
      throw py::type_error("rowjit: valid= keys are column names, which must be str, not " + TypeName(item.first));
    }
  }
  const size_t count = named.size() + fixed.size();
  cols.key.reserve(16 * count);
  cols.arrays.reserve(count);
  cols.keep.reserve(count);
  cols.schema.fields.reserve(count);
  if (!batch.is_none()) AddBatch(cols, batch, valid);
  const bool has_valid = !valid.empty();
  for (auto item : named) {
    const std::string name = TextOf(item.first, "a column name");
    PyObject* v = has_valid ? PyDict_GetItemWithError(valid.ptr(), item.first.ptr()) : nullptr;
    if (v == nullptr && PyErr_Occurred()) throw py::error_already_set();
    AddColumn(cols, name, item.second, v != nullptr ? py::handle(v) : py::handle(Py_None));
  }
  if (!fixed.empty() && cols.length < 0) cols.length = 1;  // scalars alone: one row
  for (auto item : fixed) {
    const std::string name = TextOf(item.first, "a column name");
    Append(cols, name, Check(ConstantArray::Make(ConstantScalar(name, item.second), cols.length)));
  }
  for (auto item : valid) {
    const std::string k = TextOf(item.first, "a column name");
    const int index = cols.schema.FieldIndex(k);
    if (index < 0) throw py::value_error("rowjit: valid= names '" + k + "', which is not a column");
    if (cols.arrays[static_cast<size_t>(index)]->encoding() == Encoding::kConstant) {
      throw py::value_error("rowjit: valid= names '" + k + "', which is a scalar (pass None for a null)");
    }
  }
  if (cols.length < 0) cols.length = 0;
  return cols;
}

namespace {

std::string TypeText(const DataType& t) {
  if (IsNested(t.id)) {
    return t.ToString();  // their parts are the type
  }
  return std::string(TypeIdName(t.id)) + (t.nullable ? "?" : "");
}

PyArrowArray MakeArray(py::handle values, py::handle valid) {
  Columns cols;
  cols.hold_inputs = true;
  AddColumn(cols, "values", values, valid);
  return PyArrowArray{cols.arrays[0]};
}

PyBatch MakeBatch(py::handle batch, py::handle columns, py::handle valid) {
  Columns cols = ReadColumns(batch, columns, py::none(), valid, true);
  return PyBatch{Check(RecordBatch::Make(std::move(cols.schema), std::move(cols.arrays)))};
}

// A column by name (str) or by position (an int, negative from the end).
py::object BatchColumn(const PyBatch& b, py::handle key) {
  int64_t i = -1;
  const auto size = static_cast<int64_t>(b.batch.columns.size());
  if (py::isinstance<py::str>(key)) {
    const std::string name = TextOf(key, "a column name");
    i = b.batch.schema.FieldIndex(name);
    if (i < 0) throw py::key_error("rowjit: no column '" + name + "'");
  } else {
    if (!PyIndex_Check(key.ptr())) {
      throw py::type_error("rowjit: a column is named by a str or numbered by an int, not " + TypeName(key));
    }
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(key.ptr()));
    if (!index) throw py::error_already_set();
    int overflow = 0;
    i = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (i == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow != 0) i = overflow < 0 ? INT64_MIN : INT64_MAX;  // out of range either way
    if (i < 0 && i >= -size) i += size;
    if (i < 0 || i >= size) throw py::index_error("rowjit: no column " + py::str(key).cast<std::string>() + " in a batch of " +
                                                  std::to_string(size));
  }
  return WrapArray(b.batch.columns[static_cast<size_t>(i)]);
}

void DefineArrayClass(py::module_& m) {
  py::class_<PyArrowArray>(m, "Array",
                           "A rowjit array (immutable). Arrow libraries take it through the PyCapsule "
                           "protocol (__arrow_c_array__); to_numpy() gives a numpy view.")
      .def("__len__", [](const PyArrowArray& a) { return a.array->length(); })
      .def_property_readonly("type", [](const PyArrowArray& a) { return TypeText(a.array->type()); })
      .def_property_readonly("null_count", [](const PyArrowArray& a) { return a.array->NullCount(); })
      .def("to_numpy", [](const PyArrowArray& a) { return ToNumpy(a.array, false); },
           "A read-only numpy view (flat values shared, bools unpacked), masked where null.")
      .def("__arrow_c_array__", [](const PyArrowArray& a, py::handle) { return ExportCapsules(&a.array, nullptr); },
           py::arg("requested_schema") = py::none(), "Arrow PyCapsules (schema, array); requested_schema is not applied.")
      .def("__arrow_c_schema__", [](const PyArrowArray& a) { return SchemaOnly(&a.array, nullptr); })
      .def("__repr__", [](const PyArrowArray& a) {
        return "rowjit.Array<" + TypeText(a.array->type()) + ">" + a.array->ToString(16);
      });
}

void DefineBatchClass(py::module_& m) {
  py::class_<PyBatch>(m, "RecordBatch",
                      "Named columns of one length (immutable); an Arrow struct array through "
                      "__arrow_c_array__.")
      .def("__len__", [](const PyBatch& b) { return b.batch.length; })
      .def_property_readonly("num_rows", [](const PyBatch& b) { return b.batch.length; })
      .def_property_readonly("schema", [](const PyBatch& b) { return b.batch.schema.ToString(); })
      .def_property_readonly("names", [](const PyBatch& b) {
        std::vector<std::string> names;
        for (const Field& f : b.batch.schema.fields) names.push_back(f.name);
        return names;
      })
      .def("column", &BatchColumn, py::arg("key"))
      .def("__getitem__", &BatchColumn)
      .def("to_numpy", [](const PyBatch& b) {
        py::dict out;
        for (size_t i = 0; i < b.batch.columns.size(); ++i) out[py::str(b.batch.schema.fields[i].name)] = ToNumpy(b.batch.columns[i], false);
        return out;
      }, "A dict of read-only numpy views, one per column.")
      .def("__arrow_c_array__", [](const PyBatch& b, py::handle) { return ExportCapsules(nullptr, &b.batch); },
           py::arg("requested_schema") = py::none())
      .def("__arrow_c_schema__", [](const PyBatch& b) { return SchemaOnly(nullptr, &b.batch); })
      .def("__repr__", [](const PyBatch& b) {
        return "rowjit.RecordBatch(" + std::to_string(b.batch.length) + " rows: " + b.batch.schema.ToString() + ")";
      });
}

}  // namespace

void DefineArrow(py::module_& m) {
  Types& g = Globals();
  py::module_ ma = py::module_::import("numpy.ma");
  g.masked_array = ma.attr("MaskedArray");
  g.nomask = ma.attr("nomask");
  g.getmask = ma.attr("getmask");
  DefineArrayClass(m);
  DefineBatchClass(m);
  // rowjit.array() and rowjit.record_batch() are rowjit/_api.py's (signatures, pandas inputs).
  m.def("_array", &MakeArray);
  m.def("_record_batch", &MakeBatch);
}

}  // namespace rowjit::python
