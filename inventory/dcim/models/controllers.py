"""Controllers (a wireless or SDN controller: one device or a redundancy group of them) and the
groups of devices they manage, a tree under each controller."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import PrimaryModel, TreeModel

from .. import choices

CAPABILITY_LABELS = dict(choices.CONTROLLER_CAPABILITIES)


def capabilities_shown(values) -> list | None:
    """Capabilities as the reference shows them: a list of {value, label} (null: none given)."""
    if values is None:
        return None
    return [{"value": value, "label": CAPABILITY_LABELS.get(value, value)} for value in values]


def write_capabilities(instance, value) -> None:
    """A list of capability values (each also taken as {value, label}, as reads show it)."""
    if value is None:
        instance.capabilities = None
        return
    if not isinstance(value, list):
        raise ValueError(f'Expected a list of items but got type "{type(value).__name__}".')
    found = []
    for item in value:
        if isinstance(item, dict) and "value" in item:
            item = item["value"]
        if not isinstance(item, str) or item not in CAPABILITY_LABELS:
            raise ValueError(f"{item} is not a valid choice.")
        found.append(item)
    instance.capabilities = found


class Controller(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    description = models.CharField(max_length=255, blank=True)
    location = models.ForeignKey("dcim.Location", on_delete=models.PROTECT, related_name="controllers")
    platform = models.ForeignKey(
        "dcim.Platform", on_delete=models.SET_NULL, null=True, blank=True, related_name="controllers"
    )
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    capabilities = models.JSONField(
        null=True,
        blank=True,
        help_text="List of capabilities supported by the controller, these capabilities are used to "
        "enhance views in Nautobot.",
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="controllers"
    )
    external_integration = models.ForeignKey(
        "extras.ExternalIntegration",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="controllers",
    )
    controller_device = models.ForeignKey(
        "dcim.Device", on_delete=models.PROTECT, null=True, blank=True, related_name="controllers"
    )
    controller_device_redundancy_group = models.ForeignKey(
        "dcim.DeviceRedundancyGroup",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="controllers",
    )

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        if self.controller_device_id and self.controller_device_redundancy_group_id:
            raise ValidationError(
                {
                    "controller_device": [
                        "Cannot assign both a device and a device redundancy group to a controller."
                    ]
                }
            )
        if self.location_id is not None:
            self.location.check_admits(Controller)


class ControllerManagedDeviceGroup(TreeModel, PrimaryModel):
    # A group goes with its parent, as the reference's tree does (other trees here protect).
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="children"
    )
    name = models.CharField(max_length=255, unique=True, help_text="Name of the controller device group")
    description = models.CharField(max_length=255, blank=True)
    weight = models.PositiveIntegerField(
        default=1000,
        help_text="Weight of the controller device group, used to sort the groups within its parent group",
    )
    controller = models.ForeignKey(
        Controller,
        on_delete=models.CASCADE,
        related_name="controller_managed_device_groups",
        help_text="Controller that manages the devices in this group",
    )
    radio_profiles = models.ManyToManyField(
        "wireless.RadioProfile",
        related_name="controller_managed_device_groups",
        through="wireless.ControllerManagedDeviceGroupRadioProfileAssignment",
        through_fields=("controller_managed_device_group", "radio_profile"),
        blank=True,
    )
    wireless_networks = models.ManyToManyField(
        "wireless.WirelessNetwork",
        related_name="controller_managed_device_groups",
        through="wireless.ControllerManagedDeviceGroupWirelessNetworkAssignment",
        through_fields=("controller_managed_device_group", "wireless_network"),
        blank=True,
    )
    capabilities = models.JSONField(
        null=True,
        blank=True,
        help_text="List of capabilities supported by the controller device group, these capabilities are "
        "used to enhance views in Nautobot.",
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="controller_managed_device_groups",
    )

    class Meta:
        ordering = ["weight"]

    def clean(self):
        super().clean()
        if self.parent_id is None or self.controller_id is None:
            return
        if not self._state.adding:
            # Checked when the parent or controller changes, as the reference does: a group
            # edited otherwise keeps its place. A bulk update read the stored values already.
            stored = getattr(self, "stored_values", None)
            if stored is None:
                before = type(self)._default_manager.filter(pk=self.pk)
                stored = before.values("parent_id", "controller_id").first() or {}
            if (stored.get("parent_id"), stored.get("controller_id")) == (self.parent_id, self.controller_id):
                return
        if self.parent.controller_id != self.controller_id:
            raise ValidationError(
                {"controller": ["Controller device group must have the same controller as the parent group."]}
            )
