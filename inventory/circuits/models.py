"""Providers, their networks, and the circuits they deliver with their two terminations."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import OrganizationalModel, PrimaryModel, ValueChoiceField
from inventory.dcim.models.cables import CableTermination
from inventory.dcim.models.paths import PathEndpoint, retrace_through
from inventory.slugs import SlugModel

TERM_SIDES = ("A", "Z")


class Provider(SlugModel, PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    asn = models.PositiveBigIntegerField(
        null=True, blank=True, verbose_name="ASN", help_text="32-bit autonomous system number"
    )
    account = models.CharField(max_length=255, blank=True, verbose_name="Account number")
    portal_url = models.URLField(blank=True, verbose_name="Portal")
    noc_contact = models.TextField(blank=True, verbose_name="NOC contact")
    admin_contact = models.TextField(blank=True, verbose_name="Admin contact")
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        if self.asn is not None and not 1 <= self.asn <= 4294967295:
            raise ValidationError({"asn": ["Enter an ASN between 1 and 4294967295."]})


class ProviderNetwork(SlugModel, PrimaryModel):
    name = models.CharField(max_length=255, db_index=True)
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="provider_networks")
    description = models.CharField(max_length=255, blank=True)
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["provider__name", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "name"], name="circuits_providernetwork_provider_name"
            )
        ]


class CircuitType(SlugModel, OrganizationalModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]


class Circuit(PrimaryModel):
    cid = models.CharField(max_length=255, verbose_name="Circuit ID")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="circuits")
    circuit_type = models.ForeignKey(CircuitType, on_delete=models.PROTECT, related_name="circuits")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="circuits"
    )
    install_date = models.DateField(null=True, blank=True, verbose_name="Date installed")
    commit_rate = models.PositiveIntegerField(null=True, blank=True, verbose_name="Commit rate (Kbps)")
    description = models.CharField(max_length=255, blank=True)
    comments = models.TextField(blank=True)
    # Kept by the terminations themselves, so a circuit reads its two ends without a lookup.
    circuit_termination_a = models.ForeignKey(
        "circuits.CircuitTermination",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    circuit_termination_z = models.ForeignKey(
        "circuits.CircuitTermination",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )

    class Meta:
        ordering = ["provider__name", "cid"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "cid"], name="circuits_circuit_provider_cid")
        ]

    def __str__(self) -> str:
        return self.cid


class CircuitTermination(PathEndpoint, CableTermination, PrimaryModel):
    circuit = models.ForeignKey(Circuit, on_delete=models.CASCADE, related_name="circuit_terminations")
    term_side = ValueChoiceField(
        max_length=1, choices=[(side, side) for side in TERM_SIDES], verbose_name="Termination"
    )
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="circuit_terminations"
    )
    provider_network = models.ForeignKey(
        ProviderNetwork, on_delete=models.PROTECT, null=True, blank=True, related_name="circuit_terminations"
    )
    cloud_network = models.ForeignKey(
        "cloud.CloudNetwork",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="circuit_terminations",
    )
    port_speed = models.PositiveIntegerField(null=True, blank=True, verbose_name="Port speed (Kbps)")
    upstream_speed = models.PositiveIntegerField(
        null=True,
        blank=True,
        verbose_name="Upstream speed (Kbps)",
        help_text="Upstream speed, if different from port speed",
    )
    xconnect_id = models.CharField(max_length=255, blank=True, verbose_name="Cross-connect ID")
    pp_info = models.CharField(max_length=255, blank=True, verbose_name="Patch panel/port(s)")
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["circuit", "term_side"]
        constraints = [
            models.UniqueConstraint(
                fields=["circuit", "term_side"], name="circuits_circuittermination_circuit_side"
            )
        ]

    def __str__(self) -> str:
        where = self.location or self.provider_network or self.cloud_network
        return f"Termination {self.term_side}: {where}" if where else f"Termination {self.term_side}"

    def clean(self):
        super().clean()
        if not (self.location_id or self.provider_network_id or self.cloud_network_id):
            raise ValidationError(
                "A circuit termination must attach to a location, a provider network or a cloud network."
            )
        for first, second in (
            ("location", "provider network"),
            ("location", "cloud network"),
            ("provider network", "cloud network"),
        ):
            if getattr(self, f"{first.replace(' ', '_')}_id") and getattr(
                self, f"{second.replace(' ', '_')}_id"
            ):
                raise ValidationError(
                    f"A circuit termination cannot attach to both a {first} and a {second}."
                )
        if not self._state.adding:
            before = CircuitTermination.objects.filter(pk=self.pk).values_list("circuit", "term_side").first()
            if before and before[0] != self.circuit_id:
                raise ValidationError({"circuit": ["A termination cannot be moved to another circuit."]})

    def save(self, *args, **kwargs):
        before = None
        if not self._state.adding:
            before = CircuitTermination.objects.filter(pk=self.pk).values_list("term_side", flat=True).first()
        super().save(*args, **kwargs)
        changes = {f"circuit_termination_{self.term_side.lower()}": self.pk}
        if before and before != self.term_side:
            changes[f"circuit_termination_{before.lower()}"] = None
        Circuit.objects.filter(pk=self.circuit_id).update(**changes)
        # Paths that reached this circuit now cross to its other end (or stop here).
        retrace_through(*CircuitTermination.objects.filter(circuit=self.circuit_id))
