"""rowjit: JIT-compiled row expressions over numpy arrays, pandas columns and Arrow arrays.

    import numpy as np, rowjit
    a = np.arange(1_000_000, dtype=np.int32); b = np.full_like(a, 3); c = np.ones_like(a)
    rowjit.evaluate("a * b + c", a=a, b=b, c=c)          # numpy array (masked where null)
    rowjit.evaluate("a * k", a=a, k=2.5)                  # a scalar is a constant
    rowjit.evaluate("a * b", frame)                       # a pandas DataFrame: a Series
    f = rowjit.compile("a * b + c", a=np.int32, b=np.int32, c=np.int32)
    f(a, b, c, out=out)                                   # the arrays alone: for small hot loops
    rowjit.filter("a * b > 10", a=a, b=b)                 # uint32 row indices
    rowjit.project(["a * b", "a * b + c"], a=a, b=b, c=c)
    rowjit.aggregate("sum(a * b)", a=a, b=b)              # a Python number (None when null)
    rowjit.aggregate(["sum(x)", "avg(y)", "count(*)"], frame, by="g", where="y > 0")  # per group
    rows, scores = rowjit.top_k(f"l2_distance(v, {rowjit.vector_literal(q)})", 10, largest=False, v=vectors)  # 2-d

Columns are numpy arrays, numpy masked arrays (mask True: null), pandas Series (nullable dtypes
such as Int32, Float64, boolean and string: pd.NA is null), or any Arrow array through the
PyCapsule protocol (__arrow_c_array__, or __arrow_c_stream__ of one chunk: pyarrow, polars,
rowjit.Array). A batch may come as one positional argument after the expression: a dict of
columns, a pandas DataFrame or an Arrow record batch. A name the expression uses and the call
does not give is looked up in the caller's locals and globals (local_dict=, global_dict=), as
numexpr does; a keyword that is neither an option nor a name of the expression is a TypeError.
Results are numpy arrays (masked where null), pandas Series for pandas inputs, or rowjit.Array
objects when an input came through Arrow or arrow=True is passed. Errors raise rowjit.Error with
.kind, .row and .function, and for an error in the expression's text .text and .span (its message
shows the span under the text); an argument of a wrong type raises TypeError, one of a wrong value
ValueError. A column named like an option of the call (threads, valid, arrow, out, engine,
local_dict, global_dict) goes in the batch dict: rowjit.evaluate("valid + 1", {"valid": v}).
"""
from ._api import (Array, Compiled, Engine, Error, QueryState, RecordBatch, __version__, aggregate, array, compile,
                   default_cache_dir, default_engine, evaluate, filter, interval_dtype, project, record_batch, top_k,
                   vector_literal)

__all__ = ["Array", "Compiled", "Engine", "Error", "QueryState", "RecordBatch", "__version__", "aggregate", "array",
           "compile", "default_cache_dir", "default_engine", "evaluate", "filter", "interval_dtype", "project",
           "record_batch", "top_k", "vector_literal"]
