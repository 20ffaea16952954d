"""Whether a Celery worker consumes a queue, asked of the workers themselves (a broadcast
`active_queues`) before a run is accepted: the reference refuses a run nobody would pick up
(503) rather than leave it pending. Answers are kept briefly, so a busy API asks the broker at
most every few seconds, and a worker that just started is noticed soon."""

from __future__ import annotations

import threading
import time
from collections import Counter

from config.celery import app as celery_app

REPLY_WAIT = 1.0  # seconds the workers have to answer (the embedded broker polls each second)
KEEP_FOUND = 30.0  # a queue someone consumed is believed consumed this long
KEEP_MISSING = 3.0  # a queue nobody consumed is asked about again this soon

_lock = threading.Lock()
_known: tuple[float, Counter] | None = None


def _ask() -> Counter:
    try:
        replies = celery_app.control.inspect(timeout=REPLY_WAIT).active_queues() or {}
    except Exception:  # broker unreachable: nobody can take the run
        return Counter()
    return Counter(queue["name"] for queues in replies.values() for queue in queues or [])


def worker_count(queue: str) -> int:
    """Workers consuming `queue`; in eager mode (tasks run in the requesting process) one."""
    global _known
    if celery_app.conf.task_always_eager:
        return 1
    with _lock:
        now = time.monotonic()
        if _known is not None:
            asked_at, counts = _known
            if now - asked_at < (KEEP_FOUND if counts.get(queue) else KEEP_MISSING):
                return counts.get(queue, 0)
        counts = _ask()
        _known = (time.monotonic(), counts)
        return counts.get(queue, 0)


def forget() -> None:
    global _known
    with _lock:
        _known = None


def no_worker_message(queue: str) -> str:
    return f"Unable to process request: No celery workers running on queue {queue}."
