"""Query parameters of the paths that are not a model's list (an object's actions, the server's
own paths, the connection lists): each takes what the reference's document lists, does what the
reference's views do with it, and refuses anything else."""

from __future__ import annotations

import orjson
import pytest

from inventory.dcim.models import (
    ConsolePort,
    Device,
    FrontPort,
    Interface,
    PowerOutlet,
    PowerPort,
    Rack,
    RearPort,
)
from inventory.ipam.models import IPAddress

from .test_ipam import PREFIXES, post
from .test_paths import new_device, wire

UNKNOWN = ["Unknown filter field"]


@pytest.mark.parametrize("path", ["/api/status/", "/api/users/config/"])
def test_server_paths_take_the_shape_parameters(api, path):
    api.json(path, {"depth": "1", "exclude_m2m": "true"})
    assert api.json(path, {"nope": "1"}, status=400) == {"nope": UNKNOWN}
    assert "depth" in api.json(path, {"depth": "11"}, status=400)["detail"]


def test_trace_shows_the_ends_tags_unless_excluded(api, sample):
    console = ConsolePort.objects.get(device__name="leaf1")
    path = f"/api/dcim/console-ports/{console.pk}/trace/"
    near, cable, far = api.json(path)[0]
    assert "tags" in near and "tags" in far
    near, _, far = api.json(path, {"exclude_m2m": "true", "depth": "2"})[0]
    assert "tags" not in near and "tags" not in far
    assert api.json(path, {"limit": "1"}, status=400) == {"limit": UNKNOWN}


def test_paths_list_every_path_whatever_the_paging(api, sample):
    x, y, a, b = (new_device(api, name) for name in ("x", "y", "panel-a", "panel-b"))
    wire(api, ConsolePort.objects.get(device=x), FrontPort.objects.get(device=a, name="front1"))
    wire(api, RearPort.objects.get(device=a), RearPort.objects.get(device=b))
    rear = RearPort.objects.get(device=a)
    path = f"/api/dcim/rear-ports/{rear.pk}/paths/"
    every = api.json(path)
    assert len(every) >= 1
    assert api.json(path, {"limit": "0", "offset": "5", "depth": "1"}) == every
    assert api.json(path, {"limit": "x"}, status=400) == {"limit": ["A valid integer is required."]}


def test_console_connections_take_the_port_filters(api, sample):
    console = ConsolePort.objects.get(device__name="leaf1")
    url = "/api/dcim/console-connections/"
    for params, count in (
        ({"name__ic": console.name[:3].upper()}, 1),
        ({"name__n": console.name}, 0),
        ({"id": str(console.pk)}, 1),
        ({"id__n": str(console.pk)}, 0),
        ({"q": console.name}, 1),
        ({"q": "no such port"}, 0),
        ({"tags__isnull": "true"}, 1),
        ({"sort": "-name", "exclude_m2m": "false"}, 1),
    ):
        assert api.json(url, params)["count"] == count, params
    assert api.json(url, {"label": "x"}, status=400) == {"label": UNKNOWN}
    assert api.json(url, {"sort": "nope"}, status=400).keys() == {"sort"}


def test_connection_lists_search_the_port_and_its_device_name(api, sample):
    console = ConsolePort.objects.get(device__name="leaf1")
    ConsolePort.objects.filter(pk=console.pk).update(label="oob-label", description="serial to oob")
    url = "/api/dcim/console-connections/"
    for text, count in (("leaf1", 1), ("LEAF", 1), (console.name.upper(), 1), ("oob", 0), ("core1", 0)):
        assert api.json(url, {"q": text})["count"] == count, text
    # The ports' own list searches their label and description, not their device's name.
    ports = "/api/dcim/console-ports/"
    assert [row["id"] for row in api.json(ports, {"q": "oob"})["results"]] == [str(console.pk)]
    assert api.json(ports, {"q": "leaf1"})["count"] == 0
    assert api.json(ports, {"connection_q": "leaf1"}, status=400) == {"connection_q": UNKNOWN}
    x, y = new_device(api, "inlet-host"), new_device(api, "outlet-host")
    inlet = PowerPort.objects.get(device=x)
    wire(api, PowerOutlet.objects.get(device=y), inlet)
    url = "/api/dcim/power-connections/"
    for params in ({"q": "INLET-h"}, {"q": inlet.name}, {"q": ["inlet", "host"]}):
        assert [row["id"] for row in api.json(url, params)["results"]] == [str(inlet.pk)], params
    # The far end's device is not searched; repeated values must all match.
    for params in ({"q": "outlet-host"}, {"q": ["inlet", "nowhere"]}):
        assert api.json(url, params)["count"] == 0, params


def test_interface_connections_by_path_id_search_and_sort(api, sample):
    leaf = Interface.objects.get(device__name="leaf1", name="Ethernet2")
    core = Interface.objects.get(device__name="core1", name="xe-0/0/0")
    url = "/api/dcim/interface-connections/"
    # Listed once, by the path from its end with the lower id (the sample's ids are new each run).
    path_id = str(min(leaf, core, key=lambda end: end.pk)._path_id)
    assert [row["id"] for row in api.json(url, {"id": path_id})["results"]] == [path_id]
    assert api.json(url, {"id__n": path_id})["count"] == 0
    for text, count in (("leaf1", 1), ("core1", 1), ("xe-0/0", 1), ("nowhere", 0)):
        assert api.json(url, {"q": text})["count"] == count, text
    assert api.json(url, {"sort": "-is_active"})["count"] == 1
    assert api.json(url, {"sort": "name"}, status=400).keys() == {"sort"}
    assert api.json(url, {"id": "x"}, status=400) == {"id": ["Enter a valid UUID."]}
    tagged = api.json(url)["results"][0]["interface_a"]
    assert "tags" in tagged
    assert "tags" not in api.json(url, {"exclude_m2m": "true"})["results"][0]["interface_a"]


def test_rack_elevation_parameters(api, sample):
    rack = Rack.objects.get(name="R101")
    path = f"/api/dcim/racks/{rack.pk}/elevation/"
    every = api.json(path, {"limit": 0})["results"]
    taken = [u["id"] for u in every if u["occupied"]]
    assert [u["id"] for u in api.json(path, {"limit": 0, "is_occupied": "true"})["results"]] == taken
    free = api.json(path, {"limit": 0, "is_occupied": "false"})["results"]
    assert len(free) == len(every) - len(taken)
    # A device taking several units shows only its lowest one without expand_devices.
    tall = Device.objects.filter(rack=rack, device_type__u_height__gt=1, face="front").first()
    collapsed = {u["id"] for u in api.json(path, {"limit": 0, "expand_devices": "false"})["results"]}
    if tall is not None:
        upper = set(range(tall.position + 1, tall.position + tall.device_type.u_height))
        assert tall.position in collapsed and not (upper & collapsed)
    assert len(collapsed) == len(every) - sum(
        d.device_type.u_height - 1
        for d in Device.objects.filter(rack=rack, position__isnull=False, device_type__u_height__gt=0)
        if d.face == "front" or d.device_type.is_full_depth
    )
    assert [u["name"] for u in api.json(path, {"q": "U41"})["results"]] == ["U41"]
    drawn = {"unit_width": "230", "unit_height": "22", "legend_width": "30", "include_images": "false"}
    assert api.json(path, {**drawn, "display_fullname": "true", "render": "json", "limit": 0})["count"] == 42
    assert api.json(path, {"render": "svg"}, status=400) == {"render": ['"svg" is not a valid choice.']}
    assert api.json(path, {"unit_width": "wide"}, status=400) == {
        "unit_width": ["A valid integer is required."]
    }
    assert api.json(path, {"is_occupied": "maybe"}, status=400) == {
        "is_occupied": ["Must be a valid boolean."]
    }


def test_available_ips_within_a_span(api, sample):
    code, body = post(api, PREFIXES, {"prefix": "192.168.7.0/28", "status": "Active"})
    assert code == 201, body
    path = f"{PREFIXES}{body['id']}/available-ips/"
    span = {"range_start": "192.168.7.4", "range_end": "192.168.7.6"}
    listed = [f["address"] for f in api.json(path, span)]
    assert listed == ["192.168.7.4/28", "192.168.7.5/28", "192.168.7.6/28"]
    assert [f["address"] for f in api.json(path, {**span, "limit": "2"})] == listed[:2]
    # Its document's offset and sort are taken; the answer is the first free ones, in order.
    assert [f["address"] for f in api.json(path, {**span, "offset": "1", "sort": "address"})] == listed
    bad = api.json(path, {"range_start": "nope"}, status=400)
    assert bad["detail"].startswith("Incorrectly formatted address in parameter range_start")
    assert api.json(path, {"range_end": "2001:db8::1"}, status=400).keys() == {"detail"}
    prefixes = f"{PREFIXES}{body['id']}/available-prefixes/"
    assert api.json(prefixes, {"limit": "1", "offset": "0", "sort": "prefix"}) == api.json(prefixes)
    assert api.json(prefixes, {"range_start": "192.168.7.4"}, status=400) == {"range_start": UNKNOWN}


def test_available_ips_allocated_within_a_span(api, sample):
    code, body = post(api, PREFIXES, {"prefix": "192.168.8.0/28", "status": "Active"})
    assert code == 201, body
    path = f"{PREFIXES}{body['id']}/available-ips/"
    taken = {"address": "192.168.8.5/28", "status": "Active", "namespace": body["namespace"]["id"]}
    assert post(api, "/api/ipam/ip-addresses/", taken)[0] == 201
    span = "?range_start=192.168.8.4&range_end=192.168.8.7"
    code, one = post(api, f"{path}{span}", {"description": "one"})
    assert code == 201 and (one["address"], one["description"]) == ("192.168.8.4/28", "one")
    code, two = post(api, f"{path}{span}", [{}, {"description": "two"}])
    assert code == 201 and [ip["address"] for ip in two] == ["192.168.8.6/28", "192.168.8.7/28"]
    before = IPAddress.objects.count()
    assert post(api, f"{path}{span}", [{}]) == (204, None)  # the reason in GraphQL's error
    assert IPAddress.objects.count() == before
    mutation = (
        f'mutation {{ allocate_ip_addresses(parent: "{body["id"]}", data: [{{}}], '
        'range_start: "192.168.8.4", range_end: "192.168.8.7") { address } }'
    )
    errors = orjson.loads(api.post("/api/graphql/", {"query": mutation}).content)["errors"]
    assert [error["message"] for error in errors] == [
        "An insufficient number of IP addresses are available within the prefix "
        "192.168.8.0/28 (1 requested, 0 available between 192.168.8.4 and 192.168.8.7)."
    ]
    # Without a span the first free address of the prefix; a bad span allocates nothing.
    code, first = post(api, path, {})
    assert code == 201 and first["address"] == "192.168.8.1/28"
    code, bad = post(api, f"{path}?range_start=192.168.8.x", {})
    assert code == 400 and bad["detail"].startswith("Incorrectly formatted address in parameter range_start")
    code, bad = post(api, f"{path}?range_end=2001:db8::1", [{}])
    assert code == 400 and bad == {"detail": "The address in parameter range_end is not an IPv4 address."}
    assert IPAddress.objects.count() == before + 1
    code, tail = post(api, f"{path}?range_start=192.168.8.13", [{}, {}])
    assert code == 201 and [ip["address"] for ip in tail] == ["192.168.8.13/28", "192.168.8.14/28"]


def test_job_variables_and_location_stats_take_the_family(api, sample):
    from inventory.dcim.models import Location

    location = Location.objects.get(name="AMS1")
    stats = f"/api/dcim/locations/{location.pk}/stats/"
    assert api.json(stats, {"depth": "1", "exclude_m2m": "true", "limit": "1"})["count"] >= 1
    assert api.json(stats, {"sort": "x"}, status=400) == {"sort": UNKNOWN}


def test_the_document_lists_what_each_path_takes(api, sample):
    document = api.json("/api/swagger.json")
    for path, names in (
        ("/dcim/console-ports/{id}/trace/", {"depth", "exclude_m2m"}),
        ("/dcim/rear-ports/{id}/paths/", {"depth", "exclude_m2m", "limit", "offset"}),
        ("/ipam/prefixes/{id}/available-ips/", {"limit", "offset", "sort", "range_start", "range_end"}),
        ("/dcim/racks/{id}/elevation/", {"render", "expand_devices", "is_occupied", "unit_width"}),
        ("/dcim/console-connections/", {"q", "id__n", "name__ic", "tags", "contacts", "dynamic_groups"}),
        ("/dcim/interface-connections/", {"q", "id", "id__n", "sort", "exclude_m2m"}),
        ("/status/", {"depth", "exclude_m2m"}),
        ("/extras/job-results/{id}/logs/", {"depth", "exclude_m2m"}),
    ):
        parameters = document["paths"][path]["get"]["parameters"]
        listed = set()
        for parameter in parameters:
            if "$ref" in parameter:
                parameter = document["components"]["parameters"][parameter["$ref"].rsplit("/", 1)[1]]
            listed.add(parameter["name"])
        assert names <= listed, (path, names - listed)
