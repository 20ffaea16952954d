"""Queries compiled to SQL once per database and run with one value left open.

A plan's JSON expressions are hundreds of nodes Django would otherwise resolve and compile on
every request; a query holding one caller's permissions is compiled for that request alone.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import psycopg
from django.db import connections
from psycopg.types.string import StrDumper

from . import jsonsql


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
    connection, strings `typed_text` as bound_cursor says). In PostgreSQL's binary format bytea
    (JsonBytes) arrives as the bytes themselves instead of as hexadecimal text; Django's cursors
    bind parameters client-side and so read text only."""
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    with bound_cursor(connection, sql, typed_text) as cursor:
        cursor.execute(sql, params, binary=binary, prepare=prepare)
        return cursor.fetchall()


@contextmanager
def bound_cursor(connection, sql: str, typed_text: bool = True):
    """A PostgreSQL cursor whose parameters the server binds (a statement executed with
    prepare=True is planned once per connection); recorded as Django's debug cursor records
    statements (DEBUG, statement-count tests). Strings go as text where `typed_text` (as the
    expressions of Django's SQL expect), else untyped, taking the type of the column they are
    stored in (an address, say)."""
    connection.ensure_connection()
    start = time.monotonic()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        if typed_text:
            cursor.adapters.register_dumper(str, StrDumper)
        yield cursor
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - start:.3f}"})
