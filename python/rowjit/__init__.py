"""rowjit: JIT-compiled row expressions over numpy arrays.

    import numpy as np, rowjit
    a = np.arange(1_000_000, dtype=np.int32); b = np.full_like(a, 3); c = np.ones_like(a)
    rowjit.evaluate("a * b + c", a=a, b=b, c=c)          # numpy array (masked where null)
    rowjit.filter("a * b > 10", a=a, b=b)                 # uint32 row indices
    rowjit.project(["a * b", "a * b + c"], a=a, b=b, c=c)
    rowjit.aggregate("sum(a * b)", a=a, b=b)              # a Python number (None when null)

Nulls: numpy masked arrays (mask True: null), or valid={"a": bool_array} (True: valid). Results
with nulls are numpy masked arrays. Errors raise rowjit.Error with .kind, .row and .function.
Columns named expr, threads, valid or engine must be passed through a dict: f(expr, **cols).
"""
import os

from . import _rowjit

__all__ = ["Engine", "Error", "evaluate", "filter", "project", "aggregate", "default_engine"]


class Error(Exception):
    """A rowjit error: .kind ("overflow", "division by zero", "invalid input", ...), .row (the
    first failing row, or None) and .function (the failing function of a row error, or None)."""

    def __init__(self, message, kind, row, function):
        super().__init__(message)
        self.kind = kind
        self.row = row
        self.function = function


_rowjit._set_error_type(Error)
Engine = _rowjit.Engine
_default = None


def default_engine():
    """The engine the module functions use: tiered compiles, and the persistent kernel cache in
    $ROWJIT_CACHE_DIR when set."""
    global _default
    if _default is None:
        _default = Engine(cache_dir=os.environ.get("ROWJIT_CACHE_DIR", ""))
    return _default


def evaluate(expr, *, threads=1, valid=None, engine=None, **columns):
    """`expr` over the columns: one array of their length. threads > 1 evaluates chunks at once."""
    return (engine or default_engine()).evaluate(expr, threads=threads, valid=valid, **columns)


def filter(predicate, *, valid=None, engine=None, **columns):  # noqa: A001 (the SQL word)
    """The rows where a bool expression is true (null counts as false), as uint32 indices."""
    return (engine or default_engine()).filter(predicate, valid=valid, **columns)


def project(exprs, *, valid=None, engine=None, **columns):
    """Several expressions in one pass over the columns: a list of arrays."""
    return (engine or default_engine()).project(list(exprs), valid=valid, **columns)


def aggregate(agg, *, valid=None, engine=None, **columns):
    """sum, min, max, min_max (a tuple), count, nan_count, any, all over the non-null rows."""
    return (engine or default_engine()).aggregate(agg, valid=valid, **columns)
