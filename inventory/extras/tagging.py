"""A tag's `tagged_items`: how many objects of any type carry it, as the reference counts them."""

from __future__ import annotations

from functools import cache

from django.apps import apps
from django.db import connection

from queryengine.registry import Included, Resource

from .models import Tag


@cache
def link_tables() -> tuple[tuple[str, str], ...]:
    """(table, tag column) of every model's tags link table."""
    found = set()
    for model in apps.get_models():
        for field in model._meta.many_to_many:
            if field.related_model is Tag:
                through = field.remote_field.through._meta
                found.add((through.db_table, through.get_field(field.m2m_reverse_field_name()).column))
    return tuple(sorted(found))


def load(resource: Resource, ids: list[str], base: str, depth: int, viewer=None) -> dict:
    """The counts of a page of tags, in one statement over every link table (each read through
    its tag index for the page's tags only)."""
    if not ids:
        return {}
    quote = connection.ops.quote_name
    pk = Tag._meta.pk
    params = [pk.get_db_prep_value(pk.to_python(i), connection) for i in ids]
    page = f"SELECT {quote(pk.column)} FROM {quote(Tag._meta.db_table)} WHERE {quote(pk.column)} IN ({', '.join(['%s'] * len(ids))})"
    links = " UNION ALL ".join(
        f"SELECT {quote(column)} AS tag FROM {quote(table)} WHERE {quote(column)} IN (SELECT id FROM page)"
        for table, column in link_tables()
    )
    counts = dict.fromkeys(ids, 0)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH page(id) AS ({page}) SELECT tag, COUNT(*) FROM ({links}) linked GROUP BY tag", params
        )
        for tag, count in cursor.fetchall():
            counts[str(pk.to_python(tag))] = count
    return counts


TAGGED_ITEMS = Included(
    applies=lambda resource: False,
    load=load,
    empty=lambda: 0,
    schema={"type": "integer", "readOnly": True, "description": "How many objects carry the tag"},
)
