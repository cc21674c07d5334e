"""Progress of a long tool run on stderr (tools; shared by bench-report, dask-bench, python-bench
and fuzz): a bar with the count, the elapsed time and an estimate of the time left while stderr is
a terminal, and a plain line now and then when it is not (a CI log gets a line at every tenth of
the work and at least every 30 s, not a line per item). Stdout is never written, so a tool's
output stays parseable. The C++ tools share the same rules (tools/progress.h).

    progress = Progress(409, "bench-report")
    for name in names:
        ...
        progress.advance(note=name)
    progress.close()
"""
import shutil
import sys
import threading
import time

LINE_EVERY_S = 30.0  # a plain line at least this often while the work advances
NOTE_CHARS = 100  # of a note in a plain line
REDRAW_EVERY_S = 0.1  # the bar is redrawn at most this often


def clock(seconds):
    """0:07, 1:05:09: minutes and seconds, hours when there are any."""
    s = int(max(seconds, 0) + 0.5)
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


class Progress:
    """Counts `total` steps of `label`'s work (None: unknown, no bar and no estimate). `unit` follows
    the count ("s" for work measured in seconds). `tty`: draw a bar (default: stderr is a terminal);
    `now`: the clock, for tests."""

    def __init__(self, total, label, unit="", stream=None, tty=None, now=time.monotonic):
        self.total, self.label, self.unit = total, label, unit
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.now = now
        self.start = now()
        self.done = 0
        self.note = ""
        self.drawn = False  # a bar is on the terminal's last line
        self.last_draw = -1.0
        self.last_line = self.start
        self.last_tenth = 0
        self.lock = threading.RLock()  # message() may come from a thread relaying a child's stderr

    def advance(self, n=1, note=""):
        with self.lock:
            self._update(self.done + n, note)

    def update(self, done, note=""):
        """Sets the count (work measured in seconds passes the seconds elapsed)."""
        with self.lock:
            self._update(done, note)

    def _update(self, done, note):
        self.done = done
        if note:
            self.note = note
        t = self.now()
        if self.tty:
            if t - self.last_draw >= REDRAW_EVERY_S or self.finished():
                self.draw(t)
            return
        if self.finished():
            return  # close() says it
        tenth = int(10 * done / self.total) if self.total else 0
        if tenth > self.last_tenth or t - self.last_line >= LINE_EVERY_S:
            self.last_tenth = max(tenth, self.last_tenth)
            self.last_line = t
            self.write(self.status(t) + "\n")

    def finished(self):
        return self.total is not None and self.done >= self.total

    def message(self, text):
        """A line of its own (a warning, a failure) that leaves the bar intact below it."""
        with self.lock:
            self.clear()
            self.write(text.rstrip("\n") + "\n")
            if self.tty:
                self.draw(self.now())

    def close(self, note=""):
        """The final line: what was done in how long (always printed, terminal or not)."""
        with self.lock:
            self.clear()
            line = f"{self.label}: {self.count()} in {clock(self.now() - self.start)}"
            self.write(line + (f": {note}" if note else "") + "\n")

    def clear(self):
        if self.tty and self.drawn:
            self.write("\r\033[K")
            self.drawn = False

    def count(self):
        """12/40 (30%); 12 s/60 s (20%) with a unit; 12 without a total."""
        unit = f" {self.unit}" if self.unit else ""
        if not self.total:
            return f"{self.done:g}{unit}" + (f"/0{unit}" if self.total == 0 else "")
        return f"{self.done:g}{unit}/{self.total:g}{unit} ({100 * self.done / self.total:.0f}%)"

    def eta(self, t):
        """Time left at the rate so far; None before the first step or without a total."""
        if not self.total or self.done <= 0:
            return None
        return (t - self.start) * (self.total - self.done) / self.done

    def status(self, t):
        eta = self.eta(t)
        parts = [f"{self.label}: {self.count()}", f"{clock(t - self.start)} elapsed"]
        if eta is not None and not self.finished():
            parts.append(f"ETA {clock(eta)}")
        note = self.note if len(self.note) <= NOTE_CHARS else self.note[:NOTE_CHARS - 3] + "..."
        return ", ".join(parts) + (f": {note}" if note else "")

    def draw(self, t):
        """"label 12/40 (30%) 0:07 ETA 0:16 [######--------------]  note": a narrow terminal cuts
        the bar and the note, never the count or the time left."""
        width = shutil.get_terminal_size((80, 24)).columns
        eta = self.eta(t)
        line = f"{self.label} {self.count()} {clock(t - self.start)}"
        if eta is not None and not self.finished():
            line += f" ETA {clock(eta)}"
        if self.total:
            cells = 20
            full = min(cells, int(cells * self.done / self.total))
            line += " [" + "#" * full + "-" * (cells - full) + "]"
        if self.note:
            line += "  " + self.note
        self.write("\r\033[K" + line[:max(width - 1, 10)])
        self.drawn = True
        self.last_draw = t

    def write(self, text):
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # a closed log is no reason to stop the work
            pass


def main():
    """`python3 tools/progress.py --demo N`: N steps of 0.05 s, to see both forms."""
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--demo", type=int, default=40, help="steps to show")
    ap.add_argument("--lines", action="store_true", help="the plain lines even on a terminal")
    args = ap.parse_args()
    p = Progress(args.demo, "demo", tty=False if args.lines else None)
    for i in range(args.demo):
        time.sleep(0.05)
        p.advance(note=f"step {i + 1}")
    p.close()


if __name__ == "__main__":
    main()
