"""Relationships (spec §4.9): their rules, the `relationships` value objects show on request
(`include=relationships`), its writes, and associations following their objects' deletion."""

from __future__ import annotations

from collections import defaultdict

import orjson
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db.models import Q

from queryengine.definitions import cached, watch
from queryengine.errors import PermissionDenied
from queryengine.filters import parse_uuid
from queryengine.naming import resolve_related
from queryengine.objecttexts import display_labels, object_texts
from queryengine.query import NOTHING, default_order
from queryengine.registry import (
    CustomFilter,
    Included,
    Resource,
    on_delete,
    resource_by_object_type,
    resource_for,
)

from .deletions import forget_with_objects
from .filtering import filter_errors, matching_ids
from .models import SIDES, SYMMETRIC_TYPES, Relationship, RelationshipAssociation

OPPOSITE = {"source": "destination", "destination": "source", "peer": "peer"}


def label_of(content_type: ContentType) -> str:
    return f"{content_type.app_label}.{content_type.model}"


def resource_of(content_type: ContentType) -> Resource | None:
    return resource_by_object_type(label_of(content_type))


# -- the definitions' own rules --------------------------------------------------------------


def check_definition(relationship: Relationship) -> None:
    errors: dict[str, list[str]] = {}
    for side in SIDES:
        given = getattr(relationship, f"{side}_filter")
        kind = (
            getattr(relationship, f"{side}_type", None) if getattr(relationship, f"{side}_type_id") else None
        )
        if not given or kind is None:
            continue
        messages = filter_errors(resource_of(kind), kind.model_class(), given)
        if messages:
            errors[f"{side}_filter"] = messages
    if relationship.symmetric:
        if relationship.source_type_id != relationship.destination_type_id:
            errors["destination_type"] = ["Must match source_type for a symmetric relationship"]
        for name in ("label", "filter"):
            source, destination = f"source_{name}", f"destination_{name}"
            mine, theirs = getattr(relationship, source), getattr(relationship, destination)
            if mine != theirs:
                if not mine:
                    setattr(relationship, source, theirs)
                elif not theirs:
                    setattr(relationship, destination, mine)
                else:
                    errors[destination] = [f"Must match {source} for a symmetric relationship"]
        if relationship.source_hidden != relationship.destination_hidden:
            errors["destination_hidden"] = ["Must match source_hidden for a symmetric relationship"]
        if relationship.required_on:
            errors["required_on"] = ["Symmetric relationships cannot be marked as required."]
    if errors:
        raise ValidationError(errors)
    before = Relationship.objects.filter(pk=relationship.pk).first()
    if before is None or not before.relationship_associations.exists():
        return
    for attribute, what, short in (
        ("type", "type of the relationship", "type"),
        ("source_type_id", "type of the source object", "source type"),
        ("destination_type_id", "type of the destination object", "destination type"),
    ):
        if getattr(before, attribute) != getattr(relationship, attribute):
            raise ValidationError(
                f"Not supported to change the {what} when some associations are present in the database, "
                f"delete all associations first before modifying the {short}."
            )


def _object_label(content_type: ContentType, pk) -> str:
    resource = resource_of(content_type)
    labels = display_labels(resource, [pk]) if resource is not None else {}
    return labels.get(str(pk), str(pk))


def check_association(association: RelationshipAssociation) -> None:
    """An association's ends match its relationship, exist, respect its filters and cardinality."""
    if None in (association.relationship_id, association.source_type_id, association.destination_type_id):
        return  # the missing field has its own error
    relationship = association.relationship
    errors: dict[str, list[str]] = {}
    for side in SIDES:
        if getattr(association, f"{side}_type_id") != getattr(relationship, f"{side}_type_id"):
            errors[f"{side}_type"] = [f"{side}_type has a different value than defined in {relationship}"]
    if errors:
        raise ValidationError(errors)
    for side in SIDES:
        kind, pk = getattr(association, f"{side}_type"), getattr(association, f"{side}_id")
        model = kind.model_class()
        if model is None or not model._default_manager.filter(pk=pk).exists():
            raise ValidationError({f"{side}_id": [f"No {kind.name} has this id."]})
    if association.source_type_id == association.destination_type_id and (
        association.source_id == association.destination_id
    ):
        raise ValidationError(
            {"destination_id": ["An object cannot form a RelationshipAssociation with itself"]}
        )
    others = RelationshipAssociation.objects.filter(relationship=relationship).exclude(pk=association.pk)
    source = lambda: _object_label(association.source_type, association.source_id)  # noqa: E731
    destination = lambda: _object_label(association.destination_type, association.destination_id)  # noqa: E731
    if (
        relationship.symmetric
        and others.filter(source_id=association.destination_id, destination_id=association.source_id).exists()
    ):
        raise ValidationError(
            f"A {relationship} association already exists between {source()} and {destination()}"
        )
    if relationship.type not in ("many-to-many", "symmetric-many-to-many"):
        if others.filter(destination_id=association.destination_id).exists():
            raise ValidationError(
                {
                    "destination": [
                        f"Unable to create more than one {relationship} association to {destination()} (destination)"
                    ]
                }
            )
        one_to_one = relationship.type in ("one-to-one", "symmetric-one-to-one")
        if one_to_one and others.filter(source_id=association.source_id).exists():
            raise ValidationError(
                {
                    "source": [
                        f"Unable to create more than one {relationship} association from {source()} (source)"
                    ]
                }
            )
        if relationship.type == "symmetric-one-to-one":
            for side, pk, label, column in (
                ("source", association.source_id, source, "destination_id"),
                ("destination", association.destination_id, destination, "source_id"),
            ):
                if others.filter(**{column: pk}).exists():
                    raise ValidationError(
                        {
                            side: [
                                f"Unable to create more than one {relationship} association involving {label()} (peer)"
                            ]
                        }
                    )
    for side in SIDES:
        given = getattr(relationship, f"{side}_filter")
        kind = getattr(association, f"{side}_type")
        if given and not matching_ids(
            resource_of(kind), kind.model_class(), given, [getattr(association, f"{side}_id")]
        ):
            label = source() if side == "source" else destination()
            raise ValidationError({side: [f"{label} violates {relationship} {side}_filter restriction"]})


def association_labels(ids) -> dict[str, str]:
    """'<source> -> <destination> - <relationship>' for a page of associations ('<->' when symmetric)."""
    rows = list(
        RelationshipAssociation.objects.filter(pk__in=list(ids)).values_list(
            "pk",
            "relationship__label",
            "relationship__type",
            "source_type",
            "source_id",
            "destination_type",
            "destination_id",
        )
    )
    wanted: dict[int, set] = defaultdict(set)
    for _, _, _, source_type, source_id, destination_type, destination_id in rows:
        wanted[source_type].add(source_id)
        wanted[destination_type].add(destination_id)
    labels: dict[tuple, str] = {}
    for type_id, pks in wanted.items():
        resource = resource_of(ContentType.objects.get_for_id(type_id))
        found = display_labels(resource, pks) if resource is not None else {}
        labels.update({(type_id, pk): found[str(pk)] for pk in pks if str(pk) in found})
    result = {}
    for pk, label, kind, source_type, source_id, destination_type, destination_id in rows:
        arrow = "<->" if kind in ("symmetric-one-to-one", "symmetric-many-to-many") else "->"
        source = labels.get((source_type, source_id), "unknown")
        destination = labels.get((destination_type, destination_id), "unknown")
        result[str(pk)] = f"{source} {arrow} {destination} - {label}"
    return result


# -- `include=relationships` ------------------------------------------------------------------


def by_key_filters() -> dict[str, CustomFilter]:
    """An association's `relationship` filter takes relationships by key alone (an id is no
    choice, as the reference's filter answers), `relationship__n` too."""

    def parse(value: str) -> str:
        if not Relationship.objects.filter(key=value).exists():
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return value

    def samples(objects) -> list:
        keys = sorted({obj.relationship.key for obj in objects})
        return [keys[0], keys[-1:] + keys[:1]] if keys else []

    def keyed(negate: bool) -> CustomFilter:
        return CustomFilter(
            lambda keys: ~Q(relationship__key__in=keys) if negate else Q(relationship__key__in=keys),
            parse,
            lambda obj, keys: (obj.relationship.key in keys) != negate,
            samples,
        )

    return {"relationship": keyed(False), "relationship__n": keyed(True), "peer_id": PEER_ID}


def _peers(ids) -> Q:
    """Associations of a symmetric relationship with any of the objects on either side."""
    either = Q(source_id__in=ids) | Q(destination_id__in=ids)
    return Q(relationship__type__in=SYMMETRIC_TYPES) & either


# `peer_id=<object id>`: associations of symmetric relationships naming the object on either side.
PEER_ID = CustomFilter(
    build=_peers,
    parse=parse_uuid,
    oracle=lambda association, ids: (
        association.relationship.type in SYMMETRIC_TYPES
        and (association.source_id in ids or association.destination_id in ids)
    ),
    samples=lambda associations: [str(a.source_id) for a in associations][:2],
)


def other_label(relationship: Relationship, side: str) -> str:
    """What the objects on the far side are called, seen from `side` (the reference's labels)."""
    side = "source" if side == "peer" else side
    if getattr(relationship, f"{side}_label"):
        return getattr(relationship, f"{side}_label")
    far = relationship.destination_type if side == "source" else relationship.source_type
    model = far.model_class()
    if model is None:
        return str(relationship)
    plural = relationship.type in ("many-to-many", "symmetric-many-to-many") or (
        relationship.type == "one-to-many" and side == "source"
    )
    return str(model._meta.verbose_name_plural if plural else model._meta.verbose_name)


def _sides(relationships, kind: ContentType) -> list[tuple[Relationship, str]]:
    """(relationship, this object's side) in the reference's order: as source, as destination,
    then symmetric ones (peer)."""
    order = [(r, side) for side in SIDES for r in relationships if getattr(r, f"{side}_type_id") == kind.id]
    plain = [(r, side) for r, side in order if not r.symmetric]
    peers = list({r.pk: (r, "peer") for r, _ in order if r.symmetric}.values())
    return plain + peers


def applicable(resource: Resource) -> bool:
    return resource.has_custom_fields


def relationships_of(kind: ContentType) -> list[Relationship]:
    """The relationships with a side on the type (kept between writes: queryengine.definitions)."""
    return cached(
        ("relationships", kind.pk),
        lambda: list(
            Relationship.objects.filter(Q(source_type=kind) | Q(destination_type=kind)).select_related(
                "source_type", "destination_type"
            )
        ),
    )


def load(resource: Resource, ids: list[str], base: str, depth: int, viewer=None) -> dict:
    kind = ContentType.objects.get_for_model(resource.model)
    relationships = relationships_of(kind)
    if not relationships:
        return {}
    sides = _sides(relationships, kind)
    # Which of the page's objects each (relationship, side) applies to: all, unless it has a filter.
    applies = {}
    for relationship, side in sides:
        given = getattr(relationship, f"{'source' if side == 'peer' else side}_filter")
        applies[relationship.pk, side] = (
            set(matching_ids(resource, resource.model, given, ids)) if given else None
        )
    peers: dict[tuple, list] = defaultdict(list)  # (relationship, side, object id) -> peer ids
    rows = RelationshipAssociation.objects.filter(relationship__in=relationships).filter(
        Q(source_type=kind, source_id__in=ids) | Q(destination_type=kind, destination_id__in=ids)
    )
    by_pk = {r.pk: r for r in relationships}
    for relationship_id, source_id, destination_id in rows.order_by("pk").values_list(
        "relationship_id", "source_id", "destination_id"
    ):
        relationship, source, destination = by_pk[relationship_id], str(source_id), str(destination_id)
        if relationship.symmetric:
            for this, other in ((source, destination), (destination, source)):
                peers[relationship_id, "peer", this].append(other)
        else:
            peers[relationship_id, "source", source].append(destination)
            peers[relationship_id, "destination", destination].append(source)
    rendered = _peer_objects(sides, peers, base, depth, viewer)
    result = {}
    for pk in ids:
        value = {}
        for relationship, side in sides:
            allowed = applies[relationship.pk, side]
            if allowed is not None and pk not in allowed:
                continue
            entry = value.setdefault(
                relationship.key,
                {
                    "id": str(relationship.pk),
                    "url": f"{base}extras/relationships/{relationship.pk}/",
                    "label": relationship.label,
                    "type": relationship.type,
                },
            )
            far_side = OPPOSITE[side]
            far_type = relationship.source_type if far_side == "source" else relationship.destination_type
            found = rendered.get(far_type.pk, {})
            mine = set(peers.get((relationship.pk, side, pk), ()))
            entry[far_side] = {
                "label": other_label(relationship, side),
                "object_type": label_of(far_type),
                "objects": [shown for p, shown in found.items() if p in mine],
            }
        result[pk] = value
    return result


def _peer_objects(sides, peers: dict, base: str, depth: int, viewer=None) -> dict:
    """{content type id: {peer id: shown object}}: `{"id"}` at depth 0 (as the reference), the
    nested object below it, one query per peer type; peers that are gone, or that `viewer` may
    not see (a list of related objects), are left out."""
    wanted: dict[int, set] = defaultdict(set)
    far_types = {}
    for relationship, side in sides:
        far_side = OPPOSITE[side]
        far = relationship.source_type if far_side == "source" else relationship.destination_type
        far_types[relationship.pk, side] = far
    for (relationship_id, side, _), ids in peers.items():
        if (relationship_id, side) in far_types:
            wanted[far_types[relationship_id, side].pk].update(ids)
    rendered = {}
    for type_id, ids in wanted.items():
        kind = ContentType.objects.get_for_id(type_id)
        resource, model = resource_of(kind), kind.model_class()
        if resource is None or model is None:
            continue
        # In the peers' own order (names, say), which their texts below keep.
        found = model._default_manager.filter(pk__in=list(ids))
        subset = None if viewer is None else viewer.subset(resource)
        if subset is not None:
            found = found.none() if subset is NOTHING else found.filter(pk__in=subset)
        existing = [str(pk) for pk in found.order_by(*default_order(model)).values_list("pk", flat=True)]
        if depth <= 0:
            rendered[type_id] = {pk: {"id": pk} for pk in existing}
        else:
            texts = object_texts(resource, depth - 1, existing, base, viewer)
            rendered[type_id] = {pk: orjson.Fragment(texts[pk]) for pk in existing if pk in texts}
    return rendered


# -- writing `relationships` ------------------------------------------------------------------


def write(resource: Resource, instance, value, adding: bool, state: dict) -> None:
    """Replace the associations of the relationships named in `value` (others stay), after
    checking required relationships as the reference does."""
    kind = ContentType.objects.get_for_model(resource.model)
    if "relationships" not in state:  # once per write, even where definitions are not kept
        state["relationships"] = relationships_of(kind)
    relationships = state["relationships"]
    if value is not None and not isinstance(value, dict):
        raise ValidationError([f'Expected a dictionary of items but got type "{type(value).__name__}".'])
    wanted = _parse(resource, relationships, kind, value or {}, state.get("user"))
    required = _required_errors(resource, relationships, kind, instance, value, adding)
    if required:
        raise ValidationError(required)
    for (relationship, far_side), objects in wanted.items():
        _replace(relationship, far_side, instance, objects, state.get("user"))


def _parse(resource: Resource, relationships, kind: ContentType, value: dict, user) -> dict:
    """{(relationship, far side): [objects]} from a `relationships` body, with the reference's
    messages; only objects `user` may view can be named."""
    by_key = {r.key: r for r in relationships}
    label = resource.model._meta.label
    wanted = {}
    for key, sides in value.items():
        relationship = by_key.get(key)
        if relationship is None:
            raise ValidationError([f'"{key}" is not a relationship on {label}'])
        if not isinstance(sides, dict):
            raise ValidationError([f'["{key}"] must be an object of sides'])
        valid = (
            {"peer"}
            if relationship.symmetric
            else {OPPOSITE[side] for side in SIDES if getattr(relationship, f"{side}_type_id") == kind.id}
        )
        for far_side, given in sides.items():
            if far_side not in valid:
                raise ValidationError([f'"{far_side}" is not a valid side for "{relationship}" on {label}'])
            if not isinstance(given, dict) or "objects" not in given:
                raise ValidationError(
                    [f'"objects" must be specified under ["{key}"]["{far_side}"] when present']
                )
            objects = given["objects"]
            if not isinstance(objects, list):
                raise ValidationError(['"objects" must be a list, not a single value'])
            if len(objects) > 1 and not relationship.has_many(far_side):
                raise ValidationError(
                    [f'For "{relationship}", "{far_side}" objects must include at most a single object']
                )
            far = relationship.source_type if far_side == "source" else relationship.destination_type
            model = far.model_class()
            if model is None:
                raise ValidationError([f"Model {far} is not currently installed, cannot look it up"])
            try:
                wanted[relationship, far_side] = [
                    resolve_related(model, resource, item, user) for item in objects
                ]
            except ValueError as exc:
                raise ValidationError([str(exc)]) from None
    return wanted


def _required_errors(resource, relationships, kind, instance, value, adding: bool) -> dict:
    errors = {}
    given = value or {}
    for relationship in relationships:
        side = relationship.required_on
        if not side or relationship.symmetric or getattr(relationship, f"{side}_type_id") != kind.id:
            continue
        if not adding and relationship.key not in given:
            continue  # an update that leaves this relationship alone keeps what it has
        far_side = OPPOSITE[side]
        own_filter = getattr(relationship, f"{side}_filter")
        if own_filter and not matching_ids(resource, resource.model, own_filter, [str(instance.pk)]):
            continue
        far = (
            relationship.source_type if far_side == "source" else relationship.destination_type
        ).model_class()
        if far is None:
            continue
        supplied = given.get(relationship.key, {}).get(far_side, {}) if isinstance(given, dict) else {}
        if isinstance(supplied, dict) and supplied.get("objects"):
            continue
        number = "at least one" if relationship.has_many(far_side) else "a"
        meta, mine = far._meta, resource.model._meta
        messages = []
        if not far._default_manager.exists():
            hint = (
                f"You need to create {number} {meta.verbose_name} before instantiating a {mine.verbose_name}."
            )
            target = resource_for(far)
            if target is not None:
                hint = f"Create a {meta.verbose_name} by posting to /api/{target.route}/"
            messages.append(
                f"{str(mine.verbose_name_plural).title()} require {number} {meta.verbose_name}, "
                f"but no {meta.verbose_name_plural} exist yet. {hint}"
            )
        messages.append(
            f'You need to specify ["relationships"]["{relationship.key}"]["{far_side}"]["objects"].'
        )
        errors[relationship.key] = messages
    return errors


def _replace(relationship: Relationship, far_side: str, instance, objects: list, user) -> None:
    mine = (
        Q(source_id=instance.pk) | Q(destination_id=instance.pk)
        if far_side == "peer"
        else Q(**{f"{OPPOSITE[far_side]}_id": instance.pk})
    )
    existing = list(relationship.relationship_associations.filter(mine))
    keep = {obj.pk for obj in objects}

    def peer(association):
        return association.destination_id if association.source_id == instance.pk else association.source_id

    removed = [a for a in existing if peer(a) not in keep]
    present = {peer(a) for a in existing}
    added = [obj for obj in objects if obj.pk not in present]
    _require(user, "delete", removed)
    _require(user, "add", added)
    RelationshipAssociation.objects.filter(pk__in=[a.pk for a in removed]).delete()
    for obj in added:
        ends = (obj.pk, instance.pk) if far_side == "source" else (instance.pk, obj.pk)
        association = RelationshipAssociation(
            relationship=relationship,
            source_type=relationship.source_type,
            source_id=ends[0],
            destination_type=relationship.destination_type,
            destination_id=ends[1],
        )
        try:
            association.full_clean(validate_unique=False)
        except ValidationError as exc:
            raise ValidationError([m for messages in _messages(exc) for m in messages]) from None
        association.save()


def _messages(exc: ValidationError) -> list[list[str]]:
    return list(exc.message_dict.values()) if hasattr(exc, "error_dict") else [exc.messages]


def _require(user, action: str, changes: list) -> None:
    if changes and user is not None and not user.has_perm(f"extras.{action}_relationshipassociation"):
        verb = "create" if action == "add" else "delete"
        raise PermissionDenied(f"This user does not have permission to {verb} RelationshipAssociations.")


# -- objects deleted --------------------------------------------------------------------------


forget_deleted = forget_with_objects(
    RelationshipAssociation,
    ("source_type", "source_id"),
    ("destination_type", "destination_id"),
    keep_for=(Relationship,),
)


INCLUDED = Included(applies=applicable, load=load, write=write)


def connect() -> None:
    on_delete(forget_deleted)
    watch(Relationship)
