"""rowjit's Python calls (python layer): explicit signatures over the C++ extension (_rowjit), and
what a call's arguments become before the engine reads them: a batch (dict, pandas DataFrame or
Arrow record batch), keyword columns, scalars as constants, names looked up in the caller's frame,
and unknown keywords refused."""
import atexit
import datetime
import decimal
import difflib
import numbers
import re
import sys
import threading
import weakref

import numpy as np

from . import _pandas
from . import _rowjit

__version__ = _rowjit._version()


class Error(Exception):
    """A rowjit error: .kind ("overflow", "division by zero", "invalid input", ...), .row (the
    first failing row, or None), .function (the failing function of a row error, or None),
    .partition (the partition of a rowjit.dask computation, or None), and for an error in an
    expression's text (an unknown column or function, a syntax error, arguments of the wrong
    types) .text, that expression, and .span, where in it: (offset, length) in characters of
    .text, so that text[offset:offset + length] is what the error is about (a length of 0 marks a
    point, such as the end of the text); both None for other errors. The message then shows the
    span under the text's line with a caret and tildes."""

    def __init__(self, message, kind, row, function, partition=None, span=None, text=None):
        super().__init__(message)
        self.kind = kind
        self.row = row
        self.function = function
        self.partition = partition
        self.span = span
        self.text = text

    def __reduce__(self):  # picklable, so that errors cross Dask's process boundaries intact
        return (type(self), (str(self), self.kind, self.row, self.function, self.partition, self.span, self.text))


_rowjit._set_error_type(Error)
Array = _rowjit.Array
Compiled = _rowjit.Compiled
RecordBatch = _rowjit.RecordBatch

# --- what the names of an expression are bound to ------------------------------------------------

_names_cache = {}
_I64_MAX, _U64_MAX = 2**63 - 1, 2**64 - 1


def _names(text, what):
    """The names `text` reads (a tuple, cached), or None when it does not parse."""
    try:
        return _names_cache[text]
    except (KeyError, TypeError):
        pass
    names = _rowjit._names(text, what)
    names = None if names is None else tuple(names)
    if len(_names_cache) > 4096:
        _names_cache.clear()
    _names_cache[text] = names
    return names


def _decimal(name, value):
    """A Decimal as (unscaled int, precision, scale): decimal64(18, S) when it fits 18 digits,
    decimal(38, S) otherwise; S is the Decimal's own exponent."""
    if not value.is_finite():
        raise ValueError(f"rowjit: scalar '{name}' is {value}, which a decimal cannot hold")
    exponent = value.as_tuple().exponent
    scale = max(-exponent, 0)
    unscaled = int(value.scaleb(scale))
    if scale > 38 or abs(unscaled) >= 10**38:
        raise ValueError(f"rowjit: scalar '{name}' ({value}) does not fit decimal(38, S)")
    return (unscaled, 18 if abs(unscaled) < 10**18 and scale <= 18 else 38, scale)


def _constant(name, value):
    """A scalar as a one-row numpy array of its type (or a decimal tuple); None when `value` is
    not a scalar (a column)."""
    if isinstance(value, (bool, np.bool_)):
        return np.array([value], dtype=np.bool_)
    if isinstance(value, int):
        if -_I64_MAX - 1 <= value <= _I64_MAX:
            return np.array([value], dtype=np.int64)
        if 0 <= value <= _U64_MAX:
            return np.array([value], dtype=np.uint64)
        raise ValueError(f"rowjit: scalar '{name}' ({value}) does not fit i64 or u64")
    if isinstance(value, float):
        return np.array([value], dtype=np.float64)
    if isinstance(value, (str, bytes)):
        return np.array([value], dtype=object)
    if isinstance(value, np.generic):
        return np.array([value])
    if isinstance(value, decimal.Decimal):
        return _decimal(name, value)
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            raise TypeError(f"rowjit: scalar '{name}' has a time zone; numpy timestamps have none: pass "
                            f"a naive datetime (UTC: value.astimezone(datetime.timezone.utc).replace(tzinfo=None))")
        unit = "ns" if _pandas.is_pandas(value) else "us"
        return np.array([np.datetime64(value, unit)])
    if isinstance(value, datetime.date):
        return np.array([np.datetime64(value, "D")])
    if isinstance(value, datetime.timedelta):
        return np.array([np.timedelta64(value, "ns" if _pandas.is_pandas(value) else "us")])
    return None


def _is_null(value):
    return value is None or value is np.ma.masked or type(value).__name__ == "NAType"


class _Frame:
    """The caller's frame, read only when a name is missing (numexpr's local_dict/global_dict)."""

    def __init__(self, frame, local_dict, global_dict):
        self.frame, self.local_dict, self.global_dict = frame, local_dict, global_dict

    def lookup(self, name):
        """(value, where) for `name`, or None: locals (local_dict) first, then globals (global_dict)."""
        locals_ = self.local_dict if self.local_dict is not None else self.frame.f_locals
        if name in locals_:
            return locals_[name], "local_dict" if self.local_dict is not None else "the caller's locals"
        globals_ = self.global_dict if self.global_dict is not None else self.frame.f_globals
        if name in globals_:
            return globals_[name], "global_dict" if self.global_dict is not None else "the caller's globals"
        return None


def _unknown_keywords(call, unknown, names, options):
    name = unknown[0]
    close = difflib.get_close_matches(name, list(options) + list(names or ()), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    uses = ", ".join(names) if names else "no name"
    raise TypeError(f"rowjit.{call}() got an unexpected keyword argument '{name}': not an option of {call}() "
                    f"and not a name the expression uses ({uses}){hint}")


def _batch_names(batch):
    """The column names of a batch and the batch as the extension reads it."""
    if isinstance(batch, dict):
        return batch.keys(), batch
    if isinstance(batch, RecordBatch):
        return batch.names, batch
    if hasattr(batch, "__arrow_c_array__") or hasattr(batch, "__arrow_c_stream__"):
        imported = _rowjit._record_batch(batch, None, None)  # zero-copy: its names are then known
        return imported.names, imported
    raise TypeError("rowjit: a batch is a dict of columns, a pandas DataFrame or an Arrow record batch "
                    f"(__arrow_c_array__), not {type(batch).__name__}")


def _other_columns(batch, names):
    """Every column of a batch dict or DataFrame in its order (a dict, or None), those the
    expression does not read as given (pandas columns converted where they convert): only for
    the message about a name found nowhere, which suggests from and lists every column the
    caller gave, not only those the call passed on."""
    if _pandas.is_frame(batch):
        items = [(str(label), batch[label]) for label in batch.columns]
    elif isinstance(batch, dict):
        items = batch.items()
    else:
        return None  # an Arrow record batch is passed whole
    others = {}
    for k, v in items:
        if not isinstance(k, str):
            continue
        try:
            others[k] = _pandas.column(v, k) if _pandas.is_series(v) and k not in names else v
        except Exception:  # noqa: BLE001 (a column that does not convert is left out of a message)
            pass
    return others


class _Inputs:
    """A call's inputs resolved: (batch, columns, constants, valid, nulls) for the extension (nulls:
    the names given as None, which the expression reads as null), and the pandas index of a
    pandas input (or None)."""

    def __init__(self, call, texts, batch, columns, valid, frame, options):
        self.index = None
        self.columns, self.constants, nulls = {}, {}, []
        names = self._names_of(texts)
        given, batch_names, nowhere = batch, (), False
        given_keywords = columns
        if batch is not None:
            if _pandas.is_frame(batch):
                self.index = batch.index
                batch = _pandas.frame_columns(batch, names or ())
            batch_names, batch = _batch_names(batch)
            if isinstance(batch, dict):
                batch = self._batch_dict(batch, names, valid, nulls)
        unknown = []
        if names is not None:
            unknown = [k for k in columns if k not in names]
            missing = [n for n in names if n not in columns and n not in batch_names]
            if missing:
                columns = dict(columns)
                for n in missing:
                    found = frame.lookup(n)
                    if found is not None:
                        columns[n] = self._looked_up(n, *found)
                nowhere = any(n not in columns for n in missing)
            # A keyword the expression does not use is refused, unless it is close to a name the
            # expression uses and that is found nowhere: then that name is the mistake (`aa + 1`
            # with a=...), and the binder's error suggests from every column given, the keywords
            # included.
            lost = [n for n in names if n not in columns] if nowhere else []
            if unknown and not any(difflib.get_close_matches(k, lost, n=1) for k in unknown):
                _unknown_keywords(call, unknown, names, options)
            columns = {k: v for k, v in columns.items() if k not in unknown}
        for k, v in columns.items():
            if k in batch_names:
                raise TypeError(f"rowjit: column '{k}' is given twice: in the batch and as a keyword")
            self._add(k, v, self.columns, nulls)
        self.inputs = (batch, self.columns, self.constants, valid, tuple(nulls))
        if nowhere:  # the binder's error names it, suggesting from every column of the batch
            others = _other_columns(given, names) or {}
            others.update({k: v for k, v in (given_keywords or {}).items() if k in unknown})
            self.inputs += (others or None,)

    def _add(self, name, value, columns, nulls):
        """A column (into `columns`), a scalar (a constant) or None (a null, written as `null`)."""
        if type(value) is np.ndarray:
            columns[name] = value
        elif _is_null(value):
            nulls.append(name)
        else:
            fixed = _constant(name, value)
            if fixed is None:
                columns[name] = self._column(name, value)
            else:
                self.constants[name] = fixed

    def _batch_dict(self, batch, names, valid, nulls):
        """A batch dict as the extension reads it: the columns the expression uses (every column
        when it uses none of them, so that the batch still gives the length; and those valid=
        names), pandas columns converted, scalars as constants."""
        if names is not None and any(n in batch for n in names):
            keep = set(names) | set(valid or ())
            if len(keep) < len(batch) or any(type(v) is not np.ndarray for v in batch.values()):
                columns = {}
                for k, v in batch.items():
                    if not isinstance(k, str):
                        raise TypeError(f"rowjit: a batch dict's keys are column names, which must be str, not "
                                        f"{type(k).__name__}")
                    if k in keep:
                        self._add(k, v, columns, nulls)
                return columns
            return batch
        if any(type(v) is not np.ndarray for v in batch.values()):
            columns = {}
            for k, v in batch.items():
                self._add(k, v, columns, nulls)
            return columns
        return batch

    @staticmethod
    def _names_of(texts):
        if isinstance(texts, str):
            return _names(texts, "the expression")
        if isinstance(texts, (list, tuple)) and all(isinstance(t, str) for t in texts):
            each = [_names(t, "the expression") for t in texts]
            if any(n is None for n in each):
                return None
            return tuple(dict.fromkeys(n for names in each for n in names))
        return None  # a wrong type: the extension raises the TypeError

    def _column(self, name, value):
        if _pandas.is_series(value):
            if self.index is None:
                self.index = value.index if hasattr(value, "index") else value
            return _pandas.column(value, name)
        return value

    def _looked_up(self, name, value, where):
        if (type(value) is np.ndarray or _is_null(value) or _constant(name, value) is not None or _pandas.is_series(value)
                or isinstance(value, (np.ndarray, list, Array)) or hasattr(value, "__arrow_c_array__")
                or hasattr(value, "__arrow_c_stream__")):
            return value
        raise TypeError(f"rowjit: '{name}' is not a column: it was looked up in {where}, where it is a "
                        f"{type(value).__name__}, not an array or a scalar")

    def finish(self, result):
        """The result for the caller: a pandas Series over the pandas input's index when there is one."""
        if self.index is None or not isinstance(result, np.ndarray):
            return result
        return _pandas.to_series(result, self.index)


def _plain(text, batch, columns, valid):
    """The common call's inputs without the resolution _Inputs does: numpy arrays alone, by
    keyword or in a batch dict, exactly the names the expression uses (nothing to convert, look
    up or refuse); None for any other call."""
    names = _names_cache.get(text) if type(text) is str else None
    if names is None:
        return None
    given = columns if batch is None else batch if type(batch) is dict and not columns else None
    if given is None or len(given) != len(names):
        return None
    for n in names:
        if type(given.get(n)) is not np.ndarray:
            return None
    return (None, given, None, valid)


_getframe = sys._getframe


def _check_dict(value, what):
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"rowjit: {what} must be a dict or None, not {type(value).__name__}")


# --- the calls ----------------------------------------------------------------------------------

_EVALUATE_OPTIONS = ("threads", "valid", "arrow", "out", "engine", "local_dict", "global_dict")
_FILTER_OPTIONS = ("valid", "arrow", "engine", "local_dict", "global_dict")
_AGGREGATE_OPTIONS = ("valid", "engine", "local_dict", "global_dict")


def _evaluate(engine, expr, batch, threads, valid, arrow, out, local_dict, global_dict, columns, frame):
    plain = _plain(expr, batch, columns, valid) if local_dict is None and global_dict is None else None
    if plain is not None:
        return _rowjit._evaluate(engine, expr, plain, threads, arrow, out, False)
    _check_dict(local_dict, "local_dict=")
    _check_dict(global_dict, "global_dict=")
    frame = _Frame(frame, local_dict, global_dict)
    inputs = _Inputs("evaluate", expr, batch, columns, valid, frame, _EVALUATE_OPTIONS)
    result = _rowjit._evaluate(engine, expr, inputs.inputs, threads, arrow, out, inputs.index is not None)
    return inputs.finish(result)


def _filter(engine, predicate, batch, valid, arrow, local_dict, global_dict, columns, frame):
    plain = _plain(predicate, batch, columns, valid) if local_dict is None and global_dict is None else None
    if plain is not None:
        return _rowjit._filter(engine, predicate, plain, arrow)
    _check_dict(local_dict, "local_dict=")
    _check_dict(global_dict, "global_dict=")
    frame = _Frame(frame, local_dict, global_dict)
    frame_batch = batch if _pandas.is_frame(batch) else None
    inputs = _Inputs("filter", predicate, batch, columns, valid, frame, _FILTER_OPTIONS)
    rows = _rowjit._filter(engine, predicate, inputs.inputs, arrow)
    if frame_batch is not None and isinstance(rows, np.ndarray):
        return frame_batch.iloc[rows]
    return rows


def _project(engine, exprs, batch, valid, arrow, local_dict, global_dict, columns, frame):
    _check_dict(local_dict, "local_dict=")
    _check_dict(global_dict, "global_dict=")
    frame = _Frame(frame, local_dict, global_dict)
    inputs = _Inputs("project", exprs, batch, columns, valid, frame, _FILTER_OPTIONS)
    results = _rowjit._project(engine, exprs, inputs.inputs, arrow, inputs.index is not None)
    return [inputs.finish(r) for r in results]


def _aggregate(engine, agg, batch, valid, local_dict, global_dict, columns, frame, by=None, where=None,
               as_frame=None):
    if by is not None or where is not None or as_frame is not None or isinstance(agg, (list, tuple)) or \
            (isinstance(agg, str) and _rowjit._is_query_text(agg)):
        return _query(engine, agg, batch, by, where, as_frame, valid, local_dict, global_dict, columns, frame)
    plain = _plain(agg, batch, columns, valid) if local_dict is None and global_dict is None else None
    if plain is not None:
        return _rowjit._aggregate(engine, agg, plain)
    _check_dict(local_dict, "local_dict=")
    _check_dict(global_dict, "global_dict=")
    frame = _Frame(frame, local_dict, global_dict)
    inputs = _Inputs("aggregate", agg, batch, columns, valid, frame, _AGGREGATE_OPTIONS)
    return _rowjit._aggregate(engine, agg, inputs.inputs)


def _top_k(engine, score, k, largest, batch, where, valid, local_dict, global_dict, columns, frame):
    if not isinstance(score, str):
        raise TypeError(f"rowjit: the score is an expression's text (a str), not {type(score).__name__}")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"rowjit: k is a whole number of rows (an int), not {type(k).__name__}")
    k = int(k)
    if where is not None and not isinstance(where, str):
        raise TypeError(f"rowjit: where= is a bool expression's text (a str), not {type(where).__name__}")
    if where is not None and not where.strip():
        raise ValueError("rowjit: where= is empty (None: every row)")
    if not isinstance(largest, (bool, np.bool_)):
        raise TypeError(f"rowjit: largest= is True or False, not {type(largest).__name__}")
    _check_dict(local_dict, "local_dict=")
    _check_dict(global_dict, "global_dict=")
    text = f"{'top_k' if largest else 'bottom_k'}({score}, {k})"
    texts = [score] if where is None else [score, where]
    inputs = _Inputs("top_k", texts, batch, columns, valid, _Frame(frame, local_dict, global_dict),
                     _AGGREGATE_OPTIONS + ("where", "largest"))
    return _rowjit._top_k(engine, text, where, inputs.inputs)


# --- aggregate queries ----------------------------------------------------------------------------

_FILTER_CLAUSE = re.compile(r"^(.*?)\s+filter\s*\(\s*where\s+(.*)\)\s*$", re.IGNORECASE | re.DOTALL)
_COUNT_STAR = re.compile(r"^\s*count\s*\(\s*\*\s*\)\s*$", re.IGNORECASE)


def _list_of_str(value, what):
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"rowjit: {what} must be a str or a non-empty list of str, not {type(value).__name__}")


def _query_text(aggregates, by, where):
    """The query text of aggregate()'s arguments, and the expressions whose names it reads (for
    _Inputs: the aggregates' arguments and FILTER predicates, the keys, WHERE)."""
    aggs = _list_of_str(aggregates, "the aggregates")
    keys = [] if by is None else _list_of_str(by, "by=")
    if where is not None and not isinstance(where, str):
        raise TypeError(f"rowjit: where= must be a str or None, not {type(where).__name__}")
    text = ", ".join(aggs)
    if keys:
        text += " group by " + ", ".join(keys)
    if where is not None:
        text += " where " + where
    pieces = list(keys) + ([where] if where is not None else [])
    for a in aggs:
        m = _FILTER_CLAUSE.match(a)
        head = m.group(1) if m else a
        if m:
            pieces.append(m.group(2))
        if not _COUNT_STAR.match(head):
            pieces.append(head)
    return text, pieces, [a.strip() for a in aggs]


def _head(aggregate):
    """An aggregate's text without its FILTER clause and spaces."""
    m = _FILTER_CLAUSE.match(aggregate)
    return "".join((m.group(1) if m else aggregate).split()).lower()


def _table(names, columns, as_frame, written=None):
    """A query's answer as a dict name -> numpy array, or as a pandas DataFrame (pandas' nullable
    dtypes where a column holds nulls). `written`: the aggregates as the caller wrote them, which
    name their columns (the query's own names show a FILTER predicate in canonical form)."""
    k = len(names) - len(written or ())
    if written and k >= 0 and all(_head(o) == _head(w) for o, w in zip(names[k:], written)):
        names = names[:k] + written
    if not as_frame:
        return dict(zip(names, columns))
    import pandas as pd
    return pd.DataFrame({n: _pandas.to_series(c, None, n) for n, c in zip(names, columns)})


def _query(engine, aggregates, batch, by, where, as_frame, valid, local_dict, global_dict, columns, frame):
    text, pieces, written = _query_text(aggregates, by, where)
    _check_dict(local_dict, "local_dict=")
    _check_dict(global_dict, "global_dict=")
    table = not isinstance(aggregates, str) or by is not None or as_frame is not None
    inputs = _Inputs("aggregate", pieces, batch, columns, valid, _Frame(frame, local_dict, global_dict),
                     _AGGREGATE_OPTIONS + ("by", "where", "as_frame"))
    result = _rowjit._query(engine, text, inputs.inputs, not table)
    if not isinstance(result, tuple):
        return result
    return _table(*result, inputs.index is not None if as_frame is None else as_frame, written)


class QueryState:
    """What an aggregate query has folded so far, per group: fold batches into it, merge states
    folded elsewhere (threads, Dask workers), send it as bytes, and finish it into the answer
    aggregate() would give over every row folded. The query is bound on the first batch folded;
    later batches must hold the same columns with the same types. Picklable."""

    def __init__(self, aggregates, by=None, where=None, *, engine=None):
        text, self._pieces, self._written = _query_text(aggregates, by, where)
        self._state = _rowjit._QueryState(text)
        self._engine = engine

    @property
    def text(self):
        """The query's text: the aggregates, then GROUP BY and WHERE as given."""
        return self._state.text

    @property
    def groups(self):
        """The groups folded so far."""
        return self._state.groups

    def fold(self, batch=None, /, *, valid=None, local_dict=None, global_dict=None, **columns):
        """Folds one batch (columns as rowjit.aggregate takes them) into the state; returns it."""
        _check_dict(local_dict, "local_dict=")
        _check_dict(global_dict, "global_dict=")
        inputs = _Inputs("QueryState.fold", self._pieces, batch, columns, valid,
                         _Frame(_getframe(1), local_dict, global_dict), ("valid", "local_dict", "global_dict"))
        self._state.fold(_engine(self._engine), inputs.inputs)
        return self

    def merge(self, other):
        """Adds what `other` (a QueryState of the same query over the same column types) folded;
        returns this state."""
        if not isinstance(other, QueryState):
            raise TypeError(f"rowjit: QueryState.merge takes a QueryState, not {type(other).__name__}")
        self._state.merge(other._state)
        return self

    def to_bytes(self):
        """The state as bytes, which QueryState.from_bytes turns back into an equal state."""
        text, schema, casts, state = self._state.serialize()
        parts = [p.encode() for p in (text, schema, "\0".join(self._written))] + [state]
        head = _STATE_MAGIC + bytes([int(casts)]) + b"".join(len(p).to_bytes(8, "little") for p in parts)
        return head + b"".join(parts)

    @classmethod
    def from_bytes(cls, data, *, engine=None):
        """The state to_bytes wrote (a ValueError for other bytes)."""
        data = bytes(data)
        n = len(_STATE_MAGIC)
        if data[:n] != _STATE_MAGIC or len(data) < n + 33:
            raise ValueError("rowjit: not the bytes of a rowjit.QueryState")
        sizes = [int.from_bytes(data[n + 1 + 8 * i:n + 9 + 8 * i], "little") for i in range(4)]
        at, parts = n + 33, []
        for size in sizes:
            parts.append(data[at:at + size])
            at += size
        if at != len(data):
            raise ValueError("rowjit: not the bytes of a rowjit.QueryState (truncated or longer)")
        state = cls.__new__(cls)
        state._state = _rowjit._QueryState.deserialize(parts[0].decode(), parts[1].decode(), bool(data[n]), parts[3])
        state._written = parts[2].decode().split("\0")
        state._pieces = None  # every column is passed on; the bound query reads what it needs
        state._engine = engine
        return state

    def __reduce__(self):
        return (QueryState.from_bytes, (self.to_bytes(),))

    def finish(self, *, as_frame=False):
        """The answer: a dict name -> numpy array (the keys first, then one per aggregate, one row
        per group), or a pandas DataFrame with as_frame=True."""
        return _table(*self._state.finish(), as_frame, self._written)


_STATE_MAGIC = b"rowjit-query-state-1"


class Engine(_rowjit.Engine):
    """A rowjit engine: its kernel cache (in memory, and on disk in `cache_dir`), its compile
    pool and its prepared expressions. Any number of Python threads may call one engine at once.

    cache_dir: a folder for the persistent kernel cache ('' for none); synchronous: True makes
    every call wait for the optimized kernel (False: tiered compiles, a fast kernel first);
    compile_threads: threads of the background compile pool, from 1 to 2**31 - 1 (clamped to the
    host's hardware threads); implicit_casts: True binds as SQL does (operands of different
    numeric types meet in their common type: int32 + float64 is float64 arithmetic), False
    strictly (such a mix is a rowjit.Error naming the cast to write). A wrong type is a
    TypeError, a wrong value a ValueError."""

    def __init__(self, cache_dir: str = "", synchronous: bool = False, compile_threads: int = 1,
                 implicit_casts: bool = True):
        super().__init__(cache_dir, synchronous, compile_threads, implicit_casts)
        _live.add(self)

    def evaluate(self, expr, batch=None, /, *, threads=None, valid=None, arrow=None, out=None, local_dict=None,
                 global_dict=None, **columns):
        """`expr` over the columns: one array of their length. See rowjit.evaluate."""
        return _evaluate(self, expr, batch, threads, valid, arrow, out, local_dict, global_dict, columns,
                         _getframe(1))

    def filter(self, predicate, batch=None, /, *, valid=None, arrow=None, local_dict=None, global_dict=None,
               **columns):
        """The rows where `predicate` is true (null is false). See rowjit.filter."""
        return _filter(self, predicate, batch, valid, arrow, local_dict, global_dict, columns,
                       _getframe(1))

    def project(self, exprs, batch=None, /, *, valid=None, arrow=None, local_dict=None, global_dict=None,
                **columns):
        """Several expressions in one pass over the columns: a list of arrays. See rowjit.project."""
        return _project(self, exprs, batch, valid, arrow, local_dict, global_dict, columns,
                        _getframe(1))

    def aggregate(self, agg, batch=None, /, *, by=None, where=None, as_frame=None, valid=None, local_dict=None,
                  global_dict=None, **columns):
        """Aggregates over the rows: a Python value, or per group a dict or DataFrame. See
        rowjit.aggregate."""
        return _aggregate(self, agg, batch, valid, local_dict, global_dict, columns, _getframe(1), by, where,
                          as_frame)

    def top_k(self, score, k, batch=None, /, *, where=None, largest=True, valid=None, local_dict=None,
              global_dict=None, **columns):
        """The k rows of the largest scores (smallest with largest=False): (rows, scores). See
        rowjit.top_k."""
        return _top_k(self, score, k, largest, batch, where, valid, local_dict, global_dict, columns, _getframe(1))

    def compile(self, expr, /, **dtypes):
        """`expr` compiled for numeric columns of the dtypes given: a rowjit.Compiled. See
        rowjit.compile."""
        return _compile(self, expr, dtypes)

    def stats(self):
        """The engine's counters: compiles, fast_compiles, disk_loads, hits, background_compiles,
        tier_switches, background_refused, background_dropped, compile_queue, compile_queue_peak,
        disk_hits, disk_misses, disk_stores, disk_rejected, disk_claim_timeouts."""
        return self._stats()


# Every engine is closed at exit, before the interpreter's own teardown: a module global holding
# one is not always released before the process runs its exit handlers, and a background compile
# still running in LLVM then would crash the exit.
_live = weakref.WeakSet()


@atexit.register
def _close_engines():
    for engine in list(_live):
        engine._close()


_default = None
_default_lock = threading.Lock()


def default_engine():
    """The engine the module functions use unless engine= names one: tiered compiles, and the
    persistent kernel cache in default_cache_dir(). Made on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Engine(cache_dir=default_cache_dir())
    return _default


def default_cache_dir():
    """The persistent kernel cache's default folder: $ROWJIT_CACHE_DIR, else
    $XDG_CACHE_HOME/rowjit (when absolute), else ~/.cache/rowjit ('' when none can be named);
    the default engine's, the CLI's and rowjit.dask's."""
    return _rowjit._default_cache_dir()


def _engine(engine):
    if engine is None:
        return default_engine()
    if not isinstance(engine, _rowjit.Engine):
        raise TypeError(f"rowjit: engine= must be a rowjit.Engine or None, not {type(engine).__name__}")
    return engine


def evaluate(expr, batch=None, /, *, threads=None, valid=None, arrow=None, out=None, engine=None, local_dict=None,
             global_dict=None, **columns):
    """Evaluates the expression `expr` (a str) over the columns: one array of their length.

    batch: a dict of columns, a pandas DataFrame or an Arrow record batch; columns may also come
    as keywords (numpy arrays, masked arrays, pandas Series, Arrow arrays) and scalars as
    constants (a=a, k=2.0). A name the expression uses that is not given is looked up in
    local_dict and global_dict (by default the caller's locals and globals); a keyword that is
    neither an option nor a name of the expression is a TypeError.
    threads: None (every CPU from 2**21 rows on, else one) or an int from 1 to 2**31 - 1 (at
    most the CPUs available to the process and one per 64 rows). valid: {name: bool array}
    (True: valid) for numpy columns. arrow: True for a rowjit.Array result, False for numpy, None
    (Arrow when an input is). out: a numpy array to write the result into. engine: a
    rowjit.Engine (default: default_engine()).
    Returns a numpy array (masked where null), a rowjit.Array, or for pandas inputs a pandas
    Series over the first pandas input's index (pandas' nullable dtype for a nullable result).
    Row errors raise rowjit.Error."""
    return _evaluate(_engine(engine), expr, batch, threads, valid, arrow, out, local_dict, global_dict, columns,
                     _getframe(1))


def compile(expr, /, *, engine=None, **dtypes):  # noqa: A001
    """Compiles the expression `expr` (a str) for numeric numpy columns of fixed dtypes, given
    as keywords in the order the call takes them (rowjit.compile("a * b + c", a=np.int32,
    b=np.int32, c="int32")): a rowjit.Compiled, called as f(a, b, c, out=None) with the arrays
    alone, positionally. A call checks only each array's dtype, layout (contiguous, 1-d) and
    length, and reads its memory as it is: none of evaluate's name lookup, conversion or per-call
    preparation, for loops over small arrays. Integer and float columns only (no masks, bools,
    dates or text: rowjit.evaluate takes those); the result is what evaluate gives for the same
    columns (a numpy array, bools as numpy bools), written into out= when given. One thread.
    engine: a rowjit.Engine (default: default_engine()). A dtype numpy does not know is a
    TypeError; row errors raise rowjit.Error."""
    return _compile(_engine(engine), expr, dtypes)


def _compile(engine, expr, dtypes):
    if type(expr) is not str:
        raise TypeError(f"rowjit: the expression must be a str, not {type(expr).__name__}")
    columns = {}
    for name, dtype in dtypes.items():
        try:
            columns[name] = np.empty(0, dtype=np.dtype(dtype))
        except TypeError as e:
            raise TypeError(f"rowjit: '{name}' is not a numpy dtype: {dtype!r}") from e
    return _rowjit._compile(engine, expr, (None, columns, None, None))


def filter(predicate, batch=None, /, *, valid=None, arrow=None, engine=None, local_dict=None,  # noqa: A001
           global_dict=None, **columns):
    """The rows where the bool expression `predicate` is true (null counts as false), as uint32
    row indices; for a pandas DataFrame batch, the DataFrame's rows kept (frame.iloc[rows]).
    Arguments as evaluate's."""
    return _filter(_engine(engine), predicate, batch, valid, arrow, local_dict, global_dict, columns,
                   _getframe(1))


def project(exprs, batch=None, /, *, valid=None, arrow=None, engine=None, local_dict=None, global_dict=None,
            **columns):
    """Several expressions (a list of str) in one pass over the columns, shared subexpressions
    computed once: a list of what evaluate would return for each. Arguments as evaluate's."""
    return _project(_engine(engine), exprs, batch, valid, arrow, local_dict, global_dict, columns,
                    _getframe(1))


def vector_literal(values):
    """A vector literal for an expression's text from a 1-d array or sequence of numbers:
    "[0.5, -1.25, ...]", each element written as the shortest text that reads back to the same
    value of its dtype (so a float32 query is the same float32 values in the kernel):
    rowjit.top_k(f"l2_distance(v, {rowjit.vector_literal(q)})", 10, largest=False, v=vectors)."""
    a = np.asarray(values)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"rowjit: a vector literal is made of a non-empty 1-d array, not one of shape {a.shape}")
    if a.dtype.kind not in "fiu":
        raise TypeError(f"rowjit: a vector literal holds numbers, not {a.dtype}")
    return "[" + ", ".join(str(x) for x in a) + "]"


def top_k(score, k, batch=None, /, *, where=None, largest=True, valid=None, engine=None, local_dict=None,
          global_dict=None, **columns):
    """The k rows of the largest values of `score` (an expression, as evaluate's; the smallest with
    largest=False) among the rows where `where` (a bool expression) is true: (rows, scores), two
    numpy arrays best first, rows as int64 row numbers. Null scores are never selected; NaN is
    greater than every number; equal scores keep the earlier row first. The score and the
    predicate run in one call (vector functions by their kernels): top_k("l2_distance(v, [0.5,
    ...])", 10, largest=False, v=embeddings)."""
    return _top_k(_engine(engine), score, k, largest, batch, where, valid, local_dict, global_dict, columns,
                  _getframe(1))


def aggregate(agg, batch=None, /, *, by=None, where=None, as_frame=None, valid=None, engine=None, local_dict=None,
              global_dict=None, **columns):
    """Aggregates over the columns (arguments as evaluate's).

    One aggregate (`agg` a str such as "sum(a * b)"): sum, min, max, min_max (a tuple), count,
    nan_count, any, all, ... over the non-null rows, and avg(x), count(*) (every row) and
    "max(x) filter (where x > 0)": a Python value (None when null; exact wide sums as int or
    decimal.Decimal).
    Several aggregates (a list of str), by= (a column name or a list of them: one row per group,
    nulls one group, keys ascending with nulls last), or as_frame= given: a table, the key
    columns first, then one column per aggregate named as written; a dict name -> numpy array
    (masked where null), or a pandas DataFrame when as_frame=True (as_frame=None: a DataFrame
    when an input is pandas). where=: a bool expression; only the rows where it is true are
    aggregated. A text holding GROUP BY or WHERE itself ("sum(x) group by g where p") is read as
    the query it spells."""
    return _aggregate(_engine(engine), agg, batch, valid, local_dict, global_dict, columns, _getframe(1), by, where,
                      as_frame)


def array(values, *, valid=None):
    """A rowjit.Array (immutable, an Arrow producer) from a numpy array (memory shared when its
    layout allows; nulls from a masked array or valid=, True: valid), a pandas Series, or any
    Arrow array (__arrow_c_array__, or __arrow_c_stream__ of one chunk)."""
    if _pandas.is_series(values):
        values = _pandas.column(values, "values")
    return _rowjit._array(values, valid)


def record_batch(batch=None, /, *, valid=None, **columns):
    """A rowjit.RecordBatch (named columns of one length, immutable, an Arrow producer) from a
    dict of columns, a pandas DataFrame or an Arrow record batch, and keyword columns."""
    if _pandas.is_frame(batch):
        batch = _pandas.frame_columns(batch)
    if isinstance(batch, dict):
        batch = {k: _pandas.column(v, k) if _pandas.is_series(v) else v for k, v in batch.items()}
    columns = {k: _pandas.column(v, k) if _pandas.is_series(v) else v for k, v in columns.items()}
    return _rowjit._record_batch(batch, columns, valid)


def interval_dtype(unit):
    """The numpy structured dtype of an interval type, laid out as Arrow's: 'months' (months i4),
    'day_time' (days i4, milliseconds i4) or 'month_day_nano' (months i4, days i4, nanoseconds i8)."""
    return _rowjit._interval_dtype(unit)
