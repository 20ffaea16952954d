"""Sample wireless inventory over the controllers' device groups: data rates, radio profiles,
wireless networks and the groups' assignments of them."""

from __future__ import annotations

from inventory.dcim.models import ControllerManagedDeviceGroup
from inventory.extras.models import SecretsGroup
from inventory.ipam.models import VLAN
from inventory.tenancy.models import Tenant
from inventory.wireless.models import (
    ControllerManagedDeviceGroupRadioProfileAssignment,
    ControllerManagedDeviceGroupWirelessNetworkAssignment,
    RadioProfile,
    SupportedDataRate,
    WirelessNetwork,
)
from tests.copies import copy_number


def build_wireless(s: str, sample: dict) -> dict[type, list]:
    campus, floor, leafs = sample[ControllerManagedDeviceGroup]
    # Rates are unique by standard and rate: a second sample (suffix) takes others.
    shift = copy_number(s)
    rates = [
        SupportedDataRate.objects.create(standard="802.11ac", rate=200000 + shift, mcs_index=4),
        SupportedDataRate.objects.create(standard="802.11ax", rate=574000 + shift, mcs_index=5),
        SupportedDataRate.objects.create(standard="802.11a", rate=54000 + shift),
    ]
    profiles = [
        RadioProfile.objects.create(
            name=f"campus 5GHz{s}",
            frequency="5GHz",
            tx_power_min=10,
            tx_power_max=20,
            rx_power_min=-75,
            regulatory_domain="GB",
            allowed_channel_list=[36, 40, 44],
            channel_width=[20, 40, 160],
        ),
        RadioProfile.objects.create(
            name=f"legacy 2.4GHz{s}",
            frequency="2.4GHz",
            tx_power_min=5,
            tx_power_max=15,
            regulatory_domain="US",
            allowed_channel_list=[1, 6, 11],
            channel_width=[20],
        ),
        RadioProfile.objects.create(name=f"spare{s}", regulatory_domain="JP"),
    ]
    profiles[0].supported_data_rates.set(rates[:2])
    profiles[1].supported_data_rates.set(rates[2:])
    networks = [
        WirelessNetwork.objects.create(
            name=f"Corporate{s}",
            ssid="corp",
            mode="Central",
            authentication="WPA2 Enterprise",
            secrets_group=sample[SecretsGroup][0],
            tenant=sample[Tenant][0],
            description="staff laptops",
        ),
        WirelessNetwork.objects.create(
            name=f"Guest{s}", ssid="guest", mode="Local (Flex)", authentication="Open", hidden=False
        ),
        WirelessNetwork.objects.create(
            name=f"Sensors{s}", ssid="iot", mode="Mesh", authentication="WPA3 SAE", enabled=False, hidden=True
        ),
    ]
    vlans = sample[VLAN]
    network_assignments = [
        ControllerManagedDeviceGroupWirelessNetworkAssignment.objects.create(
            controller_managed_device_group=campus, wireless_network=networks[0], vlan=vlans[0]
        ),
        ControllerManagedDeviceGroupWirelessNetworkAssignment.objects.create(
            controller_managed_device_group=campus, wireless_network=networks[1]
        ),
        ControllerManagedDeviceGroupWirelessNetworkAssignment.objects.create(
            controller_managed_device_group=floor, wireless_network=networks[0], vlan=vlans[1]
        ),
    ]
    profile_assignments = [
        ControllerManagedDeviceGroupRadioProfileAssignment.objects.create(
            controller_managed_device_group=campus, radio_profile=profiles[0]
        ),
        ControllerManagedDeviceGroupRadioProfileAssignment.objects.create(
            controller_managed_device_group=floor, radio_profile=profiles[1]
        ),
        ControllerManagedDeviceGroupRadioProfileAssignment.objects.create(
            controller_managed_device_group=leafs, radio_profile=profiles[0]
        ),
    ]
    return {
        SupportedDataRate: rates,
        RadioProfile: profiles,
        WirelessNetwork: networks,
        ControllerManagedDeviceGroupWirelessNetworkAssignment: network_assignments,
        ControllerManagedDeviceGroupRadioProfileAssignment: profile_assignments,
    }
