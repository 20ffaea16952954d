"""The generic write family: create, bulk create, update, bulk update, delete, bulk delete,
all-or-none failures, permissions and OPTIONS, for every registered model."""

from __future__ import annotations

import itertools
import uuid

import orjson
import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.validators import MaxLengthValidator
from django.db import models

from inventory.ipam.models import IPAddressRange
from inventory.users.models import Token, User
from queryengine.permissions import restricted
from queryengine.registry import (
    COMPUTED,
    CONTENT_TYPE,
    CONTENT_TYPES,
    FOREIGN_KEY,
    INCLUDED,
    MANY_TO_MANY,
    SCALAR,
    resource_for,
    resources,
)
from queryengine.writes import object_references, writable_fields
from rest import versioning

from .builders import SUPERUSER_KEY
from .conftest import Api

# Every test here reads and writes inside its own transaction: one sample serves them all.
pytestmark = pytest.mark.usefixtures("shared_sample")

# The 2.x and 3.x writes (the 1.x views, sites and regions: test_api_v1.py). Objects holding
# stored files (image attachments) are written with multipart forms carrying the files, which
# bodies made from reads cannot hold: tests/test_image_attachments.py writes them.
CURRENT = [r for r in resources() if r.served_at(versioning.DEFAULT)]
RESOURCES = [r for r in CURRENT if r.writable and not r.file_fields]
READ_ONLY = [r for r in CURRENT if not r.writable]
NO_PERMISSION = {"detail": "You do not have permission to perform this action."}


def list_url(resource) -> str:
    return f"/api/{resource.route}/"


def send(api, method: str, path: str, body=None):
    data = orjson.dumps(body) if body is not None else ""
    response = getattr(api.client, method)(path, data, content_type="application/json")
    return response.status_code, orjson.loads(response.content) if response.content else None


def body_from(resource, row: dict, suffix: str) -> dict:
    """A create body made from an existing object's representation, unique fields made new."""
    body = {}
    for field in writable_fields(resource):
        value = row.get(field.name)
        f = field.model_field
        if field.kind == FOREIGN_KEY:
            # A one-to-one reference (a chassis master, a module's bay) cannot be shared: left out.
            value = None if f.unique and f.null else value and value["id"]
        elif field.kind == MANY_TO_MANY:
            value = [item["id"] for item in value or []]
        elif field.kind == CONTENT_TYPES:
            value = value or []
        elif field.kind == COMPUTED:
            pass
        elif f.unique or field.name in unique_together(resource):
            if f.choices:
                value = None if f.blank else value  # an unset choice (a device's rack face)
            elif isinstance(f, models.CharField) and field.name != "key":
                value = f"{value}{suffix}"
            elif isinstance(f, models.IntegerField):
                # a number no sample object uses, or none at all (a device's rack position)
                value = None if f.null else 3000 + next(_numbers)
            elif suffix:
                continue  # a new object leaves it out; the object itself is written back with it
        body[field.name] = value
    adjust = FRESH.get(resource.model._meta.label)
    return fresh_pairing(resource, adjust(body, suffix) if adjust else body)


def _spare_rear_port(body: dict, suffix: str) -> dict:
    """Front ports need a free position on a rear port: the sample's spare one has plenty."""
    from inventory.dcim.models import RearPort

    spare, _ = RearPort.objects.get_or_create(
        name="spare", device_id=body["device"], defaults={"type": "8p8c", "positions": 64}
    )
    return {**body, "rear_port": str(spare.pk), "rear_port_position": 1 + next(_numbers) % spare.positions}


def _spare_rear_port_template(body: dict, suffix: str) -> dict:
    from inventory.dcim.models import RearPortTemplate

    owner = (
        {"device_type_id": body["device_type"]}
        if body.get("device_type")
        else {"module_type_id": body["module_type"]}
    )
    spare, _ = RearPortTemplate.objects.get_or_create(
        name="spare", **owner, defaults={"type": "8p8c", "positions": 64}
    )
    return {
        **body,
        "rear_port_template": str(spare.pk),
        "rear_port_position": 1 + next(_numbers) % spare.positions,
    }


def _fresh_circuit(body: dict, suffix: str) -> dict:
    """A circuit's two sides are taken: each new termination gets a circuit of its own."""
    from inventory.circuits.models import Circuit

    if not suffix:  # the object itself, written back whole
        return body
    model = Circuit.objects.get(pk=body["circuit"])
    circuit = Circuit.objects.create(
        cid=f"fresh-{next(_numbers)}",
        provider=model.provider,
        circuit_type=model.circuit_type,
        status=model.status,
    )
    return {**body, "circuit": str(circuit.pk), "term_side": "A"}


def _free_ends(body: dict, suffix: str) -> dict:
    """Every cable needs two ends no other cable holds: two new interfaces each time."""
    from inventory.dcim.models import Device, Interface
    from inventory.extras.models import Status

    if not suffix:  # the cable itself, written back whole
        return body
    device, active = (
        Device.objects.filter(interfaces__isnull=False).first(),
        Status.objects.get(name="Active"),
    )
    ends = [
        Interface.objects.create(
            device=device, name=f"cable-end-{next(_numbers)}", type="1000base-t", status=active
        )
        for _ in range(2)
    ]
    return {
        **body,
        **{f"termination_{side}_type": "dcim.interface" for side in "ab"},
        **{f"termination_{side}_id": str(end.pk) for side, end in zip("ab", ends, strict=True)},
    }


def _free_connector(body: dict, suffix: str) -> dict:
    """A further connector needs a cable with one free: a new 2x2 cable each time, the second
    connector of the copied record's end plugged with a new interface."""
    from inventory.dcim.models import Cable, CableType, Device, Interface
    from inventory.extras.models import Status

    if not suffix:
        return body
    device, active = (
        Device.objects.filter(interfaces__isnull=False).first(),
        Status.objects.get(name="Active"),
    )
    fanout, _ = CableType.objects.get_or_create(
        name="fresh 2x2", defaults={"a_connectors": 2, "b_connectors": 2, "total_lanes": 2}
    )
    a, b, b2 = (
        Interface.objects.create(
            device=device, name=f"fanout-{next(_numbers)}", type="25gbase-x-sfp28", status=active
        )
        for _ in range(3)
    )
    cable = Cable(cable_type=fanout, status=Status.objects.get(name="Connected"))
    for side, end in (("a", a), ("b", b)):
        setattr(cable, f"termination_{side}_type", ContentType.objects.get_for_model(end))
        setattr(cable, f"termination_{side}_id", end.pk)
    cable.save()
    ends = {name: None for name in ("console_port", "front_port", "rear_port", "power_port", "power_outlet")}
    ends.update({"console_server_port": None, "power_feed": None, "circuit_termination": None})
    return {**body, **ends, "cable": str(cable.pk), "connector": 2, "interface": str(b2.pk)}


def _fresh_key(body: dict, suffix: str) -> dict:
    """A custom field's key is an identifier: a new one, not the old one with a suffix."""
    return {**body, "key": f"fresh_{next(_numbers)}"} if suffix else body


def _fresh_affiliates(body: dict, suffix: str) -> dict:
    """An association's pair is unique: two new tenants, associated by a many-to-many relationship."""
    from inventory.extras.models import Relationship
    from inventory.tenancy.models import Tenant

    if not suffix:
        return body
    relationship = Relationship.objects.filter(type="many-to-many", source_type__model="tenant").first()
    source, destination = (Tenant.objects.create(name=f"affiliate-{next(_numbers)}") for _ in range(2))
    return {
        **body,
        "relationship": str(relationship.pk),
        "source_type": "tenancy.tenant",
        "source_id": str(source.pk),
        "destination_type": "tenancy.tenant",
        "destination_id": str(destination.pk),
    }


def _fresh_secrets_group(body: dict, suffix: str) -> dict:
    """An access and secret type are used once per group: each copy gets a group of its own."""
    from inventory.extras.models import SecretsGroup

    if not suffix:
        return body
    group = SecretsGroup.objects.create(name=f"fresh group {next(_numbers)}")
    return {**body, "secrets_group": str(group.pk)}


def _fresh_default_view(body: dict, suffix: str) -> dict:
    """A user has one default view per list: each copy is the default of a list of its own."""
    from inventory.extras.models import SavedView

    if not suffix:
        return body
    number = next(_numbers)
    view = SavedView.objects.create(
        owner_id=body["user"], name=f"fresh {number}", view=f"fresh:list_{number}"
    )
    return {**body, "saved_view": str(view.pk)}


def _fresh_email(body: dict, suffix: str) -> dict:
    """A contact's or team's e-mail must stay an address: a new one, not the old one with a suffix."""
    return {**body, "email": f"fresh{next(_numbers)}@example.com"} if suffix else body


def _fresh_associated_tenant(body: dict, suffix: str) -> dict:
    """An association is unique per contact, object and role: each copy is for a new tenant."""
    from inventory.tenancy.models import Tenant

    if not suffix:
        return body
    tenant = Tenant.objects.create(name=f"associated-{next(_numbers)}")
    return {**body, "associated_object_type": "tenancy.tenant", "associated_object_id": str(tenant.pk)}


def _fresh_described_tenant(body: dict, suffix: str) -> dict:
    """Metadata of one type covers a field of an object once: each copy describes a new tenant."""
    from inventory.tenancy.models import Tenant

    if not suffix:
        return body
    tenant = Tenant.objects.create(name=f"described-{next(_numbers)}")
    return {**body, "assigned_object_type": "tenancy.tenant", "assigned_object_id": str(tenant.pk)}


def _free_units(body: dict, suffix: str) -> dict:
    return {**body, "units": [1 + next(_numbers) % 30]}


def _fresh_static_member(body: dict, suffix: str) -> dict:
    """A static group lists an object once: each copy lists a new tenant."""
    from inventory.tenancy.models import Tenant

    if not suffix:  # the association itself, written back whole
        return body
    tenant = Tenant.objects.create(name=f"member-{next(_numbers)}")
    return {**body, "associated_object_type": "tenancy.tenant", "associated_object_id": str(tenant.pk)}


_hosts = itertools.count(10)


def _free_span(body: dict, suffix: str) -> dict:
    """Ranges never overlap: a copy spans one free host of the sample's 10.1.1.0/24."""
    if not suffix:  # the range itself, written back whole
        return body
    host = f"10.1.1.{next(_hosts) % 80 + 10}"
    while IPAddressRange.objects.filter(start_host_address=IPAddressRange.parse_host(host)[1]).exists():
        host = f"10.1.1.{next(_hosts) % 80 + 10}"
    return {**body, "start_address": host, "end_address": host}


def _free_host(body: dict, suffix: str) -> dict:
    """A host is one address per namespace: a copy takes a free host of the same network."""
    import netaddr

    from inventory.ipam import networks
    from inventory.ipam.models import IPAddress

    if not suffix:  # the address itself, written back whole
        return body
    net = netaddr.IPNetwork(body["address"])
    for host in itertools.islice(net.iter_hosts(), 200):
        address = f"{host}/{net.prefixlen}"
        taken = IPAddress.objects.filter(ip_version=net.version, host_address=networks.to_bytes(int(host)))
        if address not in _taken and not taken.exists():
            _taken.add(address)
            return {**body, "address": address}
    raise AssertionError(f"no free host in {net}")


def _fresh_terminated_vlan(body: dict, suffix: str) -> dict:
    """A VLAN terminates one VPN: a copy terminates one no termination has (nor a copy in this
    test), made when none is left, on a VPN that takes any number of them."""
    from inventory.extras.models import Status
    from inventory.ipam.models import VLAN
    from inventory.vpn.models import VPN

    if not suffix:  # the termination itself, written back whole
        return body
    handed = [key[1] for key in _taken if key[0] == "vlan"]
    vlan = VLAN.objects.filter(vpn_terminations=None).exclude(pk__in=handed).first()
    if vlan is None:
        number = 3000 + next(_numbers)
        vlan = VLAN.objects.create(
            name=f"vpn{number}", vid=number % 4000 + 1, status=Status.objects.get(name="Active")
        )
    _taken.add(("vlan", vlan.pk))
    vpn = VPN.objects.filter(service_type="").first() or VPN.objects.create(name=f"vpn{suffix}")
    return {**body, "vpn": str(vpn.pk), "vlan": str(vlan.pk), "interface": None, "vm_interface": None}


def _fresh_endpoint_source(body: dict, suffix: str) -> dict:
    """A source interface has one endpoint (a copy leaves it out): a copy without another source
    takes a name of its own instead."""
    if body.get("source_ipaddress") or body.get("source_fqdn"):
        return body
    return {**body, "source_fqdn": f"copy{suffix or '-whole'}.example.net"}


def _free_rule_target(name: str, body: dict, suffix: str) -> dict:
    """A field takes one rule of each kind: a copy targets a field no rule of its kind holds."""
    from django.apps import apps

    from .data_validation_sample import free_targets

    if not suffix:  # the rule itself, written back whole
        return body
    ((kind, field),) = free_targets(apps.get_model("data_validation", name), 1, _handed_fields)
    return {**body, "content_type": f"{kind.app_label}.{kind.model}", "field": field}


_handed_fields: set = set()  # rule targets handed out in the current test, not yet created


def _rule_copy(name: str):
    return lambda body, suffix: _free_rule_target(name, body, suffix)


def _fresh_schedule(body: dict, suffix: str) -> dict:
    """A workflow reviews one object once: each copy reviews a schedule of its own, stored
    without starting a workflow of its own (bulk_create skips save)."""
    from inventory.jobs.models import ScheduledJob

    if not suffix:
        return body
    model = ScheduledJob.objects.get(
        pk=body.get("object_under_review_object_id") or ScheduledJob.objects.first().pk
    )
    copy = ScheduledJob(
        name=f"review-{next(_numbers)}", task=model.task, interval="future", start_time=model.start_time
    )
    ScheduledJob.objects.bulk_create([copy])
    return {
        **body,
        "object_under_review_content_type": "extras.scheduledjob",
        "object_under_review_object_id": str(copy.pk),
    }


def _fresh_remote(body: dict, suffix: str) -> dict:
    """Repositories on one remote may not provide the same contents, and a slug is an identifier
    given once: a copy has a remote of its own and the slug its name gives."""
    if not suffix:
        return body
    copy = {key: value for key, value in body.items() if key != "slug"}
    return {**copy, "remote_url": f"https://git.example.com/fresh{next(_numbers)}.git"}


# Models whose copies need more than new unique values to be valid (values that must be free).
FRESH = {
    # A compliance result is one per object and attribute: a copy is about another object.
    "data_validation.DataCompliance": lambda body, suffix: {
        **body,
        "content_type": body.get("content_type", "tenancy.tenant"),
        "object_id": body.get("object_id", str(uuid.uuid4())),
    },
    **{
        f"data_validation.{name}": _rule_copy(name)
        for name in (
            "RegularExpressionValidationRule",
            "MinMaxValidationRule",
            "RequiredValidationRule",
            "UniqueValidationRule",
        )
    },
    # A definition's weight is unique per object type: a copy keeps the type with a new weight.
    "extras.ApprovalWorkflowDefinition": lambda body, suffix: {
        **body,
        "model_content_type": "extras.scheduledjob",
    },
    "extras.ApprovalWorkflow": _fresh_schedule,
    "dcim.FrontPort": _spare_rear_port,
    "dcim.FrontPortTemplate": _spare_rear_port_template,
    "dcim.RackReservation": _free_units,
    "circuits.CircuitTermination": _fresh_circuit,
    "dcim.Cable": _free_ends,
    "dcim.CableToCableTermination": _free_connector,
    "extras.CustomField": _fresh_key,
    "extras.StaticGroupAssociation": _fresh_static_member,
    "extras.RelationshipAssociation": _fresh_affiliates,
    "extras.SecretsGroupAssociation": _fresh_secrets_group,
    "extras.UserSavedViewAssociation": _fresh_default_view,
    "extras.Contact": _fresh_email,
    "extras.Team": _fresh_email,
    "extras.ContactAssociation": _fresh_associated_tenant,
    "extras.ObjectMetadata": _fresh_described_tenant,
    # A computed field's label is unique per type: a copy keeps the original's type.
    "extras.ComputedField": lambda body, suffix: {**body, "content_type": "tenancy.tenant"},
    "extras.ExportTemplate": lambda body, suffix: {**body, "content_type": "tenancy.tenant"},
    "ipam.IPAddressRange": _free_span,
    "ipam.IPAddress": _free_host,
    "vpn.VPNTermination": _fresh_terminated_vlan,
    "vpn.VPNTunnelEndpoint": _fresh_endpoint_source,
    "extras.GitRepository": _fresh_remote,
    # A VRF is on one device, machine or context: a copy goes on a fresh device alone.
    "ipam.VRFDeviceAssignment": lambda body, suffix: {
        **body,
        "virtual_machine": None,
        "virtual_device_context": None,
    },
}


_taken: set = set()  # pairs handed out in the current test, not yet created


@pytest.fixture(autouse=True)
def no_pairs_taken():
    _taken.clear()
    _handed_fields.clear()


@pytest.fixture(autouse=True)
def sample_variable_allowed(settings):
    """The sample's environment-variable secret, written back and copied here, names NETOPS_PASSWORD."""
    settings.SECRET_ENVIRONMENT_VARIABLES = ["NETOPS_PASSWORD"]


_numbers = itertools.count()


def fresh_pairing(resource, body: dict) -> dict:
    """Objects unique by a pair of related objects (assignments) need a pair not yet used."""
    foreign = {f.name: f for f in writable_fields(resource) if f.kind == FOREIGN_KEY}
    pairs = [
        c.fields
        for c in resource.model._meta.constraints
        if isinstance(c, models.UniqueConstraint) and len(c.fields) == 2 and set(c.fields) <= foreign.keys()
    ]
    if not pairs:
        return body
    first, second = foreign[pairs[0][0]], foreign[pairs[0][1]]
    for a in first.target.objects.all():
        for b in second.target.objects.all():
            pair = {first.name: a.pk, second.name: b.pk}
            key = (resource.route, a.pk, b.pk)
            if key not in _taken and not resource.model.objects.filter(**pair).exists():
                _taken.add(key)
                return {**body, first.name: str(a.pk), second.name: str(b.pk)}
    raise AssertionError(f"no unused pairing for {resource.route}")


def unique_together(resource) -> set[str]:
    constraints = [c for c in resource.model._meta.constraints if isinstance(c, models.UniqueConstraint)]
    return {name for c in constraints for name in c.fields}


def invalid_item(resource) -> dict:
    """An item no model accepts: a structured value where a plain value or a reference belongs."""
    field = next(f for f in writable_fields(resource) if not isinstance(f.model_field, models.JSONField))
    return {field.name: {"nosuchattribute": 1}}


def source_row(api, resource) -> dict:
    rows = api.json(list_url(resource), {"limit": 1000})["results"]
    return next(r for r in rows if resource.model_name != "token" or r["key"] != SUPERUSER_KEY)


def count(resource, user) -> int:
    return restricted(resource, user).count()


# Free text that is not free on every object: a tunnel endpoint's FQDN is refused beside a
# source address (tests/test_vpn.py checks it).
# A data validation rule's field names a field of its content type.
NOT_FREE_TEXT = {
    "vpn.VPNTunnelEndpoint.source_fqdn",
    *(
        f"data_validation.{name}.field"
        for name in (
            "RegularExpressionValidationRule",
            "MinMaxValidationRule",
            "RequiredValidationRule",
            "UniqueValidationRule",
        )
    ),
}


def editable_text_field(resource):
    return next(
        (
            f
            for f in writable_fields(resource)
            if f.kind == SCALAR
            and f"{resource.model._meta.label}.{f.name}" not in NOT_FREE_TEXT
            and isinstance(f.model_field, models.CharField)
            and not f.model_field.unique
            and not f.model_field.choices
            and f.model_field.max_length >= 20
            and not [v for v in f.model_field.validators if not isinstance(v, MaxLengthValidator)]
        ),
        None,
    )


def unknown_id(resource):
    """An id no object has: Django's groups are numbered, every other object has a UUID."""
    return 2_000_000_000 if resource.integer_pk else "00000000-0000-4000-8000-000000000000"


def hidden_references(resource, body: dict, user) -> dict:
    """{related resource: the body's fields naming its objects}, for the resources whose
    objects `user` may not view."""
    found: dict = {}
    for field in writable_fields(resource):
        if field.kind not in (FOREIGN_KEY, MANY_TO_MANY) or body.get(field.name) in (None, "", []):
            continue
        target = resource_for(field.target)
        if target is not None and not restricted(target, user).exists():
            found.setdefault(target, []).append(field.name)
    return found


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda r: r.route)
class TestEveryModelWrites:
    def test_create_one(self, api, resource, superuser):
        refuse_creation_unless_creatable(api, resource)
        body = body_from(resource, source_row(api, resource), "-new")
        before = count(resource, superuser)
        # Every written field is shown back, many-to-many ones too (3.0 leaves them out by default).
        status, created = send(api, "post", f"{list_url(resource)}?exclude_m2m=false", body)
        assert status == 201, created
        assert count(resource, superuser) == before + 1
        kinds = {f.name: f.kind for f in writable_fields(resource)}
        for name, value in body.items():
            if name in resource.write_only:  # taken, never shown (an address's namespace)
                assert name not in created
                continue
            shown = created[name]
            if kinds[name] == FOREIGN_KEY and shown is not None:
                shown = shown["id"]
            elif kinds[name] == MANY_TO_MANY:
                shown = [item["id"] for item in shown]
            if isinstance(value, list):
                assert sorted(map(str, shown)) == sorted(map(str, value)), name
            else:
                assert shown == value or str(shown) == str(value), (name, shown, value)
        assert (
            api.json(created["url"].replace("http://testserver", ""))
            == api.json(list_url(resource), {"id": created["id"]})["results"][0]
        )

    def test_bulk_create_in_order_and_all_or_none(self, api, resource, superuser):
        refuse_creation_unless_creatable(api, resource)
        row = source_row(api, resource)
        bodies = [body_from(resource, row, "-b1"), body_from(resource, row, "-b2")]
        before = count(resource, superuser)
        status, bad = send(api, "post", list_url(resource), [bodies[0], invalid_item(resource)])
        assert status == 400 and bad[0] == {} and bad[1]
        assert count(resource, superuser) == before
        status, created = send(api, "post", list_url(resource), bodies)
        assert status == 201 and len(created) == 2
        assert not set(resource.counts) & created[0].keys()  # as the reference's create answers
        assert count(resource, superuser) == before + 2
        assert send(api, "post", list_url(resource), []) == (201, [])

    def test_update_patch_put_and_bulk(self, api, resource, superuser):
        field = editable_text_field(resource)
        if field is None:
            pytest.skip("no free-text field to change")
        row = source_row(api, resource)
        path = row["url"].replace("http://testserver", "")
        response = api.client.patch(
            path, orjson.dumps({field.name: "changed by patch"}), content_type="application/json"
        )
        patched = orjson.loads(response.content)
        assert response.status_code == 200 and patched[field.name] == "changed by patch"
        assert getattr(resource.model.objects.get(pk=row["id"]), field.name) == "changed by patch"
        # The object as the write answered it (read back with its UPDATE on PostgreSQL) and its
        # tag are those a read then gives; a write also answers the keys a read shows on request.
        read = api.get(path)
        shown = orjson.loads(read.content)
        assert set(patched) - set(shown) <= {"computed_fields", "relationships", "config_context"}
        # An update answers the counts of related objects as a read shows them (a create does
        # not), as the reference's answers do.
        assert {k: patched[k] for k in shown} == shown
        assert read["ETag"] == response["ETag"]
        assert send(api, "patch", path, {})[0] == 200
        required = {f.name for f in writable_fields(resource) if f.required} - {field.name}
        if required:
            status, errors = send(api, "put", path, {field.name: "x"})
            assert status == 400 and set(errors) == required
        full = {**body_from(resource, patched, ""), field.name: "changed by put"}
        status, put = send(api, "put", path, full)
        assert status == 200 and put[field.name] == "changed by put"
        others = [r for r in api.json(list_url(resource), {"limit": 1000})["results"] if r["id"] != row["id"]]
        # A body may name the object's own id; another id is refused, as the reference answers.
        assert send(api, "patch", path, {"id": row["id"], field.name: "changed by put"})[0] == 200
        for method, other in itertools.product(("patch", "put"), (unknown_id(resource), others[0]["id"])):
            status, errors = send(api, method, path, {**full, "id": other, field.name: "moved"})
            assert status == 400 and errors and all(isinstance(v, list) for v in errors.values())
        assert getattr(resource.model.objects.get(pk=row["id"]), field.name) == "changed by put"
        items = [{"id": row["id"], field.name: "bulk 1"}, {"id": others[0]["id"], field.name: "bulk 2"}]
        status, updated = send(api, "patch", list_url(resource), items)
        assert status == 200 and [u[field.name] for u in updated] == ["bulk 1", "bulk 2"]
        failing = [
            {"id": row["id"], field.name: "never stored"},
            {"id": others[0]["id"], **invalid_item(resource)},
        ]
        status, errors = send(api, "patch", list_url(resource), failing)
        # The failing object's errors, as a PATCH of it alone gives them (the reference's answer).
        alone = send(api, "patch", others[0]["url"].replace("http://testserver", ""), invalid_item(resource))
        assert (status, errors) == alone and status == 400
        assert getattr(resource.model.objects.get(pk=row["id"]), field.name) == "bulk 1"
        status, errors = send(api, "patch", list_url(resource), [{field.name: "no id"}])
        assert status == 400 and errors == [{"id": ["This field is required."]}]
        unknown = unknown_id(resource)
        status, _ = send(
            api, "patch", list_url(resource), [{"id": row["id"], field.name: "x"}, {"id": unknown}]
        )
        assert status == 404
        assert getattr(resource.model.objects.get(pk=row["id"]), field.name) == "bulk 1"
        status, errors = send(api, "patch", list_url(resource), {"id": row["id"]})
        assert status == 400 and errors == {
            "non_field_errors": ['Expected a list of items but got type "dict".']
        }

    def test_delete_one_and_bulk(self, api, resource, superuser):
        row = source_row(api, resource)
        if resource.creatable:
            status, created = send(
                api, "post", list_url(resource), [body_from(resource, row, f"-d{i}") for i in range(3)]
            )
            assert status == 201
        else:  # objects that come from elsewhere: the sample's own are deleted
            created = [{"id": str(pk)} for pk in resource.model.objects.values_list("pk", flat=True)[:3]]
        path = f"{list_url(resource)}{created[0]['id']}/"
        assert send(api, "delete", path) == (204, None)
        assert not resource.model.objects.filter(pk=created[0]["id"]).exists()
        assert send(api, "delete", path)[0] == 404
        before = count(resource, superuser)
        unknown = {"id": unknown_id(resource)}
        status, _ = send(api, "delete", list_url(resource), [{"id": created[1]["id"]}, unknown])
        assert status == 404 and count(resource, superuser) == before
        good = {"id": created[1]["id"]}
        assert send(api, "delete", list_url(resource), [good, {"id": "nope"}]) == (
            400,
            [
                {},
                {"id": ["A valid integer is required." if resource.integer_pk else "Must be a valid UUID."]},
            ],
        )
        assert count(resource, superuser) == before
        assert send(api, "delete", list_url(resource), [{"id": c["id"]} for c in created[1:]]) == (204, None)
        assert count(resource, superuser) == before - 2
        assert send(api, "delete", list_url(resource), [{"name": "x"}]) == (
            400,
            [{"id": ["This field is required."]}],
        )
        status, body = send(api, "delete", list_url(resource))
        assert status == 400 and body == {
            "non_field_errors": ['Expected a list of items but got type "dict".']
        }

    def test_read_only_tokens_and_permissions(self, api, resource, sample, superuser):
        row = source_row(api, resource)
        if not resource.creatable:
            read_only = Api(sample[Token][1].key)
            path = row["url"].replace("http://testserver", "")
            assert send(read_only, "patch", path, {})[0] == 403
            assert send(read_only, "delete", path)[0] == 403
            assert send(Api(None), "patch", path, {})[0] == 403
            assert resource.model.objects.filter(pk=row["id"]).exists()
            return
        body = body_from(resource, row, "-perm")
        # Fields only superusers set (tests/test_user_administration.py): left at their defaults.
        for name in resource.superuser_fields:
            body.pop(name, None)
        read_only = Api(sample[Token][1].key)
        before = count(resource, superuser)
        assert send(read_only, "post", list_url(resource), body) == (403, NO_PERMISSION)
        assert send(read_only, "delete", row["url"].replace("http://testserver", ""))[0] in (403, 404)
        assert count(resource, superuser) == before
        assert send(Api(None), "post", list_url(resource), body)[0] == 403
        user = User.objects.create_user("writer")
        token = Token.objects.create(user=user)
        writer = Api(token.key)
        if resource.view_permission:
            view = Permission.objects.get(
                codename=f"view_{resource.model_name}", content_type__app_label=resource.app_label
            )
            user.user_permissions.add(view)
        # Adding needs the add permission, tokens included (spec §5: token creation per user).
        assert send(Api(token.key), "post", list_url(resource), body) == (403, NO_PERMISSION)
        add = Permission.objects.get(
            codename=f"add_{resource.model_name}", content_type__app_label=resource.app_label
        )
        user.user_permissions.add(add)
        if resource.superuser_writes:  # groups and permissions: superusers alone write them
            assert send(Api(token.key), "post", list_url(resource), body) == (403, NO_PERMISSION)
            return
        # An object named by type and id (a note's, a cable end) must be one the writer may view.
        named = {
            body[type_field]
            for type_field, _ in object_references(resource)
            if isinstance(body.get(type_field), str)
        }
        for object_type in sorted(named):
            app_label, model = object_type.split(".")
            status, refused = send(writer, "post", list_url(resource), body)
            assert status == 404, refused
            user.user_permissions.add(
                Permission.objects.get(codename=f"view_{model}", content_type__app_label=app_label)
            )
        # So must every related object it names: one it may not view is not found (400).
        hidden = hidden_references(resource, body, User.objects.get(pk=user.pk))
        for target, names in sorted(hidden.items(), key=lambda item: item[0].object_type):
            status, refused = send(writer, "post", list_url(resource), body)
            assert status == 400 and any("not found" in str(refused.get(n)) for n in names), (target, refused)
            user.user_permissions.add(
                Permission.objects.get(
                    codename=f"view_{target.model_name}", content_type__app_label=target.app_label
                )
            )
            user = User.objects.get(pk=user.pk)  # permissions are cached on the user object
        writer = Api(token.key)
        status, created = send(writer, "post", list_url(resource), body)
        assert status == 201, created

    def test_options(self, api, resource, sample):
        response = api.client.options(list_url(resource))
        assert response.status_code == 200
        body = orjson.loads(response.content)
        assert body["renders"] and body["parses"] == ["application/json"]
        described = body["actions"]["POST" if resource.creatable else "PUT"]
        for field in writable_fields(resource):
            assert described[field.name]["read_only"] is False
            assert described[field.name]["required"] is field.required
            if field.model_field is not None and field.model_field.choices:
                assert described[field.name]["choices"]
            if field.kind == CONTENT_TYPE:  # the object types it takes, by label
                choices = described[field.name]["choices"]
                assert choices and all(c["value"].count(".") == 1 and " | " in c["display"] for c in choices)
                assert choices == sorted(choices, key=lambda c: c["display"])
        assert described["id"]["read_only"] is False and described["url"]["read_only"] is True
        check_field_descriptions(resource, described)
        detail = orjson.loads(
            api.client.options(f"{list_url(resource)}{sample[resource.model][0].pk}/").content
        )
        assert list(detail["actions"]) == ["PUT"]
        read_only = orjson.loads(Api(sample[Token][1].key).client.options(list_url(resource)).content)
        assert "actions" not in read_only
        assert Api(None).client.options(list_url(resource)).status_code == 403


def check_field_descriptions(resource, described: dict) -> None:
    """Each model field described as the reference's serializers describe it: its help text
    always; a length, range or digits only where it is written and takes no choices; choices
    shown as bare values typed "choice"; include= values with their own entries."""
    for spec in resource.current_fields:
        entry, f = described.get(spec.name), spec.model_field
        if spec.kind == INCLUDED and spec.name not in resource.loaded:
            assert entry["read_only"] is (spec.included.write is None), spec.name
        if (
            entry is None
            or not isinstance(f, models.Field)
            or spec.kind not in (SCALAR, FOREIGN_KEY, CONTENT_TYPE)
        ):
            continue
        assert entry.get("help_text") == (str(f.help_text) if f.help_text else None), spec.name
        limits = {"max_length", "min_value", "max_value", "max_digits", "decimal_places"} & set(entry)
        if entry["read_only"] or f.choices or not getattr(f, "described_limits", True):
            assert not limits, (spec.name, limits)
        if f.choices:
            assert entry["type"] == ("choice" if getattr(f, "shown_as_value", False) else "field")


def refuse_creation_unless_creatable(api, resource) -> None:
    """Objects that come from elsewhere (jobs from code) are never created through the API."""
    if resource.creatable:
        return
    status, body = send(api, "post", list_url(resource), {})
    assert (status, body) == (405, {"detail": 'Method "POST" not allowed.'})
    assert api.client.get(list_url(resource))["Allow"] == "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
    pytest.skip("not created through the API")


@pytest.mark.parametrize("resource", READ_ONLY, ids=lambda r: r.route)
def test_read_only_resources_refuse_writes(api, resource, sample):
    pk = sample[resource.model][0].pk
    for path in (list_url(resource), f"{list_url(resource)}{pk}/"):
        for method in ("post", "put", "patch", "delete"):
            response = getattr(api.client, method)(path, b"{}", content_type="application/json")
            assert response.status_code == 405, (path, method)
            assert orjson.loads(response.content) == {"detail": f'Method "{method.upper()}" not allowed.'}
            assert response["Allow"] == "GET, HEAD, OPTIONS"
        assert api.client.head(path).status_code == 200
        options = orjson.loads(api.client.options(path).content)
        assert "actions" not in options
    assert resource.model.objects.filter(pk=pk).exists()
