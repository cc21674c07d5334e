"""Benchmark results as tools/bench-report reads and writes them (tools): Google Benchmark's JSON
parsed as it arrives (a run's output, or a file that a killed run left cut short), the results
file that bench-report writes one benchmark at a time, and the per-row view of a result.

The results file is Google Benchmark's JSON with one benchmark object a line, the run's plan in
the context (`bench_report`: how many benchmarks were asked for) and, once the run has ended, a
closing record saying whether every benchmark was reported:

    {"context": {..., "bench_report": {"planned": 409, ...}},
    "benchmarks": [
    {"name": "ordinary/i32_mul_add/jit/rows:65536/valid:100", ...},
    ...
    ],
    "bench_report": {"complete": true, "planned": 409, "reported": 409}}

A file without the closing record (the run was killed, or is still running) reads back as
partial: every benchmark whose object is whole, and how many were planned.
"""
import collections
import json
import os
import re
import sys

# Families whose benchmarks take no row argument: their fixed row counts.
FIXED_ROWS = {"duckdb": 1 << 20, "fold": 15000, "fold_1m": 1 << 20, "fused": 1 << 20, "fused_l2": 16384, "str_dict": 1 << 20,
              "math": 65536}
COUNTERS = ("compile_ms", "emit_ms", "optimize_ms", "codegen_ms", "link_ms", "read_ms", "unoptimized_share",
            "disk_share")
TIME_SCALE = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}

Result = collections.namedtuple("Result", "family case impl rows valid ns_per_iter label counters real_ns",
                                defaults=(None,))


def ns_row(r):
    """Time per row (per iteration for benchmarks without rows)."""
    rows = r.rows or FIXED_ROWS.get(r.family, 0)
    return r.ns_per_iter / rows if rows else r.ns_per_iter


class JsonStream:
    """Google Benchmark's JSON as it arrives: feed() text, get back each benchmark object once its
    closing brace has come. `context` is set once it has come; `ended` once the list is closed."""

    _LIST = re.compile(r'\s*,\s*"benchmarks"\s*:\s*\[')
    _GAP = re.compile(r"[\s,]*")

    def __init__(self):
        self.text = ""
        self.context = None
        self.ended = False
        self.decoder = json.JSONDecoder()

    def feed(self, text):
        self.text += text
        if self.context is None and not self._read_context():
            return []
        out = []
        pos = 0
        while not self.ended:
            pos = self._GAP.match(self.text, pos).end()
            if pos >= len(self.text):
                break
            if self.text[pos] == "]":
                self.ended = True
                pos += 1
                break
            try:
                obj, pos = self.decoder.raw_decode(self.text, pos)
            except json.JSONDecodeError:  # not whole yet
                break
            out.append(obj)
        self.text = self.text[pos:]
        return out

    def _read_context(self):
        m = re.search(r'"context"\s*:\s*', self.text)
        if not m:
            return False
        try:
            context, end = self.decoder.raw_decode(self.text, m.end())
        except json.JSONDecodeError:
            return False
        head = self._LIST.match(self.text, end)
        if not head:
            return False
        self.context = context
        self.text = self.text[head.end():]
        return True


class ResultsWriter:
    """Writes the results file one benchmark at a time (flushed, so a killed run leaves every
    benchmark it reported); close() writes the closing record."""

    def __init__(self, path, plan):
        self.path, self.plan = path, plan
        self.file = None
        self.head = None
        self.objects = []
        self.names = set()

    def add(self, context, obj):
        if self.file is None:
            self.file = open(self.path, "w")
            self.head = '{"context": ' + json.dumps(dict(context, bench_report=self.plan)) + ',\n"benchmarks": [\n'
            self.file.write(self.head)
        self.file.write((",\n" if self.objects else "") + json.dumps(obj))
        self.file.flush()
        self.objects.append(obj)
        self.names.add(run_name(obj))

    def close(self, complete, stopped=None, order=None):
        """The closing record; `stopped` says why a run ended early ("interrupted", a failure).
        With `order` (benchmark names), the file is rewritten in that order: reports of
        interleaved repetitions come in no useful order."""
        if self.file is None:
            return
        end = {"complete": complete, "planned": self.plan.get("planned"), "reported": len(self.names)}
        if stopped:
            end["stopped"] = stopped
        tail = '\n],\n"bench_report": ' + json.dumps(end) + "}\n"
        self.file.write(tail)
        self.file.close()
        self.file = None
        if order:
            rank = {name: i for i, name in enumerate(order)}
            objects = sorted(self.objects, key=lambda o: rank.get(run_name(o), len(rank)))  # stable
            with open(self.path + ".tmp", "w") as f:
                f.write(self.head + ",\n".join(json.dumps(o) for o in objects) + tail)
            os.replace(self.path + ".tmp", self.path)


def read_json(path):
    """(context, benchmark objects, partial note): the note is empty for a whole run, else says what
    the file holds against what was planned."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        sys.exit(f"bench-report: {path}: {e.strerror}")
    try:
        data = json.loads(text)
        whole = True
    except json.JSONDecodeError:
        stream = JsonStream()
        objects = stream.feed(text)
        if stream.context is None:
            sys.exit(f"bench-report: {path}: no benchmark finished (the file ends before the first one)")
        data = {"context": stream.context, "benchmarks": objects}
        whole = False
    context = data.get("context", {})
    benchmarks = data.get("benchmarks", [])
    reported = len({b.get("run_name", b.get("name")) for b in benchmarks})
    planned = (context.get("bench_report") or {}).get("planned")
    of = f" of {planned}" if planned else ""
    end = data.get("bench_report")
    if not whole:
        note = (f"partial: {reported}{of} benchmarks; the file ends mid-run "
                f"(the run was killed, or is still running)")
    elif end and not end.get("complete"):
        why = end.get("stopped") or "some benchmarks were not reported"
        note = f"partial: {reported}{of} benchmarks; {'the run was interrupted' if why == 'interrupted' else why}"
    else:
        note = ""
    return context, benchmarks, note


def results_of(benchmarks):
    """{(family, case, impl, rows, valid): Result} from benchmark objects: medians where repeated."""
    out = {}
    for b in benchmarks:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("error_occurred"):
            print(f"bench-report: {b['name']}: {b.get('error_message')}", file=sys.stderr)
            continue
        name = b.get("run_name", b["name"])
        parts = name.split("/")
        if len(parts) < 3:
            continue
        family, case, impl = parts[:3]
        args = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
        if "values" in args:  # str_dict: one case per dictionary size
            case = f"{case}_{args['values']}_values"
        unnamed = [p for p in parts[3:] if p.isdigit()]  # bitmap/and/static/65536/3: sizes, offsets
        if unnamed:
            case = "_".join([case, *unnamed])
        scale = TIME_SCALE[b.get("time_unit", "ns")]
        # CPU time: on a shared host it leaves out time spent waiting for a core. Compile
        # benchmarks use wall time: a tiered first result runs beside a background compile.
        ns = (b["real_time"] if family == "compile" else b["cpu_time"]) * scale
        counters = {k: v for k, v in b.items() if k in COUNTERS}
        r = Result(family, case, impl, int(args.get("rows", 0)), int(args.get("valid", 100)), ns,
                   b.get("label", ""), counters, b["real_time"] * scale)
        out[(family, case, impl, r.rows, r.valid)] = r
    return out


def load(json_path):
    """(context, results keyed (family, case, impl, rows, valid), partial note)."""
    context, benchmarks, note = read_json(json_path)
    return context, results_of(benchmarks), note


def run_name(obj):
    return obj.get("run_name", obj.get("name", ""))
