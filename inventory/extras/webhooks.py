"""Webhook delivery: each change to an object of a webhook's types becomes an HTTP request,
sent by a worker after the write commits (a rolled-back write sends nothing), retried with
back-off, and never able to slow or fail the write itself."""

from __future__ import annotations

import hashlib
import hmac
import logging
import ssl
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

import orjson
from celery import shared_task
from django.conf import settings
from django.db import transaction

from queryengine import changes
from queryengine.definitions import cached, watch

from . import outbound, serverfiles
from .models import ObjectChange, Webhook
from .templating import TemplateFailed, render

log = logging.getLogger(__name__)
EVENTS = {changes.CREATE: "created", changes.UPDATE: "updated", changes.DELETE: "deleted"}


@dataclass(frozen=True)
class Trigger:
    """What a webhook or job hook answers to: changes of `actions` to objects of `types`."""

    pk: object
    types: frozenset
    actions: frozenset
    target: object = None  # the job a job hook runs

    def fires(self, action: str, type_id: int) -> bool:
        return action in self.actions and type_id in self.types


def triggers(name: str, enabled: Callable) -> list[Trigger]:
    """The enabled hooks `enabled()` queries (kept between writes: queryengine.definitions, so
    the query is built only when read)."""

    def load():
        return [
            Trigger(
                hook.pk,
                frozenset(kind.pk for kind in hook.content_types.all()),
                frozenset(action for action in EVENTS if hook.fires_on(action)),
                getattr(hook, "job_id", None),
            )
            for hook in enabled().prefetch_related("content_types")
        ]

    return cached(name, load)


def enqueue(rows: list[dict], records: list[changes.Change], kinds: dict, user=None) -> None:
    """Queue the requests the change records call for, once the write has committed."""
    hooks = triggers("webhooks", lambda: Webhook.objects.filter(enabled=True))
    if not hooks:
        return
    by_type = {kind.pk: kind for kind in kinds.values()}
    fired = [
        (row, change, [hook for hook in hooks if hook.fires(change.action, row["changed_object_type_id"])])
        for row, change in zip(rows, records, strict=True)
    ]
    fired = [(row, change, chosen) for row, change, chosen in fired if chosen]
    if not fired:
        return
    # The body carries the object as the API shows it, even where records are kept without
    # that shape (CHANGELOG_OBJECT_DATA_V2 off): read here, only for objects a hook fires on.
    from .changelog import api_shapes  # changelog calls this module

    missing = [change for row, change, _ in fired if row["object_data_v2"] is None]
    shapes = api_shapes(missing) if missing else {}
    earlier = prior_shapes([row for row, change, _ in fired if change.action == changes.UPDATE], rows)
    deliveries = [
        {
            "webhook": str(hook.pk),
            "payload": payload(
                row,
                change,
                by_type[row["changed_object_type_id"]].model,
                row["object_data_v2"] or shapes.get(str(change.pk)),
                earlier,
            ),
        }
        for row, change, chosen in fired
        for hook in chosen
    ]
    transaction.on_commit(lambda: deliver.delay(deliveries))


def prior_shapes(updates: list[dict], written: list[dict]) -> dict:
    """Each updated object's record before this write: (API shape, plain data), the webhook's
    prechange snapshot."""
    if not updates:
        return {}
    found = (
        ObjectChange.objects.filter(changed_object_id__in={row["changed_object_id"] for row in updates})
        .exclude(pk__in=[row["id"] for row in written])
        .order_by("time")
        .values_list("changed_object_id", "object_data_v2", "object_data")
    )
    return {object_id: (v2, v1) for object_id, v2, v1 in found}


def connect() -> None:
    watch(Webhook)


def payload(row: dict, change: changes.Change, model: str, shape: dict | None, earlier: dict) -> dict:
    """The default body, as the reference sends it: the event, who and when, the object as the
    API shows it (`shape`), and its snapshots before and after (in that shape where the records
    keep it, else both plain) with a shallow difference of the two."""
    shape = shape if shape is not None else row["object_data"]
    prechange = postchange = None
    if change.action == changes.UPDATE:
        earlier_v2, earlier_v1 = earlier.get(row["changed_object_id"], (None, change.before))
        if earlier_v2 is not None and row["object_data_v2"] is not None:
            prechange, postchange = earlier_v2, row["object_data_v2"]
        else:
            prechange, postchange = earlier_v1, row["object_data"]
    elif change.action == changes.DELETE:
        prechange = shape
    else:
        postchange = shape
    differences = None
    if prechange and postchange:
        differences = changes.differences(
            {k: v for k, v in prechange.items() if k != "last_updated"},
            {k: v for k, v in postchange.items() if k != "last_updated"},
        )
    return {
        "event": EVENTS[change.action],
        "timestamp": row["time"].isoformat(),
        "model": model,
        "username": row["user_name"],
        "request_id": str(row["request_id"]),
        "data": shape,
        "snapshots": {"prechange": prechange, "postchange": postchange, "differences": differences},
    }


@shared_task(name="inventory.extras.deliver_webhooks", ignore_result=True)
def deliver(deliveries: list[dict], attempt: int = 0) -> None:
    """Send each request; the failed ones are tried again later, up to WEBHOOK_RETRIES times
    with doubling delays."""
    found = Webhook.objects.in_bulk({d["webhook"] for d in deliveries})
    hooks = {str(pk): hook for pk, hook in found.items()}
    failed = []
    for delivery in deliveries:
        hook = hooks.get(delivery["webhook"])
        if hook is None or not hook.enabled:
            continue
        try:
            send(hook, delivery["payload"])
        except outbound.Refused as exc:  # the same answer on every try: not retried
            log.warning("webhook %s to %s refused: %s", hook.name, hook.payload_url, exc)
        except (OSError, ValueError, TemplateFailed) as exc:
            log.warning(
                "webhook %s to %s failed (attempt %d): %s", hook.name, hook.payload_url, attempt + 1, exc
            )
            failed.append(delivery)
    if failed and attempt < settings.WEBHOOK_RETRIES:
        deliver.apply_async((failed, attempt + 1), countdown=settings.WEBHOOK_RETRY_DELAY * 2**attempt)


def request_for(hook: Webhook, body: dict) -> urllib.request.Request:
    """The request a webhook makes for one payload: body, headers and signature."""
    data = render(hook.body_template, body).encode() if hook.body_template else orjson.dumps(body)
    headers = {"Content-Type": hook.http_content_type}
    for line in render(hook.additional_headers, body).splitlines() if hook.additional_headers else ():
        name, sep, value = line.partition(":")
        if sep and name.strip():
            headers[name.strip()] = value.strip()
    if hook.secret:
        headers["X-Hook-Signature"] = hmac.new(hook.secret.encode(), data, hashlib.sha512).hexdigest()
    return urllib.request.Request(hook.payload_url, data=data, headers=headers, method=hook.http_method)


def _certificates(path: str) -> str:
    """The webhook's CA certificates, read from the directories the operator allows."""
    content = serverfiles.read(
        path,
        settings.WEBHOOK_CA_FILE_DIRECTORIES,
        "WEBHOOK_CA_FILE_DIRECTORIES",
        settings.WEBHOOK_CA_FILE_MAX_BYTES,
        "WEBHOOK_CA_FILE_MAX_BYTES",
    )
    if content is None:
        raise OSError(f'CA certificate file "{path}" not found')
    return content.decode("ascii", "replace")


def send(hook: Webhook, body: dict) -> None:
    """One request, only to an address the webhook may reach (outbound.py); a redirect or any
    other answer outside 2xx is a failure."""
    request = request_for(hook, body)
    context = ssl.create_default_context(
        cadata=_certificates(hook.ca_file_path) if hook.ca_file_path else None
    )
    if not hook.ssl_verification:  # the webhook's owner turned verification off
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    # Header names as they have always been sent (title case).
    headers = {name.title(): value for name, value in request.header_items()}
    status = outbound.post(request.full_url, request.get_method(), request.data, headers, context)
    if not 200 <= status < 300:
        raise OSError(f"HTTP {status}" + (" (redirects are not followed)" if 300 <= status < 400 else ""))
