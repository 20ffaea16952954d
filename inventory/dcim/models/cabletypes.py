"""Cable types (a cable's connectors and lanes, breakouts included) and the record of which
object is plugged into which connector of a cable."""

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import BaseModel, PrimaryModel, ValueChoiceField

from .. import choices

MAX_CONNECTORS = 16
MAX_LANES = 256


def default_mapping(a_connectors: int, b_connectors: int, total_lanes: int) -> list[dict]:
    """Lanes in order, filling each A connector's positions and then the next B connector's."""
    a_positions, b_positions = total_lanes // a_connectors, total_lanes // b_connectors
    mapping = []
    for lane in range(total_lanes):
        a_connector, a_position = divmod(lane, a_positions)
        b_connector, b_position = divmod(lane, b_positions)
        mapping.append(
            {
                "label": str(lane + 1),
                "a_connector": a_connector + 1,
                "a_position": a_position + 1,
                "b_connector": b_connector + 1,
                "b_position": b_position + 1,
            }
        )
    return mapping


def check_mapping(mapping, a_connectors: int, b_connectors: int, total_lanes: int) -> None:
    """Every lane names a free (connector, position) on each side within the type's dimensions;
    the reference's messages. A lane without a label is labelled by its index."""

    def refuse(message: str):
        raise ValidationError({"mapping": [message]})

    if not isinstance(mapping, list):
        refuse("Mapping must be a JSON array.")
    if len(mapping) != total_lanes:
        refuse(f"Expected {total_lanes} lane definitions, but got {len(mapping)}.")
    required, optional = {"a_connector", "a_position", "b_connector", "b_position"}, {"label"}
    for i, entry in enumerate(mapping):
        if not isinstance(entry, dict):
            refuse(f"Entry {i} must be a JSON object.")
        if missing := required - entry.keys():
            refuse(f"Entry {i} is missing required keys: {', '.join(sorted(missing))}.")
        if unknown := entry.keys() - required - optional:
            refuse(f"Entry {i} has unknown keys: {', '.join(sorted(unknown))}")
        for key in required:
            if not isinstance(entry[key], int) or isinstance(entry[key], bool) or entry[key] < 1:
                refuse(f"Entry {i} key '{key}' must be a positive integer.")
    limits = {
        "a_connector": a_connectors,
        "a_position": total_lanes // a_connectors,
        "b_connector": b_connectors,
        "b_position": total_lanes // b_connectors,
    }
    seen: dict[str, set] = {"A": set(), "B": set(), "label": set()}
    for i, entry in enumerate(mapping):
        for key, limit in limits.items():
            if entry[key] > limit:
                refuse(f"Entry {i}: {key} {entry[key]} out of range [1, {limit}].")
        for side in ("A", "B"):
            pair = (entry[f"{side.lower()}_connector"], entry[f"{side.lower()}_position"])
            if pair in seen[side]:
                refuse(
                    f"Entry {i}: Duplicate {side}-side (connector, position) pair: ({pair[0]}, {pair[1]})."
                )
            seen[side].add(pair)
        label = entry.setdefault("label", str(i))
        if not isinstance(label, str):
            refuse(f"Entry {i}: Label {label} must be a string")
        if label in seen["label"]:
            refuse(f"Entry {i}: Duplicate label: {label}")
        seen["label"].add(label)


class CableType(PrimaryModel):
    """A kind of cable: its connectors on each side, its lanes and how they run from A to B.
    A breakout always fans out from A (never more A connectors than B connectors)."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    manufacturer = models.ForeignKey(
        "dcim.Manufacturer", on_delete=models.PROTECT, related_name="cable_types", null=True, blank=True
    )
    part_number = models.CharField(max_length=255, blank=True, help_text="Discrete part number (optional)")
    has_embedded_transceivers = models.BooleanField(
        default=False, help_text="Indicates that this cable type has transceivers (e.g. SFP) built in."
    )
    a_connectors = models.PositiveSmallIntegerField(
        default=1,
        help_text="Number of physical connectors on the A side.",
        validators=[MinValueValidator(1), MaxValueValidator(MAX_CONNECTORS)],
    )
    b_connectors = models.PositiveSmallIntegerField(
        default=1,
        help_text="Number of physical connectors on the B side.",
        validators=[MinValueValidator(1), MaxValueValidator(MAX_CONNECTORS)],
    )
    total_lanes = models.PositiveSmallIntegerField(
        default=1,
        help_text="Total number of logical lanes in the breakout, distributed evenly across connectors on each side.",
        validators=[MinValueValidator(1), MaxValueValidator(MAX_LANES)],
    )
    mapping = models.JSONField(
        default=list,
        blank=True,
        help_text="A→B lane mapping as a JSON array of objects with keys: "
        "label, a_connector, a_position, b_connector, b_position. If empty, will be auto-populated.",
    )
    is_shuffle = models.BooleanField(
        default=False,
        help_text="Indicates non-linear (polarity-shuffled) position mapping. Informational only.",
    )
    strands_per_lane = models.PositiveSmallIntegerField(
        default=1,
        help_text="Number of physical strands per logical lane (e.g. 1 for copper, 2 for duplex fiber).",
        validators=[MinValueValidator(1)],
    )
    polarity_method = models.CharField(
        max_length=50,
        choices=choices.CABLE_POLARITY_METHODS,
        blank=True,
        default="",
        help_text="Fiber polarity method. Informational only.",
    )

    # What a cable of this type is made of: fixed once a cable uses it.
    STRUCTURE = ("a_connectors", "b_connectors", "total_lanes", "strands_per_lane", "mapping")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_multi_connector(self) -> bool:
        return self.a_connectors > 1 or self.b_connectors > 1

    def connectors(self, side: str) -> int:
        return self.a_connectors if side == "A" else self.b_connectors

    def clean(self):
        super().clean()
        dimensions = (self.a_connectors, self.b_connectors, self.total_lanes)
        if not all(isinstance(n, int) and n >= 1 for n in dimensions):
            return  # the field validators have said why
        if self.a_connectors > self.b_connectors:
            raise ValidationError(
                {"b_connectors": ["Wrong breakout direction, a_connectors must not exceed b_connectors"]}
            )
        for side in ("a", "b"):
            count = getattr(self, f"{side}_connectors")
            if self.total_lanes % count:
                raise ValidationError(
                    {"total_lanes": [f"total_lanes must be evenly divisible by {side}_connectors ({count})."]}
                )
        if not self.mapping:
            self.mapping = default_mapping(*dimensions)
        check_mapping(self.mapping, *dimensions)
        self.check_structure_unchanged()

    def check_structure_unchanged(self) -> None:
        if self._state.adding:
            return
        before = CableType.objects.filter(pk=self.pk).values(*self.STRUCTURE).first()
        changed = [f for f in self.STRUCTURE if before and before[f] != getattr(self, f)]
        if changed and self.cables.exists():
            message = "Cannot be changed because this CableType is already referenced by one or more Cables."
            raise ValidationError({name: [message] for name in changed})

    def save(self, *args, **kwargs):
        if (
            not self.mapping
            and self.total_lanes % self.a_connectors == self.total_lanes % self.b_connectors == 0
        ):
            self.mapping = default_mapping(self.a_connectors, self.b_connectors, self.total_lanes)
        super().save(*args, **kwargs)


# The record's field for each kind of end (one-to-one: an object takes one cable connector).
END_FIELDS = {
    "circuittermination": "circuit_termination",
    "consoleport": "console_port",
    "consoleserverport": "console_server_port",
    "frontport": "front_port",
    "interface": "interface",
    "powerfeed": "power_feed",
    "poweroutlet": "power_outlet",
    "powerport": "power_port",
    "rearport": "rear_port",
}


def end_field(obj) -> str:
    return END_FIELDS[obj._meta.model_name]


def _end(to: str):
    return models.OneToOneField(
        to, on_delete=models.CASCADE, related_name="cable_termination", null=True, blank=True
    )


class CableToCableTermination(BaseModel):
    """The object plugged into one connector of one end of a cable. Connector 1 of each end is the
    cable's own `termination_a`/`termination_b`, recorded with it; the further connectors of a
    multi-connector cable type are added here."""

    cable = models.ForeignKey("dcim.Cable", on_delete=models.CASCADE, related_name="terminations")
    cable_end = ValueChoiceField(max_length=1, choices=choices.CABLE_ENDS)
    circuit_termination = _end("circuits.CircuitTermination")
    console_port = _end("dcim.ConsolePort")
    console_server_port = _end("dcim.ConsoleServerPort")
    front_port = _end("dcim.FrontPort")
    interface = _end("dcim.Interface")
    power_feed = _end("dcim.PowerFeed")
    power_outlet = _end("dcim.PowerOutlet")
    power_port = _end("dcim.PowerPort")
    rear_port = _end("dcim.RearPort")
    connector = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_CONNECTORS)],
        help_text="The connector number on this cable end. Always 1 for standard cables.",
    )

    class Meta:
        ordering = ["cable", "cable_end", "connector"]
        constraints = [
            models.UniqueConstraint(
                fields=["cable", "cable_end", "connector"],
                name="dcim_cabletocabletermination_unique_connector",
            )
        ]

    def __str__(self) -> str:
        return f"{self.cable} {self.cable_end}-side: {self.termination}"

    @property
    def termination(self):
        return next((getattr(self, f) for f in END_FIELDS.values() if getattr(self, f"{f}_id")), None)

    def clean(self):
        super().clean()
        given = [f for f in END_FIELDS.values() if getattr(self, f"{f}_id", None) is not None]
        if not given:
            raise ValidationError("Exactly one termination foreign key must be set; none are.")
        if len(given) > 1:
            raise ValidationError(
                f"Exactly one termination foreign key must be set; {len(given)} are: {', '.join(given)}."
            )
        if self.cable_id is None or self.cable_end not in ("A", "B"):
            return
        if not self._state.adding:
            before = CableToCableTermination.objects.get(pk=self.pk)
            kept = ("cable_id", "cable_end", "connector", given[0] + "_id")
            if (
                before.cable_id != self.cable_id
                or before.connector == 1
                and any(getattr(before, f) != getattr(self, f) for f in kept)
            ):
                raise ValidationError(
                    "Connector 1 of each end is the cable's own termination, and a record stays on "
                    "its cable: delete it and add a new one."
                )
        self.clean_connector()
        self.clean_end(given[0])

    def clean_connector(self) -> None:
        if not isinstance(self.connector, int) or not 1 <= self.connector <= MAX_CONNECTORS:
            raise ValidationError({})  # the field's own validators have said why
        cable_type = self.cable.cable_type
        most = cable_type.connectors(self.cable_end) if cable_type else 1
        if not 1 <= self.connector <= most:
            raise ValidationError(
                {
                    "connector": [
                        f"Connector {self.connector} is outside the valid range (1..{most}) "
                        f"for the {self.cable_end}-side of this cable."
                    ]
                }
            )
        if self.connector == 1 and self._state.adding:
            raise ValidationError(
                {"connector": ["Connector 1 of each end is the cable's own termination_a or termination_b."]}
            )
        taken = CableToCableTermination.objects.filter(
            cable=self.cable_id, cable_end=self.cable_end, connector=self.connector
        ).exclude(pk=self.pk)
        if taken.exists():
            raise ValidationError("The fields cable, cable_end, connector must make a unique set.")

    def clean_end(self, field: str) -> None:
        from .cables import UNCABLED_INTERFACE_TYPES

        end = self.termination
        kind = end._meta.model_name
        if kind == "interface" and end.type in UNCABLED_INTERFACE_TYPES:
            raise ValidationError(
                {field: [f"Cables cannot be terminated to {end.get_type_display()} interfaces"]}
            )
        holder = CableToCableTermination.objects.filter(**{field: end}).exclude(pk=self.pk)
        if (
            holder.exists()
            or end.cable_id not in (None, self.cable_id)
            or self._state.adding
            and end.cable_id
        ):
            verbose = self._meta.get_field(field).verbose_name
            raise ValidationError(
                {field: [f"cable to cable termination with this {verbose} already exists."]}
            )
        cable_type = self.cable.cable_type
        if cable_type and cable_type.is_multi_connector and kind not in choices.BREAKOUT_TERMINATIONS:
            raise ValidationError(
                f"A {end._meta.verbose_name} cannot terminate a multi-connector cable type; only "
                "interfaces, front ports, rear ports, and circuit terminations support breakout."
            )
        for peer in self.peers():
            peer_kind = peer._meta.model_name
            if peer_kind not in choices.COMPATIBLE_TERMINATIONS.get(kind, ()):
                raise ValidationError(f"Incompatible termination types: {kind} and {peer_kind}")

    def peers(self) -> list:
        """The objects on the cable's other end that share a lane with this connector."""
        our, their = ("a", "b") if self.cable_end == "A" else ("b", "a")
        mapping = self.cable.cable_type.mapping if self.cable.cable_type else []
        connectors = {
            e[f"{their}_connector"] for e in mapping if e[f"{our}_connector"] == self.connector
        } or {1}
        rows = CableToCableTermination.objects.filter(
            cable=self.cable_id, cable_end=their.upper(), connector__in=connectors
        ).order_by("connector")
        return [row.termination for row in rows if row.termination is not None]

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        if self.connector > 1:
            plug_in(self)
        count_connected_lanes(self.cable_id)


def plug_in(record: CableToCableTermination) -> None:
    """A further connector's object shows the cable and, across it, the first object sharing its lanes."""
    from .paths import retrace_through

    end = record.termination
    peers = record.peers()
    peer = peers[0] if peers else None
    type(end)._default_manager.filter(pk=end.pk).update(
        cable_id=record.cable_id,
        _cable_peer_type=ContentType.objects.get_for_model(peer) if peer else None,
        _cable_peer_id=peer.pk if peer else None,
    )
    retrace_through(end)


def unplug(record: CableToCableTermination) -> None:
    """A removed further connector's object is free again (connector 1 goes with its cable)."""
    from .paths import retrace_through

    if record.connector == 1:
        return
    end = record.termination
    if end is None:
        return
    type(end)._default_manager.filter(pk=end.pk).update(
        cable=None, _cable_peer_type=None, _cable_peer_id=None
    )
    retrace_through(end)
    count_connected_lanes(record.cable_id)


def count_connected_lanes(cable_id) -> None:
    """Store how many of the cable's lanes have an object at both ends (read with every cable)."""
    from .cables import Cable

    cable = Cable.objects.filter(pk=cable_id).select_related("cable_type").first()
    if cable is None:
        return
    plugged = set(
        CableToCableTermination.objects.filter(cable=cable_id).values_list("cable_end", "connector")
    )
    mapping = cable.cable_type.mapping if cable.cable_type else [{"a_connector": 1, "b_connector": 1}]
    lanes = sum(
        1 for e in mapping if ("A", e["a_connector"]) in plugged and ("B", e["b_connector"]) in plugged
    )
    Cable.objects.filter(pk=cable_id).update(_connected_lanes=lanes)
