"""GraphQL shows what the reference's schema shows where REST shows another form (twins): stored
choices as the reference stores them, time zones as an enum, lists of objects under the names
REST gives other lists. REST's answers keep their forms; each document runs on both executors."""

from __future__ import annotations

import pytest
from django.apps import apps

from inventory.dcim.models import Cable, DeviceRedundancyGroup, Location
from inventory.extras.models import DynamicGroup, ObjectChange, SecretsGroup
from inventory.extras.models.changes import job_hook_contexts_renamed
from inventory.jobs.models import JobResult, ScheduledJob
from queryengine.schema import schema

from .test_graphql import post
from .test_graphql_generic import through_http

pytestmark = pytest.mark.usefixtures("shared_sample")


def enum_names(api, name: str) -> set[str]:
    found = post(api, f'{{ found: __type(name: "{name}") {{ enumValues {{ name }} }} }}')["data"]["found"]
    return {value["name"] for value in found["enumValues"]}


def test_stored_choices_are_the_reference_values(api):
    assert enum_names(api, "DcimDeviceRedundancyGroupFailoverStrategyChoices") == {
        "A_",
        "ACTIVE_ACTIVE",
        "ACTIVE_PASSIVE",
    }
    assert enum_names(api, "ExtrasJobResultStatusChoices") == {
        "PENDING", "RECEIVED", "STARTED", "SUCCESS", "FAILURE", "REVOKED", "RETRY",
    }  # fmt: skip
    assert enum_names(api, "ExtrasObjectChangeChangeContextChoices") == {
        "WEB", "JOB", "JOB_HOOK", "ORM", "UNKNOWN",
    }  # fmt: skip
    assert enum_names(api, "ExtrasJobResultCancelTypeChoices") == {"TERMINATED", "REAPED", "ABANDONED"}
    fields = schema.graphql_schema.get_type("JobResultType").fields
    assert str(fields["cancel_type"].type) == "ExtrasJobResultCancelTypeChoices"


def test_a_blank_failover_strategy_is_null_in_both(api, superuser):
    blank, chosen = DeviceRedundancyGroup.objects.order_by("pk")[:2]
    DeviceRedundancyGroup.objects.filter(pk=blank.pk).update(failover_strategy="")
    DeviceRedundancyGroup.objects.filter(pk=chosen.pk).update(failover_strategy="active-active")
    query = f'{{ device_redundancy_groups(id: ["{blank.pk}", "{chosen.pk}"]) {{ id failover_strategy }} }}'
    rows = {
        r["id"]: r["failover_strategy"]
        for r in through_http(api, superuser, query)["device_redundancy_groups"]
    }
    assert rows == {str(blank.pk): None, str(chosen.pk): "ACTIVE_ACTIVE"}
    assert api.json(f"/api/dcim/device-redundancy-groups/{blank.pk}/")["failover_strategy"] is None
    assert api.json(f"/api/dcim/device-redundancy-groups/{chosen.pk}/")["failover_strategy"] == {
        "value": "active-active",
        "label": "Active/Active",
    }


def test_a_cancel_type_is_an_enum_in_graphql_and_text_in_rest(api, superuser):
    result = JobResult.objects.order_by("pk").first()
    JobResult.objects.filter(pk=result.pk).update(status="REVOKED", cancel_type="abandoned")
    query = f'{{ job_results(id: ["{result.pk}"]) {{ status cancel_type cancel_type__rest }} }}'
    assert through_http(api, superuser, query)["job_results"] == [
        {"status": "REVOKED", "cancel_type": "ABANDONED", "cancel_type__rest": "abandoned"}
    ]
    assert api.json(f"/api/extras/job-results/{result.pk}/")["cancel_type"] == "abandoned"


def test_job_hook_changes_say_job_hook_as_the_reference(api, superuser):
    change = ObjectChange.objects.order_by("pk").first()
    ObjectChange.objects.filter(pk=change.pk).update(change_context="jobhook")  # as stored before
    job_hook_contexts_renamed(apps, None)
    assert ObjectChange.objects.get(pk=change.pk).change_context == "job-hook"
    assert api.json(f"/api/extras/object-changes/{change.pk}/")["change_context"] == "job-hook"
    query = f'{{ object_changes(id: ["{change.pk}"]) {{ change_context change_context__rest }} }}'
    assert through_http(api, superuser, query)["object_changes"] == [
        {"change_context": "JOB_HOOK", "change_context__rest": "job-hook"}
    ]


def test_time_zones_are_an_enum_in_graphql_and_text_in_rest(api, superuser):
    located, unset = Location.objects.order_by("pk")[:2]
    Location.objects.filter(pk=located.pk).update(time_zone="America/Argentina/Buenos_Aires")
    Location.objects.filter(pk=unset.pk).update(time_zone=None)
    query = f'{{ locations(id: ["{located.pk}", "{unset.pk}"]) {{ id time_zone time_zone__rest }} }}'
    rows = {r["id"]: r for r in through_http(api, superuser, query)["locations"]}
    assert rows[str(located.pk)]["time_zone"] == "AMERICA_ARGENTINA_BUENOS_AIRES"
    assert rows[str(located.pk)]["time_zone__rest"] == "America/Argentina/Buenos_Aires"
    assert rows[str(unset.pk)]["time_zone"] is None and rows[str(unset.pk)]["time_zone__rest"] is None
    assert api.json(f"/api/dcim/locations/{located.pk}/")["time_zone"] == "America/Argentina/Buenos_Aires"
    scheduled = ScheduledJob.objects.order_by("pk").first()
    query = f'{{ scheduled_jobs(id: ["{scheduled.pk}"]) {{ time_zone time_zone__rest }} }}'
    shown = through_http(api, superuser, query)["scheduled_jobs"][0]
    assert shown["time_zone__rest"] == scheduled.time_zone
    assert shown["time_zone"] == scheduled.time_zone.upper().replace("/", "_")
    names = enum_names(api, "DcimLocationTimeZoneChoices")
    # Names taken twice ("Etc/GMT+1", "Etc/GMT-1") are told apart by a position, as graphene's.
    assert {"UTC", "EUROPE_AMSTERDAM", "ETC_GMT_1"} <= names and any(
        n.startswith("ETC_GMT_1_") for n in names
    )
    assert names == enum_names(api, "ExtrasScheduledJobTimeZoneChoices")
    fields = schema.graphql_schema.get_type("ScheduledJobType").fields
    assert str(fields["time_zone"].type) == "ExtrasScheduledJobTimeZoneChoices!"


def test_lists_of_objects_under_the_names_rest_gives_other_lists(api, superuser):
    """A secrets group's `secrets`, a dynamic group's `children` and `parents`, a cable's
    `terminations`: the objects, as the reference's schema shows them; REST's forms as twins."""
    group = next(g for g in SecretsGroup.objects.order_by("name") if g.secrets.exists())
    query = f"""{{ secrets_groups(id: ["{group.pk}"]) {{
        secrets {{ id name }} secrets__rest {{ id secret {{ id }} access_type }} }} }}"""
    shown = through_http(api, superuser, query)["secrets_groups"][0]
    assert shown["secrets"] == [{"id": str(s.pk), "name": s.name} for s in group.secrets.order_by("name")]
    associations = group.secrets_group_associations.all()
    assert sorted(a["id"] for a in shown["secrets__rest"]) == sorted(str(a.pk) for a in associations)
    rest = api.json(f"/api/extras/secrets-groups/{group.pk}/", {"exclude_m2m": "false"})
    assert sorted(a["id"] for a in rest["secrets"]) == sorted(str(a.pk) for a in associations)

    parent = next(g for g in DynamicGroup.objects.order_by("name") if g.dynamic_group_memberships.exists())
    children = DynamicGroup.objects.filter(memberships_as_child__parent_group=parent).order_by(
        *DynamicGroup._meta.ordering
    )
    child = children.first()
    query = f"""{{ dynamic_groups(id: ["{parent.pk}", "{child.pk}"]) {{ id
        children {{ id }} parents {{ id }} children__rest {{ id weight }} }} }}"""
    rows = {r["id"]: r for r in through_http(api, superuser, query)["dynamic_groups"]}
    assert rows[str(parent.pk)]["children"] == [{"id": str(g.pk)} for g in children]
    assert {"id": str(parent.pk)} in rows[str(child.pk)]["parents"]
    memberships = parent.dynamic_group_memberships.all()
    assert sorted(m["id"] for m in rows[str(parent.pk)]["children__rest"]) == sorted(
        str(m.pk) for m in memberships
    )
    rest = api.json(f"/api/extras/dynamic-groups/{parent.pk}/", {"exclude_m2m": "false"})
    assert sorted(m["id"] for m in rest["children"]) == sorted(str(m.pk) for m in memberships)

    cable = Cable.objects.order_by("pk").first()
    query = f"""{{ cables(id: ["{cable.pk}"]) {{ terminations {{ cable_end connector }}
        filtered: terminations(cable_end: "A") {{ cable_end }} terminations__rest }} }}"""
    shown = through_http(api, superuser, query)["cables"][0]
    held = cable.terminations.order_by("cable_end", "connector")
    assert shown["terminations"] == [{"cable_end": t.cable_end, "connector": t.connector} for t in held]
    assert shown["filtered"] == [{"cable_end": "A"} for t in held if t.cable_end == "A"]
    assert shown["terminations__rest"] == api.json(f"/api/dcim/cables/{cable.pk}/")["terminations"]
    fields = schema.graphql_schema.get_type("CableType").fields
    assert str(fields["terminations"].type) == "[CableToCableTerminationType]"
