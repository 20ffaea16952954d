"""Approval workflows through REST: a job run a definition matches waits for its stages, in
sequence, each approved by enough members of its approver group; denial or cancellation means
it never runs."""

from __future__ import annotations

import orjson
import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.test.utils import override_settings

from inventory.jobs.approvals import ApprovalWorkflow
from inventory.jobs.models import JobResult, ScheduledJob
from inventory.jobs.scheduler import start_due_jobs
from inventory.users.models import Group, ObjectPermission, Token, User

from .conftest import Api, send

NO_PERMISSION = {"detail": "You do not have permission to perform this action."}
DEFINITIONS = "/api/extras/approval-workflow-definitions/"
STAGE_DEFINITIONS = "/api/extras/approval-workflow-stage-definitions/"
WORKFLOWS = "/api/extras/approval-workflows/"
STAGES = "/api/extras/approval-workflow-stages/"


def person(name: str, *perms: str, groups=()) -> tuple[User, Api]:
    user = User.objects.create_user(name)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    user.groups.set(groups)
    return user, Api(Token.objects.create(user=user).key)


APPROVER = (
    "extras.change_approvalworkflowstage",
    "extras.change_scheduledjob",
    "extras.view_approvalworkflowstage",
)


@pytest.fixture
def board(superuser, jobs):
    """A definition for every scheduled job: peers (two of alice, bob, eve's group) then the
    change board (carol); dave runs jobs."""
    admin = Api(Token.objects.create(user=superuser).key)
    peers, change_board = Group.objects.create(name="Peers"), Group.objects.create(name="Change board")
    status, definition = send(
        admin,
        "post",
        DEFINITIONS,
        {"name": "Runs", "model_content_type": "extras.scheduledjob", "weight": 10},
    )
    assert status == 201, definition
    for sequence, name, group, needed in ((10, "Peer review", peers, 2), (20, "Board", change_board, 1)):
        status, body = send(
            admin,
            "post",
            STAGE_DEFINITIONS,
            {
                "approval_workflow_definition": definition["id"],
                "sequence": sequence,
                "name": name,
                "min_approvers": needed,
                "approver_group": group.pk,
            },
        )
        assert status == 201, body
    people = {
        "alice": person("alice", *APPROVER, groups=[peers]),
        "bob": person("bob", *APPROVER, groups=[peers]),
        "carol": person("carol", *APPROVER, groups=[change_board]),
        "eve": person("eve", *APPROVER),  # may change stages, in no approver group
        "dave": person("dave", "extras.run_job", "extras.view_job", "extras.view_approvalworkflow"),
    }
    return {"admin": admin, "definition": definition, **{name: api for name, (_, api) in people.items()}}


def run_greet(api, jobs) -> dict:
    status, body = send(api, "post", f"/api/extras/jobs/{jobs['Greet'].pk}/run/", {"data": {"who": "x"}})
    assert status == 201, body
    return body


def stages_of(admin, schedule_id) -> tuple[dict, list[dict]]:
    [workflow] = admin.json(WORKFLOWS, {"object_under_review_object_id": schedule_id})["results"]
    stages = admin.json(STAGES, {"approval_workflow": workflow["id"]})["results"]
    return workflow, sorted(stages, key=lambda stage: "Board" in stage["display"])


def decide(api, stage, decision="approve", comments=None) -> tuple[int, dict]:
    return send(
        api, "post", f"{STAGES}{stage['id']}/{decision}/", {"comments": comments} if comments else None
    )


def greet_results() -> int:
    return JobResult.objects.filter(name="Greet").count()


def test_a_run_waits_for_every_stage_in_order_then_runs(board, jobs, django_capture_on_commit_callbacks):
    answer = run_greet(board["dave"], jobs)
    assert answer["job_result"] is None
    scheduled = answer["scheduled_job"]
    assert scheduled["state"] == {"value": "pending", "label": "Pending Approval"}
    assert scheduled["enabled"] is False and greet_results() == 0
    workflow, (peer, final) = stages_of(board["admin"], scheduled["id"])
    assert workflow["current_state"]["value"] == "Pending" and workflow["user_name"] == "dave"
    assert workflow["approval_workflow_definition"]["id"] == board["definition"]["id"]
    assert [peer["state"]["value"], final["state"]["value"]] == ["Pending", "Pending"]
    # Awaiting approval, it never runs: not at the scheduler's tick, not switched on by hand.
    assert start_due_jobs() == 0
    assert (
        send(board["admin"], "patch", f"/api/extras/scheduled-jobs/{scheduled['id']}/", {"enabled": True})[0]
        == 200
    )
    assert start_due_jobs() == 0 and greet_results() == 0

    # Only members of a stage's group decide it, and only once the stages before it are approved.
    assert decide(board["eve"], peer) == (
        403,
        {"detail": "You do not have permission to approve this stage."},
    )
    assert decide(board["carol"], final) == (400, {"detail": "Approval workflow stage is not active."})
    status, body = decide(board["alice"], peer)
    assert status == 200 and body["id"] == peer["id"] and body["state"]["value"] == "Pending"  # one of two
    assert decide(board["alice"], peer) == (400, {"detail": "You have already approved to this stage."})
    status, body = decide(board["bob"], peer, comments="ok")
    assert status == 200 and body["state"]["value"] == "Approved" and body["decision_date"]
    assert board["admin"].json(f"{WORKFLOWS}{workflow['id']}/")["current_state"]["value"] == "Pending"
    assert greet_results() == 0

    with django_capture_on_commit_callbacks(execute=True):
        status, body = decide(board["carol"], final, comments="in the change window")
    assert status == 200 and body["state"]["value"] == "Approved"
    decided = board["admin"].json(f"{WORKFLOWS}{workflow['id']}/")
    assert decided["current_state"]["value"] == "Approved" and decided["decision_date"]
    [result] = JobResult.objects.filter(name="Greet")
    assert result.status == "SUCCESS" and result.user.username == "dave"
    schedule = ScheduledJob.objects.get(pk=scheduled["id"])
    assert result.scheduled_job == schedule and schedule.total_run_count == 1
    assert schedule.decision_date.isoformat().replace("+00:00", "Z") == decided["decision_date"]
    responses = board["admin"].json("/api/extras/approval-workflow-stage-responses/", {"limit": 100})[
        "results"
    ]
    assert sorted((r["state"]["value"], r["comments"]) for r in responses) == [
        ("Approved", ""),
        ("Approved", "in the change window"),
        ("Approved", "ok"),
    ]
    assert start_due_jobs() == 0  # it ran once


def test_a_denied_run_never_runs(board, jobs):
    scheduled = run_greet(board["dave"], jobs)["scheduled_job"]
    workflow, (peer, final) = stages_of(board["admin"], scheduled["id"])
    assert decide(board["alice"], peer, "comment") == (400, {"detail": "Comment cannot be empty."})
    status, body = decide(board["alice"], peer, "comment", "which window?")
    assert status == 200 and body["state"]["value"] == "Pending"
    status, body = decide(board["bob"], peer, "deny", "not now")
    assert status == 200 and body["state"]["value"] == "Denied"
    assert board["admin"].json(f"{WORKFLOWS}{workflow['id']}/")["current_state"]["value"] == "Denied"
    schedule = board["admin"].json(f"/api/extras/scheduled-jobs/{scheduled['id']}/")
    assert schedule["state"]["value"] == "denied" and schedule["enabled"] is False
    assert decide(board["alice"], peer) == (400, {"detail": "Approval workflow stage is not active."})
    assert decide(board["alice"], peer, "comment", "too late") == (
        400,
        {"detail": "This stage is in Denied state. Can't comment approved or denied stage."},
    )
    assert start_due_jobs() == 0 and greet_results() == 0


def test_the_submitter_cancels_a_pending_run(board, jobs):
    scheduled = run_greet(board["dave"], jobs)["scheduled_job"]
    workflow, (peer, _) = stages_of(board["admin"], scheduled["id"])
    cancel = f"{WORKFLOWS}{workflow['id']}/cancel/"
    assert send(board["alice"], "post", cancel) == (403, NO_PERMISSION)  # no view permission
    _, viewer = person("victor", "extras.view_approvalworkflow")
    assert send(viewer, "post", cancel) == (
        403,
        {
            "detail": "You are not permitted to cancel this workflow. This workflow can be only canceled by submitter."
        },
    )
    status, body = send(board["dave"], "post", cancel, {"comments": "wrong data"})
    assert status == 200 and body["current_state"]["value"] == "Canceled"
    assert send(board["dave"], "post", cancel) == (
        400,
        {"detail": "Can't cancel finished approval workflow."},
    )
    schedule = ScheduledJob.objects.get(pk=scheduled["id"])
    assert (schedule.state, schedule.enabled) == ("canceled", False)
    stage = board["admin"].json(f"{STAGES}{peer['id']}/")
    assert stage["state"]["value"] == "Canceled"
    assert decide(board["alice"], peer) == (400, {"detail": "Approval workflow stage is not active."})
    assert start_due_jobs() == 0 and greet_results() == 0


def test_deciding_needs_the_permissions_the_reference_asks_for(board, jobs):
    scheduled = run_greet(board["dave"], jobs)["scheduled_job"]
    _, (peer, _) = stages_of(board["admin"], scheduled["id"])
    assert decide(Api(None), peer) == (403, {"detail": "Authentication credentials were not provided."})
    assert decide(board["dave"], peer) == (403, NO_PERMISSION)  # may not change stages
    peers = Group.objects.get(name="Peers")
    frank, frank_api = person("frank", "extras.change_approvalworkflowstage", groups=[peers])
    assert decide(frank_api, peer) == (
        403,
        {"detail": "You do not have 'change' permission on extras.scheduledjob."},
    )
    # Object permissions narrow the stages one may decide: others are not found.
    grace, grace_api = person("grace", "extras.change_scheduledjob", groups=[peers])
    permission = ObjectPermission.objects.create(
        name="other stages", actions=["change"], constraints={"state": "Approved"}
    )
    permission.object_types.set(
        [
            ScheduledJob._meta.apps.get_model("contenttypes", "ContentType").objects.get(
                model="approvalworkflowstage"
            )
        ]
    )
    permission.users.set([grace])
    assert decide(Api(Token.objects.create(user=grace).key), peer) == (
        404,
        {"detail": "No ApprovalWorkflowStage matches the given query."},
    )
    assert ApprovalWorkflow.objects.get().current_state == "Pending"


def test_runs_without_a_matching_definition_go_ahead(board, jobs, django_capture_on_commit_callbacks):
    # The definition now applies to other jobs only: a run of Greet starts at once.
    status, _ = send(
        board["admin"],
        "patch",
        f"{DEFINITIONS}{board['definition']['id']}/",
        {"model_constraints": {"job_model__name": "Other"}},
    )
    assert status == 200
    answer = run_greet(board["dave"], jobs)
    assert answer["scheduled_job"] is None and answer["job_result"]["status"]["value"] == "SUCCESS"
    assert not ScheduledJob.objects.filter(name__startswith="Greet").exists()  # nothing held, nothing kept


def test_definitions_are_checked(board):
    admin = board["admin"]
    cases = [
        (
            {"name": "a", "model_content_type": "dcim.device"},
            {
                "model_content_type": [
                    "Approval workflows apply to these object types only: extras.scheduledjob."
                ]
            },
        ),
        (
            {
                "name": "b",
                "model_content_type": "extras.scheduledjob",
                "model_constraints": {"no_such": 1},
                "weight": 3,
            },
            "model_constraints",
        ),
        (
            {"name": "c", "model_content_type": "extras.scheduledjob", "weight": 10},
            "__all__",
        ),
    ]
    for body, expected in cases:
        status, errors = send(admin, "post", DEFINITIONS, body)
        assert status == 400, (body, errors)
        if isinstance(expected, dict):
            assert errors == expected
        else:
            assert list(errors) == [expected] or expected in str(errors), errors


def test_scheduled_jobs_show_and_filter_by_their_workflows(board, jobs):
    scheduled = run_greet(board["dave"], jobs)["scheduled_job"]
    [shown] = scheduled["associated_approval_workflows"]
    assert (
        shown["current_state"]["value"] == "Pending"
        and shown["object_under_review_object_id"] == scheduled["id"]
    )
    assert shown["approval_workflow_definition"]["id"] == board["definition"]["id"]
    admin = board["admin"]
    pending = admin.json("/api/extras/scheduled-jobs/", {"approval_state": "Pending"})["results"]
    assert [row["id"] for row in pending] == [scheduled["id"]]
    assert admin.json("/api/extras/scheduled-jobs/", {"approval_state": "Denied"})["count"] == 0
    assert admin.json("/api/extras/scheduled-jobs/", {"approval_state": "Maybe"}, status=400) == {
        "approval_state": ["Select a valid choice. Maybe is not one of the available choices."]
    }
    # The stage definitions a workflow goes through, as the reference filters them.
    stage_definitions = admin.json(STAGE_DEFINITIONS, {"approval_workflow": shown["id"]})["results"]
    assert [row["name"] for row in stage_definitions] == ["Peer review", "Board"]
    # A reader who may not see workflows sees none.
    _, reader = person("rita", "extras.view_scheduledjob")
    assert (
        reader.json(f"/api/extras/scheduled-jobs/{scheduled['id']}/")["associated_approval_workflows"] == []
    )


def test_a_definition_in_use_is_kept_until_its_workflows_are_decided(board, jobs):
    scheduled = run_greet(board["dave"], jobs)["scheduled_job"]
    workflow, _ = stages_of(board["admin"], scheduled["id"])
    url = f"{DEFINITIONS}{board['definition']['id']}/"
    status, body = send(board["admin"], "delete", url)
    # The pending workflow and its two stages hold the definition and its stage definitions.
    assert status == 409 and body["detail"].startswith(
        "Unable to delete object. 3 dependent objects were found: "
    )
    assert f"({workflow['id']})" in body["detail"]
    assert send(board["dave"], "post", f"{WORKFLOWS}{workflow['id']}/cancel/")[0] == 200
    assert send(board["admin"], "delete", url)[0] == 204
    kept = board["admin"].json(f"{WORKFLOWS}{workflow['id']}/")
    assert kept["approval_workflow_definition"] is None
    assert kept["display"].startswith("Deleted workflow: Greet - ") and kept["display"].endswith("(Canceled)")


def test_a_job_with_sensitive_variables_is_not_held(board, jobs):
    status, body = send(
        board["admin"], "post", f"/api/extras/jobs/{jobs['Secretive'].pk}/run/", {"data": {"password": "pw"}}
    )
    assert status == 400 and body == [
        "Unable to run or schedule job: This job is flagged as possibly having sensitive variables but also has an "
        "applicable approval workflow definition.Modify or remove the approval workflow definition or modify the "
        "job to set `has_sensitive_variables` to False."
    ]
    assert not ScheduledJob.objects.exists() and not JobResult.objects.filter(name="Secretive").exists()


GRAPHQL = "/api/graphql/"
MY_STAGES = """query ($p: Boolean) {
  mine: approval_workflow_stages(pending_my_approvals: true) { id }
  done: approval_workflow_stages(pending_my_approvals: false) { id }
  given: approval_workflow_stages(pending_my_approvals: $p) { id }
  counted: approval_workflow_stages_count(pending_my_approvals: true)
}"""


def my_stages(api) -> tuple[set, set]:
    """The stages awaiting the reader (REST `pending_my_approvals=true`) and those they decided
    (`false`), checked against GraphQL's answers, literal and as a variable."""
    found = []
    for value in ("true", "false"):
        body = api.json(STAGES, {"pending_my_approvals": value, "limit": 100})
        assert body["count"] == len(body["results"])
        found.append({row["id"] for row in body["results"]})
    for value, expected in ((True, found[0]), (False, found[1])):
        response = api.post(GRAPHQL, {"query": MY_STAGES, "variables": {"p": value}})
        data = orjson.loads(response.content)
        assert response.status_code == 200 and "errors" not in data, data
        data = data["data"]
        assert {row["id"] for row in data["given"]} == expected
        assert {row["id"] for row in data["mine"]} == found[0] and data["counted"] == len(found[0])
        assert {row["id"] for row in data["done"]} == found[1]
    return found[0], found[1]


def ids(*rows) -> set[str]:
    return {row["id"] for row in rows}


def test_the_stages_awaiting_the_readers_approval(board, jobs):
    """`pending_my_approvals`: true lists the active, pending stages of pending workflows whose
    approver group holds the reader and that they have not approved; false those they responded
    to that no longer await them. REST and GraphQL agree, and permissions narrow both."""
    peers = Group.objects.get(name="Peers")
    henry, henry_api = person(
        "henry", "extras.view_approvalworkflow", "extras.view_approvalworkflowstage", groups=[peers]
    )
    stages = [
        stages_of(board["admin"], run_greet(board["dave"], jobs)["scheduled_job"]["id"]) for _ in range(6)
    ]
    (w1, (peer1, board1)), (w2, (peer2, _)), (w3, _), (w4, (peer4, board4)), (_, (peer5, _)) = stages[:5]
    w6, (peer6, _) = stages[5]
    assert decide(board["alice"], peer1)[0] == 200  # one approval of two: still pending
    assert decide(board["bob"], peer1, "comment", "looking")[0] == 200  # a comment is no decision
    assert decide(board["bob"], peer2, "deny")[0] == 200  # workflow 2 denied
    assert send(board["dave"], "post", f"{WORKFLOWS}{w3['id']}/cancel/")[0] == 200
    assert decide(board["alice"], peer4)[0] == 200 and decide(board["bob"], peer4)[0] == 200
    # A pending stage of a workflow that is no longer pending awaits no one.
    ApprovalWorkflow.objects.filter(pk=w6["id"]).update(current_state="Approved")

    assert my_stages(board["alice"]) == (ids(peer5), ids(peer1, peer4))
    assert my_stages(board["bob"]) == (ids(peer1, peer5), ids(peer2, peer4))
    # The change board's stage of workflow 1 is not active yet; workflow 4's is.
    assert my_stages(board["carol"]) == (ids(board4), set())
    assert my_stages(board["eve"]) == (set(), set())  # in no approver group
    assert my_stages(board["admin"]) == (set(), set())  # a superuser is in no group either
    assert my_stages(henry_api) == (ids(peer1, peer5), set())
    assert peer6["id"] not in my_stages(henry_api)[0]

    # Decided, the stage leaves carol's pending list for her done list.
    assert decide(board["carol"], board4)[0] == 200
    assert board["admin"].json(f"{WORKFLOWS}{w4['id']}/")["current_state"]["value"] == "Approved"
    assert my_stages(board["carol"]) == (set(), ids(board4))

    # Nested lists take the filter too, for the same reader.
    data = orjson.loads(
        henry_api.post(
            GRAPHQL,
            {
                "query": "{ approval_workflows { approval_workflow_stages(pending_my_approvals: true) { id } } }"
            },
        ).content
    )["data"]
    assert {s["id"] for w in data["approval_workflows"] for s in w["approval_workflow_stages"]} == ids(
        peer1, peer5
    )

    # A reader whose object permissions show workflow 1's stages only sees no other.
    ivy, ivy_api = person("ivy", groups=[peers])
    permission = ObjectPermission.objects.create(
        name="workflow 1", actions=["view"], constraints={"approval_workflow": w1["id"]}
    )
    permission.object_types.set([ContentType.objects.get_by_natural_key("extras", "approvalworkflowstage")])
    permission.users.set([ivy])
    assert {row["id"] for row in ivy_api.json(STAGES)["results"]} == ids(peer1, board1)
    assert my_stages(ivy_api) == (ids(peer1), set())


def test_pending_my_approvals_takes_one_boolean(board, jobs):
    _, (peer, _) = stages_of(board["admin"], run_greet(board["dave"], jobs)["scheduled_job"]["id"])
    alice = board["alice"]
    # Repeated, the last value counts, as the reference's boolean filters take it.
    both = alice.json(STAGES, [("pending_my_approvals", "false"), ("pending_my_approvals", "true")])
    assert [row["id"] for row in both["results"]] == [peer["id"]]
    assert alice.json(STAGES, {"pending_my_approvals": "1"})["count"] == 1
    assert alice.json(STAGES, {"pending_my_approvals": "maybe"}, status=400) == {
        "pending_my_approvals": ["Select a valid choice. maybe is not one of the available choices."]
    }
    # A bad value is named with the other filters' errors, in one answer.
    body = alice.json(STAGES, {"pending_my_approvals": "maybe", "state": "Nope", "id": "x"}, status=400)
    assert set(body) == {"pending_my_approvals", "state", "id"}
    # GraphQL takes a Boolean, as the reference's schema: a string is refused, naming the type.
    response = alice.post(
        GRAPHQL, {"query": '{ approval_workflow_stages(pending_my_approvals: "true") { id } }'}
    )
    assert "Boolean" in orjson.loads(response.content)["errors"][0]["message"]
    # The list page takes it as the API does.
    page = Client()
    page.force_login(User.objects.get(username="alice"))
    response = page.get("/extras/approval-workflow-stages/", {"pending_my_approvals": "true"})
    assert response.status_code == 200 and f"/{peer['id']}/".encode() in response.content
    response = page.get("/extras/approval-workflow-stages/", {"pending_my_approvals": "false"})
    assert response.status_code == 200 and f"/{peer['id']}/".encode() not in response.content
    response = page.get("/extras/approval-workflow-stages/", {"pending_my_approvals": "maybe"})
    assert response.status_code == 400 and b"maybe is not one of the available choices" in response.content
    # No one signed in (the stages exempt from view permissions): nothing awaits, nothing was decided.
    anonymous = Api(None)
    with override_settings(EXEMPT_VIEW_PERMISSIONS=["extras.approvalworkflowstage"]):
        assert anonymous.json(STAGES)["count"] == 2
        for value in ("true", "false"):
            assert anonymous.json(STAGES, {"pending_my_approvals": value})["count"] == 0
    with override_settings(EXEMPT_VIEW_PERMISSIONS=["*"]):  # GraphQL without signing in: every type exempt
        response = anonymous.post(GRAPHQL, {"query": MY_STAGES, "variables": {"p": True}})
        assert orjson.loads(response.content)["data"] == {"mine": [], "done": [], "given": [], "counted": 0}
