"""Vectors from Python (tests): a 2-d numpy array is a column of vectors (rows x N), scored by the
vector functions against a literal query or another column as numpy computes the same scores
(floats to rounding, i8 sums exactly), null rows through valid=; a vector column comes back as a
2-d array; arrays that are no vectors are refused with the column named; top_k selects as numpy's
sort does."""
import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)


def _literal(q):
    return rowjit.vector_literal(q)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 31, 32, 33, 768])
def test_float_scores_against_numpy(dtype, n):
    rng = np.random.default_rng(n)
    v = rng.standard_normal((300, n)).astype(dtype)
    w = rng.standard_normal((300, n)).astype(dtype)
    q = v[7].copy()
    lit = _literal(q)
    tol = dict(rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-4 if dtype == np.float32 else 1e-12)
    got = ENGINE.evaluate(f"l2_distance(v, {lit})", v=v)
    assert got.dtype == dtype and got.shape == (300,)
    np.testing.assert_allclose(got, np.sqrt(((v - q) ** 2).sum(axis=1)), **tol)
    assert got[7] == 0
    np.testing.assert_allclose(ENGINE.evaluate("dot(v, w)", v=v, w=w), (v * w).sum(axis=1), **tol)
    cos = (v * w).sum(axis=1) / np.sqrt((v * v).sum(axis=1) * (w * w).sum(axis=1))
    np.testing.assert_allclose(ENGINE.evaluate("cosine_similarity(v, w)", v=v, w=w), cos, **tol)


def test_i8_sums_are_exact():
    rng = np.random.default_rng(3)
    v = rng.integers(-128, 128, (500, 96), dtype=np.int8)
    w = rng.integers(-128, 128, (500, 96), dtype=np.int8)
    dot = ENGINE.evaluate("dot(v, w)", v=v, w=w)
    assert dot.dtype == np.int32
    np.testing.assert_array_equal(dot, (v.astype(np.int64) * w).sum(axis=1))
    l2 = ENGINE.evaluate("l2_squared(v, w)", v=v, w=w)
    np.testing.assert_array_equal(l2, ((v.astype(np.int64) - w) ** 2).sum(axis=1))


def test_filter_on_a_distance_with_null_rows():
    rng = np.random.default_rng(5)
    v = rng.standard_normal((200, 8))
    a = rng.integers(0, 10, 200)
    valid = rng.random(200) < 0.7
    q = np.zeros(8)
    got = ENGINE.evaluate(f"l2_distance(v, {_literal(q)}) < 2.5 and a > 2", v=v, a=a, valid={"v": valid})
    want = (np.sqrt((v ** 2).sum(axis=1)) < 2.5) & (a > 2)
    assert isinstance(got, np.ma.MaskedArray)
    # Kleene: a null distance and a false right side is false, not null.
    np.testing.assert_array_equal(np.ma.getmaskarray(got), ~valid & (a > 2))
    np.testing.assert_array_equal(np.ma.filled(got, False), valid & want)


def test_a_vector_column_comes_back_2d():
    v = np.arange(12, dtype=np.float32).reshape(4, 3)
    back = rowjit.array(v).to_numpy()
    assert back.shape == (4, 3) and back.dtype == np.float32
    np.testing.assert_array_equal(back, v)
    with pytest.raises(rowjit.Error, match="is an argument of a vector function"):  # no expression's value
        ENGINE.evaluate("v", v=v)
    # Big-endian and strided arrays are read through a native copy, never misread.
    np.testing.assert_array_equal(ENGINE.evaluate("dot(v, [1, 1, 1])", v=v.astype(">f4")), v.sum(axis=1))
    np.testing.assert_array_equal(ENGINE.evaluate("dot(v, [1, 1, 1])", v=v.astype(">f8")[::2]), v[::2].sum(axis=1))
    masked = rowjit.array(v, valid=np.array([True, False, True, True])).to_numpy()
    np.testing.assert_array_equal(np.ma.getmaskarray(masked)[:, 0], [False, True, False, False])
    np.testing.assert_array_equal(masked[0], v[0])
    # Not C-contiguous: read through a copy, same rows.
    np.testing.assert_array_equal(ENGINE.evaluate("dot(v, [1, 0, 0])", v=np.asfortranarray(v)), v[:, 0])


def test_refusals_name_the_column():
    with pytest.raises(TypeError, match="column 'v' is a 2-d array of"):
        ENGINE.evaluate("dot(v, v)", v=np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="column 'v' is a 3-d array"):
        ENGINE.evaluate("dot(v, v)", v=np.zeros((2, 2, 2)))
    with pytest.raises(rowjit.Error, match="vector literal of 2 elements"):
        ENGINE.evaluate("dot(v, [1, 2])", v=np.zeros((2, 3)))
    with pytest.raises(rowjit.Error, match="does not take a vector"):
        ENGINE.evaluate("v + 1", v=np.zeros((2, 3)))


def test_top_k_as_numpy_sorts():
    rng = np.random.default_rng(9)
    v = rng.standard_normal((5000, 64)).astype(np.float32)
    cat = rng.integers(0, 4, 5000)
    q = v[123]
    rows, scores = rowjit.top_k(f"l2_distance(v, {_literal(q)})", 10, largest=False, engine=ENGINE, v=v)
    assert rows.dtype == np.int64 and scores.dtype == np.float32 and len(rows) == 10
    assert rows[0] == 123 and scores[0] == 0
    d = ENGINE.evaluate(f"l2_distance(v, {_literal(q)})", v=v)
    np.testing.assert_array_equal(rows, np.argsort(d, kind="stable")[:10])
    np.testing.assert_array_equal(scores, d[rows])
    # With a predicate: only rows of category 2, largest first.
    rows, scores = ENGINE.top_k("dot(v, w)", 7, where="cat = 2", v=v, w=v[::-1].copy(), cat=cat)
    dots = (v * v[::-1]).sum(axis=1)
    kept = np.flatnonzero(cat == 2)
    want = kept[np.argsort(-ENGINE.evaluate("dot(v, w)", v=v, w=v[::-1].copy())[kept], kind="stable")[:7]]
    np.testing.assert_array_equal(rows, want)
    np.testing.assert_allclose(scores, dots[want], rtol=1e-4)
    with pytest.raises(TypeError, match="k is a whole number"):
        rowjit.top_k("dot(v, v)", 2.5, v=v)
    assert len(rowjit.top_k("dot(v, v)", np.int64(2), v=v)[0]) == 2  # numpy integers are whole numbers
    with pytest.raises(ValueError, match="where= is empty"):
        rowjit.top_k("dot(v, v)", 2, where=" ", v=v)
    with pytest.raises(TypeError, match="largest= is True or False"):
        rowjit.top_k("dot(v, v)", 2, largest="no", v=v)
    with pytest.raises(rowjit.Error, match="where 'zz > 0'"):
        rowjit.top_k("dot(v, v)", 2, where="zz > 0", v=v)
    with pytest.raises(rowjit.Error, match="selects K = 1 to"):
        rowjit.top_k("dot(v, v)", 0, v=v)


def test_vector_literal_reads_back_exactly():
    q32 = np.array([0.1, -1e-30, 3.4e38, 1 / 3, -2.5], dtype=np.float32)  # none of them a short decimal in f64
    assert rowjit.vector_literal(q32).startswith("[0.1, -1e-30, 3.4e+38, 0.33333334")
    w = q32.reshape(1, -1).copy()
    assert ENGINE.evaluate(f"l2_squared(w, {rowjit.vector_literal(q32)})", w=w)[0] == 0
    assert "inf" in rowjit.vector_literal(np.array([np.inf, -np.inf]))
    assert rowjit.vector_literal(np.array([1, -2], dtype=np.int8)) == "[1, -2]"
    with pytest.raises(ValueError, match="non-empty 1-d"):
        rowjit.vector_literal(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="holds numbers"):
        rowjit.vector_literal(["a"])


def test_float16_vectors_are_scored_in_float32():
    rng = np.random.default_rng(11)
    v = rng.standard_normal((400, 40)).astype(np.float16)
    w = rng.standard_normal((400, 40)).astype(np.float16)
    got = ENGINE.evaluate("dot(v, w)", v=v, w=w)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, (v.astype(np.float32) * w.astype(np.float32)).sum(axis=1), rtol=1e-4, atol=1e-4)
    back = rowjit.array(v).to_numpy()
    assert back.dtype == np.float16 and back.shape == (400, 40)
    np.testing.assert_array_equal(back, v)
