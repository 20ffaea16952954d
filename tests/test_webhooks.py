"""Webhooks deliver to a real HTTP receiver: body, headers, signature, retries, and nothing at
all for a write that does not commit."""

from __future__ import annotations

import hashlib
import hmac
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
import pytest
from django.db import transaction
from django.test import override_settings

from inventory.tenancy.models import Tenant
from queryengine.registry import resource_for
from queryengine.writes import Writer

from .conftest import send
from .test_jobs import eager  # noqa: F401 (fixture)

SECRET = "s3cret-for-signing"


class Receiver(ThreadingHTTPServer):
    """Records every request; answers `status` (a list: one per request, then the last)."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.received: list[dict] = []
        self.statuses = [204]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the standard library's name)
        self.handle_request()

    do_PATCH = do_POST  # noqa: N815

    def handle_request(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server: Receiver = self.server
        server.received.append(
            {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        )
        status = server.statuses.pop(0) if len(server.statuses) > 1 else server.statuses[0]
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def webhook(api, receiver, eager):  # noqa: F811
    status, hook = send(
        api,
        "post",
        "/api/extras/webhooks/",
        {
            "name": "tenants to the receiver",
            "content_types": ["tenancy.tenant"],
            "type_create": True,
            "type_update": True,
            "payload_url": receiver.url,
            "secret": SECRET,
            "additional_headers": "X-Changed-By: {{ username }}\nX-Event: {{ event }}",
        },
    )
    assert status == 201, hook
    return hook


def test_a_create_is_delivered_signed_with_the_reference_payload(
    api, webhook, receiver, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        status, tenant = send(api, "post", "/api/tenancy/tenants/", {"name": "hooked", "description": "d"})
    assert status == 201
    [request] = receiver.received
    body = orjson.loads(request["body"])
    assert request["method"] == "POST" and request["path"] == "/hook"
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["headers"]["X-Changed-By"] == "admin" and request["headers"]["X-Event"] == "created"
    signature = hmac.new(SECRET.encode(), request["body"], hashlib.sha512).hexdigest()
    assert request["headers"]["X-Hook-Signature"] == signature
    assert body["event"] == "created" and body["model"] == "tenant" and body["username"] == "admin"
    assert body["data"]["id"] == tenant["id"] and body["data"]["name"] == "hooked"
    assert body["snapshots"]["prechange"] is None and body["snapshots"]["postchange"]["description"] == "d"
    [record] = api.json("/api/extras/object-changes/", {"changed_object_id": tenant["id"]})["results"]
    assert body["request_id"] == record["request_id"]
    # The object as the API shows it, as the reference sends it, though the record is kept
    # without that shape by default.
    assert record["object_data_v2"] is None
    assert body["data"]["object_type"] == "tenancy.tenant" and body["data"]["display"] == "hooked"
    assert body["data"]["url"] == f"/api/tenancy/tenants/{tenant['id']}/"
    assert body["snapshots"]["postchange"] == body["data"]


@override_settings(CHANGELOG_OBJECT_DATA_V2=True)
def test_bulk_writes_send_one_request_per_object_and_only_the_chosen_events(
    api, webhook, receiver, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        status, created = send(
            api, "post", "/api/tenancy/tenants/", [{"name": f"bulk-hook-{i}"} for i in range(3)]
        )
    assert status == 201 and len(receiver.received) == 3
    with django_capture_on_commit_callbacks(execute=True):
        status, _ = send(
            api, "patch", "/api/tenancy/tenants/", [{"id": t["id"], "description": "x"} for t in created]
        )
    assert status == 200 and len(receiver.received) == 6
    update = orjson.loads(receiver.received[-1]["body"])
    assert update["event"] == "updated" and update["snapshots"]["differences"]["added"]["description"] == "x"
    snapshots = update["snapshots"]
    assert snapshots["prechange"]["description"] == "" and snapshots["postchange"]["description"] == "x"
    assert snapshots["prechange"]["url"] == snapshots["postchange"]["url"] == update["data"]["url"]
    assert snapshots["differences"]["removed"] == {"description": ""}  # last_updated is left out
    [record] = api.json(
        "/api/extras/object-changes/", {"changed_object_id": created[-1]["id"], "action": "update"}
    )["results"]
    assert update["data"] == record["object_data_v2"]
    with django_capture_on_commit_callbacks(execute=True):
        status, _ = send(api, "delete", "/api/tenancy/tenants/", [{"id": t["id"]} for t in created])
    assert status == 204 and len(receiver.received) == 6  # deletes were not chosen


def test_writes_that_do_not_commit_send_nothing(
    api, webhook, receiver, superuser, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        status, _ = send(api, "post", "/api/tenancy/tenants/", [{"name": "never"}, {"name": ""}])
    assert status == 400
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        Writer(resource_for(Tenant), superuser).create([{"name": f"rolled-back-{i}"} for i in range(3)])
        transaction.set_rollback(True)
    assert receiver.received == []
    assert not Tenant.objects.filter(name__startswith="rolled-back-").exists()


def test_a_failing_receiver_is_retried_and_never_fails_the_write(
    api, webhook, receiver, django_capture_on_commit_callbacks
):
    receiver.statuses = [500]
    with override_settings(WEBHOOK_RETRIES=2), django_capture_on_commit_callbacks(execute=True):
        status, _ = send(api, "post", "/api/tenancy/tenants/", {"name": "unlucky"})
    assert status == 201
    assert len(receiver.received) == 3  # the first try and two retries
    receiver.received.clear()
    receiver.statuses = [500, 200]
    with override_settings(WEBHOOK_RETRIES=2), django_capture_on_commit_callbacks(execute=True):
        send(api, "post", "/api/tenancy/tenants/", {"name": "lucky"})
    assert len(receiver.received) == 2


def test_body_templates_methods_and_validation(api, webhook, receiver, django_capture_on_commit_callbacks):
    status, _ = send(
        api,
        "patch",
        f"/api/extras/webhooks/{webhook['id']}/",
        {"body_template": '{"who": "{{ data.name }}", "what": "{{ event }}"}', "http_method": "PATCH"},
    )
    assert status == 200
    with django_capture_on_commit_callbacks(execute=True):
        send(api, "post", "/api/tenancy/tenants/", {"name": "templated"})
    [request] = receiver.received
    assert request["method"] == "PATCH" and orjson.loads(request["body"]) == {
        "who": "templated",
        "what": "created",
    }
    status, body = send(api, "patch", f"/api/extras/webhooks/{webhook['id']}/", {"body_template": "{% if %}"})
    assert status == 400 and "body_template" in body
    status, body = send(
        api,
        "post",
        "/api/extras/webhooks/",
        {"name": "no events", "content_types": ["dcim.device"], "payload_url": "http://x/"},
    )
    assert status == 400 and "type_create" in body
