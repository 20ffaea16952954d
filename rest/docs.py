"""The OpenAPI document where clients look for it (as the reference serves it), Swagger UI, ReDoc
and the files these pages and GraphiQL load, all served by the service itself."""

from __future__ import annotations

import hashlib
import mimetypes
from functools import cache
from pathlib import Path

import orjson
from django.conf import settings
from django.http import FileResponse, Http404, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render as render_template
from django.utils._os import safe_join
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie

from . import openapi, versioning, yamltext

# Asset folders by URL prefix: Swagger UI and ReDoc from an installed package, GraphiQL from the
# files `bin/fetch-assets` takes from the npm registry at build time, and the pages' own scripts
# and styles (no inline ones: config/security.py).
_SIDECAR = Path(__import__("drf_spectacular_sidecar").__file__).parent / "static" / "drf_spectacular_sidecar"
ASSET_ROOTS = {
    "swagger-ui": _SIDECAR / "swagger-ui-dist",
    "redoc": _SIDECAR / "redoc" / "bundles",
    "graphiql": Path(__file__).parent / "assets" / "graphiql",
    "pages": Path(__file__).parent / "pages",
}
ASSETS_URL = "/api/docs/assets/"
MEDIA_TYPES = {"json": "application/vnd.oai.openapi+json", "yaml": "application/vnd.oai.openapi"}
# A document asked for in a format its path does not serve: the reference's 404, written by the
# path's first format (YAML by default: the reference writes its error detail in that odd form).
NOT_FOUND = {
    "json": b'{"detail":"Not found."}',
    "yaml": b"detail:\n  string: Not found.\n  code: not_found\n",
}


def _version(request) -> str:
    return versioning.negotiate(request.META.get("HTTP_ACCEPT", ""), request.GET.get("api_version"))


def _version_error(exc: versioning.VersionError) -> HttpResponse:
    return HttpResponse(
        orjson.dumps({"detail": exc.detail}), status=exc.status, content_type="application/json"
    )


@cache
def rendered(version: str, fmt: str, part: str = "") -> tuple[bytes, str]:
    """The document's bytes in one format and their entity tag (built once per process); with a
    part ("dcim" or "dcim/devices"), only its paths and the components they use."""
    document = openapi.document(version)
    if part:
        document = document_part(document, part)
    body = orjson.dumps(document) if fmt == "json" else yamltext.dump(document).encode()
    return body, f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'


def endpoints_by_application(document: dict) -> dict[str, list[str]]:
    """{application: [endpoint, ...]} as the document's paths name them."""
    found: dict[str, list[str]] = {}
    for path in document["paths"]:
        segments = path.strip("/").split("/")
        if len(segments) == 2:
            found.setdefault(segments[0], []).append(segments[1])
        elif len(segments) > 2:
            found.setdefault(segments[0], [])
    return {app: sorted(found[app]) for app in sorted(found)}


def requested_part(request, version: str) -> str:
    """The part of the document `?app=` and `?endpoint=` ask for ("" for the whole); ApiError's
    400 names the valid ones."""
    app, endpoint = request.GET.get("app", ""), request.GET.get("endpoint", "")
    if not app and not endpoint:
        return ""
    served = endpoints_by_application(openapi.document(version))
    if app not in served:
        raise PartUnknown(f"Unknown application {app!r}: one of {', '.join(served)}.")
    if endpoint and endpoint not in served[app]:
        raise PartUnknown(f"Unknown endpoint {endpoint!r} of {app}: one of {', '.join(served[app])}.")
    return f"{app}/{endpoint}" if endpoint else app


class PartUnknown(Exception):
    pass


def document_part(document: dict, part: str) -> dict:
    """The document cut to one application or endpoint: its paths and, followed through every
    `$ref`, the components they use. ReDoc renders a whole document at once, and the whole API's
    (megabytes of paths, thousands of filter parameters) stalls a browser tab."""
    paths = {path: item for path, item in document["paths"].items() if path.startswith(f"/{part}/")}
    components = document.get("components", {})
    used: dict[str, dict] = {}
    pending: list = [paths]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            target = node.get("$ref")
            if isinstance(target, str) and target.startswith("#/components/"):
                section, name = target.split("/")[2:4]
                if name not in used.setdefault(section, {}):
                    used[section][name] = components[section][name]
                    pending.append(components[section][name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    info = {**document["info"], "title": f"{document['info']['title']}: {part}"}
    return {**document, "info": info, "paths": paths, "components": used}


class SchemaView:
    """The document: `fmt` fixed (swagger.json, swagger.yaml) or chosen by ?format=json|yaml;
    any other format is not found there, as the reference answers."""

    documented = False  # the docs' own routes are not part of the API they describe

    def __init__(self, fmt: str | None = None):
        self.fmt = fmt

    def __call__(self, request) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return HttpResponse(status=405, headers={"Allow": "GET, HEAD"})
        try:
            version = _version(request)
        except versioning.VersionError as exc:
            return _version_error(exc)
        served = (self.fmt,) if self.fmt else ("yaml", "json")
        fmt = request.GET.get("format") or served[0]
        if fmt not in served:
            return HttpResponse(
                NOT_FOUND[served[0]],
                status=404,
                content_type=f"{MEDIA_TYPES[served[0]]}; charset=utf-8",
                headers={"Vary": "Accept", "Allow": "GET, HEAD"},
            )
        try:
            part = requested_part(request, version)
        except PartUnknown as exc:
            return HttpResponse(
                orjson.dumps({"detail": str(exc)}), status=400, content_type="application/json"
            )
        body, etag = rendered(version, fmt, part)
        headers = {"ETag": etag, "API-Version": version, "Vary": "Accept", "Allow": "GET, HEAD"}
        if request.META.get("HTTP_IF_NONE_MATCH") == etag:
            return HttpResponse(status=304, headers=headers)
        headers["Content-Disposition"] = f'inline; filename="NetInventory API ({version}).{fmt}"'
        response = HttpResponse(body, content_type=MEDIA_TYPES[fmt], headers=headers)
        if request.method == "HEAD":
            response["Content-Length"] = str(len(body))
            response.content = b""
        return response


class PageView:
    """An HTML page over the document (Swagger UI or ReDoc) for the version asked for."""

    documented = False

    def __init__(self, template: str, inline_styles: bool = False, per_endpoint: bool = False):
        self.template = template
        self.inline_styles = inline_styles
        self.per_endpoint = per_endpoint

    @method_decorator(ensure_csrf_cookie)  # "Try it out" as a signed-in browser sends it back
    def __call__(self, request) -> HttpResponse:
        if request.GET.get("format") == "openapi":
            # Older clients (pynautobot's openapi(), the Ansible inventory) read the document here;
            # the reference redirects them to the JSON document (keeping the version asked for
            # here) when they accept its media type, and refuses them otherwise.
            if not accepts(request.META.get("HTTP_ACCEPT", ""), MEDIA_TYPES["json"]):
                return HttpResponse(
                    b"406 Not Acceptable", status=406, content_type="text/html; charset=utf-8"
                )
            query = request.GET.copy()
            query.pop("format")
            suffix = f"?{query.urlencode()}" if query else ""
            return HttpResponsePermanentRedirect(f"/api/swagger.json{suffix}")
        try:
            version = _version(request)
        except versioning.VersionError as exc:
            return _version_error(exc)
        context = {
            "assets": ASSETS_URL,
            "schema_url": f"/api/swagger.json?api_version={version}",
            "version": version,
            "versions": versioning.SUPPORTED,
        }
        if self.per_endpoint:
            served = endpoints_by_application(openapi.document(version))
            apps = [app for app, endpoints in served.items() if endpoints]
            app = request.GET.get("app") if request.GET.get("app") in apps else apps[0]
            endpoint = request.GET.get("endpoint")
            endpoint = endpoint if endpoint in served[app] else served[app][0]
            context |= {
                "app": app,
                "apps": apps,
                "endpoint": endpoint,
                "endpoints": served[app],
                "schema_url": f"{context['schema_url']}&app={app}&endpoint={endpoint}",
            }
        response = render_template(request, self.template, context)
        response["API-Version"] = version
        if self.inline_styles:
            response["Content-Security-Policy"] = policy_with_inline_styles()
        return response


def accepts(accept: str, media_type: str) -> bool:
    """Whether an Accept header admits a media type (itself, its `type/*` or `*/*`, without
    parameters of its own but a weight); no header admits anything."""
    main = media_type.split("/")[0]
    ranges = [entry.strip() for entry in accept.split(",") if entry.strip()] or ["*/*"]
    for entry in ranges:
        kind, *parameters = (part.strip().lower() for part in entry.split(";"))
        if any(not p.startswith("q=") for p in parameters):
            continue
        if kind in (media_type, f"{main}/*", "*/*"):
            return True
    return False


@cache
def policy_with_inline_styles() -> str:
    """The service's Content-Security-Policy, but for styles written into the page: ReDoc renders
    its styles as <style> elements (styled-components). Its scripts stay the service's own."""
    directives = {**settings.CONTENT_SECURITY_POLICY, "style-src": "'self' 'unsafe-inline'"}
    return "; ".join(f"{name} {sources}" for name, sources in directives.items())


def asset(request, name: str) -> FileResponse:
    """A file of Swagger UI, ReDoc or GraphiQL, cacheable for a day."""
    prefix, _, rest = name.partition("/")
    root = ASSET_ROOTS.get(prefix)
    if root is None or not rest:
        raise Http404("Not found.")
    try:
        path = Path(safe_join(root, rest))
    except Exception:
        raise Http404("Not found.") from None
    if not path.is_file():
        raise Http404("Not found.")
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    response = FileResponse(path.open("rb"), content_type=media_type)
    response["Cache-Control"] = "public, max-age=86400"
    return response


asset.documented = False
