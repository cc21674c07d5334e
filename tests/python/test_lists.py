"""Lists from Python (tests): an object array (or a Python list) whose rows are sequences or 1-d
arrays is a list column, None rows null rows and None elements null elements; the list functions
over it give the values written out here by hand; rows that are no lists are refused with the
column and row named."""
import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)


def _rows(a):
    return [None if (isinstance(x, float) and np.isnan(x)) else x for x in np.asarray(a, dtype=object)]


def _col(*rows):
    out = np.empty(len(rows), dtype=object)
    for i, r in enumerate(rows):
        out[i] = r
    return out


def test_functions_over_object_rows():
    l = _col([3, None, -7], [], None, [None], np.array([5], dtype=np.int64))
    assert list(ENGINE.evaluate("len(l)", l=l).filled(-1)) == [3, 0, -1, 1, 1]
    assert list(ENGINE.evaluate("l[1]", l=l).filled(-99)) == [3, -99, -99, -99, 5]
    assert list(ENGINE.evaluate("l[-1]", l=l).filled(-99)) == [-7, -99, -99, -99, 5]
    assert list(ENGINE.evaluate("list_sum(l)", l=l).filled(-99)) == [-4, -99, -99, -99, 5]
    assert list(ENGINE.evaluate("list_contains(l, -7)", l=l).filled(False)) == [True, False, False, False, False]
    got = ENGINE.evaluate("list_contains(l, -7)", l=l)
    assert list(np.ma.getmaskarray(got)) == [False, False, True, False, False]


def test_ragged_python_lists_floats_and_strings():
    assert list(ENGINE.evaluate("list_avg(f)", f=[[1.5, 2.5], [1, 2, 4.5], [-1.0]])) == [2.0, 2.5, -1.0]
    t = [["ab", "c"], [], ["x"], None]
    assert _rows(ENGINE.evaluate("t[1]", t=t)) == ["ab", None, "x", None]
    assert list(ENGINE.evaluate("list_contains(t, 'c')", t=t).filled(False)) == [True, False, False, False]
    # numpy's promotion: ints and floats in one column are f64 elements.
    assert list(ENGINE.evaluate("list_max(m)", m=[[1, 2.5], [3]])) == [2.5, 3.0]


def test_lists_of_arrays_and_a_filter():
    rng = np.random.default_rng(7)
    rows = [rng.integers(-100, 100, int(n), dtype=np.int32) for n in rng.integers(0, 12, 500)]
    l = _col(*rows)
    sums = ENGINE.evaluate("list_sum(l)", l=l)
    for i, r in enumerate(rows):
        if len(r) == 0:
            assert sums.mask[i]
        else:
            assert sums[i] == int(r.astype(np.int64).sum())
    kept = ENGINE.filter("len(l) > 5 and list_max(l) > 50", l=l)
    assert list(kept) == [i for i, r in enumerate(rows) if len(r) > 5 and r.max() > 50]


def test_rows_that_are_no_lists_are_refused():
    with pytest.raises(TypeError, match="column 'l' row 1 holds int where a list"):
        ENGINE.evaluate("len(l)", l=_col([1], 2))
    with pytest.raises(TypeError, match="row 0 is a 2-d array"):
        ENGINE.evaluate("len(l)", l=_col(np.zeros((2, 2)), [1]))
    with pytest.raises(TypeError, match="row 0 is a list of lists"):
        ENGINE.evaluate("len(l)", l=_col([[1], [2, 3]], [3]))


def test_a_list_result_is_an_object_array_of_arrays():
    got = ENGINE.evaluate("list_transform(l, x -> x * 10)", l=_col([1, 2], None, [], [3]))
    assert got.dtype == object and got[1] is None
    assert [list(r) for r in got[[0, 2, 3]]] == [[10, 20], [], [30]]
    kept = ENGINE.evaluate("list_filter(t, s -> s > 'b')", t=[["a", "c"], ["d"]])
    assert [list(r) for r in kept] == [["c"], ["d"]]
    with pytest.raises(TypeError, match="out= takes no string, vector or nested results"):
        ENGINE.evaluate("list_transform(l, x -> x)", l=_col([1]), out=np.empty(1))


def test_built_structs_lists_and_maps():
    a = np.array([1, 2, 3], dtype=np.int32)
    b = np.ma.masked_array(np.array([10.0, 20.0, 30.0]), mask=[False, True, False])
    got = ENGINE.evaluate("struct_pack(a, half := b / 2)", a=a, b=b)
    assert got.dtype == object
    assert list(got) == [{"a": 1, "half": 5.0}, {"a": 2, "half": None}, {"a": 3, "half": 15.0}]
    rows = ENGINE.evaluate("[a, a * 10]", a=a)
    assert [list(r) for r in rows] == [[1, 10], [2, 20], [3, 30]]
    assert list(ENGINE.evaluate("list_sum([a, a, 1])", a=a)) == [3, 5, 7]
    maps = ENGINE.evaluate("map(['x', 'y'], [a, a + 1])", a=a)
    assert list(maps) == [{"x": 1, "y": 2}, {"x": 2, "y": 3}, {"x": 3, "y": 4}]
    with pytest.raises(rowjit.Error, match="map: 1 key and 2 values: its lists pair in order"):
        ENGINE.evaluate("map(['x'], [a, a])", a=a)


def test_built_values_in_projections_arrow_and_compile():
    a = np.array([1, 2], dtype=np.int32)
    rows, sums = ENGINE.project(["[a, 1]", "a + 1"], a=a)
    assert [list(r) for r in rows] == [[1, 1], [2, 1]] and list(sums) == [2, 3]
    shown = repr(ENGINE.evaluate("struct_pack(a, b := a * 2)", a=a, arrow=True))
    assert "{a: 1, b: 2}" in shown, shown
    assert "{'k': 1}" in repr(ENGINE.evaluate("map(['k'], [a])", a=a, arrow=True))
    with pytest.raises(TypeError, match="gives struct<a:i32"):
        rowjit.compile("struct_pack(a)", a=np.int32)


def test_dict_rows_are_a_struct_column():
    rows = _col({"x": 1, "name": "a"}, None, {"name": "c"}, {"x": 4, "name": None, "extra": 2.5})
    got = ENGINE.evaluate("s.x * 10", s=rows)
    assert list(np.ma.getmaskarray(got)) == [False, True, True, False]
    assert list(got.filled(-1)) == [10, -1, -1, 40]
    assert _rows(ENGINE.evaluate("upper(s.name)", s=rows)) == ["A", None, "C", None]
    assert list(ENGINE.evaluate("s.extra is null", s=rows)) == [True, True, True, False]
    back = ENGINE.evaluate("s", s=_col({"x": 1, "tags": [1, 2]}, {"x": 2, "tags": []}))
    assert back[0]["x"] == 1 and list(back[0]["tags"]) == [1, 2] and back[1]["x"] == 2
    with pytest.raises(TypeError, match="row 1 holds int where a dict"):
        ENGINE.evaluate("s.x", s=_col({"x": 1}, 3))
