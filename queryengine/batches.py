"""Bulk create and update of a whole batch at once: related objects resolved per batch, Python
rules (clean methods) run per object in memory, unique values and constraints checked with one
query per constraint, then batched INSERT/UPDATE statements and many-to-many rows.

The statements a batch costs do not grow with its size. Models whose writes need per-object
saves keep the per-object path of `Writer` (see `batchable`)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from functools import cache

from django.core.exceptions import FieldDoesNotExist, FieldError, ValidationError
from django.db import connections, models, router
from django.db.models import Q, UniqueConstraint, prefetch_related_objects, signals

from .errors import ValidationFailed
from .naming import attributes_of, nameable, pk_named, plain_path, visible_crossings
from .prepared import Untyped, compile_query, stored_columns, update_later
from .registry import CONTENT_TYPES, FOREIGN_KEY, MANY_TO_MANY, object_rules

NON_FIELD = "non_field_errors"


def constraint_key(key: str, message: str) -> str:
    """Where a constraint's error is reported: a unique set ("The fields a, b must make a unique
    set.") is the serializer's check at the reference, under `non_field_errors`; any other rule
    over the whole object (a name taken on a device) is its model's, under Django's `__all__`."""
    if key != "__all__":
        return key
    return NON_FIELD if "must make a unique set" in message else key


def has_plain_save(model: type[models.Model]) -> bool:
    """Model.save, or a save that only derives what `prepare_for_bulk` derives in memory (and,
    for new rows, does what `created_in_bulk` does for a whole batch once its rows exist)."""
    for klass in model.__mro__:
        if klass is models.Model:
            return True
        if "save" in vars(klass) and "prepare_for_bulk" not in vars(klass):
            return False
    return True


def prepare_batch(model: type[models.Model], instances: list, optimistic: bool = False) -> None:
    """A model's `prepare_batch(instances, optimistic)`, when it has one: values that depend on
    the write's other objects and the stored ones (unique derived slugs), set once every object
    is cleaned and before unique values are checked. `optimistic`: the write's first attempt,
    where stored values may be left to the unique indexes (check_constraints)."""
    prepare = getattr(model, "prepare_batch", None)
    if prepare is not None:
        prepare(instances, optimistic)


def check_rules(model: type[models.Model], instances: list, errors: list[dict]) -> None:
    """The rules users keep for a model's objects (data validation), over a batch of cleaned
    objects at once: each object's errors (beside it in `errors`) gain what they refuse. A whole
    batch costs a constant number of statements; a single object's full_clean runs them too
    (inventory.base), so no write validates an object without them."""
    for check in object_rules():
        check(model, instances, errors)


def batchable(writer, items: list) -> bool:
    """Whether a batch may be written in bulk. It may not (and is written object by object, as
    before) when the model asks for per-object writes (`per_object_writes`: a clean method
    that checks the database for conflicts no constraint states), when saving does more than
    storing the row and deriving what `prepare_for_bulk` and `created_in_bulk` do (cable path
    tracing, cable terminations), when signal receivers listen to its saves (custom field
    definitions), with multi-table inheritance, or when an item names an object that may be
    created earlier in the same batch: one of the same model (a tree's parent, a LAG), or one
    named by attributes of a model whose objects the batch's creation makes (`made_on_create`:
    a module bay of a module created in the same batch)."""
    model = writer.resource.model
    if getattr(model, "per_object_writes", False) or model._meta.parents or not has_plain_save(model):
        return False
    if signals.pre_save.has_listeners(model) or signals.post_save.has_listeners(model):
        return False
    if any(not isinstance(data, dict) for data in items):
        return False
    keys = [f for f in writer.fields if f.kind == FOREIGN_KEY]
    own = [f.name for f in keys if issubclass(model, f.target)]
    if any(data.get(name) is not None for data in items for name in own):
        return False
    made = tuple(model.made_on_create()) if hasattr(model, "made_on_create") else ()
    later = [f.name for f in keys if made and issubclass(f.target, made)]
    return not any(data.get(name) is not None and not is_uuid(data[name]) for data in items for name in later)


def is_uuid(value) -> bool:
    if isinstance(value, uuid.UUID):
        return True
    try:
        return isinstance(value, str) and bool(uuid.UUID(value))
    except ValueError:
        return False


class RelatedLookups:
    """Related objects a batch names, by UUID, natural key or attributes: one query per field
    and set of attributes for the whole batch (two where attributes cross relations). A form
    these cannot express (a lookup, a many-valued relation) is resolved per item."""

    def __init__(self, writer, items: list):
        self.found: dict = {}
        wanted: dict = defaultdict(set)
        fields = [f for f in writer.fields if f.kind in (FOREIGN_KEY, MANY_TO_MANY)]
        for data in items:
            for field in fields:
                value = data.get(field.name)
                values = value if field.kind == MANY_TO_MANY and isinstance(value, list) else [value]
                for v in values:
                    key = self.key(field.target, v)
                    if key is not None:
                        wanted[(field, tuple(path for path, _ in key[0]))].add(key[0])
        for (field, paths), keys in wanted.items():
            queryset = nameable(field.target, writer.resource, field.name, writer.user)
            # The relations the paths cross, narrowed to what the writer may view.
            queryset = queryset.filter(**visible_crossings(field.target, dict.fromkeys(paths), writer.user))
            prefetch = getattr(field.target, "validation_prefetch", ())
            try:
                matches = self.fetch(queryset, paths, keys, prefetch)
            except (ValidationError, ValueError, TypeError, FieldError):
                continue  # a value the database refuses: each item reports its own error
            for key in keys:
                self.found[(field.name, key)] = matches.get(key, [])

    @staticmethod
    def fetch(queryset, paths: tuple, keys: set, prefetch) -> dict:
        """{key: objects} for keys of ((path, value), ...) over the same paths."""
        matches = defaultdict(list)
        if len(paths) == 1 and "__" not in paths[0]:
            rows = queryset.filter(**{f"{paths[0]}__in": {key[0][1] for key in keys}})
            for obj in rows.prefetch_related(*prefetch):
                matches[((paths[0], getattr(obj, paths[0])),)].append(obj)
            return matches
        condition = Q()
        for key in keys:
            condition |= Q(**dict(key))
        owners = defaultdict(list)
        for pk, *values in queryset.filter(condition).values_list("pk", *paths):
            owners[tuple(zip(paths, values, strict=True))].append(pk)
        everything = {pk for pks in owners.values() for pk in pks}
        objects = queryset.model._default_manager.filter(pk__in=everything).prefetch_related(*prefetch)
        by_pk = {obj.pk: obj for obj in objects}
        for key, pks in owners.items():
            matches[key] = [by_pk[pk] for pk in dict.fromkeys(pks)]
        return matches

    @staticmethod
    def key(target, value):
        """(((path, value as stored), ...) sorted, the attributes an error message shows), or
        None for a form resolved per item."""
        if not isinstance(value, dict) and (pk := pk_named(target, value)) is not None:
            return (("pk", pk),), {"pk": pk}  # the form nearly every write uses, at once
        try:
            attrs = attributes_of(target, value)
        except ValueError:
            return None
        key = []
        for path, given in attrs.items():
            field = plain_path(target, path)
            if field is None or isinstance(given, dict | list):
                return None
            try:
                key.append((path, field.to_python(given)))
            except ValidationError:
                return None
        return tuple(sorted(key)), attrs

    def get(self, field, value):
        """(the attributes an error message shows, the objects the value names), or None when
        the batch did not look it up."""
        key = self.key(field.target, value)
        if key is None or (field.name, key[0]) not in self.found:
            return None
        return key[1], self.found[(field.name, key[0])]


class Batch:
    """One bulk create or update through `writer` (the caller holds the transaction)."""

    def __init__(self, writer):
        self.writer = writer
        self.model = writer.resource.model
        # One-to-one fields too (a module's bay): read per batch, not checked per object.
        self.foreign_keys = [
            f for f in self.model._meta.concrete_fields if f.is_relation and (f.many_to_one or f.one_to_one)
        ]

    def create(self, items: list) -> list[models.Model]:
        writer = self.writer
        writer.lookups = RelatedLookups(writer, items)
        instances, manys, errors = [], [], []
        for data in items:
            instance = self.model()
            if data.get("id") and not writer.resource.integer_pk:  # Django assigns integer ids
                try:
                    instance.pk = uuid.UUID(str(data["id"]))
                    instance.pk_supplied = True  # a generated id needs no check against the table
                except ValueError:
                    errors.append({"id": ["Must be a valid UUID."]})
                    instances.append(None)
                    manys.append({})
                    continue
            writer.set_owner(instance)
            many, item_errors = writer.apply(instance, data, partial=False)
            instances.append(instance)
            manys.append(many)
            errors.append(item_errors)
        self.clean_all(instances, errors, manys)
        prepare_batch(self.model, [i for i in instances if i is not None], self.optimistic(errors))
        self.check_constraints(instances, errors)
        if any(errors):
            raise ValidationFailed(errors)
        for instance in instances:
            self.prepare(instance)
        self.model._default_manager.bulk_create(instances)
        created_in_bulk = getattr(self.model, "created_in_bulk", None)
        if created_in_bulk is not None:
            created_in_bulk(instances)
        self.write_many(instances, manys, adding=True)
        failed = included_errors(writer, instances, items, adding=True)
        if failed:  # every item's place in the list, as validation errors are reported
            raise ValidationFailed([failed.get(i, {}) for i in range(len(items))])
        return instances

    def update(self, items: list, found: dict, partial: bool) -> list[models.Model]:
        writer = self.writer
        writer.lookups = RelatedLookups(writer, items)
        instances = [found[str(writer.resource.parse_pk(str(data["id"])))] for data in items]
        self.preload(instances, items)
        stored = [
            {f.attname: getattr(i, f.attname) for f in self.model._meta.concrete_fields} for i in instances
        ]
        for instance, values in zip(instances, stored, strict=True):
            instance.stored_values = values  # what clean methods compare with (no query per object)
        manys, errors = [], []
        for instance, data in zip(instances, items, strict=True):
            many, item_errors = writer.apply(instance, data, partial=partial)
            manys.append(many)
            errors.append(item_errors)
        self.clean_all(instances, errors, manys)
        prepare_batch(self.model, instances, self.optimistic(errors))
        self.check_constraints(instances, errors)
        failed = [e for e in errors if e]
        if failed:  # the first failing object's errors, as the reference answers a bulk update
            raise ValidationFailed(failed[0])
        changed = set()
        for instance, values in zip(instances, stored, strict=True):
            self.prepare(instance)
            changed |= {name for name, value in values.items() if getattr(instance, name) != value}
        for field in self.model._meta.concrete_fields:
            if getattr(field, "auto_now", False):
                for instance in instances:
                    field.pre_save(instance, add=False)
                changed.add(field.attname)
        changed.discard(self.model._meta.pk.attname)
        if changed:
            fields = [f for f in self.model._meta.concrete_fields if f.attname in changed]
            update_rows(self.model, instances, fields)
        self.write_many(instances, manys, adding=False)
        failed = included_errors(writer, instances, items, adding=False)
        if failed:  # the first failing object's, as validation errors of an update are reported
            raise ValidationFailed(failed[min(failed)])
        return instances

    def preload(self, instances: list, items: list) -> None:
        """Related objects and many-to-many values of the stored objects, one query per field,
        so clean methods read them from memory."""
        lookups = []
        for field in self.foreign_keys:
            if any(getattr(i, field.attname) is not None for i in instances):
                lookups.append(field.name)
                lookups += [
                    f"{field.name}__{p}" for p in getattr(field.related_model, "validation_prefetch", ())
                ]
        named = {name for data in items for name in data}
        lookups += [
            f.name for f in self.writer.fields if f.kind in (MANY_TO_MANY, CONTENT_TYPES) and f.name in named
        ]
        lookups += getattr(self.model, "validation_prefetch", ())
        prefetch_related_objects(instances, *dict.fromkeys(lookups))

    @staticmethod
    def prepare(instance) -> None:
        prepare = getattr(instance, "prepare_for_bulk", None)
        if prepare is not None:
            prepare()

    def clean_all(self, instances: list, errors: list[dict], manys: list[dict]) -> None:
        """Every object's rules, in input order. A model that checks the database in clean()
        loads what those checks read for the whole batch first (`prepare_batch_clean`); it
        also sees the batch's earlier objects, as saving them one by one would."""
        prepare = getattr(self.model, "prepare_batch_clean", None)
        if prepare is not None:
            prepare([i for i in instances if i is not None])
        for instance, item_errors, many in zip(instances, errors, manys, strict=True):
            if instance is not None:
                self.clean(instance, item_errors, many)
        check_rules(self.model, instances, errors)

    def clean(self, instance, errors: dict, many: dict) -> None:
        """The model's field and Python rules, in memory: foreign keys were just read from the
        database (or were stored there), so their existence is not checked again per object."""
        keys = {f.name for f in self.foreign_keys}
        found: dict = {}
        try:
            instance.clean_fields(exclude=set(errors) | keys)
        except ValidationError as exc:
            found = exc.update_error_dict(found)
        for field in self.foreign_keys:
            value = getattr(instance, field.attname)
            if field.name in errors or field.name in found or not field.editable:
                continue
            if value is None and not field.null:
                found[field.name] = [field.error_messages["null"]]
            elif value is None and not field.blank:
                found[field.name] = [field.error_messages["blank"]]
        try:
            instance.clean()
        except ValidationError as exc:
            found = exc.update_error_dict(found)
        try:
            if not found and not errors and hasattr(instance, "clean_related"):
                instance.clean_related(many)
        except ValidationError as exc:
            found = exc.update_error_dict(found)
        if found:
            shaped = getattr(instance, "api_errors", None)
            if shaped:
                errors.update(shaped)
                return
            # The model's own rules keep Django's `__all__`, as the reference reports them.
            for key, messages in ValidationError(found).message_dict.items():
                errors.setdefault(key, []).extend(messages)

    def optimistic(self, errors: list[dict]) -> bool:
        return self.writer.optimistic and self.model._meta.managed and not any(errors)

    def check_constraints(self, instances: list, errors: list[dict]) -> None:
        """Unique fields and unique constraints over plain fields: one query per constraint for
        the whole batch, and duplicates within the batch; other constraints per object.

        On a write's first attempt, when nothing else is wrong, the unique checks are left to
        the database's unique indexes: a clash raises IntegrityError, and the engine runs the
        write again (engine.run), with these checks, which then name the item and field."""
        live = [(i, e) for i, e in zip(instances, errors, strict=True) if i is not None]
        plain, other = constraints_of(self.model)
        optimistic = self.optimistic(errors)
        if not optimistic:
            self.check_unique_values(plain, live)
        for model_class, constraint in other:
            for instance, item_errors in live:
                self.check_one(model_class, constraint, instance, item_errors)
        if optimistic and any(errors):
            self.check_unique_values(plain, live)

    def check_unique_values(self, plain: list, live: list) -> None:
        for field in self.model._meta.concrete_fields:
            if field.unique:
                self.check_unique(field, live)
        for model_class, constraint in plain:
            self.check_plain(model_class, constraint, live)

    def check_plain(self, model_class, constraint, live: list) -> None:
        fields = [self.model._meta.get_field(name) for name in constraint.fields]
        tests = null_tests(self.model, constraint)
        compared = fields + [f for f, _ in tests]
        keyed, seen = [], set()
        for instance, item_errors in live:
            key = tuple(getattr(instance, f.attname) for f in fields)
            if any(v is None for v in key) or any(f.name in item_errors for f in fields):
                continue
            if any((getattr(instance, f.attname) is None) != null for f, null in tests):
                continue  # a row the condition leaves out
            if self.unchanged(instance, compared):
                seen.add(key)  # stored as it is: it can only clash within the batch
                continue
            keyed.append((key, instance, item_errors))
        if not keyed:
            return
        filters = {f"{f.attname}__in": {k[n] for k, _, _ in keyed} for n, f in enumerate(fields)}
        filters.update({f"{f.attname}__isnull": null for f, null in tests})
        taken = defaultdict(set)
        rows = self.model._default_manager.filter(**filters).values_list("pk", *(f.attname for f in fields))
        for row in rows:
            taken[tuple(row[1:])].add(row[0])
        for key, instance, item_errors in keyed:
            if taken.get(key, set()) - {instance.pk} or key in seen:
                self.add_error(item_errors, constraint, clash_message(instance, model_class, constraint))
            seen.add(key)

    def check_unique(self, field, live: list) -> None:
        """A unique field's values: owned by no other stored object, and once in the batch."""
        keyed, seen = [], set()
        for instance, item_errors in live:
            value = getattr(instance, field.attname)
            if value in (None, "") or field.name in item_errors:
                continue
            if field.primary_key and not getattr(instance, "pk_supplied", False):
                continue  # generated
            if self.unchanged(instance, (field,)):
                seen.add(value)  # stored as it is: it can only clash within the batch
                continue
            keyed.append((value, instance, item_errors))
        if not keyed:
            return
        taken = defaultdict(set)
        rows = self.model._default_manager.filter(**{f"{field.attname}__in": {v for v, _, _ in keyed}})
        for value, pk in rows.values_list(field.attname, "pk"):
            taken[value].add(pk)
        for value, instance, item_errors in keyed:
            others = taken.get(value, set()) if field.primary_key else taken.get(value, set()) - {instance.pk}
            if others or value in seen:
                message = instance.unique_error_message(type(instance), (field.name,))
                item_errors[field.name] = message.messages
            seen.add(value)

    @staticmethod
    def unchanged(instance, fields) -> bool:
        stored = getattr(instance, "stored_values", None)
        return stored is not None and all(stored[f.attname] == getattr(instance, f.attname) for f in fields)

    def check_one(self, model_class, constraint, instance, item_errors: dict) -> None:
        try:
            constraint.validate(
                model_class, instance, exclude=set(item_errors), using=self.model._default_manager.db
            )
        except ValidationError as exc:
            self.add_error(item_errors, constraint, exc)

    @staticmethod
    def add_error(item_errors: dict, constraint, exc: ValidationError) -> None:
        """Where Django's validate_constraints files the error, in the API's keys."""
        if getattr(exc, "code", None) == "unique" and len(constraint.fields) == 1:
            item_errors.setdefault(constraint.fields[0], []).extend(exc.messages)
            return
        for key, messages in exc.update_error_dict({}).items():
            for message in ValidationError(messages).messages:
                item_errors.setdefault(constraint_key(key, message), []).append(message)

    def write_many(self, instances: list, manys: list[dict], adding: bool) -> None:
        """Many-to-many values set as `.set()` would, with batched statements per field."""
        names = {name for many in manys for name in many}
        self.writer.many_written |= names
        for name in names:
            field = self.model._meta.get_field(name)
            through = field.remote_field.through
            targets = [(i, many[name]) for i, many in zip(instances, manys, strict=True) if name in many]
            if not through._meta.auto_created or signals.m2m_changed.has_listeners(through):
                for instance, values in targets:
                    getattr(instance, name).set(values)
                continue
            source, target = field.m2m_field_name(), field.m2m_reverse_field_name()
            wanted = {(i.pk, v.pk) for i, values in targets for v in values}
            existing = (
                {}
                if adding
                else {
                    (row[1], row[2]): row[0]
                    for row in through.objects.filter(
                        **{f"{source}__in": [i.pk for i, _ in targets]}
                    ).values_list("pk", f"{source}_id", f"{target}_id")
                }
            )
            gone = [pk for pair, pk in existing.items() if pair not in wanted]
            if gone:
                through.objects.filter(pk__in=gone).delete()
            new = [pair for pair in dict.fromkeys((i.pk, v.pk) for i, values in targets for v in values)]
            through.objects.bulk_create(
                [through(**{f"{source}_id": a, f"{target}_id": b}) for a, b in new if (a, b) not in existing]
            )
            for instance, _ in targets:  # reads of the new values must not see the preloaded ones
                getattr(instance, "_prefetched_objects_cache", {}).pop(field.name, None)


@cache
def constraints_of(model) -> tuple[list, list]:
    """The model's constraints as (model class, constraint) pairs: unique constraints over plain
    fields (for the rows a condition of null tests matches, if it has one), checked for a whole
    batch in one query each, and the others, checked per object. Worked out once per model:
    every write asks."""
    plain, other = [], []
    for model_class, constraints in model().get_constraints():
        for constraint in constraints:
            simple = (
                isinstance(constraint, UniqueConstraint)
                and constraint.fields
                and null_tests(model, constraint) is not None
                and not constraint.expressions
                and constraint.nulls_distinct is not False
            )
            (plain if simple else other).append((model_class, constraint))
    return plain, other


def null_tests(model, constraint) -> list | None:
    """A unique constraint's condition as (field, is null) pairs, all to hold (`module__isnull`:
    a device's own components), read on objects in memory; [] without a condition, None for a
    condition of any other form."""
    condition = constraint.condition
    if not condition:
        return []
    if not isinstance(condition, Q) or condition.negated or condition.connector != Q.AND:
        return None
    tests = []
    for child in condition.children:
        if (
            not isinstance(child, tuple)
            or not child[0].endswith("__isnull")
            or not isinstance(child[1], bool)
        ):
            return None
        try:
            field = model._meta.get_field(child[0][: -len("__isnull")])
        except FieldDoesNotExist:
            return None
        if not field.concrete:
            return None
        tests.append((field, child[1]))
    return tests


def update_rows(model, instances: list, fields: list) -> None:
    """Store `fields` of the objects with statements that grow linearly with the batch (Django's
    bulk_update writes, for every column, a CASE with a branch per object): one object is a
    plain UPDATE; more join their new values, a VALUES list, on the primary key."""
    if not instances:  # an empty bulk update (`[]`) changes nothing
        return
    connection = connections[router.db_for_write(model)]
    quote, pk = connection.ops.quote_name, model._meta.pk
    if len(instances) == 1 and connection.features.can_return_columns_from_insert:
        update_one(model, instances[0], fields, connection)
        return
    if len(instances) == 1:
        values = {f.attname: getattr(instances[0], f.attname) for f in fields}
        model._base_manager.using(connection.alias).filter(pk=instances[0].pk).update(**values)
        return
    columns = [pk, *fields]
    table = quote(model._meta.db_table)
    names = ", ".join(f"c{n}" for n in range(len(columns)))
    assignments = ", ".join(f"{quote(f.column)} = v.c{n}" for n, f in enumerate(fields, 1))
    # PostgreSQL reads VALUES as text unless told each column's type.
    typed = connection.vendor == "postgresql"
    marks = ", ".join(f"%s::{f.db_type(connection)}" if typed else "%s" for f in columns)
    limit = connection.features.max_query_params
    size = max(1, limit // len(columns)) if limit else len(instances)
    for first in range(0, len(instances), size):
        chunk = instances[first : first + size]
        rows = ", ".join([f"({marks})"] * len(chunk))
        params = [f.get_db_prep_save(getattr(obj, f.attname), connection) for obj in chunk for f in columns]
        match = f"{table}.{quote(pk.column)} = v.c0"
        if typed:
            sql = f"UPDATE {table} SET {assignments} FROM (VALUES {rows}) AS v({names}) WHERE {match}"
        else:  # SQLite (3.33 on) names the VALUES in a common table expression
            sql = f"WITH v({names}) AS (VALUES {rows}) UPDATE {table} SET {assignments} FROM v WHERE {match}"
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def update_one(model, instance, fields: list, connection) -> None:
    """One object's UPDATE, which returns the row as stored (`instance.stored_row`, the values
    `values_list` of every column would read): what a write's ETag is made of, without reading
    the row again. Not kept where the model's batch hook may change rows afterwards. It may
    wait for the object's read-back and travel with it (prepared.update_later)."""
    quote, pk = connection.ops.quote_name, model._meta.pk
    table, columns = model._meta.db_table, model._meta.concrete_fields
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    sql = f"UPDATE {quote(table)} SET {assignments} WHERE {quote(pk.column)} = %s"
    params = [f.get_db_prep_save(getattr(instance, f.attname), connection) for f in fields]
    params.append(pk.get_db_prep_value(instance.pk, connection))
    if connection.vendor == "postgresql":  # strings take their column's type (an address, say)
        params = [Untyped(p) if isinstance(p, str) else p for p in params]
    keep = getattr(model, "write_batch", None) is None

    def received(rows: list) -> None:
        if rows and keep:
            compiler, converters = row_converters(model, connection.alias)
            row = rows[0]
            instance.stored_row = (
                next(iter(compiler.apply_converters([row], converters))) if converters else row
            )

    returning = [quote(f.column) for f in columns]
    update_later(connection, sql, params, (table, str(instance.pk)), returning, received)


@cache
def row_converters(model, alias: str) -> tuple:
    """The converters of every column read with values_list, so that a returned row compares
    equal to a row read: compiled once per model and database."""
    _, _, converters, compiler = compile_query(
        model._base_manager.values_list(*stored_columns(model)), connections[alias]
    )
    return compiler, converters


def clash_message(instance, model_class, constraint) -> ValidationError:
    """The error Django's own constraint check gives: the constraint's message where it has one
    of its own, otherwise the model's unique message."""
    if constraint.violation_error_message != constraint.default_violation_error_message:
        return ValidationError(constraint.get_violation_error_message(), code=constraint.violation_error_code)
    return instance.unique_error_message(model_class, constraint.fields)


def included_errors(writer, instances: list, items: list, adding: bool) -> dict[int, dict]:
    """Write the `include=` values (relationships, ...) of each written object; the errors of
    the items that fail, by their position (the caller's transaction rolls everything back)."""
    failed = {}
    for position, (instance, data) in enumerate(zip(instances, items, strict=True)):
        try:
            writer.write_included(instance, data, adding=adding)
        except ValidationFailed as exc:
            failed[position] = exc.errors
    return failed
