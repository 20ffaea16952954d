"""API versions (spec §9). Every difference between versions is a row of `CHANGES`."""

from __future__ import annotations

import orjson

SUPPORTED = ("1.2", "1.3", "1.4", "2.0", "2.1", "2.2", "2.3", "2.4", "3.0", "3.1", "3.2")
# A client that names no version gets the newest (spec §9.3, 2.0 onward); 1.x clients name theirs.
DEFAULT = SUPPORTED[-1]

# feature -> first version that has it. What changes per resource and field within 1.x (an
# interface's status from 1.3) is declared with the resource (registry.Legacy.since).
CHANGES = {
    "relationships_include": "1.4",  # ?include=relationships
    # depth replaces brief and the 1.x nested serializers; no slugs, no ?exclude=config_context
    # (config contexts come with ?include=config_context); custom fields filter by key.
    "depth": "2.0",
    "exclude_m2m_parameter": "2.4",  # ?exclude_m2m=true|false is honoured
    "exclude_m2m_by_default": "3.0",  # many-to-many fields are left out unless exclude_m2m=false
    # VLANs and prefixes hold several locations, shown as `locations` (and a prefix's `vrfs`
    # beside them); before, one `location` was shown and written (resources declare theirs:
    # Resource.versioned).
    "multiple_locations": "2.2",
}
# `include=` values each version takes (beyond those it takes from the start).
INCLUDE_SINCE = {"relationships": "relationships_include"}
# Many-to-many fields shown even when the others are excluded by default.
ALWAYS_SHOWN_M2M = frozenset({"tags", "content_types", "object_types"})


class VersionError(Exception):
    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def has(version: str, feature: str) -> bool:
    return _key(version) >= _key(CHANGES[feature])


def legacy(version: str) -> bool:
    """A 1.x version: nested serializers, `brief`, slugs (spec §9.9)."""
    return not has(version, "depth")


def includes(version: str, names) -> frozenset[str]:
    """The `include=` values a version takes, of those given."""
    return frozenset(n for n in names if n not in INCLUDE_SINCE or has(version, INCLUDE_SINCE[n]))


def accept_version(accept: str) -> str | None:
    """The `version=` parameter of an `application/json` Accept entry (trailing `;` allowed)."""
    for entry in accept.split(","):
        media, *params = (p.strip() for p in entry.split(";"))
        if media in ("application/json", "*/*", "application/*"):
            for param in params:
                name, _, value = param.partition("=")
                if name.strip() == "version" and value.strip():
                    return value.strip()
    return None


def negotiate(accept: str, query_version: str | None) -> str:
    supported = ", ".join(SUPPORTED)
    header_version = accept_version(accept)
    if header_version is not None and header_version not in SUPPORTED:
        raise VersionError(
            406, f'Invalid version "{header_version}" in "Accept" header. Supported versions are: {supported}'
        )
    if query_version is not None and query_version not in SUPPORTED:
        raise VersionError(
            404, f'Invalid version "{query_version}" in query parameter. Supported versions are: {supported}'
        )
    if header_version and query_version and header_version != query_version:
        raise VersionError(400, 'Version mismatch between "Accept" header and query parameter.')
    return header_version or query_version or DEFAULT


def shows(version: str, bounds: tuple[str | None, str | None]) -> bool:
    """Whether a version shows a field declared with (feature since, feature until)."""
    since, until = bounds
    return (since is None or has(version, since)) and (until is None or not has(version, until))


def versioned_fields(version: str, resource, shown: frozenset[str]) -> frozenset[str]:
    """The optional fields `shown` (many-to-many lists, `include=` values), less the versioned
    ones this version does not show, with the write-only ones it shows (2.0's `location`)."""
    if not resource.versioned or legacy(version):  # 1.x shapes are declared on their own
        return shown
    hidden = {name for name, bounds in resource.versioned.items() if not shows(version, bounds)}
    added = {name for name in resource.versioned if name in resource.write_only} - hidden
    # One object of a list is read as the list (reshaped by `single_values`).
    added = {resource.single_of.get(name, name) for name in added}
    return frozenset((shown - hidden) | added)


SEVERAL = (
    "This object has multiple {0} and so cannot be represented in the {1} REST API. "
    "Please correct the data or use a later API version."
)


class SeveralValues(Exception):
    """An object whose list holds several values where a version shows one (412)."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


def single_values(version: str, resource, rows: list) -> list:
    """Rows whose versioned single fields (Resource.single_of) this version shows, each the one
    object of its list: null for none, SeveralValues for more than one."""
    if not resource.single_of or legacy(version):
        return rows
    pairs = [
        (name, many)
        for name, many in resource.single_of.items()
        if name in resource.versioned and shows(version, resource.versioned[name])
    ]
    if not pairs:
        return rows
    shaped = []
    for row in rows:
        if isinstance(row, orjson.Fragment):  # built as JSON by the database
            row = orjson.loads(orjson.dumps(row))
        for name, many in pairs:
            values = row.pop(many, None) or []
            if len(values) > 1:
                bounds = resource.versioned[name]
                versions = [v for v in SUPPORTED if not legacy(v) and shows(v, bounds)]
                raise SeveralValues(SEVERAL.format(many.replace("_", " ").title(), " or ".join(versions)))
            row[name] = values[0] if values else None
        shaped.append(row)
    return shaped


def shown_many_to_many(version: str, fields: tuple[str, ...], exclude_m2m: str | None) -> frozenset[str]:
    """Which many-to-many fields a top-level object shows for this version and parameter."""
    if has(version, "exclude_m2m_parameter") and exclude_m2m is not None:
        if exclude_m2m.strip().lower() in ("true", "1", "yes", "on"):
            return frozenset()
        if exclude_m2m.strip().lower() in ("false", "0", "no", "off"):
            return frozenset(fields)
    if has(version, "exclude_m2m_by_default"):
        return frozenset(f for f in fields if f in ALWAYS_SHOWN_M2M)
    return frozenset(fields)
