# SPDX-License-Identifier: BSD-3-Clause
"""A sweep's progress: one redrawn line on a terminal, plain lines otherwise."""
from __future__ import annotations

import sys
import time


def _clock(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    def __init__(self, total: int, slots: int, skipped: int = 0, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.total, self.slots = total, max(1, slots)
        self.done = self.failed = self.busy = 0
        self.skipped = skipped
        self.start = time.monotonic()

    @property
    def running(self) -> int:
        return min(self.slots, self.total - self.done - self.failed - self.busy)

    def eta(self) -> str:
        finished = self.done + self.failed + self.busy
        left = self.total - finished
        if not finished or not left:
            return "-" if left else "0m00s"
        return _clock((time.monotonic() - self.start) / finished * left)

    def line(self) -> str:
        busy = f", {self.busy} running elsewhere" if self.busy else ""
        return (f"{self.done + self.failed + self.busy}/{self.total} points: {self.done} done, {self.failed} failed"
                f"{busy}, {self.running} running, ETA {self.eta()}")

    def begin(self) -> None:
        note = f" ({self.skipped} finished before, skipped)" if self.skipped else ""
        self.stream.write(f"sweep: {self.total} points to run on {self.slots} slots{note}\n")
        self._draw()

    def finished(self, ok: bool, label: str, wall_s: float, busy: bool = False) -> None:
        """A point ended: ok, failed, or busy (another flashvp runs it: not started here)."""
        if busy:
            self.busy += 1
        elif ok:
            self.done += 1
        else:
            self.failed += 1
        word = "running elsewhere" if busy else "done" if ok else "FAILED"
        if self.tty:
            if not ok:
                self.stream.write(f"\r\x1b[K{'running elsewhere' if busy else 'failed'}: {label}\n")
            self._draw()
        else:
            self.stream.write(f"{word} {label} ({wall_s:.1f} s); {self.line()}\n")
        self.stream.flush()

    def _draw(self) -> None:
        if not self.tty:
            return
        width = 24
        filled = width * (self.done + self.failed + self.busy) // max(1, self.total)
        self.stream.write(f"\r\x1b[K[{'#' * filled}{'.' * (width - filled)}] {self.line()}")
        self.stream.flush()

    def end(self) -> None:
        if self.tty:
            self.stream.write("\n")
        busy = f", {self.busy} running elsewhere" if self.busy else ""
        self.stream.write(f"sweep: {self.done} done, {self.failed} failed{busy}, {self.skipped} skipped in "
                          f"{_clock(time.monotonic() - self.start)}\n")
        self.stream.flush()
