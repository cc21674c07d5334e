"""String columns from Python (tests): numpy 'U', 'S' and object arrays (None is null), masked
string arrays, and Arrow string arrays, against the same predicates computed in Python."""
import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)
WORDS = ["apple", "banana", "h\u00e9llo", "", "an", "Banana split", "\u65e5\u672c", "50%"]


def like(s, pattern):
    """SQL LIKE over Python strings: % any run, _ one character, backslash escapes."""
    import re
    out, i = "", 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out += re.escape(pattern[i + 1])
            i += 2
            continue
        out += ".*" if ch == "%" else "." if ch == "_" else re.escape(ch)
        i += 1
    return re.fullmatch(out, s, re.S) is not None


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 500])
def test_numpy_unicode_predicates(n):
    rng = np.random.default_rng(n)
    s = np.array([WORDS[i] for i in rng.integers(0, len(WORDS), n)], dtype=str)
    cases = {
        "s = 'banana'": lambda v: v == "banana",
        "s < 'b'": lambda v: v.encode() < b"b",
        "starts_with(s, 'ba')": lambda v: v.startswith("ba"),
        "contains(s, 'an')": lambda v: "an" in v,
        "s like '%an_%'": lambda v: like(v, "%an_%"),
        "s ilike 'b%'": lambda v: v.lower().startswith("b"),
        "s like '50\\%'": lambda v: v == "50%",
    }
    for text, f in cases.items():
        got = rowjit.evaluate(text, engine=ENGINE, s=s)
        np.testing.assert_array_equal(got, np.array([f(v) for v in s], dtype=bool), err_msg=text)
    lengths = rowjit.evaluate("length(s) * 10 + char_length(s)", engine=ENGINE, s=s)
    np.testing.assert_array_equal(lengths, [len(v.encode()) * 10 + len(v) for v in s])


def test_object_arrays_with_none_are_nullable():
    s = np.array(["x", None, "yy", None], dtype=object)
    got = rowjit.evaluate("s = 'x'", engine=ENGINE, s=s)
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == [False, True, False, True]
    assert got.data[[0, 2]].tolist() == [True, False]
    assert rowjit.evaluate("is_null(s)", engine=ENGINE, s=s).tolist() == [False, True, False, True]


def test_masked_and_bytes_and_arrow():
    s = np.ma.masked_array(np.array(["a", "b", "c"]), mask=[False, True, False])
    got = rowjit.evaluate("s != 'a'", engine=ENGINE, s=s)
    assert got.mask.tolist() == [False, True, False]
    b = np.array([b"ab", b"c", b""])
    assert rowjit.evaluate("starts_with(s, 'a':binary)", engine=ENGINE, s=b).tolist() == [True, False, False]
    a = rowjit.array(np.array(["apple", "kiwi"]))
    assert str(a) == "rowjit.Array<utf8>['apple', 'kiwi']"
    assert rowjit.evaluate("length(s)", engine=ENGINE, s=a).to_numpy().tolist() == [5, 4]


def test_string_results_are_object_arrays():
    s = np.array(["Apple", None, "b\u00e9"], dtype=object)
    got = rowjit.evaluate("upper(s) || '!'", engine=ENGINE, s=s)
    assert got.dtype == object
    assert got.mask.tolist() == [False, True, False]
    assert got.data[[0, 2]].tolist() == ["APPLE!", "B\u00e9!"]
    assert rowjit.evaluate("substr(s, 2, 2)", engine=ENGINE, s=np.array(["h\u00e9llo"])).tolist() == ["\u00e9l"]
    b = rowjit.evaluate("replace(s, 'a':binary, 'xy':binary)", engine=ENGINE, s=np.array([b"banana"]))
    assert b.tolist() == [b"bxynxynxy"]


def test_string_errors_are_clear():
    with pytest.raises(TypeError, match="mixes str and bytes"):
        rowjit.evaluate("s = 'x'", engine=ENGINE, s=np.array(["a", b"b"], dtype=object))
    with pytest.raises(TypeError, match="where strings are expected"):
        rowjit.evaluate("s = 'x'", engine=ENGINE, s=np.array(["a", 3], dtype=object))


def test_object_arrays_are_read_in_place_at_any_stride():
    words = np.array(["a", "h\u00e9", None, "xyz", "\u65e5\u672c", "", "b"] * 20, dtype=object)
    for view in (words, words[::3], words[::-2], words[5:40:7]):
        got = rowjit.evaluate("char_length(s)", engine=ENGINE, s=view)
        want = [None if w is None else len(w) for w in view]
        assert [None if m else int(v) for v, m in zip(got.data, np.ma.getmaskarray(got))] == want
    masked = np.ma.masked_array(np.array(["a", "bb", "ccc"], dtype=object), mask=[False, True, False])
    assert rowjit.evaluate("length(s)", engine=ENGINE, s=masked).mask.tolist() == [False, True, False]
    with pytest.raises(ValueError, match="column 's' row 1 is not valid text") as e:  # a lone surrogate has no UTF-8
        rowjit.evaluate("length(s)", engine=ENGINE, s=np.array(["ok", "\ud800"], dtype=object))
    assert isinstance(e.value.__cause__, UnicodeEncodeError)


def test_fixed_width_arrays_are_read_in_place_at_any_stride():
    # 'U' rows are numpy's UCS-4 encoded to UTF-8 here, 'S' rows their bytes; trailing NULs
    # dropped as numpy drops them; views at any stride; big-endian 'U' through Python objects.
    words = np.array(["a", "h\u00e9", "xyz\x00q", "\u65e5\u672c", "", "\U0001f600!", "b" * 40] * 30)
    raw = np.array([w.encode() for w in words] + [b"x\x00\x00"])
    for view in (words, words[::3], words[::-2], words[5:90:7], words.astype(">U40")):
        got = rowjit.evaluate("char_length(s) * 1000 + length(s)", engine=ENGINE, s=view)
        np.testing.assert_array_equal(got, [len(w) * 1000 + len(w.encode()) for w in view])
        np.testing.assert_array_equal(rowjit.evaluate("s = 'h\u00e9'", engine=ENGINE, s=view), view == "h\u00e9")
    for view in (raw, raw[::-3]):
        np.testing.assert_array_equal(rowjit.evaluate("length(s)", engine=ENGINE, s=view), [len(b) for b in view])
    masked = np.ma.masked_array(np.array(["a", "bb", "ccc"]), mask=[False, True, False])
    assert rowjit.evaluate("length(s)", engine=ENGINE, s=masked).mask.tolist() == [False, True, False]
    surrogate = np.frombuffer(np.array([0x61, 0xD800], dtype="<u4").tobytes(), dtype="<U2")
    with pytest.raises(ValueError, match="U\\+D800"):
        rowjit.evaluate("length(s)", engine=ENGINE, s=surrogate)


def test_casts_between_text_and_numbers():
    s = np.array([" 12", "-7 ", "+3", "1e3"], dtype=object)
    got = rowjit.evaluate("cast(s, f64) * 2", engine=ENGINE, s=s)
    np.testing.assert_array_equal(got, [24.0, -14.0, 6.0, 2000.0])
    with pytest.raises(rowjit.Error, match=r"cast at row 3: '1e3' is not a valid i32"):
        rowjit.evaluate("cast(s, i32)", engine=ENGINE, s=s)
    a = np.array([5, -120, 0], dtype=np.int8)
    assert rowjit.evaluate("cast(a, utf8)", engine=ENGINE, a=a).tolist() == ["5", "-120", "0"]
    b = np.array([b"ok", b"\xff"], dtype=object)
    with pytest.raises(rowjit.Error, match="not valid UTF-8"):
        rowjit.evaluate("cast(b, utf8)", engine=ENGINE, b=b)


@pytest.mark.parametrize("n", [0, 1, 64, 65, 300])
def test_project_with_string_outputs(n):
    """A projection may return strings beside numbers (object arrays, None where null), and its
    numeric outputs may read string-valued calls; against the same values computed in Python."""
    rng = np.random.default_rng(n)
    words = [WORDS[i] for i in rng.integers(0, len(WORDS), n)]
    s = np.ma.masked_array(np.array(words, dtype=object), mask=rng.random(n) < 0.2)
    a = rng.integers(-5, 5, n).astype(np.int32)
    upper, plus, length, text = rowjit.project(["upper(s)", "a + 1", "length(lower(s)) * 2", "cast(a, utf8) || '!'"],
                                               engine=ENGINE, s=s, a=a)
    assert len(upper) == len(plus) == len(length) == len(text) == n
    for i in range(n):
        null = bool(np.ma.getmaskarray(s)[i])
        expected_upper = None if null else "".join(c.upper() if c.isascii() else c for c in words[i])
        got_upper = None if np.ma.is_masked(upper[i]) else upper[i]
        assert got_upper == expected_upper
        assert plus[i] == a[i] + 1
        if null:
            assert np.ma.is_masked(length[i])
        else:
            assert length[i] == 2 * len(words[i].encode())
        assert text[i] == f"{a[i]}!"
