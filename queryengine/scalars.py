"""GraphQL scalars that hand native values to the JSON encoder.

orjson writes UUIDs and datetimes itself (faster than formatting them in Python), so these
scalars serialise to the native value; the compiled plans use the same converters, which keeps
both execution paths byte-identical once encoded.
"""

import datetime
import decimal
import uuid

import graphene
import orjson
from django.db import models
from django.utils.dateparse import parse_date, parse_datetime
from graphene.types import generic
from graphql.language import ast
from graphql.utilities import value_from_ast_untyped

JSON_OPTIONS = orjson.OPT_UTC_Z | orjson.OPT_NON_STR_KEYS


def _json_default(value):
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def dumps(data, pretty: bool = False) -> bytes:
    """The one JSON encoder of responses (and of values the compiled plans render in Python)."""
    return orjson.dumps(
        data, default=_json_default, option=JSON_OPTIONS | (orjson.OPT_INDENT_2 if pretty else 0)
    )


def _identity(value):
    return value


def _to_float(value):
    return float(value)


class GenericScalar(generic.GenericScalar):
    """Any JSON value. A literal may hold the operation's variables (`data: [{id: $id, tenant:
    $t}]`): they are read as given, where graphene's scalar of this name reads them as null, so a
    write would clear the fields they name."""

    class Meta:
        name = "GenericScalar"

    @staticmethod
    def parse_literal(node, variables=None):
        return value_from_ast_untyped(node, variables)


def _literal_string(node):
    return node.value if isinstance(node, ast.StringValueNode) else None


class UUID(graphene.Scalar):
    serialize = staticmethod(_identity)
    parse_value = staticmethod(lambda value: uuid.UUID(str(value)))

    @staticmethod
    def parse_literal(node, _variables=None):
        value = _literal_string(node)
        return uuid.UUID(value) if value else None


class DateTime(graphene.Scalar):
    serialize = staticmethod(_identity)
    parse_value = staticmethod(
        lambda value: value if isinstance(value, datetime.datetime) else parse_datetime(value)
    )

    @staticmethod
    def parse_literal(node, _variables=None):
        value = _literal_string(node)
        return parse_datetime(value) if value else None


class Date(graphene.Scalar):
    serialize = staticmethod(_identity)
    parse_value = staticmethod(lambda value: value if isinstance(value, datetime.date) else parse_date(value))

    @staticmethod
    def parse_literal(node, _variables=None):
        value = _literal_string(node)
        return parse_date(value) if value else None


class Decimal(graphene.Scalar):
    """Decimals as text with their stored places ("0.95", "10.100000"), as the reference's
    schema (graphene's Decimal) shows them."""

    serialize = staticmethod(str)
    parse_value = staticmethod(lambda value: decimal.Decimal(str(value)))

    @staticmethod
    def parse_literal(node, _variables=None):
        if isinstance(node, ast.IntValueNode | ast.FloatValueNode | ast.StringValueNode):
            return decimal.Decimal(node.value)
        return None


class DecimalNumber(Decimal):
    """Decimals as JSON numbers: REST's form of a decimal field that does not say text (twins)."""

    serialize = staticmethod(_to_float)


class BigInt(graphene.Scalar):
    """Integers beyond GraphQL's 32-bit Int (4-byte ASNs, counters)."""

    serialize = staticmethod(int)
    parse_value = staticmethod(int)

    @staticmethod
    def parse_literal(node, _variables=None):
        return int(node.value) if isinstance(node, ast.IntValueNode) else None


# Django field class -> (GraphQL scalar, converter the compiled plans apply; None = identity)
SCALARS: list[tuple[type, type, object]] = [
    (models.BooleanField, graphene.Boolean, None),
    (models.UUIDField, UUID, None),
    (models.DateTimeField, DateTime, None),
    (models.DateField, Date, None),
    (models.DecimalField, Decimal, str),
    (models.FloatField, graphene.Float, None),
    (models.BigIntegerField, BigInt, None),
    (models.IntegerField, graphene.Int, None),
    (models.JSONField, GenericScalar, None),
    (models.CharField, graphene.String, None),
    (models.TextField, graphene.String, None),
]


def scalar_for(model_field) -> tuple[type, object]:
    for field_class, scalar, converter in SCALARS:
        if isinstance(model_field, field_class):
            return scalar, converter
    return graphene.String, None
