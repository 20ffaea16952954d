"""Queries compiled to SQL once per database and run with one value left open.

A plan's JSON expressions are hundreds of nodes Django would otherwise resolve and compile on
every request; a query holding one caller's permissions is compiled for that request alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import psycopg
from django.db import connections
from psycopg.pq import TransactionStatus
from psycopg.types.string import StrDumper, StrDumperUnknown

from . import jsonsql

INERROR = TransactionStatus.INERROR


class PreparedQuery:
    """A queryset with one value left open (jsonsql.SLOT; an id set by default), compiled to SQL
    once per database: a plan's JSON expressions are hundreds of nodes Django would otherwise
    resolve and compile on every request.

    On PostgreSQL a statement for one value (a single id, a token key) is also prepared on the
    connection: planned once instead of on every run, which cost more than the run itself (0.3
    of 0.5 ms for an object read back). A set of ids is planned for its size each time."""

    def __init__(self, model, make_queryset, parameter=jsonsql.ids_parameter, binary: bool = True):
        self.model = model
        self.binary = binary  # PostgreSQL's binary format (plans' JSON texts); text for model rows
        self.make_queryset = make_queryset  # called on first use, when the plan is complete
        self.parameter = parameter  # (connection, value) -> what the database is sent for the slot
        self.by_ids = parameter is jsonsql.ids_parameter
        # (database alias, whether for one id) -> (sql, params, converters, compiler)
        self.compiled: dict[tuple, tuple] = {}

    def rows(self, value, queryset=None) -> list:
        """The rows for `value`; `queryset`, when given, replaces the prepared one for this
        request only (it holds a user's permissions) and is compiled for it alone."""
        if not value:
            return []
        connection = connections[self.model._default_manager.db]
        one = not self.by_ids or len(value) == 1
        key = (connection.alias, one)
        compiled = self.compiled.get(key) if queryset is None else None
        if compiled is None:
            with jsonsql.one_id(one):
                compiled = compile_query(self.make_queryset() if queryset is None else queryset, connection)
            if queryset is None:
                self.compiled[key] = compiled
        sql, params, converters, compiler = compiled
        sent = self.parameter(connection, value)
        params = [sent if p is jsonsql.SLOT else p for p in params]
        # One object by the shared query: a write of that object still waiting may travel with it.
        reads = (self.model._meta.db_table, value[0]) if one and queryset is None and self.by_ids else None
        rows = fetch_all(connection, sql, params, self.binary, prepare=one and queryset is None, reads=reads)
        return list(compiler.apply_converters(rows, converters)) if converters else rows


def stored_columns(model) -> list[str]:
    """Every column of a model's rows, by attribute name: what values_list reads of a stored row."""
    return [field.attname for field in model._meta.concrete_fields]


def compile_query(queryset, connection) -> tuple:
    """(sql, params, converters, compiler) of a queryset on a connection."""
    compiler = queryset.query.get_compiler(connection=connection)
    sql, params = compiler.as_sql()
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    return sql, params, converters, compiler


def fetch_all(
    connection, sql: str, params: list, binary: bool = True, prepare: bool = False, reads=None
) -> list:
    """Every row a statement returns (on PostgreSQL bound by the server, `prepare`d on the
    connection). In PostgreSQL's binary format bytea (JsonBytes) arrives as the bytes themselves
    instead of as hexadecimal text; Django's cursors bind parameters client-side and so read text
    only. `reads` is (table, id) when the statement reads that one row: a waiting UPDATE of it
    (`update_later`) then travels with it."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    sql, params, carried = _with_deferred(connection, sql, params, reads)
    if carried is None:
        return bound_execute(connection, sql, params, binary=binary, prepare=prepare)
    # The written row's columns follow the statement's own, read as a read of the row would read
    # them (text format: Django's loaders for JSON and addresses are text ones).
    rows = bound_execute(connection, sql, params, prepare=prepare)
    width = len(carried.returning)
    carried.received([row[-width:] for row in rows])
    return [row[:-width] for row in rows]


# -- statements run with the next one -------------------------------------------------------------
# A statement whose result nobody reads (a change record) need not cost a round trip of its own:
# inside `deferring`, on PostgreSQL, it waits for the next statement and is sent with it, as a
# data-modifying WITH clause of that statement, or, before any other statement, alone first.
# Every statement therefore still runs after the ones deferred before it, as if sent at once.
# The UPDATE of one object whose read-back follows (`update_later`) waits too: that read-back
# reads the row the UPDATE returns, through a WITH clause named as the table.
_DEFERRED = "deferred_statements"  # the connection's queue of Waiting statements, or None
_reading_back: ContextVar[bool] = ContextVar("reading_back", default=False)


@dataclass
class Waiting:
    sql: str
    params: list
    table: str  # the table it writes
    returning: list[str] | None = None  # an UPDATE's columns to return, quoted
    received: Callable | None = None  # called with those rows
    row: tuple | None = None  # (table, id) of the one row the UPDATE writes


@contextmanager
def deferring(connection):
    """Statements given to `run_later` inside wait for the next statement; those still waiting
    at the end are run then, unless the transaction is to be rolled back. Only inside an
    atomic block: the block's COMMIT follows the end of this one."""
    if (
        connection.vendor != "postgresql"
        or not connection.in_atomic_block
        or deferred(connection) is not None
    ):
        yield
        return
    setattr(connection, _DEFERRED, [])
    try:
        # Django's own statements (savepoints included) run the waiting ones first.
        with connection.execute_wrapper(_run_deferred_first):
            yield
        run_deferred(connection)
    finally:
        setattr(connection, _DEFERRED, None)


def deferred(connection) -> list | None:
    return getattr(connection, _DEFERRED, None)


@contextmanager
def reading_back():
    """Inside, the UPDATE of one object may wait for the object's read-back through a prepared
    query (`update_later`); the caller reads it back, then runs what still waits
    (`run_deferred`), so that an error of the UPDATE is still the write's own."""
    token = _reading_back.set(True)
    try:
        yield
    finally:
        _reading_back.reset(token)


def run_later(connection, sql: str, params: list, table: str) -> None:
    """Run a statement that returns nothing, on the next round trip (at once outside
    `deferring`); `table` is the one it writes, which a statement reading it is not sent with
    (a WITH clause's writes are not seen by its own statement)."""
    waiting = Waiting(sql, params, table)
    queue = deferred(connection)
    if queue is not None:
        queue.append(waiting)
    else:
        _run(connection, waiting)


def update_later(connection, sql: str, params: list, row: tuple, returning: list[str], received) -> None:
    """Run `UPDATE <table> SET ... WHERE <pk> = %s` of the one row `row` ((table, id)) and give
    `received` the rows it returns (`returning`, quoted columns). Inside `deferring` and
    `reading_back`, on PostgreSQL, it waits: the row's read-back carries it (`fetch_all`), or
    any other statement first runs it alone; elsewhere it runs at once."""
    waiting = Waiting(sql, params, row[0], returning, received, row)
    queue = deferred(connection)
    if queue is not None and _reading_back.get():
        queue.append(waiting)
        return
    run_deferred(connection)  # what waits goes first
    _run(connection, waiting)


def run_deferred(connection) -> None:
    """Run the waiting statements now, each alone. After an error that aborted the transaction
    they are dropped: they belong to the work being rolled back."""
    queue = deferred(connection)
    if not queue:
        return
    if connection.needs_rollback or connection.connection.info.transaction_status == INERROR:
        queue.clear()
        return
    while queue:
        _run(connection, queue.pop(0))


def _run(connection, waiting: Waiting) -> None:
    """One statement alone, on either database; an UPDATE's returned rows go to `received`."""
    returns = waiting.returning is not None
    sql = f"{waiting.sql} RETURNING {', '.join(waiting.returning)}" if returns else waiting.sql
    if connection.vendor == "postgresql":
        rows = bound_execute(connection, sql, waiting.params, prepare=True, rows=returns)
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, waiting.params)
            rows = cursor.fetchall() if returns else None
    if returns:
        waiting.received(rows)


def _run_deferred_first(execute, sql, params, many, context):
    run_deferred(context["connection"])
    return execute(sql, params, many, context)


def _with_deferred(connection, sql: str, params: list, reads) -> tuple[str, list, Waiting | None]:
    """The statement with the waiting ones as WITH clauses before it, where they can go there,
    and the waiting UPDATE it carries, if any: its row's columns then follow each row's own."""
    queue = deferred(connection)
    if not queue:
        return sql, params, None
    update = next((w for w in queue if w.row is not None and w.row == reads), None)
    table = connection.ops.quote_name(update.table) if update is not None else None
    if (
        not sql.startswith(("SELECT", "UPDATE", "INSERT", "DELETE"))
        or any(w is not update and (w.returning is not None or w.table in sql) for w in queue)
        or (update is not None and (not sql.startswith("SELECT") or not _reads_once(sql, table)))
    ):
        run_deferred(connection)
        return sql, params, None
    clauses, sent = [], []
    for n, waiting in enumerate(queue):
        if waiting is update:  # the statement's references to the table read the updated row
            clauses.append(f"{table} AS ({waiting.sql} RETURNING *)")
        else:
            clauses.append(f"deferred{n} AS ({waiting.sql})")
        sent += waiting.params
    queue.clear()
    if update is None:
        return f"WITH {', '.join(clauses)} {sql}", [*sent, *params], None
    columns = ", ".join(f"written.{column}" for column in update.returning)
    return (
        f"WITH {', '.join(clauses)} SELECT readback.*, {columns} FROM ({sql}) AS readback, {table} AS written",
        [*sent, *params],
        update,
    )


def _reads_once(sql: str, table: str) -> bool:
    """Whether the statement reads the table in one place only (its FROM): a subquery or join of
    the table would read the updated row alone where the WITH clause stands for the table."""
    return sql.count(f"FROM {table}") + sql.count(f"JOIN {table}") == 1


class Untyped(str):
    """A string sent without a type: the server gives it the type of the column it is stored in
    (an address, say), where the text other strings are sent as would need a cast."""


def bound_execute(
    connection, sql: str, params: list, binary: bool = False, prepare: bool = False, rows: bool = True
) -> list | None:
    """Run a statement on PostgreSQL with its parameters bound by the server (with `prepare`,
    planned once per connection) and return its rows (`rows`); recorded as Django's debug
    cursor records statements (DEBUG, statement-count tests). Strings go as text, as the
    expressions of Django's SQL expect; Untyped ones without a type."""
    connection.ensure_connection()
    start = time.monotonic()
    with connection.wrap_database_errors:
        cursor = _bound_cursor(connection)
        cursor.execute(sql, params, binary=binary, prepare=prepare)
        found = cursor.fetchall() if rows else None
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - start:.3f}"})
    return found


def _bound_cursor(connection) -> psycopg.Cursor:
    """The connection's cursor for server-bound statements, made once per database connection
    rather than per statement (a cursor copies the connection's adapters when made, and
    registering its dumpers copies them again)."""
    raw = connection.connection
    kept = getattr(connection, "bound_cursor", None)
    if kept is None or kept.connection is not raw or kept.closed:
        kept = psycopg.Cursor(raw)
        kept.adapters.register_dumper(str, StrDumper)
        kept.adapters.register_dumper(Untyped, StrDumperUnknown)
        connection.bound_cursor = kept
    return kept
