"""Queries compiled to SQL once per database and run with one value left open.

A plan's JSON expressions are hundreds of nodes Django would otherwise resolve and compile on
every request; a query holding one caller's permissions is compiled for that request alone.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import psycopg
from django.db import connections
from psycopg.pq import TransactionStatus
from psycopg.types.string import StrDumper

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
        value = self.parameter(connection, value)
        params = [value if p is jsonsql.SLOT else p for p in params]
        rows = fetch_all(connection, sql, params, self.binary, prepare=one and queryset is None)
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
    connection, sql: str, params: list, binary: bool = True, prepare: bool = False, typed_text: bool = True
) -> list:
    """Every row a statement returns (on PostgreSQL bound by the server, `prepare`d on the
    connection, strings `typed_text` as bound_execute says). In PostgreSQL's binary format bytea
    (JsonBytes) arrives as the bytes themselves instead of as hexadecimal text; Django's cursors
    bind parameters client-side and so read text only."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    sql, params = _with_deferred(connection, sql, params)
    return bound_execute(connection, sql, params, binary=binary, prepare=prepare, typed_text=typed_text)


# -- statements run with the next one -------------------------------------------------------------
# A statement whose result nobody reads (a change record) need not cost a round trip of its own:
# inside `deferring`, on PostgreSQL, it waits for the next statement and is sent with it, as a
# data-modifying WITH clause of that statement, or, before any other statement, alone first.
# Every statement therefore still runs after the ones deferred before it, as if sent at once.
_DEFERRED = "deferred_statements"  # the connection's queue: [(sql, params, table)] or None


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


def run_later(connection, sql: str, params: list, table: str) -> None:
    """Run a statement that returns nothing, on the next round trip (at once outside
    `deferring`); `table` is the one it writes, which a statement reading it is not sent with
    (a WITH clause's writes are not seen by its own statement)."""
    queue = deferred(connection)
    if queue is not None:
        queue.append((sql, params, table))
    elif connection.vendor == "postgresql":
        bound_execute(connection, sql, params, prepare=True, rows=False)
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


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
        sql, params, _ = queue.pop(0)
        bound_execute(connection, sql, params, prepare=True, rows=False)


def _run_deferred_first(execute, sql, params, many, context):
    run_deferred(context["connection"])
    return execute(sql, params, many, context)


def _with_deferred(connection, sql: str, params: list) -> tuple[str, list]:
    """The statement with the waiting ones as WITH clauses before it, where they can go there."""
    queue = deferred(connection)
    if not queue:
        return sql, params
    if not sql.startswith(("SELECT", "UPDATE", "INSERT", "DELETE")) or any(t in sql for _, _, t in queue):
        run_deferred(connection)
        return sql, params
    clauses = ", ".join(f"deferred{n} AS ({waiting})" for n, (waiting, _, _) in enumerate(queue))
    sent = [value for _, waiting_params, _ in queue for value in waiting_params]
    queue.clear()
    return f"WITH {clauses} {sql}", [*sent, *params]


def bound_execute(
    connection,
    sql: str,
    params: list,
    binary: bool = False,
    prepare: bool = False,
    typed_text: bool = True,
    rows: bool = True,
) -> list | None:
    """Run a statement on PostgreSQL with its parameters bound by the server (with `prepare`,
    planned once per connection) and return its rows (`rows`); recorded as Django's debug
    cursor records statements (DEBUG, statement-count tests). Strings go as text where
    `typed_text` (as the expressions of Django's SQL expect), else untyped, taking the type of
    the column they are stored in (an address, say)."""
    connection.ensure_connection()
    start = time.monotonic()
    with connection.wrap_database_errors:
        cursor = _bound_cursor(connection, typed_text)
        cursor.execute(sql, params, binary=binary, prepare=prepare)
        found = cursor.fetchall() if rows else None
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - start:.3f}"})
    return found


def _bound_cursor(connection, typed_text: bool) -> psycopg.Cursor:
    """The connection's cursor for server-bound statements, one for each way of sending strings:
    made once per database connection rather than per statement (a cursor copies the
    connection's adapters when made, and registering the text dumper copies them again)."""
    raw = connection.connection
    kept = getattr(connection, "bound_cursors", None)
    if kept is None or kept[0] is not raw:
        kept = (raw, {})
        connection.bound_cursors = kept
    cursor = kept[1].get(typed_text)
    if cursor is None or cursor.closed:
        cursor = psycopg.Cursor(raw)
        if typed_text:
            cursor.adapters.register_dumper(str, StrDumper)
        kept[1][typed_text] = cursor
    return cursor
