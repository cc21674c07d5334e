"""tools/bench-report and the progress module it shares with the other long tools (tests, run by
CTest as bench_report_runs): the progress lines a log gets, the JSON stream read as it arrives,
a short real run, a results file cut short and read back as partial, and a run stopped by Ctrl-C.

  /usr/bin/python3 tests/tools/bench_report_test.py --bin build/bin/rowjit_bench --out DIR
"""
import argparse
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import bench_data  # noqa: E402
from progress import Progress  # noqa: E402

REPORT = os.path.join(ROOT, "tools", "bench-report")
# Two benchmarks of one operator: the smallest run that has a JIT against static comparison.
TWO = "^single/i32_add/(jit|static)/rows:65536/"
ARGS = argparse.Namespace(bin=None, out=None)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class ProgressLines(unittest.TestCase):
    def test_a_log_gets_a_line_at_each_tenth_and_the_last_line(self):
        clock, out = Clock(), io.StringIO()
        p = Progress(20, "work", stream=out, tty=False, now=clock)
        for i in range(20):
            clock.t += 1
            p.advance(note=f"item {i + 1}")
        p.close()
        lines = out.getvalue().splitlines()
        # 2 of 20 is the first tenth: 2 s elapsed, 18 to go at 1 s each.
        self.assertEqual(lines[0], "work: 2/20 (10%), 0:02 elapsed, ETA 0:18: item 2")
        self.assertEqual(lines[8], "work: 18/20 (90%), 0:18 elapsed, ETA 0:02: item 18")
        self.assertEqual(lines[9], "work: 20/20 (100%) in 0:20")
        self.assertEqual(len(lines), 10)

    def test_slow_work_gets_a_line_every_30_seconds(self):
        clock, out = Clock(), io.StringIO()
        p = Progress(1000, "slow", stream=out, tty=False, now=clock)
        clock.t += 29
        p.advance()  # 0.1 %, 29 s: nothing yet
        self.assertEqual(out.getvalue(), "")
        clock.t += 1
        p.advance()
        self.assertEqual(out.getvalue(), "slow: 2/1000 (0%), 0:30 elapsed, ETA 4:09:30\n")

    def test_a_terminal_gets_one_redrawn_bar(self):
        clock, out = Clock(), io.StringIO()
        p = Progress(4, "bar", stream=out, tty=True, now=clock)
        clock.t += 1
        p.advance(note="one")
        p.message("a line of its own")
        p.close()
        text = out.getvalue()
        self.assertIn("\r\033[Kbar 1/4 (25%) 0:01 ETA 0:03 [#####---------------]  one", text)
        self.assertIn("\r\033[Ka line of its own\n", text)
        self.assertTrue(text.endswith("\r\033[Kbar: 1/4 (25%) in 0:01\n"), text)
        self.assertNotIn("\n", text.split("a line of its own\n")[0])  # the bar is never a line


class JsonStream(unittest.TestCase):
    TEXT = ('{\n  "context": {"date": "d", "host_name": "h"},\n  "benchmarks": [\n'
            '    {"name": "a/b/jit", "run_name": "a/b/jit", "cpu_time": 1, "real_time": 1},\n'
            '    {"name": "a/b/static", "run_name": "a/b/static", "cpu_time": 2, "real_time": 2}\n  ]\n}\n')

    def test_objects_come_out_whole_whatever_the_pieces(self):
        stream, got = bench_data.JsonStream(), []
        for ch in self.TEXT:  # one character at a time: the worst split
            got += [o["name"] for o in stream.feed(ch)]
        self.assertEqual(got, ["a/b/jit", "a/b/static"])
        self.assertEqual(stream.context, {"date": "d", "host_name": "h"})
        self.assertTrue(stream.ended)

    def test_a_cut_object_waits(self):
        stream = bench_data.JsonStream()
        cut = self.TEXT.index('"a/b/static"')
        self.assertEqual([o["name"] for o in stream.feed(self.TEXT[:cut])], ["a/b/jit"])
        self.assertFalse(stream.ended)


class Docs(unittest.TestCase):
    def test_performance_md_lists_every_chart_with_its_question(self):
        import bench_charts
        with open(os.path.join(ROOT, "docs", "performance.md")) as f:
            text = f.read().replace("\\*", "*")  # Markdown escapes a*b
        for name, question in bench_charts.QUESTIONS.items():
            self.assertIn(f"| `{name}.svg` | {question} |", text)


def run_report(*args, **kw):
    return subprocess.run([sys.executable, REPORT, "--bin", ARGS.bin, *args], capture_output=True, text=True, **kw)


class Runs(unittest.TestCase):
    def test_a_short_run_reports_with_progress_lines(self):
        out = os.path.join(ARGS.out, "two")
        done = run_report("--quick", "--repetitions", "1", "--filter", TWO, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertRegex(done.stdout, r"(?s)pinned to CPU [0-9]+.*[|] i32_add [|] 65536 [|] 100 [|] [0-9.]+ \[dense\] [|] "
                                      r"[0-9.]+ \([0-9.]+×\) [|]")
        # Not a terminal: the progress is plain lines on stderr, the last one the count and time.
        self.assertRegex(done.stderr, r"(?m)^bench-report: 2/2 \(100%\) in [0-9]+:[0-9]{2}$")
        self.assertNotIn("\r", done.stderr)
        self.assertNotIn("bench-report: 2/2", done.stdout)
        with open(os.path.join(out, "results.json")) as f:
            data = json.load(f)
        self.assertEqual(data["bench_report"], {"complete": True, "planned": 2, "reported": 2})
        self.assertEqual([b["run_name"] for b in data["benchmarks"]],
                         ["single/i32_add/jit/rows:65536/valid:100", "single/i32_add/static/rows:65536/valid:100"])
        self.assertIn("### charts", done.stdout)
        self.assertTrue(os.path.exists(os.path.join(out, "single.svg")))

    def test_a_file_cut_short_reads_back_as_partial(self):
        out = os.path.join(ARGS.out, "cut")
        done = run_report("--quick", "--filter", TWO, "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(out, "results.json")) as f:
            lines = f.read().splitlines()
        # A killed run: the context, the list's opening and the first benchmark, half of the second.
        cut = os.path.join(out, "cut.json")
        with open(cut, "w") as f:
            f.write("\n".join(lines[:3]) + ",\n" + lines[3][:40])
        back = run_report("--json", cut, "--out", os.path.join(out, "back"))
        self.assertEqual(back.returncode, 0, back.stderr)
        self.assertIn("# rowjit benchmark report (partial)", back.stdout)
        self.assertIn("partial: 1 of 2 benchmarks; the file ends mid-run", back.stdout)
        # The first benchmark (jit) is there, the cut one (static) is not.
        self.assertIn("| case | rows | valid % | jit |\n", back.stdout)
        self.assertRegex(back.stdout, r"(?m)^[|] i32_add [|] 65536 [|] 100 [|] [0-9.]+ \[dense\] [|]$")

    def test_ctrl_c_stops_the_run_and_reports_what_it_has(self):
        out = os.path.join(ARGS.out, "stopped")
        os.makedirs(out, exist_ok=True)
        results = os.path.join(out, "results.json")
        if os.path.exists(results):
            os.remove(results)
        proc = subprocess.Popen([sys.executable, REPORT, "--bin", ARGS.bin, "--quick", "--filter", "^(single|checked)/",
                                 "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(results):
                with open(results) as f:
                    if f.read().count('"run_name"') >= 3:
                        break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
        stdout, stderr = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, stderr)
        m = re.search(r"partial: ([0-9]+) of ([0-9]+) benchmarks; the run was interrupted", stdout)
        self.assertTrue(m, stdout[:600])
        self.assertGreaterEqual(int(m[1]), 3)
        self.assertLess(int(m[1]), int(m[2]))
        with open(results) as f:
            end = json.load(f)["bench_report"]
        self.assertEqual((end["complete"], end["stopped"], end["reported"]), (False, "interrupted", int(m[1])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the rowjit_bench binary")
    ap.add_argument("--out", required=True, help="a folder for the runs' output")
    args, rest = ap.parse_known_args()
    ARGS.bin, ARGS.out = os.path.abspath(args.bin), os.path.abspath(args.out)
    os.makedirs(ARGS.out, exist_ok=True)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
