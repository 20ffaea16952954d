"""Load balancers: virtual servers on a VIP, the pools of members they balance over, the health
checks that watch them and the certificate profiles servers and members present."""

from django.core.validators import MaxValueValidator
from django.db import models

from inventory.base import BaseModel, PrimaryModel
from inventory.ipam import networks

from . import choices


def port_field(**kwargs) -> models.PositiveIntegerField:
    return models.PositiveIntegerField(validators=[MaxValueValidator(choices.PORT_MAX)], **kwargs)


def protected(to: str, related_name: str, **kwargs) -> models.ForeignKey:
    """An optional reference that keeps its object from being deleted, as all of the
    reference's load-balancer references do."""
    return models.ForeignKey(
        to, on_delete=models.PROTECT, related_name=related_name, blank=True, null=True, **kwargs
    )


def unique_set(fields: list[str], name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=fields,
        name=name,
        violation_error_message=f"The fields {', '.join(fields)} must make a unique set.",
    )


def charfield(**kwargs) -> models.CharField:
    return models.CharField(max_length=255, **kwargs)


class VirtualServer(PrimaryModel):
    """An address and port clients connect to, served by a device, a redundancy group, a cloud
    service or a virtual chassis and balanced over a pool."""

    vip = models.ForeignKey(
        "ipam.IPAddress", on_delete=models.PROTECT, related_name="virtual_servers", verbose_name="VIP"
    )
    name = charfield()
    port = port_field(blank=True, null=True)
    protocol = charfield(blank=True, choices=choices.PROTOCOLS)
    source_nat_pool = protected("ipam.Prefix", "virtual_servers", verbose_name="Source NAT Pool")
    source_nat_type = charfield(blank=True, choices=choices.SOURCE_NAT_TYPES, verbose_name="Source NAT Type")
    load_balancer_type = charfield(blank=True, choices=choices.LOAD_BALANCER_TYPES)
    enabled = models.BooleanField(default=True)
    ssl_offload = models.BooleanField(default=False, verbose_name="SSL Offload")
    device = protected("dcim.Device", "virtual_servers")
    device_redundancy_group = protected("dcim.DeviceRedundancyGroup", "virtual_servers")
    cloud_service = protected("cloud.CloudService", "virtual_servers")
    virtual_chassis = protected("dcim.VirtualChassis", "virtual_servers")
    tenant = protected("tenancy.Tenant", "virtual_servers")
    load_balancer_pool = protected("load_balancers.LoadBalancerPool", "virtual_servers")
    health_check_monitor = protected(
        "load_balancers.HealthCheckMonitor", "virtual_servers", verbose_name="Health Check Monitor"
    )
    certificate_profiles = models.ManyToManyField(
        "load_balancers.CertificateProfile",
        related_name="virtual_servers",
        verbose_name="Certificate Profile",
        blank=True,
        through="load_balancers.VirtualServerCertificateProfileAssignment",
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "Virtual Server"
        # A port left unset is no port: such servers never clash (NULLs are distinct).
        constraints = [unique_set(["vip", "port", "protocol"], "load_balancers_virtualserver_vip_port")]


class LoadBalancerPool(PrimaryModel):
    name = charfield()
    load_balancing_algorithm = charfield(choices=choices.LOAD_BALANCING_ALGORITHMS)
    health_check_monitor = protected(
        "load_balancers.HealthCheckMonitor", "load_balancer_pools", verbose_name="Health Check Monitor"
    )
    tenant = protected("tenancy.Tenant", "load_balancer_pools")

    # Names are not unique: a pool is named by its id, as the reference names it.
    natural_key_field_names = ("pk",)

    class Meta:
        ordering = ["name"]
        verbose_name = "Load Balancer Pool"


class LoadBalancerPoolMember(PrimaryModel):
    label = charfield(blank=True, help_text="Optional label for the load balancer pool member.")
    ip_address = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.CASCADE,
        related_name="load_balancer_pool_members",
        verbose_name="IP Address",
    )
    load_balancer_pool = models.ForeignKey(
        LoadBalancerPool, on_delete=models.PROTECT, related_name="load_balancer_pool_members"
    )
    port = port_field()
    ssl_offload = models.BooleanField(default=False, verbose_name="SSL Offload")
    health_check_monitor = protected(
        "load_balancers.HealthCheckMonitor", "load_balancer_pool_members", verbose_name="Health Check Monitor"
    )
    certificate_profiles = models.ManyToManyField(
        "load_balancers.CertificateProfile",
        related_name="load_balancer_pool_members",
        verbose_name="Certificate Profile",
        blank=True,
        through="load_balancers.LoadBalancerPoolMemberCertificateProfileAssignment",
    )
    tenant = protected("tenancy.Tenant", "load_balancer_pool_members")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = "Load Balancer Pool Member"
        constraints = [
            unique_set(["ip_address", "port", "load_balancer_pool"], "load_balancers_poolmember_address_port")
        ]

    def __str__(self) -> str:
        address = self.ip_address
        return f"{networks.address_text(address.ip_version, address.host_address)}:{self.port}"


class HealthCheckMonitor(PrimaryModel):
    name = charfield(unique=True)
    interval = models.PositiveIntegerField(blank=True, null=True)
    retry = models.PositiveIntegerField(
        blank=True, null=True, help_text="Number of retries before marking as down"
    )
    timeout = models.PositiveIntegerField(blank=True, null=True)
    port = port_field(blank=True, null=True)
    health_check_type = charfield(blank=True, choices=choices.HEALTH_CHECK_TYPES)
    tenant = protected("tenancy.Tenant", "health_check_monitors")

    class Meta:
        ordering = ["name"]
        verbose_name = "Health Check Monitor"


class CertificateProfile(PrimaryModel):
    name = charfield(unique=True)
    certificate_type = charfield(blank=True, choices=choices.CERTIFICATE_TYPES)
    certificate_file_path = charfield(blank=True, verbose_name="Certificate file path")
    chain_file_path = charfield(blank=True, verbose_name="Chain file path")
    key_file_path = charfield(blank=True, verbose_name="Key file path")
    expiration_date = models.DateTimeField(blank=True, null=True)
    cipher = charfield(blank=True)
    tenant = protected("tenancy.Tenant", "certificate_profiles", verbose_name="Tenant")

    class Meta:
        ordering = ["name"]
        verbose_name = "Certificate Profile"


class VirtualServerCertificateProfileAssignment(BaseModel):
    virtual_server = models.ForeignKey(
        VirtualServer, on_delete=models.CASCADE, related_name="certificate_profile_assignments"
    )
    certificate_profile = models.ForeignKey(
        CertificateProfile, on_delete=models.CASCADE, related_name="virtual_server_assignments"
    )

    class Meta:
        ordering = ["virtual_server", "certificate_profile"]
        constraints = [
            unique_set(["virtual_server", "certificate_profile"], "load_balancers_virtualserver_profile_once")
        ]

    def __str__(self) -> str:
        return f"{self.virtual_server}: {self.certificate_profile}"


class LoadBalancerPoolMemberCertificateProfileAssignment(BaseModel):
    load_balancer_pool_member = models.ForeignKey(
        LoadBalancerPoolMember, on_delete=models.CASCADE, related_name="certificate_profile_assignments"
    )
    certificate_profile = models.ForeignKey(
        CertificateProfile, on_delete=models.CASCADE, related_name="load_balancer_pool_member_assignments"
    )

    class Meta:
        ordering = ["load_balancer_pool_member", "certificate_profile"]
        constraints = [
            unique_set(
                ["load_balancer_pool_member", "certificate_profile"], "load_balancers_poolmember_profile_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.load_balancer_pool_member}: {self.certificate_profile}"
