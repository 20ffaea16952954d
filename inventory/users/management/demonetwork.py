"""The demo network's second part, written through the REST API as a client would (so paths,
parents and the change log come out as they do for any write): a second site with its rack and
switches, cables, a circuit between the sites, a VRF with prefixes and addresses on interfaces,
VLANs, a cluster of virtual machines, a custom field and a config context.

Written once: a demo started again finds the circuit and leaves everything as it is.
"""

from __future__ import annotations

import orjson
from django.db import transaction
from django.test import Client

CIRCUIT = "LUM-0001"


class Writer:
    """REST requests in this process, as the demo user."""

    def __init__(self, token: str):
        self.client = Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_ACCEPT="application/json")

    def get(self, path: str, **params) -> list[dict]:
        response = self.client.get(f"/api/{path}/", {**params, "limit": 1000})
        return orjson.loads(response.content)["results"]

    def one(self, path: str, **params) -> dict:
        [found] = self.get(path, **params)
        return found

    def post(self, path: str, body: dict) -> dict:
        response = self.client.post(f"/api/{path}/", orjson.dumps(body), content_type="application/json")
        if response.status_code != 201:
            raise RuntimeError(f"demo network: POST /api/{path}/ answered {response.content.decode()}")
        return orjson.loads(response.content)

    def patch(self, path: str, body: dict) -> None:
        response = self.client.patch(f"/api/{path}/", orjson.dumps(body), content_type="application/json")
        if response.status_code != 200:
            raise RuntimeError(f"demo network: PATCH /api/{path}/ answered {response.content.decode()}")


def seed(token: str) -> None:
    with transaction.atomic():  # all of it or, should a write fail, none (started again, it tries again)
        api = Writer(token)
        if not api.get("circuits/circuits", cid=CIRCUIT):
            write(api)


def write(api: Writer) -> None:
    switch = api.one("dcim/device-types", model="DCS-7050SX3-48YC8")
    role = api.one("extras/roles", name="Access switch")
    fra = api.one("dcim/locations", name="FRA1")
    ams = api.one("dcim/locations", name="AMS1")
    rack = api.post("dcim/racks", {"name": "FRA1-R01", "location": fra["id"], "status": "Active"})
    for position, name in ((40, "fra1-leaf1"), (39, "fra1-leaf2")):
        api.post(
            "dcim/devices",
            {
                "name": name,
                "device_type": switch["id"],
                "role": role["id"],
                "status": "Active",
                "location": fra["id"],
                "rack": rack["id"],
                "position": position,
                "face": "front",
            },
        )
    port = {
        (i["device"]["name"], i["name"]): i["id"]
        for i in api.get(
            "dcim/interfaces", device=["ams1-leaf1", "ams1-leaf2", "fra1-leaf1", "fra1-leaf2"], depth=1
        )
    }

    def cable(a_type: str, a_id: str, b_type: str, b_id: str, label: str) -> None:
        api.post(
            "dcim/cables",
            {
                "termination_a_type": a_type,
                "termination_a_id": a_id,
                "termination_b_type": b_type,
                "termination_b_id": b_id,
                "status": "Connected",
                "label": label,
            },
        )

    for site in ("ams1", "fra1"):
        a, b = port[(f"{site}-leaf1", "Ethernet1")], port[(f"{site}-leaf2", "Ethernet1")]
        cable("dcim.interface", a, "dcim.interface", b, f"{site}-peer")

    provider = api.post("circuits/providers", {"name": "Lumen", "asn": 3356})
    kind = api.post("circuits/circuit-types", {"name": "Transit"})
    circuit = api.post(
        "circuits/circuits",
        {"cid": CIRCUIT, "provider": provider["id"], "circuit_type": kind["id"], "status": "Active"},
    )
    for side, location, device in (("A", ams, "ams1-leaf1"), ("Z", fra, "fra1-leaf1")):
        end = api.post(
            "circuits/circuit-terminations",
            {
                "circuit": circuit["id"],
                "term_side": side,
                "location": location["id"],
                "port_speed": 10_000_000,
            },
        )
        cable(
            "dcim.interface",
            port[(device, "Ethernet8")],
            "circuits.circuittermination",
            end["id"],
            f"wan-{side}",
        )

    vrf = api.post("ipam/vrfs", {"name": "corp", "rd": "65000:1"})
    api.post("ipam/prefixes", {"prefix": "10.10.0.0/16", "status": "Active", "type": "container"})
    vlans = {
        vid: api.post("ipam/vlans", {"vid": vid, "name": name, "status": "Active", "location": ams["id"]})
        for vid, name in ((10, "users"), (20, "voice"))
    }
    for number, (site, location) in enumerate((("ams1", ams), ("fra1", fra)), start=1):
        api.post(
            "ipam/prefixes",
            {
                "prefix": f"10.10.{number}.0/24",
                "status": "Active",
                "vrf": vrf["id"],
                "location": location["id"],
                **({"vlan": vlans[10]["id"]} if site == "ams1" else {}),
            },
        )
        for host, leaf in ((1, "leaf1"), (2, "leaf2")):
            address = api.post(
                "ipam/ip-addresses",
                {"address": f"10.10.{number}.{host}/24", "status": "Active", "vrf": vrf["id"]},
            )
            api.post(
                "ipam/ip-address-to-interface",
                {"ip_address": address["id"], "interface": port[(f"{site}-{leaf}", "Ethernet2")]},
            )
            device = api.one("dcim/devices", name=f"{site}-{leaf}")
            api.patch(f"dcim/devices/{device['id']}", {"primary_ip4": address["id"]})

    cluster_type = api.post("virtualization/cluster-types", {"name": "KVM"})
    cluster = api.post(
        "virtualization/clusters",
        {"name": "ams1-kvm", "cluster_type": cluster_type["id"], "location": ams["id"]},
    )
    for name in ("web01", "db01"):
        api.post(
            "virtualization/virtual-machines", {"name": name, "cluster": cluster["id"], "status": "Active"}
        )

    api.post(
        "extras/custom-fields",
        {
            "key": "support_contact",
            "label": "Support contact",
            "type": "text",
            "content_types": ["dcim.device"],
        },
    )
    for device in api.get("dcim/devices"):
        api.patch(f"dcim/devices/{device['id']}", {"custom_fields": {"support_contact": "noc@example.com"}})
    europe = api.one("dcim/locations", name="Europe")
    api.post(
        "extras/config-contexts",
        {
            "name": "ntp-europe",
            "weight": 1000,
            "data": {"ntp_servers": ["10.10.1.1", "10.10.2.1"], "timezone": "Europe/Amsterdam"},
            "locations": [europe["id"]],
        },
    )
