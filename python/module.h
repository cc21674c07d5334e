// The Python module's shared internals (python layer): error translation, numpy dtypes, the
// columns of one call (numpy arrays, masked arrays or Arrow PyCapsule objects read into rowjit
// arrays), and results handed back as numpy arrays or as rowjit.Array (Arrow PyCapsule producer).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/bitmap.h"
#include "runtime/array.h"

namespace rowjit::python {

namespace py = pybind11;

// Arguments converted with explicit checks, so that a wrong type is a TypeError and a wrong value
// a ValueError, each naming the argument (`what`: "threads=", "the expression", ...).
std::string TypeName(py::handle o);  // "int", "numpy.ndarray", ...
// A str's UTF-8, borrowed from the str (valid while it lives): TypeError for another type,
// ValueError (chained to the UnicodeEncodeError) for one holding a lone surrogate.
std::string_view Utf8Of(py::handle o, std::string_view what);
[[noreturn]] void RaiseNotText(std::string_view what);  // that ValueError, for the pending UnicodeEncodeError
inline std::string TextOf(py::handle o, std::string_view what) { return std::string(Utf8Of(o, what)); }
bool BoolOf(py::handle o, std::string_view what);  // True or False (numpy.bool_ too)
// An int (anything with __index__, as range() takes) from `lo` to `hi`.
int64_t IntOf(py::handle o, std::string_view what, int64_t lo, int64_t hi);

// Raises rowjit.Error (kind, row, function) for a rowjit error.
[[noreturn]] void Raise(const Error& e);
void SetErrorType(py::object type);

template <typename T>
T Check(Result<T> r) {
  if (!r.ok()) Raise(r.error());
  return std::move(r).value();
}
inline void Check(const Status& s) {
  if (!s.ok()) Raise(s.error());
}

TypeId TypeOfDtype(const py::dtype& dt);  // TypeError for a dtype rowjit has no type for
py::dtype DtypeOf(const DataType& type);  // datetime64/timedelta64 for timestamps and durations, intervals structured
DataType TypeOfTemporalDtype(const py::dtype& dt);  // datetime64[us] -> timestamp(us), timedelta64 -> duration
// Intervals as structured values laid out as Arrow's (months; days, milliseconds; months, days, nanoseconds).
py::dtype IntervalDtype(IntervalUnit unit);
// Whether a type's numpy values are wider than its storage (date32 as datetime64[D]): copied.
bool IsWidened(const DataType& type);
DataType TypeOfIntervalDtype(const py::dtype& dt);

// The columns of one call and the schema they make. Numpy inputs are read in place when
// C-contiguous and aligned (copied otherwise) and borrowed without an owner: `keep` holds them
// until the call returns, and no array made from them outlives the call.
struct Columns {
  Schema schema;
  std::vector<ArrayPtr> arrays;
  std::vector<py::object> keep;
  int64_t length = -1;
  std::string key;     // names, types and nullability: with the expression, the prepared-call key
  bool arrow = false;  // a column came through the Arrow PyCapsule protocol
  bool hold_inputs = false;  // the arrays outlive the call: numpy memory is owned by reference
};

// The keyword options of a call (those it takes: the rest of its keywords are columns).
enum CallOption : unsigned { kThreads = 1, kValid = 2, kEngine = 4, kArrow = 8, kOut = 16 };
struct CallOptions {
  int threads = 1;                 // from 1 to INT_MAX (checked); the call clamps it further
  py::object valid = py::none();   // None or a dict: column name (str) -> bool array (true: valid)
  py::object engine = py::none();  // None or a rowjit.Engine (checked by the call)
  std::optional<bool> arrow;       // none: Arrow results when an input came through Arrow
  py::object out = py::none();     // a numpy array the result is written into
};
// The columns of a call: args[first] (when present) is a batch, keywords are columns or, when
// `options` names them, options. Column names missing from valid= and options that are not
// columns are errors.
Columns ReadCall(const py::args& args, size_t first, const py::kwargs& kwargs, unsigned options, CallOptions& out,
                 bool hold_inputs);

// Adds a column: a numpy array, a numpy masked array (mask true: null), a rowjit.Array, or any
// object with __arrow_c_array__ (or __arrow_c_stream__ of one chunk); a sequence numpy makes a
// 1-d array of. `valid` (None or a bool array, true: valid) gives a numpy column's nulls. A
// scalar (numpy would make a 0-d array of it) is a TypeError, a 0-d or 2-d array a ValueError.
void AddColumn(Columns& cols, const std::string& name, py::handle value, py::handle valid);
// Adds every column of a batch: a dict of columns, a rowjit.RecordBatch, or any object whose
// __arrow_c_array__ is a struct array (a record batch).
void AddBatch(Columns& cols, py::handle batch, const py::dict& valid);

// A numpy view of a rowjit array (values shared when flat; bools unpacked; a masked array when
// it has nulls). `writable`: the numpy array may be written (results the caller owns alone).
py::object ToNumpy(const ArrayPtr& array, bool writable);
// Bits as numpy bools (0 or 1) in `bytes`, or in a new array; `invert`: their complement (a
// null mask from validity bits).
void UnpackBools(kernels::BitSpan bits, bool invert, uint8_t* bytes);
py::array_t<bool> BoolsOfBits(kernels::BitSpan bits, bool invert);
// `values` as a numpy masked array, masked where `validity` (of n rows) says null.
py::object Masked(py::object values, const Validity& validity, int64_t n);
// A rowjit.Array holding `array` (exported through __arrow_c_array__).
py::object WrapArray(ArrayPtr array);

// rowjit.Array, rowjit.RecordBatch, rowjit.array(), rowjit.record_batch().
void DefineArrow(py::module_& m);

}  // namespace rowjit::python
