"""`natural_slug` values as the reference forms them (its captures: `brd-dev-2__brd-site-1___vlan10_c87b`,
`20-21_brd-rack-1_brd-row-a_brd-site-1_0bf3`), compiled and generic alike, on every backend."""

from __future__ import annotations

import csv
import io
import itertools
import re

import orjson

from inventory.dcim.models import Device, Interface, Location, Rack, RackReservation
from inventory.ipam.models import VLAN
from inventory.users.models import User
from queryengine import engine
from queryengine.registry import resources
from queryengine.schema import RequestContext

from .conftest import send
from .test_permissions import account, grant, graphql


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


# -- what a reader may not view ------------------------------------------------------------


def slugs_everywhere(api, route: str, name_filter: dict) -> set:
    """The natural slugs of the objects a filter selects, as REST JSON, GraphQL and CSV show
    them: the same set each way."""
    path = f"/api/{route}/"
    rest = {row["id"]: row["natural_slug"] for row in api.json(path, {**name_filter, "depth": 1})["results"]}
    response = api.get(path, {**name_filter, "format": "csv"})
    assert response.status_code == 200, response.content[:300]
    table = {row["id"]: row["natural_slug"] for row in csv.DictReader(io.StringIO(response.content.decode()))}
    resource = next(r for r in resources() if r.route == route)
    text = f"query ($id: [String]) {{ {resource.list_field}(id: $id) {{ id natural_slug }} }}"
    data = graphql(api, text, {"id": list(rest)})["data"][resource.list_field]
    assert rest == table == {row["id"]: row["natural_slug"] for row in data}
    return set(rest.values())


def test_a_related_object_the_reader_may_not_view_stands_as_its_id(api, sample):
    """A device's slug names its tenant and its location's branch: a reader who may not view the
    tenant, or a location, sees that object's id in its place (and nothing above a hidden
    location), as a reference shows it; what they may view is named as before."""
    leaf = Device.objects.get(name="leaf1")
    ams, europe, acme = leaf.location, leaf.location.parent, leaf.tenant
    assert (ams.name, europe.name, europe.parent, acme.name) == ("AMS1", "Europe", None, "Acme")
    full = f"leaf1_acme_ams1_europe_{str(leaf.pk)[:4]}"
    assert slugs_everywhere(api, "dcim/devices", {"name": "leaf1"}) == {full}
    # Tenants: Initech alone; locations: AMS1 and its floor, not Europe above them.
    user, reader = account("dcim.view_device")
    grant(user, ["tenancy.tenant"], ["view"], {"name": "Initech"})
    grant(user, ["dcim.location"], ["view"], {"name__in": ["AMS1", "AMS1 floor 1"]})
    narrowed = f"leaf1_{acme.pk}_ams1_{europe.pk}_{str(leaf.pk)[:4]}"
    assert slugs_everywhere(reader, "dcim/devices", {"name": "leaf1"}) == {narrowed}
    # No location at all: the device's own location stands for its branch.
    user, blind = account("dcim.view_device", "tenancy.view_tenant")
    expected = f"leaf1_acme_{ams.pk}_{str(leaf.pk)[:4]}"
    assert slugs_everywhere(blind, "dcim/devices", {"name": "leaf1"}) == {expected}
    # A location's own slug names its parents: the hidden one by its id, nothing above it.
    floor = Location.objects.get(name="AMS1 floor 1")
    assert slugs_everywhere(reader, "dcim/locations", {"name": "AMS1 floor 1"}) == {
        f"ams1-floor-1_ams1_{europe.pk}_{str(floor.pk)[:4]}"
    }
    # An interface of a device the reader may not view: the device's whole key is its id.
    interface = Interface.objects.filter(device=leaf, module__isnull=True).first()
    _, components = account("dcim.view_interface")
    (shown,) = slugs_everywhere(components, "dcim/interfaces", {"id": str(interface.pk)})
    assert shown == f"{leaf.pk}__{slug(interface.name)}_{str(interface.pk)[:4]}"
    assert "acme" not in shown and "ams1" not in shown


def test_the_unrestricted_slug_is_unchanged_and_both_executors_agree(api, sample):
    """The compiled plans narrow in their row queries what graphql-core's executor narrows object
    by object: the same slugs for a restricted reader and for the superuser."""
    user, _ = account("dcim.view_interface")
    grant(user, ["tenancy.tenant"], ["view"], {"name": "Initech"})
    grant(user, ["dcim.location"], ["view"], {"name__in": ["AMS1", "AMS1 floor 1"]})
    grant(user, ["dcim.device"], ["view"], {"name": "core1"})
    admin = User.objects.get(username="admin")
    texts = (
        "{ devices { id natural_slug } locations { id natural_slug } }",
        "{ interfaces { id natural_slug device { natural_slug } } }",
    )
    for caller, text in itertools.product((admin, User.objects.get(pk=user.pk)), texts):
        compiled, generic = (
            engine.run(text, None, RequestContext(user=caller, base_url="/api/"), compiled=way)
            for way in (True, False)
        )
        assert compiled.errors is None and orjson.dumps(compiled.data) == orjson.dumps(generic.data)
        # The superuser's name Europe; the reader's hold its id instead (and Acme's, the devices').
        slugs = " ".join(re.findall(r'"natural_slug":"([^"]*)"', orjson.dumps(compiled.data).decode()))
        europe = str(Location.objects.get(name="Europe").pk)
        assert ("_europe_" in slugs, europe in slugs) == ((True, False) if caller == admin else (False, True))
    # The superuser's slugs are those of the model's own values.
    for device in Device.objects.filter(name__isnull=False, tenant__isnull=True):
        assert shown(api, "dcim/devices", device.pk) == "_".join(
            [slug(device.name), "", *branch(device.location), str(device.pk)[:4]]
        )
