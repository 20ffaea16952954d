"""CSV on lists, through the HTTP stack: the same rows as the JSON list, shaped as the reference
shapes them, and CSV imports that create what a JSON bulk create would, all or none."""

import csv
import io

import orjson

from inventory.dcim.models import Device, Location
from inventory.tenancy.models import Tenant


def read_csv(response) -> tuple[list[str], list[dict]]:
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "text/csv; charset=UTF-8"
    reader = csv.reader(io.StringIO(response.content.decode()))
    header = next(reader)
    return header, [dict(zip(header, row, strict=True)) for row in reader]


def json_list(api, path: str, params: dict) -> list[dict]:
    return api.json(path, {**params, "limit": 0})["results"]


def expected(value) -> str:
    """A JSON value as the reference writes it in CSV at the top level."""
    if value is None:
        return "NULL"
    if isinstance(value, dict):
        return value["value"] if "value" in value else str(value["id"])
    if isinstance(value, list):
        return ",".join(str(v["id"]) if isinstance(v, dict) else str(v) for v in value)
    if isinstance(value, bool):
        return str(value)
    return str(value)


def test_locations_csv_is_the_json_list_flattened(api, sample):
    params = {"sort": "-name", "name__n": "fra2"}
    rows = json_list(api, "/api/dcim/locations/", params)
    response = api.get("/api/dcim/locations/", {**params, "format": "csv"})
    assert response["Content-Disposition"] == 'attachment; filename="netinventory_location_data.csv"'
    header, table = read_csv(response)
    assert header[:3] == ["name", "display", "id"]
    assert not {"url", "notes_url", "custom_fields", "parent", "status"} & set(header)
    assert [r["id"] for r in table] == [r["id"] for r in rows]  # same filter, same order
    names = {str(location.pk): location for location in Location.objects.all()}
    for row, obj in zip(table, rows, strict=True):
        for key, value in obj.items():
            if key in header:
                assert row[key] == expected(value), key
        location = names[obj["id"]]
        parent = location.parent
        assert row["parent__name"] == (parent.name if parent else "NoObject")
        grandparent = parent.parent if parent else None
        assert row["parent__parent__name"] == (grandparent.name if grandparent else "NoObject")
        assert row["status__name"] == location.status.name
        assert row["location_type__name"] == location.location_type.name
        assert row["tenant__name"] == (location.tenant.name if location.tenant else "NoObject")
    # The tree's columns, name first then each parent, as many as the deepest branch needs.
    assert header.index("parent__name") < header.index("parent__parent__name")


def test_accept_header_and_custom_field_columns(api, sample):
    rows = json_list(api, "/api/dcim/devices/", {})
    header, table = read_csv(api.get("/api/dcim/devices/", HTTP_ACCEPT="text/csv"))
    assert [r["id"] for r in table] == [r["id"] for r in rows]
    custom = sorted({f"cf_{key}" for row in rows for key in row["custom_fields"]})
    assert custom and header[-len(custom) :] == custom
    for row, obj in zip(table, rows, strict=True):
        for key in custom:
            value = obj["custom_fields"][key[3:]]
            assert row[key] == ("" if value is None else str(value))
        device = Device.objects.get(pk=obj["id"])
        assert row["device_type__model"] == device.device_type.model
        assert row["device_type__manufacturer__name"] == device.device_type.manufacturer.name
        assert row["location__name"] == device.location.name
        assert row["tags"] == ",".join(tag["id"] for tag in obj["tags"])
        assert row["face"] == (obj["face"]["value"] if obj["face"] else "NULL")


def test_paging_only_when_asked(api, sample):
    everything = read_csv(api.get("/api/ipam/prefixes/", {"format": "csv"}))[1]
    assert len(everything) == api.json("/api/ipam/prefixes/")["count"] > 2
    page = read_csv(api.get("/api/ipam/prefixes/", {"format": "csv", "limit": 2, "offset": 1}))[1]
    assert [r["id"] for r in page] == [r["id"] for r in everything[1:3]]
    empty = api.get("/api/ipam/prefixes/", {"format": "csv", "prefix": "203.0.113.0/24"})
    assert empty.status_code == 200 and empty.content == b""


def test_errors_stay_json(api, anonymous, sample):
    response = api.get("/api/dcim/locations/", {"format": "csv", "bogus": "1"})
    assert response.status_code == 400
    assert orjson.loads(response.content) == {"bogus": ["Unknown filter field"]}
    assert anonymous.get("/api/dcim/locations/", {"format": "csv"}).status_code == 403


def post_csv(api, path: str, text: str):
    return api.client.post(path, text, content_type="text/csv")


def test_import_creates_what_json_would(api, sample):
    text = (
        "name,description,tenant_group__name,tags,cf_unknown\r\n"
        "Umbrella,research,Enterprise,alpha,x\r\n"
        "Soylent,,NoObject,,\r\n"
    )
    response = post_csv(api, "/api/tenancy/tenants/", text)
    assert response.status_code == 201, response.content
    created = orjson.loads(response.content)
    assert [t["name"] for t in created] == ["Umbrella", "Soylent"]
    umbrella = Tenant.objects.get(name="Umbrella")
    assert umbrella.tenant_group.name == "Enterprise" and umbrella.description == "research"
    assert [tag.name for tag in umbrella.tags.all()] == ["alpha"]
    assert Tenant.objects.get(name="Soylent").tenant_group is None


def test_exported_device_imports_back(api, sample):
    """A row of the export, renamed, creates a device with the same related objects and values."""
    header, table = read_csv(api.get("/api/dcim/devices/", {"format": "csv", "name": "core1"}))
    row = {**table[0], "name": "core9", "id": "", "asset_tag": "NULL", "serial": "S9"}
    # What only one device may hold: its rack position, chassis position and primary addresses.
    row.update({"position": "NULL", "face": "NULL", "vc_position": "NULL"})
    row.update({key: "NoObject" for key in header if key.startswith(("primary_ip", "virtual_chassis__"))})
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, header)
    writer.writeheader()
    writer.writerow(row)
    response = post_csv(api, "/api/dcim/devices/", buffer.getvalue())
    assert response.status_code == 201, response.content
    original, copy = Device.objects.get(name="core1"), Device.objects.get(name="core9")
    for field in ("device_type", "role", "status", "tenant", "location", "platform", "rack"):
        assert getattr(copy, field) == getattr(original, field), field
    assert copy.serial == "S9"
    assert copy._custom_field_data == original._custom_field_data
    assert set(copy.tags.all()) == set(original.tags.all())


def test_import_is_all_or_none_and_names_the_row(api, sample):
    before = Tenant.objects.count()
    text = "name,tenant_group__name\r\nFirst,Enterprise\r\nSecond,Nowhere\r\n"
    response = post_csv(api, "/api/tenancy/tenants/", text)
    assert response.status_code == 400
    errors = orjson.loads(response.content)
    assert errors[0] == {} and "tenant_group" in errors[1]  # the list's position is the data row
    assert Tenant.objects.count() == before
    response = post_csv(api, "/api/tenancy/tenants/", "name\r\nOne\r\nTwo,extra\r\n")
    assert response.status_code == 400
    assert orjson.loads(response.content) == {"detail": "Row 2: more values than columns in the header"}
    assert Tenant.objects.count() == before


def test_bulk_update_by_id_column(api, sample):
    acme, globex = Tenant.objects.get(name="Acme"), Tenant.objects.get(name="globex")
    text = f"id,description\r\n{acme.pk},anvils\r\n{globex.pk},\r\n"
    response = api.client.patch("/api/tenancy/tenants/", text, content_type="text/csv")
    assert response.status_code == 200, response.content
    acme.refresh_from_db()
    globex.refresh_from_db()
    assert (acme.description, globex.description, acme.name) == ("anvils", "", "Acme")


def test_detail_is_the_list_row(api, sample):
    """A detail URL answers the list's header and that object's row, whatever depth is asked."""
    for path in ("/api/dcim/locations/", "/api/dcim/devices/", "/api/ipam/prefixes/"):
        header, table = read_csv(api.get(path, {"format": "csv"}))
        for row in table[:2]:
            detail = f"{path}{row['id']}/"
            by_format = api.get(detail, {"format": "csv", "depth": 2})
            assert by_format["Content-Disposition"] == api.get(path, {"format": "csv"})["Content-Disposition"]
            assert read_csv(by_format) == (header, [row])
            assert read_csv(api.get(detail, HTTP_ACCEPT="text/csv")) == (header, [row])


def test_detail_errors_stay_json(api, anonymous, sample):
    missing = api.get("/api/dcim/locations/00000000-0000-4000-8000-000000000000/", {"format": "csv"})
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
    location = Location.objects.first()
    assert anonymous.get(f"/api/dcim/locations/{location.pk}/", {"format": "csv"}).status_code == 403
