"""Virtual device contexts: a device partitioned into logical devices, each with its interfaces."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel, PrimaryModel


class VirtualDeviceContext(PrimaryModel):
    name = models.CharField(max_length=255)
    device = models.ForeignKey(
        "dcim.Device", on_delete=models.CASCADE, related_name="virtual_device_contexts"
    )
    identifier = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Unique identifier provided by the platform being virtualized (Example: Nexus VDC Identifier)",
    )
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    primary_ip4 = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="ip4_vdcs",
        verbose_name="Primary IPv4",
    )
    primary_ip6 = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="ip6_vdcs",
        verbose_name="Primary IPv6",
    )
    tenant = models.ForeignKey(
        "tenancy.Tenant",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="virtual_device_contexts",
    )
    interfaces = models.ManyToManyField(
        "dcim.Interface",
        through="dcim.InterfaceVDCAssignment",
        related_name="virtual_device_contexts",
        blank=True,
    )
    description = models.CharField(max_length=255, blank=True)
    controller_managed_device_group = models.ForeignKey(
        "dcim.ControllerManagedDeviceGroup",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="virtual_device_contexts",
    )

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["device", "identifier"], name="dcim_vdc_device_identifier"),
            models.UniqueConstraint(fields=["device", "name"], name="dcim_vdc_device_name"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        if not self._state.adding:
            stored = getattr(self, "stored_values", None)  # kept beside each object by a bulk update
            if stored is not None:
                previous = stored["device_id"]
            else:
                before = VirtualDeviceContext.objects.filter(pk=self.pk)
                previous = before.values_list("device_id", flat=True).first()
            if previous is not None and previous != self.device_id:
                # The reference's serializer says so, not its model: `non_field_errors`.
                raise ValidationError(
                    {"non_field_errors": ["Changing the device of a VirtualDeviceContext is not allowed."]}
                )
        self.clean_primary_ips()

    def clean_primary_ips(self) -> None:
        """A primary address is of its family and on an interface of the context's device."""
        from inventory.ipam.models import IPAddressToInterface, check_primary_ips

        check_primary_ips(
            self,
            IPAddressToInterface.objects.filter(interface__device=self.device_id),
            "VDC",
            refusal="{address} is not part of an interface that belongs to this VDC's device.",
            via_nat=False,
        )


class InterfaceVDCAssignment(BaseModel):
    virtual_device_context = models.ForeignKey(
        VirtualDeviceContext, on_delete=models.CASCADE, related_name="interface_assignments"
    )
    interface = models.ForeignKey(
        "dcim.Interface", on_delete=models.CASCADE, related_name="virtual_device_context_assignments"
    )

    class Meta:
        ordering = ["virtual_device_context", "interface", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["virtual_device_context", "interface"], name="dcim_interfacevdcassignment_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.virtual_device_context}: {self.interface}"
