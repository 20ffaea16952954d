"""Interfaces: what device and virtual machine interfaces share, and the device interface."""

import re

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import described_without_limits

from .. import choices
from .cables import CableTermination
from .components import ComponentModel, _unique_per_owner
from .paths import PathEndpoint

# Interface types that have no physical connector.
VIRTUAL_INTERFACE_TYPES = frozenset({"virtual", "bridge", "lag", "tunnel"})
MAC_NOTATIONS = (
    re.compile(r"([0-9A-Fa-f]{2})([-:]?)[0-9A-Fa-f]{2}(\2[0-9A-Fa-f]{2}){4}"),  # 00:1a:.. 00-1a-.. 001a..
    re.compile(r"([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}"),  # 001a.2b3c.4d5e
)
PEER_LABELS = {"lag": "LAG interface", "parent_interface": "parent interface", "bridge": "bridge interface"}


def normalize_mac(value: str) -> str:
    """Any common MAC notation -> upper-case colon form; anything else is a validation error."""
    text = value.strip()
    if not any(notation.fullmatch(text) for notation in MAC_NOTATIONS):
        raise ValidationError({"mac_address": [f"Enter a valid MAC address: {value}"]})
    digits = re.sub(r"[-:.]", "", text)
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2)).upper()


def mac_filter_value(value: str) -> str:
    """A filter's MAC address as addresses are stored, whatever its notation and case; part of
    one (`mac_address__isw=00:1b`) in upper case."""
    try:
        return normalize_mac(value)
    except ValidationError:
        return value.upper()


def vlan_allowed_at(vlan, location) -> bool:
    """A VLAN may be used at a location it (or its assignments) covers, or anywhere when global."""
    own = {location.pk for location in vlan.locations.all()}  # preloaded for a batch of writes
    if vlan.location_id:
        own.add(vlan.location_id)
    return not own or location is None or bool(own & location.lineage())


class InterfaceBase(models.Model):
    """Addressing and switching of an interface, on a device or on a virtual machine.

    `parent` is what the interface belongs to (a device, a virtual machine); related objects
    are named after the concrete class (`interfaces_as_untagged`, `vminterfaces_as_untagged`)."""

    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    enabled = models.BooleanField(default=True)
    mtu = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1), MaxValueValidator(65536)], verbose_name="MTU"
    )
    mac_address = described_without_limits(
        models.CharField(  # noqa: DJ001
            max_length=18, null=True, blank=True, verbose_name="MAC Address", db_index=True
        )
    )
    mac_address.filter_value = mac_filter_value
    mode = models.CharField(max_length=50, choices=choices.INTERFACE_MODES, blank=True)
    parent_interface = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="child_%(class)ss",
        help_text="Assigned parent interface",
    )
    bridge = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="bridged_%(class)ss",
        help_text="Assigned bridge interface",
    )
    untagged_vlan = models.ForeignKey(
        "ipam.VLAN",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="%(class)ss_as_untagged",
        verbose_name="Untagged VLAN",
    )
    tagged_vlans = models.ManyToManyField(
        "ipam.VLAN", related_name="%(class)ss_as_tagged", blank=True, verbose_name="Tagged VLANs"
    )
    vrf = models.ForeignKey(
        "ipam.VRF",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="%(class)ss",
        verbose_name="VRF",
    )

    class Meta:
        abstract = True

    @property
    def parent_location(self):
        parent = self.parent
        return getattr(parent, "location", None) if parent is not None else None

    def clean_addressing(self) -> None:
        if self.mac_address:
            self.mac_address = normalize_mac(self.mac_address)
        self.clean_peer("parent_interface", "An interface cannot be its own parent.")
        self.clean_peer("bridge", "An interface cannot be bridged to itself.")
        if self.untagged_vlan_id is not None and not self.mode:
            raise ValidationError({"untagged_vlan": ["Mode must be set when specifying untagged_vlan"]})
        parent = self.parent
        vrfs = getattr(parent, "vrfs", None)
        if self.vrf_id is not None and vrfs is not None and not vrfs.filter(pk=self.vrf_id).exists():
            raise ValidationError({"vrf": ["VRF must be assigned to same Device."]})
        vlan = self.untagged_vlan if self.untagged_vlan_id else None
        if vlan is not None and not vlan_allowed_at(vlan, self.parent_location):
            raise ValidationError(
                {
                    "untagged_vlan": [
                        f"The untagged VLAN ({vlan}) must have a common location as the interface's parent "
                        "device, or is in one of the parents of the interface's parent device's location, or it "
                        "must be global."
                    ]
                }
            )

    def clean_peer(self, field: str, to_itself: str) -> None:
        """A LAG, parent or bridge interface must be another interface of the same device (or chassis)."""
        peer_id = getattr(self, f"{field}_id")
        if peer_id is None:
            return
        if peer_id == self.pk:
            raise ValidationError({field: [to_itself]})
        peer, parent, label = getattr(self, field), self.parent, PEER_LABELS[field]
        if parent is None or peer.parent == parent:
            return
        if peer.parent is None:
            raise ValidationError({field: [f"The selected {label} ({peer}) does not belong to a device."]})
        chassis = getattr(parent, "virtual_chassis_id", None)
        if chassis is None:
            raise ValidationError(
                {field: [f"The selected {label} ({peer}) belongs to a different device ({peer.parent})."]}
            )
        if peer.parent.virtual_chassis_id != chassis:
            raise ValidationError(
                {
                    field: [
                        f"The selected {label} ({peer}) belongs to {peer.parent}, which is not part of "
                        f"virtual chassis {parent.virtual_chassis}."
                    ]
                }
            )

    def clean_related(self, many: dict) -> None:
        """Rules over many-to-many values about to be set (tagged VLANs follow the mode)."""
        vlans = many.get("tagged_vlans")
        if vlans is None and self.mode != "tagged" and not self._state.adding:
            if self.tagged_vlans.exists():
                many["tagged_vlans"] = []  # leaving "tagged" mode drops the tagged VLANs
            return
        if not vlans:
            return
        if self.mode != "tagged":
            raise ValidationError(
                {"tagged_vlans": ["Mode must be set to tagged when specifying tagged_vlans"]}
            )
        location = self.parent_location
        for vlan in vlans:
            if not vlan_allowed_at(vlan, location):
                raise ValidationError(
                    {
                        "tagged_vlans": [
                            f"Tagged VLAN with names {vlan.name} must all belong to the same location as the "
                            "interface's parent device, one of the parent locations of the interface's parent "
                            "device's location, or it must be global."
                        ]
                    }
                )


class Interface(PathEndpoint, CableTermination, ComponentModel, InterfaceBase):
    # Read by clean_related when an update leaves "tagged" mode: loaded for a whole batch.
    validation_prefetch = ("tagged_vlans",)

    type = models.CharField(max_length=50, choices=choices.INTERFACE_TYPES)
    port_type = models.CharField(max_length=50, choices=choices.PORT_TYPES, blank=True)
    mgmt_only = models.BooleanField(
        default=False,
        verbose_name="Management only",
        help_text="This interface is used only for out-of-band management",
    )
    speed = described_without_limits(models.PositiveIntegerField(null=True, blank=True))
    duplex = models.CharField(max_length=10, choices=choices.INTERFACE_DUPLEX, blank=True)
    breakout_position = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="For a child interface of a breakout cable's trunk, the position on the parent interface's trunk connector it maps to.",
    )
    lag = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="member_interfaces",
        verbose_name="Parent LAG",
        help_text="Assigned LAG interface",
    )
    ip_addresses = models.ManyToManyField(
        "ipam.IPAddress", through="ipam.IPAddressToInterface", related_name="+", blank=True
    )

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("interface")

    @classmethod
    def instantiation_defaults(cls) -> dict:
        from django.contrib.contenttypes.models import ContentType

        from inventory.extras.models import Status

        allowed = Status.objects.filter(content_types=ContentType.objects.get_for_model(cls))
        status = allowed.filter(name="Active").first() or allowed.order_by("name").first()
        if status is None:
            raise ValidationError(
                "No status applies to interfaces: give one the dcim.interface content type."
            )
        return {"status": status}

    def clean(self):
        super().clean()
        if self.lag_id is not None and self.lag_id != self.pk:
            if self.lag.type != "lag":
                raise ValidationError(
                    {"lag": [f"The selected interface ({self.lag}) is not a LAG interface."]}
                )
            if self.type == "virtual":
                raise ValidationError({"lag": ["Virtual interfaces cannot have a parent LAG interface."]})
        self.clean_peer("lag", "A LAG interface cannot be its own parent.")
        if self.type in VIRTUAL_INTERFACE_TYPES and self.port_type:
            raise ValidationError({"port_type": ["Virtual and wireless interfaces cannot have a port type."]})
        self.clean_addressing()
