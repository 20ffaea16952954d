"""Filters of association, extras and users models named as the reference's: `q` on association
tables, the plain `created`/`last_updated` of objects showing no timestamps (refused where none is
kept), `__isnull` on content types the reference's models let be empty, content types by id,
`content_types__n`, integer ids compared, and a sealed key searched by part refused. Each is
checked through REST and GraphQL on the sample's objects: a value that selects some of them and
one that selects none."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType

from inventory.extras.models import ContactAssociation, Note, ObjectChange, Status
from inventory.ipam.models import IPAddressToInterface
from queryengine.query import filters_of
from queryengine.registry import resource_for, resources
from rest import versioning

pytestmark = pytest.mark.usefixtures("shared_sample")

RESOURCES = [r for r in resources() if r.served_at(versioning.DEFAULT)]


def ids(api, resource, params, status=200):
    body = api.json(f"/api/{resource.route}/", {"limit": 1000, **params}, status=status)
    if status != 200:
        return body
    assert body["count"] == len(body["results"])
    return {str(row["id"]) for row in body["results"]}


def graphql(api, query: str) -> dict:
    body = orjson.loads(api.post("/api/graphql/", {"query": query}).content)
    return body


def every(resource) -> set[str]:
    return {str(pk) for pk in resource.model._default_manager.values_list("pk", flat=True)}


@pytest.mark.parametrize(
    "route",
    [
        "extras/contact-associations",
        "dcim/device-cluster-assignments",
        "dcim/device-types-to-software-image-files",
        "dcim/interface-redundancy-group-associations",
        "dcim/cables-to-cable-terminations",
        "ipam/ip-address-to-interface",
        "ipam/prefix-location-assignments",
        "ipam/vrf-prefix-assignments",
        "extras/static-group-associations",
        "extras/relationship-associations",
        "extras/dynamic-group-memberships",
        "extras/user-saved-view-associations",
        "load-balancers/virtual-server-certificate-profile-assignments",
        "load-balancers/load-balancer-pool-member-certificate-profile-assignments",
    ],
)
def test_association_tables_are_searched_by_the_names_of_their_ends(api, route):
    resource = next(r for r in RESOURCES if r.route == route)
    objects = list(resource.model._default_manager.all())
    # The text of the first searched field found on some object: those holding it, in any case.
    field, text = next(
        (field, str(value))
        for field in resource.search
        for obj in objects
        if (value := _value(obj, field)) not in (None, "")
    )
    expected = {
        str(o.pk)
        for o in objects
        if any(text.lower() in str(_value(o, f) or "").lower() for f in resource.search)
    }
    assert expected and ids(api, resource, {"q": text.swapcase()}) == expected, (field, text)
    assert ids(api, resource, {"q": "no such name zz9"}) == set()
    body = graphql(api, f'{{ {resource.list_field}(q: "{text}") {{ id }} }}')
    assert {row["id"] for row in body["data"][resource.list_field]} == expected


def test_vlan_location_assignments_are_searched_by_vid_too(api):
    resource = next(r for r in RESOURCES if r.route == "ipam/vlan-location-assignments")
    assignment = resource.model._default_manager.select_related("vlan").first()
    vid = assignment.vlan.vid
    expected = {str(a.pk) for a in resource.model._default_manager.filter(vlan__vid=vid)}
    assert ids(api, resource, {"q": str(vid)}) >= expected
    assert ids(api, resource, {"q": "4097"}) == set()


def _value(obj, path: str):
    for part in path.split("__"):
        obj = getattr(obj, part, None) if obj is not None else None
    return obj


UNTIMED = [r for r in RESOURCES if r.timestamp_filters]


def test_plain_timestamps_where_the_reference_names_them():
    routes = {r.route for r in UNTIMED}
    assert {
        "ipam/ip-address-to-interface",
        "ipam/vrf-prefix-assignments",
        "extras/dynamic-group-memberships",
        "data-validation/data-compliance",
    } <= routes
    for resource in UNTIMED:
        known = filters_of(resource)
        assert {"created", "last_updated"} <= set(known)
        assert "created__gt" not in known  # plain names only, as the reference's


def test_kept_timestamps_filter_and_missing_ones_are_refused(api):
    resource = resource_for(IPAddressToInterface)
    assignment = IPAddressToInterface.objects.order_by("created").first()
    same = {str(a.pk) for a in IPAddressToInterface.objects.filter(created=assignment.created)}
    assert ids(api, resource, {"created": assignment.created.isoformat()}) == same
    assert ids(api, resource, {"last_updated": "2001-01-01T00:00:00Z"}) == set()
    for route in ("ipam/vrf-prefix-assignments", "data-validation/data-compliance"):
        untimed = next(r for r in UNTIMED if r.route == route)
        body = ids(api, untimed, {"created": "2024-01-01T00:00:00Z", "last_updated": "2024-01-01"}, 400)
        assert set(body) == {"created", "last_updated"}
        assert "keep no time they were created" in body["created"][0]
        query = f'{{ {untimed.list_field}(created: ["2024-01-01"]) {{ id }} }}'
        assert "keep no time" in graphql(api, query)["errors"][0]["message"]


def test_types_the_reference_lets_be_empty_take_isnull(api):
    resource = resource_for(ContactAssociation)
    assert ids(api, resource, {"associated_object_type__isnull": "false"}) == every(resource)
    assert ids(api, resource, {"associated_object_type__isnull": "true"}) == set()
    changes = resource_for(ObjectChange)
    assert ids(api, changes, {"changed_object_type__isnull": "true"}) == set()
    field = 'associated_contacts(associated_object_type__isnull: false, q: "zz9") { id }'
    body = graphql(api, f"{{ devices(limit: 1) {{ id {field} }} }}")
    assert "errors" not in body and body["data"]["devices"][0]["associated_contacts"] == []


def test_content_types_by_their_integer_id(api):
    notes, changes = resource_for(Note), resource_for(ObjectChange)
    note = Note.objects.first()
    type_id = str(note.assigned_object_type_id)
    same = {str(n.pk) for n in Note.objects.filter(assigned_object_type_id=note.assigned_object_type_id)}
    assert ids(api, notes, {"assigned_object_type_id": type_id}) == same
    assert ids(api, notes, {"assigned_object_type_id__n": type_id}) == every(notes) - same
    change = ObjectChange.objects.first()
    kind = str(change.changed_object_type_id)
    assert str(change.pk) in ids(api, changes, {"changed_object_type_id": kind})
    assert str(change.pk) not in ids(api, changes, {"changed_object_type_id__n": kind})
    assert ids(api, changes, {"changed_object_type_id__isnull": "true"}) == set()
    assert set(ids(api, notes, {"assigned_object_type_id": "x"}, 400)) == {"assigned_object_type_id"}


def test_content_types_n_selects_objects_taking_none_of_them(api):
    statuses = resource_for(Status)
    device = ContentType.objects.get(app_label="dcim", model="device")
    taking = {str(s.pk) for s in Status.objects.filter(content_types=device)}
    assert taking and taking != every(statuses)
    assert ids(api, statuses, {"content_types__n": "dcim.device"}) == every(statuses) - taking
    body = graphql(api, '{ statuses(content_types__n: ["dcim.device"]) { id } }')
    assert {row["id"] for row in body["data"]["statuses"]} == every(statuses) - taking


def test_integer_ids_are_compared(api):
    groups = resource_for(Group)
    pks = sorted(Group.objects.values_list("pk", flat=True))
    assert len(pks) >= 2
    assert ids(api, groups, {"id__gt": str(pks[0])}) == {str(pk) for pk in pks[1:]}
    assert ids(api, groups, {"id__lte": str(pks[0])}) == {str(pks[0])}
    assert ids(api, groups, {"id__lt": str(pks[0])}) == set()
    types = resource_for(ContentType)
    assert ids(api, types, {"id__gte": str(10**9)}) == set()


def test_a_sealed_key_is_matched_whole_and_never_searched(api):
    tokens = next(r for r in RESOURCES if r.route == "users/tokens")
    known = filters_of(tokens)
    partial = [name for name in known if name.startswith("key__") and name != "key__n"]
    assert {"key__ic", "key__isw", "key__re", "key__nie"} <= set(partial)
    body = ids(api, tokens, {name: "ab" for name in partial}, 400)
    assert set(body) == set(partial) and all("sealed" in body[name][0] for name in partial)
    mine = ids(api, tokens, {})
    assert mine and ids(api, tokens, {"key": "0" * 40}) == set()


JSON_FIELDS = [(r, name) for r in RESOURCES for name in r.json_filters]


def test_json_filters_where_the_reference_has_them():
    assert {(r.route, name) for r, name in JSON_FIELDS} >= {
        ("extras/object-metadata", "scoped_fields"),
        ("extras/external-integrations", "extra_config"),
        ("extras/external-integrations", "headers"),
        ("vpn/vpn-profiles", "extra_options"),
        ("vpn/vpns", "extra_attributes"),
        ("extras/approval-workflow-definitions", "model_constraints"),
    }


@pytest.mark.parametrize("resource, name", JSON_FIELDS, ids=lambda v: getattr(v, "route", v))
def test_json_fields_are_matched_by_their_text(api, resource, name):
    objects = list(resource.model._default_manager.all())
    holding = [o for o in objects if getattr(o, name)]
    if not holding:
        pytest.skip(f"no {resource.route} object holds {name}")
    value = getattr(holding[0], name)
    word = next(iter(value)) if isinstance(value, dict | list) else str(value)
    word = word if isinstance(word, str) else orjson.dumps(word).decode()
    expected = {
        str(o.pk)
        for o in objects
        if getattr(o, name) is not None and word.lower() in orjson.dumps(getattr(o, name)).decode().lower()
    }
    assert str(holding[0].pk) in expected
    assert ids(api, resource, {name: word.upper()}) == expected
    assert ids(api, resource, {name: "no such text zz9"}) == set()
    body = graphql(api, f'{{ {resource.list_field}({name}: ["{word}"]) {{ id }} }}')
    assert {row["id"] for row in body["data"][resource.list_field]} == expected


def test_secrets_groups_by_secret_and_files_by_job(api):
    from inventory.extras.models import SecretsGroup
    from inventory.jobs.models import FileProxy

    groups = resource_for(SecretsGroup)
    group = SecretsGroup.objects.filter(secrets__isnull=False).first()
    secret = group.secrets.first()
    holding = {str(g.pk) for g in SecretsGroup.objects.filter(secrets=secret)}
    assert ids(api, groups, {"secrets": secret.name}) == holding
    assert ids(api, groups, {"secrets": str(secret.pk)}) == holding
    assert ids(api, groups, {"secrets__n": secret.name}) == every(groups) - holding
    files = resource_for(FileProxy)
    stored = FileProxy.objects.filter(job_result__job_model__isnull=False).select_related("job_result")
    if stored:
        job = stored[0].job_result.job_model
        expected = {str(f.pk) for f in FileProxy.objects.filter(job_result__job_model=job)}
        assert ids(api, files, {"job": str(job.pk)}) == expected
    assert ids(api, files, {"job__isnull": "true"}) == {
        str(f.pk) for f in FileProxy.objects.filter(job_result__job_model__isnull=True)
    }
    assert set(ids(api, files, {"job": "no such job"}, 400)) == {"job"}
