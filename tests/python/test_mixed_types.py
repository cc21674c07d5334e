"""Columns of different numeric dtypes in one expression (tests): the binder's implicit SQL
promotion (docs/semantics.md, Binding) seen from Python, with the dtypes numpy gets back. The
Python layer passes dtypes through unchanged: the promotion is the binder's alone."""
import numpy as np
import pandas as pd
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)


def test_int32_column_plus_float64_column_is_float64():
    a = np.array([1, 2, 3], dtype=np.int32)
    f = np.array([0.5, 1.5, 2.5])
    got = rowjit.evaluate("a + f", a=a, f=f, engine=ENGINE)
    assert got.dtype == np.float64 and got.tolist() == [1.5, 3.5, 5.5]


def test_int32_with_float32_is_float32():
    got = rowjit.evaluate("a * f", a=np.array([3, 4], dtype=np.int32), f=np.array([0.5, 2], dtype=np.float32),
                          engine=ENGINE)
    assert got.dtype == np.float32 and got.tolist() == [1.5, 8.0]


def test_uint8_below_300_is_always_true():
    u = np.array([0, 200, 255], dtype=np.uint8)
    assert rowjit.evaluate("u < 300", u=u, engine=ENGINE).tolist() == [True, True, True]
    assert rowjit.filter("u >= 300", u=u, engine=ENGINE).tolist() == []


def test_int8_plus_1000_widens_to_int16():
    i = np.array([-5, 100, 127], dtype=np.int8)
    got = rowjit.evaluate("i + 1000", i=i, engine=ENGINE)
    assert got.dtype == np.int16 and got.tolist() == [995, 1100, 1127]


def test_signed_with_unsigned_meet_in_a_signed_type():
    i = np.array([-1, 2], dtype=np.int8)
    u = np.array([255, 3], dtype=np.uint8)
    got = rowjit.evaluate("i + u", i=i, u=u, engine=ENGINE)
    assert got.dtype == np.int16 and got.tolist() == [254, 5]
    with pytest.raises(rowjit.Error) as e:   # u64 with a signed type has no common integer type
        rowjit.evaluate("x + y", x=np.array([1], dtype=np.uint64), y=np.array([1], dtype=np.int64), engine=ENGINE)
    assert e.value.kind == "type error"


def test_a_python_int_scalar_widens_an_int32_column_to_int64():
    a = np.array([2**31 - 1, 5], dtype=np.int32)
    got = rowjit.evaluate("a + k", a=a, k=1, engine=ENGINE)   # k: i64, so no overflow
    assert got.dtype == np.int64 and got.tolist() == [2**31, 6]
    assert rowjit.evaluate("a + k", a=a[1:], k=np.int32(1), engine=ENGINE).dtype == np.int32


def test_pandas_nullable_columns_of_different_dtypes():
    frame = pd.DataFrame({"q": pd.array([2, None, 4], dtype="Int32"), "p": pd.array([0.5, 1.0, None], dtype="Float64")})
    got = rowjit.evaluate("q * p", frame, engine=ENGINE)
    assert str(got.dtype) == "Float64" and got.tolist() == [1.0, pd.NA, pd.NA]
    small = pd.Series(pd.array([1, None, 250], dtype="UInt8"))
    assert rowjit.evaluate("s < 300", s=small, engine=ENGINE).tolist() == [True, pd.NA, True]
