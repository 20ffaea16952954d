"""`natural_slug` values as the reference forms them (its captures: `brd-dev-2__brd-site-1___vlan10_c87b`,
`20-21_brd-rack-1_brd-row-a_brd-site-1_0bf3`), compiled and generic alike, on every backend."""

from __future__ import annotations

import re

from inventory.dcim.models import Device, Interface, Location, Rack, RackReservation
from inventory.ipam.models import VLAN

from .conftest import send


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def branch(location: Location) -> list[str]:
    names = []
    while location is not None:
        names.append(slug(location.name))
        location = location.parent
    return names


def tree_height() -> int:
    def depth(location):
        return 0 if location.parent is None else 1 + depth(location.parent)

    return max(depth(location) for location in Location.objects.all())


def shown(api, route: str, pk, **params) -> str:
    return api.json(f"/api/{route}/{pk}/", params)["natural_slug"]


def test_an_interface_names_its_device_padded_branch_and_name(api, sample):
    interface = Interface.objects.filter(device__tenant__isnull=True, module__isnull=True).first()
    device = interface.device
    places = branch(device.location)
    padded = places + [""] * (tree_height() + 1 - len(places))
    # Device: name, tenant (none), location branch (last: not padded), first four of the id.
    assert shown(api, "dcim/devices", device.pk) == "_".join(
        [slug(device.name), "", *places, str(device.pk)[:4]]
    )
    # Interface: the device's key with its branch padded, the module (none), its name.
    assert shown(api, "dcim/interfaces", interface.pk) == "_".join(
        [slug(device.name), "", *padded, "", slug(interface.name), str(interface.pk)[:4]]
    )
    # The same label on the object nested in another.
    nested = api.json(f"/api/dcim/interfaces/{interface.pk}/", {"depth": 1})["device"]
    assert nested["natural_slug"] == shown(api, "dcim/devices", device.pk)


def test_a_reservation_slugs_its_units_as_the_database_keeps_them(api, sample):
    rack = Rack.objects.filter(rack_group__isnull=True).first() or Rack.objects.first()
    status, body = send(
        api,
        "post",
        "/api/dcim/rack-reservations/",
        {"rack": str(rack.pk), "units": [20, 21], "description": "maintenance"},
    )
    assert status == 201, body
    reservation = RackReservation.objects.get(pk=body["id"])
    rack_slug = shown(api, "dcim/racks", rack.pk).rsplit("_", 1)[0]
    assert body["natural_slug"] == f"20-21_{rack_slug}_{str(reservation.pk)[:4]}"
    assert shown(api, "dcim/rack-reservations", reservation.pk) == body["natural_slug"]


def test_an_object_without_a_natural_key_is_named_by_its_id(api, sample):
    vlan = VLAN.objects.first()
    assert shown(api, "ipam/vlans", vlan.pk) == f"{vlan.pk}_{str(vlan.pk)[:4]}"


def test_api_1x_shows_no_natural_slug(api, sample):
    device = Device.objects.first()
    response = api.client.get(f"/api/dcim/devices/{device.pk}/", HTTP_ACCEPT="application/json; version=1.3")
    assert response.status_code == 200 and "natural_slug" not in response.json()
