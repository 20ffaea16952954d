"""Rows that point at any object by (type, id) go when that object is deleted: one hook maker
serves contact associations, object metadata, static group memberships and relationship
associations alike."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q


def forget_with_objects(model, *references: tuple[str, str], keep_for: tuple = ()) -> Callable:
    """A deletion hook deleting the `model` rows whose (type field, id field) references name a
    deleted object; deletions of `model` itself and of `keep_for` models are not looked at."""

    def forget(deleted: dict) -> None:
        query = Q()
        for deleted_model, pks in deleted.items():
            if not pks or deleted_model is model or deleted_model in keep_for:
                continue
            kind = ContentType.objects.get_for_model(deleted_model)
            for type_field, id_field in references:
                query |= Q(**{type_field: kind, f"{id_field}__in": pks})
        if query:
            model._default_manager.filter(query).delete()

    forget.__doc__ = f"{model.__name__} rows of deleted objects go with them."
    return forget
