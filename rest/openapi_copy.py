"""The committed copy of the OpenAPI document: the contract a reviewer sees change in a diff and
a client can generate code from without running the service. `manage.py openapi` writes it; a
test fails when the registry and the copy disagree.

The default (newest) version is kept; another is checked too once its copy is written with
`--api-version`. Each document is ~6 MB, and the older ones differ from the newest only by the
rows of `versioning.CHANGES`, which the tests check on their own.
"""

from __future__ import annotations

from pathlib import Path

import orjson
from django.conf import settings

from . import openapi, versioning

FOLDER = Path(settings.BASE_DIR) / "docs" / "openapi"
COMMAND = "python manage.py openapi"


def path_of(version: str) -> Path:
    return FOLDER / f"{version}.json"


def committed_versions() -> list[str]:
    """The default version, and any other whose copy someone chose to keep."""
    kept = [v for v in versioning.SUPPORTED if v != versioning.DEFAULT and path_of(v).exists()]
    return [versioning.DEFAULT, *kept]


def text(version: str) -> bytes:
    """The document as committed: indented, so that a change reads as a few lines of a diff."""
    return orjson.dumps(openapi.document(version), option=orjson.OPT_INDENT_2) + b"\n"


def _shown(path: Path) -> str:
    return str(path.relative_to(settings.BASE_DIR)) if path.is_relative_to(settings.BASE_DIR) else str(path)


def differences(version: str = versioning.DEFAULT, limit: int = 10) -> list[str]:
    """What differs between the generated document and its committed copy (empty: nothing),
    named by path, component or top-level key, so the failure says where to look."""
    path = path_of(version)
    if not path.exists():
        return [f"{_shown(path)} is missing"]
    committed, generated = path.read_bytes(), text(version)
    if committed == generated:
        return []
    try:
        old = orjson.loads(committed)
    except orjson.JSONDecodeError:
        return [f"{_shown(path)} is not JSON"]
    new = orjson.loads(generated)
    sections = {"paths": (old.pop("paths", {}), new.pop("paths", {}))}
    before, after = old.pop("components", {}), new.pop("components", {})
    for part in before.keys() | after.keys():  # schemas, parameters, responses, …
        sections[f"components/{part}"] = (before.get(part, {}), after.get(part, {}))
    sections[""] = (old, new)  # info, servers, security
    found = []
    for section, (before, after) in sections.items():
        where = f"{section}: " if section else ""
        for key in before.keys() | after.keys():
            if key not in before:
                found.append(f"{where}{key} added")
            elif key not in after:
                found.append(f"{where}{key} removed")
            elif before[key] != after[key]:
                found.append(f"{where}{key} changed")
    return sorted(found)[:limit] or ["the formatting differs"]
