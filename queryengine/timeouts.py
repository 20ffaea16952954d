"""How long one database statement may run: `DATABASE_STATEMENT_TIMEOUT` seconds (0: no limit),
for web requests and jobs alike, on both databases.

PostgreSQL stops such a statement itself: each connection starts with `statement_timeout` set
(and `client_connection_check_interval`, so that a statement whose client is gone stops too;
config/settings.py `database_from_url`), which costs nothing per request. SQLite has no limit of
its own: each statement gets a deadline as it starts (config/backends/sqlite3), which a progress
handler checks as SQLite works; past it, the statement is interrupted. Its REGEXP is RE2
(`linear_pattern`), whose time is linear in the text: Python's `re`, which SQLite would otherwise
run, backtracks (`(a+)+b` over forty a's runs for hours) and cannot be stopped while it does.

Either way the statement fails with an error `timed_out` recognises; the API answers 503 naming
the setting. Migrations run without a limit (`unbounded`).
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from math import inf
from time import monotonic

import re2
from django.conf import settings
from django.db import OperationalError

from .errors import StatementTimeout

QUERY_CANCELED = "57014"  # PostgreSQL: the statement timed out (or was cancelled)
SQLITE_INTERRUPTED = "interrupted"
PROGRESS_STEPS = 10_000  # SQLite virtual machine instructions between two looks at the clock


class Deadline:
    """When the current statement of one SQLite connection must be done."""

    __slots__ = ("at", "off")

    def __init__(self):
        self.at = inf
        self.off = False  # no limit while set (migrations)

    def start(self) -> None:
        limit = settings.DATABASE_STATEMENT_TIMEOUT
        self.at = monotonic() + limit if limit > 0 and not self.off else inf

    def clear(self) -> None:
        self.at = inf


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # a refused pattern is the caller's error, not a log line
    options.never_capture = True  # REGEXP asks whether a text matches, never what
    return options


OPTIONS = _options()


@lru_cache(maxsize=256)
def linear_pattern(source: str):
    """`source` compiled by RE2, which matches in time linear in the text and takes Python's
    syntax but for what needs backtracking (references to groups, lookaround, atomic groups,
    possessive repeats): ValueError saying which."""
    try:
        return re2.compile(source, OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(reason) from None


def bound_sqlite(raw, deadline: Deadline) -> None:
    """Hold a new SQLite connection's statements to `deadline`, its REGEXP matching in linear time."""
    raw.set_progress_handler(lambda: monotonic() > deadline.at, PROGRESS_STEPS)

    def regexp(pattern, text):
        if pattern is None or text is None:
            return None
        try:
            compiled = linear_pattern(pattern)
        except ValueError:
            return None  # filters refuse such patterns first (parse_regex): a NULL matches nothing
        found = compiled.search(text if isinstance(text, str) else str(text)) is not None
        # A few long texts take few instructions of SQLite's own between two progress checks.
        if monotonic() > deadline.at:
            raw.interrupt()
        return found

    raw.create_function("REGEXP", 2, regexp, deterministic=True)


def timed_out(exc: BaseException | None) -> StatementTimeout | None:
    """The StatementTimeout `exc` is, or stands for (a statement the database stopped)."""
    if isinstance(exc, StatementTimeout):
        return exc
    if isinstance(exc, OperationalError) and (
        getattr(exc.__cause__, "sqlstate", None) == QUERY_CANCELED or str(exc) == SQLITE_INTERRUPTED
    ):
        return StatementTimeout(settings.DATABASE_STATEMENT_TIMEOUT)
    return None


@contextmanager
def unbounded(connection):
    """No statement limit on `connection` inside the block (migrations)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
        try:
            yield
        finally:
            if connection.is_usable():
                with connection.cursor() as cursor:
                    cursor.execute("RESET statement_timeout")  # the value the connection started with
        return
    deadline = getattr(connection, "deadline", None)
    if deadline is None:
        yield
        return
    deadline.off = True
    try:
        yield
    finally:
        deadline.off = False
