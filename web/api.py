"""How the object pages talk to the public API, as the signed-in user: GraphQL for reads (the one
schema the API runs on, with the user's permissions) and the REST endpoints themselves for writes
and detail reads, so a page shows exactly what the API answers, its validation messages included."""

from __future__ import annotations

import copy
from urllib.parse import urlencode

import orjson
from django.core.files.base import File
from django.http import QueryDict
from django.urls import resolve
from django.utils.datastructures import MultiValueDict

from queryengine import engine
from queryengine.errors import ValidationFailed
from queryengine.schema import RequestContext


def graphql(request, document: str, variables: dict | None = None) -> dict:
    """The data of a document run as the user; a resolver's error (a bad filter value, a denied
    permission) is raised as itself."""
    context = RequestContext(user=request.user, base_url=request.build_absolute_uri("/api/"))
    result = engine.run(document, variables or {}, context)
    if result.errors:
        raise result.errors[0].original_error or ValidationFailed({"detail": [result.errors[0].message]})
    return orjson.loads(orjson.dumps(result.data))  # compiled results hold ready-made JSON fragments


def rest(request, method: str, path: str, params: dict | None = None, body=None) -> tuple[int, object]:
    """(status, parsed JSON body) of an API request made with this browser's session. The page's
    own request passed the CSRF check (the views are csrf_protect), which the copy carries."""
    call = copy.copy(request)
    call.method = method
    call.path = call.path_info = path
    query = urlencode(params or {}, doseq=True)
    call.GET = QueryDict(query)
    call.POST = QueryDict()
    call.META = {
        **request.META,
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "HTTP_ACCEPT": "application/json",
        "CONTENT_TYPE": "application/json",
    }
    call.META.pop("HTTP_IF_MATCH", None)
    call.META.pop("HTTP_IF_NONE_MATCH", None)
    call._body = orjson.dumps(body) if body is not None and not form(body) else b""
    if body is not None and form(body):  # a form with files (an image), as a client sends it
        call.META["CONTENT_TYPE"] = "multipart/form-data"
        call.POST = QueryDict(mutable=True)
        call._files = MultiValueDict()
        for name, value in body.items():
            if isinstance(value, File):
                call._files[name] = value
            elif isinstance(value, list):  # a list's items, each a field of the name
                call.POST.setlist(name, [str(item) for item in value])
            elif value is not None:  # unset: left as it is
                call.POST[name] = str(value).lower() if isinstance(value, bool) else str(value)
    match = resolve(path)
    response = match.func(call, *match.args, **match.kwargs)
    content = response.content
    return response.status_code, orjson.loads(content) if content else None


def form(body) -> bool:
    """Whether a write carries files: sent as a multipart form rather than JSON."""
    return isinstance(body, dict) and any(isinstance(value, File) for value in body.values())


def api_path(url: str | None) -> str | None:
    """The page of an object an API URL names: /api/dcim/devices/<id>/ -> /dcim/devices/<id>/."""
    if not url:
        return None
    at = url.find("/api/")
    return url[at + 4 :] if at >= 0 else None
