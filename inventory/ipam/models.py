from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import BaseModel, OrganizationalModel, PrimaryModel, ValueChoiceField
from inventory.slugs import SlugModel

from . import networks, parents, ranges, vlans


class Namespace(PrimaryModel):
    """A space in which prefixes and addresses are unique (the reference's IPAM namespaces)."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="namespaces"
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="namespaces"
    )

    class Meta:
        ordering = ["name"]


class NamespacedModel(PrimaryModel):
    """An object in a namespace: the Global one unless the write names another."""

    # Left out of a write: the Global namespace (set before validation).
    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, blank=True, related_name="+")

    class Meta:
        abstract = True

    def clean_fields(self, exclude=None):
        # Before the field rules, so that a namespace left out is not a missing value.
        self.namespace_named = self.namespace_id is not None and self._state.adding
        if self.namespace_id is None:
            self.namespace_id = parents.default_namespace_id()
        super().clean_fields(exclude)

    def save(self, *args, **kwargs):
        self.default_namespace()
        super().save(*args, **kwargs)

    def prepare_for_bulk(self):
        super().prepare_for_bulk()
        self.default_namespace()

    def default_namespace(self) -> None:
        if self.namespace_id is None:  # made without the API's checks (a job, a script)
            self.namespace_id = parents.default_namespace_id()


class RIR(OrganizationalModel):
    """A regional Internet registry (or a private space) prefixes are allocated from."""

    name = models.CharField(max_length=255, unique=True)
    is_private = models.BooleanField(
        "private", default=False, help_text="IP space managed by this RIR is considered private"
    )
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "RIR"
        verbose_name_plural = "RIRs"


class VRF(NamespacedModel):
    natural_key_field_names = ("namespace", "rd")

    name = models.CharField(max_length=100, db_index=True)
    # Null, not blank, when unset: several VRFs of a namespace may have none.
    rd = models.CharField("route distinguisher", max_length=21, null=True, blank=True)  # noqa: DJ001
    status = models.ForeignKey(
        "extras.Status", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="vrfs"
    )
    description = models.CharField(max_length=200, blank=True)
    prefixes = models.ManyToManyField(
        "ipam.Prefix", through="ipam.VRFPrefixAssignment", related_name="assigned_vrfs", blank=True
    )
    devices = models.ManyToManyField(
        "dcim.Device",
        through="ipam.VRFDeviceAssignment",
        through_fields=("vrf", "device"),
        related_name="vrfs",
        blank=True,
    )
    virtual_machines = models.ManyToManyField(
        "virtualization.VirtualMachine",
        through="ipam.VRFDeviceAssignment",
        through_fields=("vrf", "virtual_machine"),
        related_name="vrfs",
        blank=True,
    )
    virtual_device_contexts = models.ManyToManyField(
        "dcim.VirtualDeviceContext",
        through="ipam.VRFDeviceAssignment",
        through_fields=("vrf", "virtual_device_context"),
        related_name="vrfs",
        blank=True,
    )
    import_targets = models.ManyToManyField("ipam.RouteTarget", related_name="importing_vrfs", blank=True)
    export_targets = models.ManyToManyField("ipam.RouteTarget", related_name="exporting_vrfs", blank=True)

    class Meta:
        ordering = ["name", "rd"]
        verbose_name = "VRF"
        verbose_name_plural = "VRFs"
        # A route distinguisher is unique within its namespace, as the reference's.
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "rd"],
                name="ipam_vrf_namespace_rd",
                violation_error_message="The fields namespace, rd must make a unique set.",
            )
        ]


class RouteTarget(PrimaryModel):
    """A BGP extended community VRFs import and export routes by (RFC 4364)."""

    name = models.CharField(
        max_length=21, unique=True, help_text="Route target value (formatted in accordance with RFC 4360)"
    )
    description = models.CharField(max_length=255, blank=True)
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="route_targets"
    )

    class Meta:
        ordering = ["name"]


class VLANGroup(SlugModel, PrimaryModel):
    name = models.CharField(max_length=100, unique=True)
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="vlan_groups"
    )
    description = models.CharField(max_length=200, blank=True)
    range = models.CharField(
        max_length=1024,
        default=vlans.DEFAULT_RANGE,
        help_text="Permitted VID range(s) as comma-separated list, default '1-4094' if left blank.",
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "VLAN group"

    def clean(self):
        super().clean()
        if not self.range:
            self.range = vlans.DEFAULT_RANGE
        vlans.check_group(self)


class SingleLocation:
    """A VLAN's or prefix's one `location`, as API 2.0 and 2.1 show it and every version writes
    it: writing it makes it the object's only location (`locations`), as the reference's."""

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance.stored_location_id = instance.__dict__.get("location_id")
        return instance

    def clean_related(self, many: dict) -> None:
        if "locations" in many or self.location_id == getattr(self, "stored_location_id", None):
            return
        many["locations"] = [] if self.location_id is None else [self.location]


class VLAN(SingleLocation, PrimaryModel):
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
    # What a write names as its one location (`locations` holds them all and is what reads
    # show); a location deleted takes its assignments with it, as the reference's.
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="vlans"
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

    def clean(self):
        super().clean()
        vlans.check_vlan(self)


class NetworkModel(NamespacedModel):
    """Columns shared by prefixes and addresses: the network a row covers, as fixed-width bytes,
    in a namespace, below its `parent`: the closest prefix of the namespace containing it,
    kept by `parents` whenever prefixes or addresses are written."""

    ip_version = models.PositiveSmallIntegerField("IP version", editable=False)
    network_address = models.BinaryField(max_length=networks.WIDTH, editable=False)
    broadcast_address = models.BinaryField(max_length=networks.WIDTH, editable=False)

    class Meta:
        abstract = True

    write_batch = staticmethod(parents.reparent_later)
    # The columns that say where it is.
    place_columns = frozenset(
        {"namespace_id", "ip_version", "network_address", "broadcast_address", "parent_id"}
    )

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        # Where it was (its old place needs new parents too) and under which prefix; a partial
        # read (only some columns) is never saved and reads nothing more.
        if cls.place_columns <= set(field_names):
            instance.stored_span, instance.stored_parent_id = parents.span_of(instance), instance.parent_id
        return instance

    parent_required = False  # an address put in a namespace by name needs a parent there

    def parent_question(self) -> tuple[bool, bool, object]:
        """(whether the write names the namespace, whether it names the parent, the namespace
        the parent is looked for in), as `check_parent` sees them; asked before clean_fields
        too, which puts an object that names no namespace in the Global one."""
        namespace = self.namespace_id or parents.default_namespace_id()
        stored = getattr(self, "stored_span", None)
        named = getattr(self, "namespace_named", self.namespace_id is not None and self._state.adding)
        named = named or stored is not None and stored[0] != namespace
        parent_named = self.parent_id is not None and self.parent_id != getattr(
            self, "stored_parent_id", None
        )
        if parent_named and not named:
            namespace = self.parent.namespace_id
        return named, parent_named, namespace

    def check_parent(self) -> None:
        """A parent the write names must be the closest prefix containing the object (its
        namespace then is the parent's); an address put in a namespace by name needs one there
        (`parent_required`), as the reference's do. Left to `parents` otherwise."""
        named, parent_named, namespace = self.parent_question()
        if not (named or parent_named) or parents.span_of(self) is None:
            return
        self.namespace_id = namespace
        found = parents.closest(self)
        if parent_named and found != self.parent_id:
            expected = parents.batch_read(
                self, "prefix", found, lambda: Prefix.objects.filter(pk=found).first()
            )
            raise ValidationError(
                {
                    "parent": [
                        f"{self.parent} cannot be assigned as the parent of {self}. "
                        f" In namespace {self.namespace_read()}, the expected parent would be {expected}."
                    ]
                }
            )
        if found is None and self.parent_required:
            host = networks.address_text(self.ip_version, self.host_address)
            raise ValidationError(
                {
                    "namespace": [
                        f"No suitable parent Prefix for {host} exists in Namespace {self.namespace_read()}"
                    ]
                }
            )
        self.parent_id = found

    def namespace_read(self):
        pk = self.namespace_id
        return parents.batch_read(self, "namespace", pk, lambda: Namespace.objects.filter(pk=pk).first())

    @classmethod
    def prepare_batch_clean(cls, objects: list) -> None:
        """What `check_parent` reads, for the whole batch at once."""
        parents.read_for_clean(objects, cls.parent_required)

    def save(self, *args, **kwargs):
        super().save(*args, **kwargs)
        parents.touched(self, getattr(self, "stored_span", None))

    def prepare_for_bulk(self):
        """The spans whose parents this write changes, reparented once the write's rows are stored."""
        super().prepare_for_bulk()
        parents.touched(self, getattr(self, "stored_span", None))


class Prefix(SingleLocation, NetworkModel):
    natural_key_field_names = ("namespace", "network", "prefix_length")

    TYPES = [("container", "Container"), ("network", "Network"), ("pool", "Pool")]

    prefix_length = models.PositiveSmallIntegerField(
        editable=False, help_text="Length of the Network prefix, in bits."
    )
    type = models.CharField(max_length=50, choices=TYPES, default="network")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="children",
        help_text="The parent Prefix of this Prefix.",
    )
    rir = models.ForeignKey(
        RIR,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="prefixes",
        verbose_name="RIR",
        help_text="Regional Internet Registry responsible for this prefix",
    )
    date_allocated = models.DateTimeField(
        null=True, blank=True, help_text="Date this prefix was allocated to an RIR, reserved in IPAM, etc."
    )
    vrf = models.ForeignKey(VRF, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="prefixes"
    )
    vlan = models.ForeignKey(VLAN, on_delete=models.PROTECT, null=True, blank=True, related_name="prefixes")
    # What a write names as its one location (`locations` holds them all and is what reads
    # show); a location deleted takes its assignments with it, as the reference's.
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.SET_NULL, null=True, blank=True, related_name="prefixes"
    )
    description = models.CharField(max_length=200, blank=True)
    locations = models.ManyToManyField(
        "dcim.Location", through="ipam.PrefixLocationAssignment", related_name="assigned_prefixes", blank=True
    )
    # The VRFs the prefix is assigned to (the other side of a VRF's `prefixes`), read-only.
    vrfs = models.ManyToManyField(
        VRF,
        through="ipam.VRFPrefixAssignment",
        through_fields=("prefix", "vrf"),
        related_name="+",
        blank=True,
    )

    class Meta:
        ordering = ["ip_version", "network_address", "prefix_length"]
        verbose_name_plural = "prefixes"
        indexes = [models.Index(fields=["ip_version", "network_address", "broadcast_address"])]

    def __str__(self) -> str:
        return self.cidr

    def clean(self):
        super().clean()
        self.check_parent()
        ranges.ranges_left_outside(self)

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
    natural_key_field_names = ("parent__namespace", "host")

    TYPES = [("dhcp", "DHCP"), ("host", "Host"), ("slaac", "SLAAC")]
    parent_required = True

    host_address = models.BinaryField(max_length=networks.WIDTH, editable=False)
    place_columns = NetworkModel.place_columns | {"host_address"}
    mask_length = models.PositiveSmallIntegerField(
        editable=False, help_text="Length of the network mask, in bits."
    )
    type = ValueChoiceField(max_length=50, choices=TYPES, default="host")
    parent = models.ForeignKey(
        Prefix,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="ip_addresses",
        help_text="The parent Prefix of this IPAddress.",
    )
    dns_name = models.CharField(
        "DNS name", max_length=255, blank=True, help_text="Hostname or FQDN (not case-sensitive)"
    )
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
        help_text='The IP Addresses for which this address is the "outside" IP',
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
        # One address per host in a namespace (the reference's unique parent and host: a host's
        # parent is the one closest prefix of its namespace), worded as the reference words it.
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "ip_version", "host_address"],
                name="ipam_ipaddress_namespace_host",
                violation_error_message="IP address with this Parent and Host already exists.",
            )
        ]
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
        if self.type == "slaac" and self.ip_version != 6:
            raise ValidationError({"type": ["Only IPv6 addresses can be assigned SLAAC type"]})
        ranges.exclusive_range_refusal(self)
        self.check_parent()

    @classmethod
    def prepare_batch_clean(cls, addresses: list) -> None:
        """The exclusive ranges holding the batch's addresses too (one statement, and one more
        for those found)."""
        ranges.read_exclusive_ranges(addresses)
        super().prepare_batch_clean(addresses)


class IPAddressRange(ranges.RangeRules, NamespacedModel):
    """A span of host addresses, first to last, inside one prefix (`parent`) of a namespace."""

    natural_key_field_names = ("namespace", "start_host")
    per_object_writes = True  # checked against the namespace's other ranges, one by one

    name = models.CharField(
        max_length=255, blank=True, db_index=True, help_text="Name of the IP Address Range"
    )
    ip_version = models.PositiveSmallIntegerField("IP version", editable=False)
    start_host_address = models.BinaryField(max_length=networks.WIDTH, editable=False)
    end_host_address = models.BinaryField(max_length=networks.WIDTH, editable=False)
    parent = models.ForeignKey(
        Prefix,
        on_delete=models.SET_NULL,  # the next prefix up takes the range (parents.reparent)
        null=True,
        blank=True,
        related_name="ip_address_ranges",
        help_text="The parent Prefix of this IP Address Range. Auto-resolved from the start/end host.",
    )
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="ip_address_ranges"
    )
    description = models.CharField(max_length=255, blank=True)
    count_as_utilized = models.BooleanField(
        "mark as fully utilized",
        default=False,
        help_text="Forces this range to count as fully utilized in prefix utilization calculations.",
    )
    is_exclusive = models.BooleanField(
        "exclusive (block IPs)",
        default=False,
        help_text="Prevent individual IP Address objects from being created within this range.",
    )

    class Meta:
        ordering = ["namespace", "ip_version", "start_host_address"]
        verbose_name = "IP address range"
        verbose_name_plural = "IP address ranges"
        # Ranges never overlap (checked when written): one starts at any address.
        indexes = [models.Index(fields=["namespace", "ip_version", "start_host_address", "end_host_address"])]


class Service(PrimaryModel):
    """A layer-four service (SSH, HTTP...) on a device or a virtual machine, optionally bound to
    some of its addresses."""

    natural_key_field_names = ("name", "virtual_machine", "device")

    PROTOCOLS = [("tcp", "TCP"), ("udp", "UDP")]
    PORT_MIN, PORT_MAX = 1, 65535

    device = models.ForeignKey(
        "dcim.Device",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="services",
        help_text="Required if no virtual_machine is specified",
    )
    virtual_machine = models.ForeignKey(
        "virtualization.VirtualMachine",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="services",
        help_text="Required if no device is specified",
    )
    name = models.CharField(max_length=255, db_index=True)
    protocol = models.CharField(max_length=50, choices=PROTOCOLS)
    # A list of port numbers (shown and written through the resource's `ports`).
    ports = models.JSONField(default=list, verbose_name="port numbers")
    ip_addresses = models.ManyToManyField(
        IPAddress, related_name="services", blank=True, verbose_name="IP addresses"
    )
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["protocol", "ports"]  # (protocol, ports) may repeat
        constraints = [
            models.UniqueConstraint(
                fields=["name", "device"],
                name="ipam_service_device_name",
                violation_error_message="The fields name, device must make a unique set.",
            ),
            models.UniqueConstraint(
                fields=["name", "virtual_machine"],
                name="ipam_service_vm_name",
                violation_error_message="The fields name, virtual_machine must make a unique set.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_protocol_display()}/{port_list(self.ports)})"

    def clean(self):
        super().clean()
        if self.device_id and self.virtual_machine_id:
            raise ValidationError("A service cannot be associated with both a device and a virtual machine.")
        if not self.device_id and not self.virtual_machine_id:
            raise ValidationError("A service must be associated with either a device or a virtual machine.")

    def set_ports(self, value) -> None:
        """A list of port numbers, each an integer (or its text) from 1 to 65535; errors by
        position, as a list's items report them."""
        if isinstance(value, str | dict) or not isinstance(value, list):
            raise ValueError(f'Expected a list of items but got type "{type(value).__name__}".')
        found, errors = [], {}
        for index, item in enumerate(value):
            try:
                number = port_number(item)
            except ValueError as exc:
                errors[str(index)] = [str(exc)]
            else:
                found.append(number)
        if errors:
            raise ValidationError(errors)
        if not found:
            raise ValueError("This field cannot be blank.")
        self.ports = found


def port_number(item) -> int:
    text = str(item)
    if isinstance(item, bool) or len(text) > 1000:
        raise ValueError("A valid integer is required.")
    try:
        number = int(text[:-2] if text.endswith(".0") else text)
    except ValueError:
        raise ValueError("A valid integer is required.") from None
    if number < Service.PORT_MIN:
        raise ValueError(f"Ensure this value is greater than or equal to {Service.PORT_MIN}.")
    if number > Service.PORT_MAX:
        raise ValueError(f"Ensure this value is less than or equal to {Service.PORT_MAX}.")
    return number


def port_list(ports) -> str:
    """Ports as the reference words them: runs of consecutive numbers as ranges (22, 80-82)."""
    numbers = sorted(ports or [])
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


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
    """A VRF on exactly one device, virtual machine or virtual device context."""

    vrf = models.ForeignKey(VRF, on_delete=models.CASCADE, related_name="device_assignments")
    device = models.ForeignKey(
        "dcim.Device", on_delete=models.CASCADE, null=True, blank=True, related_name="vrf_assignments"
    )
    virtual_machine = models.ForeignKey(
        "virtualization.VirtualMachine",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="vrf_assignments",
    )
    virtual_device_context = models.ForeignKey(
        "dcim.VirtualDeviceContext",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="vrf_assignments",
    )
    rd = models.CharField(  # noqa: DJ001
        "route distinguisher", max_length=21, null=True, blank=True, help_text="Unique route distinguisher"
    )
    name = models.CharField(max_length=255, blank=True, help_text="The name of the VRF on the device")

    class Meta:
        ordering = ["vrf", "device", "virtual_machine", "virtual_device_context", "id"]
        verbose_name = "VRF-device assignment"
        constraints = [
            models.UniqueConstraint(fields=["vrf", "device"], name="ipam_vrf_device_once"),
            models.UniqueConstraint(fields=["vrf", "virtual_machine"], name="ipam_vrf_virtual_machine_once"),
            models.UniqueConstraint(
                fields=["vrf", "virtual_device_context"], name="ipam_vrf_virtual_device_context_once"
            ),
        ]

    def clean(self):
        super().clean()
        # Unset, the route distinguisher and name are the VRF's own.
        if not self.rd and self.vrf_id is not None:
            self.rd = self.vrf.rd
        if not self.name and self.vrf_id is not None:
            self.name = self.vrf.name
        ends = {
            "a device": self.device_id,
            "a virtual machine": self.virtual_machine_id,
            "a virtual device context": self.virtual_device_context_id,
        }
        given = [noun for noun, pk in ends.items() if pk is not None]
        if len(given) > 1:
            raise ValidationError(
                f"A VRFDeviceAssignment entry cannot be associated with both {given[0]} and {given[1]}."
            )
        if not given:
            raise ValidationError(
                "A VRFDeviceAssignment entry must be associated with a device, a virtual machine, "
                "or a virtual device context."
            )


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
        verbose_name = "IP address assignment"
        constraints = [
            models.UniqueConstraint(fields=["ip_address", "interface"], name="ipam_ipaddress_interface_once"),
            models.UniqueConstraint(
                fields=["ip_address", "vm_interface"], name="ipam_ipaddress_vminterface_once"
            ),
        ]

    def unique_error_message(self, model_class, unique_check):
        # As the reference words an IP address assigned to one interface twice.
        error = ValidationError(f"The fields {', '.join(sorted(unique_check))} must make a unique set.")
        error.code = "unique_together"  # read by Django's constraint validation
        return error

    def clean(self):
        super().clean()
        if self.interface_id and self.vm_interface_id:
            raise ValidationError(
                {
                    "interface": "Cannot use a single instance to associate to both an Interface and a VMInterface."
                }
            )
        if not self.interface_id and not self.vm_interface_id:
            raise ValidationError({"interface": "Must associate to either an Interface or a VMInterface."})


def check_primary_ips(owner, assignments, noun: str, refusal: str = "", via_nat: bool = True) -> None:
    """`primary_ip4`/`primary_ip6` of a device, virtual machine or virtual device context: of the
    right family, and on one of its interfaces (`assignments`), or (`via_nat`) the inside of such
    an address. `refusal` words the second error ({address} filled in), as the reference does."""
    for field, version in (("primary_ip4", 4), ("primary_ip6", 6)):
        address = getattr(owner, field)
        if address is None:
            continue
        if address.ip_version != version:
            raise ValidationError({field: [f"{address} is not an IPv{version} address."]})
        candidates = {address.pk} | ({address.nat_inside_id} if via_nat and address.nat_inside_id else set())
        if (owner.pk is None and via_nat) or not assignments.filter(ip_address__in=candidates).exists():
            message = refusal or "The specified IP address ({address}) is not assigned to this " + noun + "."
            raise ValidationError({field: [message.format(address=address)]})


# A deleted prefix's children take the next prefix up (deletions run through Django's collector,
# which calls no model method).
models.signals.post_delete.connect(parents.deleted, sender=Prefix, dispatch_uid="ipam.prefix.reparent")
models.signals.pre_delete.connect(ranges.kept_parent, sender=Prefix, dispatch_uid="ipam.prefix.ranges")
