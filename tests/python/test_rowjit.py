"""The Python module against numpy (tests): values, nulls (masked arrays and valid= masks),
errors with kind and row, strided and unaligned inputs, bools, filter, project, aggregate,
chunked multi-threaded evaluation, and concurrent calls from Python threads."""
import threading

import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)
INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def rng(seed):
    return np.random.default_rng(seed)


@pytest.mark.parametrize("dtype", INT_TYPES + [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000])
def test_evaluate_matches_numpy(dtype, n):
    r = rng(n)
    a, b, c = (r.integers(0, 10, n).astype(dtype) for _ in range(3))
    got = rowjit.evaluate("a * b + c", engine=ENGINE, a=a, b=b, c=c)
    assert got.dtype == np.dtype(dtype)
    assert not isinstance(got, np.ma.MaskedArray)
    np.testing.assert_array_equal(got, a * b + c)
    assert not np.shares_memory(got, a)


def test_masked_arrays_and_valid_masks():
    a = np.ma.MaskedArray(np.array([1, 2, 3, 4], dtype=np.int32), mask=[False, True, False, False])
    b = np.array([10, 20, 30, 40], dtype=np.int32)
    got = rowjit.evaluate("a * b", engine=ENGINE, a=a, b=b)
    assert isinstance(got, np.ma.MaskedArray)
    assert list(np.ma.getmaskarray(got)) == [False, True, False, False]
    assert list(got.compressed()) == [10, 90, 160]
    via_valid = rowjit.evaluate("a * b", engine=ENGINE, valid={"a": np.array([True, False, True, True])},
                                a=a.data, b=b)
    assert list(np.ma.getmaskarray(via_valid)) == [False, True, False, False]
    # A null row's garbage never raises: a * 1e9 overflows only in the masked row.
    big = np.ma.MaskedArray(np.array([1, 2**30, 3], dtype=np.int32), mask=[False, True, False])
    got = rowjit.evaluate("a * 4", engine=ENGINE, a=big)
    assert list(got.compressed()) == [4, 12]


def test_errors_carry_kind_row_and_function():
    a = np.array([1, 2, 2**30, 4], dtype=np.int32)
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("a * 4", engine=ENGINE, a=a)
    assert (e.value.kind, e.value.row, e.value.function) == ("overflow", 2, "mul")
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("a / (a - 2)", engine=ENGINE, a=a)
    assert (e.value.kind, e.value.row) == ("division by zero", 1)
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("a *", engine=ENGINE, a=a)
    assert e.value.kind == "invalid input" and e.value.row is None
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("a + zz", engine=ENGINE, a=a)
    assert "zz" in str(e.value)
    with pytest.raises(ValueError):
        rowjit.evaluate("a + b", engine=ENGINE, a=a, b=a[:2])
    with pytest.raises(TypeError):
        rowjit.evaluate("a", engine=ENGINE, a=np.array([1j]))  # complex: no rowjit type
    with pytest.raises(ValueError):
        rowjit.evaluate("a", engine=ENGINE, valid={"b": np.array([True] * 4)}, a=a)
    with pytest.raises(ValueError):
        rowjit.evaluate("a", engine=ENGINE, valid={"a": np.array([True] * 3)}, a=a)


def test_strided_and_unaligned_inputs_are_read_correctly():
    base = np.arange(20, dtype=np.int32)
    strided = base[::2]
    raw = np.arange(11, dtype=np.int64).tobytes()
    unaligned = np.frombuffer(raw[1:] + b"\0", dtype=np.int64)  # address not 8-aligned
    np.testing.assert_array_equal(rowjit.evaluate("a + 1", engine=ENGINE, a=strided), strided + 1)
    np.testing.assert_array_equal(rowjit.evaluate("a + 1", engine=ENGINE, a=unaligned), unaligned + 1)
    np.testing.assert_array_equal(base, np.arange(20, dtype=np.int32))  # inputs untouched


def test_bools_filter_project_aggregate():
    r = rng(5)
    a = r.integers(-50, 50, 1000).astype(np.int32)
    b = r.integers(-50, 50, 1000).astype(np.int32)
    flags = r.integers(0, 2, 1000).astype(bool)
    got = rowjit.evaluate("a < b", engine=ENGINE, a=a, b=b)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, a < b)
    np.testing.assert_array_equal(rowjit.evaluate("f and (a < b)", engine=ENGINE, f=flags, a=a, b=b), flags & (a < b))
    np.testing.assert_array_equal(rowjit.filter("a * b > 100", engine=ENGINE, a=a, b=b),
                                  np.nonzero(a * b > 100)[0].astype(np.uint32))
    outs = rowjit.project(["a * b", "a * b + 1", "a > 0"], engine=ENGINE, a=a, b=b)
    np.testing.assert_array_equal(outs[0], a * b)
    np.testing.assert_array_equal(outs[1], a * b + 1)
    np.testing.assert_array_equal(outs[2], a > 0)
    assert rowjit.aggregate("sum(a * b)", engine=ENGINE, a=a, b=b) == int((a.astype(np.int64) * b).sum())
    assert rowjit.aggregate("min_max(a)", engine=ENGINE, a=a) == (int(a.min()), int(a.max()))
    masked = np.ma.MaskedArray(a, mask=a > 0)
    assert rowjit.aggregate("count(a)", engine=ENGINE, a=masked) == int((a <= 0).sum())
    assert rowjit.aggregate("sum(a)", engine=ENGINE, a=np.ma.MaskedArray(a, mask=True)) is None


def test_aggregate_calls_alternating_types_and_nulls_answer_as_numpy():
    # One text over columns of other types and null layouts, in turn and again: each call folds
    # its own columns (prepared aggregates are held per text and column types), errors included.
    r = rng(12)
    for rounds in range(2):
        for dtype in (np.int32, np.int64, np.float64, np.uint8):
            a = r.integers(0, 100, 777).astype(dtype)
            mask = r.random(777) < 0.3
            assert rowjit.aggregate("sum(a)", engine=ENGINE, a=a) == pytest.approx(a.astype(np.float64).sum())
            got = rowjit.aggregate("sum(a)", engine=ENGINE, a=np.ma.MaskedArray(a, mask=mask))
            assert got == pytest.approx(a[~mask].astype(np.float64).sum())
            assert rowjit.aggregate("min_max(a)", engine=ENGINE, a=a[:5]) == (a[:5].min(), a[:5].max())
    # A repeated call runs the held kernel: no kernel cache lookup at all.
    a = r.integers(0, 100, 777).astype(np.int64)
    assert rowjit.aggregate("max(a)", engine=ENGINE, a=a) == a.max()
    hits = ENGINE.stats()["hits"]
    for _ in range(3):
        assert rowjit.aggregate("max(a)", engine=ENGINE, a=a) == a.max()
    assert ENGINE.stats()["hits"] == hits
    big = np.full(10, 2**40, dtype=np.int64)
    with pytest.raises(rowjit.Error) as e:
        rowjit.aggregate("sum(a * a)", engine=ENGINE, a=big)
    assert e.value.row == 0


def test_threads_split_the_batch_and_name_the_global_row():
    r = rng(9)
    n = 200_003
    a = r.integers(-1000, 1000, n).astype(np.int32)
    b = r.integers(-1000, 1000, n).astype(np.int32)
    mask = r.random(n) < 0.1
    am = np.ma.MaskedArray(a, mask=mask)
    one = rowjit.evaluate("a * b + 7", engine=ENGINE, a=am, b=b)
    for threads in (2, 3, 8):
        many = rowjit.evaluate("a * b + 7", engine=ENGINE, threads=threads, a=am, b=b)
        np.testing.assert_array_equal(np.ma.getmaskarray(many), mask)
        np.testing.assert_array_equal(many.compressed(), one.compressed())
    bad = a.copy()
    bad[150_001] = 2**30
    with pytest.raises(rowjit.Error) as e:
        rowjit.evaluate("a * 4", engine=ENGINE, threads=2, a=bad)
    assert e.value.row == 150_001


def test_concurrent_python_threads():
    a = np.arange(100_000, dtype=np.int64)
    want = a * 3 + 1
    failures = []

    def work():
        for _ in range(20):
            if not np.array_equal(rowjit.evaluate("a * 3 + 1", engine=ENGINE, a=a), want):
                failures.append(1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_default_engine_and_version_of_the_module():
    a = np.array([1, 2, 3], dtype=np.int16)
    np.testing.assert_array_equal(rowjit.evaluate("a * 2", a=a), a * 2)
    assert rowjit.default_engine() is rowjit.default_engine()


def test_out_receives_the_result_and_bad_outs_are_refused():
    r = rng(21)
    a = r.integers(-100, 100, 1000).astype(np.int32)
    b = r.integers(-100, 100, 1000).astype(np.int32)
    out = np.full(1000, 7, dtype=np.int32)
    got = rowjit.evaluate("a * b + 1", engine=ENGINE, out=out, a=a, b=b)
    assert got is out
    np.testing.assert_array_equal(out, a * b + 1)
    chunked = np.zeros(1000, dtype=np.int32)
    assert rowjit.evaluate("a - b", engine=ENGINE, threads=3, out=chunked, a=a, b=b) is chunked
    np.testing.assert_array_equal(chunked, a - b)
    flags = np.zeros(1000, dtype=bool)
    assert rowjit.evaluate("a < b", engine=ENGINE, out=flags, a=a, b=b) is flags
    np.testing.assert_array_equal(flags, a < b)
    masked = rowjit.evaluate("a * 2", engine=ENGINE, out=out, a=np.ma.MaskedArray(a, mask=a > 50))
    assert isinstance(masked, np.ma.MaskedArray) and np.shares_memory(masked.data, out)
    np.testing.assert_array_equal(masked.compressed(), (a * 2)[a <= 50])
    for bad in (np.zeros(1000, np.int64), np.zeros(999, np.int32), np.zeros(2000, np.int32)[::2], [0] * 1000):
        with pytest.raises((ValueError, TypeError)):
            rowjit.evaluate("a + b", engine=ENGINE, out=bad, a=a, b=b)
    readonly = np.zeros(1000, np.int32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError):
        rowjit.evaluate("a + b", engine=ENGINE, out=readonly, a=a, b=b)
    with pytest.raises(ValueError):
        rowjit.evaluate("a + b", engine=ENGINE, out=out, arrow=True, a=a, b=b)
    before = a.copy()
    with pytest.raises(rowjit.Error) as e:  # writing over an input the expression reads: refused, input intact
        rowjit.evaluate("a + b", engine=ENGINE, out=a, a=a, b=b)
    assert e.value.kind == "invalid input"
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 130])
def test_sixteen_byte_decimal_results_are_exact_objects(n):
    # 128-bit decimal results (more than 18 digits) have no numpy dtype: object arrays of
    # decimal.Decimal (Python ints at scale 0), exact where int64 would wrap; out= is refused.
    import decimal
    a = rng(n).integers(-10**15, 10**15, n).astype(np.int64)
    valid = np.arange(n) % 5 != 1
    got = rowjit.evaluate("cast(a, decimal(38,2)) * 12345678901.25", engine=ENGINE, a=a, valid={"a": valid})
    want = [decimal.Decimal(int(x)) * decimal.Decimal("12345678901.25") for x in a]
    assert got.dtype == np.dtype("O")
    for i in range(n):
        if valid[i]:
            assert got[i] == want[i]
        else:
            assert got.mask[i]
    whole, plus = rowjit.project(["cast(a, decimal(30,0)) * 100000000000", "a + 1"], engine=ENGINE, a=a)
    assert list(whole) == [int(x) * 100000000000 for x in a]
    assert list(plus) == list(a + 1)
    with pytest.raises(TypeError, match="16-byte"):
        rowjit.evaluate("cast(a, decimal(38,2))", engine=ENGINE, a=a, out=np.zeros(n, np.int64))


def test_sql_forms_answer_as_numpy():
    r = np.random.default_rng(4)
    a = r.integers(-50, 50, 1000).astype(np.int32)
    b = np.ma.masked_array(r.integers(-5, 5, 1000).astype(np.int64), mask=r.random(1000) < 0.3)
    np.testing.assert_array_equal(rowjit.evaluate("CASE WHEN a > 0 THEN a WHEN a < -10 THEN -a ELSE 0 END", a=a),
                                  np.where(a > 0, a, np.where(a < -10, -a, 0)))
    np.testing.assert_array_equal(rowjit.evaluate("a IN (1, 2, 3) OR a NOT BETWEEN -40 AND 40", a=a),
                                  np.isin(a, [1, 2, 3]) | (a < -40) | (a > 40))
    is_null = rowjit.evaluate("b IS NULL", b=b)
    np.testing.assert_array_equal(is_null, np.ma.getmaskarray(b))
    # three values: no match and a null in the list is null, as in SQL
    some = rowjit.evaluate("a in (1, null)", a=a)
    assert some.mask[a != 1].all() and some[a == 1].all()
    kept = rowjit.evaluate("nullif(a, 0)", a=a)
    assert (kept.mask == (a == 0)).all()


def test_long_in_lists_answer_as_numpy_isin():
    r = np.random.default_rng(5)
    x = r.integers(-3000, 3000, 100_000).astype(np.int64)
    # compared, a bitmap (nearby values) and searched (spread wide), strings searched by a helper
    for values in (r.integers(-3000, 3000, 40), np.arange(-100, 100, 3), r.integers(-3000, 3000, 2000)):
        text = "x in (" + ", ".join(str(v) for v in values) + ")"
        np.testing.assert_array_equal(rowjit.evaluate(text, x=x), np.isin(x, values))
        np.testing.assert_array_equal(rowjit.evaluate("not " + text.replace("x in", "(x + 1) in"), x=x),
                                      ~np.isin(x + 1, values))
    words = np.array([f"w{v}" for v in x[:5000]], dtype=object)
    chosen = [f"w{v}" for v in r.integers(-3000, 3000, 500)]
    got = rowjit.evaluate("s in (" + ", ".join(f"'{w}'" for w in chosen) + ")", s=words)
    np.testing.assert_array_equal(got, np.isin(words, chosen))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendental_functions_within_an_ulp_or_two_of_libm(dtype):
    # glibc's scalar functions (Python's math module) as the oracle where the result is finite:
    # rowjit's are below one ulp and so are glibc's, so the two differ by at most two ulps (one
    # for f32, rounded once from f64); zeros, infinities and NaN as numpy's IEEE answers.
    import math
    g = rng(31)
    x = np.concatenate([g.uniform(-30, 30, 2000), np.exp(g.uniform(-80, 80, 2000)),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, -2.0]]).astype(dtype)
    y = np.concatenate([g.uniform(-6, 6, x.size - 3), [0.5, 3.0, np.nan]]).astype(dtype)
    tol = 2 if dtype == np.float64 else 1
    cases = [("exp(x)", math.exp, np.exp), ("ln(x)", math.log, np.log), ("log2(x)", math.log2, np.log2),
             ("log10(x)", math.log10, np.log10), ("log1p(x)", math.log1p, np.log1p),
             ("x ** y", math.pow, np.power), ("sin(x)", math.sin, np.sin), ("cos(x)", math.cos, np.cos),
             ("tan(x)", math.tan, np.tan), ("expm1(x)", math.expm1, np.expm1), ("sinh(x)", math.sinh, np.sinh),
             ("cosh(x)", math.cosh, np.cosh), ("tanh(x)", math.tanh, np.tanh), ("atan(x)", math.atan, np.arctan),
             ("asin(x / 30)", lambda v: math.asin(v / 30), lambda v: np.arcsin(v / 30)),
             ("acos(x / 30)", lambda v: math.acos(v / 30), lambda v: np.arccos(v / 30)),
             ("cbrt(x)", lambda v: float(np.cbrt(v)), np.cbrt), ("degrees(x)", math.degrees, np.degrees),
             ("arcsinh(x)", math.asinh, np.arcsinh)]  # numpy's name; rowjit's asinh is below 1.6 ulp
    for text, scalar, vector in cases:
        got = rowjit.evaluate(text, {"x": x, "y": y}, engine=ENGINE)  # a batch: y unused by most
        assert got.dtype == dtype
        args = (x.astype(np.float64),) if text != "x ** y" else (x.astype(np.float64), y.astype(np.float64))
        if text.endswith("/ 30)"):
            args = ((x / dtype(30)).astype(np.float64),)  # the quotient rowjit computes, in the column's type
            scalar, vector = (math.asin, np.arcsin) if text.startswith("asin") else (math.acos, np.arccos)
        with np.errstate(all="ignore"):
            ieee = vector(*args).astype(dtype)
        regular = np.isfinite(ieee) & (ieee != 0)
        assert np.array_equal(got[~regular], ieee[~regular], equal_nan=True), text
        want = np.array([scalar(*(float(a[i]) for a in args)) for i in np.flatnonzero(regular)]).astype(dtype)
        ulps = np.abs(got[regular] - want) / np.spacing(np.abs(want))
        assert ulps.max() <= (tol + 2 if text.startswith("arcsinh") else tol), (text, float(ulps.max()))
