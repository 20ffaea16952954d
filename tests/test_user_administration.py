"""Who may make superusers, staff, active users, group members and permissions: superusers alone,
through every write path (REST single and bulk, PUT and PATCH, GraphQL, CSV imports), whatever
permissions on users, groups and object permissions others hold."""

from __future__ import annotations

import orjson
import pytest

from inventory.users.models import Group, ObjectPermission, Token, User

from .conftest import Api, send
from .test_permissions import NO_PERMISSION, account, grant, graphql

USERS = "/api/users/users/"


def refused(*names: str) -> dict:
    return {"detail": f"Only superusers may set {', '.join(names)}."}


def csv_write(api: Api, method: str, path: str, text: str) -> tuple[int, object]:
    response = getattr(api.client, method)(path, text, content_type="text/csv")
    return response.status_code, orjson.loads(response.content) if response.content else None


def stored(user: User) -> tuple:
    user = User.objects.get(pk=user.pk)
    return user.is_superuser, user.is_staff, user.is_active, sorted(user.groups.values_list("pk", flat=True))


@pytest.fixture
def self_editor(superuser):
    """May view and change their own user alone (edit their own profile)."""
    user, api = account()
    grant(user, ["users.user"], ["view", "change"], {"id": "$user"})
    return user, api


def test_a_user_editing_their_own_profile_cannot_raise_themselves(self_editor):
    user, api = self_editor
    noc = Group.objects.create(name="NOC")
    own = f"{USERS}{user.pk}/"
    before = stored(user)
    assert send(api, "patch", own, {"is_superuser": True, "is_staff": True}) == (
        403,
        refused("is_superuser", "is_staff"),
    )
    assert send(api, "patch", own, {"groups": [noc.pk]}) == (403, refused("groups"))
    assert send(api, "patch", USERS, [{"id": str(user.pk), "is_active": False}]) == (
        403,
        refused("is_active"),
    )
    shown = api.json(own, {"exclude_m2m": "false"})
    assert send(api, "put", own, {**shown, "is_staff": True}) == (403, refused("is_staff"))
    mutation = "mutation ($data: [GenericScalar]!) { update_users(data: $data) { is_superuser } }"
    body = graphql(api, mutation, {"data": [{"id": str(user.pk), "is_superuser": True}]})
    assert body["data"] == {"update_users": None}
    assert body["errors"][0]["message"] == refused("is_superuser")["detail"]
    assert csv_write(api, "patch", USERS, f"id,is_superuser\r\n{user.pk},true\r\n") == (
        403,
        refused("is_superuser"),
    )
    assert stored(user) == before == (False, False, True, [])
    # Their own profile, and what a read showed written back unchanged (a full PUT), still go.
    status, body = send(api, "patch", own, {"first_name": "Ada", "is_superuser": False, "groups": []})
    assert (status, body["first_name"]) == (200, "Ada")
    assert send(api, "put", own, {**shown, "last_name": "Lovelace"})[0] == 200
    assert send(api, "patch", USERS, [{"id": str(user.pk), "is_active": True, "is_staff": False}])[0] == 200
    assert User.objects.get(pk=user.pk).last_name == "Lovelace" and stored(user) == before


def test_members_of_a_group_write_back_their_groups_unchanged(self_editor):
    user, api = self_editor
    noc, ops = Group.objects.create(name="NOC"), Group.objects.create(name="Ops")
    user.groups.add(noc)
    own = f"{USERS}{user.pk}/"
    assert send(api, "patch", own, {"groups": [noc.pk]})[0] == 200
    # As reads show them: the user may not view groups, so only by id (a name is not found).
    assert send(api, "patch", own, {"groups": [{"id": noc.pk}], "email": "a@example.com"})[0] == 200
    assert send(api, "patch", own, {"groups": ["NOC"]}) == (403, refused("groups"))
    assert send(api, "patch", own, {"groups": [noc.pk, ops.pk]}) == (403, refused("groups"))
    assert send(api, "patch", USERS, [{"id": str(user.pk), "groups": []}]) == (403, refused("groups"))
    assert list(user.groups.all()) == [noc]


def test_user_managers_cannot_create_or_promote_privileged_users(superuser):
    user, api = account("users.view_user", "users.add_user", "users.change_user")
    noc = Group.objects.create(name="NOC")
    count = User.objects.count()
    assert send(api, "post", USERS, {"username": "root2", "is_superuser": True}) == (
        403,
        refused("is_superuser"),
    )
    assert send(api, "post", USERS, [{"username": "a"}, {"username": "b", "groups": [noc.pk]}]) == (
        403,
        refused("groups"),
    )
    assert send(api, "post", USERS, {"username": "ghost", "is_active": False}) == (403, refused("is_active"))
    mutation = "mutation ($data: [GenericScalar]!) { create_users(data: $data) { id } }"
    body = graphql(api, mutation, {"data": [{"username": "gql", "is_staff": True}]})
    assert body["errors"][0]["message"] == refused("is_staff")["detail"]
    assert csv_write(api, "post", USERS, "username,is_staff\r\ncsv,true\r\n") == (403, refused("is_staff"))
    assert User.objects.count() == count
    # Another user, even a superuser, is no different from their own.
    admin = User.objects.get(username="admin")
    assert send(api, "patch", f"{USERS}{admin.pk}/", {"is_superuser": True, "is_active": False}) == (
        403,
        refused("is_active"),
    )
    assert stored(admin) == (True, True, True, [])
    # Plain users, with the defaults written out, are theirs to make.
    status, made = send(api, "post", USERS, {"username": "plain", "is_superuser": False, "is_active": True})
    assert status == 201 and made["is_superuser"] is False
    assert csv_write(api, "post", USERS, "username,is_staff\r\ncsv,false\r\n")[0] == 201


def test_superusers_still_grant_everything(superuser):
    admin = Api(Token.objects.create(user=superuser).key)
    user, _ = account()
    noc = Group.objects.create(name="NOC")
    status, body = send(admin, "patch", f"{USERS}{user.pk}/", {"is_staff": True, "groups": [noc.pk]})
    assert status == 200 and body["is_staff"] is True
    status, made = send(admin, "post", USERS, {"username": "root2", "is_superuser": True, "groups": ["NOC"]})
    assert status == 201 and stored(User.objects.get(username="root2")) == (True, False, True, [noc.pk])
    assert csv_write(admin, "patch", USERS, f"id,is_active\r\n{user.pk},false\r\n")[0] == 200
    assert stored(user) == (False, True, False, [noc.pk])
    status, _ = send(admin, "post", "/api/users/groups/", {"name": "Ops"})
    assert status == 201
    body = {"name": "all", "object_types": ["dcim.device"], "actions": ["view"], "users": [str(user.pk)]}
    assert send(admin, "post", "/api/users/permissions/", body)[0] == 201


def test_groups_and_permissions_are_written_by_superusers_alone(superuser):
    """Writing a permission or a group grants access (a permission's users, groups, actions and
    constraints; a group's name, by which users are added to it): the model permissions and
    object permissions on them allow reading only."""
    writes = ("view", "add", "change", "delete")
    user, api = account(
        *(f"users.{action}_objectpermission" for action in writes),
        *(f"auth.{action}_group" for action in writes),
    )
    grant(user, ["users.objectpermission", "auth.group"], list(writes))
    team = Group.objects.create(name="NOC")
    existing = grant(team, ["dcim.device"], ["view"])
    mine = {"name": "mine", "object_types": ["users.user"], "actions": ["change"], "users": [str(user.pk)]}
    permissions = "/api/users/permissions/"
    assert send(api, "post", permissions, mine) == (403, NO_PERMISSION)
    assert send(api, "patch", f"{permissions}{existing.pk}/", {"users": [str(user.pk)]}) == (
        403,
        NO_PERMISSION,
    )
    assert send(api, "patch", permissions, [{"id": str(existing.pk), "actions": ["view", "change"]}]) == (
        403,
        NO_PERMISSION,
    )
    assert send(api, "delete", f"{permissions}{existing.pk}/") == (403, NO_PERMISSION)
    mutation = "mutation ($data: [GenericScalar]!) { create_permissions(data: $data) { id } }"
    assert graphql(api, mutation, {"data": [mine]})["errors"][0]["message"] == NO_PERMISSION["detail"]
    text = f'name,object_types,actions,users\r\nx,users.user,"[""change""]",{user.pk}\r\n'
    assert csv_write(api, "post", permissions, text) == (403, NO_PERMISSION)
    groups = "/api/users/groups/"
    assert send(api, "post", groups, {"name": "Admins"}) == (403, NO_PERMISSION)
    assert send(api, "patch", f"{groups}{team.pk}/", {"name": "Ops"}) == (403, NO_PERMISSION)
    assert send(api, "delete", f"{groups}{team.pk}/") == (403, NO_PERMISSION)
    assert ObjectPermission.objects.filter(users=user).count() == 1  # the one granted above
    assert (
        Group.objects.get(pk=team.pk).name == "NOC"
        and not ObjectPermission.objects.filter(name="mine").exists()
    )
    assert existing.users.count() == 0 and ObjectPermission.objects.get(pk=existing.pk).actions == ["view"]
    # They still read them.
    assert {p["id"] for p in api.json(permissions)["results"]} >= {str(existing.pk)}
    assert [g["name"] for g in api.json(groups)["results"]] == ["NOC"]
