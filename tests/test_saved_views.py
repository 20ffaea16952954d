"""Saved views, users' default views and users' preferences: who sees which saved view, one
global default per list, one default per user and list, and /api/users/config/ (read and merge)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.test.utils import override_settings

from inventory.extras.models import SavedView, UserSavedViewAssociation
from inventory.users.models import ObjectPermission, Token, User

from .builders import SUPERUSER_KEY
from .conftest import Api, send

VIEWS = "/api/extras/saved-views/"
DEFAULTS = "/api/extras/user-saved-view-associations/"
CONFIG = "/api/users/config/"
NO_PERMISSION = {"detail": "You do not have permission to perform this action."}
NO_CREDENTIALS = {"detail": "Authentication credentials were not provided."}


def grant(user: User, *codenames: str) -> None:
    for codename in codenames:
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label="extras"))


@pytest.fixture
def people(superuser):
    """The administrator, two users with tokens (no permissions yet), and their saved views."""
    Token.objects.create(user=superuser, key=SUPERUSER_KEY)
    alice, bob = (User.objects.create_user(name) for name in ("alice", "bob"))
    views = {
        "alice shared": SavedView.objects.create(owner=alice, name="Mine", view="dcim:device_list"),
        "alice private": SavedView.objects.create(
            owner=alice, name="Private", view="dcim:rack_list", is_shared=False
        ),
        "bob shared": SavedView.objects.create(owner=bob, name="Bob's", view="dcim:device_list"),
        "bob private": SavedView.objects.create(
            owner=bob, name="Secret", view="dcim:location_list", is_shared=False
        ),
    }
    return {
        "admin": Api(SUPERUSER_KEY),
        "alice": Api(Token.objects.create(user=alice).key),
        "bob": Api(Token.objects.create(user=bob).key),
        "users": {"alice": alice, "bob": bob},
        "views": views,
    }


def names(api, path: str = VIEWS, **params) -> set[str]:
    return {row["display"] for row in api.json(path, {"limit": 100, **params})["results"]}


def path_of(obj) -> str:
    return f"{VIEWS}{obj.pk}/"


def test_a_user_sees_their_own_and_shared_views_not_others_private_ones(people):
    alice, views = people["alice"], people["views"]
    expected = {
        "alice - dcim:device_list - Mine",
        "alice - dcim:rack_list - Private",
        "bob - dcim:device_list - Bob's",
    }
    assert names(alice) == expected
    assert alice.json(VIEWS)["count"] == 3
    assert alice.json(path_of(views["bob shared"]))["is_shared"] is True
    hidden = alice.json(path_of(views["bob private"]), status=404)
    assert hidden == {"detail": "No SavedView matches the given query."}
    # Owners are named by id to a reader who may not view users (a name is not found).
    bob = people["users"]["bob"]
    assert names(alice, owner_id=str(bob.pk)) == {"bob - dcim:device_list - Bob's"}
    assert alice.get(VIEWS, {"owner": "bob"}).status_code == 400
    # GraphQL reads through the same rule.
    body = alice.post("/api/graphql/", {"query": "{ saved_views { name owner { username } } }"}).json()
    assert sorted(v["name"] for v in body["data"]["saved_views"]) == ["Bob's", "Mine", "Private"]
    # The administrator sees every one.
    assert len(names(people["admin"])) == 4


def test_permissions_grant_other_users_private_views(people):
    alice, user = people["alice"], people["users"]["alice"]
    permission = ObjectPermission.objects.create(
        name="location lists", actions=["view"], constraints={"view": "dcim:location_list"}
    )
    permission.object_types.set([ContentType.objects.get_for_model(SavedView)])
    permission.users.set([user])
    assert names(alice) == {
        "alice - dcim:device_list - Mine",
        "alice - dcim:rack_list - Private",
        "bob - dcim:device_list - Bob's",
        "bob - dcim:location_list - Secret",
    }
    permission.constraints = {"view": "dcim:nothing_list"}
    permission.save()
    assert len(names(alice)) == 3  # their own and the shared ones still
    permission.delete()
    grant(user, "view_savedview")
    assert len(names(alice)) == 4


def test_writes_need_permissions_and_the_owner_defaults_to_the_writer(people):
    alice, user = people["alice"], people["users"]["alice"]
    body = {
        "name": "Down devices",
        "view": "dcim:device_list",
        "config": {"filter_params": {"status": ["Down"]}},
    }
    assert send(alice, "post", VIEWS, body) == (403, NO_PERMISSION)
    grant(user, "add_savedview")
    status, created = send(Api(Token.objects.filter(user=user)[0].key), "post", VIEWS, body)
    assert status == 201, created
    assert created["owner"]["id"] == str(user.pk)
    assert created["display"] == "alice - dcim:device_list - Down devices"
    assert created["is_shared"] is True and created["is_global_default"] is False
    assert created["config"] == body["config"]
    # An owner may be named, as the reference takes one: a user the writer may view.
    writer = Api(Token.objects.filter(user=user)[0].key)
    status, refused = send(writer, "post", VIEWS, {**body, "name": "For bob", "owner": "bob"})
    assert status == 400 and "Related object not found" in refused["owner"][0]
    user.user_permissions.add(Permission.objects.get(codename="view_user", content_type__app_label="users"))
    status, other = send(
        Api(Token.objects.filter(user=user)[0].key),
        "post",
        VIEWS,
        {**body, "name": "For bob", "owner": "bob"},
    )
    assert status == 201 and other["owner"]["id"] == str(people["users"]["bob"].pk)
    # Changing someone's view needs the change permission, even for its owner.
    assert send(alice, "patch", f"{VIEWS}{created['id']}/", {"name": "x"}) == (403, NO_PERMISSION)


def test_a_name_is_used_once_per_owner_and_list(people):
    admin, alice = people["admin"], people["users"]["alice"]
    body = {"owner": str(alice.pk), "name": "Mine", "view": "dcim:device_list"}
    assert send(admin, "post", VIEWS, body) == (
        400,
        {"non_field_errors": ["The fields owner, name, view must make a unique set."]},
    )
    assert send(admin, "post", VIEWS, {**body, "view": "dcim:rack_list"})[0] == 201
    status, errors = send(admin, "post", VIEWS, [{**body, "name": "Twice"}, {**body, "name": "Twice"}])
    assert status == 400 and errors[0] == {} and "non_field_errors" in errors[1]
    status, errors = send(admin, "post", VIEWS, {"name": "no list"})
    assert (status, errors) == (400, {"view": ["This field is required."]})


def test_one_global_default_per_list(people):
    admin, views = people["admin"], people["views"]
    status, first = send(admin, "patch", path_of(views["alice shared"]), {"is_global_default": True})
    assert status == 200 and first["is_global_default"] is True
    # A private view made the global default is shared: everyone sees their default.
    status, second = send(admin, "patch", path_of(views["bob shared"]), {"is_global_default": True})
    assert status == 200 and second["is_global_default"] is True
    assert admin.json(path_of(views["alice shared"]))["is_global_default"] is False
    status, private = send(admin, "patch", path_of(views["bob private"]), {"is_global_default": True})
    assert status == 200 and private["is_shared"] is True
    # Defaults of other lists stay as they are.
    assert admin.json(path_of(views["bob shared"]))["is_global_default"] is True
    assert admin.json(VIEWS, {"is_global_default": "true"})["count"] == 2


def test_a_users_default_view_is_one_per_list(people):
    admin, views, alice = people["admin"], people["views"], people["users"]["alice"]
    body = {"user": str(alice.pk), "saved_view": str(views["alice shared"].pk), "view_name": "ignored"}
    status, created = send(admin, "post", DEFAULTS, body)
    assert status == 201, created
    assert created["view_name"] == "dcim:device_list"  # always its saved view's list
    again = {**body, "saved_view": str(views["bob shared"].pk)}
    message = {"__all__": ["User saved view association with this User and View name already exists."]}
    assert send(admin, "post", DEFAULTS, again) == (400, message)
    # Another list, or another user, is fine; twice in one request is refused as well.
    assert send(admin, "post", DEFAULTS, {**body, "saved_view": str(views["alice private"].pk)})[0] == 201
    bob = people["users"]["bob"]
    status, errors = send(admin, "post", DEFAULTS, [{**again, "user": str(bob.pk)}, {**again, "user": "bob"}])
    assert status == 400 and errors[0] == {} and errors[1] == message
    assert UserSavedViewAssociation.objects.filter(user=bob).count() == 0
    assert admin.json(DEFAULTS, {"user": "alice", "view_name": "dcim:device_list"})["count"] == 1
    assert admin.json(DEFAULTS, {"saved_view": "Mine"})["count"] == 1
    # A saved view moved to another list moves its users' defaults with it... by the saved view.
    status, moved = send(
        admin, "patch", f"{DEFAULTS}{created['id']}/", {"saved_view": str(views["bob private"].pk)}
    )
    assert status == 200 and moved["view_name"] == "dcim:location_list"


def test_users_see_their_own_defaults(people):
    alice, bob = people["users"]["alice"], people["users"]["bob"]
    views = people["views"]
    UserSavedViewAssociation.objects.create(user=alice, saved_view=views["alice shared"])
    UserSavedViewAssociation.objects.create(user=bob, saved_view=views["bob private"])
    assert names(people["alice"], DEFAULTS) == {"alice: alice - dcim:device_list - Mine - dcim:device_list"}
    assert people["bob"].json(DEFAULTS)["count"] == 1
    assert people["admin"].json(DEFAULTS)["count"] == 2
    assert send(
        people["alice"], "post", DEFAULTS, {"user": "alice", "saved_view": str(views["bob shared"].pk)}
    ) == (
        403,
        NO_PERMISSION,
    )


def test_deleting_a_saved_view_removes_the_defaults_using_it(people):
    admin, view = people["admin"], people["views"]["alice shared"]
    UserSavedViewAssociation.objects.create(user=people["users"]["bob"], saved_view=view)
    assert send(admin, "delete", path_of(view)) == (204, None)
    assert not UserSavedViewAssociation.objects.exists()
    changes = admin.json("/api/extras/object-changes/", {"changed_object_type": "extras.savedview"})
    assert [c["action"]["value"] for c in changes["results"]] == ["delete"]


def test_anonymous_users_are_refused(people, anonymous):
    assert anonymous.json(VIEWS, status=403) == NO_CREDENTIALS
    assert anonymous.json(CONFIG, status=403) == NO_CREDENTIALS
    with override_settings(EXEMPT_VIEW_PERMISSIONS=["*"]):
        # Where reading needs no permission saved views are read like any model; preferences
        # belong to a user and stay refused.
        assert anonymous.json(VIEWS)["count"] == 4
        assert anonymous.json(CONFIG, status=403) == NO_CREDENTIALS
        assert send(anonymous, "patch", CONFIG, {"a": 1}) == (403, NO_CREDENTIALS)


def test_user_config_reads_and_merges(people):
    alice, user = people["alice"], people["users"]["alice"]
    assert alice.json(CONFIG) == {}
    first = {"tables": {"DeviceTable": {"columns": ["name", "status"]}}, "theme": "dark"}
    assert send(alice, "patch", CONFIG, first) == (200, first)
    merged = send(alice, "patch", CONFIG, {"tables": {"RackTable": {"columns": ["name"]}}, "page": 50})[1]
    assert merged == {
        "tables": {"DeviceTable": {"columns": ["name", "status"]}, "RackTable": {"columns": ["name"]}},
        "theme": "dark",
        "page": 50,
    }
    # Nested objects merge key by key; any other value (a list, null) replaces what was there.
    status, replaced = send(
        alice, "patch", CONFIG, {"tables": {"DeviceTable": {"columns": ["name"]}}, "theme": None}
    )
    assert status == 200
    assert replaced["tables"]["DeviceTable"] == {"columns": ["name"]} and replaced["theme"] is None
    user.refresh_from_db()
    assert user.config_data == replaced == alice.json(CONFIG)
    # Each user has their own.
    assert people["bob"].json(CONFIG) == {}
    assert send(alice, "patch", CONFIG, {}) == (200, replaced)


def test_user_config_refuses_what_is_not_an_object(people):
    alice = people["alice"]
    assert send(alice, "patch", CONFIG, ["a"]) == (
        400,
        {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]},
    )
    response = alice.client.patch(CONFIG, "a=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    for method in ("post", "put", "delete"):
        assert send(alice, method, CONFIG, {})[0] == 405
    read_only = Token.objects.create(user=people["users"]["alice"], write_enabled=False)
    assert send(Api(read_only.key), "patch", CONFIG, {"a": 1}) == (403, NO_PERMISSION)
    assert alice.json(CONFIG) == {}
    assert alice.client.options(CONFIG).json()["name"] == "User Config"


def test_application_roots_list_the_endpoints(people):
    admin = people["admin"]
    assert admin.json("/api/users/")["config"] == "http://testserver/api/users/config/"
    extras = admin.json("/api/extras/")
    assert extras["saved-views"] == "http://testserver/api/extras/saved-views/"
    assert (
        extras["user-saved-view-associations"] == "http://testserver/api/extras/user-saved-view-associations/"
    )


def page(user: User, path: str) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    response = client.get(path)
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def test_list_pages_are_seen_through_saved_views(people):
    from inventory.tenancy.models import Tenant

    alice, bob = people["users"]["alice"], people["users"]["bob"]
    grant(alice, "view_savedview")
    alice.user_permissions.add(Permission.objects.get(codename="view_tenant"))
    for name in ("Acme", "Globex", "Initech"):
        Tenant.objects.create(name=name, description=f"{name} corp")
    shared = SavedView.objects.create(
        owner=bob,
        name="G tenants",
        view="tenancy:tenant_list",
        config={
            "filter_params": {"name__isw": ["G", "I"]},
            "sort_order": ["-name"],
            "pagination_count": 1,
            "table_config": {"TenantTable": {"columns": ["description", "no_such_column"]}},
        },
    )
    plain = page(alice, "/tenancy/tenants/")
    assert "Acme" in plain and 'id="saved-view"' not in plain
    chosen = page(alice, f"/tenancy/tenants/?saved_view={shared.pk}")
    # The view's filters (Globex, Initech), sort (by name, descending) and page size (one).
    assert "Initech" in chosen and "Globex" not in chosen and "Acme" not in chosen
    assert "G tenants" in chosen and "Initech corp" in chosen and "1–1 of 2" in chosen
    # The page's own parameters win over the view's.
    assert "Globex" in page(alice, f"/tenancy/tenants/?saved_view={shared.pk}&offset=1")
    # A user's default view of a list, then the list's global default, on the page without parameters.
    UserSavedViewAssociation.objects.create(user=alice, saved_view=shared)
    assert "G tenants" in page(alice, "/tenancy/tenants/")
    assert "G tenants" not in page(alice, "/tenancy/tenants/?saved_view=")
    UserSavedViewAssociation.objects.all().delete()
    assert "G tenants" not in page(alice, "/tenancy/tenants/")
    shared.is_global_default = True
    shared.save()
    assert "G tenants" in page(alice, "/tenancy/tenants/")
    # A private view of someone else, or one of another list, is not applied.
    private = SavedView.objects.create(owner=bob, name="Hidden", view="tenancy:tenant_list", is_shared=False)
    alice.user_permissions.remove(Permission.objects.get(codename="view_savedview"))
    assert "Hidden" not in page(User.objects.get(pk=alice.pk), f"/tenancy/tenants/?saved_view={private.pk}")
    other = people["views"]["alice shared"]
    assert "Mine" not in page(alice, f"/tenancy/tenants/?saved_view={other.pk}")
    assert "Acme" in page(alice, "/tenancy/tenants/?saved_view=not-an-id")


def test_set_default_sets_and_clears_the_users_default(people):
    views, alice = people["views"], people["alice"]
    path = f"{VIEWS}{views['bob shared'].pk}/set-default/"
    status, body = send(alice, "post", path)
    assert status == 201, body
    assert body["saved_view"]["id"] == str(views["bob shared"].pk) and body["view_name"] == "dcim:device_list"
    # Another view of the same list replaces it: one default per user and list.
    status, body = send(alice, "post", f"{VIEWS}{views['alice shared'].pk}/set-default/")
    assert status == 201
    defaults = UserSavedViewAssociation.objects.filter(user__username="alice")
    assert list(defaults.values_list("saved_view", flat=True)) == [views["alice shared"].pk]
    assert send(alice, "delete", f"{VIEWS}{views['alice shared'].pk}/set-default/") == (204, None)
    assert not defaults.exists()
    # Another user's private view is not found; nothing changes.
    status, _ = send(alice, "post", f"{VIEWS}{views['bob private'].pk}/set-default/")
    assert status == 404 and not defaults.exists()


def test_set_default_needs_a_signed_in_user(people, anonymous):
    path = f"{VIEWS}{people['views']['bob shared'].pk}/set-default/"
    assert send(anonymous, "post", path)[0] == 403
    assert not UserSavedViewAssociation.objects.exists()
