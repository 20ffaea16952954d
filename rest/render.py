"""Response rendering: JSON through orjson, or a readable HTML page for browsers."""

from __future__ import annotations

import html

import orjson
from django.http import HttpResponse

from queryengine.scalars import dumps

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} – NetInventory API</title>
<link rel="stylesheet" href="/api/docs/assets/pages/browsable.css"></head>
<body><h1>{title}</h1><p class="meta">{method} {path} &mdash; HTTP {status} &middot; API version {version}</p>
<pre>{body}</pre></body></html>"""


def render(request, data, status: int, fmt: str, headers: dict, resource=None) -> HttpResponse:
    if isinstance(data, HttpResponse):  # a file (an export), sent as it is
        response = data
    elif data is None:
        response = HttpResponse(status=status)
    elif fmt == "html":
        # Parsed once more so that rows the plans wrote as JSON text are indented too.
        data = orjson.loads(dumps(data))
        pretty = html.escape(dumps(data, pretty=True).decode())
        # Make the URLs in the page followable.
        pretty = _link_urls(pretty)
        title = page_title(resource, request, data)
        page = PAGE.format(
            title=html.escape(title),
            method=request.method,
            path=html.escape(request.get_full_path()),
            status=status,
            version=headers.get("API-Version", ""),
            body=pretty,
        )
        response = HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
    else:
        response = HttpResponse(dumps(data), status=status, content_type="application/json")
    for name, value in headers.items():
        response[name] = value
    return response


def page_title(resource, request, data) -> str:
    """The browsable page's title: the model's name for its list ("IP addresses"), the
    object's for its detail ("Device: edge-01"), the model's and the action's below it
    ("Interface trace"); the path's last part elsewhere."""
    action = request.path.strip("/").split("/")[-1].replace("-", " ")
    if resource is None:
        return capitalized(action) if action != "api" else "API root"
    meta = resource.model._meta
    if isinstance(data, dict) and "display" in data and "results" not in data:
        return f"{capitalized(str(meta.verbose_name))}: {data['display']}"
    if action == resource.endpoint.replace("-", " "):
        return capitalized(str(meta.verbose_name_plural))
    return f"{capitalized(str(meta.verbose_name))} {action}"


def capitalized(text: str) -> str:
    """First letter up, the rest as written ("IP addresses", not "Ip addresses")."""
    return text[:1].upper() + text[1:]


def _link_urls(text: str) -> str:
    import re

    return re.sub(r"&quot;(https?://[^&\s]+)&quot;", r'&quot;<a href="\1">\1</a>&quot;', text)
