"""Webhook delivery: each change to an object of a webhook's types becomes an HTTP request,
sent by a worker after the write commits (a rolled-back write sends nothing), retried with
back-off, and never able to slow or fail the write itself."""

from __future__ import annotations

import hashlib
import hmac
import logging
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass

import orjson
from celery import shared_task
from django.conf import settings
from django.db import transaction

from queryengine import changes
from queryengine.definitions import cached, watch

from .models import Webhook
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


def triggers(name: str, enabled) -> list[Trigger]:
    """The enabled hooks of a queryset (kept between writes: queryengine.definitions)."""

    def load():
        return [
            Trigger(
                hook.pk,
                frozenset(kind.pk for kind in hook.content_types.all()),
                frozenset(action for action in EVENTS if hook.fires_on(action)),
                getattr(hook, "job_id", None),
            )
            for hook in enabled.prefetch_related("content_types")
        ]

    return cached(name, load)


def enqueue(rows: list[dict], records: list[changes.Change], kinds: dict, user=None) -> None:
    """Queue the requests the change records call for, once the write has committed."""
    hooks = triggers("webhooks", Webhook.objects.filter(enabled=True))
    if not hooks:
        return
    by_type = {kind.pk: kind for kind in kinds.values()}
    deliveries = [
        {
            "webhook": str(hook.pk),
            "payload": payload(row, change, by_type[row["changed_object_type_id"]].model),
        }
        for row, change in zip(rows, records, strict=True)
        for hook in hooks
        if hook.fires(change.action, row["changed_object_type_id"])
    ]
    if deliveries:
        transaction.on_commit(lambda: deliver.delay(deliveries))


def connect() -> None:
    watch(Webhook)


def payload(row: dict, change: changes.Change, model: str) -> dict:
    """The default body, as the reference sends it: the event, who and when, the object's
    data and its snapshots before and after."""
    return {
        "event": EVENTS[change.action],
        "timestamp": row["time"].isoformat(),
        "model": model,
        "username": row["user_name"],
        "request_id": str(row["request_id"]),
        "data": row["object_data"],
        "snapshots": {
            "prechange": change.before,
            "postchange": change.after,
            "differences": row["differences"],
        },
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


def send(hook: Webhook, body: dict) -> None:
    request = request_for(hook, body)
    if not hook.ssl_verification:
        context = ssl._create_unverified_context()  # the webhook's owner turned verification off
    else:
        context = ssl.create_default_context(cafile=hook.ca_file_path or None)
    try:
        with urllib.request.urlopen(request, timeout=settings.WEBHOOK_TIMEOUT, context=context) as response:
            response.read()
    except urllib.error.HTTPError as exc:
        raise OSError(f"HTTP {exc.code}") from None
