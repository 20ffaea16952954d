"""`natural_slug`: the reference's readable label of an object, made of its natural key.

The natural key is the values that name an object (a device's name, tenant and location; an
interface's device, module and name), a related object standing for its own natural key, in the
order the reference uses. Each value is slugified, trailing unset values are dropped, the first
four characters of the id (an integer id whole) are added and the pieces are joined with "_":
`leaf1__ams1___eth0_3f2a`. A label for people, lossy and not unique: never parsed or looked up.

Which fields make the key: the model's `natural_key_field_names` when it declares them (as the
reference's models do where their uniqueness rules would pick others), else its first unique
constraint, unique_together, or unique field (1.x-only slugs aside), else the id. A tree whose
key is a name within its parent (locations) stands for its whole branch: its name, its parent's
and so on up, one value per level of the deepest branch wherever more values follow (the
reference pads to its tree's depth).

Only what the reader may view is named: a related object they may not view stands for its whole
key as its id (as a reference shows it, and CSV's natural-key columns), and a branch ends at the
first node they may not view, with its id. The slug stays the same in REST, GraphQL and CSV,
keeps related objects apart (a hidden tenant never reads as none) and does not change when the
hidden object is renamed or moved.

The values are read with the object's row (joined columns: SQL per list does not grow with the
page), with, for a reader who may not view every related object, the id of each one they may
not view (`hidden_id`, in the same statement); branches are walked a level at a time per page
(`tree_nodes`, which marks the nodes the reader may not view), with one more query for the
tree's depth where values follow a branch.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from html.entities import name2codepoint

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.db import connections, models
from django.db.models import BooleanField, Case, F, TextField, Value, When
from django.db.models.functions import Cast
from text_unidecode import unidecode

from .jsonsql import IdIn, IdText, Literal
from .query import NOTHING
from .registry import resource_for

NAME = "natural_slug"
UNKNOWN = "unknown"  # the slug of objects that have no natural key (job log entries)


@dataclass(frozen=True)
class Part:
    """A value read from columns (ORM paths from the object): the column itself, or what a
    computed field's `render` makes of them (an address from its version and bytes)."""

    columns: tuple[str, ...]
    render: Callable | None = None
    json: bool = False  # a JSON value (a reservation's units): read as its text


@dataclass(frozen=True)
class Related:
    """The values read through a related object (`path`: ORM path of the relation from the
    object): shown where the reader may view it, else its id alone."""

    path: str
    model: type[models.Model]
    parts: tuple


@dataclass(frozen=True)
class Branch:
    """A tree node's name and its ancestors' (`node`: ORM path of its id; "": the object itself);
    `padded`: more values follow, so the branch takes one value per level of the deepest one."""

    node: str
    model: type[models.Model]
    padded: bool = False


# --- which values --------------------------------------------------------------------------


def key_fields(model: type[models.Model]) -> tuple[str, ...]:
    """The fields naming an object by value, found as the reference finds them: a declared list,
    else the first unique constraint, unique_together, or unique field; else the id."""
    declared = getattr(model, "natural_key_field_names", None)
    if declared is not None:
        return tuple(declared)
    for constraint in model._meta.constraints:
        if (
            isinstance(constraint, models.UniqueConstraint)
            and constraint.fields
            and constraint.condition is None
        ):
            return tuple(constraint.fields)
    if model._meta.unique_together:
        return tuple(model._meta.unique_together[0])
    resource = resource_for(model)
    legacy_only = set(resource.legacy.only) if resource is not None else set()  # slugs: 1.x alone
    for f in model._meta.fields:
        if f.unique and f.name != "id" and f.name not in legacy_only:
            return (f.name,)
    return ("pk",)


def is_branch(model: type[models.Model], names: tuple[str, ...]) -> bool:
    """A tree whose key is a name within its parent: the key is the whole branch."""
    return any(is_parent(model, name) for name in names if name != "pk" and "__" not in name)


def is_parent(model: type[models.Model], name: str) -> bool:
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:  # a computed value (a prefix's network)
        return False
    return field.is_relation and field.related_model is model


def _expand(model: type[models.Model], prefix: str, depth: int = 0) -> list:
    if depth > 8:
        raise ValueError(f"the natural key of {model.__name__} does not end")
    if model is ContentType:
        return [Part((f"{prefix}app_label",)), Part((f"{prefix}model",))]
    names = key_fields(model)
    if is_branch(model, names):
        return [Branch(prefix[:-2], model)]
    parts: list = []
    for name in names:
        parts += _expand_name(model, name, prefix, depth)
    return parts


def _expand_name(model: type[models.Model], name: str, prefix: str, depth: int) -> list:
    if name in ("pk", "id"):
        return [Part((f"{prefix}pk",))]
    head, _, rest = name.partition("__")
    resource = resource_for(model)
    computed = resource.computed.get(name) if resource is not None else None
    if computed is not None:
        return [Part(tuple(f"{prefix}{c}" for c in computed.columns), computed.render)]
    field = model._meta.get_field(head)
    if rest:  # a path through a related object (`parent__namespace`)
        inner = _expand_name(field.related_model, rest, f"{prefix}{head}__", depth + 1)
        return _related(f"{prefix}{head}", field.related_model, inner)
    if field.is_relation and field.concrete:
        inner = _expand(field.related_model, f"{prefix}{name}__", depth + 1)
        return _related(f"{prefix}{name}", field.related_model, inner)
    return [Part((f"{prefix}{name}",), json=isinstance(field, models.JSONField))]


def _related(path: str, model: type[models.Model], inner: list) -> list:
    """`inner`, read through the related object at `path`, shown only where the reader may view
    it; a tree's branch narrows itself node by node, and neither an id nor a content type (shown
    as a label everywhere) names anything hidden."""
    if model is ContentType or resource_for(model) is None or inner == [Part((f"{path}__pk",))]:
        return inner
    if len(inner) == 1 and isinstance(inner[0], Branch) and inner[0].node == path:
        return inner
    return [Related(path, model, tuple(inner))]


def _leaves(found) -> list:
    return [leaf for p in found for leaf in (_leaves(p.parts) if isinstance(p, Related) else [p])]


def _padded(found, last) -> tuple:
    return tuple(
        Related(p.path, p.model, _padded(p.parts, last))
        if isinstance(p, Related)
        else Branch(p.node, p.model, padded=True)
        if isinstance(p, Branch) and p is not last
        else p
        for p in found
    )


@cache
def parts(model: type[models.Model]) -> tuple:
    """The values making an object's natural slug, in order; a branch followed by other values is
    padded to the tree's depth."""
    if key_fields(model) == ():
        return ()
    expanded = _expand(model, "")
    return _padded(expanded, _leaves(expanded)[-1])


# --- the label -----------------------------------------------------------------------------

_QUOTES = re.compile(r"'+")
_ENTITY = re.compile("&(" + "|".join(name2codepoint) + ");")
_DECIMAL = re.compile(r"&#(\d+);")
_HEX = re.compile(r"&#x([\da-fA-F]+);")
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d)")
_UNWANTED = re.compile(r"[^-a-zA-Z0-9]+")
_DASHES = re.compile(r"-{2,}")
_PLAIN = re.compile(r"[-a-zA-Z0-9 ._/:]*")  # text the long way would only lower-case and dash


@lru_cache(maxsize=16384)
def slugify(text: str) -> str:
    """Text as the reference slugifies each value: ASCII (transliterated; a symbol by its
    Unicode name), lower case, every run of other characters a single dash, no dash at either
    end."""
    if not _PLAIN.fullmatch(text):
        text = "".join(f" {unicodedata.name(c, '')} " if unicodedata.category(c) == "So" else c for c in text)
        text = _QUOTES.sub("-", text)
        text = unidecode(unicodedata.normalize("NFKD", text))
        text = _ENTITY.sub(lambda m: chr(name2codepoint[m.group(1)]), text)
        text = _DECIMAL.sub(lambda m: _char(int(m.group(1))), text)
        text = _HEX.sub(lambda m: _char(int(m.group(1), 16)), text)
        text = unicodedata.normalize("NFKD", text).lower()
        text = _DIGIT_COMMA.sub("", _QUOTES.sub("", text))
    text = _UNWANTED.sub("-", text.lower())
    return _DASHES.sub("-", text).strip("-")


def _char(code: int) -> str:
    try:
        return chr(code)
    except (ValueError, OverflowError):
        return ""


def _text(value) -> str:
    return "\0" if value is None else str(value)


def label(pk: str, segments: tuple) -> str:
    """The slug of an object with id `pk` (text) from its key's values, one tuple per part."""
    values = [value for segment in segments for value in segment]
    while values and values[-1] is None:
        values.pop()
    values.append(pk if not _is_uuid(pk) else pk[:4])
    return "_".join(slugify(_text(value)) for value in values)


def _is_uuid(text: str) -> bool:
    return len(text) == 36 and text.count("-") == 4


def computed_value(render: Callable, *columns):
    """A computed part: nothing where its related object is unset."""
    return None if all(c is None for c in columns) else render(*columns)


# --- trees ---------------------------------------------------------------------------------


# The name of a tree node the reader may not view (tree_nodes): its id shows in its place, and
# nothing above it.
HIDDEN = object()


def tree_nodes(model, nodes: dict, wanted=(), subset=None) -> dict:
    """{id: (parent id, name)} (ids as text) of the given nodes and the `wanted` ids, and of every
    node above them: one query per level not already known. A node outside `subset` (a Viewer's,
    None: every node) is (None, HIDDEN): what lies above it is not read."""
    known = dict(nodes)
    missing = ({parent for parent, _ in known.values()} | set(wanted)) - known.keys() - {None}
    while missing:
        if subset is NOTHING:
            known.update((pk, (None, HIDDEN)) for pk in missing)
            break
        rows = model._default_manager.filter(IdIn(F("pk"), missing)).annotate(
            _id=IdText(F("pk")), _parent=IdText(F("parent_id"))
        )
        if subset is not None:
            seen = When(pk__in=subset, then=Value(True))
            rows = rows.annotate(_seen=Case(seen, default=Value(False), output_field=BooleanField()))
        columns = ("_id", "_parent", "name", "_seen") if subset is not None else ("_id", "_parent", "name")
        found = {
            pk: (parent, name) if not hidden or hidden[0] else (None, HIDDEN)
            for pk, parent, name, *hidden in rows.values_list(*columns).order_by()
        }
        known.update(found)
        known.update((pk, (None, None)) for pk in missing - found.keys())  # gone meanwhile
        missing = {parent for parent, _ in found.values()} - known.keys() - {None}
    return known


def branches(model, ids, known: dict, padded: bool) -> dict:
    """{id: (its name, its parent's, ...)} for the given nodes, None's ({None: ...}) included,
    a node the reader may not view by its id (and none above it); padded with None to one value
    per level of the tree's deepest branch."""
    levels = tree_height(model) + 1 if padded else 0
    result = {None: (None,) * levels}
    for pk in ids:
        if pk is None:
            continue
        names, node, seen = [], pk, set()
        while node is not None and node in known and node not in seen:
            seen.add(node)
            parent, name = known[node]
            names.append(node if name is HIDDEN else name)
            node = parent
        result[pk] = tuple(names) + (None,) * (levels - len(names))
    return result


def tree_height(model) -> int:
    """Levels below the roots in the tree's deepest branch (one recursive query)."""
    table, quote = model._meta.db_table, connections[model._default_manager.db].ops.quote_name
    pk = quote(model._meta.pk.column)
    with connections[model._default_manager.db].cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE walk (node, depth) AS ("
            f"SELECT {pk}, 0 FROM {quote(table)} WHERE parent_id IS NULL UNION ALL "
            f"SELECT t.{pk}, walk.depth + 1 FROM {quote(table)} t JOIN walk ON t.parent_id = walk.node) "
            "SELECT MAX(depth) FROM walk"
        )
        row = cursor.fetchone()
    return row[0] or 0


# --- the generic executor ------------------------------------------------------------------


def value(obj, viewer=None) -> str:
    """The natural slug of one object as `viewer` (query.Viewer; None: anyone) may see it (the
    compiled plan reads the same values per page)."""
    model = type(obj)
    if key_fields(model) == ():
        return UNKNOWN
    return label(str(obj.pk), tuple(_values(obj, parts(model), viewer)))


def _values(obj, found: tuple, viewer) -> list[tuple]:
    segments = []
    for part in found:
        if isinstance(part, Related):
            related = _at(obj, part.path)
            if related is not None and not _may_view(viewer, part.model, related.pk):
                segments.append((str(related.pk),))
            else:
                segments.append(tuple(v for segment in _values(obj, part.parts, viewer) for v in segment))
        elif isinstance(part, Branch):
            node = obj if not part.node else _at(obj, part.node)
            start, known = None if node is None else str(node.pk), {}
            while node is not None and str(node.pk) not in known:
                if node is not obj and not _may_view(viewer, part.model, node.pk):
                    known[str(node.pk)] = (None, HIDDEN)
                    break
                known[str(node.pk)] = (None if node.parent_id is None else str(node.parent_id), node.name)
                node = node.parent
            segments.append(branches(part.model, [start], known, part.padded)[start])
        else:
            columns = [_at(obj, c) for c in part.columns]
            segments.append(
                (columns[0],) if part.render is None else (computed_value(part.render, *columns),)
            )
    return segments


def _subset(viewer, model: type[models.Model]):
    """The objects of `model` the reader may view (query.Viewer.subset; None: every one)."""
    resource = resource_for(model)
    return None if viewer is None or resource is None else viewer.subset(resource)


def _may_view(viewer, model: type[models.Model], pk) -> bool:
    subset = _subset(viewer, model)
    if subset is None or subset is NOTHING:
        return subset is None
    return subset.filter(pk=pk).exists()


def _at(obj, path: str):
    for name in path.split("__"):
        if obj is None:
            return None
        obj = getattr(obj, name)
    return obj


# --- the compiled plan ---------------------------------------------------------------------


def hidden_id(path: str, subset):
    """The id (text) of the related object at `path` where it is set and outside `subset` (a
    Viewer's; None: the reader may view every one), else null: one column of the row's query."""
    if subset is None:
        return Literal(None, output_field=TextField())
    if subset is NOTHING:
        return IdText(F(path))
    shown = When(**{f"{path}__in": subset}, then=Value(None, output_field=TextField()))
    return Case(shown, default=IdText(F(path)), output_field=TextField())


def compiled(plan) -> str:
    """Python code (over a row `r` and the page's loads `P`) rendering the slug in a compiled
    ObjectPlan: columns join the row's query; branches are walked per page (`load`)."""
    model = plan.resource.model
    if key_fields(model) == ():
        return repr(UNKNOWN)
    return f"{plan.constant(label)}(r[0], ({', '.join(_compiled(plan, parts(model)))},))"


def _compiled(plan, found: tuple) -> list[str]:
    segments = []
    for part in found:
        if isinstance(part, Related):
            build = partial(hidden_id, part.path)
            hidden = plan.col(f"_hidden_{part.path}", plan.per_reader(resource_for(part.model), build))
            inner = " + ".join(_compiled(plan, part.parts))
            segments.append(f"(({hidden},) if {hidden} is not None else {inner})")
        elif isinstance(part, Branch):
            plan.inside |= {resource_for(part.model)} - {None}
            if part.node:
                column = plan.col(f"_branch_{part.node}", IdText(F(part.node)))
            else:  # the object's own branch: its parent and name come with the row
                column = "r[0]"
                plan.col("_parent", IdText(F("parent_id")))
                plan.col("name")
            slot = f"branch{len(plan.branches)}"
            plan.branches[slot] = (part, column)
            segments.append(f"P[{slot!r}].get({column}, ())")
        elif part.json:  # its text, as the database keeps it: the same on every backend
            path = part.columns[0]
            segments.append(f"({plan.col('_json_' + path.replace('__', '_'), Cast(F(path), TextField()))},)")
        elif part.render is None:
            segments.append(f"({plan.col(part.columns[0])},)")
        else:
            columns = ", ".join(plan.col(c) for c in part.columns)
            segments.append(f"({plan.constant(computed_value)}({plan.constant(part.render)}, {columns}),)")
    return segments


def load(plan, rows: list, loaded: dict, viewer=None) -> None:
    """The branches a page's slugs need, by the id of their node (read from the rows), as far as
    `viewer` (None: anyone) may view their nodes (the rows' own, they may)."""
    for slot, (part, column) in plan.branches.items():
        index = int(column[2:-1])
        nodes = {}
        if not part.node:
            parent, name = plan.columns.index("_parent"), plan.columns.index("name")
            nodes = {row[0]: (row[parent], row[name]) for row in rows}
        ids = {row[index] for row in rows}
        known = tree_nodes(part.model, nodes, ids, _subset(viewer, part.model))
        loaded[slot] = branches(part.model, ids, known, part.padded)
