"""VPNs: profiles and the IKE phase 1 and 2 policies they use, tunnels between endpoints, and
the VLANs and interfaces services terminate on."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel, PrimaryModel

from . import choices


def choice_list(value, allowed: list) -> list[str] | None:
    """A list of choices as the reference's list fields take it: errors by item index."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValidationError(f'Expected a list of items but got type "{type(value).__name__}".')
    values = {v for v, _ in allowed}
    found, errors = [], {}
    for index, item in enumerate(value):
        if isinstance(item, dict) and "value" in item:  # as a read shows a choice
            item = item["value"]
        if isinstance(item, str | int) and not isinstance(item, bool) and str(item) in values:
            found.append(str(item))
        else:
            errors[str(index)] = [f'"{item}" is not a valid choice.']
    if errors:
        raise ValidationError(errors)
    return found


def role_field() -> models.ForeignKey:
    return models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")


def tenant_field(related_name: str) -> models.ForeignKey:
    return models.ForeignKey(
        "tenancy.Tenant", on_delete=models.SET_NULL, related_name=related_name, blank=True, null=True
    )


def secrets_group_field(related_name: str) -> models.ForeignKey:
    return models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.SET_NULL,
        related_name=related_name,
        default=None,
        blank=True,
        null=True,
    )


class ChoiceLists(models.Model):
    """A model with lists of choices (`LISTS`: field -> choices), checked on every clean."""

    LISTS: dict = {}

    class Meta:
        abstract = True

    def clean(self):
        super().clean()
        errors = {}
        for name, allowed in self.LISTS.items():
            try:
                setattr(self, name, choice_list(getattr(self, name), allowed))
            except ValidationError as exc:
                errors[name] = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        if errors:
            raise ValidationError(errors)


class VPNProfile(PrimaryModel):
    vpn_phase1_policies = models.ManyToManyField(
        "vpn.VPNPhase1Policy",
        related_name="vpn_profiles",
        verbose_name="VPN Phase 1 Policy",
        through="vpn.VPNProfilePhase1PolicyAssignment",
        blank=True,
        help_text="Phase 1 Policy",
    )
    vpn_phase2_policies = models.ManyToManyField(
        "vpn.VPNPhase2Policy",
        related_name="vpn_profiles",
        verbose_name="VPN Phase 2 Policy",
        through="vpn.VPNProfilePhase2PolicyAssignment",
        blank=True,
        help_text="Phase 2 Policy",
    )
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    role = role_field()
    secrets_group = secrets_group_field("vpn_profiles")
    keepalive_enabled = models.BooleanField(default=False, verbose_name="Enable keepalive")
    keepalive_interval = models.PositiveIntegerField(blank=True, null=True)
    keepalive_retries = models.PositiveIntegerField(blank=True, null=True)
    nat_traversal = models.BooleanField(default=False, verbose_name="Enable NAT Traversal")
    extra_options = models.JSONField(
        blank=True,
        null=True,
        help_text="Additional options specific to the VPN technology and/or implementation",
    )
    tenant = tenant_field("vpn_profiles")

    class Meta:
        ordering = ["name"]
        verbose_name = "VPN Profile"


class VPNPhase1Policy(ChoiceLists, PrimaryModel):
    LISTS = {
        "encryption_algorithm": choices.ENCRYPTION_ALGORITHMS,
        "integrity_algorithm": choices.INTEGRITY_ALGORITHMS,
        "dh_group": choices.DH_GROUPS,
    }

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    ike_version = models.CharField(
        max_length=255, choices=choices.IKE_VERSIONS, blank=True, verbose_name="IKE version"
    )
    aggressive_mode = models.BooleanField(default=False, help_text="Only applicable to IKEv1")
    # Lists of choices (JSON, the same on every database), shown and taken as lists.
    encryption_algorithm = models.JSONField(blank=True, null=True)
    integrity_algorithm = models.JSONField(blank=True, null=True)
    dh_group = models.JSONField(blank=True, null=True, verbose_name="Diffie-Hellman group")
    lifetime_seconds = models.PositiveIntegerField(blank=True, null=True, verbose_name="Lifetime (seconds)")
    lifetime_kb = models.PositiveIntegerField(blank=True, null=True, verbose_name="Lifetime (kilobytes)")
    authentication_method = models.CharField(
        max_length=255,
        choices=choices.AUTHENTICATION_METHODS,
        blank=True,
        help_text="PSK, RSA, ECDSA, Certificate",
    )
    tenant = tenant_field("vpn_phase_1_policies")

    class Meta:
        ordering = ["name"]
        verbose_name = "VPN Phase 1 Policy"
        verbose_name_plural = "VPN Phase 1 Policies"


class VPNPhase2Policy(ChoiceLists, PrimaryModel):
    LISTS = {
        "encryption_algorithm": choices.ENCRYPTION_ALGORITHMS,
        "integrity_algorithm": choices.INTEGRITY_ALGORITHMS,
        "pfs_group": choices.DH_GROUPS,
    }

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    encryption_algorithm = models.JSONField(blank=True, null=True)
    integrity_algorithm = models.JSONField(blank=True, null=True)
    pfs_group = models.JSONField(blank=True, null=True, verbose_name="PFS group")
    lifetime = models.PositiveIntegerField(blank=True, null=True, verbose_name="Lifetime (seconds)")
    tenant = tenant_field("vpn_phase_2_policies")

    class Meta:
        ordering = ["name"]
        verbose_name = "VPN Phase 2 Policy"
        verbose_name_plural = "VPN Phase 2 Policies"


def unique_pair(first: str, second: str, name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=[first, second],
        name=name,
        violation_error_message=f"The fields {first}, {second} must make a unique set.",
    )


WEIGHT_HELP = "Higher weights appear later in the list"


class VPNProfilePhase1PolicyAssignment(BaseModel):
    vpn_profile = models.ForeignKey(
        VPNProfile, on_delete=models.CASCADE, related_name="vpn_profile_phase1_policy_assignments"
    )
    vpn_phase1_policy = models.ForeignKey(
        VPNPhase1Policy, on_delete=models.CASCADE, related_name="vpn_profile_phase1_policy_assignments"
    )
    weight = models.PositiveIntegerField(default=100, help_text=WEIGHT_HELP)

    class Meta:
        ordering = ["weight", "vpn_profile", "vpn_phase1_policy"]
        constraints = [unique_pair("vpn_profile", "vpn_phase1_policy", "vpn_profile_phase1_policy_once")]

    def __str__(self) -> str:
        return f"{self.vpn_profile}: {self.vpn_phase1_policy}"


class VPNProfilePhase2PolicyAssignment(BaseModel):
    vpn_profile = models.ForeignKey(
        VPNProfile, on_delete=models.CASCADE, related_name="vpn_profile_phase2_policy_assignments"
    )
    vpn_phase2_policy = models.ForeignKey(
        VPNPhase2Policy, on_delete=models.CASCADE, related_name="vpn_profile_phase2_policy_assignments"
    )
    weight = models.PositiveIntegerField(default=100, help_text=WEIGHT_HELP)

    class Meta:
        ordering = ["weight", "vpn_profile", "vpn_phase2_policy"]
        constraints = [unique_pair("vpn_profile", "vpn_phase2_policy", "vpn_profile_phase2_policy_once")]

    def __str__(self) -> str:
        return f"{self.vpn_profile}: {self.vpn_phase2_policy}"


class VPN(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    vpn_id = models.CharField(max_length=255, blank=True, verbose_name="Identifier")
    vpn_profile = models.ForeignKey(
        VPNProfile,
        on_delete=models.PROTECT,
        related_name="vpns",
        default=None,
        blank=True,
        null=True,
        verbose_name="VPN Profile",
    )
    role = role_field()
    tenant = tenant_field("vpns")
    service_type = models.CharField(
        max_length=255,
        choices=choices.SERVICE_TYPES,
        blank=True,
        help_text="Optional classification of this VPN service, for example IPSec or VXLAN-EVPN.",
    )
    status = models.ForeignKey(
        "extras.Status", on_delete=models.PROTECT, related_name="+", blank=True, null=True
    )
    extra_attributes = models.JSONField(
        blank=True,
        default=dict,
        help_text="Free-form scalar service metadata only; not for references to real Nautobot objects.",
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "VPN"

    def clean(self):
        super().clean()
        if self.service_type not in choices.VXLAN_TYPES:
            return
        if not self.vpn_id:
            raise ValidationError({"vpn_id": "Identifier is required for VXLAN-based VPN services."})
        try:
            vni = int(self.vpn_id)
        except (TypeError, ValueError):
            raise ValidationError(
                {"vpn_id": "Identifier must be a numeric VNI for VXLAN-based VPN services."}
            ) from None
        if not choices.VNI_MIN <= vni <= choices.VNI_MAX:
            raise ValidationError({"vpn_id": f"VNI must be between {choices.VNI_MIN} and {choices.VNI_MAX}."})


class VPNTunnel(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    tunnel_id = models.CharField(max_length=255, blank=True, verbose_name="Tunnel ID")
    vpn_profile = models.ForeignKey(
        VPNProfile,
        on_delete=models.PROTECT,
        related_name="vpn_tunnels",
        blank=True,
        null=True,
        verbose_name="VPN Profile",
    )
    vpn = models.ForeignKey(
        VPN,
        on_delete=models.CASCADE,
        related_name="vpn_tunnels",
        blank=True,
        null=True,
        verbose_name="VPN",
        help_text="VPN to which this tunnel belongs",
    )
    role = role_field()
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    secrets_group = secrets_group_field("vpn_tunnels")
    encapsulation = models.CharField(max_length=255, choices=choices.ENCAPSULATIONS, blank=True)
    endpoint_a = models.ForeignKey(
        "vpn.VPNTunnelEndpoint",
        on_delete=models.SET_NULL,
        related_name="endpoint_a_vpn_tunnels",
        blank=True,
        null=True,
        verbose_name="Endpoint A",
        help_text="Tunnel termination A",
    )
    endpoint_z = models.ForeignKey(
        "vpn.VPNTunnelEndpoint",
        on_delete=models.SET_NULL,
        related_name="endpoint_z_vpn_tunnels",
        blank=True,
        null=True,
        verbose_name="Endpoint Z",
        help_text="Tunnel termination Z",
    )
    tenant = tenant_field("vpn_tunnels")

    class Meta:
        ordering = ["name"]
        verbose_name = "VPN Tunnel"

    def clean(self):
        super().clean()
        if self.endpoint_a_id and self.endpoint_a_id == self.endpoint_z_id:
            raise ValidationError("Endpoint A and Endpoint Z cannot be the same.")


class VPNTunnelEndpoint(PrimaryModel):
    # Derived on save from the source interface (its device's name and its own) or the FQDN.
    name = models.CharField(max_length=255, editable=False)
    device = models.ForeignKey(
        "dcim.Device",
        on_delete=models.CASCADE,
        related_name="vpn_tunnel_endpoints",
        blank=True,
        null=True,
        verbose_name="Device",
    )
    source_interface = models.OneToOneField(
        "dcim.Interface",
        on_delete=models.CASCADE,
        related_name="vpn_tunnel_endpoints_src_int",
        blank=True,
        null=True,
        verbose_name="Source Interface",
    )
    source_ipaddress = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        related_name="vpn_tunnel_endpoints_src_ip",
        blank=True,
        null=True,
        verbose_name="Source IP Address",
        help_text="Mutually Exclusive with Source FQDN.",
    )
    source_fqdn = models.CharField(
        max_length=255,
        blank=True,
        verbose_name="Source FQDN",
        help_text="Mutually Exclusive with Source IP Address",
    )
    tunnel_interface = models.OneToOneField(
        "dcim.Interface",
        on_delete=models.SET_NULL,
        related_name="vpn_tunnel_endpoints_tunnel",
        blank=True,
        null=True,
        verbose_name="Tunnel Interface",
    )
    vpn_profile = models.ForeignKey(
        VPNProfile,
        on_delete=models.PROTECT,
        related_name="vpn_tunnel_endpoints",
        blank=True,
        null=True,
        verbose_name="VPN Profile",
    )
    role = role_field()
    protected_prefixes = models.ManyToManyField(
        "ipam.Prefix", related_name="vpn_tunnel_endpoints", blank=True, verbose_name="Protected Prefixes"
    )
    protected_prefixes_dg = models.ManyToManyField(
        "extras.DynamicGroup",
        related_name="vpn_tunnel_endpoints",
        blank=True,
        verbose_name="Protected Prefixes Dynamic Group",
    )
    tenant = tenant_field("vpn_tunnel_endpoints")

    class Meta:
        ordering = ["name"]
        verbose_name = "VPN Tunnel Endpoint"

    def derived_name(self) -> str:
        interface = self.source_interface
        if interface is None:
            return self.source_fqdn
        named = f"{interface.device.name if interface.device_id else ''} {interface.name}"
        return f"{named} ({self.source_ipaddress})" if self.source_ipaddress_id else named

    def clean(self):
        super().clean()
        interface = self.source_interface
        if self.source_ipaddress_id and self.source_fqdn:
            raise ValidationError(
                "Source IP Address and Source FQDN are mutually exclusive fields. Select only one."
            )
        if not (self.source_interface_id or self.source_ipaddress_id or self.source_fqdn):
            raise ValidationError("Source Interface or Source IP Address or Source FQDN Is required.")
        if interface is not None and interface.device_id is None:
            raise ValidationError("Source Interface must belong to a device.")
        if (
            interface is not None
            and self.source_ipaddress_id
            and not interface.ip_addresses.filter(pk=self.source_ipaddress_id).exists()
        ):
            raise ValidationError("Source IP address must be assigned to Source Interface.")
        if (
            interface is not None
            and self.tunnel_interface_id
            and not same_device(interface.device, self.tunnel_interface.device)
        ):
            raise ValidationError("Tunnel Interface and Source Interface must be on the same device")

    def prepare_for_bulk(self):
        if self.source_interface_id:
            self.device_id = self.source_interface.device_id
        self.name = self.derived_name()

    def save(self, *args, **kwargs):
        self.prepare_for_bulk()
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return self.name


def same_device(device, other) -> bool:
    """The same device, or members of one virtual chassis (a device's interfaces include its
    chassis members', as the reference counts them)."""
    if device is None or other is None:
        return False
    if device.pk == other.pk:
        return True
    chassis = getattr(device, "virtual_chassis_id", None)
    return chassis is not None and chassis == getattr(other, "virtual_chassis_id", None)


class VPNTermination(PrimaryModel):
    """A VPN service bound to exactly one VLAN, interface or VM interface."""

    vpn = models.ForeignKey(VPN, on_delete=models.CASCADE, related_name="vpn_terminations")
    vlan = models.ForeignKey(
        "ipam.VLAN", on_delete=models.CASCADE, related_name="vpn_terminations", blank=True, null=True
    )
    interface = models.ForeignKey(
        "dcim.Interface", on_delete=models.CASCADE, related_name="vpn_terminations", blank=True, null=True
    )
    vm_interface = models.ForeignKey(
        "virtualization.VMInterface",
        on_delete=models.CASCADE,
        related_name="vpn_terminations",
        blank=True,
        null=True,
    )

    TARGETS = {
        "vlan": "ipam.vlan",
        "interface": "dcim.interface",
        "vm_interface": "virtualization.vminterface",
    }

    class Meta:
        ordering = ["vpn__name", "id"]
        verbose_name = "VPN Termination"
        verbose_name_plural = "VPN Terminations"
        constraints = [
            models.UniqueConstraint(fields=[name], name=f"vpn_vpntermination_unique_{name}")
            for name in ("vlan", "interface", "vm_interface")
        ]

    @property
    def assigned_object(self):
        return self.vlan or self.interface or self.vm_interface

    def __str__(self) -> str:
        assigned = self.assigned_object
        return f"{assigned} <> {self.vpn}" if self.pk and assigned else str(self.pk)

    def clean(self):
        super().clean()
        selected = [name for name in self.TARGETS if getattr(self, f"{name}_id") is not None]
        if len(selected) != 1:
            raise ValidationError("Exactly one of vlan, interface, or vm_interface must be set.")
        others = type(self).objects.exclude(pk=self.pk)
        name = selected[0]
        if others.filter(**{f"{name}_id": getattr(self, f"{name}_id")}).exists():
            raise ValidationError({name: "This object is already assigned to another VPN termination."})
        if self.vpn_id is None:
            return
        if self.vpn.service_type in choices.POINT_TO_POINT and others.filter(vpn_id=self.vpn_id).count() >= 2:
            label = choices.SERVICE_TYPE_LABELS[self.vpn.service_type]
            raise ValidationError(f"{label} VPNs cannot have more than 2 terminations.")
