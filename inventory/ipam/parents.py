"""Namespaces and parents: the Global namespace objects belong to unless they name another, and
each prefix's, address's and address range's `parent`, the closest prefix of its namespace
containing it.

Parents are stored, so reads, filters and nesting treat them as any foreign key. Writes keep
them: a written prefix's span (where it is and where it was) and a written address are noted
while the write runs, and once its rows are stored every prefix and address in those spans is
given its closest parent by one UPDATE per table, however many objects the write holds.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import reduce

from django.apps import apps
from django.db import connections, router
from django.db.models import OuterRef, Q, Subquery

GLOBAL = "Global"
GLOBAL_DESCRIPTION = "Default Global namespace."

# What the current write changed: {"spans": {(namespace, version, first, last)}, "ids": {address
# ids}, "global": the Global namespace's id once read}; None outside a write.
_pending: ContextVar[dict | None] = ContextVar("ipam_pending_parents", default=None)


def model(name: str):
    return apps.get_model("ipam", name)


def default_namespace_id():
    """The Global namespace (made if missing): read once per write."""
    pending = _pending.get()
    if pending is not None and pending.get("global"):
        return pending["global"]
    namespace, _ = model("Namespace").objects.get_or_create(
        name=GLOBAL, defaults={"description": GLOBAL_DESCRIPTION}
    )
    if pending is not None:
        pending["global"] = namespace.pk
    return namespace.pk


def span_of(obj, namespace=None) -> tuple | None:
    """(namespace, version, first, last) of a prefix (an address: its host), None when unset.
    `namespace`: the one it is to be in, where it names none yet."""
    first = getattr(obj, "host_address", None) if hasattr(obj, "mask_length") else obj.network_address
    last = first if hasattr(obj, "mask_length") else obj.broadcast_address
    namespace = obj.namespace_id if namespace is None else namespace
    if namespace is None or obj.ip_version is None or first is None or last is None:
        return None
    return namespace, obj.ip_version, bytes(first), bytes(last)


@contextmanager
def reparent_later():
    """Around a write of prefixes or addresses (the models' `write_batch`): parents are given
    once, at its end."""
    if _pending.get() is not None:
        yield
        return
    token = _pending.set({"spans": set(), "ids": set()})
    try:
        yield
        pending = _pending.get()
    finally:
        _pending.reset(token)
    reparent(pending["spans"], pending["ids"])


def touched(obj, stored_span) -> None:
    """Note a written prefix (its spans, old and new) or address (itself)."""
    spans, ids = set(), set()
    if hasattr(obj, "mask_length"):
        ids.add(obj.pk)
    else:
        spans |= {s for s in (stored_span, span_of(obj)) if s is not None}
    pending = _pending.get()
    if pending is None:  # a save outside the engine's writes: at once
        reparent(spans, ids)
    else:
        pending["spans"] |= spans
        pending["ids"] |= ids


def deleted(sender, instance, **kwargs) -> None:
    """A deleted prefix's children (their parent now unset) take the next prefix up."""
    touched(instance, None)


def merged(spans) -> list[tuple]:
    """The spans with overlapping ones of a namespace and version joined, fewest conditions."""
    found: list[list] = []
    for namespace, version, first, last in sorted(spans):
        if found and found[-1][:2] == [namespace, version] and first <= found[-1][3]:
            found[-1][3] = max(found[-1][3], last)
        else:
            found.append([namespace, version, first, last])
    return [tuple(s) for s in found]


def any_of(queries) -> Q:
    return reduce(lambda a, b: a | b, queries, Q(pk__in=[]))


def closest_to(network: str, broadcast: str, length=None) -> Subquery:
    """The closest prefix of the outer row's namespace containing it (strictly: shorter, when
    `length` names the outer row's prefix length)."""
    rows = model("Prefix").objects.filter(
        namespace_id=OuterRef("namespace_id"),
        ip_version=OuterRef("ip_version"),
        network_address__lte=OuterRef(network),
        broadcast_address__gte=OuterRef(broadcast),
    )
    if length:
        rows = rows.filter(prefix_length__lt=OuterRef(length))
    return Subquery(rows.order_by("-prefix_length", "pk").values("pk")[:1])


def reparent(spans, ids) -> None:
    spans = merged(spans)
    if spans:
        prefixes = any_of(
            Q(namespace_id=n, ip_version=v, network_address__gte=a, broadcast_address__lte=b)
            for n, v, a, b in spans
        )
        model("Prefix").objects.filter(prefixes).update(
            parent=closest_to("network_address", "broadcast_address", "prefix_length")
        )
    addresses = any_of(
        Q(namespace_id=n, ip_version=v, host_address__gte=a, host_address__lte=b) for n, v, a, b in spans
    )
    if ids:
        addresses |= Q(pk__in=list(ids))
    if spans or ids:
        model("IPAddress").objects.filter(addresses).update(parent=closest_to("host_address", "host_address"))
    if spans:
        held = any_of(
            Q(namespace_id=n, ip_version=v, start_host_address__gte=a, end_host_address__lte=b)
            for n, v, a, b in spans
        )
        model("IPAddressRange").objects.filter(held).update(
            parent=closest_to("start_host_address", "end_host_address")
        )


def point_of(obj, namespace=None) -> tuple | None:
    """(namespace, version, first, last, shorter than) whose closest prefix is `obj`'s parent
    (a prefix's parent is shorter than it), None when unset; `namespace` as for `span_of`."""
    span = span_of(obj, namespace)
    if span is None:
        return None
    return (*span, None if hasattr(obj, "mask_length") else obj.prefix_length)


# The closest prefix containing a point, as `first_for_each` reads it.
CLOSEST = (
    "r.network_address <= v.a AND r.broadcast_address >= v.b AND (v.len IS NULL OR r.prefix_length < v.len)",
    "r.prefix_length DESC, r.id",
)


def closest(obj):
    """The id of the closest prefix of `obj`'s namespace containing it (None: none does): as
    its write's batch read it (`read_for_batch`), or read now."""
    point = point_of(obj)
    if point is None:
        return None
    return batch_read(obj, "closest", point, lambda: first_for_each("Prefix", *CLOSEST, [point])[point])


def batch_read(obj, kind: str, key, read):
    """What the object's batch read for `key` before its objects were cleaned, or `read()`."""
    reads = getattr(obj, "batch_reads", None)
    if reads is not None and (kind, key) in reads:
        return reads[(kind, key)]
    return read()


def read_for_batch(objects: list, kind: str, found: dict) -> None:
    """Keep `found` ({key: answer}) for the checks of the batch's objects (`batch_read`), in one
    place they share."""
    if not objects:
        return
    reads = getattr(objects[0], "batch_reads", None)
    if reads is None:
        reads = {}
        for obj in objects:
            obj.batch_reads = reads
    reads.update(((kind, key), answer) for key, answer in found.items())


def read_for_clean(objects: list, required: bool) -> None:
    """What the objects' `check_parent` reads, for a whole batch before its objects are
    cleaned: the closest prefix of each object whose parent is checked (one statement), and
    for those it refuses, the namespace and expected parent their errors name (two more).
    `required`: a parent is, in a namespace the write names."""
    asked = []
    for obj in objects:
        named, parent_named, namespace = obj.parent_question()
        point = point_of(obj, namespace) if named or parent_named else None
        if point is not None:
            asked.append((obj, point, parent_named))
    if not asked:
        return
    found = first_for_each("Prefix", *CLOSEST, [point for _, point, _ in asked])
    read_for_batch(objects, "closest", found)
    refused = [
        (point[0], found[point])
        for obj, point, parent_named in asked
        if parent_named and found[point] != obj.parent_id or found[point] is None and required
    ]
    if refused:
        namespaces = model("Namespace").objects.in_bulk({namespace for namespace, _ in refused})
        prefixes = model("Prefix").objects.in_bulk({prefix for _, prefix in refused if prefix is not None})
        read_for_batch(objects, "namespace", {n: namespaces.get(n) for n, _ in refused})
        read_for_batch(objects, "prefix", {p: prefixes.get(p) for _, p in refused})


def first_for_each(model_name: str, where: str, order: str, points: list[tuple]) -> dict:
    """{point: the id of the first row (by `order`) of the model in the point's namespace and
    version that `where` takes, or None} for points (namespace, version, first, last, shorter
    than or None): one statement for them all, where a query each costs a round trip each.
    `where` and `order` are SQL over the row `r` and the point `v` (columns a, b, len)."""
    points = list(dict.fromkeys(points))
    target = model(model_name)
    connection = connections[router.db_for_read(target)]
    quote = connection.ops.quote_name
    prefix = model("Prefix")._meta
    fields = [
        prefix.get_field(n) for n in ("namespace", "ip_version", "network_address", "broadcast_address")
    ]
    fields.append(prefix.get_field("prefix_length"))
    # PostgreSQL reads VALUES as text unless told each column's type.
    typed = connection.vendor == "postgresql"
    marks = ", ".join(["%s", *(f"%s::{f.db_type(connection)}" if typed else "%s" for f in fields)])
    limit = connection.features.max_query_params
    size = max(1, limit // (len(fields) + 1)) if limit else len(points) or 1
    found = {}
    pk = target._meta.pk
    for start in range(0, len(points), size):
        chunk = points[start : start + size]
        sql = (
            f"WITH v(n, ns, ver, a, b, len) AS (VALUES {', '.join([f'({marks})'] * len(chunk))}) "
            f"SELECT v.n, (SELECT r.{quote(pk.column)} FROM {quote(target._meta.db_table)} r "
            f"WHERE r.namespace_id = v.ns AND r.ip_version = v.ver AND {where} ORDER BY {order} LIMIT 1) FROM v"
        )
        params = [
            value
            for n, point in enumerate(chunk, start)
            for value in (
                n,
                *(f.get_db_prep_value(v, connection) for f, v in zip(fields, point, strict=True)),
            )
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            for n, found_pk in cursor.fetchall():
                found[points[n]] = None if found_pk is None else pk.to_python(found_pk)
    return found


def create_global_namespace(apps, schema_editor):
    """The namespace every VRF, prefix and address goes in unless told otherwise: a new
    database starts with it (migrations build new databases)."""
    apps.get_model("ipam", "Namespace").objects.using(schema_editor.connection.alias).get_or_create(
        name=GLOBAL, defaults={"description": GLOBAL_DESCRIPTION}
    )


def tree(prefixes: list[tuple], addresses: list[tuple]) -> tuple[dict, dict]:
    """Parents worked out in memory, for existing data: `prefixes` as (id, namespace, version,
    network, broadcast, length), `addresses` as (id, namespace, version, host); returns
    ({prefix id: parent id}, {address id: parent id}). One sort and one sweep each."""
    found, owners = {}, {}
    stack: list[tuple] = []  # each entry contains the next: the top is the closest
    for pk, namespace, version, _network, broadcast, length in sorted(prefixes, key=_place):
        broadcast = bytes(broadcast)
        while stack and (
            stack[-1][1:3] != (namespace, version) or stack[-1][3] < broadcast or stack[-1][4] >= length
        ):
            stack.pop()
        found[pk] = stack[-1][0] if stack else None
        stack.append((pk, namespace, version, broadcast, length))
    events = sorted(
        [((*_place(p)[:3], 0, p[5]), p) for p in prefixes]
        + [((str(a[1]), a[2], bytes(a[3]), 1, 0), a) for a in addresses],
        key=lambda e: e[0],
    )
    stack = []
    for key, row in events:
        namespace, version, start = key[0], key[1], key[2]
        while stack and (stack[-1][0:2] != (namespace, version) or stack[-1][2] < start):
            stack.pop()
        if key[3] == 0:
            stack.append((namespace, version, bytes(row[4]), row[0]))
        else:
            owners[row[0]] = stack[-1][3] if stack else None
    return found, owners


def _place(prefix: tuple) -> tuple:
    """Sorted by namespace, version and network, larger blocks first: a block's ancestors come
    before it."""
    return str(prefix[1]), prefix[2], bytes(prefix[3]), prefix[5]
