"""Object permissions through the whole stack: who sees and writes which rows, by REST and
GraphQL, for model permissions, constrained object permissions, superusers and token kinds."""

from __future__ import annotations

import datetime
import itertools

import orjson
import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from inventory.dcim.models import Device, Location
from inventory.extras.models import Note, ObjectChange
from inventory.ipam.models import Prefix
from inventory.tenancy.models import Tenant
from inventory.users.models import Group, ObjectPermission, Token, User
from queryengine.registry import resources

from .builders import SUPERUSER_KEY
from .conftest import Api, send

NO_PERMISSION = {"detail": "You do not have permission to perform this action."}
NO_CREDENTIALS = {"detail": "Authentication credentials were not provided."}
_names = itertools.count()

# object type -> (list path, constraint, names of the sample rows it allows)
CASES = {
    "tenancy.tenant": (
        "/api/tenancy/tenants/",
        {"tenant_group__name__in": ["Customers", "Enterprise"]},
        lambda sample: {t.pk for t in sample[Tenant] if t.tenant_group_id},
    ),
    "dcim.device": (
        "/api/dcim/devices/",
        {"location__name": "AMS1"},
        lambda sample: {d.pk for d in sample[Device] if d.location.name == "AMS1"},
    ),
    "ipam.prefix": (
        "/api/ipam/prefixes/",
        {"type": "container"},
        lambda sample: {p.pk for p in sample[Prefix] if p.type == "container"},
    ),
}


def account(*model_permissions: str, write: bool = True, expires=None) -> tuple[User, Api]:
    user = User.objects.create_user(f"user{next(_names)}")
    for name in model_permissions:
        app_label, codename = name.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    token = Token.objects.create(user=user, write_enabled=write, expires=expires)
    return user, Api(token.key)


def grant(holder, object_types, actions, constraints=None, enabled=True) -> ObjectPermission:
    permission = ObjectPermission.objects.create(
        name=f"permission {next(_names)}", actions=actions, constraints=constraints, enabled=enabled
    )
    permission.object_types.set(
        [ContentType.objects.get_by_natural_key(*name.split(".")) for name in object_types]
    )
    (permission.groups if isinstance(holder, Group) else permission.users).add(holder)
    return permission


def ids(api, path, params=None) -> set:
    body = api.json(path, {"limit": 1000, **(params or {})})
    assert body["count"] == len(body["results"])
    return {r["id"] for r in body["results"]}


def graphql(api, query: str, variables=None) -> dict:
    response = api.post("/api/graphql/", {"query": query, "variables": variables or {}})
    return orjson.loads(response.content)


def graphql_list(api, object_type: str, extra: str = "") -> tuple[set, int]:
    resource = next(r for r in resources() if r.object_type == object_type)
    field = resource.list_field
    data = graphql(api, f"{{ {field}(limit: 1000) {{ id }} {field}_count }}")["data"]
    return {r["id"] for r in data[field]}, data[f"{field}_count"]


def strs(pks) -> set:
    return {str(pk) for pk in pks}


# -- reads -----------------------------------------------------------------------------------


@pytest.mark.parametrize("object_type", sorted(CASES))
def test_read_matrix(sample, superuser, object_type):
    path, constraint, allowed = CASES[object_type]
    app_label, model = object_type.split(".")
    model_class = ContentType.objects.get_by_natural_key(app_label, model).model_class()
    everything = strs(model_class.objects.values_list("pk", flat=True))
    inside = strs(allowed(sample))
    assert inside and inside != everything
    outside = sorted(everything - inside)[0]

    # No permission: the list is refused, GraphQL sees nothing.
    _, nobody = account()
    assert nobody.json(path, status=403) == NO_PERMISSION
    assert graphql_list(nobody, object_type) == (set(), 0)

    # A model permission: every row.
    _, viewer = account(f"{app_label}.view_{model}")
    assert ids(viewer, path) == everything
    assert graphql_list(viewer, object_type) == (everything, len(everything))

    # A constrained object permission: exactly the rows it allows, everywhere.
    user, constrained = account()
    grant(user, [object_type], ["view"], constraint)
    assert ids(constrained, path) == inside
    assert graphql_list(constrained, object_type) == (inside, len(inside))
    assert constrained.json(path, {"limit": 1})["count"] == len(inside)
    constrained.json(f"{path}{sorted(inside)[0]}/")
    constrained.json(f"{path}{outside}/", status=404)
    resource = next(r for r in resources() if r.object_type == object_type)
    single = graphql(constrained, f'{{ {resource.single_field}(id: "{outside}") {{ id }} }}')
    assert single["data"][resource.single_field] is None

    # Superusers, with a read-only token too, see everything.
    assert ids(Api(SUPERUSER_KEY), path) == everything
    assert ids(Api(sample[Token][1].key), path) == everything

    # Expired tokens and anonymous callers see nothing, unless the type is exempt.
    _, expired = account(f"{app_label}.view_{model}", expires=timezone.now() - datetime.timedelta(days=1))
    assert expired.json(path, status=403) == {"detail": "Token expired"}
    assert Api(None).json(path, status=403) == NO_CREDENTIALS
    with override_settings(EXEMPT_VIEW_PERMISSIONS=[object_type]):
        assert ids(Api(None), path) == everything
        assert ids(nobody, path) == everything


def test_groups_disabled_permissions_and_user_substitution(sample, superuser):
    user, api = account()
    team = Group.objects.create(name="NOC")
    team.users.add(user)
    permission = grant(team, ["tenancy.tenant"], ["view"], {"tenant_group__name": "Customers"})
    initech = Tenant.objects.get(name="Initech")
    assert ids(api, "/api/tenancy/tenants/") == {str(initech.pk)}
    permission.enabled = False
    permission.save()
    assert api.json("/api/tenancy/tenants/", status=403) == NO_PERMISSION
    # `$user` stands for the requesting user.
    mine = Note.objects.create(
        assigned_object_type=ContentType.objects.get_for_model(Tenant),
        assigned_object_id=initech.pk,
        user=user,
        user_name=user.username,
        note="mine",
    )
    grant(user, ["extras.note"], ["view"], {"user": "$user"})
    assert ids(api, "/api/extras/notes/") == {str(mine.pk)}
    # Groups list their member counts.
    groups = {g["name"]: g for g in Api(SUPERUSER_KEY).json("/api/users/groups/")["results"]}
    assert groups["NOC"]["user_count"] == 1 and groups["NOC"]["object_type"] == "auth.group"
    # Users list their groups (a many-to-many field: shown when asked for from 3.0), and take
    # them on a write: by id (a number, or its digits) or by name.
    admin = Api(SUPERUSER_KEY)
    shown = admin.json(f"/api/users/users/{user.pk}/", {"exclude_m2m": "false"})
    assert shown["groups"] == [
        {"id": team.pk, "object_type": "auth.group", "url": f"http://testserver/api/users/groups/{team.pk}/"}
    ]
    ops = Group.objects.create(name="Ops")
    status, body = send(admin, "patch", f"/api/users/users/{user.pk}/", {"groups": ["Ops", str(team.pk)]})
    assert status == 200, body
    assert set(user.groups.values_list("name", flat=True)) == {"NOC", "Ops"} and ops.users.count() == 1
    status, body = send(admin, "patch", f"/api/users/users/{user.pk}/", {"groups": [ops.pk]})
    assert status == 200 and list(user.groups.all()) == [ops]


def test_groups_are_djangos_integer_keyed_groups(sample, superuser):
    """As the reference's auth groups: numbered, object type auth.group, listed by name; users and
    permissions name them by id, and a permission on auth.group lets its holders read them."""
    admin = Api(SUPERUSER_KEY)
    # An id given on create is not the group's (Django numbers them), as the reference ignores it.
    status, made = send(admin, "post", "/api/users/groups/", {"name": "brd-netops", "id": 99999})
    group = Group.objects.get(name="brd-netops")
    assert status == 201 and made["id"] == group.pk != 99999
    shown = admin.json(f"/api/users/groups/{group.pk}/", {"depth": 1})
    assert shown == {
        "id": group.pk,
        "object_type": "auth.group",
        "display": "brd-netops",
        "url": f"http://testserver/api/users/groups/{group.pk}/",
        "natural_slug": f"brd-netops_{str(group.pk)[:4]}",
        "user_count": 0,
        "name": "brd-netops",
    }
    assert list(shown) == ["id", "object_type", "display", "url", "natural_slug", "user_count", "name"]
    assert made == {k: v for k, v in shown.items() if k != "user_count"}  # writes show no counts
    assert admin.json("/api/users/groups/brd-netops/")["id"] == group.pk  # by its name too
    listed = admin.json("/api/users/groups/", {"limit": 1000})["results"]
    assert [g["name"] for g in listed] == sorted(g["name"] for g in listed)
    assert [g["id"] for g in admin.json("/api/users/groups/", {"id": group.pk})["results"]] == [group.pk]
    assert admin.json("/api/users/groups/", {"id": "abc"}, status=400) == {"id": ["Enter a whole number."]}
    status, changed = send(admin, "patch", f"/api/users/groups/{group.pk}/", {"name": "brd-noc"})
    assert (status, changed["name"]) == (200, "brd-noc")
    status, changed = send(admin, "patch", "/api/users/groups/", [{"id": group.pk, "name": "brd-ops"}])
    assert (status, changed[0]["id"], changed[0]["name"]) == (200, group.pk, "brd-ops")
    # A permission on groups, granted to a group of the user's.
    user, api = account()
    status, permission = send(
        admin,
        "post",
        "/api/users/permissions/?exclude_m2m=false",
        {"name": "see groups", "object_types": ["auth.group"], "actions": ["view"], "groups": [group.pk]},
    )
    assert status == 201 and [g["id"] for g in permission["groups"]] == [group.pk]
    api.json("/api/users/groups/", status=403)
    group.users.add(user)
    assert ids(api, "/api/users/groups/") == {g.pk for g in Group.objects.all()}
    everyone = {g.pk for g in Group.objects.all()}
    assert graphql_list(api, "auth.group") == (everyone, len(everyone))
    # Deleted one by one or in bulk, by their numbers; no change record names them (UUIDs only).
    other = Group.objects.create(name="brd-other")
    assert send(admin, "delete", "/api/users/groups/", [{"id": "x"}]) == (
        400,
        [{"id": ["A valid integer is required."]}],
    )
    assert send(admin, "delete", "/api/users/groups/", [{"id": other.pk}]) == (204, None)
    assert send(admin, "delete", f"/api/users/groups/{group.pk}/") == (204, None)
    assert not Group.objects.filter(pk__in=[group.pk, other.pk]).exists()
    assert not ObjectChange.objects.filter(changed_object_type__model="group").exists()


def test_notes_and_available_ips_follow_the_parent_constraints(sample, superuser):
    user, api = account("extras.view_note", "ipam.view_ipaddress")
    grant(user, ["ipam.prefix", "tenancy.tenant"], ["view"], [{"type": "container"}, {"name": "Acme"}])
    container = Prefix.objects.get(type="container", prefix_length=8)
    other = next(p for p in sample[Prefix] if p.type != "container")
    api.json(f"/api/ipam/prefixes/{container.pk}/available-ips/", {"limit": 1})
    api.json(f"/api/ipam/prefixes/{other.pk}/available-ips/", status=404)
    api.json(f"/api/ipam/prefixes/{other.pk}/available-prefixes/", status=404)
    acme, globex = Tenant.objects.get(name="Acme"), Tenant.objects.get(name="globex")
    api.json(f"/api/tenancy/tenants/{acme.pk}/notes/")
    api.json(f"/api/tenancy/tenants/{globex.pk}/notes/", status=404)


def test_notes_only_on_objects_the_writer_can_view(sample, superuser):
    """A note for a hidden object is refused as the object itself is (404), and one for an
    object that does not exist alike: the answer tells nothing about hidden objects."""
    user, api = account("extras.view_note", "extras.add_note")
    grant(user, ["tenancy.tenant"], ["view"], {"name": "Acme"})
    acme, globex = Tenant.objects.get(name="Acme"), Tenant.objects.get(name="globex")
    hidden = {"detail": "No Tenant matches the given query."}

    def note_on(pk) -> dict:
        return {"assigned_object_type": "tenancy.tenant", "assigned_object_id": str(pk), "note": "seen"}

    for pk in (globex.pk, "00000000-0000-4000-8000-000000000000"):
        assert send(api, "post", "/api/extras/notes/", note_on(pk)) == (404, hidden)
        assert send(api, "post", f"/api/tenancy/tenants/{pk}/notes/", {"note": "seen"}) == (404, hidden)
    assert send(api, "post", "/api/extras/notes/", [note_on(acme.pk), note_on(globex.pk)]) == (404, hidden)
    mutation = "mutation ($data: [GenericScalar]!) { create_notes(data: $data) { note } }"
    body = graphql(api, mutation, {"data": [note_on(globex.pk)]})
    assert body["data"] == {"create_notes": None} and body["errors"][0]["message"] == hidden["detail"]
    assert not Note.objects.filter(assigned_object_id=globex.pk, note="seen").exists()
    assert send(api, "post", "/api/extras/notes/", note_on(acme.pk))[0] == 201
    assert send(api, "post", f"/api/tenancy/tenants/{acme.pk}/notes/", {"note": "seen"})[0] == 201
    # A move to a hidden object is refused alike.
    mine = Note.objects.filter(assigned_object_id=acme.pk, note="seen", user=user).first().pk
    user.user_permissions.add(Permission.objects.get(codename="change_note"))
    status, body = send(api, "patch", f"/api/extras/notes/{mine}/", {"assigned_object_id": str(globex.pk)})
    assert (status, body) == (404, hidden)


def test_permission_lookup_is_one_query_per_request(sample, superuser):
    user, api = account()
    grant(user, ["dcim.device", "dcim.location"], ["view"], {"name__isnull": False})
    with CaptureQueriesContext(connection) as queries:
        api.json("/api/dcim/devices/", {"depth": 1})
    assert sum("users_objectpermission" in q["sql"] for q in queries.captured_queries) == 1
    with CaptureQueriesContext(connection) as queries:
        Api(SUPERUSER_KEY).json("/api/dcim/devices/", {"depth": 1})
    sql = [q["sql"] for q in queries.captured_queries]
    assert not any("objectpermission" in q or "auth_permission" in q for q in sql)
    # Model permissions on the devices and on what they show inside (tags, clusters) and name
    # in their natural slugs (tenants, locations) need no object permission.
    _, viewer = account(
        "dcim.view_device",
        "extras.view_tag",
        "virtualization.view_cluster",
        "tenancy.view_tenant",
        "dcim.view_location",
    )
    with CaptureQueriesContext(connection) as queries:
        viewer.json("/api/dcim/devices/")
    assert not any("users_objectpermission" in q["sql"] for q in queries.captured_queries)


# -- writes ----------------------------------------------------------------------------------


def device_patch(api, device, body):
    return send(api, "patch", f"/api/dcim/devices/{device.pk}/", body)


def test_change_is_checked_before_and_after(sample, superuser):
    user, api = account()
    grant(user, ["dcim.device"], ["view", "change"], {"location__name": "AMS1"})
    grant(user, ["dcim.location"], ["view"])  # a write names only related objects its writer may view
    leaf, core = Device.objects.get(name="leaf1"), Device.objects.get(name="core1")
    blade = Device.objects.get(name=None)
    fra = Location.objects.get(name="fra2")
    assert device_patch(api, leaf, {"serial": "S1"})[0] == 200
    # Outside the constraints beforehand: not found, for one object or among many.
    assert device_patch(api, blade, {"serial": "S2"})[0] == 404
    bulk = [{"id": str(leaf.pk), "serial": "S3"}, {"id": str(blade.pk), "serial": "S3"}]
    assert send(api, "patch", "/api/dcim/devices/", bulk)[0] == 404
    # Outside them afterwards: refused, and nothing of the request is written.
    away = {"location": str(fra.pk), "rack": None, "face": None, "position": None}
    assert device_patch(api, leaf, away) == (403, NO_PERMISSION)
    bulk = [{"id": str(core.pk), "serial": "S4"}, {"id": str(leaf.pk), **away}]
    assert send(api, "patch", "/api/dcim/devices/", bulk) == (403, NO_PERMISSION)
    assert Device.objects.get(pk=leaf.pk).location.name == "AMS1"
    assert Device.objects.get(pk=leaf.pk).serial == "S1" and Device.objects.get(pk=core.pk).serial != "S4"
    assert Device.objects.get(pk=blade.pk).serial != "S2"
    # The same through GraphQL.
    mutation = 'mutation ($id: String) { update_devices(data: [{id: $id, serial: "G"}]) { id } }'
    result = graphql(api, mutation, {"id": str(blade.pk)})
    assert result["errors"] and Device.objects.get(pk=blade.pk).serial != "G"
    # Without the change action: refused outright; a model permission allows any object.
    _, viewer = account("dcim.view_device")
    assert device_patch(viewer, leaf, {"serial": "S5"}) == (403, NO_PERMISSION)
    _, changer = account("dcim.view_device", "dcim.change_device")
    assert device_patch(changer, blade, {"serial": "S6"})[0] == 200


def test_add_must_land_inside_the_constraints(sample, superuser):
    user, api = account()
    grant(user, ["tenancy.tenant"], ["view", "add"], {"tenant_group__name": "Customers"})
    grant(user, ["tenancy.tenantgroup"], ["view"])
    before = Tenant.objects.count()
    assert (
        send(api, "post", "/api/tenancy/tenants/", {"name": "Hooli", "tenant_group": "Customers"})[0] == 201
    )
    assert send(api, "post", "/api/tenancy/tenants/", {"name": "Umbrella", "tenant_group": "Internal"}) == (
        403,
        NO_PERMISSION,
    )
    bulk = [{"name": "Soylent", "tenant_group": "Customers"}, {"name": "Tyrell"}]
    assert send(api, "post", "/api/tenancy/tenants/", bulk) == (403, NO_PERMISSION)
    assert Tenant.objects.count() == before + 1
    # No permission, read-only tokens, expired tokens and anonymous callers add nothing.
    _, nobody = account()
    _, read_only = account("tenancy.add_tenant", "tenancy.view_tenant", write=False)
    _, expired = account("tenancy.add_tenant", expires=timezone.now() - datetime.timedelta(seconds=1))
    for caller in (nobody, read_only, expired, Api(None)):
        assert send(caller, "post", "/api/tenancy/tenants/", {"name": "Nobody"})[0] == 403
    assert send(Api(sample[Token][1].key), "post", "/api/tenancy/tenants/", {"name": "RO"})[0] == 403
    assert send(Api(SUPERUSER_KEY), "post", "/api/tenancy/tenants/", {"name": "Root"})[0] == 201
    assert Tenant.objects.count() == before + 2


def test_delete_only_inside_the_constraints(sample, superuser):
    user, api = account()
    grant(user, ["ipam.prefix"], ["view", "delete"], {"description": "documentation"})
    doomed = Prefix.objects.get(description="documentation")
    kept = Prefix.objects.get(description="rfc1918")
    assert send(api, "delete", f"/api/ipam/prefixes/{kept.pk}/")[0] == 404
    assert (
        send(api, "delete", "/api/ipam/prefixes/", [{"id": str(doomed.pk)}, {"id": str(kept.pk)}])[0] == 404
    )
    assert Prefix.objects.filter(pk__in=[doomed.pk, kept.pk]).count() == 2
    assert send(api, "delete", f"/api/ipam/prefixes/{doomed.pk}/")[0] == 204
    assert not Prefix.objects.filter(pk=doomed.pk).exists()


def test_token_creation_is_a_permission(sample, superuser):
    user, api = account()
    assert send(api, "post", "/api/users/tokens/", {}) == (403, NO_PERMISSION)
    grant(user, ["users.token"], ["add"], {"write_enabled": False})
    assert send(api, "post", "/api/users/tokens/", {"write_enabled": True}) == (403, NO_PERMISSION)
    status, body = send(api, "post", "/api/users/tokens/", {"write_enabled": False})
    assert status == 201 and body["write_enabled"] is False
    assert Token.objects.filter(user=user).count() == 2


def test_permission_validation(sample, superuser):
    api = Api(SUPERUSER_KEY)
    body = {"name": "bad", "object_types": ["dcim.device"], "actions": ["view", "x" * 31]}
    status, errors = send(api, "post", "/api/users/permissions/", body)
    assert status == 400 and list(errors) == ["actions"] and "at most 30 characters" in errors["actions"][0]
    for actions in ([], "view", ["view", 7]):
        status, errors = send(api, "post", "/api/users/permissions/", {**body, "actions": actions})
        assert status == 400 and list(errors) == ["actions"], (actions, errors)
    body = {**body, "actions": ["view"], "constraints": {"nosuch__name": "x"}}
    status, errors = send(api, "post", "/api/users/permissions/", body)
    assert status == 400 and list(errors) == ["constraints"] and "nosuch" in errors["constraints"][0]
    body = {**body, "constraints": [{"location__name": "AMS1"}, {"tenant__name": "Acme"}]}
    status, created = send(api, "post", "/api/users/permissions/", body)
    assert status == 201 and created["object_types"] == ["dcim.device"] and created["enabled"] is True
    assert created["constraints"] == body["constraints"]
    status, errors = send(
        api, "patch", f"/api/users/permissions/{created['id']}/", {"object_types": ["tenancy.tenant"]}
    )
    assert status == 400 and "location" in errors["constraints"][0]


def test_permissions_take_actions_of_any_name(sample, superuser):
    """An application's own action (`my_custom_action`) is granted like the built-in ones, as the
    reference takes any action name; it grants none of the built-in ones."""
    user, api = account()
    admin = Api(SUPERUSER_KEY)
    body = {
        "name": "custom",
        "object_types": ["dcim.device"],
        "actions": ["my_custom_action", "my_custom_action"],
        "users": [str(user.pk)],
    }
    status, created = send(admin, "post", "/api/users/permissions/", body)
    assert status == 201, created
    assert created["actions"] == ["my_custom_action"]
    assert admin.json(f"/api/users/permissions/{created['id']}/")["actions"] == ["my_custom_action"]
    api.json("/api/dcim/devices/", status=403)
    status, changed = send(
        admin, "patch", f"/api/users/permissions/{created['id']}/", {"actions": ["view", "approve_change"]}
    )
    assert status == 200 and changed["actions"] == ["view", "approve_change"]
    assert api.json("/api/dcim/devices/")["count"] > 0
