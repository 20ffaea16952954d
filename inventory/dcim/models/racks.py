"""Rack groups, racks and rack reservations."""

from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import OrganizationalModel, PrimaryModel, TreeModel
from inventory.slugs import SlugModel

from .. import choices
from .components import NaturallyOrdered


class Placement(NamedTuple):
    """A racked device's place: the units from `position` up, on its face (both when full depth)."""

    COLUMNS = ("position", "face", "device_type__u_height", "device_type__is_full_depth")
    position: int
    face: str
    height: int
    full_depth: bool


def unit_ranges(units) -> str:
    """1,2,3,7 -> "1-3, 7", as units are shown in messages."""
    ranges, run = [], []
    for unit in sorted(units):
        if run and unit != run[-1] + 1:
            ranges.append(run)
            run = []
        run.append(unit)
    if run:
        ranges.append(run)
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in ranges)


class RackGroup(SlugModel, TreeModel, OrganizationalModel):
    natural_key_field_names = ("name", "location")

    name = models.CharField(max_length=255, db_index=True)
    location = models.ForeignKey("dcim.Location", on_delete=models.CASCADE, related_name="rack_groups")
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["location", "name"], name="dcim_rackgroup_location_name")
        ]

    def clean(self):
        super().clean()
        if self.location_id is None:
            return
        self.location.check_admits(RackGroup)
        if self.parent is not None and self.parent.location_id not in self.location.lineage():
            raise ValidationError(
                {
                    "location": [
                        f'Location "{self.location}" is not descended from parent rack group '
                        f'"{self.parent}" location "{self.parent.location}".'
                    ]
                }
            )


class Rack(NaturallyOrdered, PrimaryModel):  # `_name`, as the reference's
    natural_key_field_names = ("name", "rack_group")

    name = models.CharField(max_length=255, db_index=True)
    facility_id = models.CharField(  # noqa: DJ001
        max_length=255,
        null=True,
        blank=True,
        verbose_name="Facility ID",
        help_text="Locally-assigned identifier",
    )
    location = models.ForeignKey("dcim.Location", on_delete=models.PROTECT, related_name="racks")
    rack_group = models.ForeignKey(
        RackGroup,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="racks",
        help_text="Assigned group",
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="racks"
    )
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    serial = models.CharField(max_length=255, blank=True, verbose_name="Serial number")
    asset_tag = models.CharField(  # noqa: DJ001
        max_length=255,
        null=True,
        blank=True,
        unique=True,
        help_text="A unique tag used to identify this rack",
    )
    type = models.CharField(max_length=50, choices=choices.RACK_TYPES, blank=True)
    width = models.PositiveSmallIntegerField(
        choices=choices.RACK_WIDTHS, default=19, help_text="Rail-to-rail width (in inches)"
    )
    u_height = models.PositiveSmallIntegerField(
        default=42,
        verbose_name="Height (U)",
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Height in rack units",
    )
    desc_units = models.BooleanField(
        default=False, verbose_name="Descending units", help_text="Units are numbered top-to-bottom"
    )
    outer_width = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Outer dimension of rack (width)"
    )
    outer_depth = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Outer dimension of rack (depth)"
    )
    outer_unit = models.CharField(max_length=50, choices=choices.RACK_DIMENSION_UNITS, blank=True)
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["location__name", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["location", "name"], name="dcim_rack_location_name"),
            models.UniqueConstraint(fields=["location", "facility_id"], name="dcim_rack_location_facility"),
        ]

    def clean(self):
        super().clean()
        if self.location_id is not None:
            if self.rack_group_id is not None and self.rack_group.location_id not in self.location.lineage():
                raise ValidationError(
                    {
                        "rack_group": [
                            f'The assigned rack group "{self.rack_group}" belongs to a location '
                            f'("{self.rack_group.location}") that does not include location "{self.location}".'
                        ]
                    }
                )
            self.location.check_admits(Rack)
        if (self.outer_width is not None or self.outer_depth is not None) and not self.outer_unit:
            raise ValidationError("Must specify a unit when setting an outer width/depth")
        if self.outer_width is None and self.outer_depth is None:
            self.outer_unit = ""
        if self.pk is not None and self.u_height:
            tops = [
                position + height - 1
                for position, height in self.devices.filter(position__isnull=False).values_list(
                    "position", "device_type__u_height"
                )
            ]
            if tops and max(tops) > self.u_height:
                raise ValidationError(
                    {
                        "u_height": [
                            f"Rack must be at least {max(tops)}U tall to house currently installed devices."
                        ]
                    }
                )

    @property
    def units(self) -> list[int]:
        """Unit numbers from the top of the rack down, as an elevation lists them."""
        return list(range(1, self.u_height + 1)) if self.desc_units else list(range(self.u_height, 0, -1))

    def placements(self, exclude=()) -> list[Placement]:
        """Where the devices racked at a position sit."""
        devices = self.devices.filter(position__isnull=False).exclude(pk__in=exclude)
        return [Placement(*row) for row in devices.values_list(*Placement.COLUMNS)]

    def available_units(
        self, u_height: int = 1, face: str | None = None, exclude=(), placed: list | None = None
    ) -> list[int]:
        """Lowest units at which a device `u_height` tall fits on `face` (both faces when None),
        among the devices `placed` (by default those stored, but for `exclude`)."""
        taken = set()
        for place in self.placements(exclude) if placed is None else placed:
            if place.height and (not face or place.face == face or place.full_depth):
                taken.update(range(place.position, place.position + place.height))
        free = set(range(1, self.u_height + 1)) - taken
        return sorted((u for u in free if set(range(u, u + max(u_height, 1))) <= free), reverse=True)


class RackReservation(PrimaryModel):
    natural_key_field_names = ("units", "rack")

    rack = models.ForeignKey(Rack, on_delete=models.CASCADE, related_name="reservations")
    units = models.JSONField()
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="rack_reservations"
    )
    user = models.ForeignKey("users.User", on_delete=models.PROTECT, related_name="rack_reservations")
    description = models.CharField(max_length=255)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"Reservation for rack {self.rack}" if self.rack_id else "Rack reservation"

    def clean(self):
        super().clean()
        if (
            not isinstance(self.units, list)
            or not self.units
            or not all(isinstance(u, int) and not isinstance(u, bool) for u in self.units)
        ):
            raise ValidationError({"units": ["Enter a list of one or more rack unit numbers."]})
        self.units = sorted(set(self.units))
        if self.rack_id is None:
            return
        invalid = [u for u in self.units if not 1 <= u <= self.rack.u_height]
        if invalid:
            raise ValidationError(
                {"units": [f"Invalid unit(s) for {self.rack.u_height}U rack: {unit_ranges(invalid)}"]}
            )
        reserved = set()
        for units in (
            RackReservation.objects.filter(rack=self.rack_id)
            .exclude(pk=self.pk)
            .values_list("units", flat=True)
        ):
            reserved.update(units)
        conflicts = reserved & set(self.units)
        if conflicts:
            raise ValidationError(
                {"units": [f"The following units have already been reserved: {unit_ranges(conflicts)}"]}
            )
