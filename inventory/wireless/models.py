"""Wireless networks, the radio profiles access points use and the data rates a profile
supports, and which of them each controller-managed device group carries."""

from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel, PrimaryModel

from . import choices

CHANNEL_WIDTH_LABELS = dict(choices.CHANNEL_WIDTHS)


def unique_pair(first: str, second: str, name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=[first, second],
        name=name,
        violation_error_message=f"The fields {first}, {second} must make a unique set.",
    )


def integer_list(value, allowed: dict | None = None) -> list[int] | None:
    """A list of whole numbers as the reference's list fields take it (each one of `allowed`
    when given): errors by item index, `{"0": ["..."]}`."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise ValidationError(f'Expected a list of items but got type "{type(value).__name__}".')
    found, errors = [], {}
    for index, item in enumerate(value):
        if isinstance(item, dict) and "value" in item:  # as reads show a choice
            item = item["value"]
        number = item
        if isinstance(item, str):
            try:
                number = int(item.strip())
            except ValueError:
                number = None
        if isinstance(number, bool) or not isinstance(number, int):
            message = f"{item} is not a valid choice." if allowed else "A valid integer is required."
            errors[str(index)] = [message]
        elif allowed is not None and number not in allowed:
            errors[str(index)] = [f"{item} is not a valid choice."]
        else:
            found.append(number)
    if errors:
        raise ValidationError(errors)
    return found


class SupportedDataRate(PrimaryModel):
    standard = models.CharField(max_length=255, choices=choices.STANDARDS)
    rate = models.PositiveIntegerField(verbose_name="Rate (Kbps)")
    mcs_index = models.IntegerField(
        blank=True,
        null=True,
        help_text="The Modulation and Coding Scheme (MCS) index is a value used in wireless communications to "
        "define the modulation type, coding rate, and number of spatial streams used in a transmission.",
        verbose_name="Modulation and Coding Scheme (MCS) Index",
    )

    class Meta:
        ordering = ["standard", "rate"]
        constraints = [unique_pair("standard", "rate", "wireless_supporteddatarate_standard_rate")]

    def __str__(self) -> str:
        return f"{self.standard}: {self.rate} Kbps"


class RadioProfile(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    frequency = models.CharField(max_length=255, choices=choices.FREQUENCIES, blank=True)
    tx_power_min = models.IntegerField(blank=True, null=True, verbose_name="Transmit Power Minimum")
    tx_power_max = models.IntegerField(blank=True, null=True, verbose_name="Transmit Power Maximum")
    # Lists of numbers (JSON: the same on every database), shown and taken through the API's
    # list fields; `clean` holds other writers to the same rules.
    channel_width = models.JSONField(blank=True, null=True)
    allowed_channel_list = models.JSONField(
        blank=True,
        null=True,
        help_text="Comma-separated list of allowed channel numbers for this radio profile.",
    )
    supported_data_rates = models.ManyToManyField(
        SupportedDataRate, related_name="radio_profiles", blank=True
    )
    regulatory_domain = models.CharField(max_length=255, choices=choices.REGULATORY_DOMAINS)
    rx_power_min = models.IntegerField(blank=True, null=True, verbose_name="Receive Power Minimum")

    class Meta:
        ordering = ["name"]

    def clean(self):
        super().clean()
        errors = {}
        for name, allowed in (("channel_width", CHANNEL_WIDTH_LABELS), ("allowed_channel_list", None)):
            try:
                setattr(self, name, integer_list(getattr(self, name), allowed))
            except ValidationError as exc:
                errors[name] = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        if errors:
            raise ValidationError(errors)


class WirelessNetwork(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    ssid = models.CharField(max_length=255, verbose_name="SSID")
    mode = models.CharField(max_length=255, choices=choices.MODES)
    enabled = models.BooleanField(default=True)
    authentication = models.CharField(max_length=255, choices=choices.AUTHENTICATIONS)
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.PROTECT,
        related_name="wireless_networks",
        blank=True,
        null=True,
    )
    hidden = models.BooleanField(default=False)
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, related_name="wireless_networks", blank=True, null=True
    )

    class Meta:
        ordering = ["name"]


class ControllerManagedDeviceGroupWirelessNetworkAssignment(BaseModel):
    controller_managed_device_group = models.ForeignKey(
        "dcim.ControllerManagedDeviceGroup",
        on_delete=models.CASCADE,
        related_name="wireless_network_assignments",
    )
    wireless_network = models.ForeignKey(
        WirelessNetwork, on_delete=models.CASCADE, related_name="controller_managed_device_group_assignments"
    )
    vlan = models.ForeignKey(
        "ipam.VLAN",
        on_delete=models.PROTECT,
        related_name="controller_managed_device_group_wireless_network_assignments",
        blank=True,
        null=True,
    )

    class Meta:
        ordering = ["controller_managed_device_group", "wireless_network"]
        constraints = [
            unique_pair("controller_managed_device_group", "wireless_network", "wireless_group_network_once")
        ]

    def __str__(self) -> str:
        return f"{self.controller_managed_device_group}: {self.wireless_network}"


class ControllerManagedDeviceGroupRadioProfileAssignment(BaseModel):
    controller_managed_device_group = models.ForeignKey(
        "dcim.ControllerManagedDeviceGroup",
        on_delete=models.CASCADE,
        related_name="radio_profile_assignments",
    )
    radio_profile = models.ForeignKey(
        RadioProfile, on_delete=models.CASCADE, related_name="controller_managed_device_group_assignments"
    )

    class Meta:
        ordering = ["controller_managed_device_group", "radio_profile"]
        constraints = [
            unique_pair("controller_managed_device_group", "radio_profile", "wireless_group_profile_once")
        ]

    def __str__(self) -> str:
        return f"{self.controller_managed_device_group}: {self.radio_profile}"
