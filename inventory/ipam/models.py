from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import BaseModel, OrganizationalModel, PrimaryModel
from inventory.slugs import SlugModel

from . import networks


class VRF(PrimaryModel):
    name = models.CharField(max_length=100, db_index=True)
    rd = models.CharField("route distinguisher", max_length=21, unique=True, null=True, blank=True)
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="vrfs"
    )
    description = models.CharField(max_length=200, blank=True)
    prefixes = models.ManyToManyField(
        "ipam.Prefix", through="ipam.VRFPrefixAssignment", related_name="assigned_vrfs", blank=True
    )
    devices = models.ManyToManyField(
        "dcim.Device", through="ipam.VRFDeviceAssignment", related_name="vrfs", blank=True
    )

    class Meta:
        ordering = ["name", "rd"]
        verbose_name = "VRF"
        verbose_name_plural = "VRFs"


class VLANGroup(SlugModel, OrganizationalModel):
    name = models.CharField(max_length=100, unique=True)
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="vlan_groups"
    )
    description = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "VLAN group"


class VLAN(PrimaryModel):
    natural_key_field_names = ("pk",)

    # Read by interface validation (vlan_allowed_at): loaded with the VLANs a batch names.
    validation_prefetch = ("locations",)

    vid = models.PositiveSmallIntegerField(
        "VLAN ID", validators=[MinValueValidator(1), MaxValueValidator(4094)]
    )
    name = models.CharField(max_length=64)
    vlan_group = models.ForeignKey(
        VLANGroup, on_delete=models.PROTECT, null=True, blank=True, related_name="vlans"
    )
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="vlans"
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="vlans"
    )
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    description = models.CharField(max_length=200, blank=True)
    locations = models.ManyToManyField(
        "dcim.Location", through="ipam.VLANLocationAssignment", related_name="assigned_vlans", blank=True
    )

    class Meta:
        ordering = ["vid", "name"]
        verbose_name = "VLAN"
        constraints = [models.UniqueConstraint(fields=["vlan_group", "vid"], name="ipam_vlan_group_vid")]

    def __str__(self) -> str:
        return f"{self.name} ({self.vid})"


class NetworkModel(PrimaryModel):
    """Columns shared by prefixes and addresses: the network a row covers, as fixed-width bytes."""

    ip_version = models.PositiveSmallIntegerField("IP version", editable=False)
    network_address = models.BinaryField(max_length=networks.WIDTH, editable=False)
    broadcast_address = models.BinaryField(max_length=networks.WIDTH, editable=False)

    class Meta:
        abstract = True


class Prefix(NetworkModel):
    TYPES = [("container", "Container"), ("network", "Network"), ("pool", "Pool")]

    prefix_length = models.PositiveSmallIntegerField(editable=False)
    type = models.CharField(max_length=50, choices=TYPES, default="network")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    vrf = models.ForeignKey(VRF, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="prefixes"
    )
    vlan = models.ForeignKey(VLAN, on_delete=models.PROTECT, null=True, blank=True, related_name="prefixes")
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="prefixes"
    )
    description = models.CharField(max_length=200, blank=True)
    locations = models.ManyToManyField(
        "dcim.Location", through="ipam.PrefixLocationAssignment", related_name="assigned_prefixes", blank=True
    )

    class Meta:
        ordering = ["ip_version", "network_address", "prefix_length"]
        verbose_name_plural = "prefixes"
        indexes = [models.Index(fields=["ip_version", "network_address", "broadcast_address"])]

    def __str__(self) -> str:
        return self.cidr

    @property
    def cidr(self) -> str:
        return networks.cidr_text(self.ip_version, self.network_address, self.prefix_length)

    def set_prefix(self, value) -> None:
        net = networks.parse_network(
            value, "IP address"
        ).cidr  # host bits are dropped: 10.0.0.7/24 -> 10.0.0.0/24
        self.ip_version, self.prefix_length = net.version, net.prefixlen
        self.network_address = networks.to_bytes(net.first)
        self.broadcast_address = networks.to_bytes(net.last)


class IPAddress(NetworkModel):
    host_address = models.BinaryField(max_length=networks.WIDTH, editable=False)
    mask_length = models.PositiveSmallIntegerField(editable=False)
    dns_name = models.CharField("DNS name", max_length=255, blank=True)
    description = models.CharField(max_length=200, blank=True)
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    vrf = models.ForeignKey(VRF, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="ip_addresses"
    )
    nat_inside = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="nat_outside",
        verbose_name="NAT (inside)",
    )
    interfaces = models.ManyToManyField(
        "dcim.Interface", through="ipam.IPAddressToInterface", related_name="+", blank=True
    )
    vm_interfaces = models.ManyToManyField(
        "virtualization.VMInterface", through="ipam.IPAddressToInterface", related_name="+", blank=True
    )

    class Meta:
        ordering = ["ip_version", "host_address", "mask_length"]
        verbose_name = "IP address"
        verbose_name_plural = "IP addresses"
        indexes = [
            models.Index(fields=["ip_version", "host_address"]),
            models.Index(fields=["ip_version", "network_address", "broadcast_address"]),
        ]

    def __str__(self) -> str:
        return networks.cidr_text(self.ip_version, self.host_address, self.mask_length)

    def set_address(self, value) -> None:
        net = networks.parse_network(value, "IP address")
        self.ip_version, self.mask_length = net.version, net.prefixlen
        self.host_address = networks.to_bytes(int(net.ip))
        self.network_address = networks.to_bytes(net.first)
        self.broadcast_address = networks.to_bytes(net.last)

    def clean(self):
        super().clean()
        if self.nat_inside_id is not None and self.nat_inside_id == self.pk:
            raise ValidationError({"nat_inside": ["An IP address cannot be its own NAT inside address."]})


class VRFPrefixAssignment(BaseModel):
    vrf = models.ForeignKey(VRF, on_delete=models.CASCADE, related_name="prefix_assignments")
    prefix = models.ForeignKey(Prefix, on_delete=models.CASCADE, related_name="vrf_assignments")

    class Meta:
        ordering = ["vrf", "prefix"]
        verbose_name = "VRF-prefix assignment"
        constraints = [models.UniqueConstraint(fields=["vrf", "prefix"], name="ipam_vrf_prefix_once")]


class PrefixLocationAssignment(BaseModel):
    prefix = models.ForeignKey(Prefix, on_delete=models.CASCADE, related_name="location_assignments")
    location = models.ForeignKey("dcim.Location", on_delete=models.CASCADE, related_name="prefix_assignments")

    class Meta:
        ordering = ["prefix", "location"]
        verbose_name = "prefix-location assignment"
        constraints = [
            models.UniqueConstraint(fields=["prefix", "location"], name="ipam_prefix_location_once")
        ]


class VLANLocationAssignment(BaseModel):
    vlan = models.ForeignKey(VLAN, on_delete=models.CASCADE, related_name="location_assignments")
    location = models.ForeignKey("dcim.Location", on_delete=models.CASCADE, related_name="vlan_assignments")

    class Meta:
        ordering = ["vlan", "location"]
        verbose_name = "VLAN-location assignment"
        constraints = [models.UniqueConstraint(fields=["vlan", "location"], name="ipam_vlan_location_once")]


class VRFDeviceAssignment(BaseModel):
    vrf = models.ForeignKey(VRF, on_delete=models.CASCADE, related_name="device_assignments")
    device = models.ForeignKey("dcim.Device", on_delete=models.CASCADE, related_name="vrf_assignments")
    rd = models.CharField(  # noqa: DJ001
        "route distinguisher", max_length=21, null=True, blank=True, help_text="Unique route distinguisher"
    )
    name = models.CharField(max_length=255, blank=True, help_text="The name of the VRF on the device")

    class Meta:
        ordering = ["vrf", "device"]
        verbose_name = "VRF-device assignment"
        constraints = [models.UniqueConstraint(fields=["vrf", "device"], name="ipam_vrf_device_once")]


class IPAddressToInterface(BaseModel):
    """An address on an interface, with the roles it plays there."""

    ip_address = models.ForeignKey(IPAddress, on_delete=models.CASCADE, related_name="interface_assignments")
    interface = models.ForeignKey(
        "dcim.Interface",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="ip_address_assignments",
    )
    vm_interface = models.ForeignKey(
        "virtualization.VMInterface",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="ip_address_assignments",
    )
    is_source = models.BooleanField(default=False, help_text="Is source address on interface")
    is_destination = models.BooleanField(default=False, help_text="Is destination address on interface")
    is_default = models.BooleanField(default=False, help_text="Is default address on interface")
    is_preferred = models.BooleanField(default=False, help_text="Is preferred address on interface")
    is_primary = models.BooleanField(default=False, help_text="Is primary address on interface")
    is_secondary = models.BooleanField(default=False, help_text="Is secondary address on interface")
    is_standby = models.BooleanField(default=False, help_text="Is standby address on interface")
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["ip_address", "interface"]
        verbose_name = "IP address to interface"
        constraints = [
            models.UniqueConstraint(fields=["ip_address", "interface"], name="ipam_ipaddress_interface_once"),
            models.UniqueConstraint(
                fields=["ip_address", "vm_interface"], name="ipam_ipaddress_vminterface_once"
            ),
        ]

    def clean(self):
        super().clean()
        if self.interface_id and self.vm_interface_id:
            raise ValidationError(
                "Cannot use a single instance to associate to both an Interface and a VMInterface."
            )
        if not self.interface_id and not self.vm_interface_id:
            raise ValidationError("Must associate to either an Interface or a VMInterface.")


def check_primary_ips(owner, assignments, noun: str) -> None:
    """`primary_ip4`/`primary_ip6` of a device or virtual machine: of the right family, and on
    one of its own interfaces (`assignments` of the owner), or the inside of such an address."""
    for field, version in (("primary_ip4", 4), ("primary_ip6", 6)):
        address = getattr(owner, field)
        if address is None:
            continue
        if address.ip_version != version:
            raise ValidationError({field: [f"{address} is not an IPv{version} address."]})
        candidates = {address.pk} | ({address.nat_inside_id} if address.nat_inside_id else set())
        if owner.pk is None or not assignments.filter(ip_address__in=candidates).exists():
            raise ValidationError(
                {field: [f"The specified IP address ({address}) is not assigned to this {noun}."]}
            )
