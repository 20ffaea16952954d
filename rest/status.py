"""`/api/status/`: every key the reference server's status carries, with this server's values.

Tools read it to learn what they talk to: `nautobot-version` is the Nautobot release whose REST
API this server speaks (its newest API version as a release number), not an installed Nautobot;
`netinventory-version` is this server's own release. No Nautobot apps or plugins run here, and
no background workers exist (every write completes within its request), so those read empty / 0.
"""

from __future__ import annotations

import platform
from importlib import metadata

import django
from django.conf import settings

from . import versioning
from .parameters import ACTION_SHAPE
from .views import Endpoint, require_view


def _package_version(app: str) -> str | None:
    """The installed distribution's version for an app that is a package of its own (as the
    reference reports), None for the parts of a larger package (django.contrib.*, our apps)."""
    if "." in app:
        return None
    try:
        return metadata.version(app.replace("_", "-"))
    except metadata.PackageNotFoundError:
        return None


def _own_version() -> str:
    try:
        return metadata.version("netinventory")
    except metadata.PackageNotFoundError:
        return "0.1.0"


STRING, APPS = (
    {"type": "string"},
    {"type": "object", "additionalProperties": {"type": "string", "nullable": True}},
)


class StatusEndpoint(Endpoint):
    """The server's versions, apps and workers."""

    query_parameters = ACTION_SHAPE

    response_schema = {
        "type": "object",
        "properties": {
            "django-version": STRING,
            "installed-apps": APPS,
            "nautobot-version": STRING,
            "nautobot-apps": APPS,
            "plugins": APPS,
            "python-version": STRING,
            "celery-workers-running": {"type": "integer"},
            "netinventory-version": STRING,
            "api-versions": {"type": "array", "items": STRING},
            "default-api-version": STRING,
        },
    }

    def get(self, request):
        require_view(None, request)
        newest = max(versioning.SUPPORTED, key=lambda v: tuple(int(part) for part in v.split(".")))
        return {
            "django-version": django.get_version(),
            "installed-apps": {app: _package_version(app) for app in sorted(settings.INSTALLED_APPS)},
            "nautobot-version": f"{newest}.0",
            "nautobot-apps": {},
            "plugins": {},
            "python-version": platform.python_version(),
            "celery-workers-running": 0,
            "netinventory-version": _own_version(),
            "api-versions": list(versioning.SUPPORTED),
            "default-api-version": versioning.DEFAULT,
        }, 200
