"""Stored files at MEDIA_URL (`/media/image-attachments/<name>`, the URL an image's `image` field
shows): handed out only to callers who may see the object holding the file and the objects that
object belongs to (an image's parent), signed in by API token or browser session (or anyone,
where EXEMPT_VIEW_PERMISSIONS lets them read both through the API). Never served as static
files: MEDIA_ROOT is not a public directory.

A file is found by its stored name, which the service generated (queryengine.uploads): the name
in the URL is only ever compared with stored names, never joined to a path the client chose. It
is sent with the media type of the format its content was checked to be, as an inline file
(`X-Content-Type-Options: nosniff` and the site's Content-Security-Policy apply, as everywhere).
"""

from __future__ import annotations

from functools import cache

import orjson
from django.http import FileResponse, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from queryengine.errors import PermissionDenied
from queryengine.permissions import can_view, restricted
from queryengine.registry import FILE, GENERIC, Resource, resource_by_object_type, resources

from . import throttle
from .auth import AuthenticationFailed, authenticate, no_credentials


def _answer(status: int, detail: str, **headers) -> HttpResponse:
    response = HttpResponse(orjson.dumps({"detail": detail}), status=status, content_type="application/json")
    for name, value in headers.items():
        response[name] = value
    return response


@cache
def file_fields() -> tuple[tuple[Resource, object], ...]:
    """(resource, file field) of every field holding stored files below a fixed directory."""
    return tuple(
        (resource, spec.model_field)
        for resource in resources()
        for spec in resource.current_fields
        if spec.kind == FILE and isinstance(spec.model_field.upload_to, str) and spec.model_field.upload_to
    )


def holders(name: str) -> list[tuple[Resource, object]]:
    """The file fields that may hold a stored file of this name: those storing below the name's
    directory (an image attachment's `image-attachments/`)."""
    return [(resource, field) for resource, field in file_fields() if name.startswith(field.upload_to)]


def attached_to_visible(resource: Resource, obj, user) -> bool:
    """Whether the user may see every object `obj` belongs to through its generic relations that
    name their targets (an image's parent)."""
    for spec in resource.current_fields:
        if spec.kind != GENERIC or not spec.targets:
            continue
        type_field, id_field = spec.columns
        kind, pk = getattr(obj, type_field), getattr(obj, id_field)
        target = resource_by_object_type(f"{kind.app_label}.{kind.model}") if kind is not None else None
        if target is None or not restricted(target, user).filter(pk=pk).exists():
            return False
    return True


@csrf_exempt  # GET and HEAD only: nothing to forge
def media_file(request, name: str) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return _answer(405, f'Method "{request.method}" not allowed.', Allow="GET, HEAD")
    try:
        user, _token = authenticate(request, session=True)
    except AuthenticationFailed as exc:
        return _answer(403, exc.detail)
    except throttle.Throttled as exc:
        return _answer(429, exc.detail, **{"Retry-After": str(exc.retry_after)})
    for resource, model_field in holders(name):
        if not can_view(resource, user):  # as the API answers (EXEMPT_VIEW_PERMISSIONS applies)
            return _answer(
                403, PermissionDenied().detail if user.is_authenticated else no_credentials(request)
            )
        obj = resource.model._default_manager.filter(**{model_field.name: name}).first()
        if obj is None:
            continue
        visible = restricted(resource, user).filter(pk=obj.pk).exists()
        if not visible or not attached_to_visible(resource, obj, user):
            break  # as the API answers an object the caller may not see: not found
        try:
            stored = model_field.storage.open(name, "rb")
        except FileNotFoundError:
            break
        media_type = getattr(model_field, "media_type", None)
        response = FileResponse(
            stored,
            content_type=media_type(name) if media_type else "application/octet-stream",
            filename=name.rsplit("/", 1)[-1],
            as_attachment=media_type is None,
        )
        response["Cache-Control"] = "private, no-cache"  # permissions may change: asked each time
        return response
    return _answer(404, "Not found.")
