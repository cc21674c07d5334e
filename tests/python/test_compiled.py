"""rowjit.compile (tests): a compiled expression called with its arrays alone answers as evaluate
does over the same columns (values, nulls, row errors) for every numeric dtype, length and
expression shape; out= is written in place; wrong arrays are refused with the column named;
the engine may be dropped or closed around it; threads may share it."""
import threading

import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64]
EXPRESSIONS = ["a * b + c", "a - b", "a < b", "wrapping_mul(a, b)", "a + 1", "abs(a) + c / 2", "a / b"]


def _arrays(rng, dtype, n):
    if np.issubdtype(dtype, np.floating):
        return [rng.normal(0, 100, n).astype(dtype) for _ in range(3)]
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return [rng.integers(lo, hi, n, endpoint=True).astype(dtype) for _ in range(3)]


def _same(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    np.testing.assert_array_equal(np.ma.filled(got, 0), np.ma.filled(want, 0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_compiled_answers_as_evaluate(dtype):
    rng = np.random.default_rng(7)
    for text in EXPRESSIONS:
        try:
            want_type = ENGINE.evaluate(text, {"a": np.zeros(1, dtype), "b": np.ones(1, dtype),
                                               "c": np.ones(1, dtype)}).dtype
        except rowjit.Error:
            continue  # not an expression of this type (wrapping_mul of floats)
        f = ENGINE.compile(text, a=dtype, b=dtype, c=dtype)
        assert f.names == ["a", "b", "c"] and f.expr == text
        for n in (0, 1, 7, 63, 64, 65, 1000, 4099):
            a, b, c = _arrays(rng, dtype, n)
            b[b == 0] = 1  # division: no zero divisor (test_row_errors_are_evaluates divides by zero)
            seed = f"seed 7 {np.dtype(dtype)} {text} rows {n}"
            try:
                want = ENGINE.evaluate(text, {"a": a, "b": b, "c": c})
            except rowjit.Error as e:
                with pytest.raises(rowjit.Error) as got:
                    f(a, b, c)
                assert (got.value.kind, got.value.row) == (e.kind, e.row), seed
                continue
            _same(f(a, b, c), want)
            out = np.empty(n, dtype=want_type)
            assert f(a, b, c, out=out) is out, seed
            np.testing.assert_array_equal(out, np.ma.filled(want, 0))
            out[:] = 0
            assert f(a, b, c, out) is out, seed  # the output as one more positional argument
            np.testing.assert_array_equal(out, np.ma.filled(want, 0))


def test_row_errors_are_evaluates():
    f = ENGINE.compile("a * b", a=np.int32, b=np.int32)
    a = np.array([1, 2, 1 << 20, 4], dtype=np.int32)
    with pytest.raises(rowjit.Error) as e:
        f(a, a)
    assert (e.value.kind, e.value.row, e.value.function) == ("overflow", 2, "mul")
    g = ENGINE.compile("a / b", a=np.int64, b=np.int64)
    with pytest.raises(rowjit.Error) as e:
        g(np.array([1, 2, 3]), np.array([1, 0, 1]))
    assert (e.value.kind, e.value.row) == ("division by zero", 1)


def test_wrong_arrays_are_refused_by_name():
    f = ENGINE.compile("a + b", a=np.int32, b="float64")
    a, b = np.arange(4, dtype=np.int32), np.zeros(4)
    with pytest.raises(TypeError, match=r"'a \+ b' takes 2 arrays \(a, b\), not 1"):
        f(a)
    with pytest.raises(TypeError, match="'b' must be a numpy array, not list"):
        f(a, [0.0] * 4)
    with pytest.raises(ValueError, match="'b' must be a contiguous, aligned, native-endian 1-d float64 array"):
        f(a, b.astype(np.float32))
    with pytest.raises(ValueError, match="'a' must be a contiguous, aligned, native-endian 1-d int32 array"):
        f(np.arange(8, dtype=np.int32)[::2], b)
    with pytest.raises(ValueError, match="'a' must be a contiguous, aligned, native-endian 1-d int32 array"):
        f(np.zeros((2, 2), dtype=np.int32), b)
    with pytest.raises(ValueError, match="'a' must be a contiguous, aligned, native-endian 1-d int32 array"):
        f(a.astype(">i4"), b)
    with pytest.raises(ValueError, match="'b' has 3 rows and 'a' 4"):
        f(a, b[:3])
    with pytest.raises(ValueError, match="out= must be a writable, contiguous 1-d float64 array of 4 rows"):
        f(a, b, out=np.empty(4, dtype=np.int32))
    with pytest.raises(TypeError, match="got the output twice"):
        f(a, b, np.empty(4), out=np.empty(4))
    with pytest.raises(TypeError, match=r"takes 2 arrays \(a, b\), not 4"):
        f(a, b, b, b)
    with pytest.raises(TypeError, match="'a' is a masked array"):
        f(np.ma.masked_array(a, [0, 1, 0, 0]), b)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'b': the arrays are passed positionally"):
        f(a, b=b)
    with pytest.raises(TypeError, match="unexpected keyword argument 'outt': the one keyword is out="):
        f(a, b, outt=b)
    with pytest.raises(rowjit.Error, match="overlap an input's"):
        f(a, b, out=b)
    np.testing.assert_array_equal(b, 0)  # the input refused as out= is untouched


def test_only_numeric_columns_compile():
    with pytest.raises(TypeError, match="compile takes numeric columns .*'a' is bool"):
        rowjit.compile("not a", a=np.bool_)
    with pytest.raises(TypeError, match="compile takes numeric columns .*'d'"):
        rowjit.compile("d", d="datetime64[D]")
    with pytest.raises(TypeError, match="'a' is not a numpy dtype: 'int33'"):
        rowjit.compile("a", a="int33")
    with pytest.raises(TypeError, match="the expression must be a str"):
        rowjit.compile(3, a=np.int32)
    with pytest.raises(rowjit.Error, match="unknown column 'z'"):
        rowjit.compile("z + 1", a=np.int32)
    with pytest.raises(TypeError, match="at least one column's dtype"):
        rowjit.compile("1 + 2")


def test_the_engine_may_go_first():
    engine = rowjit.Engine(synchronous=True)
    f = engine.compile("a * 2", a=np.int64)
    del engine  # the compiled expression keeps it
    np.testing.assert_array_equal(f(np.arange(3)), [0, 2, 4])
    closing = rowjit.Engine(synchronous=True)
    g = closing.compile("a * 2", a=np.int64)
    closing._close()  # as the interpreter's exit does
    with pytest.raises(RuntimeError, match="engine was closed"):
        g(np.arange(3))


def test_threads_share_a_compiled_expression():
    f = ENGINE.compile("a * b + c", a=np.int64, b=np.int64, c=np.int64)
    a = np.arange(1 << 16, dtype=np.int64)
    want = a * a + 1
    errors = []

    def run():
        for _ in range(50):
            if not np.array_equal(f(a, a, np.ones_like(a)), want):
                errors.append("differs")

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
