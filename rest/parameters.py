"""Query parameters of the paths that are not a model's list: which each takes (declared once,
checked before it runs, listed by the OpenAPI document) and their values read by their schema."""

from __future__ import annotations

from django.conf import settings

from queryengine.filters import FilterError, parse_bool, unknown_filters

# The query parameters every path below an object (`<object>/trace/`, `<result>/logs/`) and the
# server's own paths (`status/`, `users/config/`) take, as every action of the reference takes
# them: how the objects an answer holds are shown. Names of rest.openapi's shared parameters.
ACTION_SHAPE = ("depth", "exclude_m2m")
PAGING = ("limit", "offset")
# `sort` where the reference's document lists it and its answer keeps its own order.
UNORDERED_SORT = ("sort", {"type": "string"}, "taken as the reference takes it; the answer keeps its order")
# `limit` and `offset` where the reference's document lists them and its answer is every item.
UNPAGED = tuple(
    (name, {"type": "integer"}, "taken as the reference takes it; every item is listed")
    for name in ("limit", "offset")
)


def parameter_names(parameters) -> tuple[str, ...]:
    return tuple(p if isinstance(p, str) else p[0] for p in parameters)


def check_parameters(request, parameters) -> dict:
    """The values of the declared parameters given, each read by its JSON schema (a boolean, an
    integer, one of an enum); 400 for a parameter the endpoint does not take (strict input), a
    value its schema refuses."""
    known = parameter_names(parameters)
    unknown = [key for key in request.GET if key not in known and key not in ("format", "api_version")]
    if unknown and settings.STRICT_FILTERING:
        raise FilterError(unknown_filters(unknown, known))
    values, errors = {}, {}
    for name, schema, _ in (p for p in parameters if not isinstance(p, str)):
        if name in request.GET:
            try:
                values[name] = parameter_value(request.GET[name], schema)
            except ValueError as exc:
                errors[name] = [str(exc)]
    if errors:
        raise FilterError(errors)
    return values


def parameter_value(text: str, schema: dict):
    """A query parameter's value as its JSON schema says (ValueError with the reference's words)."""
    kind = schema.get("type")
    if kind == "boolean":
        try:
            value = parse_bool(text)
        except ValueError:
            raise ValueError("Must be a valid boolean.") from None
    elif kind == "integer":
        try:
            value = int(text)
        except ValueError:
            raise ValueError("A valid integer is required.") from None
    else:
        value = text
    if "enum" in schema and value not in schema["enum"]:
        raise ValueError(f'"{text}" is not a valid choice.')
    return value
