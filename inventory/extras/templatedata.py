"""What user-written templates see of the inventory: data, read as the user they render for.

An object is a `TemplateObject`: the fields the API shows of it (never a secret shown once,
such as a token's key, nor a hidden one, such as a password), its label (`display`), custom
field data (`cf`), related objects and lists of related objects. A list is `TemplateRows`: its
objects, narrowed with the API's own filters (`filter(status="Active")`) and sort fields, and
counted. Nothing else of the ORM is reachable: no model, manager, queryset or method that
writes.

Every related object and list is read through the permissions of the rendering user, exactly
as the API reads it: an object they may not view is None, lists leave such objects out. Related
objects are read for a whole group of objects at once (a page, a chunk of an export, the
objects one such read returned), so a template that follows `obj.location.parent.name` over a
thousand objects costs a query per relation, not per object.
"""

from __future__ import annotations

from functools import cache

from django.contrib.contenttypes.models import ContentType
from django.db.models import Prefetch, prefetch_related_objects

from queryengine import query
from queryengine.filters import FilterError
from queryengine.permissions import Everyone
from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    MANY_TO_MANY,
    REVERSE,
    SCALAR,
    Computed,
    Resource,
    resource_for,
)

CHUNK = 1000  # objects of a list read (and their relations loaded) together


class TemplateView:
    """A value templates read through the template environment, never as a Python object:
    attributes and items come from `template_attribute` and `template_item`, and only
    `template_methods` may be called."""

    __slots__ = ()
    template_methods: frozenset[str] = frozenset()

    def template_attribute(self, name: str, environment):
        raise NotImplementedError

    def template_item(self, argument, environment):
        if isinstance(argument, str):
            return self.template_attribute(argument, environment)
        return environment.undefined(obj=self, name=argument)


class Group:
    """Objects read together: a relation is loaded for all of them when one asks."""

    __slots__ = ("members",)

    def __init__(self, members: list):
        self.members = members


class Scope:
    """One rendering's reader and what has been read for it."""

    def __init__(self, user=None):
        self.user = user if user is not None else Everyone()
        self.objects: dict[tuple, TemplateObject | None] = {}
        self.lists: dict[tuple, list] = {}

    def readable(self, resource: Resource, queryset=None):
        return query.restricted(resource, self.user, queryset)

    def views(self, resource: Resource, instances: list) -> list[TemplateObject]:
        group = Group(instances)
        return [TemplateObject(instance, resource, self, group) for instance in instances]

    def rows(self, resource: Resource, queryset=None) -> TemplateRows:
        """The objects of `queryset` (every object of the resource) the reader may view."""
        return TemplateRows(self, resource, self.readable(resource, queryset))

    def related(self, view: TemplateObject, field) -> TemplateObject | None:
        pk = getattr(view._instance, field.attname)
        if pk is None:
            return None
        target = resource_for(field.related_model)
        key = (target.model, pk)
        if key not in self.objects:
            wanted = {getattr(m, field.attname) for m in view._group.members} | {pk}
            self._load(target, {p for p in wanted if p is not None and (target.model, p) not in self.objects})
        return self.objects[key]

    def generic(self, view: TemplateObject, type_field: str, id_field: str) -> TemplateObject | None:
        instance = view._instance
        type_id, pk = getattr(instance, f"{type_field}_id"), getattr(instance, id_field)
        if type_id is None or pk is None:
            return None
        target = resource_for(ContentType.objects.get_for_id(type_id).model_class())
        if target is None:
            return None
        if (target.model, pk) not in self.objects:
            self._load(target, {pk})
        return self.objects[(target.model, pk)]

    def _load(self, target: Resource, pks: set) -> None:
        found = list(self.readable(target).filter(pk__in=pks))
        for view in self.views(target, found):
            self.objects[(target.model, view._instance.pk)] = view
        for pk in pks:
            self.objects.setdefault((target.model, pk), None)

    def many(self, view: TemplateObject, relation: Relation) -> list[TemplateObject]:
        """The related objects of a to-many relation, loaded for the object's whole group."""
        key = (relation, view._instance.pk)
        if key not in self.lists:
            members = [m for m in view._group.members if (relation, m.pk) not in self.lists]
            target = relation.target
            if relation.accessor is not None:
                prefetch_related_objects(
                    members, Prefetch(relation.accessor, self.readable(target), to_attr=relation.cache_name)
                )
                found = {m.pk: getattr(m, relation.cache_name) for m in members}
            else:  # a reverse foreign key without an accessor: its rows by the key's column
                found = {m.pk: [] for m in members}
                column = relation.field.attname
                rows = self.readable(target).filter(**{f"{relation.field.name}__in": list(found)})
                for row in rows:
                    found[getattr(row, column)].append(row)
            group = Group([row for rows in found.values() for row in rows])
            for pk, rows in found.items():
                self.lists[(relation, pk)] = [TemplateObject(row, target, self, group) for row in rows]
        return self.lists[key]


class Relation:
    """A to-many relation of a model: through Django's accessor where it has one, else by the
    reverse foreign key's column."""

    def __init__(self, name: str, target: Resource, accessor: str | None, field=None):
        self.name, self.target, self.accessor, self.field = name, target, accessor, field
        self.cache_name = f"_template_{name}"

    def queryset(self, instance):
        if self.accessor is not None:
            return getattr(instance, self.accessor).all()
        return self.target.model._default_manager.filter(**{self.field.name: instance.pk})


def stored_name(value) -> str | None:
    return getattr(value, "name", value) or None


# Kinds of a template attribute.
PK, DISPLAY, OBJECT_TYPE, COLUMN, CUSTOM, CALCULATED, RELATED, ONE, MANY, ANY = range(10)


@cache
def attributes(resource: Resource) -> dict[str, tuple]:
    """What a template may read of the resource's objects: name -> (kind, detail)."""
    table: dict[str, tuple] = {
        "id": (PK, None),
        "pk": (PK, None),
        "display": (DISPLAY, None),
        "object_type": (OBJECT_TYPE, None),
    }
    for name in resource.timestamps:
        table[name] = (COLUMN, name)
    if resource.has_custom_fields:
        for name in ("cf", "custom_fields", "custom_field_data"):
            table[name] = (CUSTOM, None)
    for spec in resource.current_fields:
        if spec.name in resource.shown_once:
            continue
        if spec.kind == SCALAR:
            table[spec.name] = (COLUMN, spec.model_field.attname)
        elif spec.kind == COMPUTED:
            table[spec.name] = (CALCULATED, spec.computed)
        elif spec.kind == FILE:  # the stored file's name (text), never the file itself
            table[spec.name] = (CALCULATED, Computed((spec.model_field.attname,), stored_name))
        elif spec.kind in (FOREIGN_KEY, CONTENT_TYPE) and resource_for(spec.target) is not None:
            if spec.model_field.concrete:
                table[spec.name] = (RELATED, spec.model_field)
            else:  # the other side of a one-to-one field (a device's parent bay)
                table[spec.name] = (ONE, (resource_for(spec.target), spec.model_field.field.name))
        elif spec.kind in (MANY_TO_MANY, CONTENT_TYPES) and resource_for(spec.target) is not None:
            table[spec.name] = (MANY, Relation(spec.name, resource_for(spec.target), spec.name))
        elif spec.kind == REVERSE and resource_for(spec.target) is not None:
            table[spec.name] = (MANY, Relation(spec.name, resource_for(spec.target), None, spec.model_field))
        elif spec.kind == GENERIC:
            table[spec.name] = (ANY, spec.columns)
    # Lists of the objects that refer to these (a device's interfaces), as Nautobot's templates
    # read them: `device.interfaces.all()`.
    for relation in resource.model._meta.related_objects:
        target = resource_for(relation.related_model)
        if relation.hidden or target is None or relation.get_accessor_name() in table:
            continue
        name = relation.get_accessor_name()
        if relation.one_to_one:
            table[name] = (ONE, (target, relation.field.name))
        elif relation.many_to_many:
            table[name] = (MANY, Relation(name, target, name))
        else:
            table[name] = (MANY, Relation(name, target, None, relation.field))
    return table


class TemplateObject(TemplateView):
    __slots__ = ("_instance", "_resource", "_scope", "_group")

    def __init__(self, instance, resource: Resource, scope: Scope, group: Group):
        self._instance, self._resource, self._scope, self._group = instance, resource, scope, group

    def template_attribute(self, name: str, environment):
        entry = attributes(self._resource).get(name)
        if entry is None:
            hint = f"{self._resource.verbose_name} has no field {name!r}."
            return environment.undefined(hint, obj=self, name=name)
        kind, detail = entry
        instance = self._instance
        if kind == COLUMN:
            return getattr(instance, detail)
        if kind == RELATED:
            return self._scope.related(self, detail)
        if kind == MANY:
            return TemplateRows(
                self._scope,
                detail.target,
                self._scope.readable(detail.target, detail.queryset(instance)),
                lambda: self._scope.many(self, detail),
            )
        if kind == PK:
            return instance.pk
        if kind == DISPLAY:
            return str(self)
        if kind == OBJECT_TYPE:
            return self._resource.object_type
        if kind == CUSTOM:
            return dict(instance._custom_field_data or {})
        if kind == CALCULATED:
            return detail.render(*(_value_at(instance, column) for column in detail.columns))
        if kind == ONE:
            target, field_name = detail
            return self._scope.rows(
                target, target.model._default_manager.filter(**{field_name: instance.pk})
            ).first()
        return self._scope.generic(self, *detail)

    def __str__(self) -> str:
        from queryengine.schema import display_value  # the schema is built once apps are ready

        return display_value(self._resource, self._instance) or ""

    def __repr__(self) -> str:
        return f"<{self._resource.verbose_name} {self}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, TemplateObject) and (self._resource, self._instance.pk) == (
            other._resource,
            other._instance.pk,
        )

    def __hash__(self) -> int:
        return hash((self._resource.object_type, self._instance.pk))


class TemplateRows(TemplateView):
    """Objects of one resource the reader may view: an export's list, a relation's objects."""

    __slots__ = ("_scope", "_resource", "_queryset", "_loaded")
    template_methods = frozenset({"all", "filter", "exclude", "order_by", "count", "exists", "first", "last"})

    def __init__(self, scope: Scope, resource: Resource, queryset, loaded=None):
        # `loaded`: the same objects read for a whole group at once (a relation), used as they are
        self._scope, self._resource, self._queryset, self._loaded = scope, resource, queryset, loaded

    def template_attribute(self, name: str, environment):
        if name in self.template_methods:
            return getattr(self, name)
        hint = (
            f"A list of {self._resource.model._meta.verbose_name_plural} has no {name!r}; "
            f"it offers {', '.join(sorted(self.template_methods))}."
        )
        return environment.undefined(hint, obj=self, name=name)

    def template_item(self, argument, environment):
        if isinstance(argument, int) and not isinstance(argument, bool):
            if self._loaded is None and argument >= 0:
                found = self._scope.views(self._resource, list(self._queryset[argument : argument + 1]))
            else:
                found = self.__list()[argument:][:1]
            return found[0] if found else environment.undefined(obj=self, name=argument)
        if isinstance(argument, slice):
            return self.__list()[argument]
        return super().template_item(argument, environment)

    def __list(self) -> list:
        return list(self)

    def __iter__(self):
        if self._loaded is not None:
            yield from self._loaded()
            return
        chunk = []
        for instance in self._queryset.iterator(chunk_size=CHUNK):
            chunk.append(instance)
            if len(chunk) == CHUNK:
                yield from self._scope.views(self._resource, chunk)
                chunk = []
        yield from self._scope.views(self._resource, chunk)

    def __reversed__(self):
        return reversed(self.__list())

    def __len__(self) -> int:
        return len(self._loaded()) if self._loaded is not None else self._queryset.count()

    def __bool__(self) -> bool:
        return bool(self._loaded()) if self._loaded is not None else self._queryset.exists()

    def __str__(self) -> str:
        return f"{self._resource.model._meta.verbose_name_plural} ({len(self)})"

    def all(self) -> TemplateRows:
        return self

    def count(self) -> int:
        return len(self)

    def exists(self) -> bool:
        return bool(self)

    def first(self) -> TemplateObject | None:
        if self._loaded is not None:
            rows = self._loaded()
            return rows[0] if rows else None
        return self._one(self._queryset.first())

    def last(self) -> TemplateObject | None:
        if self._loaded is not None:
            rows = self._loaded()
            return rows[-1] if rows else None
        return self._one(self._queryset.last())

    def _one(self, instance) -> TemplateObject | None:
        return None if instance is None else self._scope.views(self._resource, [instance])[0]

    def filter(self, **filters) -> TemplateRows:
        """The objects matching the API's filters of the resource (`status="Active"`,
        `name__ic="leaf"`), values as the API takes them."""
        return self._with(self._queryset.filter(pk__in=self._matching(filters)))

    def exclude(self, **filters) -> TemplateRows:
        return self._with(self._queryset.exclude(pk__in=self._matching(filters)))

    def order_by(self, *fields: str) -> TemplateRows:
        """Sorted by the API's sort fields (`-name` descending)."""
        try:
            ordering = query.ordering(self._resource, [str(f) for f in fields])
        except FilterError as exc:
            raise ValueError(_filter_message(exc)) from None
        return self._with(self._queryset.order_by(*ordering))

    def _with(self, queryset) -> TemplateRows:
        return TemplateRows(self._scope, self._resource, queryset)

    def _matching(self, filters: dict):
        arguments = {name: _filter_values(value) for name, value in filters.items()}
        try:
            return query.filtered(self._resource, self._scope.user, arguments).values("pk")
        except FilterError as exc:
            raise ValueError(_filter_message(exc)) from None


def _value_at(instance, path: str):
    for part in path.split("__"):
        instance = None if instance is None else getattr(instance, part)
    return instance


def _filter_values(value) -> list[str]:
    values = value if isinstance(value, (list, tuple)) else [value]
    return [_filter_text(v) for v in values]


def _filter_text(value) -> str:
    if isinstance(value, TemplateObject):
        return str(value._instance.pk)
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _filter_message(exc: FilterError) -> str:
    return "; ".join(f"{name}: {' '.join(map(str, messages))}" for name, messages in exc.errors.items())
