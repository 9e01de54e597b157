"""A dependency-free progress bar on stderr: redrawn in place on a terminal, a line every 10%
otherwise (CI logs)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, label: str, min_total: int = 1000) -> None:
        self.label = label
        self.min_total = min_total
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self._last = -1

    def __call__(self, done: int, total: int) -> None:
        if total < self.min_total:
            return
        pct = done * 100 // total
        step = pct if self.tty else pct - pct % 10
        if step == self._last:
            return
        self._last = step
        bar = "#" * (pct // 4) + "." * (25 - pct // 4)
        elapsed = time.monotonic() - self.start
        line = f"{self.label} [{bar}] {pct:3d}% {done}/{total} {elapsed:6.1f}s"
        if self.tty:
            sys.stderr.write("\r" + line + ("\n" if done == total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
