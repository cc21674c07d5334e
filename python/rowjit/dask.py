"""rowjit on Dask: an expression, filter or aggregate applied to dask arrays or a dask dataframe
partition by partition, on as many worker processes and machines as the cluster has.

    import dask.array as da, rowjit.dask
    a = da.random.randint(0, 1000, 100_000_000, chunks=4_000_000).astype("int32")
    rowjit.dask.evaluate("a * 3 + 1", a=a)                # a dask array
    rowjit.dask.filter("a > 990", a=a)                    # global row indices (int64)
    rowjit.dask.aggregate("sum(a * 3)", a=a).compute()    # a number, exact as one process's
    rowjit.dask.aggregate(["sum(x)", "avg(y)"], ddf, by="g").compute()  # per group, a DataFrame

    ddf = dd.from_pandas(frame, npartitions=8)
    rowjit.dask.evaluate("price * qty", ddf)              # a dask Series
    rowjit.dask.filter("price * qty > 100", ddf)          # the rows kept, a dask DataFrame

Columns come as keyword dask arrays (1-d, chunked alike or rechunked by dask), or as one dask
dataframe (its numeric and bool columns; pandas nullable dtypes such as Int32 carry nulls). Each
worker process builds one rowjit engine per cache folder and keeps it; every engine on a machine
shares the persistent kernel cache (cache_dir=, default $ROWJIT_CACHE_DIR, else
$XDG_CACHE_HOME/rowjit or ~/.cache/rowjit), whose cross-process claim makes a kernel compile once
per machine: the first process compiles it, the others read it from disk. A row error raises
rowjit.Error with .partition (the partition's number) and .row (for arrays the global row; for a
dataframe the row within that partition, whose global position Dask does not know).
"""
import ast
import os
import sys
import threading

import numpy as np

import rowjit
from . import _api, _pandas

__all__ = ["evaluate", "filter", "aggregate", "engine", "worker_stats", "default_cache_dir"]

_DTYPES = {"bool": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
           "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f32": np.float32, "f64": np.float64}
_engines = {}
_engines_lock = threading.Lock()


def default_cache_dir():
    """The kernel cache folder engines share when cache_dir= is not given: the library's one rule
    (rowjit.default_cache_dir(), the CLI's and the module's default engine's too)."""
    return rowjit.default_cache_dir()


def engine(cache_dir=None, synchronous=False):
    """This process's engine for a cache folder (made on first use, then kept)."""
    folder = cache_dir or default_cache_dir()
    key = (folder, synchronous)
    with _engines_lock:
        e = _engines.get(key)
        if e is None:
            os.makedirs(folder, exist_ok=True)
            e = _engines[key] = rowjit.Engine(cache_dir=folder, synchronous=synchronous)
        return e


def _process_stats():
    return {f"{folder}{' (synchronous)' if sync else ''}": e.stats() for (folder, sync), e in _engines.items()}


def worker_stats(client):
    """Each worker's engine counters ({worker address: {cache folder: stats}}): compiles, disk
    loads and hits show where kernels came from."""
    return client.run(_process_stats)


# --- one partition ------------------------------------------------------------------------------

def _located(error, partition, start):
    """`error` again with its partition, and its row counted from the partition's first row
    `start` (the message keeps the partition's own row numbers); unchanged when there is no
    partition (the empty frame Dask's metadata is computed from, before any partition runs)."""
    if partition is None:
        return error
    row = None if error.row is None else error.row + start
    return rowjit.Error(f"partition {partition} (from row {start}): {error}", error.kind, row, error.function,
                        partition, error.span, error.text)


def _block_position(block_info):
    info = (block_info or {}).get(None)
    if not info:
        return 0, 0
    return info["chunk-location"][0], info["array-location"][0][0]


def _evaluate_block(*blocks, names, expr, options, scalars, block_info=None):
    partition, start = _block_position(block_info)
    try:
        result = engine(**options).evaluate(expr, dict(zip(names, blocks)), local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, partition, start) from None
    if not isinstance(result, np.ma.MaskedArray) and any(isinstance(b, np.ma.MaskedArray) for b in blocks):
        result = np.ma.MaskedArray(result, mask=False)  # every block of a masked result is masked
    return result


def _filter_block(*blocks, names, expr, options, scalars, partition, start):
    try:
        rows = engine(**options).filter(expr, dict(zip(names, blocks)), local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, partition, start) from None
    return rows.astype(np.int64) + start


def _aggregate_block(*blocks, names, expr, options, scalars, partition, start):
    try:
        return engine(**options).aggregate(expr, dict(zip(names, blocks)), local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, partition, start) from None


# --- pandas partitions: rowjit's own pandas handling (rowjit/_pandas.py) reads the columns the
# expression uses and gives pandas' nullable dtypes back -----------------------------------------

def _evaluate_frame(frame, expr, options, name, scalars, partition_info=None):
    try:
        result = engine(**options).evaluate(expr, frame, local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, (partition_info or {}).get("number"), 0) from None
    return result.rename(name)


def _filter_frame(frame, expr, options, scalars, partition_info=None):
    try:
        return engine(**options).filter(expr, frame, local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, (partition_info or {}).get("number"), 0) from None


def _aggregate_frame(frame, expr, options, scalars, partition):
    try:
        return engine(**options).aggregate(expr, frame, local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, partition, 0) from None


# --- combining partial aggregates ---------------------------------------------------------------

# How partials combine: the same aggregate over them (count and nan_count: their sum).
_COMBINE = {"sum": "sum", "count": "sum", "nan_count": "sum", "min": "min", "max": "max", "min_nan": "min_nan",
            "max_nan": "max_nan", "any": "any", "all": "all"}


def _fold(name, partials, dtype):
    valid = np.array([p is not None for p in partials], dtype=bool)
    values = np.array([p if p is not None else 0 for p in partials], dtype=dtype)
    return rowjit.aggregate(f"{name}(x)", x=values, valid={"x": valid}, engine=_combiner())


def _combine(partials, name, type_name):
    """The partials of `name` combined by rowjit itself, so that overflow, NaN and null rules are
    the single-process ones (a sum of partial sums that overflows is an overflow error)."""
    if type_name.startswith("decimal("):  # exact wide sums: Python ints (or Decimals) add exactly
        kept = [p for p in partials if p is not None]
        if not kept:
            return None
        total = sum(kept)
        if abs(total) >= 10 ** 38:
            raise rowjit.Error(f"overflow: sum: the sum of the non-null rows does not fit {type_name}", "overflow",
                               None, "sum")
        return total
    dtype = _DTYPES[type_name]
    if name in ("min_max", "min_max_nan"):
        inner = name.replace("min_max", "min"), name.replace("min_max", "max")
        return (_fold(inner[0], [p[0] for p in partials], dtype), _fold(inner[1], [p[1] for p in partials], dtype))
    return _fold(_COMBINE[name], partials, dtype)


_combiner_engine = None


def _combiner():
    global _combiner_engine
    if _combiner_engine is None:
        _combiner_engine = rowjit.Engine()
    return _combiner_engine


# --- the API ------------------------------------------------------------------------------------

def _bootstrap_check(call):
    """A call made while a spawned process is still importing the main script (its bootstrap)
    comes from a script that starts a cluster or calls rowjit.dask without the
    `if __name__ == "__main__":` guard: every worker would run the script again. Refused with a
    RuntimeError that names the guard, instead of a cluster that never starts."""
    import multiprocessing
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise RuntimeError(
            f"rowjit.dask.{call}() was called while a worker process was starting: the script runs again in every "
            "worker process Dask spawns, so the code that makes the cluster (LocalCluster, Client) and calls "
            "rowjit.dask must be under `if __name__ == \"__main__\":` (see the multiprocessing docs: safe "
            "importing of the main module)")


_OPTIONS = ("cache_dir", "synchronous", "name", "local_dict", "global_dict")


def _columns(call, text, data, columns, local_dict, global_dict, frame):
    """(dask dataframe or None, column names, dask arrays, scalars): keyword dask arrays or one
    dataframe (or a dict of dask arrays), scalars as constants, names the expression uses and
    the call does not give looked up in local_dict/global_dict (the caller's frame by default),
    and a keyword that is neither an option nor a name of the expression refused."""
    _bootstrap_check(call)
    names = _api._Inputs._names_of(text)
    unknown = [k for k in columns if k not in names] if names is not None else []  # None: a syntax error, raised below
    names = names or ()
    if unknown:
        _api._unknown_keywords(f"dask.{call}", unknown, names, _OPTIONS)
    if isinstance(data, dict):
        data, columns = None, {**data, **columns}
    given = set(columns) | (set(map(str, data.columns)) if data is not None else set())
    lookup = _api._Frame(frame, local_dict, global_dict)
    for n in names:
        if n not in given and (found := lookup.lookup(n)) is not None:
            columns[n] = found[0]
    scalars = {k: v for k, v in columns.items() if _api._is_null(v) or _api._constant(k, v) is not None}
    arrays = {k: v for k, v in columns.items() if k not in scalars}
    if data is not None and arrays:
        raise TypeError("rowjit.dask: pass a dataframe or keyword columns, not both (scalars may go with either)")
    if data is None and not arrays:
        raise TypeError("rowjit.dask: no columns")
    return data, list(arrays), list(arrays.values()), scalars


def _blocks(arrays):
    """(first row, the arrays' delayed blocks) per partition, the arrays' chunks unified."""
    import dask.array as da
    arrays = da.core.unify_chunks(*[x for a in arrays for x in (a, "i")])[1]
    starts = np.concatenate([[0], np.cumsum(arrays[0].chunks[0])[:-1]]).astype(np.int64)
    delayed = [a.to_delayed().ravel() for a in arrays]
    return [(int(starts[i]), blocks) for i, blocks in enumerate(zip(*delayed))]


def _options(text, cache_dir, synchronous, what="expression"):
    """The options every partition's call gets, checked here (a wrong type is a TypeError, as the
    module's calls raise) rather than on the workers at compute time."""
    if not isinstance(text, str):
        raise TypeError(f"rowjit.dask: the {what} must be a str, not {type(text).__name__}")
    if cache_dir is not None and not isinstance(cache_dir, str):
        raise TypeError(f"rowjit.dask: cache_dir= must be a str or None, not {type(cache_dir).__name__}")
    if not isinstance(synchronous, (bool, np.bool_)):
        raise TypeError(f"rowjit.dask: synchronous= must be True or False, not {type(synchronous).__name__}")
    return {"cache_dir": cache_dir or default_cache_dir(), "synchronous": bool(synchronous)}


def _empty(names, arrays):
    """Empty numpy columns of the dask arrays' dtypes (masked where their blocks are)."""
    return {n: np.ma.MaskedArray(np.empty(0, a.dtype)) if isinstance(a._meta, np.ma.MaskedArray) else
            np.empty(0, a.dtype) for n, a in zip(names, arrays)}


def _result_type(text, batch, scalars, aggregate=False):
    """The result type of `text` over a batch of empty columns (_empty, or a dask dataframe's
    empty pandas meta) and the scalars, without running it; an error in the text is raised here."""
    inputs = _api._Inputs("evaluate", text, batch, {}, None, _api._Frame(None, scalars, {}), ())
    call = rowjit._rowjit._aggregate_type if aggregate else rowjit._rowjit._expr_type
    return call(text, inputs.inputs)


def evaluate(expr, data=None, *, cache_dir=None, synchronous=False, name=None, local_dict=None, global_dict=None,
             **columns):
    """`expr` over each partition: a dask array (columns as dask arrays) or a dask Series (a dask
    dataframe; pandas' nullable dtype for a nullable result, `name=` its name). Scalars are
    constants; names are looked up as rowjit.evaluate looks them up."""
    import dask.array as da
    options = _options(expr, cache_dir, synchronous)
    frame, names, arrays, scalars = _columns("evaluate", expr, data, columns, local_dict, global_dict,
                                             sys._getframe(1))
    if frame is not None:
        meta = _evaluate_frame(frame._meta, expr, {**options, "synchronous": True}, name, scalars)
        return frame.map_partitions(_evaluate_frame, expr, options, name, scalars, meta=meta)
    type_name, _, _ = _result_type(expr, _empty(names, arrays), scalars)
    meta = np.empty(0, _DTYPES[type_name])
    if any(isinstance(a._meta, np.ma.MaskedArray) for a in arrays):
        meta = np.ma.MaskedArray(meta, mask=False)
    return da.map_blocks(_evaluate_block, *arrays, names=names, expr=expr, options=options, scalars=scalars,
                         dtype=_DTYPES[type_name], meta=meta)


def filter(predicate, data=None, *, cache_dir=None, synchronous=False, local_dict=None,  # noqa: A001
           global_dict=None, **columns):
    """The rows where `predicate` is true (null is false): for arrays their global indices (int64,
    a dask array of unknown chunk sizes), for a dataframe the rows themselves."""
    import dask
    import dask.array as da
    options = _options(predicate, cache_dir, synchronous, "predicate")
    frame, names, arrays, scalars = _columns("filter", predicate, data, columns, local_dict, global_dict,
                                             sys._getframe(1))
    # Bound once here, so that an error in the text is raised by this call rather than by every
    # partition at compute time.
    _result_type(predicate, frame._meta if frame is not None else _empty(names, arrays), scalars)
    if frame is not None:
        return frame.map_partitions(_filter_frame, predicate, options, scalars, meta=frame._meta)
    parts = []
    for i, (start, blocks) in enumerate(_blocks(arrays)):
        rows = dask.delayed(_filter_block)(*blocks, names=names, expr=predicate, options=options, scalars=scalars,
                                           partition=i, start=start)
        parts.append(da.from_delayed(rows, shape=(np.nan,), dtype=np.int64, meta=np.empty(0, np.int64)))
    return da.concatenate(parts)


def aggregate(agg, data=None, *, by=None, where=None, as_frame=None, cache_dir=None, synchronous=False,
              local_dict=None, global_dict=None, **columns):
    """A dask Delayed of the aggregate over every partition (.compute() gives the number; None
    when every row is null), equal to the single-process aggregate (floating-point sums up to
    the order of additions). With a list of aggregates, by=, where= or as_frame= (as
    rowjit.aggregate takes them): the query's table, from a rowjit.QueryState folded per
    partition, sent as bytes and merged (a pandas DataFrame for a dask dataframe or
    as_frame=True, else a dict of numpy arrays)."""
    import dask
    if by is not None or where is not None or as_frame is not None or isinstance(agg, (list, tuple)) or \
            (isinstance(agg, str) and rowjit._rowjit._is_query_text(agg)):
        return _query(agg, data, by, where, as_frame, cache_dir, synchronous, local_dict, global_dict, columns,
                      sys._getframe(1))
    options = _options(agg, cache_dir, synchronous, "aggregate")
    frame, names, arrays, scalars = _columns("aggregate", agg, data, columns, local_dict, global_dict,
                                             sys._getframe(1))
    type_name, _, name = _result_type(agg, frame._meta if frame is not None else _empty(names, arrays), scalars,
                                      aggregate=True)
    if frame is not None:
        partials = [dask.delayed(_aggregate_frame)(part, agg, options, scalars, i)
                    for i, part in enumerate(frame.to_delayed())]
    else:
        partials = [dask.delayed(_aggregate_block)(*blocks, names=names, expr=agg, options=options, scalars=scalars,
                                                   partition=i, start=start)
                    for i, (start, blocks) in enumerate(_blocks(arrays))]
    return dask.delayed(_combine)(partials, name, type_name)


def _query_partition(batch, query, options, scalars, partition, start):
    """One partition's QueryState, as bytes."""
    state = rowjit.QueryState(*query, engine=engine(**options))
    try:
        state.fold(batch, local_dict=scalars, global_dict={})
    except rowjit.Error as e:
        raise _located(e, partition, start) from None
    return state.to_bytes()


def _query_block(*blocks, names, query, options, scalars, partition, start):
    return _query_partition(dict(zip(names, blocks)), query, options, scalars, partition, start)


def _finish_states(states, as_frame):
    merged = rowjit.QueryState.from_bytes(states[0])
    for s in states[1:]:
        merged.merge(rowjit.QueryState.from_bytes(s))
    return merged.finish(as_frame=as_frame)


def _query(agg, data, by, where, as_frame, cache_dir, synchronous, local_dict, global_dict, columns, frame):
    import dask
    query = (agg, by, where)
    text, pieces, _ = _api._query_text(*query)
    options = _options(text, cache_dir, synchronous, "query")
    data, names, arrays, scalars = _columns("aggregate", pieces, data, columns, local_dict, global_dict, frame)
    # Folded once over no rows here, so that an error in the text is raised by this call rather
    # than by every partition at compute time.
    rowjit.QueryState(*query, engine=_combiner()).fold(data._meta if data is not None else _empty(names, arrays),
                                                       local_dict=scalars, global_dict={})
    if data is not None:
        states = [dask.delayed(_query_partition)(part, query, options, scalars, i, 0)
                  for i, part in enumerate(data.to_delayed())]
    else:
        states = [dask.delayed(_query_block)(*blocks, names=names, query=query, options=options, scalars=scalars,
                                             partition=i, start=start)
                  for i, (start, blocks) in enumerate(_blocks(arrays))]
    return dask.delayed(_finish_states)(states, data is not None if as_frame is None else bool(as_frame))


# --- a script that starts a cluster without the main guard ----------------------------------------

def _is_main_guard(node):
    """`if __name__ == "__main__":` (either order)."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def _starts_processes(call):
    """A call that surely starts a local cluster of worker processes: LocalCluster(...) or
    Client() without a scheduler's address, with no processes= other than True and no **kwargs
    (what those hold is not known from the text, so they are not refused)."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    keywords = {k.arg: k.value for k in call.keywords}
    processes = keywords.get("processes")
    if None in keywords or not (processes is None or (isinstance(processes, ast.Constant) and processes.value is True)):
        return False
    if name == "LocalCluster":
        return True
    return name == "Client" and not call.args and "address" not in keywords


def _unguarded_cluster_line(statements):
    """The line of the first module-level statement (outside functions, classes and the main
    guard) that starts a local cluster, or None."""
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, ast.If):
            if _is_main_guard(node):
                continue
            line = _unguarded_cluster_line(node.body) or _unguarded_cluster_line(node.orelse)
        else:
            line = next((n.lineno for n in ast.walk(node) if isinstance(n, ast.Call) and _starts_processes(n)), None)
        if line is not None:
            return line
    return None


def _check_main_script():
    """Refuses (RuntimeError) to run under a main script that starts a local cluster outside
    `if __name__ == "__main__":`. Dask starts worker processes by spawning Python again, which
    imports the main script in each of them: unguarded, every worker starts a cluster of its
    own, fails, and the first cluster waits for its workers forever. Found by reading the
    script (its module-level statements), before any process is started."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or not str(path).endswith(".py"):
        return
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return
    line = _unguarded_cluster_line(tree.body)
    if line is not None:
        raise RuntimeError(
            f"rowjit.dask: {path} line {line} starts a Dask cluster of worker processes outside "
            "`if __name__ == \"__main__\":`. Each worker process imports the main script again, so unguarded it "
            "would start a cluster of its own and the first cluster would wait for its workers forever. Put the code "
            "that makes the cluster and computes under `if __name__ == \"__main__\":` (see "
            "examples/python/dask_cluster.py).")


_check_main_script()
