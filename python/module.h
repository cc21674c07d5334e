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
bool IsMaskedArray(py::handle o);    // a numpy.ma.MaskedArray
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
// Raises rowjit.Error for an error about `text` (an expression the caller wrote): when the error
// has a span in it, its message shows the span under the text (FormatError), .text is the text
// and .span (offset, length) counts characters of it, as Python indexes a str.
[[noreturn]] void RaiseAbout(const Error& e, std::string_view text);
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
  std::string key;     // names, types and nullability, and the null names: with the expression, the prepared-call key
  std::vector<std::string> nulls;  // names the caller gave as None: the expression's `null` there
  // When a name of the expression was found nowhere: the batch's columns it does not read (a
  // dict, unconverted), which the binder's message about that name then suggests from and lists.
  py::object others = py::none();
  bool arrow = false;  // a column came through the Arrow PyCapsule protocol
  bool hold_inputs = false;  // the arrays outlive the call: numpy memory is owned by reference
};

// The options of a call, as the Python layer (rowjit/_api.py) passes them checked or raw.
struct CallOptions {
  int threads = 0;                 // 0: chosen by the batch's length (ChooseThreads); else 1 to INT_MAX
  std::optional<bool> arrow;       // none: Arrow results when an input came through Arrow
  py::object out = py::none();     // a numpy array the result is written into
  bool masked = false;             // numpy results of a nullable type are masked arrays even without a null
};
// The columns of a call: `batch` (None, a dict of columns or an Arrow record batch), `columns`
// (a dict of name -> column), `constants` (a dict of name -> a one-row numpy array, or a decimal
// as (unscaled int, precision, scale)) repeated over the batch's length (one row when there is
// no column), `valid` (None or a dict of name -> bool array, true: valid). A name in valid= that
// is not a column is a ValueError.
Columns ReadColumns(py::handle batch, py::handle columns, py::handle constants, py::handle valid, bool hold_inputs);

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
