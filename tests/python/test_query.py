"""rowjit.aggregate's aggregate queries (several aggregates, by=, where=, FILTER, avg, count(*))
and rowjit.QueryState (fold, merge, bytes, finish): expected values worked out by hand."""
import pickle

import numpy as np
import pandas as pd
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)
G = np.array([2, 1, 2, 1, 3, 2], dtype=np.int32)
X = np.array([10, 20, 30, 40, 50, 60], dtype=np.int32)
Y = np.array([1.0, -2.0, 3.0, 4.0, -5.0, 0.5])


def test_grouped_sum_avg_count():
    r = rowjit.aggregate(["sum(x)", "avg(y)", "count(*)"], by="g", engine=ENGINE, g=G, x=X, y=Y)
    assert list(r) == ["g", "sum(x)", "avg(y)", "count(*)"]
    np.testing.assert_array_equal(r["g"], [1, 2, 3])                # ascending keys
    np.testing.assert_array_equal(r["sum(x)"], [60, 100, 50])       # 20+40, 10+30+60, 50
    np.testing.assert_array_equal(r["avg(y)"], [1.0, 1.5, -5.0])    # (-2+4)/2, (1+3+0.5)/3
    np.testing.assert_array_equal(r["count(*)"], [2, 3, 1])


def test_where_drops_rows_and_a_group_with_none_left():
    r = rowjit.aggregate(["sum(x)", "count(*)"], by="g", where="y > 0", engine=ENGINE, g=G, x=X, y=Y)
    np.testing.assert_array_equal(r["g"], [1, 2])                   # group 3's only row has y < 0
    np.testing.assert_array_equal(r["sum(x)"], [40, 100])
    np.testing.assert_array_equal(r["count(*)"], [1, 3])


def test_filter_per_aggregate_keeps_the_written_name():
    r = rowjit.aggregate(["count(*)", "max(x) filter (where y > 0)"], by="g", engine=ENGINE, g=G, x=X, y=Y)
    got = r["max(x) filter (where y > 0)"]
    np.testing.assert_array_equal(np.ma.getmaskarray(got), [False, False, True])  # group 3: no row passes
    assert got[0] == 40 and got[1] == 60
    np.testing.assert_array_equal(r["count(*)"], [2, 3, 1])


def test_several_keys_and_nulls_as_one_group_last():
    g = np.ma.MaskedArray([1, 1, 0, 1, 0, 0], mask=[False, False, True, False, True, False]).astype(np.int32)
    h = np.array([1, 2, 1, 1, 1, 1], dtype=np.int8)
    r = rowjit.aggregate(["sum(x)", "count(*)"], by=["g", "h"], engine=ENGINE, g=g, h=h, x=X)
    # keys (g, h): (0, 1): row 5; (1, 1): rows 0, 3; (1, 2): row 1; (null, 1): rows 2, 4
    np.testing.assert_array_equal(np.ma.getmaskarray(r["g"]), [False, False, False, True])
    np.testing.assert_array_equal(r["g"].compressed(), [0, 1, 1])
    np.testing.assert_array_equal(r["h"], [1, 1, 2, 1])
    np.testing.assert_array_equal(r["sum(x)"], [60, 50, 20, 80])
    np.testing.assert_array_equal(r["count(*)"], [1, 2, 1, 2])


def test_null_arguments_count_star_counts_them():
    x = np.ma.MaskedArray(X, mask=[False, True, False, False, False, True])
    r = rowjit.aggregate(["count(x)", "count(*)", "sum(x)"], by="g", engine=ENGINE, g=G, x=x)
    np.testing.assert_array_equal(r["count(x)"], [1, 2, 1])   # g=1: row 3; g=2: rows 0, 2
    np.testing.assert_array_equal(r["count(*)"], [2, 3, 1])
    np.testing.assert_array_equal(r["sum(x)"], [40, 40, 50])


def test_one_aggregate_without_keys_is_a_value():
    assert rowjit.aggregate("sum(x)", engine=ENGINE, x=X) == 210                  # the single-aggregate path
    assert rowjit.aggregate("avg(y)", engine=ENGINE, y=Y) == pytest.approx(0.25)  # 1.5 / 6
    assert rowjit.aggregate("count(*)", where="x > 25", engine=ENGINE, x=X) == 4
    assert rowjit.aggregate("max(x) filter (where y < 0)", engine=ENGINE, x=X, y=Y) == 50
    assert rowjit.aggregate("sum(x)", where="x > 100", engine=ENGINE, x=X) is None  # no row: SQL's null
    # A list, or as_frame=, makes a table of one row even without keys.
    assert rowjit.aggregate(["sum(x)", "count(*)"], engine=ENGINE, x=X) == {"sum(x)": 210, "count(*)": 6}


def test_query_text_in_one_string():
    r = rowjit.aggregate("sum(x) group by g where y > 0", engine=ENGINE, g=G, x=X, y=Y)
    np.testing.assert_array_equal(r["g"], [1, 2])
    np.testing.assert_array_equal(r["sum(x)"], [40, 100])


def test_dataframe_in_dataframe_out():
    frame = pd.DataFrame({"g": pd.array([1, None, 1, 2], dtype="Int32"), "s": ["a", "b", "a", "b"],
                          "x": pd.array([1, 2, None, 4], dtype="Int64")})
    r = rowjit.aggregate(["sum(x)", "count(*)"], frame, by=["s", "g"], engine=ENGINE)
    assert isinstance(r, pd.DataFrame) and list(r.columns) == ["s", "g", "sum(x)", "count(*)"]
    assert r["s"].tolist() == ["a", "b", "b"]                 # ('a', 1), ('b', 2), ('b', null)
    assert r["g"].tolist()[:2] == [1, 2] and r["g"].isna().tolist() == [False, False, True]
    assert r["sum(x)"].tolist() == [1, 4, 2]                 # row 2's x is null
    assert r["count(*)"].tolist() == [2, 1, 1]
    d = rowjit.aggregate(["sum(x)"], frame, by="s", as_frame=False, engine=ENGINE)
    assert isinstance(d, dict) and d["sum(x)"].tolist() == [1, 6]
    f = rowjit.aggregate("sum(x)", by="g", as_frame=True, engine=ENGINE, g=G, x=X)
    assert isinstance(f, pd.DataFrame) and f["sum(x)"].tolist() == [60, 100, 50]


def test_errors():
    with pytest.raises(rowjit.Error, match="unknown column 'xx' \\(did you mean 'x'\\?\\)") as e:
        rowjit.aggregate(["sum(xx)", "count(*)"], by="g", engine=ENGINE, g=G, x=X)
    assert e.value.text == "sum(xx), count(*) group by g" and e.value.span == (4, 2)
    with pytest.raises(rowjit.Error, match="unknown column 'h'"):
        rowjit.aggregate("sum(x)", by="h", engine=ENGINE, x=X)
    with pytest.raises(TypeError, match="by= must be a str or a non-empty list of str, not int"):
        rowjit.aggregate("sum(x)", by=1, engine=ENGINE, x=X)
    with pytest.raises(TypeError, match="where= must be a str or None"):
        rowjit.aggregate("sum(x)", where=True, engine=ENGINE, x=X)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        rowjit.aggregate(["sum(x)"], by="g", engine=ENGINE, g=G, x=X, z=X)
    with pytest.raises(rowjit.Error, match="division by zero") as e:  # a row error names its row
        rowjit.aggregate(["sum(100 / x)"], by="g", engine=ENGINE, g=G, x=np.array([1, 2, 3, 0, 5, 6], np.int32))
    assert e.value.row == 3


def test_names_come_from_the_caller_frame():
    g, x = G, X  # noqa: F841 (read by name)
    r = rowjit.aggregate(["sum(x)"], by="g", engine=ENGINE)
    np.testing.assert_array_equal(r["sum(x)"], [60, 100, 50])


def test_state_folds_merges_and_travels_as_bytes():
    q = (["sum(x)", "avg(y)", "count(*)"],)
    first = rowjit.QueryState(*q, by="g", engine=ENGINE).fold(g=G[:3], x=X[:3], y=Y[:3])
    second = rowjit.QueryState(*q, by="g", engine=ENGINE)
    # Columns in another order and with nulls fold into a state bound without them.
    second.fold({"y": Y[3:], "x": np.ma.MaskedArray(X[3:], mask=[False, False, True]), "g": G[3:]})
    assert first.groups == 2 and second.groups == 3
    back = rowjit.QueryState.from_bytes(second.to_bytes(), engine=ENGINE)
    merged = pickle.loads(pickle.dumps(first)).merge(back)
    r = merged.finish()
    np.testing.assert_array_equal(r["g"], [1, 2, 3])
    np.testing.assert_array_equal(r["sum(x)"], [60, 40, 50])       # row 5 (60) is null
    np.testing.assert_array_equal(r["avg(y)"], [1.0, 1.5, -5.0])
    np.testing.assert_array_equal(r["count(*)"], [2, 3, 1])
    assert merged.finish(as_frame=True)["sum(x)"].tolist() == [60, 40, 50]
    assert merged.text == "sum(x), avg(y), count(*) group by g"


def test_state_errors():
    s = rowjit.QueryState("sum(x)", by="g", engine=ENGINE)
    with pytest.raises(ValueError, match="no batch was folded"):
        s.finish()
    s.fold(g=G, x=X)
    with pytest.raises(ValueError, match="column 'x' is f64 in this batch and i32"):
        s.fold(g=G, x=Y)
    with pytest.raises(ValueError, match="no column 'g'"):
        s.fold({"x": X, "h": G})
    with pytest.raises(ValueError, match="different queries"):
        s.merge(rowjit.QueryState("sum(x)", engine=ENGINE).fold(x=X))
    with pytest.raises(ValueError, match="not the bytes of a rowjit.QueryState"):
        rowjit.QueryState.from_bytes(b"nonsense")
    with pytest.raises(TypeError, match="takes a QueryState"):
        s.merge(5)
