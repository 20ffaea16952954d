"""Independent reads of one request, run at once on PostgreSQL.

A page's count, its rows and its many-to-many pairs are separate statements that the database
would otherwise execute one after another while its other cores idle. Outside a transaction
each statement already reads its own snapshot, so running them on several connections changes
nothing a client can see; inside one (an atomic block, a test case) they must all see its
uncommitted writes and run in turn on its connection.

Each server process keeps `settings.READ_WORKERS` threads (0 turns this off), each with its own
database connection held for the thread's life and outside the request pool: a worker never
waits for a connection that a request holding one waits on.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.utils import load_backend

_executors: dict[int, ThreadPoolExecutor] = {}  # per process id: a forked server starts its own
_opened: list = []  # the workers' connections, closed by close()
_lock = threading.Lock()


class _Worker(threading.local):
    active = False  # true in a worker thread while it runs a call


_worker = _Worker()


def _concurrent(alias: str) -> bool:
    """Whether calls made now would run at once."""
    connection = connections[alias]
    return (
        settings.READ_WORKERS > 0
        and not _worker.active
        and connection.vendor == "postgresql"
        and not connection.in_atomic_block
        and connection.get_autocommit()
    )


def run_all(alias: str, calls: list) -> list:
    """Each call's result, in order; the first runs in this thread, the others alongside it
    (a call already running alongside runs its own calls in turn: workers never wait on workers)."""
    if len(calls) < 2 or not _concurrent(alias):
        return [call() for call in calls]
    requester = connections[alias]
    log = requester.queries_log if requester.queries_logged else None
    executor = _executor()
    futures = [executor.submit(_on_worker, alias, call, log) for call in calls[1:]]
    first = calls[0]()
    return [first, *(future.result() for future in futures)]


def _on_worker(alias: str, call, log):
    connection = _worker_connection(alias)
    connection.force_debug_cursor = log is not None
    connection.queries_log.clear()
    _worker.active = True
    try:
        try:
            result = call()
        except DatabaseError:
            if not _lost(connection):
                raise
            return call()
        return call() if _lost(connection) else result  # a call may report its error as a value
    finally:
        _worker.active = False
        if log is not None:  # counted where the request counts its queries
            log.extend(connection.queries_log)


def _lost(connection) -> bool:
    """Whether the connection died under the last call, lost while idle between requests (a
    restarted server, an idle timeout): then it is closed, and reads may simply run again."""
    if not connection.errors_occurred:
        return False
    connection.errors_occurred = False
    if connection.is_usable():
        return False
    connection.close()  # reconnects on the next query
    return True


def _worker_connection(alias: str):
    """This worker's connection: the request connection's settings without its pool."""
    shared = connections.settings[alias]
    wanted = {**shared, "OPTIONS": {k: v for k, v in shared["OPTIONS"].items() if k != "pool"}}
    connection = connections[alias]
    if connection.settings_dict != wanted:  # first call, or the database was switched (tests)
        connection.close()
        if connection in _opened:
            _opened.remove(connection)
        connection = load_backend(wanted["ENGINE"]).DatabaseWrapper(wanted, alias)
        connections[alias] = connection  # this thread's only
        _opened.append(connection)
    return connection


def _executor() -> ThreadPoolExecutor:
    pid = os.getpid()
    executor = _executors.get(pid)
    if executor is None:
        with _lock:
            executor = _executors.setdefault(pid, ThreadPoolExecutor(settings.READ_WORKERS, "reads"))
    return executor


def close() -> None:
    """Stop the workers and close their connections (before a database is dropped, say)."""
    executor = _executors.pop(os.getpid(), None)
    if executor is not None:
        executor.shutdown(wait=True)
    while _opened:
        connection = _opened.pop()
        connection.inc_thread_sharing()  # its thread has ended
        connection.close()
