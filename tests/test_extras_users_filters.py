"""The reference's remaining list filters of users, extras and config contexts, through REST on
the sample's objects (and GraphQL where the argument's type matters): each one matching some
objects and not others."""

from __future__ import annotations

import orjson
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Location, Platform, RackReservation
from inventory.extras.models import (
    ConfigContext,
    ConfigContextSchema,
    Contact,
    DynamicGroup,
    DynamicGroupMembership,
    MetadataType,
    ObjectChange,
    RelationshipAssociation,
    StaticGroupAssociation,
    Team,
)
from inventory.jobs.approvals import ApprovalWorkflow, ApprovalWorkflowStage
from inventory.jobs.models import ScheduledJob
from inventory.users.models import ObjectPermission, Token, User
from tests.conftest import Api


def ids(api, route: str, params) -> set[str]:
    body = api.json(f"/api/{route}/", {"limit": 1000, **params})
    assert body["count"] == len(body["results"])
    return {str(row["id"]) for row in body["results"]}


def every(model) -> set[str]:
    return {str(pk) for pk in model.objects.values_list("pk", flat=True)}


def test_users_by_group_id_reservation_permission_and_change(api, superuser):
    group = Group.objects.create(name="Filter group")
    member = User.objects.create(username="grouped")
    member.groups.add(group)
    users = every(User)
    assert ids(api, "users/users", {"groups_id": group.pk}) == {str(member.pk)}
    assert ids(api, "users/users", {"groups_id__n": group.pk}) == users - {str(member.pk)}
    assert api.json("/api/users/users/", {"groups_id": "x"}, status=400) == {
        "groups_id": ["Enter a whole number."]
    }

    permission = ObjectPermission.objects.create(name="Filter permission", actions=["view"])
    permission.groups.add(group)
    permission.users.add(member)
    assert ids(api, "users/permissions", {"groups_id": group.pk}) == {str(permission.pk)}
    assert str(permission.pk) not in ids(api, "users/permissions", {"groups_id__n": group.pk})
    assert ids(api, "users/users", {"object_permissions": permission.name}) == {str(member.pk)}
    assert ids(api, "users/users", {"object_permissions": str(permission.pk)}) == {str(member.pk)}
    assert str(member.pk) not in ids(api, "users/users", {"object_permissions__isnull": "true"})
    assert str(member.pk) in ids(api, "users/users", {"object_permissions__isnull": "false"})

    reservation = RackReservation.objects.first()
    holder = {str(reservation.user_id)}
    assert ids(api, "users/users", {"rack_reservations_id": reservation.pk}) == holder
    assert ids(api, "users/users", {"rack_reservations_id__n": reservation.pk}) == users - holder
    reserving = {str(pk) for pk in RackReservation.objects.values_list("user_id", flat=True)}
    assert ids(api, "users/users", {"rack_reservations_id__isnull": "false"}) == reserving
    assert ids(api, "users/users", {"rack_reservations_id__isnull": "true"}) == users - reserving

    response = api.post("/api/extras/tags/", {"name": "Changed by admin", "content_types": ["dcim.device"]})
    assert response.status_code == 201
    change = ObjectChange.objects.filter(changed_object_id=orjson.loads(response.content)["id"]).get()
    changers = {str(pk) for pk in ObjectChange.objects.exclude(user=None).values_list("user_id", flat=True)}
    assert str(superuser.pk) in changers and str(member.pk) not in changers
    assert ids(api, "users/users", {"object_changes": str(change.pk)}) == {str(superuser.pk)}
    assert ids(api, "users/users", {"object_changes__n": str(change.pk)}) == users - {str(superuser.pk)}
    assert ids(api, "users/users", {"has_object_changes": "true"}) == changers
    assert ids(api, "users/users", {"object_changes__isnull": "true"}) == users - changers


def test_config_contexts_by_singular_names(api):
    context = ConfigContext.objects.filter(locations__isnull=False).first()
    location = context.locations.first()
    holding = {
        str(pk) for pk in ConfigContext.objects.filter(locations=location).values_list("pk", flat=True)
    }
    contexts = every(ConfigContext)
    assert holding and holding != contexts
    assert ids(api, "extras/config-contexts", {"location": location.name}) == holding
    assert ids(api, "extras/config-contexts", {"location": str(location.pk)}) == holding
    assert ids(api, "extras/config-contexts", {"location_id": str(location.pk)}) == holding
    assert ids(api, "extras/config-contexts", {"location__n": location.name}) == contexts - holding
    assert ids(api, "extras/config-contexts", {"location_id__n": str(location.pk)}) == contexts - holding
    assert ids(api, "extras/config-contexts", {"locations": location.name}) == holding
    body = api.json("/api/extras/config-contexts/", {"location_id": location.name}, status=400)
    assert body == {"location_id": ["Enter a valid UUID."]}

    schema = ConfigContextSchema.objects.create(name="Filter schema", data_schema={"type": "object"})
    ConfigContext.objects.filter(pk=context.pk).update(config_context_schema=schema)
    assert ids(api, "extras/config-contexts", {"schema": schema.name}) == {str(context.pk)}
    schemaless = {
        str(pk)
        for pk in ConfigContext.objects.filter(config_context_schema=None).values_list("pk", flat=True)
    }
    assert str(context.pk) not in schemaless
    assert ids(api, "extras/config-contexts", {"schema__isnull": "true"}) == schemaless


def test_scheduled_jobs_by_approval_state_lookups(api):
    jobs = every(ScheduledJob)
    for state in ("Pending", "Denied"):
        held = ApprovalWorkflow.objects.filter(current_state=state)
        holding = {str(pk) for pk in held.values_list("object_under_review_object_id", flat=True)}
        assert holding and holding != jobs
        assert ids(api, "extras/scheduled-jobs", {"approval_state": state}) == holding
        assert ids(api, "extras/scheduled-jobs", {"approval_state__ic": state[1:4].upper()}) == holding
        assert ids(api, "extras/scheduled-jobs", {"approval_state__n": state}) == jobs - holding
        assert (
            ids(api, "extras/scheduled-jobs", {"approval_state__nisw": state[:2].lower()}) == jobs - holding
        )


def test_stages_by_decision_day_and_types_by_content_type_id(api):
    decided = ApprovalWorkflowStage.objects.exclude(decision_date=None).first()
    day = decided.decision_date.date()
    that_day = {
        str(s.pk)
        for s in ApprovalWorkflowStage.objects.all()
        if s.decision_date and s.decision_date.date() == day
    }
    assert ids(api, "extras/approval-workflow-stages", {"decision_date_day": day.isoformat()}) == that_day
    assert not ids(api, "extras/approval-workflow-stages", {"decision_date_day": "1999-01-01"})
    body = api.json("/api/extras/approval-workflow-stages/", {"decision_date_day": "soon"}, status=400)
    assert body == {"decision_date_day": ["Enter a valid date."]}

    device, tag = (
        ContentType.objects.get(app_label=a, model=m) for a, m in (("dcim", "device"), ("extras", "tag"))
    )
    kind = MetadataType.objects.create(name="Filter metadata", data_type="text")
    kind.content_types.set([device])
    assert str(kind.pk) in ids(api, "extras/metadata-types", {"content_type_id": device.pk})
    assert str(kind.pk) not in ids(api, "extras/metadata-types", {"content_type_id": tag.pk})


def test_contacts_and_teams_similar_to_a_location(api):
    location = Location.objects.first()
    Location.objects.filter(pk=location.pk).update(
        contact_name="Zyxwa Qorvath", contact_phone="+9 999 000 1100", contact_email="ZZ-NOC@Filter.example"
    )
    named = Contact.objects.create(name="Zyxwa Qorvat")
    phoned = Contact.objects.create(name="Someone", phone="+9 999 000 1101")
    mailed = Team.objects.create(name="Network operations", email="zz-noc@filter.example")
    Contact.objects.create(name="Bob Unrelated", phone="+44 20 7946", email="bob@example.org")
    assert ids(api, "extras/contacts", {"similar_to_location_data": location.name}) == {
        str(named.pk),
        str(phoned.pk),
    }
    assert ids(api, "extras/teams", {"similar_to_location_data": str(location.pk)}) == {str(mailed.pk)}
    quiet = Location.objects.exclude(pk=location.pk).first()
    Location.objects.filter(pk=quiet.pk).update(contact_name="", contact_phone="", contact_email="")
    assert not ids(api, "extras/contacts", {"similar_to_location_data": quiet.name})


def test_platforms_by_napalm_args_text(api):
    platform = Platform.objects.first()
    Platform.objects.filter(pk=platform.pk).update(napalm_args={"secret": "enable-pass", "port": 8022})
    assert ids(api, "dcim/platforms", {"napalm_args": "ENABLE-pass"}) == {str(platform.pk)}
    assert ids(api, "dcim/platforms", {"napalm_args": ["8022", "nowhere"]}) == {str(platform.pk)}
    assert not ids(api, "dcim/platforms", {"napalm_args": "telnet"})


def test_dynamic_groups_by_nesting_and_member(api):
    membership = DynamicGroupMembership.objects.select_related("group", "parent_group").first()
    parent, child = membership.parent_group, membership.group
    above = {str(m.parent_group_id) for m in DynamicGroupMembership.objects.filter(group=child)}
    below = {str(m.group_id) for m in DynamicGroupMembership.objects.filter(parent_group=parent)}
    assert str(parent.pk) in ids(api, "extras/dynamic-groups", {"ancestors": child.name})
    assert ids(api, "extras/dynamic-groups", {"ancestors": str(child.pk)}) >= above
    assert str(child.pk) not in ids(api, "extras/dynamic-groups", {"ancestors": child.name})
    assert ids(api, "extras/dynamic-groups", {"descendants": parent.name}) >= below
    assert str(parent.pk) not in ids(api, "extras/dynamic-groups", {"descendants": parent.name})
    lone = DynamicGroup.objects.create(
        name="Lone group", content_type=child.content_type, group_type="static"
    )
    assert not ids(api, "extras/dynamic-groups", {"descendants": lone.name})
    assert api.json("/api/extras/dynamic-groups/", {"ancestors": "no such group"}, status=400)

    association = StaticGroupAssociation.objects.first()
    member = str(association.associated_object_id)
    holding = ids(api, "extras/dynamic-groups", {"member_id": member})
    assert str(association.dynamic_group_id) in holding
    assert str(lone.pk) not in holding
    assert ids(api, "extras/dynamic-groups", {"member_id__n": member}) == every(DynamicGroup) - holding


def test_relationship_associations_by_peer(api):
    symmetric = RelationshipAssociation.objects.filter(relationship__type__startswith="symmetric").first()
    peer = str(symmetric.destination_id)
    expected = {
        str(a.pk)
        for a in RelationshipAssociation.objects.filter(relationship__type__startswith="symmetric")
        if peer in (str(a.source_id), str(a.destination_id))
    }
    assert str(symmetric.pk) in expected
    assert ids(api, "extras/relationship-associations", {"peer_id": peer}) == expected
    other = RelationshipAssociation.objects.exclude(relationship__type__startswith="symmetric").first()
    assert not ids(api, "extras/relationship-associations", {"peer_id": str(other.source_id)}) & {
        str(other.pk)
    }


def test_content_types_by_permission_feature_and_serializer(api, superuser):
    device, tag = (
        ContentType.objects.get(app_label=a, model=m) for a, m in (("dcim", "device"), ("extras", "tag"))
    )
    reader = User.objects.create(username="device reader")
    permission = ObjectPermission.objects.create(name="Devices", actions=["view"])
    permission.object_types.set([device])
    permission.users.add(reader)
    as_reader = Api(Token.objects.create(user=reader).key)
    viewable = ids(as_reader, "extras/content-types", {"can_view": "true"})
    assert str(device.pk) in viewable and str(tag.pk) not in viewable
    assert str(tag.pk) in ids(as_reader, "extras/content-types", {"can_view": "false"})
    assert str(device.pk) not in ids(as_reader, "extras/content-types", {"can_change": "true"})
    assert str(device.pk) in ids(api, "extras/content-types", {"can_delete": "true"})
    assert not ids(api, "extras/content-types", {"can_add": "false"})

    statuses = ids(api, "extras/content-types", {"feature": "statuses"})
    assert str(device.pk) in statuses and str(tag.pk) not in statuses
    assert str(tag.pk) in ids(api, "extras/content-types", {"feature": "graphql"})
    body = api.json("/api/extras/content-types/", {"feature": "teleport"}, status=400)
    assert body["feature"][0].startswith(
        "Select a valid choice. teleport is not one of the available choices"
    )

    session = ContentType.objects.get(app_label="sessions", model="session")
    served = ids(api, "extras/content-types", {"has_serializer": "true"})
    assert str(device.pk) in served and str(session.pk) not in served
    assert str(session.pk) in ids(api, "extras/content-types", {"has_serializer": "false"})

    query = '{ content_types(feature: "statuses", can_view: true) { id } }'
    response = api.post("/api/graphql/", {"query": query})
    found = {str(row["id"]) for row in orjson.loads(response.content)["data"]["content_types"]}
    assert found == statuses


def test_job_results_refuse_console_entries(api):
    body = api.json("/api/extras/job-results/", {"has_job_console_entries": "true"}, status=400)
    assert body == {"has_job_console_entries": [body["has_job_console_entries"][0]]}
    assert "console" in body["has_job_console_entries"][0]
