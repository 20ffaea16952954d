"""SQL expressions that render column values as JSON text inside the database.

A compiled plan asks the database for each object's JSON text, so the rows never become Python
UUIDs, strings and dictionaries only to be encoded again. Every expression here writes exactly
the bytes orjson writes for the same value (compact, the same string escapes), which the
compiled-versus-generic tests check on both databases. Values that Python renders as fast and
exactly (dates and times, decimals, JSON documents, labels from Python functions) stay with the
plan's Python code.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import orjson
from django.db import models
from django.db.models import Func, TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Coalesce

TEXT = TextField()
# Stands for the request's base URL ("https://host/api/") in SQL-built text; the plan replaces it
# per row. A raw control character never occurs in JSON text otherwise: strings escape them.
BASE_MARK = "\x01"


class Literal(Value):
    """A constant (text or an integer) written into the statement itself rather than sent as a
    parameter: a plan's JSON texts hold dozens of constant pieces, which as parameters would be
    typed, sent and bound again on every run of the statement."""

    def as_sql(self, compiler, connection):
        if isinstance(self.value, bool) or not isinstance(self.value, int | str):
            return super().as_sql(compiler, connection)
        if isinstance(self.value, int):
            return str(self.value), []
        quoted = "'" + self.value.replace("'", "''") + "'"
        if connection.vendor == "postgresql":
            if "\\" in self.value:  # read as written whatever standard_conforming_strings says
                quoted = "E" + quoted.replace("\\", "\\\\")
            quoted += "::text"  # as a text parameter would be typed
        return quoted.replace("%", "%%"), []  # the driver reads the statement's placeholders


def const(text: str) -> Value:
    return Literal(text, output_field=TEXT)


def json_const(value) -> str:
    """The JSON text of a constant known when the plan is compiled."""
    return orjson.dumps(value).decode()


class Cat(Func):
    """a || b || ...; NULL when any part is NULL (nullable parts are wrapped in `or_null`)."""

    arg_joiner = " || "
    template = "(%(expressions)s)"
    output_field = TEXT


def or_null(expression) -> Func:
    return Coalesce(expression, const("null"), output_field=TEXT)


class JsonBytes(Func):
    """JSON text handed to Python as UTF-8 bytes, the form responses are sent in: no text is
    decoded to str only to be encoded again."""

    output_field = models.BinaryField()

    def as_postgresql(self, compiler, connection, **extra):
        # bytea reaches Python as the raw bytes when results are read in binary format.
        return self.as_sql(compiler, connection, template="convert_to(%(expressions)s, 'UTF8')", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        # The same bytes (the database is UTF-8), typed so that sqlite3 returns bytes.
        return self.as_sql(compiler, connection, template="CAST(%(expressions)s AS BLOB)", **extra)


def _integer_key(expression) -> bool:
    return isinstance(getattr(expression, "output_field", None), models.IntegerField)


class IdText(Func):
    """A UUID column as canonical text (8-4-4-4-12, lower case) on every database; an integer
    key (Django's own models) as its decimal text."""

    output_field = TEXT

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="(%(expressions)s)::text", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        if _integer_key(self.source_expressions[0]):
            return self.as_sql(compiler, connection, template="CAST(%(expressions)s AS TEXT)", **extra)
        # Stored as 32 hexadecimal characters.
        sql, params = compiler.compile(self.source_expressions[0])
        pieces = [f"substr({sql}, {start}, {length})" for start, length in ((1, 8), (9, 4), (13, 4), (17, 4))]
        text = " || '-' || ".join([*pieces, f"substr({sql}, 21)"])
        return f"(CASE WHEN {sql} IS NULL THEN NULL ELSE {text} END)", list(params) * 6


class JsonString(Func):
    output_field = TEXT

    def as_postgresql(self, compiler, connection, **extra):
        # Empty strings are common (unset descriptions, contacts, comments) and a comparison
        # costs a fraction of to_json's escaping pass.
        sql, params = compiler.compile(self.source_expressions[0])
        return f"""(CASE WHEN {sql} = '' THEN '""' ELSE to_json({sql})::text END)""", [*params, *params]

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="json_quote(%(expressions)s)", **extra)


class JsonBool(Func):
    template = "(CASE WHEN %(expressions)s THEN 'true' WHEN NOT %(expressions)s THEN 'false' END)"
    output_field = TEXT

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return self.template.replace("%(expressions)s", sql), list(params) * 2


class JsonName(Func):
    """The JSON text of the name `names` ({value: name}) gives a column's value: one CASE over
    the values, written into the statement; null for NULL and any other value."""

    output_field = TEXT

    def __init__(self, expression, names: dict):
        super().__init__(expression)
        self.names = names

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        branches = " ".join(
            f"WHEN {Literal(value).as_sql(compiler, connection)[0]} "
            f"THEN {const(json_const(name)).as_sql(compiler, connection)[0]}"
            for value, name in self.names.items()
        )
        return f"(CASE {sql} {branches} ELSE 'null' END)", params


# Stands for the value a prepared query is run with (an id set, say): a parameter filled at each
# execution.
SLOT = object()


def slot(output_field: models.Field) -> RawSQL:
    """The value a prepared query is run with, as an expression (a filter's right-hand side)."""
    return RawSQL("%s", [SLOT], output_field=output_field)


def ids_parameter(connection, ids) -> str:
    """The one parameter that carries an id set (canonical UUID text), whatever its size."""
    if connection.vendor == "postgresql":
        return ",".join(ids)
    # SQLite stores UUIDs as 32 hexadecimal characters.
    return orjson.dumps([i.replace("-", "") for i in ids]).decode()


_ONE_ID = ContextVar("one_id", default=False)


@contextmanager
def one_id(one: bool = True):
    """Compile IdIn slots for exactly one id: on PostgreSQL an equality, whose plan made once
    serves every id (a set's plan depends on its size)."""
    token = _ONE_ID.set(one)
    try:
        yield
    finally:
        _ONE_ID.reset(token)


class IdIn(Func):
    """A filter: the UUID column is one of the given ids (canonical text), one parameter in all.
    Without ids it leaves a slot (SLOT) that each execution of a prepared query fills."""

    conditional = True
    output_field = models.BooleanField()

    def __init__(self, expression, ids=None):
        super().__init__(expression)
        self.ids = None if ids is None else list(ids)

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        integer = _integer_key(self.source_expressions[0])
        if connection.vendor == "postgresql" and self.ids is None and _ONE_ID.get():
            where = f"{sql} = (%s)::{'bigint' if integer else 'uuid'}"
        elif connection.vendor == "postgresql":
            # A set the planner need not estimate value by value (a long `= ANY(array)` costs ms to plan).
            where = f"{sql} IN (SELECT unnest(string_to_array(%s, ',')::{'bigint' if integer else 'uuid'}[]))"
        else:
            where = f"{sql} IN (SELECT {'CAST(value AS INTEGER)' if integer else 'value'} FROM json_each(%s))"
        return where, [*params, SLOT if self.ids is None else ids_parameter(connection, self.ids)]


def json_value(field: models.Field, expression):
    """The JSON text of a column, or None when only Python renders it exactly."""
    if hasattr(field, "from_db_value"):  # converted in Python when read
        return None
    if isinstance(field, models.UUIDField):
        text = Cat(const('"'), IdText(expression), const('"'))
    elif isinstance(field, models.BooleanField):
        text = JsonBool(expression)
    elif isinstance(field, models.IntegerField):
        text = Cast(expression, TEXT)
    elif isinstance(field, models.CharField | models.TextField) and not isinstance(field, models.JSONField):
        text = JsonString(expression)
    else:
        return None
    return or_null(text) if field.null else text


@dataclass(frozen=True)
class PyText:
    """Python code (over a row `r`, base `B` and loaded data `P`) that yields JSON text."""

    code: str


class JsonText:
    """JSON text under construction from constants, SQL text expressions and Python code."""

    def __init__(self):
        self.parts: list = []

    def const(self, text: str) -> None:
        if self.parts and isinstance(self.parts[-1], str):
            self.parts[-1] += text
        else:
            self.parts.append(text)

    def sql(self, expression) -> None:
        self.parts.append(expression)

    def py(self, code: str) -> None:
        self.parts.append(PyText(code))

    def expression(self):
        """The whole text as one SQL expression (it must hold no Python code)."""
        if any(isinstance(p, PyText) for p in self.parts):
            raise ValueError("Python code in an SQL-only text")
        args = [const(p) if isinstance(p, str) else p for p in self.parts]
        return args[0] if len(args) == 1 else Cat(*args)
