"""Rows that point at any object by (type, id) go when that object is deleted: one hook maker
serves contact associations, object metadata, static group memberships, relationship
associations and image attachments (their files too) alike."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from queryengine.uploads import files_of, remove_on_commit


def forget_with_objects(
    model, *references: tuple[str, str], keep_for: tuple = (), only_for: tuple[str, ...] = ()
) -> Callable:
    """A deletion hook deleting the `model` rows whose (type field, id field) references name a
    deleted object; deletions of `model` itself and of `keep_for` models are not looked at, nor,
    given `only_for` (object types: "dcim.device"), those of any model it does not name."""

    def forget(deleted: dict) -> None:
        query = Q()
        for deleted_model, pks in deleted.items():
            if not pks or deleted_model is model or deleted_model in keep_for:
                continue
            if only_for and deleted_model._meta.label_lower not in only_for:
                continue
            kind = ContentType.objects.get_for_model(deleted_model)
            for type_field, id_field in references:
                query |= Q(**{type_field: kind, f"{id_field}__in": pks})
        if query:
            rows = model._default_manager.filter(query)
            files = files_of(model, rows)  # their stored files (an image's) go with them
            rows.delete()
            remove_on_commit(files)

    forget.__doc__ = f"{model.__name__} rows of deleted objects go with them."
    return forget
