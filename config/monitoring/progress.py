"""Progress of long seeding and import runs, written to standard error so output stays parsable:
one line rewritten in place on a terminal, a line every few seconds in a log."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, label: str, total: int, stream=None, interval: float | None = None):
        self.label, self.total, self.done = label, max(total, 0), 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = interval if interval is not None else (0.2 if self.tty else 5.0)
        self.started = self.shown_at = time.monotonic()
        self.finished = False

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if now - self.shown_at >= self.interval:
            self.shown_at = now
            self._show(now)

    def finish(self) -> None:
        if self.finished:
            return
        self.finished = True
        self.done = max(self.done, self.total)
        self._show(time.monotonic(), last=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind, *_) -> None:
        if kind is None:
            self.finish()
        elif self.tty:
            self.stream.write("\n")

    def _show(self, now: float, last: bool = False) -> None:
        elapsed = now - self.started
        line = f"  {self.label}: {self.done:,}/{self.total:,}"
        if self.total:
            line += f" ({100 * self.done / self.total:.0f}%)"
        line += f", {elapsed:.1f} s"
        if not last and 0 < self.done < self.total:
            line += f", about {elapsed * (self.total - self.done) / self.done:.0f} s left"
        self.stream.write(
            ("\r" + line + "\033[K" if self.tty else line) + ("\n" if last or not self.tty else "")
        )
        self.stream.flush()
