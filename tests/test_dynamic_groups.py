"""Dynamic groups: members of each kind of group through REST, the `members/` list, the
`dynamic_groups` filter, validation, and config contexts assigned to groups."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Device
from inventory.extras.models import ConfigContext, DynamicGroup, Status
from inventory.tenancy.models import Tenant

from .builders import build_sample
from .conftest import request_statements, send

GROUPS = "/api/extras/dynamic-groups/"
MEMBERSHIPS = "/api/extras/dynamic-group-memberships/"
STATICS = "/api/extras/static-group-associations/"


@pytest.fixture
def devices(sample):
    return {d.name: d for d in Device.objects.all()}


def create(api, path: str, body: dict) -> dict:
    status, created = send(api, "post", path, body)
    assert status == 201, created
    return created


def refused(api, path: str, body: dict) -> dict:
    status, errors = send(api, "post", path, body)
    assert status == 400, errors
    return errors


def member_ids(api, group_id: str, params=None) -> set[str]:
    body = api.json(f"{GROUPS}{group_id}/members/", {"limit": 1000, **(params or {})})
    assert body["count"] == len(body["results"])
    return {row["id"] for row in body["results"]}


def filtered_ids(api, *groups: str) -> set[str]:
    rows = api.json("/api/dcim/devices/", [("dynamic_groups", g) for g in groups] + [("limit", 1000)])
    return {row["id"] for row in rows["results"]}


def ids(*objects) -> set[str]:
    return {str(o.pk) for o in objects}


def filter_group(api, name: str, given: dict) -> dict:
    return create(api, GROUPS, {"name": name, "content_type": "dcim.device", "filter": given})


def test_filter_group_members_follow_the_data(api, devices):
    leaf, core, blade = devices["leaf1"], devices["core1"], devices[None]
    group = filter_group(api, "active", {"status": ["Active"]})
    assert group["group_type"] == "dynamic-filter"  # a bare value, as the reference shows it
    assert group["filter"] == {"status": ["Active"]}
    assert member_ids(api, group["id"]) == ids(leaf, blade) == filtered_ids(api, "active")
    # Membership is computed when asked: a changed device moves in and out at once.
    assert send(api, "patch", f"/api/dcim/devices/{core.pk}/", {"status": "Active"})[0] == 200
    assert send(api, "patch", f"/api/dcim/devices/{leaf.pk}/", {"status": "Planned"})[0] == 200
    assert member_ids(api, group["id"]) == ids(core, blade) == filtered_ids(api, group["id"])
    # Filters combine as on a list (AND between keys, OR within one); an empty filter holds all.
    both = filter_group(api, "active cores", {"status": "Active", "name": ["core1", "leaf1"]})
    assert member_ids(api, both["id"]) == ids(core)
    everything = filter_group(api, "all devices", {})
    assert member_ids(api, everything["id"]) == {
        str(pk) for pk in Device.objects.values_list("pk", flat=True)
    }


def test_static_group_members_are_its_associations(api, devices):
    leaf, blade = devices["leaf1"], devices[None]
    group = create(api, GROUPS, {"name": "pinned", "content_type": "dcim.device", "group_type": "static"})
    assert member_ids(api, group["id"]) == set()
    for device in (leaf, blade):
        association = create(
            api,
            STATICS,
            {
                "dynamic_group": group["id"],
                "associated_object_type": "dcim.device",
                "associated_object_id": str(device.pk),
            },
        )
        assert association["associated_object"]["id"] == str(device.pk)
        assert association["display"] == f"{device} as a member of pinned"
    assert member_ids(api, group["id"]) == ids(leaf, blade) == filtered_ids(api, "pinned")
    # A deleted object leaves the group with it.
    assert send(api, "delete", f"/api/dcim/devices/{blade.pk}/")[0] == 204
    assert api.json(STATICS, {"dynamic_group": group["id"]})["count"] == 1
    assert member_ids(api, group["id"]) == ids(leaf)


def test_static_associations_are_checked(api, devices):
    leaf = devices["leaf1"]
    group = create(api, GROUPS, {"name": "pinned", "content_type": "dcim.device", "group_type": "static"})
    tenant = Tenant.objects.first()
    errors = refused(
        api,
        STATICS,
        {
            "dynamic_group": group["id"],
            "associated_object_type": "tenancy.tenant",
            "associated_object_id": str(tenant.pk),
        },
    )
    assert errors == {"associated_object_type": ["Must match the dynamic_group.content_type"]}
    filtered = filter_group(api, "active", {"status": ["Active"]})
    errors = refused(
        api,
        STATICS,
        {
            "dynamic_group": filtered["id"],
            "associated_object_type": "dcim.device",
            "associated_object_id": str(leaf.pk),
        },
    )
    assert errors == {"dynamic_group": ['Only groups of `group_type` `"static"` take static members.']}
    errors = refused(
        api,
        STATICS,
        {
            "dynamic_group": group["id"],
            "associated_object_type": "dcim.device",
            "associated_object_id": str(tenant.pk),
        },
    )
    assert errors == {"associated_object_id": ["No Device has this id."]}


def test_set_groups_combine_children_by_weight(api, devices):
    leaf, core, blade = devices["leaf1"], devices["core1"], devices[None]
    active = filter_group(api, "active", {"status": ["Active"]})
    named = filter_group(api, "named", {"name__ic": "1"})
    cores = filter_group(api, "cores", {"name": ["core1"]})
    group = create(api, GROUPS, {"name": "set", "content_type": "dcim.device", "group_type": "dynamic-set"})

    def child(member, operator, weight):
        return create(
            api,
            MEMBERSHIPS,
            {"parent_group": group["id"], "group": member["id"], "operator": operator, "weight": weight},
        )

    child(active, "union", 10)
    assert member_ids(api, group["id"]) == ids(leaf, blade)
    child(named, "intersection", 20)  # active AND named
    assert member_ids(api, group["id"]) == ids(leaf)
    child(cores, "union", 30)  # ... OR a core
    assert member_ids(api, group["id"]) == ids(leaf, core) == filtered_ids(api, "set")
    membership = child(active, "difference", 40)  # ... minus the active ones
    assert membership["operator"] == {"value": "difference", "label": "Exclude (NOT)"}
    assert member_ids(api, group["id"]) == ids(core)
    shown = api.json(f"{GROUPS}{group['id']}/", {"exclude_m2m": "false"})
    assert len(shown["children"]) == 4
    # Sets nest: a set group is a child like any other.
    outer = create(api, GROUPS, {"name": "outer", "content_type": "dcim.device", "group_type": "dynamic-set"})
    create(
        api,
        MEMBERSHIPS,
        {"parent_group": outer["id"], "group": group["id"], "operator": "difference", "weight": 10},
    )
    assert member_ids(api, outer["id"]) == {
        str(pk) for pk in Device.objects.values_list("pk", flat=True)
    } - ids(core)
    # A child group cannot be deleted while a set uses it.
    status, body = send(api, "delete", f"{GROUPS}{cores['id']}/")
    assert status == 409, body


def test_groups_are_validated(api, devices):
    errors = refused(api, GROUPS, {"name": "bad", "content_type": "dcim.device", "filter": {"nope": ["x"]}})
    assert errors == {"filter": ["'nope' is not a valid filter parameter for dcim.Device object"]}
    errors = refused(
        api, GROUPS, {"name": "bad", "content_type": "dcim.device", "filter": {"status": ["Nope"]}}
    )
    assert list(errors) == ["filter"] and "Nope" in errors["filter"][0]
    errors = refused(api, GROUPS, {"name": "bad", "content_type": "dcim.device", "filter": ["status"]})
    assert errors == {"filter": ["Filter must be a dict"]}
    errors = refused(
        api,
        GROUPS,
        {
            "name": "bad",
            "content_type": "dcim.device",
            "group_type": "static",
            "filter": {"status": ["Active"]},
        },
    )
    assert errors == {"filter": ["Filter can only be set for groups of type `dynamic-filter`."]}
    errors = refused(api, GROUPS, {"name": "bad", "content_type": "extras.dynamicgroup"})
    assert list(errors) == ["content_type"]
    group = filter_group(api, "active", {"status": ["Active"]})
    status, errors = send(
        api, "patch", f"{GROUPS}{group['id']}/", {"content_type": "tenancy.tenant", "filter": {}}
    )
    assert (status, errors) == (400, {"content_type": ["ContentType cannot be changed once created"]})
    status, errors = send(api, "patch", f"{GROUPS}{group['id']}/", {"filter": {"location": ["nowhere"]}})
    assert status == 400 and list(errors) == ["filter"]
    assert DynamicGroup.objects.get(pk=group["id"]).filter == {"status": ["Active"]}


def test_memberships_are_validated(api, devices):
    def group(name, group_type="dynamic-set", content_type="dcim.device"):
        return create(api, GROUPS, {"name": name, "content_type": content_type, "group_type": group_type})

    a, b, c = group("a"), group("b"), group("c")
    tenants = group("tenants", content_type="tenancy.tenant")
    pinned = group("pinned", "static")
    active = filter_group(api, "active", {"status": ["Active"]})

    def member(parent, child, weight=10):
        return {"parent_group": parent["id"], "group": child["id"], "operator": "union", "weight": weight}

    assert refused(api, MEMBERSHIPS, member(a, tenants)) == {
        "group": ["ContentType for group and parent_group must match"]
    }
    assert refused(api, MEMBERSHIPS, member(a, a)) == {"group": ["Cannot add group as a child of itself"]}
    assert refused(api, MEMBERSHIPS, member(a, pinned)) == {
        "group": ['Groups of `group_type` `"static"` may not be child groups at this time.']
    }
    assert refused(api, MEMBERSHIPS, member(active, a)) == {
        "parent_group": ['A parent group must be of `group_type` `"dynamic-set"`.']
    }
    create(api, MEMBERSHIPS, member(a, b))
    create(api, MEMBERSHIPS, member(b, c))
    # c inside b inside a: a under c would be a cycle.
    assert refused(api, MEMBERSHIPS, member(c, a)) == {"group": ["Cannot add ancestor as a child"]}
    assert refused(api, MEMBERSHIPS, member(c, b)) == {"group": ["Cannot add ancestor as a child"]}
    # Bulk writes are checked item by item, all or none.
    status, errors = send(api, "post", MEMBERSHIPS, [member(a, active, 20), member(c, c, 20)])
    assert status == 400 and errors[1] == {"group": ["Cannot add group as a child of itself"]}
    assert api.json(MEMBERSHIPS, {"parent_group": a["id"]})["count"] == 1


def test_members_list_pages_in_the_member_shape(api, devices):
    group = filter_group(api, "all devices", {})
    total = Device.objects.count()
    first = api.json(f"{GROUPS}{group['id']}/members/", {"limit": 1, "depth": 1})
    assert first["count"] == total and len(first["results"]) == 1 and first["next"]
    seen, url = [], f"{GROUPS}{group['id']}/members/?limit=1&depth=1"
    while url:
        body = api.json(url.replace("http://testserver", ""))
        for row in body["results"]:
            # Exactly the row the device list shows at that depth.
            assert row == api.json("/api/dcim/devices/", {"id": row["id"], "depth": 1})["results"][0]
            seen.append(row["id"])
        url = body["next"]
    assert len(seen) == len(set(seen)) == total
    # The member model's own filters apply too.
    assert member_ids(api, group["id"], {"status": "Planned"}) == ids(devices["core1"])
    by_name = api.json(f"{GROUPS}all devices/members/", {"limit": 1000})
    assert by_name["count"] == total
    api.json(f"{GROUPS}00000000-0000-4000-8000-000000000000/members/", status=404)


def test_dynamic_groups_filter(api, devices):
    leaf, core, blade = devices["leaf1"], devices["core1"], devices[None]
    active = filter_group(api, "active", {"status": ["Active"]})
    cores = filter_group(api, "cores", {"name": ["core1"]})
    assert filtered_ids(api, "active") == ids(leaf, blade)
    assert filtered_ids(api, "active", cores["id"]) == ids(leaf, core, blade)  # repeated: OR
    rows = api.json("/api/dcim/devices/", {"dynamic_groups": active["id"], "name": "leaf1"})["results"]
    assert [r["id"] for r in rows] == [str(leaf.pk)]
    body = api.json("/api/dcim/devices/", {"dynamic_groups": "no such group"}, status=400)
    assert body == {
        "dynamic_groups": ["Select a valid choice. no such group is not one of the available choices."]
    }
    # A group of another type is not a device group.
    create(api, GROUPS, {"name": "tenants", "content_type": "tenancy.tenant", "group_type": "static"})
    api.json("/api/dcim/devices/", {"dynamic_groups": "tenants"}, status=400)
    # Through GraphQL, the same argument.
    status, result = send(
        api, "post", "/api/graphql/", {"query": '{ devices(dynamic_groups: ["cores"]) { name } }'}
    )
    assert status == 200 and result["data"]["devices"] == [{"name": "core1"}]


def context_of(api, device) -> dict:
    return api.json(f"/api/dcim/devices/{device.pk}/", {"include": "config_context"})["config_context"]


def test_config_contexts_apply_to_group_members(api, devices):
    leaf, core = devices["leaf1"], devices["core1"]
    active = filter_group(api, "active", {"status": ["Active"]})
    cores = filter_group(api, "cores", {"name": ["core1"]})
    context = create(
        api,
        "/api/extras/config-contexts/",
        {"name": "by group", "weight": 5000, "data": {"hit": True}, "dynamic_groups": [active["id"]]},
    )
    shown = api.json(f"/api/extras/config-contexts/{context['id']}/", {"exclude_m2m": "false"})
    assert [g["id"] for g in shown["dynamic_groups"]] == [active["id"]]
    assert context_of(api, leaf)["hit"] is True and "hit" not in context_of(api, core)
    # One of several groups is enough; other assignments still have to match as well.
    ConfigContext.objects.get(pk=context["id"]).dynamic_groups.add(DynamicGroup.objects.get(pk=cores["id"]))
    assert context_of(api, core)["hit"] is True
    ConfigContext.objects.get(pk=context["id"]).tenants.set(
        [Tenant.objects.exclude(pk=core.tenant_id).first()]
    )
    assert "hit" not in context_of(api, core)
    ConfigContext.objects.get(pk=context["id"]).tenants.clear()
    # Memberships follow the data: no stale answer.
    Device.objects.filter(pk=leaf.pk).update(status=Status.objects.get(name="Planned"))
    assert "hit" not in context_of(api, leaf)


def test_a_page_renders_group_contexts_in_constant_queries(api, sample, superuser):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            rows = api.json("/api/dcim/devices/", {"include": "config_context", "limit": 1000})["results"]
        hits = {row["name"] for row in rows if row["config_context"].get("hit")}
        assert hits and all(name is None or name.startswith("leaf1") for name in hits)
        return len(request_statements(captured))

    def with_groups(suffix: str) -> None:
        active = filter_group(api, f"active{suffix}", {"status": ["Active"]})
        leaves = filter_group(api, f"leaves{suffix}", {"name__isw": "leaf"})
        both = create(
            api, GROUPS, {"name": f"both{suffix}", "content_type": "dcim.device", "group_type": "dynamic-set"}
        )
        for weight, (child, operator) in enumerate(((active, "union"), (leaves, "intersection"))):
            create(
                api,
                MEMBERSHIPS,
                {"parent_group": both["id"], "group": child["id"], "operator": operator, "weight": weight},
            )
        create(
            api,
            "/api/extras/config-contexts/",
            {"name": f"leaves{suffix}", "data": {"hit": True}, "dynamic_groups": [both["id"]]},
        )

    with_groups("")
    alone = queries()
    build_sample(superuser, "-2")  # twice the devices (the sample's own groups are device groups too)
    assert queries() == alone


@pytest.fixture
def eager():
    from config.celery import app as celery_app

    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def test_refresh_job_counts_each_groups_members_for_its_user(api, devices, eager):
    """The reference's system job "Refresh Dynamic Group Caches": listed with its fields, and a
    run evaluates each filter- or set-based group and logs its members, only those the running
    user may view."""
    from inventory.jobs.models import Job

    from .test_permissions import account, grant

    listed = api.json("/api/extras/jobs/", {"name": "Refresh Dynamic Group Caches"})["results"]
    assert len(listed) == 1
    job = listed[0]
    assert (job["job_class_name"], job["grouping"], job["enabled"], job["installed"]) == (
        "RefreshDynamicGroupCaches",
        "System Jobs",
        True,
        True,
    )
    assert job["description"] == "Re-calculate and re-cache the membership lists of Dynamic Groups."
    assert job["has_sensitive_variables"] is False and job["task_queues"] == ["default"]
    active = filter_group(api, "active", {"status": ["Active"]})
    create(api, GROUPS, {"name": "pinned", "content_type": "dcim.device", "group_type": "static"})
    expected = Device.objects.filter(status__name="Active").count()
    assert expected > 1
    status, body = send(api, "post", f"/api/extras/jobs/{job['id']}/run/", {"data": {}})
    assert status == 201 and body["job_result"]["status"]["value"] == "SUCCESS", body
    counted = body["job_result"]["result"]["groups"]
    assert counted["active"] == expected and "pinned" not in counted  # a static group is left out
    assert set(counted) == set(
        DynamicGroup.objects.exclude(group_type="static").values_list("name", flat=True)
    )
    logs = api.json(f"/api/extras/job-results/{body['job_result']['id']}/logs/")["results"]
    assert f"Cache refreshed successfully, now with {expected} members" in [e["message"] for e in logs]
    # A user who may run it and view the group, but only one of its devices, counts that one.
    user, theirs = account()
    grant(user, ["extras.job"], ["view", "run"])
    grant(user, ["extras.dynamicgroup"], ["view"])
    leaf = devices["leaf1"]
    grant(user, ["dcim.device"], ["view"], {"name": leaf.name})
    assert leaf.status.name == "Active"
    status, body = send(
        theirs, "post", f"/api/extras/jobs/{job['id']}/run/", {"data": {"single_group": active["id"]}}
    )
    assert status == 201 and body["job_result"]["result"] == {"groups": {"active": 1}}, body
    # Without the run permission: refused.
    user, other = account()
    grant(user, ["extras.job"], ["view"])
    status, body = send(other, "post", f"/api/extras/jobs/{job['id']}/run/", {"data": {}})
    assert status == 403
    assert Job.objects.get(pk=job["id"]).module_name == "inventory.jobs.groups"
