# rowjit.dask over dask arrays and a dask dataframe on a two-process local cluster.
import tempfile

import dask.array as da
import dask.dataframe as dd
import pandas as pd
from distributed import Client, LocalCluster

import rowjit
import rowjit.dask


def main(cache):
    a = da.arange(1_000_000, chunks=100_000, dtype="int32")
    y = rowjit.dask.evaluate("a * 3 + 1", a=a, cache_dir=cache)
    print(y[:4].compute(), rowjit.dask.aggregate("sum(a * 3)", a=a, cache_dir=cache).compute())
    print(rowjit.dask.filter("a % 300000 = 7", a=a, cache_dir=cache).compute())

    frame = pd.DataFrame({"price": [1.5, 2.0, 4.0, 8.0], "qty": pd.array([2, None, 3, 1], dtype="Int32")})
    ddf = dd.from_pandas(frame, npartitions=2)
    print(rowjit.dask.evaluate("price * cast(qty, f64)", ddf, name="total", cache_dir=cache).compute())
    try:
        rowjit.dask.evaluate("a * 10000", a=a, cache_dir=cache).compute()
    except rowjit.Error as e:
        print(e.kind, e.function, e.partition is not None)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as cache:   # the workers' shared kernel cache
        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
            with Client(cluster):
                main(cache)
