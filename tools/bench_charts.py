"""The charts of tools/bench-report (tools): each answers one question, drawn by gnuplot as SVG (and
PNG with --png). Comparisons are ratios measured in the same run — the JIT's time divided by an
alternative's, so below 1 the JIT is faster and 1 (a black line) is parity — drawn as small
multiples (one panel per alternative or per case) rather than many series on one axis. Log axes
carry ticks between the decades (1, 2, 5 or finer), and every series of a chart has its own
colour. docs/performance.md lists every chart and its question.
"""
import collections
import concurrent.futures
import math
import os
import re
import shutil
import subprocess
import sys

from bench_data import FIXED_ROWS, ns_row

# Distinct colours, in the order a chart's series take them (Tableau 10).
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#9c755f", "#edc948",
           "#ff9da7", "#bab0ac"]
FONT = "sans,10"

Series = collections.namedtuple("Series", "name points")  # points: [(x, y)] or [(label, y)] for bars
Panel = collections.namedtuple("Panel", "title series")
# kind: "bars" (one horizontal bar a label, from `ref` to the value), "lines" (y against x) or
# "shares" (stacked bars of parts summing to 100 %); ref: the parity line (None: no line).
# catx: x values as evenly spaced categories (densities bunched near 100 %).
Chart = collections.namedtuple("Chart", "name question kind panels xlabel ylabel logx logy ref catx",
                               defaults=(False, True, 1.0, False))

# The ratio charts: family -> [(panel title, numerator impl, denominator impl)].
RATIOS = {
    "ordinary": [("JIT Evaluate ÷ static chain (a static kernel per operator)", "jit", "static_chain"),
                 ("JIT Evaluate ÷ memory floor (stream: read 3 columns, write 1)", "jit", "stream")],
    "constant": [("JIT ÷ static chain", "jit", "static_chain"), ("JIT ÷ static kernel", "jit", "static")],
    "single": [("JIT Evaluate ÷ static kernel", "jit", "static"), ("JIT kernel alone ÷ static kernel", "jit_kernel", "static")],
    "checked": [("JIT Evaluate ÷ static kernel", "jit", "static")],
    "fold_1m": [("JIT fold ÷ static masked fold", "jit", "static")],
    "fused": [("fused sum(a*b) ÷ Evaluate(a*b) then static fold", "jit", "jit_materialize_static")],
    "fused_l2": [("fused sum(a*b) ÷ Evaluate(a*b) then static fold", "jit", "jit_materialize_static")],
    "project": [("one projection ÷ three Evaluates", "jit", "jit_separate")],
    "into": [("EvaluateInto ÷ Evaluate (fresh output)", "jit_into", "jit"),
             ("prepared into ÷ prepared (fresh output)", "jit_prepared_into", "jit_prepared")],
    "math": [("JIT ÷ a glibc libm loop", "jit", "libm")],
    "temporal": [("JIT ÷ static loop", "jit", "static")],
    "interval": [("JIT ÷ static loop", "jit", "static")],
    "decimal": [("JIT ÷ static loop", "jit", "static"), ("decimal64 JIT ÷ checked i64 JIT", "jit", "i64")],
    "in_list": [("JIT ÷ static set lookup", "jit", "static"), ("JIT ÷ an OR chain of =", "jit", "chain")],
    "str_eq": [("JIT ÷ static loop", "jit", "static"), ("JIT ÷ memory floor", "jit", "floor"),
               ("JIT over views ÷ view floor", "jit_view", "floor_view")],
    "str_produce": [("JIT ÷ row-by-row reference", "jit", "reference")],
    "str_format": [("JIT ÷ row-by-row reference", "jit", "reference")],
    "str_dict": [("over the dictionary ÷ decoded flat", "jit", "jit_flat")],
    "capi": [("prepared ÷ evaluate", "prepared", "evaluate"), ("prepared, imported ÷ evaluate", "prepared_imported", "evaluate"),
             ("prepared into ÷ evaluate", "prepared_into", "evaluate")],
    "fold_call": [("prepared ÷ Evaluate", "jit_prepared", "jit")],
    "project_call": [("prepared ÷ Project", "jit_prepared", "jit")],
    "tpch": [("JIT, one batch ÷ C++ loop", "jit", "static"),
             ("JIT, 65,536-row batches ÷ C++ loop", "jit_batch65536", "static"),
             ("JIT, 2,048-row batches ÷ C++ loop", "jit_batch2048", "static"),
             ("JIT, 24 masked sums per 65,536-row batch ÷ C++ loop", "jit_masked_codes_batch65536", "static"),
             ("C++ loop ÷ memory floor", "static", "floor")],
    "filter": [("Filter ÷ Evaluate to a bitmap", "jit", "jit_bitmap")],
    "stream": [("streaming stores ÷ plain stores (JIT Evaluate)", "jit", "jit_no_stream")],
}
for _fam in ("str_prefix", "str_search", "str_length"):
    RATIOS[_fam] = RATIOS["str_eq"]
# Every chart the report can draw: file name (without .svg) -> the one question it answers.
# docs/performance.md lists them (a test checks it does).
QUESTIONS = {
    "ordinary": "ordinary: is one fused kernel faster than a static kernel per operator, and how near the memory "
                "floor does it run? (a*b+c, a*b+c<d)",
    "constant": "constant: with a batch constant or a literal in the expression, is the JIT faster than the "
                "static kernels?",
    "nullable": "nullable: what do nulls in every input cost the JIT, against all valid?",
    "checked": "checked: is the JIT's checked multiply as fast as the static kernel, type by type?",
    "checked_vs_wrapping": "checked: what does checking a multiply for overflow cost, type by type?",
    "single": "single: is the JIT as fast as one static kernel on one operator?",
    "guarded": "guarded: what does guarding a division with if(b != 0, ...) cost?",
    "stream": "stream: past the last-level cache, do streaming stores beat plain ones?",
    "strategy": "strategy: does the executor pick the fastest null strategy at each density? (above 1: a forced "
                "strategy beats its choice)",
    "selection": "selection: is evaluating under a selection faster than the alternatives at every selectivity?",
    "project": "project: is one projection of three expressions sharing a*b faster than three Evaluates?",
    "project_call": "project_call: what does a prepared 64-row projection call save against Project?",
    "filter": "filter: is Filter faster than Evaluate to a bitmap?",
    "into": "into: does writing into the caller's memory cost anything against a fresh output?",
    "fold": "fold: does the JIT's masked fold keep up with the static masked fold at every null density?",
    "fold_density": "fold: does a fold cost the same at every null density?",
    "fold_1m": "fold_1m: over 1M rows, is the JIT's fold as fast as the static masked fold?",
    "fold_call": "fold_call: what does a prepared 64-row fold call save against Evaluate?",
    "fused": "fused: is sum(a*b) fused into one pass faster than Evaluate(a*b) then a static fold? (1M rows)",
    "fused_l2": "fused_l2: is the fused sum(a*b) faster than materialize-then-fold in L2? (16,384 rows)",
    "compile_size": "compile: how does compile time grow with the expression's size?",
    "compile_phases": "compile: where does a compile's time go, by expression size?",
    "compile_calls": "compile: what does a call on a warm kernel cost at small batch sizes?",
    "math": "math: are the JIT's transcendental functions faster than glibc's scalar libm?",
    "temporal": "temporal: are the JIT's date and timestamp functions faster than static loops?",
    "interval": "interval: is the JIT's interval arithmetic faster than static loops?",
    "decimal": "decimal: how do the JIT's decimals compare with a static loop and with plain i64?",
    "in_list": "in_list: are the JIT's constant sets faster than a static lookup and than an OR chain of =?",
    "str_eq": "str_eq: is s = 'ABCDEFGH' faster than a static loop, and how near the memory floor does it run?",
    "str_prefix": "str_prefix: are prefix tests faster than a static loop, and how near the memory floor?",
    "str_search": "str_search: is s like '%needle%' faster than a static loop, and how near the memory floor?",
    "str_length": "str_length: is length(s) > 100 faster than a static loop, and how near the memory floor?",
    "str_produce": "str_produce: how much faster are the JIT's string results than the row-by-row reference?",
    "str_format": "str_format: how much faster are the JIT's casts to text than the row-by-row reference?",
    "str_dict": "str_dict: when does running over a dictionary's values beat decoding it?",
    "capi": "capi: what do the C API's prepared call forms save against a one-shot evaluate?",
    "tpch": "tpch: how near the C++ loop do TPC-H Q6 and Q1 run, and the loop how near the memory floor?",
    "bitmap_times": "bitmap: how long do the static bitmap kernels take? (ns per iteration)",
    "bool_zip_times": "bool_zip: how do the static bool zips compare with a plain word copy and memcpy? "
                      "(ns per iteration)",
    "bytebool_pack_times": "bytebool_pack: how does packing byte bools compare with a plain word copy and memcpy? "
                           "(ns per iteration)",
}
# Case pairs within a family: (chart name, family, panel title, numerator case suffix, denominator
# case suffix), compared impl by impl (jit).
CASE_PAIRS = [
    ("checked_vs_wrapping", "checked", "checked mul ÷ wrapping mul (JIT Evaluate)", "_mul", "_wrapping_mul"),
    ("guarded", "guarded", "if(b != 0, a / b, 0) ÷ a / b (JIT)", "_guarded_div", "_div"),
]
SIZES = {64: "64", 65536: "64K", 1 << 20: "1M", 1 << 22: "4M"}


def size_text(rows):
    return SIZES.get(rows, f"{rows:,}")


def case_label(case, rows, valid):
    label = case + (f" {size_text(rows)}" if rows else "")
    return label + (f" {valid}% valid" if valid != 100 else "")


# ---- ticks ---------------------------------------------------------------------------------

TICK_STEPS = [(1, 2, 5), (1, 1.5, 2, 3, 5, 7), (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8),
              (1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 9)]
SPARSE_STEPS = [(1, 3), (1,)]  # for ranges of many decades


def log_ticks(lo, hi):
    """Ticks for a log axis over [lo, hi]: 1-2-5 per decade, finer steps where that gives fewer
    than four, sparser ones where it gives more than twelve."""
    def ticks(steps):
        return [round(m * 10.0 ** e, 12) for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
                for m in steps if lo <= m * 10.0 ** e <= hi]

    first = ticks(TICK_STEPS[0])
    if len(first) > 12:
        return next((t for t in map(ticks, SPARSE_STEPS) if len(t) <= 12), ticks((1,)))
    return next((t for t in map(ticks, TICK_STEPS) if len(t) >= 4), ticks(TICK_STEPS[-1]))


def tick_text(v):
    return f"{v:,.0f}" if v >= 1000 else f"{v:g}"


def axis_range(values, ref, pad=1.12):
    """A log axis's range around the values (and the parity line)."""
    vals = [v for v in values if v and v > 0] + ([ref] if ref else [])
    return min(vals) / pad, max(vals) * pad


def tics(axis, lo, hi):
    pairs = ", ".join(f'"{tick_text(t)}" {t!r}' for t in log_ticks(lo, hi))
    return f"set {axis}tics ({pairs})\nset m{axis}tics default\n"


# ---- gnuplot scripts -------------------------------------------------------------------------

def datablock(name, rows):
    return f"${name} << EOD\n" + "\n".join(" ".join(str(c) for c in row) for row in rows) + "\nEOD\n"


def quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bars_panel(k, panel, chart, color):
    """One panel of horizontal bars from the parity line to each value, the value written beside."""
    (series,) = panel.series
    rows = [(i, quoted(label), v) for i, (label, v) in enumerate(series.points)]
    lo, hi = axis_range([v for _, _, v in rows], chart.ref)
    ref = chart.ref or lo
    s = datablock(f"p{k}", rows)
    s += (f"set title {quoted(panel.title)} noenhanced\nset logscale x\nset xrange [{lo}:{hi * 1.25}]\n"
          + tics("x", lo, hi) + f"set yrange [{len(rows) - 0.5}:-0.5]\nset ytics scale 0\nset grid xtics\n"
          f"set xlabel {quoted(chart.xlabel)} noenhanced\nunset ylabel\nunset key\n")
    if chart.ref:
        s += f"set arrow 1 from {chart.ref}, graph 0 to {chart.ref}, graph 1 nohead lw 2 lc rgb 'black' front\n"
    s += (f"plot $p{k} using ({ref} < $3 ? {ref} : $3):1:({ref} < $3 ? {ref} : $3):({ref} < $3 ? $3 : {ref})"
          f":($1 - 0.36):($1 + 0.36):yticlabels(2) with boxxyerror fs solid 0.85 noborder lc rgb '{color}', "
          f"$p{k} using ($3 > {ref} ? $3 : {ref}):1:($3 >= 100 ? sprintf('%.0f', $3) : sprintf('%.3g', $3)) with labels left offset 0.6,0 font ',8'\n"
          "unset arrow 1\n")
    return s


def lines_panel(k, panel, chart, colors):
    """One panel of lines against x, a colour a series, the parity line across."""
    ys = [y for s in panel.series for _, y in s.points]
    xs = [x for s in panel.series for x, _ in s.points]
    cats = sorted(set(xs))
    place = (lambda x: cats.index(x)) if chart.catx else (lambda x: x)
    s = "".join(datablock(f"p{k}s{j}", sorted((place(x), y) for x, y in ser.points))
                for j, ser in enumerate(panel.series))
    s += f"set title {quoted(panel.title)} noenhanced\n"
    s += f"set xlabel {quoted(chart.xlabel)} noenhanced\nset ylabel {quoted(chart.ylabel)} noenhanced\n"
    if chart.catx:
        labels = ", ".join(f'"{tick_text(x)}" {i}' for i, x in enumerate(cats))
        s += f"unset logscale x\nset xrange [-0.3:{len(cats) - 0.7}]\nset xtics ({labels})\nunset mxtics\n"
    elif chart.logx:
        lo, hi = axis_range(xs, None, 1.05)
        s += f"set logscale x\nset xrange [{lo}:{hi}]\n" + tics("x", lo, hi)
    else:
        s += f"unset logscale x\nset xrange [{min(xs)}:{max(xs)}]\nset xtics autofreq\n"
    free = 1 - 0.06 * (len(panel.series) + 1)  # the key's lines take the top of the panel
    if chart.logy:
        lo, hi = axis_range(ys, chart.ref)
        top = lo * (hi / lo) ** (1 / free)
        s += f"set logscale y\nset yrange [{lo}:{top}]\n" + tics("y", lo, hi)
    else:
        s += f"unset logscale y\nset yrange [0:{max(ys) / free}]\nset ytics autofreq\n"
    s += "set grid xtics ytics\nset key top left opaque box font ',9'\n"
    if chart.ref:
        s += f"set arrow 1 from graph 0, first {chart.ref} to graph 1, first {chart.ref} nohead lw 2 lc rgb 'black' back\n"
    plots = [f"$p{k}s{j} using 1:2 with linespoints lw 2 pt 7 ps 0.6 lc rgb '{colors[ser.name]}' title {quoted(ser.name)}"
             for j, ser in enumerate(panel.series)]
    return s + "plot " + ", ".join(plots) + "\nunset arrow 1\n"


def shares_panel(k, panel, chart, colors):
    """Stacked bars of each x's parts, in percent of their sum."""
    labels = [x for x, _ in panel.series[0].points]
    rows = []
    for i, label in enumerate(labels):
        parts = [dict(ser.points).get(label, 0) for ser in panel.series]
        total = sum(parts) or 1
        rows.append([quoted(str(label))] + [100 * p / total for p in parts])
    s = datablock(f"p{k}", rows)
    s += (f"set title {quoted(panel.title)} noenhanced\nset xlabel {quoted(chart.xlabel)} noenhanced\n"
          f"set ylabel {quoted(chart.ylabel)} noenhanced\nunset logscale xy\nset yrange [0:100]\nset ytics 20\n"
          "set style data histograms\nset style histogram rowstacked\nset boxwidth 0.7\n"
          "set style fill solid 0.9 border -1\nset key outside right top vertical invert\nset grid ytics\nset xtics autofreq\n")
    plots = [f"$p{k} using {j + 2}:xtic(1) lc rgb '{colors[ser.name]}' title {quoted(ser.name)}"
             for j, ser in enumerate(panel.series)]
    return s + "plot " + ", ".join(plots) + "\nunset style data\n"


def layout(chart):
    """(rows, columns, width, height) of the canvas in pixels."""
    n = len(chart.panels)
    if chart.kind == "bars":
        longest = max(len(label) for p in chart.panels for label, _ in p.series[0].points)
        cols = min(n, 3 if longest <= 24 else 2)
        bars = max(len(p.series[0].points) for p in chart.panels)
        rows = -(-n // cols)
        return rows, cols, {1: 900, 2: 1250, 3: 1500}[cols], 70 + rows * (110 + 19 * bars)
    cols = min(n, 3)
    rows = -(-n // cols)
    width = 600 * cols if chart.kind == "shares" else max(430 * cols + 40, 800)  # shares: a key beside
    return rows, cols, width, 60 + 360 * rows


def script(chart, path, terminal):
    rows, cols, width, height = layout(chart)
    colors = {}
    for p in chart.panels:
        for ser in p.series:
            colors.setdefault(ser.name, PALETTE[len(colors) % len(PALETTE)])
    longest = max((len(str(x)) for p in chart.panels for s in p.series for x, _ in s.points), default=8)
    s = (f"set terminal {terminal} size {width},{height} font '{FONT}' background '#ffffff'\n"
         f"set output {quoted(path)}\nset datafile missing 'NaN'\nset termoption noenhanced\n")
    if chart.kind == "bars":
        s += f"set lmargin {min(longest, 60) + 4}\n"
    s += f"set multiplot layout {rows},{cols} title {quoted(chart.question)} font ',12' noenhanced\n"
    for k, panel in enumerate(chart.panels):
        if chart.kind == "bars":
            s += bars_panel(k, panel, chart, PALETTE[k % len(PALETTE)])
        elif chart.kind == "lines":
            s += lines_panel(k, panel, chart, colors)
        else:
            s += shares_panel(k, panel, chart, colors)
    return s + "unset multiplot\n"


def render(chart, out_dir, png):
    """Writes the chart as SVG (and PNG); returns the SVG's path, or None without gnuplot."""
    if not shutil.which("gnuplot"):
        return None
    svg = os.path.join(out_dir, chart.name + ".svg")
    outputs = [(svg, "svg dynamic")] + ([(svg[:-4] + ".png", "pngcairo")] if png else [])
    for path, terminal in outputs:
        done = subprocess.run(["gnuplot"], input=script(chart, path, terminal), text=True, capture_output=True)
        if done.returncode != 0:
            print(f"bench-report: gnuplot failed on {chart.name}: {done.stderr.strip()}", file=sys.stderr)
            return None
    return svg


# ---- the charts ------------------------------------------------------------------------------

BARS_X = "time ratio, log scale (below 1: the first named is faster)"


def index(results):
    """family -> {(case, rows, valid): {impl: Result}}, in the order the results came."""
    out = collections.OrderedDict()
    for (fam, case, impl, rows, valid), r in results.items():
        out.setdefault(fam, collections.OrderedDict()).setdefault((case, rows, valid), {})[impl] = r
    return out


def ratio_chart(fam, groups):
    """The family's RATIOS: a panel of bars per (numerator, denominator) pair."""
    panels = []
    for title, num, den in RATIOS[fam]:
        pts = [(case_label(*key), ns_row(g[num]) / ns_row(g[den])) for key, g in groups.items()
               if num in g and den in g and ns_row(g[den]) > 0]
        if pts:
            panels.append(Panel(title, [Series(title, pts)]))
    return Chart(fam, QUESTIONS[fam], "bars", panels, BARS_X, "") if panels else None


def case_pair_chart(spec, groups):
    name, fam, title, num_suffix, den_suffix = spec
    pts = []
    for (case, rows, valid), g in groups.items():
        if case.endswith(num_suffix) and "jit" in g:
            base = case[: -len(num_suffix)]
            den = groups.get((base + den_suffix, rows, valid), {}).get("jit")
            if den:
                pts.append((case_label(base, rows, valid), ns_row(g["jit"]) / ns_row(den)))
    if not pts:
        return None
    return Chart(name, QUESTIONS[name], "bars", [Panel(title, [Series(title, pts)])], BARS_X, "")


def sweep(groups, pattern, x_of, y_of, series_of, panel_of):
    """Panels of lines from the cases `pattern` matches: x_of(match, rows, valid), y_of(match, key,
    group) (None: no point), series_of and panel_of(match, rows) name the line and the panel."""
    panels = collections.OrderedDict()
    for key, g in groups.items():
        m = re.match(pattern, key[0])
        if not m:
            continue
        y = y_of(m, key, g)
        if y is not None:
            panel = panels.setdefault(panel_of(m, key[1]), collections.OrderedDict())
            panel.setdefault(series_of(m, key[1]), []).append((x_of(m, key[1], key[2]), y))
    return [Panel(title, [Series(n, pts) for n, pts in series.items()]) for title, series in panels.items()]


def fold_charts(groups):
    pattern = r"^(sum|min_max)_(i32|i64|f64)_(scattered|clustered)_([0-9.]+)$"

    def vs_static(m, key, g):
        return ns_row(g["jit"]) / ns_row(g["static"]) if "jit" in g and "static" in g else None

    def vs_all_valid(m, key, g):
        full = groups.get((f"{m[1]}_{m[2]}_{m[3]}_1", key[1], key[2]), {}).get("jit")
        return ns_row(g["jit"]) / ns_row(full) if "jit" in g and full else None

    args = dict(x_of=lambda m, rows, valid: round(100 * float(m[4]), 3), series_of=lambda m, rows: m[3],
                panel_of=lambda m, rows: f"{m[1]}({m[2]}), 15,000 rows")
    return [Chart("fold", QUESTIONS["fold"], "lines", sweep(groups, pattern, y_of=vs_static, **args),
                  "valid %", "JIT fold ÷ static masked fold", catx=True),
            Chart("fold_density", QUESTIONS["fold_density"], "lines",
                  sweep(groups, pattern, y_of=vs_all_valid, **args), "valid %",
                  "JIT fold time ÷ its time with every row valid", catx=True)]


def nullable_chart(groups):
    def vs_all_valid(m, key, g):
        full = groups.get((key[0], key[1], 100), {}).get("jit")
        return ns_row(g["jit"]) / ns_row(full) if "jit" in g and full else None

    panels = sweep(groups, r"^(.*)_(scattered|clustered)$", x_of=lambda m, rows, valid: valid, y_of=vs_all_valid,
                   series_of=lambda m, rows: f"{m[2]}, {size_text(rows)} rows", panel_of=lambda m, rows: m[1])
    return Chart("nullable", QUESTIONS["nullable"], "lines",
                 panels, "valid %", "JIT time ÷ its time with every row valid")


STRATEGIES = {"jit_dense": "÷ forced dense", "jit_branch_skip": "÷ forced branch-skip",
              "jit_filter_scatter": "÷ forced filter-scatter"}
COSTS = {"0": "decode cost 0: flat inputs", "1": "decode cost 1: a dictionary", "2": "decode cost 2: two dictionaries"}


def forced_chart(name, question, groups, alternatives, xlabel, ylabel):
    """Per decode cost, the executor's own choice (jit) against each forced alternative, by %."""
    panels = collections.OrderedDict()
    for (case, rows, valid), g in groups.items():
        m = re.match(r"^cost([0-9])_", case)
        if not m or "jit" not in g:
            continue
        for impl, label in alternatives.items():
            if impl in g:
                panel = panels.setdefault(COSTS.get(m[1], case), collections.OrderedDict())
                panel.setdefault(label, []).append((valid, ns_row(g["jit"]) / ns_row(g[impl])))
    return Chart(name, question, "lines", [Panel(t, [Series(n, p) for n, p in s.items()]) for t, s in panels.items()],
                 xlabel, ylabel, catx=True)


def compile_charts(groups):
    """Compile time against size, where it goes, and the per-call cost of small batches."""
    sizes = collections.defaultdict(dict)
    calls = collections.defaultdict(list)
    for (case, rows, valid), g in groups.items():
        m = re.match(r"^ops([0-9]+)$", case)
        if m:
            for impl, r in g.items():
                sizes[impl][int(m[1])] = r
                n = re.match(r"^(evaluate|prepared)_([0-9]+)_rows$", impl)
                if n and case == "ops3":
                    calls["Engine::Evaluate" if n[1] == "evaluate" else "prepared handle"].append(
                        (int(n[2]), r.ns_per_iter / 1e3))
    out = []
    tiers = [(t, name) for t, name in (("cold", "optimized tier"), ("fast", "fast tier")) if len(sizes[t]) > 1]
    if tiers:
        out.append(Chart("compile_size", QUESTIONS["compile_size"], "lines",
                         [Panel("cold compile, wall time", [Series(name, [(ops, r.ns_per_iter / 1e6)
                                                                         for ops, r in sorted(sizes[t].items())])
                                                            for t, name in tiers])],
                         "operators in the expression (log scale)", "ms per compile (log scale)", True, True, None))
        phases = [("emit_ms", "IR build"), ("optimize_ms", "optimize"), ("codegen_ms", "code generation"),
                  ("link_ms", "link")]
        panels = [Panel(name, [Series(label, [(ops, r.counters.get(c, 0)) for ops, r in sorted(sizes[t].items())])
                               for c, label in phases])
                  for t, name in tiers if any(r.counters for r in sizes[t].values())]
        if panels:
            out.append(Chart("compile_phases", QUESTIONS["compile_phases"],
                             "shares", panels, "operators in the expression", "% of the compile's time"))
    if calls:
        out.append(Chart("compile_calls", QUESTIONS["compile_calls"],
                         "lines", [Panel("a*b+c over i32, kernel compiled", [Series(n, p) for n, p in calls.items()])],
                         "rows in the batch", "µs per call", False, False, None, True))
    return out


def times_chart(fam, groups):
    """The family's times per row as bars, for families without a comparison of their own."""
    pts = [(f"{case_label(*key)} {impl}", ns_row(r)) for key, g in groups.items() for impl, r in g.items()]
    per_row = all(r.rows or r.family in FIXED_ROWS for g in groups.values() for r in g.values())
    unit = "ns per row" if per_row else "ns per iteration"
    question = QUESTIONS.get(f"{fam}_times", f"{fam}: how long does each benchmark take? ({unit})")
    return Chart(f"{fam}_times", question, "bars", [Panel(unit, [Series(unit, pts)])], f"{unit}, log scale", "",
                 ref=None)


SELECTION = {"jit_dense_take": "÷ compute every row, then take", "jit_take_inputs": "÷ take the inputs, then compute"}


def family_charts(fam, groups):
    """The charts of one family: its ratios, case pairs and sweeps, or else its times."""
    out = [ratio_chart(fam, groups)] if fam in RATIOS else []
    out += [case_pair_chart(spec, groups) for spec in CASE_PAIRS if spec[1] == fam]
    if fam == "fold":
        out += fold_charts(groups)
    elif fam == "nullable":
        out.append(nullable_chart(groups))
    elif fam == "strategy":
        out.append(forced_chart("strategy", QUESTIONS["strategy"], groups, STRATEGIES, "valid %",
                                "executor's choice ÷ forced strategy"))
    elif fam == "selection":
        out.append(forced_chart("selection", QUESTIONS["selection"], groups, SELECTION, "selected %",
                                "Evaluate under the selection ÷ alternative"))
    elif fam == "compile":
        out += compile_charts(groups)
    elif not out:
        out.append(times_chart(fam, groups))
    return [c for c in out if c and c.panels]


def all_charts(results):
    return [c for fam, groups in index(results).items() for c in family_charts(fam, groups)]


def write_charts(results, out_dir, png=False):
    """Renders every chart the results allow, a gnuplot per core at a time; returns
    [(svg path, question)]."""
    if not shutil.which("gnuplot"):
        print("bench-report: gnuplot not found (Debian: gnuplot-nox); no charts", file=sys.stderr)
        return []
    charts = all_charts(results)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        paths = list(pool.map(lambda c: render(c, out_dir, png), charts))
    return [(path, c.question) for path, c in zip(paths, charts) if path]
