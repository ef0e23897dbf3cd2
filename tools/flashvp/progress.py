# SPDX-License-Identifier: BSD-3-Clause
"""A sweep's progress through tqdm: a bar with the ETA on a terminal, and
a plain line per finished point otherwise (CI logs, a file), whose rate and
ETA are tqdm's too."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tqdm import tqdm


class Progress:
    def __init__(self, total: int, slots: int, skipped: int = 0, stream: TextIO | None = None,
                 desc: str = "sweep") -> None:
        self.stream: TextIO = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.total, self.slots = total, max(1, slots)
        self.done = self.failed = self.busy = 0
        self.skipped = skipped
        self.desc = desc
        self.start = time.monotonic()
        self._bar: tqdm[Any] | None = None

    @property
    def finished_count(self) -> int:
        return self.done + self.failed + self.busy

    @property
    def running(self) -> int:
        return min(self.slots, self.total - self.finished_count)

    def counts(self) -> str:
        busy = f", {self.busy} running elsewhere" if self.busy else ""
        return f"{self.done} done, {self.failed} failed{busy}, {self.running} running"

    def line(self) -> str:
        """The plain form: tqdm's count, elapsed time, ETA and rate, then the counts."""
        meter = tqdm.format_meter(self.finished_count, self.total, time.monotonic() - self.start, unit=" points",
                                  bar_format="{n_fmt}/{total_fmt} points [{elapsed}<{remaining}, {rate_fmt}]")
        return f"{meter}: {self.counts()}"

    def begin(self) -> None:
        note = f" ({self.skipped} finished before, skipped)" if self.skipped else ""
        slots = f"{self.slots} slot" + ("" if self.slots == 1 else "s")
        self.stream.write(f"{self.desc}: {self.total} points to run on {slots}{note}\n")
        self.stream.flush()
        if self.tty and self.total:
            self._bar = tqdm(total=self.total, file=self.stream, desc=self.desc, unit=" points", dynamic_ncols=True,
                             postfix=self.counts())

    def finished(self, ok: bool, label: str, wall_s: float, busy: bool = False) -> None:
        """A point ended: ok, failed, or busy (another flashvp runs it: not started here)."""
        if busy:
            self.busy += 1
        elif ok:
            self.done += 1
        else:
            self.failed += 1
        word = "running elsewhere" if busy else "done" if ok else "FAILED"
        if self._bar is not None:
            if not ok:
                self._bar.write(f"{'running elsewhere' if busy else 'failed'}: {label}", file=self.stream)
            self._bar.set_postfix_str(self.counts(), refresh=False)
            self._bar.update(1)
        else:
            self.stream.write(f"{word} {label} ({wall_s:.1f} s); {self.line()}\n")
            self.stream.flush()

    def end(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        busy = f", {self.busy} running elsewhere" if self.busy else ""
        self.stream.write(f"{self.desc}: {self.done} done, {self.failed} failed{busy}, {self.skipped} skipped in "
                          f"{tqdm.format_interval(time.monotonic() - self.start)}\n")
        self.stream.flush()
