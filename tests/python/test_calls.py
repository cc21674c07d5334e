"""The calls as Python functions (tests): signatures and docstrings, __version__, scalars as
constants, None as null, keywords that are neither options nor names of the expression refused,
names looked up in local_dict/global_dict or the caller's frame, and threads=None."""
import datetime
import decimal
import inspect
import os
import re

import numpy as np
import pytest

import rowjit
import rowjit.dask

ENGINE = rowjit.Engine(synchronous=True)
A = np.arange(6, dtype=np.int64)
SCALE = 10  # a module global the frame lookup finds


# --- signatures ----------------------------------------------------------------------------------

CALLS = {
    "evaluate": ["expr", "batch", "threads", "valid", "arrow", "out", "engine", "local_dict", "global_dict", "columns"],
    "filter": ["predicate", "batch", "valid", "arrow", "engine", "local_dict", "global_dict", "columns"],
    "project": ["exprs", "batch", "valid", "arrow", "engine", "local_dict", "global_dict", "columns"],
    "aggregate": ["agg", "batch", "by", "where", "as_frame", "valid", "engine", "local_dict", "global_dict", "columns"],
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_module_calls_have_real_signatures(call):
    fn = getattr(rowjit, call)
    sig = inspect.signature(fn)
    assert list(sig.parameters) == CALLS[call]
    params = list(sig.parameters.values())
    assert params[0].kind is inspect.Parameter.POSITIONAL_ONLY and params[1].kind is inspect.Parameter.POSITIONAL_ONLY
    assert params[1].default is None
    assert params[-1].kind is inspect.Parameter.VAR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[2:-1])
    assert "(*args, **kwargs)" not in fn.__doc__ and len(fn.__doc__) > 100


@pytest.mark.parametrize("call", sorted(CALLS))
def test_engine_methods_have_the_module_signatures_without_engine(call):
    sig = inspect.signature(getattr(rowjit.Engine, call))
    assert list(sig.parameters) == ["self"] + [p for p in CALLS[call] if p != "engine"]
    assert getattr(rowjit.Engine, call).__doc__


def test_every_public_function_has_a_signature():
    for name in ["array", "record_batch", "default_engine", "default_cache_dir", "interval_dtype"]:
        inspect.signature(getattr(rowjit, name))
    assert list(inspect.signature(rowjit.Engine).parameters) == ["cache_dir", "synchronous", "compile_threads",
                                                              "implicit_casts"]
    assert list(inspect.signature(rowjit.Engine.stats).parameters) == ["self"]
    assert list(inspect.signature(rowjit.array).parameters) == ["values", "valid"]
    for name in ["evaluate", "filter", "aggregate", "engine", "worker_stats", "default_cache_dir"]:
        inspect.signature(getattr(rowjit.dask, name))
    assert list(inspect.signature(rowjit.dask.evaluate).parameters) == [
        "expr", "data", "cache_dir", "synchronous", "name", "local_dict", "global_dict", "columns"]


def test_help_shows_the_parameters():
    text = inspect.getdoc(rowjit.evaluate) + str(inspect.signature(rowjit.evaluate))
    assert "threads=None" in text and "local_dict=None" in text


def test_version_is_the_library_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", rowjit.__version__)
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "CMakeLists.txt")) as f:
        assert f"project(rowjit VERSION {rowjit.__version__} " in f.read()


def test_stubs_and_marker_are_beside_the_package():
    folder = os.path.dirname(rowjit.__file__)
    assert os.path.exists(os.path.join(folder, "py.typed"))
    with open(os.path.join(folder, "__init__.pyi")) as f:
        stub = f.read()
    for call in CALLS:
        assert f"def {call}(" in stub
    assert "__version__: str" in stub


def test_default_engine_is_an_engine():
    assert isinstance(rowjit.default_engine(), rowjit.Engine)
    assert rowjit.default_engine() is rowjit.default_engine()


# --- scalars -------------------------------------------------------------------------------------

def test_a_python_int_is_an_i64_constant():
    got = rowjit.evaluate("a * k", a=A, k=3, engine=ENGINE)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [0, 3, 6, 9, 12, 15])
    big = rowjit.evaluate("a + k", a=A.astype(np.uint64), k=2**63, engine=ENGINE)   # past i64: u64
    assert big.dtype == np.uint64 and int(big[1]) == 2**63 + 1
    with pytest.raises(ValueError, match="does not fit i64 or u64"):
        rowjit.evaluate("a + k", a=A, k=2**64, engine=ENGINE)


def test_a_float_is_an_f64_constant_and_a_bool_a_bool():
    got = rowjit.evaluate("f * k", f=np.array([1.0, 2.5]), k=2.0, engine=ENGINE)
    assert got.dtype == np.float64 and got.tolist() == [2.0, 5.0]
    assert rowjit.evaluate("a > 2 and k", a=A, k=True, engine=ENGINE).tolist() == [False] * 3 + [True] * 3
    assert rowjit.evaluate("a > 2 and k", a=A, k=False, engine=ENGINE).tolist() == [False] * 6


def test_numpy_scalars_keep_their_dtype():
    a = np.array([1, 2, 3], dtype=np.int32)
    got = rowjit.evaluate("a * k", a=a, k=np.int32(4), engine=ENGINE)
    assert got.dtype == np.int32 and got.tolist() == [4, 8, 12]
    u = np.array([200, 10], dtype=np.uint8)
    with pytest.raises(rowjit.Error) as e:   # u8 * u8: 200 * 2 does not fit
        rowjit.evaluate("u * k", u=u, k=np.uint8(2), engine=ENGINE)
    assert e.value.kind == "overflow" and e.value.row == 0
    f = np.array([1.5], dtype=np.float32)
    assert rowjit.evaluate("f + k", f=f, k=np.float32(1), engine=ENGINE).dtype == np.float32


def test_strings_and_bytes_are_constants():
    s = np.array(["ab", None, "c"], dtype=object)
    got = rowjit.evaluate("s || k", s=s, k="!", engine=ENGINE)
    assert got.tolist() == ["ab!", None, "c!"]
    assert rowjit.evaluate("s = k", s=s, k="c", engine=ENGINE).tolist() == [False, None, True]
    b = np.array([b"x", b"yz"], dtype=object)
    assert rowjit.evaluate("length(b || k)", b=b, k=b"12", engine=ENGINE).tolist() == [3, 4]


def test_none_is_a_null_of_its_siblings_type():
    got = rowjit.evaluate("a + k", a=A, k=None, engine=ENGINE)
    assert got.dtype == np.int64 and got.mask.all()
    assert rowjit.evaluate("coalesce(k, a)", a=A, k=None, engine=ENGINE).tolist() == A.tolist()
    assert rowjit.aggregate("count(a + k)", a=A, k=None, engine=ENGINE) == 0


def test_dates_times_and_decimals_are_constants():
    t = np.array(["2024-01-31T10:00", "2024-03-01T00:00"], dtype="datetime64[us]")
    since = rowjit.evaluate("(t - k) / '1 hour'", t=t, k=datetime.datetime(2024, 1, 31), engine=ENGINE)
    assert since.tolist() == [10.0, 30 * 24.0]
    d = np.array(["2024-02-28", "2024-03-02"], dtype="datetime64[D]")
    assert rowjit.evaluate("d > k", d=d, k=datetime.date(2024, 3, 1), engine=ENGINE).tolist() == [False, True]
    assert rowjit.evaluate("t + k", t=t[:1], k=datetime.timedelta(hours=2), engine=ENGINE)[0] == \
        np.datetime64("2024-01-31T12:00", "us")
    p = np.array(["19.99", "2.50"], dtype=object)
    total = rowjit.evaluate("cast(cast(p, decimal64(12,2)) * k, utf8)", p=p, k=decimal.Decimal("1.5"), engine=ENGINE)
    assert total.tolist() == ["29.985", "3.750"]
    with pytest.raises(TypeError, match="has a time zone"):
        rowjit.evaluate("t > k", t=t, k=datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc), engine=ENGINE)


def test_a_scalar_does_not_recompile():
    engine = rowjit.Engine(synchronous=True)
    for k in range(5):
        assert rowjit.evaluate("a * k", a=A, k=k, engine=engine).tolist() == (A * k).tolist()
    assert engine.stats()["compiles"] == 1


def test_scalars_alone_make_one_row():
    assert rowjit.evaluate("k * 2", k=21, engine=ENGINE).tolist() == [42]


def test_scalars_in_a_batch_dict():
    assert rowjit.evaluate("a * k", {"a": A, "k": 2}, engine=ENGINE).tolist() == (A * 2).tolist()


# --- keywords ------------------------------------------------------------------------------------

def test_a_misspelled_option_is_a_type_error_with_a_suggestion():
    with pytest.raises(TypeError, match="unexpected keyword argument 'thread'.*did you mean 'threads'"):
        rowjit.evaluate("a + 1", a=A, thread=2, engine=ENGINE)
    with pytest.raises(TypeError, match="unexpected keyword argument 'vaild'.*did you mean 'valid'"):
        rowjit.filter("a > 1", a=A, vaild={"a": A > 0}, engine=ENGINE)
    with pytest.raises(TypeError, match="unexpected keyword argument 'price'.*did you mean 'prices'"):
        rowjit.evaluate("prices * 2", prices=A, price=A, engine=ENGINE)
    with pytest.raises(TypeError, match="unexpected keyword argument 'thread'"):
        ENGINE.evaluate("a + 1", a=A, thread=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'b'.*uses \\(a\\)"):
        rowjit.aggregate("sum(a)", a=A, b=A, engine=ENGINE)


def test_unused_columns_of_a_batch_are_fine():
    got = rowjit.evaluate("a + 1", {"a": A, "b": np.array(["not", "read"] * 3, dtype=object)}, engine=ENGINE)
    assert got.tolist() == (A + 1).tolist()


def test_a_column_given_twice_is_a_type_error():
    with pytest.raises(TypeError, match="column 'a' is given twice"):
        rowjit.evaluate("a + 1", {"a": A}, a=A, engine=ENGINE)


def test_a_column_named_like_an_option_goes_in_the_batch():
    got = rowjit.evaluate("threads + valid", {"threads": A, "valid": A}, engine=ENGINE)
    assert got.tolist() == (2 * A).tolist()


# --- names looked up in the caller's frame -------------------------------------------------------

def test_names_are_looked_up_in_the_callers_locals_then_globals():
    a = np.array([1, 2, 3], dtype=np.int64)
    k = 2
    assert rowjit.evaluate("a * k + SCALE", engine=ENGINE).tolist() == [12, 14, 16]
    assert ENGINE.evaluate("a * k").tolist() == [2, 4, 6]
    assert rowjit.aggregate("sum(a)", engine=ENGINE) == 6
    assert rowjit.filter("a > k", engine=ENGINE).tolist() == [2]
    assert [r.tolist() for r in rowjit.project(["a + k", "a * SCALE"], engine=ENGINE)] == [[3, 4, 5], [10, 20, 30]]


def test_keywords_come_before_the_frame():
    a = np.array([1, 2], dtype=np.int64)  # noqa: F841 (the keyword wins)
    assert rowjit.evaluate("a * 2", a=np.array([5, 6], dtype=np.int64), engine=ENGINE).tolist() == [10, 12]


def test_local_dict_and_global_dict_replace_the_frame():
    a = np.array([1, 2], dtype=np.int64)  # noqa: F841 (not read: local_dict replaces the locals)
    got = rowjit.evaluate("a + k", local_dict={"a": np.array([10, 20], dtype=np.int64)}, global_dict={"k": 1},
                          engine=ENGINE)
    assert got.tolist() == [11, 21]
    with pytest.raises(rowjit.Error, match="SCALE"):   # global_dict={} hides the module's globals
        rowjit.evaluate("a * SCALE", a=A, global_dict={}, engine=ENGINE)
    with pytest.raises(TypeError, match="local_dict= must be a dict or None, not list"):
        rowjit.evaluate("a + 1", a=A, local_dict=[], engine=ENGINE)


def test_a_name_found_that_is_not_a_column_is_a_type_error():
    with pytest.raises(TypeError, match="'inspect' is not a column: it was looked up in the caller's globals"):
        rowjit.evaluate("inspect + 1", engine=ENGINE)


def test_a_name_found_nowhere_is_the_binders_error():
    with pytest.raises(rowjit.Error, match="nowhere") as e:
        rowjit.evaluate("nowhere + 1", engine=ENGINE)
    assert e.value.kind == "invalid input"


def test_lookup_inside_a_function_sees_the_variables_it_closes_over():
    # As in numexpr: the frame's locals hold an enclosing function's variable only when the inner
    # function's code names it (a closure); a name only inside the expression's text is not one.
    k = 3

    def closes_over(a):
        assert k == 3
        return rowjit.evaluate("a * k", engine=ENGINE)

    def does_not(a):
        return rowjit.evaluate("a * k", engine=ENGINE)
    assert closes_over(A).tolist() == (A * 3).tolist()
    with pytest.raises(rowjit.Error, match="unknown column 'k'"):
        does_not(A)


# --- threads -------------------------------------------------------------------------------------

def test_threads_none_gives_the_same_result_at_any_length():
    for n in (10, 70_000, 2_200_000):
        a = np.arange(n, dtype=np.int32)
        np.testing.assert_array_equal(rowjit.evaluate("a * 2 + 1", a=a, engine=ENGINE), a * 2 + 1)
        np.testing.assert_array_equal(rowjit.evaluate("a * 2 + 1", a=a, threads=None, engine=ENGINE), a * 2 + 1)
