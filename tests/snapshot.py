"""The sample data built once per test session and laid back into each test's database.

Building the sample through the models (validation, saves, derived rows such as cable paths)
takes most of a test's set-up time, and nearly every test uses the same sample. So it is built
once inside a transaction that is rolled back, every row it added, changed or removed is kept,
and each test gets the same rows back with one bulk INSERT per table. What a test reads is the
database itself, as built by the real code; only the way the rows get there is shortcut.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from django.apps import apps
from django.db import models, transaction


def _models() -> list[type[models.Model]]:
    """Every table the service owns, many-to-many tables included."""
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]


def _rows(model: type[models.Model]) -> dict:
    names = [f.attname for f in model._meta.concrete_fields]
    return {row[names.index(model._meta.pk.attname)]: row for row in model._base_manager.values_list(*names)}


@dataclass
class Snapshot:
    added: dict = field(default_factory=dict)  # model -> [row tuples]
    changed: dict = field(default_factory=dict)  # model -> {pk: row tuple}
    removed: dict = field(default_factory=dict)  # model -> [pks]
    order: dict = field(default_factory=dict)  # sample key -> [pks], as the builder listed them

    @classmethod
    def take(cls, build) -> Snapshot:
        """Run `build()` (returning {model: [objects]}) and keep what it did to the database,
        which is left as it was."""
        snapshot = cls()
        with transaction.atomic():
            before = {model: _rows(model) for model in _models()}
            built = build()
            for model, old in before.items():
                new = _rows(model)
                if added := [row for pk, row in new.items() if pk not in old]:
                    snapshot.added[model] = added
                if changed := {pk: row for pk, row in new.items() if pk in old and old[pk] != row}:
                    snapshot.changed[model] = changed
                if removed := [pk for pk in old if pk not in new]:
                    snapshot.removed[model] = removed
            snapshot.order = {key: [obj.pk for obj in objects] for key, objects in built.items()}
            transaction.set_rollback(True)
        return snapshot

    def restore(self) -> Sample:
        """Lay the rows into the current database (deferred foreign keys make the order of
        tables free inside one transaction)."""
        with transaction.atomic():
            for model, pks in self.removed.items():
                model._base_manager.filter(pk__in=pks).delete()
            for model, rows in self.changed.items():
                names = [f.attname for f in model._meta.concrete_fields]
                for pk, row in rows.items():
                    model._base_manager.filter(pk=pk).update(**dict(zip(names, row, strict=True)))
            for model, rows in self.added.items():
                names = [f.attname for f in model._meta.concrete_fields]
                model._base_manager.bulk_create([model(**dict(zip(names, row, strict=True))) for row in rows])
        # Integer keys given explicitly need no sequence reset: building the snapshot already
        # took them from the sequences, and a rollback does not give them back.
        return Sample(self.order)


class Sample(Mapping):
    """The sample by model, as the builder returned it: each list read from the database the
    first time a test asks for it."""

    def __init__(self, order: dict):
        self.order = order
        self.loaded: dict = {}

    def __getitem__(self, model):
        if model not in self.loaded:
            pks = self.order[model]
            found = model._base_manager.in_bulk(pks)
            self.loaded[model] = [found[pk] for pk in pks]
        return self.loaded[model]

    def __iter__(self) -> Iterator:
        return iter(self.order)

    def __len__(self) -> int:
        return len(self.order)
