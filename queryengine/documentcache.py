"""Prepared documents kept by each server process, within an estimate of the memory they hold.

A prepared document holds its syntax tree and compiled plans: about 64 KiB for a small one, and
more in proportion to its text for a deep one (an interface list at depth 10, 86 kB of text,
holds about 14 MiB). A count of documents would bound nothing, so the least recently used go
first once the estimate passes the budget.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

BASE_COST = 64 * 1024  # bytes held by any prepared document
COST_PER_CHARACTER = 170  # bytes held per character of its text (measured on deep documents)


def estimated_cost(source: str) -> int:
    return BASE_COST + COST_PER_CHARACTER * len(source)


class DocumentCache:
    """`prepare(source)`, kept by text when `keep(prepared)`; the least recently used go first
    past `budget` bytes."""

    def __init__(self, prepare: Callable, budget: int, keep: Callable = lambda prepared: True):
        self.prepare = prepare
        self.budget = budget
        self.keep = keep
        self.kept: OrderedDict = OrderedDict()
        self.used = 0
        self.hits = self.misses = 0
        self.lock = threading.Lock()

    def __call__(self, source: str):
        with self.lock:
            prepared = self.kept.get(source)
            if prepared is not None:
                self.kept.move_to_end(source)
                self.hits += 1
                return prepared
            self.misses += 1
        prepared = self.prepare(source)  # outside the lock: other threads go on meanwhile
        if not self.keep(prepared):
            return prepared
        with self.lock:
            if source not in self.kept:
                self.kept[source] = prepared
                self.used += estimated_cost(source)
                while self.used > self.budget and len(self.kept) > 1:
                    gone, _ = self.kept.popitem(last=False)
                    self.used -= estimated_cost(gone)
        return prepared

    def __len__(self) -> int:
        return len(self.kept)

    def clear(self) -> None:
        with self.lock:
            self.kept.clear()
            self.used = 0
