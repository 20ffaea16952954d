"""A 1.x script, run by tests/test_pynautobot_v1.py with pynautobot's last 1.x release first on
the path: `python pynautobot_v1_script.py <url> <token>`. It exits non-zero on the first
assertion that fails."""

import sys

import pynautobot


def main(url: str, token: str) -> None:
    assert pynautobot.__version__.startswith("1."), pynautobot.__version__
    nb = pynautobot.api(url, token=token, api_version="1.3")
    assert nb.version == "1.3"  # read from the API-Version header; a 2.x answer would be refused

    region = nb.dcim.regions.create(name="Europe", slug="europe")
    site = nb.dcim.sites.create(name="AMS1", status="active", region=region.id)
    assert site.slug == "ams1" and site.region.slug == "europe" and site.status.value == "active"
    assert nb.dcim.sites.get(slug="ams1").id == site.id
    assert [s.name for s in nb.dcim.sites.filter(region="europe")] == ["AMS1"]

    manufacturer = nb.dcim.manufacturers.create(name="Juniper", slug="juniper")
    device_type = nb.dcim.device_types.create(manufacturer=manufacturer.id, model="MX204", slug="mx204")
    role = nb.extras.roles.create(name="Edge", content_types=["dcim.device"])
    device = nb.dcim.devices.create(
        name="edge1", device_type=device_type.id, device_role=role.id, site=site.id, status="active"
    )
    assert device.site.id == site.id and device.device_role.name == "Edge"
    assert device.device_type.manufacturer.slug == "juniper"

    interface = nb.dcim.interfaces.create(
        device=device.id, name="xe-0/0/0", type="10gbase-x-sfpp", status="active"
    )
    address = nb.ipam.ip_addresses.create(
        address="192.0.2.1/24",
        status="active",
        assigned_object_type="dcim.interface",
        assigned_object_id=interface.id,
    )
    assert address.assigned_object.name == "xe-0/0/0" and address.assigned_object.device.name == "edge1"
    assert address.family.value == 4

    # Records are saved back with pynautobot's own diff: nested objects by id, choices by value.
    device.primary_ip4 = address.id
    device.serial = "JN-1"
    assert device.save()
    again = nb.dcim.devices.get(device.id)
    assert again.primary_ip4.address == "192.0.2.1/24" and again.primary_ip.id == address.id
    assert again.serial == "JN-1" and again.status.value == "active"
    site.description = "Amsterdam"
    assert site.save() and nb.dcim.sites.get(site.id).description == "Amsterdam"

    brief = list(nb.dcim.devices.filter(brief=1))
    assert [dict(d) for d in brief] == [
        {"id": device.id, "url": device.url, "display": "edge1", "name": "edge1"}
    ]
    assert [i.name for i in nb.dcim.interfaces.filter(device_id=device.id)] == ["xe-0/0/0"]
    assert [d.name for d in nb.dcim.devices.filter(site="ams1", role="edge")] == ["edge1"]
    assert nb.ipam.ip_addresses.get(address.id).assigned_object_id == interface.id

    assert address.delete() and interface.delete() and device.delete()
    assert nb.dcim.devices.count() == 0


if __name__ == "__main__":
    main(*sys.argv[1:3])
