"""rowjit.dask on a dask.distributed LocalCluster of two worker processes (tests): results equal
the single-process ones over data of many partitions (arrays, masked arrays, dataframes with
pandas nullable dtypes), errors name the partition and the row, and the two workers' engines
share one kernel cache folder in which every kernel was compiled once."""
import os

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import rowjit
import rowjit.dask

N = 1_000_003  # ten full partitions of 100,000 rows and a short one
CHUNK = 100_000


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def columns():
    r = np.random.default_rng(11)
    return {k: r.integers(-1000, 1000, N).astype(np.int32) for k in "abc"}


def test_arrays_equal_the_single_process_results(client, columns, tmp_path):
    a, b, c = columns["a"], columns["b"], columns["c"]
    A, B, C = (da.from_array(x, chunks=CHUNK) for x in (a, b, c))
    folder = str(tmp_path)
    got = rowjit.dask.evaluate("a * b + c", a=A, b=B, c=C, cache_dir=folder, synchronous=True)
    assert got.dtype == np.int32 and got.numblocks == (11,)
    np.testing.assert_array_equal(got.compute(), rowjit.evaluate("a * b + c", a=a, b=b, c=c))
    rows = rowjit.dask.filter("a * b > 1000", a=A, b=B, cache_dir=folder, synchronous=True).compute()
    np.testing.assert_array_equal(rows, np.nonzero(a.astype(np.int64) * b > 1000)[0])
    assert rows.dtype == np.int64
    total = rowjit.dask.aggregate("sum(a * b)", a=A, b=B, cache_dir=folder, synchronous=True).compute()
    assert total == rowjit.aggregate("sum(a * b)", a=a, b=b) == int((a.astype(np.int64) * b).sum())
    assert rowjit.dask.aggregate("min_max(c)", c=C, cache_dir=folder, synchronous=True).compute() == \
        (int(c.min()), int(c.max()))
    assert rowjit.dask.aggregate("count(a)", a=A, cache_dir=folder, synchronous=True).compute() == N

    # One kernel cache for the machine: both workers used it, and no kernel was compiled twice
    # (the cross-process claim: the second process waits, then reads the first one's object).
    stats = [s[folder + " (synchronous)"] for s in rowjit.dask.worker_stats(client).values()
             if folder + " (synchronous)" in s]
    assert len(stats) == 2, "both workers ran partitions"
    objects = [f for f in os.listdir(folder) if f.endswith(".rjk")]
    assert sum(s["compiles"] for s in stats) == len(objects) > 0
    assert sum(s["disk_loads"] for s in stats) >= 1


def test_masked_arrays_keep_their_nulls(client, columns, tmp_path):
    a, b = columns["a"], columns["b"]
    mask = np.random.default_rng(2).random(N) < 0.2
    am = np.ma.MaskedArray(a, mask=mask)
    A = da.ma.masked_array(da.from_array(a, chunks=CHUNK), mask=da.from_array(mask, chunks=CHUNK))
    B = da.from_array(b, chunks=CHUNK)
    got = rowjit.dask.evaluate("a * 2 - b", a=A, b=B, cache_dir=str(tmp_path)).compute()
    want = rowjit.evaluate("a * 2 - b", a=am, b=b)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), mask)
    np.testing.assert_array_equal(got.compressed(), want.compressed())
    assert rowjit.dask.aggregate("sum(a)", a=A, cache_dir=str(tmp_path)).compute() == int(a[~mask].astype(np.int64).sum())
    all_null = da.ma.masked_array(da.from_array(a, chunks=CHUNK), mask=np.ones(N, bool))
    assert rowjit.dask.aggregate("max(a)", a=all_null, cache_dir=str(tmp_path)).compute() is None


def test_errors_name_the_partition_and_the_global_row(client, columns, tmp_path):
    bad = columns["a"].copy()
    bad[654_321] = 2**30
    with pytest.raises(rowjit.Error) as e:
        rowjit.dask.evaluate("a * 4", a=da.from_array(bad, chunks=CHUNK), cache_dir=str(tmp_path)).compute()
    assert (e.value.partition, e.value.row, e.value.kind, e.value.function) == (6, 654_321, "overflow", "mul")
    assert "partition 6" in str(e.value)
    with pytest.raises(rowjit.Error) as e:
        rowjit.dask.aggregate("sum(a * 4)", a=da.from_array(bad, chunks=CHUNK), cache_dir=str(tmp_path)).compute()
    assert (e.value.partition, e.value.row) == (6, 654_321)
    # Partial sums of i64 that together pass 2^63: exact wide sums (decimal(38,0), Python ints), as in one process.
    big = da.from_array(np.full(4, 2**62, dtype=np.int64), chunks=1)
    assert rowjit.dask.aggregate("sum(a)", a=big, cache_dir=str(tmp_path)).compute() == 2**64
    assert rowjit.aggregate("sum(a)", a=np.full(4, 2**62, dtype=np.int64)) == 2**64


def test_dataframes_with_nullable_columns(client, tmp_path):
    r = np.random.default_rng(5)
    n = 40_000
    qty = pd.array(r.integers(0, 20, n), dtype="Int32")
    qty[r.random(n) < 0.1] = pd.NA
    frame = pd.DataFrame({"price": r.random(n) * 100, "qty": qty, "flag": r.random(n) < 0.5,
                          "label": ["x"] * n})  # a string column, not read
    ddf = dd.from_pandas(frame, npartitions=4)
    folder = str(tmp_path)
    got = rowjit.dask.evaluate("price * cast(qty, f64)", ddf, cache_dir=folder, name="total").compute()
    assert got.name == "total" and str(got.dtype) == "Float64"
    want = rowjit.evaluate("price * cast(qty, f64)", price=frame["price"].to_numpy(),
                           qty=np.ma.MaskedArray(qty._data, mask=qty._mask))
    np.testing.assert_array_equal(got.isna().to_numpy(), np.ma.getmaskarray(want))
    np.testing.assert_array_equal(got.dropna().to_numpy(dtype=np.float64), want.compressed())
    kept = rowjit.dask.filter("flag and qty > 10", ddf, cache_dir=folder).compute()
    pd.testing.assert_frame_equal(kept, frame[(frame["flag"] & (frame["qty"] > 10)).fillna(False).to_numpy(bool)])
    assert rowjit.dask.aggregate("sum(qty)", ddf, cache_dir=folder).compute() == int(qty.sum())
    with pytest.raises(rowjit.Error) as e:
        rowjit.dask.evaluate("qty / (qty - qty)", ddf, cache_dir=folder).compute()
    assert e.value.kind == "division by zero" and e.value.partition is not None and e.value.row is not None


def test_wrong_argument_types_are_refused_before_compute():
    a = da.from_array(np.arange(10, dtype=np.int32), chunks=5)
    with pytest.raises(TypeError, match="cache_dir= must be a str or None, not int"):
        rowjit.dask.evaluate("a + 1", a=a, cache_dir=5)
    with pytest.raises(TypeError, match="synchronous= must be True or False, not str"):
        rowjit.dask.filter("a > 1", a=a, synchronous="yes")
    with pytest.raises(TypeError, match="the aggregate must be a str, not int"):
        rowjit.dask.aggregate(5, a=a)
    with pytest.raises(ValueError, match="is not valid text"):
        rowjit.dask.evaluate("a + \ud800", a=a)


def test_scalars_names_and_keywords_as_the_module_takes_them(client, columns, tmp_path):
    a = columns["a"]
    A = da.from_array(a, chunks=CHUNK)
    folder = str(tmp_path)
    got = rowjit.dask.evaluate("a * k - 1", a=A, k=3, cache_dir=folder, synchronous=True).compute()
    np.testing.assert_array_equal(got, a.astype(np.int64) * 3 - 1)   # k: an i64 constant
    limit = 990  # found in this function's locals by the lookup
    rows = rowjit.dask.filter("a > limit", a=A, cache_dir=folder, synchronous=True).compute()
    np.testing.assert_array_equal(rows, np.nonzero(a > 990)[0])
    frame = pd.DataFrame({"x": pd.array([1, None, 3, 4], dtype="Int32"), "y": [1.0, 2.0, 3.0, 4.0]})
    ddf = dd.from_pandas(frame, npartitions=2)
    series = rowjit.dask.evaluate("x * k", ddf, k=np.int32(2), name="x2", cache_dir=folder, synchronous=True)
    assert series.compute().tolist() == [2, pd.NA, 6, 8] and str(series.dtype) == "Int32"
    assert rowjit.dask.aggregate("sum(y * k)", ddf, k=0.5, cache_dir=folder, synchronous=True).compute() == 5.0
    with pytest.raises(TypeError, match="unexpected keyword argument 'cache'.*did you mean 'cache_dir'"):
        rowjit.dask.evaluate("a + 1", a=A, cache=folder)


def test_grouped_query_through_partial_states(client, tmp_path):
    # 40 rows in 4 partitions; g = i % 3 with every 4th row's g null; x = i; y = 1.0 where i is even.
    i = np.arange(40)
    g = pd.array(np.where(i % 4 == 3, 0, i % 3), dtype="Int32")
    g[i % 4 == 3] = pd.NA
    frame = pd.DataFrame({"g": g, "x": i.astype(np.int32), "y": np.where(i % 2 == 0, 1.0, -1.0)})
    ddf = dd.from_pandas(frame, npartitions=4)
    got = rowjit.dask.aggregate(["sum(x)", "count(*)", "avg(y) filter (where x > 20)"], ddf, by="g",
                                where="x != 5", cache_dir=str(tmp_path)).compute()
    assert isinstance(got, pd.DataFrame)
    keep = (i % 4 != 3) & (i != 5)
    sums = [int(i[keep & (i % 3 == k)].sum()) for k in range(3)] + [int(i[(i % 4 == 3)].sum())]
    assert got["g"].tolist()[:3] == [0, 1, 2] and bool(got["g"].isna().iloc[3])
    assert got["sum(x)"].tolist() == sums
    assert got["count(*)"].tolist() == [int((keep & (i % 3 == k)).sum()) for k in range(3)] + [10]
    # avg(y) over x > 20: the even rows (y = 1) and odd rows (y = -1) of each group past 20.
    for k, row in zip([0, 1, 2, None], got["avg(y) filter (where x > 20)"].tolist()):
        rows = (i > 20) & ((i % 4 == 3) if k is None else (keep & (i % 3 == k)))
        assert row == pytest.approx(np.where(i[rows] % 2 == 0, 1.0, -1.0).mean())
    pd.testing.assert_frame_equal(got, rowjit.aggregate(["sum(x)", "count(*)", "avg(y) filter (where x > 20)"],
                                                        frame, by="g", where="x != 5"))
    # dask arrays: a dict of numpy columns.
    a = rowjit.dask.aggregate("sum(x)", by="k", x=da.from_array(i.astype(np.int32), chunks=7),
                              k=da.from_array((i % 2).astype(np.int8), chunks=7), cache_dir=str(tmp_path)).compute()
    np.testing.assert_array_equal(a["k"], [0, 1])
    assert a["sum(x)"].tolist() == [380, 400]  # 0+2+...+38, 1+3+...+39
    with pytest.raises(rowjit.Error, match="unknown column 'z'"):
        rowjit.dask.aggregate(["sum(z)"], ddf, by="g")
