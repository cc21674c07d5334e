"""pandas in and out (tests): Series and DataFrames in every call, pandas' nullable extension
dtypes with pd.NA as null, object and string columns with None/NaN, results as Series over the
input's index with pandas' nullable dtype for a nullable result."""
import numpy as np
import pandas as pd
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)
INDEX = pd.Index([10, 20, 30, 40], name="id")


@pytest.mark.parametrize("dtype", ["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"])
def test_nullable_integers(dtype):
    s = pd.Series(pd.array([1, None, 3, 4], dtype=dtype), index=INDEX)
    got = rowjit.evaluate("x + x", x=s, engine=ENGINE)
    assert isinstance(got, pd.Series) and str(got.dtype) == dtype
    assert got.index.equals(INDEX)
    assert got.tolist() == [2, pd.NA, 6, 8]
    assert rowjit.aggregate("sum(x)", x=s, engine=ENGINE) == 8
    assert rowjit.aggregate("count(x)", x=s, engine=ENGINE) == 3


@pytest.mark.parametrize("dtype", ["Float32", "Float64"])
def test_nullable_floats(dtype):
    s = pd.Series(pd.array([1.5, None, 3.0, np.nan], dtype=dtype))
    got = rowjit.evaluate("x * 2", x=s, engine=ENGINE)
    assert str(got.dtype) == dtype
    assert got[0] == 3.0 and got[1] is pd.NA and got[2] == 6.0


def test_nullable_boolean():
    s = pd.Series(pd.array([True, None, False, True], dtype="boolean"))
    got = rowjit.evaluate("not b", b=s, engine=ENGINE)
    assert str(got.dtype) == "boolean" and got.tolist() == [False, pd.NA, True, False]
    assert rowjit.aggregate("any(b)", b=s, engine=ENGINE) is True


def test_string_and_object_columns_with_missing_values():
    for s in (pd.Series(["ab", None, "c", pd.NA], dtype="string"),
              pd.Series(["ab", None, "c", np.nan], dtype=object)):
        got = rowjit.evaluate("upper(s) || '!'", s=s, engine=ENGINE)
        assert str(got.dtype) == "string"
        assert got.tolist() == ["AB!", pd.NA, "C!", pd.NA]
        assert rowjit.filter("length(s) = 1", s=s, engine=ENGINE).tolist() == [2]


def test_numpy_backed_columns_give_numpy_dtypes():
    frame = pd.DataFrame({"a": np.arange(4, dtype=np.int32), "f": [0.5, np.nan, 1.0, 2.0]}, index=INDEX)
    got = rowjit.evaluate("a * 3", frame, engine=ENGINE)
    assert got.dtype == np.int32 and got.tolist() == [0, 3, 6, 9] and got.index.equals(INDEX)
    f = rowjit.evaluate("f * 2", frame, engine=ENGINE)   # NaN in a float64 column stays NaN, not null
    assert f.dtype == np.float64 and np.isnan(f[20]) and f[40] == 4.0


def test_dataframe_as_the_batch():
    frame = pd.DataFrame({"price": [1.5, 2.0, 4.0, 8.0], "qty": pd.array([2, None, 3, 1], dtype="Int32"),
                          "note": ["x", "y", "z", "w"], 0: [1, 2, 3, 4]}, index=INDEX)
    got = rowjit.evaluate("price * cast(qty, f64)", frame, engine=ENGINE)
    assert str(got.dtype) == "Float64" and got.index.equals(INDEX)
    assert got.tolist() == [3.0, pd.NA, 12.0, 8.0]
    kept = rowjit.filter("price > 1.9 and qty > 1", frame, engine=ENGINE)
    assert isinstance(kept, pd.DataFrame) and kept.index.tolist() == [30]
    a, b = rowjit.project(["qty * 2", "price + 1"], frame, engine=ENGINE)
    assert a.tolist() == [4, pd.NA, 6, 2] and b.tolist() == [2.5, 3.0, 5.0, 9.0]
    assert rowjit.aggregate("sum(price)", frame, engine=ENGINE) == 15.5
    assert rowjit.evaluate("price * k", frame, k=2.0, engine=ENGINE).tolist() == [3.0, 4.0, 8.0, 16.0]


def test_unused_dataframe_columns_of_any_dtype_are_not_read():
    frame = pd.DataFrame({"a": [1, 2], "period": pd.period_range("2024-01", periods=2, freq="M")})
    assert rowjit.evaluate("a + 1", frame, engine=ENGINE).tolist() == [2, 3]
    with pytest.raises(TypeError, match="column 'period' has dtype period"):
        rowjit.evaluate("period", frame, engine=ENGINE)


def test_series_keywords_take_the_first_series_index():
    a = pd.Series([1, 2, 3], index=["x", "y", "z"])
    b = np.array([10, 20, 30])
    got = rowjit.evaluate("a + b", a=a, b=b, engine=ENGINE)
    assert got.index.tolist() == ["x", "y", "z"] and got.tolist() == [11, 22, 33]


def test_datetimes_and_categoricals():
    t = pd.Series(pd.to_datetime(["2024-01-31 10:00", None, "2024-03-01"]))
    got = rowjit.evaluate("year(t) * 100 + month(t)", t=t, engine=ENGINE)
    assert got.tolist() == [202401, pd.NA, 202403]
    shifted = rowjit.evaluate("t + '1 day'", t=t, engine=ENGINE)
    assert shifted.dtype.kind == "M" and pd.isna(shifted[1]) and shifted[0] == pd.Timestamp("2024-02-01 10:00")
    c = pd.Series(pd.Categorical(["a", None, "b", "a"]))
    assert rowjit.evaluate("c = 'a'", c=c, engine=ENGINE).tolist() == [True, pd.NA, False, True]
    with pytest.raises(TypeError, match="has a time zone"):
        rowjit.evaluate("year(t)", t=t.dt.tz_localize("UTC"), engine=ENGINE)


def test_pandas_na_scalar_is_null():
    got = rowjit.evaluate("a + k", a=pd.Series([1, 2]), k=pd.NA, engine=ENGINE)
    assert str(got.dtype) == "Int64" and got.isna().all()


def test_errors_keep_their_row():
    s = pd.Series(pd.array([1, 2**62, None], dtype="Int64"))
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("x * 4", x=s, engine=ENGINE)
    assert e.value.kind == "overflow" and e.value.row == 1


def test_array_and_record_batch_take_pandas():
    s = pd.Series(pd.array([1, None], dtype="Int16"))
    assert rowjit.array(s).null_count == 1 and rowjit.array(s).type == "i16?"
    batch = rowjit.record_batch(pd.DataFrame({"a": [1, 2], "s": ["x", None]}))
    assert batch.names == ["a", "s"] and batch.num_rows == 2
