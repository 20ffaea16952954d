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

from inventory.dcim.models import Device
from inventory.extras.models import Note
from inventory.ipam.models import Prefix
from inventory.tenancy.models import Tenant
from inventory.users.models import Group, ObjectPermission, Token, User
from queryengine.registry import resources

from .builders import SUPERUSER_KEY
from .conftest import Api

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


def test_every_model_compiles_constraints(sample, superuser):
    """One permission over every type, allowing one object of each: every list shows just it."""
    viewable = [r for r in resources() if r.view_permission]
    chosen = {r.object_type: str(sample[r.model][0].pk) for r in viewable}
    user, api = account()
    grant(user, list(chosen), ["view"], [{"id": pk} for pk in chosen.values()])
    for resource in viewable:
        path = f"/api/{resource.route}/"
        assert ids(api, path) == {chosen[resource.object_type]}, resource.route
        other = str(sample[resource.model][1].pk)
        api.json(f"{path}{other}/", status=404)
        assert graphql_list(api, resource.object_type) == ({chosen[resource.object_type]}, 1)


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
    assert groups["NOC"]["user_count"] == 1 and groups["NOC"]["object_type"] == "users.group"


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
    _, viewer = account("dcim.view_device")
    with CaptureQueriesContext(connection) as queries:
        viewer.json("/api/dcim/devices/")
    assert not any("users_objectpermission" in q["sql"] for q in queries.captured_queries)
