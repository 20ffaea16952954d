"""Webhooks deliver to a real HTTP receiver: body, headers, signature, retries, and nothing at
all for a write that does not commit; only to http(s) receivers the address policy permits."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
import pytest
from django.db import transaction
from django.test import override_settings

from inventory.extras.models import Webhook
from inventory.tenancy.models import Tenant
from queryengine.registry import resource_for
from queryengine.writes import Writer

from .conftest import send
from .test_jobs import eager  # noqa: F401 (fixture)

SECRET = "s3cret-for-signing"
LOOPBACK = ["127.0.0.0/8", "::1/128"]  # where the test receivers listen


class Receiver(ThreadingHTTPServer):
    """Records every request; answers `status` (a list: one per request, then the last)."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.received: list[dict] = []
        self.statuses = [204]
        self.endless = False

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
        if 300 <= status < 400:
            self.send_header("Location", f"{server.url}-moved")
        if server.endless:  # an answer that never ends
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"%x\r\n%s\r\n" % (65536, b"x" * 65536)
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                return
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
def delivered_at_once(eager):  # noqa: F811
    """Webhook deliveries run in the writing process (no worker)."""


@pytest.fixture
def loopback_allowed(settings):
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK


@pytest.fixture
def webhook(api, receiver, eager, loopback_allowed):  # noqa: F811
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


@override_settings(CHANGELOG_OBJECT_DATA_V2=False)
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
    # without that shape here.
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


def webhook_to(api, url: str, **extra):
    return send(
        api,
        "post",
        "/api/extras/webhooks/",
        {"name": url, "content_types": ["tenancy.tenant"], "type_create": True, "payload_url": url, **extra},
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("file:///etc/passwd", "Only http:// and https:// URLs are allowed."),
        ("ftp://files.example.com/hook", "Only http:// and https:// URLs are allowed."),
        ("http:///hook", "The URL must name a host."),
        ("https://user:pw@hooks.example.com/", "Credentials in the URL are not supported"),
    ],
)
def test_payload_urls_are_http_to_a_host(api, url, message):
    status, body = webhook_to(api, url)
    assert status == 400 and list(body) == ["payload_url"] and body["payload_url"][0].startswith(message)


def test_payload_url_changes_are_checked_and_public_hosts_accepted(api):
    status, hook = webhook_to(api, "https://hooks.example.com/netinventory")  # names resolve when sending
    assert status == 201, hook
    status, body = send(
        api, "patch", f"/api/extras/webhooks/{hook['id']}/", {"payload_url": "file:///etc/hosts"}
    )
    assert status == 400 and body == {"payload_url": ["Only http:// and https:// URLs are allowed."]}


def test_receivers_off_the_public_internet_are_refused_when_sending(
    api, receiver, delivered_at_once, settings, caplog, django_capture_on_commit_callbacks
):
    """Loopback (by name, IPv4-mapped, as one number), private and the cloud metadata address:
    nothing is sent, the reason is logged once (no retries)."""
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    port = receiver.server_address[1]
    for url in (
        f"http://localhost:{port}/hook",
        "http://10.20.30.40:9/hook",
        "http://169.254.169.254/latest/meta-data/",
        f"http://[::ffff:127.0.0.1]:{port}/hook",
        f"http://2130706433:{port}/hook",
    ):
        assert webhook_to(api, url)[0] == 201  # where a URL leads is judged when sending
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        started = time.monotonic()
        status, _ = send(api, "post", "/api/tenancy/tenants/", {"name": "not for insiders"})
    assert status == 201 and receiver.received == [] and time.monotonic() - started < 5
    refusals = sorted(r.getMessage() for r in caplog.records if "refused" in r.getMessage())
    assert len(refusals) == 5, refusals
    assert any("169.254.169.254 is not a public address" in text for text in refusals)
    assert any("10.20.30.40 is not a public address" in text for text in refusals)
    assert any(
        f"[::ffff:127.0.0.1]:{port}/hook refused: refused ::ffff:127.0.0.1: 127.0.0.1 is" in text
        for text in refusals
    )
    assert any(f"localhost:{port}/hook refused: refused localhost" in text for text in refusals)
    assert not any("failed" in r.getMessage() for r in caplog.records)
    # An allowed network receives; the operator's denied networks win over it.
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK
    Webhook.objects.exclude(payload_url__startswith="http://localhost").delete()
    with django_capture_on_commit_callbacks(execute=True):
        send(api, "post", "/api/tenancy/tenants/", {"name": "for the internal receiver"})
    assert len(receiver.received) == 1 and receiver.received[0]["headers"]["Host"] == f"localhost:{port}"
    settings.WEBHOOK_DENIED_NETWORKS = ["127.0.0.1/32", "::1/128"]
    caplog.clear()
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True):
        send(api, "post", "/api/tenancy/tenants/", {"name": "denied after all"})
    assert len(receiver.received) == 1
    assert any("is in WEBHOOK_DENIED_NETWORKS" in r.getMessage() for r in caplog.records)


def test_redirects_are_not_followed_and_endless_answers_are_cut(
    api, webhook, receiver, caplog, django_capture_on_commit_callbacks
):
    receiver.statuses = [302]
    with (
        override_settings(WEBHOOK_RETRIES=0),
        caplog.at_level(logging.WARNING),
        django_capture_on_commit_callbacks(execute=True),
    ):
        send(api, "post", "/api/tenancy/tenants/", {"name": "redirected"})
    assert [r["path"] for r in receiver.received] == ["/hook"]
    assert any("HTTP 302 (redirects are not followed)" in r.getMessage() for r in caplog.records)
    receiver.received.clear()
    receiver.statuses, receiver.endless = [200], True
    started = time.monotonic()
    with (
        override_settings(WEBHOOK_RETRIES=0, WEBHOOK_MAX_RESPONSE_BYTES=200_000),
        django_capture_on_commit_callbacks(execute=True),
    ):
        send(api, "post", "/api/tenancy/tenants/", {"name": "talkative receiver"})
    assert len(receiver.received) == 1 and time.monotonic() - started < 5


def self_signed(tmp_path, host: str) -> tuple[str, str]:
    """A certificate for `host` (its own authority) and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "receiver.pem", tmp_path / "receiver.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return str(cert_path), str(key_path)


def test_https_checks_the_certificate_against_the_urls_host(
    api,
    receiver,
    delivered_at_once,
    loopback_allowed,
    tmp_path,
    caplog,
    django_capture_on_commit_callbacks,
    settings,
):
    """The connection goes to the checked address while TLS names the URL's host (SNI) and the
    certificate is verified for it."""
    cert, key = self_signed(tmp_path, "localhost")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    receiver.socket = context.wrap_socket(receiver.socket, server_side=True)
    port = receiver.server_address[1]
    status, errors = webhook_to(api, f"https://localhost:{port}/hook", ca_file_path=cert)
    assert status == 400 and "WEBHOOK_CA_FILE_DIRECTORIES" in errors["ca_file_path"][0]
    settings.WEBHOOK_CA_FILE_DIRECTORIES = [str(tmp_path)]
    assert webhook_to(api, f"https://localhost:{port}/hook", ca_file_path=cert)[0] == 201
    assert webhook_to(api, f"https://127.0.0.1:{port}/hook", ca_file_path=cert)[0] == 201  # not its name
    with (
        override_settings(WEBHOOK_RETRIES=0),
        caplog.at_level(logging.WARNING),
        django_capture_on_commit_callbacks(execute=True),
    ):
        send(api, "post", "/api/tenancy/tenants/", {"name": "over tls"})
    [request] = receiver.received
    assert request["headers"]["Host"] == f"localhost:{port}"
    [failure] = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert f"https://127.0.0.1:{port}/hook" in failure and "CERTIFICATE_VERIFY_FAILED" in failure
