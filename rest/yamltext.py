"""A YAML writer for JSON-shaped data (dicts, lists, strings, numbers, booleans, null), far faster
than a general YAML emitter on a large document. Strings are written as JSON strings, which YAML
reads as double-quoted scalars, so no value changes type on the way."""

from __future__ import annotations

import re

import orjson

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})


def _key(key: str) -> str:
    if _PLAIN_KEY.fullmatch(key) and key.lower() not in _RESERVED:
        return key
    return orjson.dumps(key).decode()


def _scalar(value) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return orjson.dumps(value).decode()


def dump(data) -> str:
    lines: list[str] = []
    _write(data, "", lines)
    return "\n".join(lines) + "\n"


def _write(data, indent: str, lines: list[str]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            head = f"{indent}{_key(key)}:"
            if isinstance(value, dict | list) and value:
                lines.append(head)
                _write(value, indent + "  ", lines)
            else:
                lines.append(f"{head} {_empty_or_scalar(value)}")
    else:
        for item in data:
            if isinstance(item, dict | list) and item:
                # The first line of a nested block goes after the dash, the rest under it.
                nested: list[str] = []
                _write(item, indent + "  ", nested)
                lines.append(f"{indent}- {nested[0][len(indent) + 2 :]}")
                lines.extend(nested[1:])
            else:
                lines.append(f"{indent}- {_empty_or_scalar(item)}")


def _empty_or_scalar(value) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)
