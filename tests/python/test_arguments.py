"""Arguments of every call of the module (tests): a wrong type is a TypeError and a wrong value a
ValueError, each with a message naming the argument; thread counts are clamped (evaluate's
threads=) or refused, and never end the process (each such probe runs in a child process, so that
an abort fails its test instead of the whole run)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rowjit

ENGINE = rowjit.Engine(synchronous=True)
A = np.arange(100, dtype=np.int32)
SURROGATE = "a + 1\ud800"


def run_child(code, timeout=600):
    """Runs `code` in a fresh interpreter with this one's environment: (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ))
    assert done.returncode >= 0, f"the child was killed by signal {-done.returncode}: {done.stderr[-2000:]}"
    return done.returncode, done.stdout, done.stderr


# --- threads= ----------------------------------------------------------------------------------

@pytest.mark.parametrize("threads", ["x", 2.5, "2", [2]])
def test_threads_of_a_wrong_type_is_a_type_error(threads):
    with pytest.raises(TypeError, match="threads= must be an int"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, threads=threads)
    with pytest.raises(TypeError, match="threads= must be an int"):
        ENGINE.evaluate("a + 1", a=A, threads=threads)


@pytest.mark.parametrize("threads", [2**40, 2**31, 0, -1, -2**70])
def test_threads_out_of_range_is_a_value_error(threads):
    with pytest.raises(ValueError, match=f"threads= must be from 1 to 2147483647, not {threads}"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, threads=threads)


def test_threads_takes_any_integer_type():
    for threads in (1, 2, np.int64(3), np.uint8(2), True, 2**31 - 1):
        np.testing.assert_array_equal(rowjit.evaluate("a + 1", engine=ENGINE, a=A, threads=threads), A + 1)


def test_a_huge_thread_count_is_clamped_and_right():
    # One thread per chunk without a cap ended in std::terminate; clamped, the answer is numpy's
    # and an error still names its row in the whole batch.
    status, out, err = run_child("""
        import numpy as np, rowjit
        a = np.arange(6_400_000, dtype=np.int32)
        r = rowjit.evaluate("a + 1", a=a, threads=100000)
        assert r.dtype == np.int32 and np.array_equal(r, a + 1), "wrong result"
        bad = a.copy()
        bad[6_000_001] = 2**30
        try:
            rowjit.evaluate("a * 4", a=bad, threads=100000)
        except rowjit.Error as e:
            assert e.row == 6_000_001, e.row
        else:
            raise AssertionError("no overflow")
        small = rowjit.evaluate("a * 2", a=a[:100], threads=2**31 - 1)
        assert np.array_equal(small, a[:100] * 2)
        print("ok")
    """)
    assert status == 0, err
    assert out.strip() == "ok"


def test_threads_are_clamped_to_the_cpus_and_a_failed_start_is_an_error():
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: threads= is clamped to 1, no thread is started")
    with open("/proc/self/status") as f:
        vm = int(next(line for line in f if line.startswith("VmSize:")).split()[1])
    if vm > 1 << 30:  # KiB: a sanitizer's shadow memory, which an address-space limit cannot bound
        pytest.skip("an address-space limit does not fit a sanitizer build")
    # An address-space limit just above what the process uses: a thread's stack cannot be
    # mapped, so starting the chunk's thread fails (EAGAIN) and the call raises. Bound to one
    # CPU, the same call under the same limit starts no thread at all: threads= is clamped.
    status, out, err = run_child("""
        import os, resource, numpy as np, rowjit
        engine = rowjit.Engine(synchronous=True)
        a = np.arange(200_000, dtype=np.int32)
        assert np.array_equal(engine.evaluate("a + 1", a=a), a + 1)   # compiled (one thread: no stack cached)
        with open("/proc/self/status") as f:
            used = int(next(line for line in f if line.startswith("VmSize:")).split()[1]) * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (used + (4 << 20), hard))
        try:
            engine.evaluate("a + 1", a=a, threads=2)
            print("started")
        except rowjit.Error as e:
            print(e.kind, "|", e)
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        assert np.array_equal(engine.evaluate("a + 1", a=a, threads=100000), a + 1)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        assert np.array_equal(engine.evaluate("a + 1", a=a, threads=2), a + 1)
        print("clamped")
    """)
    assert status == 0, err
    if out.startswith("started"):
        pytest.skip("the limit did not stop a thread here")
    first, last = out.splitlines()
    assert first.startswith("out of memory | ") and "could not start thread 2 of 2" in first, out
    assert last == "clamped"


# --- the other keywords of the calls -----------------------------------------------------------

@pytest.mark.parametrize("call", ["evaluate", "filter", "project"])
def test_arrow_of_a_wrong_type_is_a_type_error(call):
    first = ["a > 1"] if call == "project" else "a > 1"
    with pytest.raises(TypeError, match="arrow= must be True or False, not str"):
        getattr(rowjit, call)(first, engine=ENGINE, a=A, arrow="yes")
    with pytest.raises(TypeError, match="arrow= must be True or False, not int"):
        getattr(rowjit, call)(first, engine=ENGINE, a=A, arrow=1)


def test_arrow_takes_booleans_and_none():
    assert isinstance(rowjit.evaluate("a + 1", engine=ENGINE, a=A, arrow=True), rowjit.Array)
    assert isinstance(rowjit.evaluate("a + 1", engine=ENGINE, a=A, arrow=np.True_), rowjit.Array)
    assert isinstance(rowjit.evaluate("a + 1", engine=ENGINE, a=A, arrow=None), np.ndarray)
    assert isinstance(rowjit.evaluate("a + 1", engine=ENGINE, a=rowjit.array(A), arrow=False), np.ndarray)


@pytest.mark.parametrize("call", ["evaluate", "filter", "project", "aggregate"])
def test_engine_of_a_wrong_type_is_a_type_error(call):
    first = {"evaluate": "a + 1", "filter": "a > 1", "project": ["a + 1"], "aggregate": "sum(a)"}[call]
    with pytest.raises(TypeError, match="engine= must be a rowjit.Engine or None, not int"):
        getattr(rowjit, call)(first, a=A, engine=5)
    with pytest.raises(TypeError, match="engine= must be a rowjit.Engine or None, not str"):
        getattr(rowjit, call)(first, a=A, engine="default")


@pytest.mark.parametrize("call", ["evaluate", "filter", "project", "aggregate"])
def test_a_lone_surrogate_in_the_text_is_a_value_error(call):
    first = [SURROGATE] if call == "project" else SURROGATE
    with pytest.raises(ValueError, match="is not valid text: .*surrogates not allowed") as e:
        getattr(rowjit, call)(first, engine=ENGINE, a=A)
    assert isinstance(e.value.__cause__, UnicodeEncodeError)
    with pytest.raises(ValueError, match="is not valid text"):
        getattr(ENGINE, call)(first, a=A)


@pytest.mark.parametrize("call", ["evaluate", "filter", "aggregate"])
def test_text_of_a_wrong_type_is_a_type_error(call):
    with pytest.raises(TypeError, match="must be a str, not int"):
        getattr(rowjit, call)(5, engine=ENGINE, a=A)
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        getattr(rowjit, call)(engine=ENGINE, a=A)


def test_project_takes_a_list_of_str():
    with pytest.raises(TypeError, match="project takes a list of expressions \\(str\\), not str"):
        rowjit.project("a + 1", engine=ENGINE, a=A)
    with pytest.raises(TypeError, match="project takes a list of expressions \\(str\\), not int"):
        rowjit.project(5, engine=ENGINE, a=A)
    with pytest.raises(TypeError, match="project's expression 1 must be a str, not int"):
        rowjit.project(["a + 1", 5], engine=ENGINE, a=A)
    got = rowjit.project(("a + 1", "a * 2"), engine=ENGINE, a=A)  # any sequence
    np.testing.assert_array_equal(got[1], A * 2)


def test_valid_of_a_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="valid= must be a dict of column name -> bool array, not int"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, valid=5)
    with pytest.raises(TypeError, match="valid= must be a dict"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, valid=[("a", A > 3)])
    with pytest.raises(TypeError, match="valid= keys are column names, which must be str, not int"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, valid={5: A > 3})
    with pytest.raises(TypeError, match="the validity mask of column 'a' must be a 1-d bool array, not str"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, valid={"a": "x"})
    with pytest.raises(ValueError, match="validity mask of column 'a' must be a 1-d bool array of the column's length"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=A, valid={"a": A[:5] > 3})


def test_columns_of_a_wrong_type_are_type_errors():
    with pytest.raises(TypeError, match="column 'a' must be an array or an Arrow array, not object"):
        rowjit.evaluate("a + 1", {"a": object()}, engine=ENGINE)
    with pytest.raises(TypeError, match="column 'a' must be an array or an Arrow array, not object"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=object())
    with pytest.raises(TypeError, match="a batch dict's keys are column names, which must be str, not int"):
        rowjit.evaluate("a + 1", {5: A}, engine=ENGINE)
    with pytest.raises(ValueError, match="a column name is not valid text"):
        rowjit.evaluate("a + 1", {"\ud800": A}, engine=ENGINE)
    with pytest.raises(TypeError, match="unexpected keyword argument"):   # a keyword the expression does not use
        rowjit.evaluate("a + 1", engine=ENGINE, **{"\ud800": A})
    with pytest.raises(ValueError, match="column 'a' is a 3-d array"):
        rowjit.evaluate("a + 1", engine=ENGINE, a=np.zeros((2, 2, 2), dtype=np.int32))
    with pytest.raises(rowjit.Error, match="add does not take a vector"):  # 2-d: a column of vectors
        rowjit.evaluate("a + 1", engine=ENGINE, a=np.zeros((2, 2), dtype=np.int32))
    np.testing.assert_array_equal(rowjit.evaluate("a + 1", engine=ENGINE, a=[1, 2, 3]), [2, 3, 4])  # a list


# --- Engine(...) -------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, message", [
    ({"compile_threads": "x"}, TypeError, "compile_threads= must be an int, not str"),
    ({"compile_threads": 1.5}, TypeError, "compile_threads= must be an int, not float"),
    ({"compile_threads": 0}, ValueError, "compile_threads= must be from 1 to 2147483647, not 0"),
    ({"compile_threads": -4}, ValueError, "compile_threads= must be from 1 to 2147483647, not -4"),
    ({"compile_threads": 2**40}, ValueError, "compile_threads= must be from 1 to 2147483647"),
    ({"cache_dir": 5}, TypeError, "cache_dir= must be a str, not int"),
    ({"cache_dir": None}, TypeError, "cache_dir= must be a str, not NoneType"),
    ({"cache_dir": "\ud800"}, ValueError, "cache_dir= is not valid text"),
    ({"cache_dir": "a\0b"}, ValueError, "cache_dir= holds a NUL character"),
    ({"synchronous": "x"}, TypeError, "synchronous= must be True or False, not str"),
])
def test_engine_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        rowjit.Engine(**kwargs)


def test_engine_takes_valid_arguments(tmp_path):
    e = rowjit.Engine(str(tmp_path), np.True_, np.int32(2))
    np.testing.assert_array_equal(e.evaluate("a + 1", a=A), A + 1)
    with pytest.raises(TypeError):
        rowjit.Engine(threads=2)  # not an argument of the constructor


def test_a_huge_compile_thread_count_does_not_abort():
    # The engine bounds its pool: it either makes the engine or refuses the count with an error,
    # and never ends the process.
    status, out, err = run_child("""
        import numpy as np, rowjit
        try:
            e = rowjit.Engine(compile_threads=100000)
        except (ValueError, rowjit.Error) as error:
            print("refused", type(error).__name__, error)
        else:
            a = np.arange(1000, dtype=np.int64)
            assert np.array_equal(e.evaluate("a * 3", a=a), a * 3)
            del e
            print("made")
    """)
    assert status == 0, err
    assert out.startswith(("made", "refused")), out


# --- array(), record_batch(), interval_dtype() -------------------------------------------------

def test_array_arguments():
    with pytest.raises(TypeError, match="column 'values' must be an array or an Arrow array, not int"):
        rowjit.array(5)
    with pytest.raises(TypeError, match="must be an array or an Arrow array, not NoneType"):
        rowjit.array(None)
    with pytest.raises(TypeError, match="the validity mask of column 'values' must be a 1-d bool array, not int"):
        rowjit.array(A, valid=5)
    with pytest.raises(ValueError, match="the column's length \\(100 rows\\)"):
        rowjit.array(A, valid=A[:3] > 0)
    with pytest.raises(ValueError, match="is a 3-d array"):
        rowjit.array(np.zeros((2, 2, 2)))
    assert rowjit.array(np.zeros((2, 3))).type == "fixed_size_list<f64, 3>"  # 2-d: vectors
    assert rowjit.array(A, valid=A > 10).null_count == 11


def test_record_batch_arguments():
    with pytest.raises(TypeError, match="a batch is a dict of columns or an Arrow record batch"):
        rowjit.record_batch(5)
    with pytest.raises(TypeError, match="column 'a' must be an array or an Arrow array, not int"):
        rowjit.record_batch(a=5)
    with pytest.raises(TypeError, match="valid= must be a dict"):
        rowjit.record_batch(a=A, valid=5)
    batch = rowjit.record_batch(a=A, b=A * 2)
    with pytest.raises(TypeError, match="a column is named by a str or numbered by an int, not float"):
        batch[1.5]
    with pytest.raises(TypeError, match="not NoneType"):
        batch.column(None)
    with pytest.raises(IndexError, match="no column"):
        batch[2**70]
    with pytest.raises(IndexError, match="no column"):
        batch[-3]
    with pytest.raises(KeyError, match="no column 'c'"):
        batch["c"]
    np.testing.assert_array_equal(batch[-1].to_numpy(), A * 2)
    np.testing.assert_array_equal(batch[np.int64(0)].to_numpy(), A)


def test_interval_dtype_arguments():
    with pytest.raises(TypeError, match="interval_dtype's unit must be a str, not int"):
        rowjit.interval_dtype(5)
    with pytest.raises(ValueError, match="takes 'months', 'day_time' or 'month_day_nano', not 'weeks'"):
        rowjit.interval_dtype("weeks")
    with pytest.raises(ValueError, match="month_day_nano"):
        rowjit.interval_dtype("\ud800")
    assert rowjit.interval_dtype(unit="months").names == ("months",)
