"""What answers a path no endpoint serves: one without its trailing slash, or an unknown one."""

from __future__ import annotations

from django.http import HttpResponse, HttpResponseRedirect
from django.http.response import HttpResponseRedirectBase

from .render import dumps


def missing_slash(request, path: str):
    """Spec §4.1: a path without its trailing slash redirects (302) to the slashed one. A 302
    is followed with a GET, which would lose a write: other methods get a 308, which clients
    follow with the same method and body."""
    query = request.META.get("QUERY_STRING", "")
    url = f"/api/{path}/" + (f"?{query}" if query else "")
    if request.method in ("GET", "HEAD"):
        return HttpResponseRedirect(url)
    detail = {"detail": f"This URL ends with a slash: {request.method} {url}"}
    return WriteRedirect(url, content=dumps(detail), content_type="application/json")


class WriteRedirect(HttpResponseRedirectBase):
    status_code = 308


def unknown_endpoint(request, path: str = ""):
    detail = "Not found. The API's endpoints are listed at /api/ and in /api/docs/."
    return HttpResponse(dumps({"detail": detail}), status=404, content_type="application/json")
