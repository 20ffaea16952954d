"""Slugs: the short, URL-safe names API 1.x shows, filters by and accepts in writes.

A slug is derived from the object's name when none is given, then kept as it is: renaming an
object leaves its slug, so scripts that name it by slug keep working. Slugs are unique per model
(a unique index serves `?site=<slug>` filters and slug lookups in writes); a derived slug that is
taken gets the first free `-2`, `-3`, ... suffix.
"""

from __future__ import annotations

import re
from collections import Counter

from django.db import models
from django.utils.text import slugify

MAX_LENGTH = 100
SUFFIX = re.compile(r"-(\d+)$")


def slug_base(text) -> str:
    """The slug a name gives before any suffix ("AMS1 floor 1" -> "ams1-floor-1")."""
    return (slugify(str(text or "")) or "object")[:MAX_LENGTH].strip("-") or "object"


def with_suffix(base: str, number: int) -> str:
    tail = f"-{number}"
    return base[: MAX_LENGTH - len(tail)] + tail


def unique_slugs(model, instances, optimistic: bool = False) -> None:
    """Give each of `instances` whose slug was derived (not given) a slug no other object holds,
    stored or in the same write: one query for the plain slugs, one more only when some clash.
    `optimistic` (a write's first attempt): distinct plain slugs are left to the unique index,
    with no query; a stored clash fails the attempt and the write runs again, checked."""
    derived = [i for i in instances if getattr(i, "_slug_derived", False) and i.slug]
    if not derived:
        return
    own = [i.pk for i in instances if i.pk is not None]
    fixed = {i.slug for i in instances if i.slug and not getattr(i, "_slug_derived", False)}
    for instance in derived:  # settled here: a later check of the same write has nothing to do
        instance._slug_derived = False
    plain = [i.slug for i in derived]
    if optimistic and len(set(plain)) == len(plain) and not fixed.intersection(plain):
        return
    manager = model._base_manager  # every row of the table (a proxy's manager shows some)
    wanted = Counter(i.slug for i in derived)
    taken = set(manager.filter(slug__in=list(wanted)).exclude(pk__in=own).values_list("slug", flat=True))
    clashing = {s for s, times in wanted.items() if s in taken or s in fixed or times > 1}
    if not clashing:
        return
    prefixes = models.Q()
    for base in clashing:
        prefixes |= models.Q(slug__startswith=f"{base[: MAX_LENGTH - 2]}-")
    taken |= set(manager.filter(prefixes).exclude(pk__in=own).values_list("slug", flat=True))
    taken |= fixed
    for instance in derived:
        if instance.slug not in clashing:
            taken.add(instance.slug)
            continue
        base, number = instance.slug, 2
        if base not in taken:  # the first of several in this write keeps the plain slug
            taken.add(base)
            continue
        while with_suffix(base, number) in taken:
            number += 1
        instance.slug = with_suffix(base, number)
        taken.add(instance.slug)


class SlugManager(models.Manager):
    """Objects created in bulk with the ORM (seeding, data loads) get their slugs too."""

    def bulk_create(self, objs, *args, **kwargs):
        objs = list(objs)
        for obj in objs:
            obj.derive_slug()
        unique_slugs(self.model, objs)
        return super().bulk_create(objs, *args, **kwargs)


class SlugModel(models.Model):
    """An object with a slug (API 1.x), derived from `slug_source` when not given."""

    slug_source = "name"
    slug = models.SlugField(max_length=MAX_LENGTH, unique=True, blank=True)
    objects = SlugManager()

    class Meta:
        abstract = True

    def derive_slug(self) -> None:
        if not self.slug:
            self.slug = slug_base(getattr(self, self.slug_source))
            self._slug_derived = True

    def clean(self):
        super().clean()
        self.derive_slug()

    @classmethod
    def prepare_batch(cls, instances, optimistic: bool = False) -> None:
        """Called by the engine once per write, after every object's clean and before unique
        values are checked: derived slugs are made unique together."""
        unique_slugs(cls, instances, optimistic)

    def save(self, *args, **kwargs):
        if not self.slug:  # saved without the engine's clean (the admin, a job, a shell)
            self.derive_slug()
            unique_slugs(type(self), [self])
        super().save(*args, **kwargs)

    def prepare_for_bulk(self):
        super().prepare_for_bulk()
        self.derive_slug()


def migration_operations(app_label: str, sources: dict[str, str]) -> list:
    """Migration steps that give existing models a slug ({model name: field it derives from}):
    the column without its unique index, the stored rows' slugs (derived as a new object's,
    unique), then the index."""
    from django.db import migrations

    def fill(apps, schema_editor):
        for model_name, source in sources.items():
            model = apps.get_model(app_label, model_name)
            taken: set[str] = set()
            rows = list(model._default_manager.order_by("pk"))
            for obj in rows:
                base, number = slug_base(getattr(obj, source)), 2
                obj.slug = base
                while obj.slug in taken:
                    obj.slug, number = with_suffix(base, number), number + 1
                taken.add(obj.slug)
            model._default_manager.bulk_update(rows, ["slug"], batch_size=500)

    column = models.SlugField(max_length=MAX_LENGTH, blank=True, default="", db_index=False)
    indexed = models.SlugField(max_length=MAX_LENGTH, blank=True, unique=True)
    return [
        *(migrations.AddField(model_name=name, name="slug", field=column) for name in sources),
        migrations.RunPython(fill, migrations.RunPython.noop),
        *(migrations.AlterField(model_name=name, name="slug", field=indexed) for name in sources),
    ]
