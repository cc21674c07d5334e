#!/usr/bin/python3
"""TPC-H Q1 and Q6 through numpy and DuckDB (one thread) on the rows rowjit's tpch benchmarks read.

build/bin/rowjit_tpch_export writes the generated lineitem columns (ROWJIT_TPCH_SF, default 1)
and the C++ loops' answers into build/tpch-export/sf<SF>/ (made once per scale factor and
exporter build). numpy reads the raw columns: Q6 as boolean masks and one dot product, Q1 as one
np.bincount per aggregate over a group id made of the two key codes (the large sums split into
two exact halves: float64 weights are exact only below 2^53). DuckDB, libduckdb.so loaded
through ctypes (its C API), reads the CSV into a table of the columns' SQL types (DECIMAL(15,2),
DATE, VARCHAR) under `SET threads=1` and runs the specification's SQL of both queries. Every
answer is compared with the C++ loop's exactly (decimal sums as text, DuckDB's float averages to
1e-12) before it is timed; each figure is the median of --repetitions runs after a warm-up, in
CPU time (the process's) and wall time.

libduckdb.so: $ROWJIT_LIBDUCKDB, else build/duckdb/<version>/package/libduckdb.so, fetched once
from the npm registry's @duckdb/node-bindings-linux-x64 (npm pack, or curl of its tarball); the
DuckDB rows are skipped with a note when it cannot be had. Answers go to stderr; stdout carries
a table, or with --json the figures as JSON (tools/bench-report --peers reads that).

  /usr/bin/python3 bench/tpch_peers.py [--repetitions 5] [--json] [--no-duckdb]
"""
import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUCKDB_NPM = "@duckdb/node-bindings-linux-x64"
DUCKDB_VERSION = "1.5.6-r.1"  # pinned: the same engine from run to run
EPOCH_DAYS = {"1994-01-01": 8766, "1995-01-01": 9131, "1998-09-02": 10471}  # date32 days
Q1_SQL = """select l_returnflag, l_linestatus, sum(l_quantity) as sum_qty,
  sum(l_extendedprice) as sum_base_price, sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge, avg(l_quantity) as avg_qty,
  avg(l_extendedprice) as avg_price, avg(l_discount) as avg_disc, count(*) as count_order
from lineitem where l_shipdate <= date '1998-12-01' - interval '90' day
group by l_returnflag, l_linestatus order by l_returnflag, l_linestatus"""
Q6_SQL = """select sum(l_extendedprice * l_discount) as revenue from lineitem
where l_shipdate >= date '1994-01-01' and l_shipdate < date '1994-01-01' + interval '1' year
  and l_discount between 0.06 - 0.01 and 0.06 + 0.01 and l_quantity < 24"""
SUMS = [("sum_qty", 2), ("sum_base_price", 2), ("sum_disc_price", 4), ("sum_charge", 6)]


def log(text):
    print(text, file=sys.stderr, flush=True)


def export(sf_text):
    """The export folder of this scale factor, (re)made when missing or older than the exporter."""
    exporter = os.path.join(ROOT, "build", "bin", "rowjit_tpch_export")
    if not os.path.exists(exporter):
        sys.exit(f"tpch_peers: {exporter} not found; build it: /work/notes/build.sh rowjit_tpch_export")
    folder = os.path.join(ROOT, "build", "tpch-export", f"sf{sf_text}")
    answers = os.path.join(folder, "answers.json")
    if not os.path.exists(answers) or os.path.getmtime(answers) < os.path.getmtime(exporter):
        os.makedirs(folder, exist_ok=True)
        if os.path.exists(answers):
            os.remove(answers)  # written last: its presence marks a whole export
        log(f"tpch_peers: exporting lineitem at SF {sf_text} into {folder}")
        subprocess.run([exporter, folder], check=True)
    with open(answers) as f:
        return folder, json.load(f)


def timed(fn, repetitions):
    """Medians of (the process's CPU time, wall time) per call, after a warm-up: CPU time as
    Google Benchmark reports rowjit's (the process's, so a helper thread would count), and wall
    time, which a busy host inflates."""
    fn()  # warm-up: page faults, DuckDB's first plan
    cpu, wall = [], []
    for _ in range(repetitions):
        c0, t0 = time.process_time_ns(), time.perf_counter_ns()
        fn()
        wall.append(time.perf_counter_ns() - t0)
        cpu.append(time.process_time_ns() - c0)
    return statistics.median(cpu), statistics.median(wall)


def exact_bincount(np, groups, weights, slots, max_term, scratch, wide):
    """Exact int64 group sums through np.bincount (float64 weights, exact below 2^53): one pass
    when every partial sum stays below 2^53, else the low 26 bits and the rest summed apart and
    joined as Python ints. The weights go through `scratch`, a float64 buffer (and the halves
    through `wide`, an int64 one): bincount would otherwise convert them into a fresh array."""
    if max_term * len(weights) < 2 ** 53:
        np.copyto(scratch, weights, casting="unsafe")
        return [int(x) for x in np.bincount(groups, scratch, slots)]
    np.copyto(scratch, np.bitwise_and(weights, (1 << 26) - 1, out=wide), casting="unsafe")
    lo = np.bincount(groups, scratch, slots)
    np.copyto(scratch, np.right_shift(weights, 26, out=wide), casting="unsafe")
    hi = np.bincount(groups, scratch, slots)
    return [(int(h) << 26) + int(x) for h, x in zip(hi, lo)]


def numpy_peer(np, folder):
    """(q6, q1) callables over the raw columns, each returning its answer in answers.json's form.
    Row-sized temporaries live in buffers made once (out=), as peers.py preallocates outputs:
    fresh arrays would fault their pages in again at every query."""
    col = {name: np.fromfile(os.path.join(folder, f"l_{name}.{ext}"), dtype)
           for name, ext, dtype in (("quantity", "i64", "<i8"), ("extendedprice", "i64", "<i8"),
                                    ("discount", "i64", "<i8"), ("tax", "i64", "<i8"),
                                    ("shipdate", "i32", "<i4"), ("returnflag", "u8", "u1"),
                                    ("linestatus", "u8", "u1"))}
    q, p, d, t, s = (col[k] for k in ("quantity", "extendedprice", "discount", "tax", "shipdate"))
    n = len(q)
    # The group id, made once as a host would keep it, as intp: np.bincount converts narrower
    # groups on every call (with int64 weights, twenty times the time of the sum itself).
    gid = (col["returnflag"] * np.uint8(2) + col["linestatus"]).astype(np.intp)
    m1, m2, g = np.empty(n, np.bool_), np.empty(n, np.bool_), np.empty(n, np.intp)
    disc_price, charge, wide, f64 = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)

    def q6():
        np.greater_equal(s, EPOCH_DAYS["1994-01-01"], out=m1)
        for column, op, bound in ((s, np.less, EPOCH_DAYS["1995-01-01"]), (d, np.greater_equal, 5),
                                  (d, np.less_equal, 7), (q, np.less, 2400)):
            np.logical_and(m1, op(column, bound, out=m2), out=m1)
        return str(Decimal(int(np.dot(p[m1], d[m1]))).scaleb(-4))

    def q1():
        # Rows past the ship date go to slot 6, which no answer reads: no gather of the ~98 %
        # of rows Q1 keeps.
        np.less_equal(s, EPOCH_DAYS["1998-09-02"], out=m1)
        g.fill(6)
        np.copyto(g, gid, where=m1)
        np.subtract(100, d, out=wide)
        np.multiply(p, wide, out=disc_price)
        np.add(t, 100, out=wide)
        np.multiply(disc_price, wide, out=charge)
        count = np.bincount(g, minlength=7)
        # Bounds of a row's terms, in units of the last digit: quantity 50.00, price 50 x a retail
        # price of at most 2,099.00 (below 2^24 cents), discount 0.10, and the products' factors.
        sums = [exact_bincount(np, g, w, 7, bound, f64, wide)
                for w, bound in ((q, 5000), (p, 2 ** 24), (d, 10), (disc_price, 100 * 2 ** 24),
                                 (charge, 110 * 100 * 2 ** 24))]
        return q1_groups(count, sums)
    return q6, q1


def q1_groups(count, sums):
    """numpy's Q1 sums per slot (flag code * 2 + status code) as answers.json's group list."""
    out = []
    for slot in range(6):
        if count[slot] == 0:
            continue
        row = {"l_returnflag": "ANR"[slot // 2], "l_linestatus": "FO"[slot % 2]}
        for (name, scale), values in zip(SUMS + [("sum_disc", 2)], [sums[0], sums[1], sums[3], sums[4], sums[2]]):
            row[name] = str(Decimal(values[slot]).scaleb(-scale))
        row["count_order"] = int(count[slot])
        out.append(row)
    return out


class DuckDB:
    """The few C API calls the peer needs, through ctypes (duckdb.h's signatures)."""

    class Result(ctypes.Structure):  # duckdb_result: deprecated fields, then the internal data
        _fields_ = [("column_count", ctypes.c_uint64), ("row_count", ctypes.c_uint64),
                    ("rows_changed", ctypes.c_uint64), ("columns", ctypes.c_void_p),
                    ("error", ctypes.c_char_p), ("internal", ctypes.c_void_p), ("pad", ctypes.c_uint64 * 4)]

    def __init__(self, path):
        lib = self.lib = ctypes.CDLL(path)
        P, R = ctypes.c_void_p, ctypes.POINTER(self.Result)
        for name, res, args in (("duckdb_open", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(P)]),
                                ("duckdb_connect", ctypes.c_int, [P, ctypes.POINTER(P)]),
                                ("duckdb_query", ctypes.c_int, [P, ctypes.c_char_p, R]),
                                ("duckdb_result_error", ctypes.c_char_p, [R]),
                                ("duckdb_row_count", ctypes.c_uint64, [R]),
                                ("duckdb_column_count", ctypes.c_uint64, [R]),
                                ("duckdb_column_name", ctypes.c_char_p, [R, ctypes.c_uint64]),
                                ("duckdb_value_varchar", P, [R, ctypes.c_uint64, ctypes.c_uint64]),
                                ("duckdb_free", None, [P]), ("duckdb_destroy_result", None, [R]),
                                ("duckdb_disconnect", None, [ctypes.POINTER(P)]),
                                ("duckdb_close", None, [ctypes.POINTER(P)]),
                                ("duckdb_library_version", ctypes.c_char_p, [])):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        self.db, self.con = P(), P()
        if lib.duckdb_open(None, ctypes.byref(self.db)) != 0 or lib.duckdb_connect(self.db, ctypes.byref(self.con)) != 0:
            raise RuntimeError("duckdb_open or duckdb_connect failed")
        self.version = lib.duckdb_library_version().decode()

    def query(self, sql, fetch=True):
        """Runs `sql`; its rows as {column: text} when `fetch`, else None (the timed form)."""
        result = self.Result()
        try:
            if self.lib.duckdb_query(self.con, sql.encode(), ctypes.byref(result)) != 0:
                raise RuntimeError(f"DuckDB: {self.lib.duckdb_result_error(ctypes.byref(result)).decode()}")
            if not fetch:
                return None
            names = [self.lib.duckdb_column_name(ctypes.byref(result), c).decode()
                     for c in range(self.lib.duckdb_column_count(ctypes.byref(result)))]
            rows = []
            for r in range(self.lib.duckdb_row_count(ctypes.byref(result))):
                row = {}
                for c, name in enumerate(names):
                    ptr = self.lib.duckdb_value_varchar(ctypes.byref(result), c, r)
                    row[name] = ctypes.string_at(ptr).decode() if ptr else None
                    self.lib.duckdb_free(ptr)
                rows.append(row)
            return rows
        finally:
            self.lib.duckdb_destroy_result(ctypes.byref(result))

    def close(self):
        self.lib.duckdb_disconnect(ctypes.byref(self.con))
        self.lib.duckdb_close(ctypes.byref(self.db))


def libduckdb():
    """The path of libduckdb.so, fetched into build/duckdb/ on first use; (None, why) without it."""
    given = os.environ.get("ROWJIT_LIBDUCKDB")
    if given:
        return (given, None) if os.path.exists(given) else (None, f"ROWJIT_LIBDUCKDB={given} does not exist")
    cache = os.path.join(ROOT, "build", "duckdb")
    lib = os.path.join(cache, DUCKDB_VERSION, "package", "libduckdb.so")
    if os.path.exists(lib):
        return lib, None
    os.makedirs(cache, exist_ok=True)
    tgz = os.path.join(cache, f"duckdb-node-bindings-linux-x64-{DUCKDB_VERSION}.tgz")
    url = f"https://registry.npmjs.org/{DUCKDB_NPM}/-/node-bindings-linux-x64-{DUCKDB_VERSION}.tgz"
    log(f"tpch_peers: fetching {DUCKDB_NPM}@{DUCKDB_VERSION} into {cache}")
    if not os.path.exists(tgz):
        if shutil.which("npm"):
            subprocess.run(["npm", "pack", f"{DUCKDB_NPM}@{DUCKDB_VERSION}", "--pack-destination", cache],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        if not os.path.exists(tgz) and shutil.which("curl"):
            subprocess.run(["curl", "-fsSL", "-o", tgz, url], stderr=subprocess.DEVNULL, timeout=300)
    if not os.path.exists(tgz):
        return None, f"cannot fetch {DUCKDB_NPM}@{DUCKDB_VERSION} (npm pack or {url})"
    with tarfile.open(tgz) as tar:
        tar.extract("package/libduckdb.so", os.path.join(cache, DUCKDB_VERSION))
    return lib, None


def duckdb_peer(path, folder):
    """(q6, q1, version) over a DuckDB table loaded from the export's CSV, threads=1."""
    db = DuckDB(path)
    db.query("SET threads=1", fetch=False)
    csv = os.path.join(folder, "lineitem.csv").replace("'", "''")
    db.query(f"""CREATE TABLE lineitem AS SELECT * FROM read_csv('{csv}', header = true, columns = {{
      'l_quantity': 'DECIMAL(15,2)', 'l_extendedprice': 'DECIMAL(15,2)', 'l_discount': 'DECIMAL(15,2)',
      'l_tax': 'DECIMAL(15,2)', 'l_shipdate': 'DATE', 'l_returnflag': 'VARCHAR', 'l_linestatus': 'VARCHAR'}})""",
             fetch=False)
    return (lambda: db.query(Q6_SQL)[0]["revenue"]), (lambda: db.query(Q1_SQL)), db


def check_q1(rows, expected, impl):
    """What differs between a peer's Q1 and the C++ loop's (sums exactly, DuckDB's averages to
    1e-12 of sum / count), or ''."""
    if len(rows) != len(expected):
        return f"{impl}: {len(rows)} groups, the C++ loop {len(expected)}"
    for got, want in zip(rows, expected):
        keys = ["l_returnflag", "l_linestatus"] + [n for n, _ in SUMS] + (["sum_disc"] if "sum_disc" in got else [])
        for k in keys + ["count_order"]:
            if str(got[k]) != str(want[k]):
                return f"{impl}: {want['l_returnflag']}{want['l_linestatus']} {k} {got[k]}, the C++ loop {want[k]}"
        for avg, total in (("avg_qty", "sum_qty"), ("avg_price", "sum_base_price"), ("avg_disc", "sum_disc")):
            if avg in got:
                exact = Decimal(want[total]) / want["count_order"]
                if abs(Decimal(got[avg]) - exact) > abs(exact) * Decimal("1e-12"):
                    return f"{impl}: {want['l_returnflag']}{want['l_linestatus']} {avg} {got[avg]}, exact {exact}"
    return ""


def run(name, q6, q1, answers, repetitions):
    """Checks both answers (printed beside the C++ loop's on stderr), then times them."""
    out = []
    got6 = q6()
    log(f"q6 {name}: {got6}   C++ loop: {answers['q6']}")
    rows1 = q1()
    for got, want in zip(rows1, answers["q1"]):
        log(f"q1 {name} {got['l_returnflag']}{got['l_linestatus']}: " + " ".join(str(got[k]) for k, _ in SUMS)
            + f" {got['count_order']}   C++ loop: " + " ".join(want[k] for k, _ in SUMS) + f" {want['count_order']}")
    for case, fn, error in (("q6", q6, "" if got6 == answers["q6"] else f"{name}: {got6}, the C++ loop {answers['q6']}"),
                            ("q1", q1, check_q1(rows1, answers["q1"], name))):
        if error:
            log(f"tpch_peers: {case} answer differs: {error}")
        cpu, wall = (None, None) if error else timed(fn, repetitions)
        out.append({"case": case, "impl": name, "rows": answers["rows"], "ns_per_iter": cpu, "real_ns": wall,
                    "error": error})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    ap.add_argument("--no-duckdb", action="store_true")
    args = ap.parse_args()
    try:
        import numpy as np
    except ImportError as e:
        print(json.dumps({"skipped": f"{e} (apt install python3-numpy)"}) if args.json else f"skipped: {e}")
        return
    folder, answers = export(os.environ.get("ROWJIT_TPCH_SF") or "1")
    report = {"rows": answers["rows"], "scale_factor": answers["scale_factor"], "numpy": np.__version__, "notes": []}
    results = run("numpy", *numpy_peer(np, folder), answers, args.repetitions)
    path, why = (None, "--no-duckdb") if args.no_duckdb else libduckdb()
    if path:
        t0 = time.perf_counter()
        q6, q1, db = duckdb_peer(path, folder)
        log(f"tpch_peers: DuckDB {db.version} loaded {answers['rows']} rows in {time.perf_counter() - t0:.1f} s")
        report["duckdb"] = db.version
        results += run("duckdb_1thread", q6, q1, answers, args.repetitions)
        db.close()
    else:
        report["notes"].append(f"DuckDB skipped: {why}")
    report["results"] = results
    if args.json:
        print(json.dumps(report))
        return
    print(f"TPC-H at SF {answers['scale_factor']} ({answers['rows']} rows), medians of {args.repetitions}: "
          "CPU time, wall time")
    for r in results:
        ms = (f"{r['ns_per_iter'] / 1e6:8.2f} ms {r['real_ns'] / 1e6:8.2f} ms" if r["ns_per_iter"] is not None
              else "answer differs")
        print(f"  {r['case']} {r['impl']:15s} {ms}")
    for note in report["notes"]:
        print(f"  {note}")


if __name__ == "__main__":
    main()
