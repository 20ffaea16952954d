"""Power panels and the feeds they supply."""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import PrimaryModel

from .. import choices
from .cables import CableTermination
from .paths import PathEndpoint


class PowerPanel(PrimaryModel):
    natural_key_field_names = ("name", "location")

    location = models.ForeignKey("dcim.Location", on_delete=models.PROTECT, related_name="power_panels")
    rack_group = models.ForeignKey(
        "dcim.RackGroup", on_delete=models.PROTECT, null=True, blank=True, related_name="power_panels"
    )
    name = models.CharField(max_length=255, db_index=True)
    panel_type = models.CharField(max_length=30, choices=choices.POWER_PANEL_TYPES, blank=True)
    breaker_position_count = models.PositiveIntegerField(
        null=True, blank=True, help_text="Total number of breaker positions in the panel"
    )
    power_path = models.CharField(
        max_length=30,
        choices=choices.POWER_PATHS,
        blank=True,
    )

    class Meta:
        ordering = ["location__name", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["location", "name"], name="dcim_powerpanel_location_name")
        ]

    def clean(self):
        super().clean()
        if self.rack_group_id is None or self.location_id is None:
            return
        if self.rack_group.location_id not in self.location.lineage():
            raise ValidationError(
                {
                    "rack_group": [
                        f'Rack group "{self.rack_group}" ({self.rack_group.location}) is in a different '
                        f'location than "{self.location}"'
                    ]
                }
            )


class PowerFeed(PathEndpoint, CableTermination, PrimaryModel):
    power_panel = models.ForeignKey(
        PowerPanel,
        on_delete=models.PROTECT,
        related_name="power_feeds",
        help_text="Source panel that originates this power feed",
    )
    destination_panel = models.ForeignKey(
        PowerPanel,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="feeders",
        help_text="Destination panel that receives power from this feed",
    )
    rack = models.ForeignKey(
        "dcim.Rack", on_delete=models.PROTECT, null=True, blank=True, related_name="power_feeds"
    )
    name = models.CharField(max_length=255)
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    type = models.CharField(max_length=50, choices=choices.POWER_FEED_TYPES, default="primary")
    power_path = models.CharField(
        max_length=30,
        choices=choices.POWER_PATHS,
        blank=True,
    )
    supply = models.CharField(max_length=50, choices=choices.POWER_FEED_SUPPLIES, default="ac")
    phase = models.CharField(max_length=50, choices=choices.POWER_FEED_PHASES, default="single-phase")
    voltage = models.SmallIntegerField(default=120)
    amperage = models.PositiveSmallIntegerField(default=20, validators=[MinValueValidator(1)])
    max_utilization = models.PositiveSmallIntegerField(
        default=80,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Maximum permissible draw (percentage)",
    )
    breaker_position = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Starting circuit breaker position in panel",
    )
    breaker_pole_count = models.PositiveSmallIntegerField(
        choices=choices.BREAKER_POLES, null=True, blank=True
    )
    available_power = models.PositiveIntegerField(default=0, editable=False)
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["power_panel", "breaker_position", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["power_panel", "name"], name="dcim_powerfeed_panel_name"),
            models.UniqueConstraint(
                fields=["power_panel", "breaker_position"], name="dcim_powerfeed_panel_breaker_position"
            ),
        ]

    def occupied_positions(self) -> set[int]:
        if self.breaker_position is None:
            return set()
        return set(range(self.breaker_position, self.breaker_position + (self.breaker_pole_count or 1)))

    def save(self, *args, **kwargs):
        if self.breaker_position is not None and self.breaker_pole_count is None:
            self.breaker_pole_count = 1
        power = abs(self.voltage) * self.amperage * self.max_utilization / 100
        self.available_power = round(power * 1.732 if self.phase == "three-phase" else power)
        super().save(*args, **kwargs)

    def clean(self):
        super().clean()
        if self.voltage == 0:
            raise ValidationError({"voltage": ["Voltage cannot be zero."]})
        if self.voltage < 0 and self.supply == "ac":
            raise ValidationError({"voltage": ["Voltage cannot be negative for AC supply"]})
        panel = self.power_panel if self.power_panel_id else None
        if panel is None:
            return
        if self.rack_id is not None:
            rack_location = self.rack.location
            if (
                panel.location_id not in rack_location.lineage()
                and rack_location.pk not in panel.location.lineage()
            ):
                raise ValidationError(
                    {
                        "rack": [
                            f'Rack "{self.rack}" ({self.rack.location}) and power panel "{panel}" '
                            f"({panel.location}) are not in the same location hierarchy."
                        ]
                    }
                )
        if self.destination_panel_id is not None and self.destination_panel_id == panel.pk:
            raise ValidationError({"destination_panel": ["A power feed cannot connect a panel to itself"]})
        if self.breaker_position is None:
            return
        if self.breaker_pole_count is None:
            self.breaker_pole_count = 1
        occupied = self.occupied_positions()
        if panel.breaker_position_count is not None and max(occupied) > panel.breaker_position_count:
            raise ValidationError(
                {
                    "breaker_position": [
                        f"Breaker configuration starting at position {self.breaker_position} with "
                        f"{self.breaker_pole_count} poles would occupy positions {sorted(occupied)}, but panel "
                        f"only has {panel.breaker_position_count} breaker positions"
                    ]
                }
            )
        others = PowerFeed.objects.filter(power_panel=panel, breaker_position__isnull=False).exclude(
            pk=self.pk
        )
        for feed in others:
            taken = feed.occupied_positions()
            if occupied & taken:
                raise ValidationError(
                    {
                        "breaker_position": [
                            f'Breaker position {self.breaker_position} conflicts with feed "{feed.name}" '
                            f"(occupies {', '.join(str(p) for p in sorted(taken))})"
                        ]
                    }
                )
