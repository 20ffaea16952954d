"""Clusters and the virtual machines that run on them, with their interfaces."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import ConfigContextModel, OrganizationalModel, PrimaryModel
from inventory.dcim.models.components import NaturallyOrdered
from inventory.dcim.models.interfaces import InterfaceBase
from inventory.slugs import SlugModel


class ClusterType(SlugModel, OrganizationalModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]


class ClusterGroup(SlugModel, OrganizationalModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]


class Cluster(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    cluster_type = models.ForeignKey(ClusterType, on_delete=models.PROTECT, related_name="clusters")
    cluster_group = models.ForeignKey(
        ClusterGroup, on_delete=models.PROTECT, null=True, blank=True, related_name="clusters"
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="clusters"
    )
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="clusters"
    )
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        if self.location_id is not None:
            self.location.check_admits(Cluster)


class VirtualMachine(ConfigContextModel, PrimaryModel):
    # Its clean method refuses a name taken in the same cluster and tenant (no constraint says
    # so), which an earlier item of the same batch may have taken: written object by object.
    per_object_writes = True

    cluster = models.ForeignKey(Cluster, on_delete=models.PROTECT, related_name="virtual_machines")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="virtual_machines"
    )
    platform = models.ForeignKey(
        "dcim.Platform", on_delete=models.SET_NULL, null=True, blank=True, related_name="virtual_machines"
    )
    name = models.CharField(max_length=255, db_index=True)
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    primary_ip4 = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="primary_ip4_for_virtual_machines",
        verbose_name="Primary IPv4",
    )
    primary_ip6 = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="primary_ip6_for_virtual_machines",
        verbose_name="Primary IPv6",
    )
    vcpus = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name="vCPUs")
    memory = models.PositiveIntegerField(null=True, blank=True, verbose_name="Memory (MB)")
    disk = models.PositiveIntegerField(null=True, blank=True, verbose_name="Disk (GB)")
    software_version = models.ForeignKey(
        "dcim.SoftwareVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="virtual_machines",
        help_text="The software version installed on this virtual machine",
    )
    comments = models.TextField(blank=True)
    software_image_files = models.ManyToManyField(
        "dcim.SoftwareImageFile",
        related_name="virtual_machines",
        blank=True,
        verbose_name="Software Image Files",
        help_text="Override the software image files associated with the software version for this virtual machine",
    )

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["cluster", "tenant", "name"], name="virtualization_vm_cluster_tenant_name"
            )
        ]

    def clean(self):
        super().clean()
        if self.name and self.cluster_id is not None:
            twins = VirtualMachine.objects.filter(
                name=self.name, cluster=self.cluster_id, tenant=self.tenant_id
            )
            if twins.exclude(pk=self.pk).exists():
                raise ValidationError(
                    {
                        "name": [
                            f'A virtual machine named "{self.name}" already exists in this cluster and tenant.'
                        ]
                    }
                )
        from inventory.ipam.models import IPAddressToInterface, check_primary_ips

        own = IPAddressToInterface.objects.filter(vm_interface__virtual_machine=self.pk)
        check_primary_ips(self, own, "virtual machine")

    @property
    def location(self):
        return self.cluster.location if self.cluster_id else None


class VMInterface(NaturallyOrdered, InterfaceBase, PrimaryModel):
    virtual_machine = models.ForeignKey(VirtualMachine, on_delete=models.CASCADE, related_name="interfaces")
    name = models.CharField(max_length=255, db_index=True)
    description = models.CharField(max_length=255, blank=True)
    ip_addresses = models.ManyToManyField(
        "ipam.IPAddress", through="ipam.IPAddressToInterface", related_name="+", blank=True
    )

    class Meta:
        ordering = ["virtual_machine", "_name", "id"]
        verbose_name = "VM interface"
        constraints = [
            models.UniqueConstraint(
                fields=["virtual_machine", "name"], name="virtualization_vminterface_vm_name"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def parent(self):
        return self.virtual_machine if self.virtual_machine_id else None

    def clean(self):
        super().clean()
        if not self._state.adding:
            previous = (
                VMInterface.objects.filter(pk=self.pk).values_list("virtual_machine", flat=True).first()
            )
            if previous is not None and previous != self.virtual_machine_id:
                raise ValidationError(
                    {"virtual_machine": ["Interfaces cannot be moved to a different virtual machine."]}
                )
        self.clean_addressing()
