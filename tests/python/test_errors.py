"""Errors in an expression's text (tests): rowjit.Error's message shows the span under the text
with a caret and tildes, .span gives it in characters of .text, unknown names get the nearest
known one (a column from every column of the batch, not only those the call read), names given
as None keep the caller's offsets, rowjit.dask raises them when the call is made, and
Engine(implicit_casts=False) binds strictly. Offsets and carets are counted by hand from the
texts."""
import pickle

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import rowjit
import rowjit.dask

ENGINE = rowjit.Engine(synchronous=True)
A = np.arange(4, dtype=np.int32)
PRICE = np.array([1.5, 2.0, 2.5, 3.0])


def fails(call):
    with pytest.raises(rowjit.Error) as e:
        call()
    return e.value


def marked(e):
    """The text under the error's span."""
    offset, length = e.span
    return e.text[offset:offset + length]


def test_an_unknown_function_is_shown_under_the_text_with_its_suggestion():
    for _ in range(2):  # the second call takes the plain path (numpy keywords naming exactly the columns)
        e = fails(lambda: rowjit.evaluate("sqroot(a)", a=A, engine=ENGINE))
        assert str(e) == "invalid input: unknown function 'sqroot' (did you mean 'sqrt'?)\n  sqroot(a)\n  ^~~~~~"
        assert (e.kind, e.span, e.text, e.row, e.function, e.partition) == \
            ("invalid input", (0, 6), "sqroot(a)", None, None, None)


def test_an_unknown_column_is_suggested_from_every_column_of_the_batch():
    batch = {"price": PRICE, "qty": A, "label": np.array(["a", "b", "c", "d"], dtype=object)}
    want = "invalid input: unknown column 'qnty' (did you mean 'qty'?)\n  price * qnty\n          ^~~~"
    for given in (batch, pd.DataFrame(batch)):  # the call reads price alone; qty is still suggested
        e = fails(lambda: rowjit.evaluate("price * qnty", given, engine=ENGINE))
        assert str(e) == want and e.span == (8, 4) and marked(e) == "qnty"
    # Nothing close: the message lists the batch's columns in its order, with their types.
    e = fails(lambda: rowjit.filter("price > zzz", {"qty": A, "price": PRICE}, engine=ENGINE))
    assert str(e).startswith("invalid input: unknown column 'zzz' (the schema has qty:i32, price:f64)\n")
    assert e.span == (8, 3)


def test_a_mistyped_name_is_the_error_not_the_keyword_it_was_meant_for():
    # `aa + 1` with a=...: the unknown column is the mistake, suggested from the keywords; a
    # keyword the expression does not use is still refused when every name is found.
    e = fails(lambda: rowjit.evaluate("aa + 1", a=A, engine=ENGINE))
    assert str(e).splitlines()[0] == "invalid input: unknown column 'aa' (did you mean 'a'?)"
    with pytest.raises(TypeError, match="unexpected keyword argument 'b'"):
        rowjit.evaluate("a + 1", a=A, b=A, engine=ENGINE)
    # A frame whose columns the expression reads none of: still suggested from all of them.
    e = fails(lambda: rowjit.evaluate("pricee * 2", pd.DataFrame({"price": PRICE, "qty": A}), engine=ENGINE))
    assert str(e).splitlines()[0] == "invalid input: unknown column 'pricee' (did you mean 'price'?)"


def test_syntax_errors_aggregates_and_projections_point_into_their_own_text():
    e = fails(lambda: rowjit.evaluate("a +", a=A, engine=ENGINE))
    assert e.span == (3, 0) and str(e).endswith("\n  a +\n     ^")  # a point at the end of the text
    e = fails(lambda: rowjit.aggregate("sum(a * zz)", a=A, engine=ENGINE))
    assert (e.span, e.text) == ((8, 2), "sum(a * zz)") and str(e).endswith("\n  sum(a * zz)\n          ^~")
    e = fails(lambda: rowjit.project(["a + 1", "a * zz"], a=A, engine=ENGINE))
    assert (e.span, e.text) == ((4, 2), "a * zz")
    e = fails(lambda: rowjit.evaluate("a + (a and a)", a=A, engine=ENGINE))  # a type error: the call
    assert e.kind == "type error" and marked(e) == "a and a"


def test_spans_count_characters_as_python_indexes_a_str():
    s = np.array(["x", "y", "z", "w"], dtype=object)
    e = fails(lambda: rowjit.evaluate("'é€' || s || zz", s=s, engine=ENGINE))
    assert e.span == (13, 2) and marked(e) == "zz"  # bytes 16 to 18 of the UTF-8 text
    assert str(e).endswith("\n  'é€' || s || zz\n" + " " * 15 + "^~")


def test_names_given_as_none_keep_the_callers_offsets():
    e = fails(lambda: rowjit.evaluate("a + k + frob(a)", a=A, k=None, engine=ENGINE))
    assert e.span == (8, 4) and e.text == "a + k + frob(a)"  # the engine bound "a + null + frob(a)"
    assert str(e).endswith("\n  a + k + frob(a)\n          ^~~~")
    e = fails(lambda: rowjit.evaluate("kk + a + k + zz", a=A, k=None, kk=None, engine=ENGINE))
    assert e.span == (13, 2) and marked(e) == "zz"  # at 18 in "null + a + null + zz"
    s = np.array(["x", "y", "z", "w"], dtype=object)
    e = fails(lambda: rowjit.evaluate("(s + k) > 0", s=s, k=None, engine=ENGINE))  # a span over the null
    assert e.kind == "type error" and marked(e) == "s + k"


def test_other_errors_have_no_span():
    e = fails(lambda: rowjit.evaluate("a * 2000000000", a=A, engine=ENGINE))  # 2 * 2e9 passes 2**31 - 1
    assert (e.kind, e.row, e.span, e.text) == ("overflow", 2, None, None)
    assert "\n" not in str(e)


def test_errors_keep_their_span_through_pickling():
    e = fails(lambda: rowjit.evaluate("sqroot(a)", a=A, engine=ENGINE))
    again = pickle.loads(pickle.dumps(e))
    assert (str(again), again.kind, again.span, again.text) == (str(e), e.kind, e.span, e.text)
    assert rowjit.Error("overflow: x", "overflow", 1, "mul").span is None  # made by hand, as before


def test_strict_engines_refuse_what_the_implicit_casts_would_repair():
    assert rowjit.evaluate("a + 1.5", a=A, engine=ENGINE).tolist() == [1.5, 2.5, 3.5, 4.5]
    strict = rowjit.Engine(synchronous=True, implicit_casts=False)
    e = fails(lambda: strict.evaluate("a + 1.5", a=A))
    assert e.kind == "type error" and e.span == (4, 3) and str(e).endswith("\n  a + 1.5\n      ^~~")
    e = fails(lambda: strict.evaluate("a + price", a=A, price=PRICE))
    assert "add(i32, f64): arguments must have the same type (write a cast)" in str(e) and marked(e) == "a + price"
    assert strict.evaluate("cast(a, f64) + price", a=A, price=PRICE).tolist() == [1.5, 3.0, 4.5, 6.0]
    with pytest.raises(TypeError, match="implicit_casts= must be True or False, not str"):
        rowjit.Engine(implicit_casts="no")


def test_dask_calls_raise_text_errors_when_made():
    a = da.from_array(np.arange(10, dtype=np.int32), chunks=5)
    e = fails(lambda: rowjit.dask.evaluate("sqroot(a)", a=a))
    assert (e.span, e.partition) == ((0, 6), None) and "did you mean 'sqrt'?" in str(e)
    e = fails(lambda: rowjit.dask.aggregate("sum(a +)", a=a))  # a syntax error, not a refused keyword
    assert e.span == (7, 1)
    frame = dd.from_pandas(pd.DataFrame({"price": np.arange(10) * 1.5, "qty": np.arange(10)}), npartitions=2)
    for call in (rowjit.dask.evaluate, rowjit.dask.filter):
        e = fails(lambda: call("price * qnty > 1", frame))
        assert e.span == (8, 4) and "did you mean 'qty'?" in str(e) and e.partition is None
