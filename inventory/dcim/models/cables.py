"""Cables between two ends, and what every cable-able object knows of its cable."""

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import PrimaryModel, graphql_as_rest

from .. import choices
from .cabletypes import CableToCableTermination, count_connected_lanes, end_field
from .paths import CablePath, object_types, retrace_later, retrace_through

# Interface types a cable cannot plug into (they have no physical port).
UNCABLED_INTERFACE_TYPES = frozenset({"virtual", "bridge", "lag"})


CABLE_ENDS = object_types(choices.COMPATIBLE_TERMINATIONS)


class CableTermination(models.Model):
    """An object a cable may plug into: its cable and the object at the cable's other end."""

    cable = models.ForeignKey(
        "dcim.Cable", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    _cable_peer_type = models.ForeignKey(
        ContentType, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    _cable_peer_id = models.UUIDField(null=True, blank=True)

    class Meta:
        abstract = True

    # Bulk writes trace the paths they change once, at their end.
    write_batch = staticmethod(retrace_later)

    # Shown by every cable-able resource (registry declarations use these).
    CABLE_GENERIC = {"cable_peer": ("_cable_peer_type", "_cable_peer_id", CABLE_ENDS)}


class Cable(PrimaryModel):
    natural_key_field_names = ("pk",)

    termination_a_type = graphql_as_rest(
        models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    )
    termination_a_id = models.UUIDField()
    termination_b_type = graphql_as_rest(
        models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    )
    termination_b_id = models.UUIDField()
    type = models.CharField(max_length=50, choices=choices.CABLE_TYPES, blank=True)
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=255, blank=True)
    color = models.CharField(max_length=6, blank=True, help_text="RGB color in hexadecimal (e.g. 00ff00)")
    length = models.PositiveSmallIntegerField(null=True, blank=True)
    length_unit = models.CharField(max_length=50, choices=choices.CABLE_LENGTH_UNITS, blank=True)
    cable_type = models.ForeignKey(
        "dcim.CableType",
        on_delete=models.PROTECT,
        related_name="cables",
        null=True,
        blank=True,
        help_text="The cable type defining this cable's lane structure and other properties."
        "May be null for standard point-to-point cables.",
    )
    # Lanes with an object at both ends, kept as the cable's connectors are plugged and unplugged.
    _connected_lanes = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["label", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["termination_a_type", "termination_a_id"], name="dcim_cable_termination_a"
            ),
            models.UniqueConstraint(
                fields=["termination_b_type", "termination_b_id"], name="dcim_cable_termination_b"
            ),
        ]

    write_batch = staticmethod(retrace_later)

    def __str__(self) -> str:
        return self.label or f"#{self.pk}"

    def end(self, side: str):
        """The object at end `a` or `b` (None when it does not exist)."""
        kind = getattr(self, f"termination_{side}_type")
        model = apps.get_model(kind.app_label, kind.model) if kind else None
        found = (
            model._default_manager.filter(pk=getattr(self, f"termination_{side}_id")).first()
            if model
            else None
        )
        return found

    def clean(self):
        super().clean()
        if self.length is not None and not self.length_unit:
            raise ValidationError({"length_unit": ["Must specify a unit when setting a cable length"]})
        if self.length is None:
            self.length_unit = ""
        if self.termination_a_type_id is None or self.termination_b_type_id is None:
            return
        if not self._state.adding:
            before = Cable.objects.filter(pk=self.pk).values(*TERMINATION_COLUMNS).first()
            if before and any(before[c] != getattr(self, c) for c in TERMINATION_COLUMNS):
                raise ValidationError("A cable's ends cannot be changed: delete it and create a new one.")
        ends = {side: self.clean_end(side) for side in ("a", "b")}
        a, b = ends["a"], ends["b"]
        self.clean_cable_type(a, b)
        if self.termination_a_type_id == self.termination_b_type_id and a.pk == b.pk:
            raise ValidationError({"termination_b_id": ["Cannot connect a termination to itself"]})
        kind_a, kind_b = self.termination_a_type.model, self.termination_b_type.model
        if kind_b not in choices.COMPATIBLE_TERMINATIONS.get(kind_a, ()):
            raise ValidationError(
                {"termination_b_type": [f"Incompatible termination types: {kind_a} and {kind_b}"]}
            )

    def clean_cable_type(self, a, b) -> None:
        """A multi-connector type takes only breakout-capable ends, and every connector already
        plugged must exist on the new type."""
        kind = self.cable_type
        if kind is None:
            plugged = self.terminations.filter(connector__gt=1) if self.pk else None
            if plugged is not None and plugged.exists():
                raise ValidationError(
                    {"cable_type": ["Connectors beyond the first are plugged: unplug them first."]}
                )
            return
        if kind.is_multi_connector:
            for end in (a, b):
                if end._meta.model_name not in choices.BREAKOUT_TERMINATIONS:
                    raise ValidationError(
                        {
                            "cable_type": [
                                f"A {end._meta.verbose_name} cannot terminate a multi-connector cable type; only "
                                "interfaces, front ports, rear ports, and circuit terminations support breakout."
                            ]
                        }
                    )
        if self.pk:
            for side in ("A", "B"):
                if self.terminations.filter(cable_end=side, connector__gt=kind.connectors(side)).exists():
                    raise ValidationError(
                        {
                            "cable_type": [
                                f"The {side}-side of this cable has connectors {kind.name} does not have."
                            ]
                        }
                    )

    def clean_end(self, side: str):
        kind = getattr(self, f"termination_{side}_type")
        if kind.model not in choices.COMPATIBLE_TERMINATIONS:
            raise ValidationError(
                {
                    f"termination_{side}_type": [
                        f"Cables cannot be connected to {kind.app_label}.{kind.model}."
                    ]
                }
            )
        end = self.end(side)
        if end is None:
            raise ValidationError({f"termination_{side}_id": [f"No {kind.model} has this id."]})
        if kind.model == "interface" and end.type in UNCABLED_INTERFACE_TYPES:
            raise ValidationError(
                {
                    f"termination_{side}_id": [
                        f"Cables cannot be terminated to {end.get_type_display()} interfaces"
                    ]
                }
            )
        if end.cable_id is not None and end.cable_id != self.pk:
            message = f"cable to cable termination with this {kind.model} already exists."
            # The reference answers with its termination records' nesting: kept for its clients.
            self.api_errors = {"terminations": {side: {"1": {kind.model: [message]}}}}
            raise ValidationError({f"termination_{side}_id": [message]})
        return end

    def save(self, *args, **kwargs):
        adding = self._state.adding
        super().save(*args, **kwargs)
        a, b = self.end("a"), self.end("b")
        for end, peer in ((a, b), (b, a)):
            type(end)._default_manager.filter(pk=end.pk).update(
                cable=self, _cable_peer_type=ContentType.objects.get_for_model(peer), _cable_peer_id=peer.pk
            )
        if adding:  # connector 1 of each end: the cable's own ends
            CableToCableTermination.objects.bulk_create(
                CableToCableTermination(cable=self, cable_end=side, connector=1, **{end_field(end): end})
                for side, end in (("A", a), ("B", b))
            )
        count_connected_lanes(self.pk)
        retrace_through(self, a, b)  # a status change makes paths (in)active too


TERMINATION_COLUMNS = (
    "termination_a_type_id",
    "termination_a_id",
    "termination_b_type_id",
    "termination_b_id",
)


def release_ends(cable: Cable) -> None:
    """A deleted cable leaves its ends free (their `cable` is cleared by the foreign key) and the
    paths that crossed it end where it was."""
    ends = [cable.end(side) for side in ("a", "b")]
    for end in ends:
        if end is not None:
            type(end)._default_manager.filter(pk=end.pk).update(_cable_peer_type=None, _cable_peer_id=None)
    retrace_through(cable, *ends)


def drop_cable_of(end) -> None:
    """A deleted end takes its cable with it (freeing the far end), and its own path."""
    if end.cable_id is not None:
        Cable.objects.filter(pk=end.cable_id).delete()
    if getattr(end, "_path_id", None) is not None:
        CablePath.objects.filter(pk=end._path_id).delete()
