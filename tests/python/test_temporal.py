"""datetime64/timedelta64 columns, temporal functions and exact wide sums from Python, against
numpy's own calendar."""
import numpy as np
import pytest

import rowjit


def _stamps(n, unit, seed):
    r = np.random.default_rng(seed)
    lo, hi = np.datetime64("1900-01-01", unit).astype(np.int64), np.datetime64("2100-01-01", unit).astype(np.int64)
    return r.integers(lo, hi, n).astype(f"datetime64[{unit}]")


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_fields_and_truncations_match_numpy(unit):
    t = _stamps(5000, unit, 3)
    years = t.astype("datetime64[Y]").astype(np.int64) + 1970
    months = t.astype("datetime64[M]").astype(np.int64) % 12 + 1
    days = (t.astype("datetime64[D]") - t.astype("datetime64[M]")).astype(np.int64) + 1
    np.testing.assert_array_equal(rowjit.evaluate("year(t)", t=t), years)
    np.testing.assert_array_equal(rowjit.evaluate("month(t)", t=t), months)
    np.testing.assert_array_equal(rowjit.evaluate("date_part('day', t)", t=t), days)
    dow = (t.astype("datetime64[D]").astype(np.int64) + 4) % 7  # 1970-01-01 was a Thursday; Sunday is 0
    np.testing.assert_array_equal(rowjit.evaluate("day_of_week(t)", t=t), dow)
    month_start = rowjit.evaluate("date_trunc('month', t)", t=t)
    assert month_start.dtype == np.dtype(f"datetime64[{unit}]")
    np.testing.assert_array_equal(month_start, t.astype("datetime64[M]").astype(f"datetime64[{unit}]"))
    np.testing.assert_array_equal(rowjit.evaluate("date_trunc('hour', t)", t=t), t.astype("datetime64[h]").astype(t.dtype))


def test_nat_is_null_and_results_keep_the_type():
    t = np.array(["2024-02-29T12:34:56", "NaT", "1969-12-31T23:59:59"], dtype="datetime64[s]")
    y = rowjit.evaluate("year(t)", t=t)
    assert list(y.mask) == [False, True, False] and y[0] == 2024 and y[2] == 1969
    assert rowjit.aggregate("count(t)", t=t) == 2
    assert rowjit.aggregate("max(t)", t=t) == np.datetime64("2024-02-29T12:34:56")
    later = rowjit.evaluate("if(t > u, t, u)", t=t, u=t[::-1].copy())
    assert later.dtype == np.dtype("datetime64[s]") and later[0] == t[0]


def test_durations_and_refusals():
    d = np.array([1, -5, 7], dtype="timedelta64[ms]")
    assert rowjit.aggregate("min(d)", d=d) == np.timedelta64(-5, "ms")
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("t + t", t=_stamps(3, "us", 1))
    assert e.value.kind == "type error" and "add does not take timestamp(us)" in str(e.value)
    with pytest.raises(TypeError):
        rowjit.evaluate("year(t)", t=np.array(["2024-01-01"], dtype="datetime64[W]"))


def test_dates_are_datetime64_days():
    t = _stamps(3000, "us", 9)
    days = rowjit.evaluate("cast(t, date32)", t=t)
    assert days.dtype == np.dtype("datetime64[D]")
    np.testing.assert_array_equal(days, t.astype("datetime64[D]"))
    d = np.array(["2024-02-29", "NaT", "1969-12-31", "1900-03-01"], dtype="datetime64[D]")
    assert list(rowjit.evaluate("year(d)", d=d).filled(0)) == [2024, 0, 1969, 1900]
    later = rowjit.evaluate("d + 1", d=d)
    assert later.dtype == np.dtype("datetime64[D]") and list(later.mask) == [False, True, False, False]
    assert later[0] == np.datetime64("2024-03-01") and later[2] == np.datetime64("1970-01-01")
    assert rowjit.aggregate("max(d)", d=d) == np.datetime64("2024-02-29")
    assert rowjit.aggregate("min(cast(d, date64))", d=d) == np.datetime64("1900-03-01T00:00:00.000")
    assert rowjit.evaluate("cast(d, date64)", d=d).dtype == np.dtype("datetime64[ms]")
    assert list(rowjit.evaluate("d + 0 = cast(t, date32)", d=d[:1], t=np.array(["2024-02-29T23:59"], dtype="datetime64[us]"))) == [True]
    with pytest.raises(ValueError):
        rowjit.evaluate("d", d=np.array([2**40], dtype="datetime64[D]"))
    far = np.ma.masked_array(np.array([2**40, 3], dtype="datetime64[D]"), mask=[True, False])
    assert rowjit.evaluate("d + 1", d=far)[1] == np.datetime64("1970-01-05")  # a masked row is not read
    # out= takes date32 results too: the kernel's 4-byte days widened into numpy's 8-byte dates.
    out = np.full(4, np.datetime64("2000-01-01"), dtype="datetime64[D]")
    got = rowjit.evaluate("d + 1", d=d, out=out)
    assert np.shares_memory(np.ma.getdata(got), out)
    assert list(got.mask) == [False, True, False, False]
    assert [out[0], out[2], out[3]] == [np.datetime64("2024-03-01"), np.datetime64("1970-01-01"), np.datetime64("1900-03-02")]
    with pytest.raises(ValueError):  # numpy's dates in milliseconds are date64's, not date32's
        rowjit.evaluate("d + 1", d=d, out=np.empty(4, dtype="datetime64[ms]"))
    with pytest.raises(ValueError):
        rowjit.evaluate("d + 1", d=d, out=np.empty(5, dtype="datetime64[D]"))


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000, 20000])
@pytest.mark.parametrize("threads", [1, 2])
def test_date32_into_out_equals_allocating(n, threads):
    rng = np.random.default_rng(n + threads)
    d = rng.integers(-50000, 50000, n).astype("datetime64[D]")
    mask = rng.random(n) < 0.2
    k = rng.integers(-1000, 1000, n).astype(np.int32)
    col = np.ma.masked_array(d, mask=mask)
    want = rowjit.evaluate("d + k", d=col, k=k)
    out = np.empty(n, dtype="datetime64[D]")
    got = rowjit.evaluate("d + k", d=col, k=k, out=out, threads=threads)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), mask)
    np.testing.assert_array_equal(np.ma.getdata(got)[~mask], (d + k.astype("timedelta64[D]"))[~mask])
    np.testing.assert_array_equal(np.ma.getdata(want)[~mask], out[~mask])


def test_durations_scale_measure_and_sum():
    t = np.array(["2024-01-01T00:00", "2024-01-03T06:00", "NaT"], dtype="datetime64[us]")
    u = np.array(["2024-01-02T00:00", "2024-01-01T00:00", "2024-01-01T00:00"], dtype="datetime64[us]")
    hours = rowjit.evaluate("(t - u) / '1 hour'", t=t, u=u)
    assert hours[0] == -24.0 and hours[1] == 54.0 and hours.mask[2]
    assert list(rowjit.evaluate("t - u > '1 day'", t=t, u=u)[:2]) == [False, True]
    d = np.array([1500, -5, 7], dtype="timedelta64[ms]")
    doubled = rowjit.evaluate("d * 2 - '1 s'", d=d)
    assert doubled.dtype == np.dtype("timedelta64[ms]") and list(doubled) == list((d * 2 - np.timedelta64(1, "s")))
    assert rowjit.aggregate("sum(d)", d=d) == np.timedelta64(1502, "ms")
    with pytest.raises(rowjit.Error) as e:
        rowjit.aggregate("sum(d)", d=np.array([2**62, 2**62], dtype="timedelta64[ns]"))
    assert e.value.kind == "overflow"
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("d / 2", d=d)
    assert e.value.kind == "type error" and "divided by a duration" in str(e.value)


def test_exact_wide_sums_are_python_ints():
    x = np.full(1000, np.iinfo(np.int64).max, dtype=np.int64)
    assert rowjit.aggregate("sum(x)", x=x) == 1000 * (2**63 - 1)
    u = np.full(3, np.iinfo(np.uint64).max, dtype=np.uint64)
    assert rowjit.aggregate("sum(u)", u=u) == 3 * (2**64 - 1)
    assert rowjit.aggregate("sum(x)", x=np.array([1, 2], dtype=np.int32)) == 3


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_text_reads_as_timestamps_and_back_as_numpy_writes_them(unit):
    t = _stamps(3000, unit, 5)
    text = np.array([str(v) for v in t], dtype=object)  # numpy's ISO form, 'T' between
    got = rowjit.evaluate(f"cast(s, timestamp({unit}))", s=text)
    assert got.dtype == np.dtype(f"datetime64[{unit}]")
    np.testing.assert_array_equal(got, t)
    back = rowjit.evaluate("cast(t, utf8)", t=t)  # ' ' between, trailing fraction zeros dropped
    np.testing.assert_array_equal(np.array([np.datetime64(v, unit) for v in back]), t)


def test_bad_text_names_its_row():
    s = np.array(["2024-02-28", None, "2024-02-30"], dtype=object)
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("cast(s, date32)", s=s)
    assert e.value.kind == "invalid input" and "row 2" in str(e.value) and "'2024-02-30'" in str(e.value)
    ok = rowjit.evaluate("cast(s, decimal64(10,2))", s=np.array([" 1.005", "-2e1", None], dtype=object))
    assert list(ok[:2]) == [101, -2000] and ok.mask[2]  # storage integers, rounded half away from zero


def test_intervals_are_structured_values():
    mdn = rowjit.interval_dtype("month_day_nano")
    assert mdn.names == ("months", "days", "nanoseconds") and mdn.itemsize == 16
    i = np.array([(1, 2, 3), (0, 30, 0), (-1, 0, 5)], dtype=mdn)
    n = np.array([2, 3, -1], dtype=np.int64)
    scaled = rowjit.evaluate("i * n + '1 day'", i=i, n=n)
    assert scaled.dtype == mdn
    assert scaled.tolist() == [(2, 5, 6), (0, 91, 0), (1, 1, -5)]
    # PostgreSQL's order: a month is 30 days, so '1 month' and '30 days' tie (the first is kept).
    assert list(rowjit.evaluate("i > '29 days'", i=i)) == [True, True, False]
    assert rowjit.aggregate("max(i)", i=i).tolist() == (1, 2, 3)
    assert rowjit.aggregate("sum(i)", i=i).tolist() == (0, 32, 8)
    assert rowjit.evaluate("greatest(i, '1 month')", i=i).tolist() == [(1, 2, 3), (0, 30, 0), (1, 0, 0)]
    dt = rowjit.interval_dtype("day_time")
    days = np.array([(1, 500), (2, -1)], dtype=dt)
    assert rowjit.evaluate("d + d", d=days).tolist() == [(0, 2, 1_000_000_000), (0, 4, -2_000_000)]
    assert rowjit.aggregate("min(d)", d=days).tolist() == (1, 500)
    assert rowjit.evaluate("m * 2", m=np.array([(7,)], dtype=rowjit.interval_dtype("months"))).tolist() == [(14, 0, 0)]
    masked = np.ma.masked_array(i, mask=[False, True, False])
    got = rowjit.evaluate("i - '1 ns'", i=masked)
    assert [any(m) for m in got.mask.tolist()] == [False, True, False] and got.data[2].tolist() == (-1, 0, 4)
    out = np.empty(3, dtype=mdn)
    assert rowjit.evaluate("i * n", i=i, n=n, out=out) is out and out.tolist() == [(2, 4, 6), (0, 90, 0), (1, 0, -5)]
    ms = np.empty(2, dtype="datetime64[ms]")
    rowjit.evaluate("cast(t, date64)", t=np.array(["2024-02-29T12:00", "1970-01-02T01:00"], dtype="datetime64[s]"), out=ms)
    assert list(ms) == [np.datetime64("2024-02-29T00:00:00.000"), np.datetime64("1970-01-02T00:00:00.000")]
    with pytest.raises(TypeError):
        rowjit.evaluate("i", i=np.zeros(2, dtype=[("a", "<i4"), ("b", "<i4")]))
    with pytest.raises(ValueError):
        rowjit.interval_dtype("weeks")
