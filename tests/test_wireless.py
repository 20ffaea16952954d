"""The wireless application through the HTTP stack: supported data rates, radio profiles,
wireless networks, and the controller-managed device groups' assignments of them."""

from __future__ import annotations

import csv
import io

import orjson
import pytest

from inventory.dcim.models import ControllerManagedDeviceGroup, Device
from inventory.wireless.models import (
    ControllerManagedDeviceGroupRadioProfileAssignment,
    ControllerManagedDeviceGroupWirelessNetworkAssignment,
    RadioProfile,
    SupportedDataRate,
    WirelessNetwork,
)

from .conftest import send

RATES = "/api/wireless/supported-data-rates/"
PROFILES = "/api/wireless/radio-profiles/"
NETWORKS = "/api/wireless/wireless-networks/"
NETWORK_ASSIGNMENTS = "/api/wireless/controller-managed-device-group-wireless-network-assignments/"
PROFILE_ASSIGNMENTS = "/api/wireless/controller-managed-device-group-radio-profile-assignments/"
GROUPS = "/api/dcim/controller-managed-device-groups/"


def names(body) -> list[str]:
    return sorted(row["display"] for row in body["results"])


def test_api_root_and_app_root_list_the_wireless_endpoints(api):
    assert api.json("/api/")["wireless"] == "http://testserver/api/wireless/"
    assert api.json("/api/wireless/") == {
        "controller-managed-device-group-radio-profile-assignments": f"http://testserver{PROFILE_ASSIGNMENTS}",
        "controller-managed-device-group-wireless-network-assignments": f"http://testserver{NETWORK_ASSIGNMENTS}",
        "radio-profiles": f"http://testserver{PROFILES}",
        "supported-data-rates": f"http://testserver{RATES}",
        "wireless-networks": f"http://testserver{NETWORKS}",
    }
    assert "inventory.wireless" in api.json("/api/status/")["installed-apps"]


class TestSupportedDataRates:
    def test_shape_display_and_natural_slug(self, api, sample):
        rate = SupportedDataRate.objects.get(standard="802.11ac", rate=200000)
        body = api.json(f"{RATES}{rate.pk}/")
        assert body["display"] == "802.11ac: 200000 Kbps"
        assert body["standard"] == {"value": "802.11ac", "label": "802.11ac"}
        assert (body["rate"], body["mcs_index"]) == (200000, 4)
        assert body["natural_slug"] == f"802-11ac_200000_{str(rate.pk)[:4]}"
        assert {"tags", "custom_fields", "notes_url", "created", "last_updated"} <= body.keys()

    def test_unique_by_standard_and_rate(self, api, sample):
        status, errors = send(api, "post", RATES, {"standard": "802.11ac", "rate": 200000})
        assert (status, errors) == (
            400,
            {"non_field_errors": ["The fields standard, rate must make a unique set."]},
        )
        status, created = send(api, "post", RATES, {"standard": "802.11be", "rate": 20000000, "mcs_index": 6})
        assert status == 201 and created["display"] == "802.11be: 20000000 Kbps"

    def test_bad_standard_and_rate(self, api, sample):
        status, errors = send(api, "post", RATES, {"standard": "802.11z", "rate": -1})
        assert status == 400 and set(errors) == {"standard", "rate"}
        assert "802.11z" in errors["standard"][0]
        assert errors["rate"] == ["Ensure this value is greater than or equal to 0."]
        assert not SupportedDataRate.objects.filter(standard="802.11z").exists()

    def test_filters(self, api, sample):
        assert names(api.json(RATES, {"q": "11ac"})) == ["802.11ac: 200000 Kbps"]
        assert names(api.json(RATES, {"q": "5"})) == ["802.11ax: 574000 Kbps"]  # an MCS index
        assert names(api.json(RATES, {"radio_profiles": "legacy 2.4GHz"})) == ["802.11a: 54000 Kbps"]
        assert names(api.json(RATES, {"has_radio_profiles": "true"})) == [
            "802.11a: 54000 Kbps",
            "802.11ac: 200000 Kbps",
            "802.11ax: 574000 Kbps",
        ]
        assert api.json(RATES, {"standard": "802.11q"}, status=400) == {
            "standard": ["Select a valid choice. 802.11q is not one of the available choices."]
        }


class TestRadioProfiles:
    def test_shape(self, api, sample):
        profile = RadioProfile.objects.get(name="campus 5GHz")
        body = api.json(f"{PROFILES}{profile.pk}/", {"exclude_m2m": "false"})
        assert body["display"] == "campus 5GHz"
        assert body["channel_width"] == [
            {"value": 20, "label": "20 MHz"},
            {"value": 40, "label": "40 MHz"},
            {"value": 160, "label": "160 MHz"},
        ]
        assert body["allowed_channel_list"] == [36, 40, 44]
        assert body["frequency"] == {"value": "5GHz", "label": "5 GHz"}
        assert body["regulatory_domain"] == {"value": "GB", "label": "United Kingdom (GB)"}
        assert (body["tx_power_min"], body["tx_power_max"], body["rx_power_min"]) == (10, 20, -75)
        assert len(body["supported_data_rates"]) == 2
        spare = api.json(f"{PROFILES}{RadioProfile.objects.get(name='spare').pk}/")
        assert (spare["channel_width"], spare["allowed_channel_list"], spare["frequency"]) == (
            None,
            None,
            None,
        )

    def test_create_with_lists_and_rates(self, api, sample):
        rate = SupportedDataRate.objects.get(standard="802.11ax")
        body = {
            "name": "new",
            "frequency": "6GHz",
            "regulatory_domain": "CA",
            "channel_width": [80, 160],
            "allowed_channel_list": [1, 5, 9],
            "supported_data_rates": [str(rate.pk)],
        }
        status, created = send(api, "post", PROFILES, body)
        assert status == 201, created
        assert [w["value"] for w in created["channel_width"]] == [80, 160]
        assert created["allowed_channel_list"] == [1, 5, 9]
        # Values as reads show them are taken back.
        status, patched = send(
            api, "patch", f"{PROFILES}{created['id']}/", {"channel_width": created["channel_width"]}
        )
        assert status == 200 and patched["channel_width"] == created["channel_width"]
        status, patched = send(api, "patch", f"{PROFILES}{created['id']}/", {"channel_width": []})
        assert status == 200 and patched["channel_width"] == []

    @pytest.mark.parametrize(
        ("body", "errors"),
        [
            ({"channel_width": [20, 30]}, {"channel_width": {"1": ["30 is not a valid choice."]}}),
            ({"channel_width": "20"}, {"channel_width": ['Expected a list of items but got type "str".']}),
            (
                {"allowed_channel_list": [1, "six"]},
                {"allowed_channel_list": {"1": ["A valid integer is required."]}},
            ),
            ({"regulatory_domain": ""}, None),
            ({"frequency": "60GHz"}, None),
        ],
    )
    def test_bad_input(self, api, sample, body, errors):
        status, answer = send(api, "post", PROFILES, {"name": "bad", "regulatory_domain": "US", **body})
        assert status == 400
        if errors is not None:
            assert answer == errors
        else:
            assert list(answer) == list(body)
        assert not RadioProfile.objects.filter(name="bad").exists()

    def test_regulatory_domain_is_required_and_a_country(self, api, sample):
        status, errors = send(api, "post", PROFILES, {"name": "bad"})
        assert (status, errors) == (400, {"regulatory_domain": ["This field is required."]})
        status, errors = send(api, "post", PROFILES, {"name": "bad", "regulatory_domain": "XX"})
        assert status == 400 and "XX" in errors["regulatory_domain"][0]

    def test_filters(self, api, sample):
        assert names(api.json(PROFILES, {"channel_width": 40})) == ["campus 5GHz"]
        assert names(api.json(PROFILES, {"channel_width": 20})) == ["campus 5GHz", "legacy 2.4GHz"]
        # A whole number: 60 is not inside 160.
        assert names(api.json(PROFILES, {"channel_width": 60})) == []
        assert names(api.json(PROFILES, {"allowed_channel_list": [6, 44]})) == [
            "campus 5GHz",
            "legacy 2.4GHz",
        ]
        # As the reference's, the list's text: channel 4 is in 44.
        assert names(api.json(PROFILES, {"allowed_channel_list": 4})) == ["campus 5GHz"]
        assert names(api.json(PROFILES, {"allowed_channel_list": 7})) == []
        assert names(api.json(PROFILES, {"regulatory_domain": "JP"})) == ["spare"]
        assert names(api.json(PROFILES, {"frequency": "2.4GHz"})) == ["legacy 2.4GHz"]
        assert names(api.json(PROFILES, {"q": "gb"})) == ["campus 5GHz"]
        assert names(api.json(PROFILES, {"controller_managed_device_groups": "leafs"})) == ["campus 5GHz"]
        device = Device.objects.get(controller_managed_device_group__name="floor 1 APs")
        assert names(api.json(PROFILES, {"controller_managed_device_groups__devices": str(device.pk)})) == [
            "legacy 2.4GHz"
        ]
        assert names(api.json(PROFILES, {"has_controller_managed_device_groups": "false"})) == ["spare"]
        assert api.json(PROFILES, {"channel_width": "wide"}, status=400) == {
            "channel_width": ["Enter a whole number."]
        }


class TestWirelessNetworks:
    def test_shape(self, api, sample):
        network = WirelessNetwork.objects.get(name="Corporate")
        body = api.json(f"{NETWORKS}{network.pk}/")
        assert body["ssid"] == "corp" and body["description"] == "staff laptops"
        assert body["mode"] == {"value": "Central", "label": "Central"}
        assert body["authentication"] == {"value": "WPA2 Enterprise", "label": "WPA2 Enterprise"}
        assert (body["enabled"], body["hidden"]) == (True, False)
        assert body["secrets_group"]["object_type"] == "extras.secretsgroup"
        assert body["tenant"]["object_type"] == "tenancy.tenant"

    def test_create_defaults_and_required_fields(self, api, sample):
        status, errors = send(api, "post", NETWORKS, {"name": "lab"})
        assert status == 400 and errors == {
            "ssid": ["This field is required."],
            "mode": ["This field is required."],
            "authentication": ["This field is required."],
        }
        body = {
            "name": "lab",
            "ssid": "lab",
            "mode": "Standalone (Autonomous)",
            "authentication": "WPA3 Personal",
        }
        status, created = send(api, "post", NETWORKS, body)
        assert status == 201, created
        assert (created["enabled"], created["hidden"], created["secrets_group"], created["tenant"]) == (
            True,
            False,
            None,
            None,
        )

    @pytest.mark.parametrize("field", ["mode", "authentication"])
    def test_bad_choices(self, api, sample, field):
        body = {"name": "bad", "ssid": "x", "mode": "Mesh", "authentication": "Open", field: "WEP"}
        status, errors = send(api, "post", NETWORKS, body)
        assert status == 400 and list(errors) == [field] and "WEP" in errors[field][0]
        assert not WirelessNetwork.objects.filter(name="bad").exists()

    def test_filters(self, api, sample):
        assert names(api.json(NETWORKS, {"q": "iot"})) == ["Sensors"]
        assert names(api.json(NETWORKS, {"mode": ["Mesh", "Central"]})) == ["Corporate", "Sensors"]
        assert names(api.json(NETWORKS, {"authentication": "Open"})) == ["Guest"]
        assert names(api.json(NETWORKS, {"enabled": "false"})) == ["Sensors"]
        assert names(api.json(NETWORKS, {"hidden": "true"})) == ["Sensors"]
        assert names(api.json(NETWORKS, {"secrets_group": "Device credentials"})) == ["Corporate"]
        assert names(api.json(NETWORKS, {"controller_managed_device_groups": "floor 1 APs"})) == ["Corporate"]
        assert names(api.json(NETWORKS, {"controller_managed_device_groups__controller": "wlc1"})) == [
            "Corporate",
            "Guest",
        ]
        assert names(api.json(NETWORKS, {"has_controller_managed_device_groups": "false"})) == ["Sensors"]
        assert api.json(NETWORKS, {"mode": "Ad hoc"}, status=400) == {
            "mode": ["Select a valid choice. Ad hoc is not one of the available choices."]
        }


class TestAssignments:
    def test_shapes(self, api, sample):
        campus = ControllerManagedDeviceGroup.objects.get(name="campus APs")
        row = ControllerManagedDeviceGroupWirelessNetworkAssignment.objects.get(
            controller_managed_device_group=campus, wireless_network__name="Corporate"
        )
        body = api.json(f"{NETWORK_ASSIGNMENTS}{row.pk}/")
        assert body["display"] == "campus APs: Corporate"
        assert body["natural_slug"] == f"campus-aps_corporate_{str(row.pk)[:4]}"
        assert body["vlan"]["object_type"] == "ipam.vlan"
        assert not {"tags", "custom_fields", "created"} & body.keys()
        row = ControllerManagedDeviceGroupRadioProfileAssignment.objects.get(
            controller_managed_device_group=campus
        )
        body = api.json(f"{PROFILE_ASSIGNMENTS}{row.pk}/")
        assert body["display"] == "campus APs: campus 5GHz"
        assert body["radio_profile"]["object_type"] == "wireless.radioprofile"

    def test_a_pair_is_assigned_once(self, api, sample):
        body = {"controller_managed_device_group": "campus APs", "wireless_network": "Corporate"}
        status, errors = send(api, "post", NETWORK_ASSIGNMENTS, body)
        assert (status, errors) == (
            400,
            {
                "non_field_errors": [
                    "The fields controller_managed_device_group, wireless_network must make a unique set."
                ]
            },
        )
        body = {"controller_managed_device_group": "leafs", "radio_profile": "campus 5GHz"}
        status, errors = send(api, "post", PROFILE_ASSIGNMENTS, body)
        assert (status, errors) == (
            400,
            {
                "non_field_errors": [
                    "The fields controller_managed_device_group, radio_profile must make a unique set."
                ]
            },
        )
        status, created = send(api, "post", PROFILE_ASSIGNMENTS, {**body, "radio_profile": "spare"})
        assert status == 201 and created["display"] == "leafs: spare"

    def test_required_and_unknown_references(self, api, sample):
        status, errors = send(api, "post", NETWORK_ASSIGNMENTS, {"wireless_network": "Guest"})
        assert (status, errors) == (400, {"controller_managed_device_group": ["This field is required."]})
        status, errors = send(
            api,
            "post",
            PROFILE_ASSIGNMENTS,
            {"controller_managed_device_group": "leafs", "radio_profile": "nope"},
        )
        assert status == 400 and list(errors) == ["radio_profile"]

    def test_filters(self, api, sample):
        assert names(api.json(NETWORK_ASSIGNMENTS, {"wireless_network": "Corporate"})) == [
            "campus APs: Corporate",
            "floor 1 APs: Corporate",
        ]
        assert names(api.json(NETWORK_ASSIGNMENTS, {"q": "guest"})) == ["campus APs: Guest"]
        assert names(api.json(NETWORK_ASSIGNMENTS, {"vlan__isnull": "true"})) == ["campus APs: Guest"]
        assert names(api.json(PROFILE_ASSIGNMENTS, {"controller_managed_device_group": "leafs"})) == [
            "leafs: campus 5GHz"
        ]

    def test_groups_show_and_filter_by_what_they_carry(self, api, sample):
        campus = ControllerManagedDeviceGroup.objects.get(name="campus APs")
        body = api.json(f"{GROUPS}{campus.pk}/", {"exclude_m2m": "false"})
        assert sorted(str(r["id"]) for r in body["wireless_networks"]) == sorted(
            str(pk)
            for pk in WirelessNetwork.objects.filter(name__in=["Corporate", "Guest"]).values_list(
                "pk", flat=True
            )
        )
        assert [r["id"] for r in body["radio_profiles"]] == [
            str(RadioProfile.objects.get(name="campus 5GHz").pk)
        ]
        assert names(api.json(GROUPS, {"wireless_networks": "Guest"})) == ["campus APs"]
        assert names(api.json(GROUPS, {"radio_profiles": "campus 5GHz"})) == ["campus APs", "leafs"]
        assert names(api.json(GROUPS, {"has_wireless_networks": "false"})) == ["leafs"]
        # Written through the assignments, not on the group.
        status, patched = send(api, "patch", f"{GROUPS}{campus.pk}/", {"radio_profiles": []})
        assert status == 200, patched
        assert campus.radio_profiles.count() == 1

    def test_deleting_a_network_removes_its_assignments(self, api, sample):
        network = WirelessNetwork.objects.get(name="Corporate")
        status, _ = send(api, "delete", f"{NETWORKS}{network.pk}/")
        assert status == 204
        assert not ControllerManagedDeviceGroupWirelessNetworkAssignment.objects.filter(
            wireless_network_id=network.pk
        ).exists()


def test_radio_profile_lists_in_options_and_csv(api, sample):
    post = api.client.options(PROFILES).json()["actions"]["POST"]
    assert post["channel_width"]["type"] == "list"
    assert post["channel_width"]["child"]["choices"][0] == {"value": 20, "display": "20 MHz"}
    assert post["allowed_channel_list"]["child"]["type"] == "integer"
    assert post["regulatory_domain"]["required"] is True
    assert len(post["regulatory_domain"]["choices"]) == 126
    response = api.get(PROFILES, {"name": "campus 5GHz"}, HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    row = next(csv.DictReader(io.StringIO(response.content.decode())))
    assert (row["channel_width"], row["allowed_channel_list"], row["regulatory_domain"]) == (
        "20,40,160",
        "36,40,44",
        "GB",
    )
    text = 'name,regulatory_domain,channel_width,allowed_channel_list\nfrom csv,DE,"40,80","1,13"\n'
    response = api.client.post(PROFILES, text, content_type="text/csv")
    assert response.status_code == 201, response.content
    (created,) = orjson.loads(response.content)
    assert [w["value"] for w in created["channel_width"]] == [40, 80]
    assert created["allowed_channel_list"] == [1, 13]


def test_graphql_reads_wireless_objects(api, sample):
    query = '{ wireless_networks(mode: ["Mesh"]) { name ssid controller_managed_device_groups { name } } }'
    response = api.post("/api/graphql/", {"query": query})
    assert orjson.loads(response.content) == {
        "data": {
            "wireless_networks": [{"name": "Sensors", "ssid": "iot", "controller_managed_device_groups": []}]
        }
    }
