"""How deeply client JSON may nest. Values deeper than a few hundred levels break what handles
them later (the JSON encoder gives up at 255, validation and merges recurse), long after the
request was accepted: they are refused where they enter, with a 400 naming the limit."""

from __future__ import annotations

from django.conf import settings


def too_deep_message() -> str:
    limit = settings.MAX_JSON_DEPTH
    return f"JSON nested more than {limit} levels deep is not accepted (MAX_JSON_DEPTH)."


def too_deep(value) -> bool:
    """Whether `value` nests objects and arrays more than MAX_JSON_DEPTH levels deep; level by
    level, without recursion."""
    limit = settings.MAX_JSON_DEPTH
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        inner = []
        for container in level:
            members = container.values() if isinstance(container, dict) else container
            inner.extend(member for member in members if isinstance(member, dict | list))
        level = inner
    return False


def text_too_deep(text: bytes, value) -> bool:
    """`too_deep` for a value parsed from `text`: a text with no more opening brackets than
    the limit cannot nest deeper, so most request bodies are not walked at all."""
    if text.count(b"{") + text.count(b"[") <= settings.MAX_JSON_DEPTH:
        return False
    return too_deep(value)
