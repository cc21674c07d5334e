"""rowjit: JIT-compiled row expressions over numpy arrays and Arrow arrays.

    import numpy as np, rowjit
    a = np.arange(1_000_000, dtype=np.int32); b = np.full_like(a, 3); c = np.ones_like(a)
    rowjit.evaluate("a * b + c", a=a, b=b, c=c)          # numpy array (masked where null)
    rowjit.filter("a * b > 10", a=a, b=b)                 # uint32 row indices
    rowjit.project(["a * b", "a * b + c"], a=a, b=b, c=c)
    rowjit.aggregate("sum(a * b)", a=a, b=b)              # a Python number (None when null)

Columns are numpy arrays, numpy masked arrays (mask True: null), or any Arrow array through the
PyCapsule protocol (__arrow_c_array__, or __arrow_c_stream__ of one chunk: pyarrow, polars,
rowjit.Array). A batch may come as one positional argument after the expression: a dict of
columns, or an Arrow record batch. Nulls of numpy columns can also come as valid={"a": mask}
(True: valid). Results are numpy arrays (masked where null) or, when an input came through
Arrow or arrow=True is passed, rowjit.Array objects that Arrow libraries take without a copy.
Errors raise rowjit.Error with .kind, .row and .function; an argument of a wrong type raises
TypeError, one of a wrong value (a count out of range, a lone surrogate in an expression, a shape
or length) ValueError. A column named like an option of the
call (threads, valid, arrow, engine) goes in the batch dict: rowjit.evaluate("valid + 1", {"valid": v}).
"""
from . import _rowjit

__all__ = ["Array", "Engine", "Error", "RecordBatch", "aggregate", "array", "default_cache_dir", "default_engine", "evaluate",
           "filter", "interval_dtype", "project", "record_batch"]


class Error(Exception):
    """A rowjit error: .kind ("overflow", "division by zero", "invalid input", ...), .row (the
    first failing row, or None), .function (the failing function of a row error, or None) and
    .partition (the partition of a rowjit.dask computation, or None)."""

    def __init__(self, message, kind, row, function, partition=None):
        super().__init__(message)
        self.kind = kind
        self.row = row
        self.function = function
        self.partition = partition

    def __reduce__(self):  # picklable, so that errors cross Dask's process boundaries intact
        return (type(self), (str(self), self.kind, self.row, self.function, self.partition))


_rowjit._set_error_type(Error)
Engine = _rowjit.Engine
Array = _rowjit.Array
RecordBatch = _rowjit.RecordBatch
array = _rowjit.array
record_batch = _rowjit.record_batch
default_engine = _rowjit.default_engine
default_cache_dir = _rowjit.default_cache_dir
# Intervals are numpy structured values laid out as Arrow's: interval_dtype('month_day_nano') is
# months (i4), days (i4), nanoseconds (i8); 'day_time' days and milliseconds; 'months' months.
interval_dtype = _rowjit.interval_dtype

# evaluate(expr, [batch], *, threads=1, valid=None, arrow=None, out=None, engine=None, **columns):
# one array of the columns' length; threads > 1 evaluates chunks at once, on at most as many
# threads as the process has CPUs (len(os.sched_getaffinity(0))) and one per 64 rows: a larger
# count is clamped (threads is an int from 1 to 2**31 - 1).
evaluate = _rowjit.evaluate
# filter(predicate, [batch], *, valid=None, arrow=None, engine=None, **columns): the rows where a
# bool expression is true (null counts as false), as uint32 indices.
filter = _rowjit.filter  # noqa: A001 (the SQL word)
# project(exprs, [batch], *, valid=None, arrow=None, engine=None, **columns): several
# expressions in one pass over the columns, a list of arrays.
project = _rowjit.project
# aggregate(agg, [batch], *, valid=None, engine=None, **columns): sum, min, max, min_max (a
# tuple), count, nan_count, any, all over the non-null rows.
aggregate = _rowjit.aggregate
