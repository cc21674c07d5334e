#!/usr/bin/python3
"""The peers family of tools/bench-report: the work rowjit's benchmarks do, through numpy and numba.

Runs with Debian's python3 (python3-numpy, python3-numba). Prints JSON: one object per
(case, impl) with the median ns per call over `--repetitions` timed batches, each at least
`--min-time` seconds. Inputs match rowjit's benchmarks in type, size and null density (random
values of the same ranges, not the same bits); outputs are preallocated, as the kernels' are
when their output pool recycles them. numba's loops wrap on overflow where rowjit's checked
arithmetic detects it: the peers do less work than rowjit, never more.

Progress goes to stderr (tools/progress.py).

  /usr/bin/python3 tools/peers.py [--repetitions 3] [--min-time 0.1] [--quick]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

from progress import Progress

rowjit = None  # the built package, when --rowjit-python names it

# One thread for numpy's BLAS, as for every other peer (read when numpy loads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

try:
    import numba
    import numpy as np
except ImportError as e:  # bench-report prints the note and goes on without the family
    print(json.dumps({"skipped": f"{e} (apt install python3-numpy python3-numba)"}))
    sys.exit(0)


@numba.njit(cache=False, nogil=True)
def mul_add(a, b, c, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + c[i]


@numba.njit(cache=False, nogil=True)
def mul_add_masked(a, b, c, va, vb, vc, out, vout):
    # Nulls as byte masks, one per input: the values of every row, validity the AND.
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + c[i]
        vout[i] = va[i] & vb[i] & vc[i]


@numba.njit(cache=False, nogil=True)
def masked_sum(a, valid):
    s = 0
    for i in range(a.shape[0]):
        if valid[i]:
            s += a[i]
    return s


@numba.njit(cache=False, nogil=True)
def masked_sum_mul(a, b, va, vb):
    s = 0
    for i in range(a.shape[0]):
        if va[i] & vb[i]:
            s += a[i] * b[i]
    return s


@numba.njit(cache=False, nogil=True)
def exp_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])


@numba.njit(cache=False, nogil=True)
def log_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.log(x[i])


@numba.njit(cache=False, nogil=True)
def sin_loop(x, out):
    for i in range(x.shape[0]):
        out[i] = math.sin(x[i])


@numba.njit(cache=False, nogil=True)
def pow_loop(x, y, out):
    for i in range(x.shape[0]):
        out[i] = math.pow(x[i], y[i])


def timed(fn, min_time, repetitions):
    """Median ns per call of `fn` over `repetitions` batches of at least `min_time` seconds."""
    fn()  # warm: compile, fault in the output
    n = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        dt = time.perf_counter_ns() - t0
        if dt >= min_time * 1e9 / 4:
            break
        n *= 4
    per = []
    for _ in range(repetitions):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        per.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(per)


def columns(rng, dtype, rows, count, lo=-1000, hi=1000):
    if np.dtype(dtype).kind == "f":
        return [rng.uniform(lo, hi, rows).astype(dtype) for _ in range(count)]
    return [rng.integers(lo, hi, rows, dtype=dtype) for _ in range(count)]


def masks(rng, rows, count, valid):
    return [(rng.random(rows) < valid).astype(np.uint8) for _ in range(count)]


def cases(quick):
    """(family, case, rows, valid percent, {impl: callable})."""
    rng = np.random.default_rng(42)
    out = []
    sizes = (65536, 4194304)
    for t, dtype in (("i32", np.int32), ("f64", np.float64)):
        for rows in sizes:
            a, b, c = columns(rng, dtype, rows, 3)
            o = np.empty(rows, dtype)

            def np_run(a=a, b=b, c=c, o=o):
                np.multiply(a, b, out=o)
                np.add(o, c, out=o)
            out.append(("ordinary", f"{t}_mul_add", rows, 100,
                        {"numba": lambda a=a, b=b, c=c, o=o: mul_add(a, b, c, o), "numpy": np_run}))
    rows = 65536
    for t, dtype in (("i32", np.int32), ("f64", np.float64)):
        a, b, c = columns(rng, dtype, rows, 3)
        va, vb, vc = masks(rng, rows, 3, 0.5)
        o, vo = np.empty(rows, dtype), np.empty(rows, np.uint8)
        out.append(("nullable", f"{t}_mul_add_scattered", rows, 50,
                    {"numba": lambda a=a, b=b, c=c, va=va, vb=vb, vc=vc, o=o, vo=vo:
                     mul_add_masked(a, b, c, va, vb, vc, o, vo)}))
    for t, dtype in (("i32", np.int32), ("i64", np.int64), ("f64", np.float64)):
        for frac, pct in (("0.5", 50), ("1", 100)):
            (x,) = columns(rng, dtype, 15000, 1)
            (m,) = masks(rng, 15000, 1, pct / 100)
            out.append(("fold", f"sum_{t}_scattered_{frac}", 0, 100,
                        {"numba": lambda x=x, m=m: masked_sum(x, m),
                         "numpy": lambda x=x, m=m: np.sum(x, where=m.view(np.bool_))}))
    for pct in (50, 90, 100):
        a, b = columns(rng, np.int32, 1 << 20, 2)
        ma, mb = masks(rng, 1 << 20, 2, pct / 100)
        out.append(("fused", f"sum_i32_mul_scattered_{pct}", 0, 100,
                    {"numba": lambda a=a, b=b, ma=ma, mb=mb: masked_sum_mul(a, b, ma, mb)}))
    for rows in (8, 64):
        a, b, c = columns(rng, np.int32, rows, 3)
        o = np.empty(rows, np.int32)
        calls = {f"numba_call_{rows}_rows": lambda a=a, b=b, c=c, o=o: mul_add(a, b, c, o)}
        if rowjit is not None:  # rowjit's own Python calls into out=, beside numba's
            engine = rowjit.Engine(synchronous=True)
            f = engine.compile("a * b + c", a=np.int32, b=np.int32, c=np.int32)
            calls[f"python_compiled_call_{rows}_rows"] = lambda f=f, a=a, b=b, c=c, o=o: f(a, b, c, o)
            calls[f"python_evaluate_call_{rows}_rows"] = (
                lambda e=engine, a=a, b=b, c=c, o=o: e.evaluate("a * b + c", a=a, b=b, c=c, out=o))
        out.append(("compile", "ops3", 0, 100, calls))
    # bench/math_bench.cc's inputs: exp over [-20, 20], ln log-uniform over [1e-3, 1e3], sin over
    # [-10, 10], power with x log-uniform over [1e-2, 1e2] and y over [-5, 5]; 65,536 rows.
    rows = 65536
    x_exp = rng.uniform(-20, 20, rows)
    x_ln = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), rows))
    x_sin = rng.uniform(-10, 10, rows)
    x_pow, y_pow = np.exp(rng.uniform(np.log(1e-2), np.log(1e2), rows)), rng.uniform(-5, 5, rows)
    o = np.empty(rows)
    out.append(("math", "exp_f64", 0, 100, {"numba": lambda: exp_loop(x_exp, o), "numpy": lambda: np.exp(x_exp, out=o)}))
    out.append(("math", "ln_f64", 0, 100, {"numba": lambda: log_loop(x_ln, o), "numpy": lambda: np.log(x_ln, out=o)}))
    out.append(("math", "sin_f64", 0, 100, {"numba": lambda: sin_loop(x_sin, o), "numpy": lambda: np.sin(x_sin, out=o)}))
    out.append(("math", "power_f64", 0, 100,
                {"numba": lambda: pow_loop(x_pow, y_pow, o), "numpy": lambda: np.power(x_pow, y_pow, out=o)}))
    # bench/vector_bench.cc's work: 1,048,576 vectors of 768 f32 against one query, numpy's
    # matrix-vector product (BLAS on one thread: OPENBLAS_NUM_THREADS, set before numpy loads).
    rows = 1 << 20
    vectors = rng.random((rows, 768), dtype=np.float32)  # in place to [-1, 1): no f64 copy of 3 GiB
    vectors *= 2
    vectors -= 1
    query = rng.uniform(-1, 1, 768).astype(np.float32)
    scores = np.empty(rows, np.float32)
    out.append(("vectors", "dot_f32_768", rows, 100, {"numpy": lambda: np.matmul(vectors, query, out=scores)}))
    if quick:
        out = [c for c in out if c[0] != "ordinary" or c[2] != 65536 or c[1].startswith("i32")]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repetitions", type=int, default=3)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rowjit-python", default="",
                    help="a folder holding the built rowjit package: its Python calls run beside numba's")
    args = ap.parse_args()
    global rowjit
    if args.rowjit_python:
        sys.path.insert(0, args.rowjit_python)
        import rowjit as module  # noqa: E402 (the folder is known only now)
        rowjit = module
    work = [(family, case, rows, valid, impl, fn)
            for family, case, rows, valid, impls in cases(args.quick) for impl, fn in impls.items()]
    progress = Progress(len(work), "peers")  # stderr; the JSON alone on stdout
    results = []
    for family, case, rows, valid, impl, fn in work:
        ns = timed(fn, args.min_time, args.repetitions)
        results.append({"family": family, "case": case, "impl": impl, "rows": rows, "valid": valid,
                        "ns_per_iter": ns})
        progress.advance(note=f"{family}/{case}/{impl}/rows:{rows}/valid:{valid} {ns:.0f} ns")
    progress.close()
    print(json.dumps({"numpy": np.__version__, "numba": numba.__version__, "results": results}))


if __name__ == "__main__":
    main()
