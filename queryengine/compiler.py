"""Compile a validated GraphQL document into a plan: SQL that writes each object's JSON text,
and a generated function that splices in what only Python renders.

graphql-core resolves every field of every row through Python calls (~10 µs each); a 1000-row
page of 25 fields spends more in that machinery than in the database. A plan instead asks the
database for the objects' JSON text (jsonsql), reads the page's ids with one small query and
renders exactly those rows with a SELECT compiled once per database; related objects, lists and
tree paths take one query each per page. Rows leave as orjson fragments: the response encoder
embeds them without parsing. The result is byte for byte what the generic executor produces for
the same document; documents outside the compilable subset (fragments, directives, custom
resolvers) return None and run on the generic executor.

Plans are shared by every caller; what one caller may view (query.Viewer) is applied when a plan
runs: objects shown inside others and members of related lists are narrowed in the queries that
read them, which are then compiled for that request alone. Callers who may view every object of
a type run the prepared queries unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import orjson
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models import F, TextField
from django.db.models.functions import Cast
from graphql import (
    FieldNode,
    FragmentSpreadNode,
    IntValueNode,
    SelectionSetNode,
)

from . import (
    customschema,
    jsonsql,
    listplans,
    naturalslug,
    otherfields,
    query,
    together,
    twins,
    uploads,
)
from .documents import GENERIC_MARK
from .filters import CUSTOM_FIELD_PREFIX
from .jsonsql import JsonText, PyText
from .prepared import PreparedQuery
from .registry import (
    COMPUTED,
    CONTENT_TYPE,
    DERIVED,
    FILE,
    FOREIGN_KEY,
    GENERIC,
    INCLUDED,
    LIST_KINDS,
    REVERSE,
    Resource,
    resource_by_object_type,
    resource_by_type_name,
    resource_for,
)
from .relatedlists import list_relation, relations_of
from .scalars import dumps, scalar_for
from .selections import (
    COMPILING,
    REFERENCE_FIELDS,
    Unsupported,
    fields,
    is_reference,
    reference_pieces,
    reference_text,
    response_key,
    split_fragments,
)

_NO_TREE_PATH = (b"null", b"null")
_BASE_MARK = jsonsql.BASE_MARK.encode()


def _generic_ref_projection(base, label, pk, keys):
    """A generic relation's reference; its URL carries the base's mark, as SQL-built texts do."""
    target = resource_by_object_type(label) if label else None
    if target is None or pk is None:
        return None
    url = (
        orjson.Fragment(b'"%s%s/%s/"' % (_BASE_MARK, target.route.encode(), str(pk).encode()))
        if target.routed
        else None
    )
    full = {"id": pk, "object_type": label, "url": url, "__typename": target.type_name}
    return {response_key: full[name] for response_key, name in keys}


def schema_field(resource: Resource, name: str):
    """A field of the resource's GraphQL type (the one schema, read once compiling starts)."""
    from .schema import schema

    return schema.graphql_schema.get_type(resource.type_name).fields[name]


def _hidden_text(pieces: list | None, pk: str, viewer) -> bytes:
    if pieces is None or not viewer.references:
        return b"null"
    return b"".join(pk.encode() if p is None else p for p in pieces)


def _swapped(expression, swap: dict):
    """`expression` with the nodes `swap` names (by id) replaced, copying only what changes."""
    if id(expression) in swap:
        return swap[id(expression)]
    sources = expression.get_source_expressions() if hasattr(expression, "get_source_expressions") else []
    changed = [None if e is None else _swapped(e, swap) for e in sources]
    if all(a is b for a, b in zip(changed, sources, strict=True)):
        return expression
    copy = expression.copy()
    copy.set_source_expressions(changed)
    return copy


class ObjectPlan:
    """How to read objects of one resource for one selection set.

    One query reads each object as JSON text the database writes itself (jsonsql), with the few
    values only Python renders exactly (tree labels, decimals, JSON documents, labels from Python
    functions) read as columns and spliced in by a generated function. Related objects that need
    more than a reference are read by nested plans with one query per related field for the
    whole page (by id), so no query joins more than a couple of tables and the query count never
    grows with page size.
    """

    def __init__(self, resource: Resource, selection_set, revealed: tuple[str, ...] = ()):
        self.resource = resource
        # The shown-once secrets this plan shows (those of the objects a create answers with);
        # every other plan writes them as null.
        self.revealed = revealed
        # Column 0 is the id as text: loads, lists and tree paths are keyed by it.
        self.columns: list[str] = ["_id"]
        self.annotations: dict[str, object] = {"_id": jsonsql.IdText(F("pk"))}
        # slot -> (plan, column holding the id, the text of an object the viewer may not see,
        #          a derived relation's finder or None)
        self.loads: dict[str, tuple[ObjectPlan, int, list | None, object]] = {}
        self.lists: dict[str, object] = {}  # slot -> callable(ids, base, viewer) -> {id: JSON text}
        self.many_lists: dict[str, str] = {}  # many-to-many field -> its slot in `lists`
        # slot -> ({object type: plan}, app label column, model column, id column,
        #          {object type: hidden text}, dangling)
        self.generics: dict[str, tuple[dict, int, int, int, dict, bool]] = {}
        self.inside: set[Resource] = set()  # resources whose objects show (or count) in these objects
        self.tree = False  # whether this resource's tree paths are needed
        self.branches: dict[str, tuple] = {}  # slot -> (naturalslug.Branch, column code)
        # Expressions over what the reader may view (per_reader): (the expression as built for a
        # reader who may view everything, build(subset) -> expression, the resource viewed).
        self.narrowed: list[tuple[object, Callable, Resource]] = []
        self.query = PreparedQuery(resource.model, lambda: self.queryset(self.annotations))
        self.namespace: dict[str, object] = {
            "_gref": _generic_ref_projection,
            "_NOPATH": _NO_TREE_PATH,
            "_json_loads": orjson.loads,
            "_text": dumps,
            "_MARK": jsonsql.BASE_MARK.encode(),
            "_Fragment": orjson.Fragment,
        }
        text = JsonText()
        self.object_text(text, selection_set)
        expression = self.python(text)
        # B is the base URL; the texts carry a mark for it (BASE_MARK), replaced once per object.
        source = (
            f"def item(r, B, P):\n    return {expression}.replace(_MARK, B.encode())\n"
            f"def build(rows, B, P):\n    BB = B.encode()\n"
            f"    return [_Fragment({expression}.replace(_MARK, BB)) for r in rows]\n"
        )
        exec(compile(source, f"<plan {resource.list_field}>", "exec"), self.namespace)  # noqa: S102
        self.build = self.namespace["build"]
        self.item = self.namespace["item"]

    @classmethod
    def of(cls, resource: Resource, selection_set) -> ObjectPlan:
        """The plan of a selection; one that is a single fragment spread is shared (sharedplans)."""
        nodes = selection_set.selections
        if len(nodes) != 1 or not isinstance(nodes[0], FragmentSpreadNode) or nodes[0].directives:
            return cls(resource, selection_set)
        return COMPILING.get()[1].plan(resource, selection_set, lambda: cls(resource, selection_set))

    def queryset(self, annotations: dict):
        return (
            self.resource.model._default_manager.filter(jsonsql.IdIn(F("pk")))
            .annotate(**annotations)
            .values_list(*self.columns)
            .order_by()
        )

    def viewed_queryset(self, viewer, subset):
        """The row query of a caller who may not view every object involved: only the objects
        in `subset` (None: all asked for), counting and naming only the objects they may view.
        None when that is the prepared query."""
        swap = {}
        for expression, build, viewed in self.narrowed if viewer is not None else ():
            narrowed = viewer.subset(viewed)
            if narrowed is not None:
                swap[id(expression)] = build(narrowed)
        if subset is None and not swap:
            return None
        annotations = {key: _swapped(value, swap) for key, value in self.annotations.items()}
        queryset = self.queryset(annotations)
        return queryset if subset is None else queryset.filter(pk__in=subset)

    # -- compiling ----------------------------------------------------------------------------

    def per_reader(self, viewed: Resource, build: Callable):
        """An expression over the objects of `viewed` the reader may view, `build(subset)` (a
        Viewer's subset; None: every object): built here for a reader who may view them all, and
        for any other reader in their row query (viewed_queryset)."""
        expression = build(None)
        self.narrowed.append((expression, build, viewed))
        self.inside.add(viewed)
        return expression

    def col(self, path: str, expression=None) -> str:
        """Python code reading a column: an ORM path, or an annotation given its expression."""
        if expression is not None:
            self.annotations[path] = expression
        if path not in self.columns:
            self.columns.append(path)
        return f"r[{self.columns.index(path)}]"

    def constant(self, value) -> str:
        name = f"_k{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def python(self, text: JsonText) -> str:
        """Python code joining the text as UTF-8 bytes (what the response holds, so no text is
        decoded and encoded again): SQL runs become one annotated column each."""
        code, run = [], []

        def flush():
            if any(not isinstance(p, str) for p in run):
                piece = JsonText()
                for p in run:
                    piece.const(p) if isinstance(p, str) else piece.sql(p)
                code.append(self.col(f"_json{len(self.annotations)}", jsonsql.JsonBytes(piece.expression())))
            elif run:
                code.append(repr("".join(run).encode()))
            run.clear()

        for part in text.parts:
            if isinstance(part, PyText):
                flush()
                code.append(part.code)
            else:
                run.append(part)
        flush()
        return f"b''.join(({', '.join(code)},))"

    def object_text(self, text: JsonText, selection_set) -> None:
        for index, node in enumerate(fields(selection_set)):
            name = node.name.value
            if (
                node.arguments
                and name not in self.resource.included_names
                and not list_relation(self.resource, name)
                and twins.displaced_by(self.resource, name) is None  # a list or an include= value
            ):
                raise Unsupported("arguments below the root")
            text.const(("{" if index == 0 else ",") + jsonsql.json_const(response_key(node)) + ":")
            self.field_text(text, node)
        text.const("}")

    def value(self, text: JsonText, code: str) -> None:
        """A value rendered by Python code over the row's columns."""
        text.py(f"_text({code})")

    def field_text(self, text: JsonText, node: FieldNode) -> None:
        resource, name = self.resource, node.name.value
        own_id = F("pk")
        if name in ("id", "url", "object_type", "__typename"):
            return self.reference_field(text, name)
        if name == "notes_url" and resource.notes_url_null:
            return text.const("null")
        if name == "notes_url" and resource.has_notes:
            text.const(f'"{jsonsql.BASE_MARK}{resource.route}/')
            text.sql(jsonsql.IdText(own_id))
            return text.const('/notes/"')
        if resource.has_custom_fields and name in ("custom_fields", "_custom_field_data"):
            return self.json_column(text, "_custom_field_data")
        if resource.has_custom_fields and name.startswith(CUSTOM_FIELD_PREFIX):
            data = self.col("_doc__custom_field_data", Cast(F("_custom_field_data"), TextField()))
            key = name.removeprefix(CUSTOM_FIELD_PREFIX)
            return self.value(text, f"{self.constant(customschema.value)}({data}, {key!r})")
        if name == GENERIC_MARK and not resource.integer_pk:
            return text.const("true")
        if name == naturalslug.NAME:
            return self.value(text, naturalslug.compiled(self))
        if name == "display":
            if resource.display.load is not None:
                return self.loaded_display(text)
            if resource.is_tree:
                return text.py(f"{self.tree_slot()}.get(r[0], _NOPATH)[0]")
            if resource.display.columns == ("name",) and resource.display.render is str:
                return text.sql(jsonsql.json_value(resource.model._meta.get_field("name"), F("name")))
            render = self.constant(resource.display.render)
            # Read as a computed value's columns are: a JSON one (a service's ports) decoded.
            return self.value(
                text, f"{render}({', '.join(self.computed_column(c) for c in resource.display.columns)})"
            )
        if name == "tree_depth" and resource.is_tree:
            return text.py(f"{self.tree_slot()}.get(r[0], _NOPATH)[1]")
        if name in resource.counts:
            if resource.count_source(name) is None:  # counted model not installed: always 0
                return text.const("0")
            counted = resource_for(resource.count_source(name)[0])

            def build(subset, name=name):
                return Cast(query.count_expression(resource, name, subset), TextField())

            return text.sql(build(None) if counted is None else self.per_reader(counted, build))
        if name in resource.timestamps:
            return self.scalar(text, resource.model._meta.get_field(name))
        if name in resource.shown_once and name not in self.revealed:
            return text.const("null")
        # A displaced field (FieldSpec.displaced) is read under its twin's name, as declared.
        spec = next((f for f in resource.fields if f.name == name and not f.displaced), None)
        spec = spec or twins.displaced_by(resource, name)
        if spec is None and name in relations_of(resource):
            return self.list_field(text, name, relations_of(resource)[name], node)
        if spec is None and (twin := twins.compiler_for(resource, name)) is not None:
            return twin(self, text, node)
        if spec is None and (other := otherfields.compiler_for(resource, name)) is not None:
            return other(self, text, node)
        if spec is None:
            raise Unsupported(f"field {name} has a custom resolver")
        if (own := twins.own_form(spec)) is not None:
            return own.compile(self, text, spec)
        if spec.kind == INCLUDED:
            return self.included_field(text, spec, node)
        if spec.kind == COMPUTED:
            columns = ", ".join(self.computed_column(c) for c in spec.computed.columns)
            return self.value(text, f"{self.constant(spec.computed.render)}({columns})")
        if spec.kind in (FOREIGN_KEY, CONTENT_TYPE):  # a content type: its object
            id_path = spec.columns[0] if spec.columns else f"{name}_id"  # a reverse one-to-one joins
            return self.related(text, resource_for(spec.target), node, jsonsql.IdText(F(id_path)))
        if spec.kind == DERIVED:
            return self.derived(text, name, spec.derived, node)
        if spec.kind == GENERIC:
            return self.generic_field(text, spec, node)
        if spec.kind == FILE:  # its URL, beside the base URL (B) the plan is run with
            return self.value(text, f"{self.constant(uploads.url)}(B, {self.col(name)})")
        if spec.kind in LIST_KINDS:
            return self.list_field(text, name, list_relation(resource, name), node)
        if twins.is_choice(spec):
            return twins.choice_text(self, text, spec)
        if isinstance(spec.model_field, models.JSONField):
            return self.json_column(text, name)
        return self.scalar(text, spec.model_field)

    def generic_field(self, text: JsonText, spec, node: FieldNode) -> None:
        """A generic relation: a reference built in Python, or (with `... on <Type>` fragments)
        the object read by that type's plan, one query per type for the whole page. A relation
        that may outlive its object (`Resource.dangling`) shows null once the object is gone,
        as the generic executor does: one query per type and page finds which still exist."""
        type_field, id_field = spec.columns
        plain, fragments = split_fragments(node.selection_set)
        keys = [(response_key(n), n.name.value) for n in plain]
        if any(n not in REFERENCE_FIELDS for _, n in keys):
            raise Unsupported("generic relation field")
        app, model = self.col(f"{type_field}__app_label"), self.col(f"{type_field}__model")
        label = f"(None if {app} is None else {app} + '.' + {model})"
        reference = f"_gref(B, {label}, {self.col(id_field)}, {self.constant(keys)})"
        dangling = spec.name in self.resource.dangling
        if not fragments and not dangling:
            return self.value(text, reference)
        plans, hidden = {}, {}
        for type_name, selections in fragments.items():
            target = resource_by_type_name(type_name)
            if target is None:
                raise Unsupported(f"fragment on {type_name}")
            selection_set = SelectionSetNode(selections=(*plain, *selections))
            plans[target.object_type] = ObjectPlan.of(target, selection_set)
            hidden[target.object_type] = reference_pieces(target, fields(selection_set))
            self.inside |= {target, *plans[target.object_type].inside}
        slot = f"generic{len(self.generics)}"
        pk = self.col(f"_{slot}", jsonsql.IdText(F(id_field)))
        self.generics[slot] = (
            plans,
            self.columns.index(f"{type_field}__app_label"),
            self.columns.index(f"{type_field}__model"),
            self.columns.index(f"_{slot}"),
            hidden,
            dangling,
        )
        # An object of a type no fragment names shows only the fields outside the fragments.
        fallback = f"_text({reference})"
        if dangling:
            fallback = f"({fallback} if ({label}, {pk}) in P[{slot + '?'!r}] else b'null')"
        text.py(f"(P[{slot!r}].get(({label}, {pk})) or {fallback})")

    def loaded_display(self, text: JsonText) -> None:
        load = self.resource.display.load
        slot = f"list{len(self.lists)}"
        self.lists[slot] = lambda ids, base, viewer: {pk: dumps(label) for pk, label in load(ids).items()}
        text.py(f"P[{slot!r}].get(r[0], b'null')")

    def included_field(self, text: JsonText, spec, node: FieldNode) -> None:
        """An `include=` value: its loader runs once for the whole page."""
        depth = 0
        for argument in node.arguments:
            if argument.name.value != "depth" or not isinstance(argument.value, IntValueNode):
                raise Unsupported("included values take a literal depth")
            depth = int(argument.value.value)
        resource, included = self.resource, spec.included

        def load(ids, base, viewer):
            values = included.load(resource, ids, base, depth, viewer)
            return {pk: dumps(value) for pk, value in values.items()}

        slot = f"list{len(self.lists)}"
        self.lists[slot] = load
        text.py(f"P[{slot!r}].get(r[0], {self.constant(dumps(included.empty()))})")

    def reference_field(self, text: JsonText, name: str) -> None:
        """id, url, object_type and __typename of the object itself."""
        resource, id_text = self.resource, jsonsql.IdText(F("pk"))
        if name == "id" and resource.integer_pk:
            text.sql(id_text)
        elif name == "id":
            text.const('"')
            text.sql(id_text)
            text.const('"')
        elif name == "url" and not resource.routed:  # served by no route
            text.const("null")
        elif name == "url":
            text.const(f'"{jsonsql.BASE_MARK}{resource.route}/')
            text.sql(id_text)
            text.const('/"')
        else:
            text.const(
                jsonsql.json_const(resource.object_type if name == "object_type" else resource.type_name)
            )

    def scalar(self, text: JsonText, field: models.Field) -> None:
        sql = jsonsql.json_value(field, F(field.attname))
        if sql is not None:
            return text.sql(sql)
        _, converter = scalar_for(field)
        column = self.col(field.name)
        if converter is None:
            return self.value(text, column)
        return text.py(f"(b'null' if {column} is None else _text({self.constant(converter)}({column})))")

    def computed_column(self, path: str) -> str:
        """Python code reading a column a computed value is rendered from, as the model holds it:
        a JSON column is read as text and decoded, alike on every database and cursor format."""
        model, *steps = self.resource.model, *path.split("__")
        try:
            for step in steps[:-1]:
                model = model._meta.get_field(step).related_model
            is_json = isinstance(model._meta.get_field(steps[-1]), models.JSONField)
        except FieldDoesNotExist:  # `pk` and the like
            is_json = False
        if not is_json:
            return self.col(path)
        column = self.col(f"_doc_{path}", Cast(F(path), TextField()))
        return f"(None if {column} is None else _json_loads({column}))"

    def json_column(self, text: JsonText, path: str) -> None:
        """A JSON column read as text; Python re-encodes it compactly (orjson, no spaces)."""
        column = self.col(f"_doc_{path}", Cast(F(path), TextField()))
        text.py(
            f"(b'null' if {column} is None else b'{{}}' if {column} == '{{}}' else _text(_json_loads({column})))"
        )

    def tree_slot(self) -> str:
        """Tree labels and depths (as JSON text) come from each row's parent and name, walked per page."""
        self.tree = True
        self.col("_parent", jsonsql.IdText(F("parent_id")))
        self.col("name")
        return "P['tree']"

    def related(
        self, text: JsonText, target: Resource, node: FieldNode, id_text, find=None, reference=True
    ) -> None:
        """A related object: its reference written by the database, or its plan's text loaded
        (always, without `reference`). With `find` (a derived relation's finder and the columns
        of its hints), `id_text` is the id it is found from, for the page."""
        if is_reference(node) and find is None and reference:
            return text.sql(
                jsonsql.or_null(reference_text(target, fields(node.selection_set), id_text).expression())
            )
        slot = f"load{len(self.loads)}"
        column = self.col(f"_{slot}", id_text)
        plan = ObjectPlan.of(target, node.selection_set)
        hidden = reference_pieces(target, fields(node.selection_set))
        self.loads[slot] = (plan, self.columns.index(f"_{slot}"), hidden, find)
        self.inside |= {target, *plan.inside}
        return text.py(f"P[{slot!r}].get({column}, b'null')")

    def derived(self, text: JsonText, name: str, derived, node: FieldNode) -> None:
        """The object a derived relation (registry.Derived) finds from its source column, for the
        whole page at once; a source holding the object's id is read as a foreign key."""
        source, target = jsonsql.IdText(F(derived.source)), resource_for(derived.model)
        if derived.find is None:
            return self.related(text, target, node, source)
        hints = []
        for number, path in enumerate(derived.hints):  # read with the row: no query for them
            self.col(f"_{name}_hint{number}", jsonsql.IdText(F(path)))
            hints.append(self.columns.index(f"_{name}_hint{number}"))
        return self.related(text, target, node, source, (derived.find, tuple(hints)))

    def list_field(self, text: JsonText, name: str, relation, node: FieldNode) -> None:
        """A list of related objects, loaded for the whole page with one query of (owner, member)
        pairs (listplans); members are written by the database where it can (references)."""
        field_def = schema_field(self.resource, name)
        load, inside = listplans.related_list(ObjectPlan, relation, node, field_def)
        self.inside |= inside
        return self.list_slot(text, load, name)

    def list_slot(self, text: JsonText, load, name: str) -> None:
        """A list loaded for the whole page by `load(ids, base, viewer)`; a many-to-many field's
        is known empty after some writes (fetch's `empty`)."""
        slot = f"list{len(self.lists)}"
        self.lists[slot] = load
        if any(f.name == name and f.kind != REVERSE for f in self.resource.fields):
            self.many_lists[name] = slot
        return text.py(f"P[{slot!r}].get(r[0], b'[]')")

    # -- running ------------------------------------------------------------------------------

    def fetch(
        self, ids: list[str], base: str, viewer=None, subset=None, empty: set = frozenset(), memo=None
    ) -> tuple[list, dict]:
        """The rows of the given objects (those in `subset`, a query of ids, when given) and
        everything their JSON texts refer to, as far as `viewer` may see it (None: all); the
        many-to-many lists named in `empty` are known to be empty. `memo` keeps one request's
        texts of nested objects by plan: an object shown in many places is read once."""
        memo = {} if memo is None else memo
        skipped = {self.many_lists[name] for name in empty}
        read = [slot for slot in self.lists if slot not in skipped]
        # The many-to-many pairs are read beside the rows (they need only the ids).
        calls = [
            partial(self.query.rows, ids, self.viewed_queryset(viewer, subset)),
            *(partial(self.lists[slot], ids, base, viewer) for slot in read),
        ]
        rows, *lists = together.run_all(self.resource.model._default_manager.db, calls)
        if len(rows) > 1:
            position = {pk: index for index, pk in enumerate(ids)}
            rows.sort(key=lambda row: position[row[0]])
        loaded: dict = {slot: {} for slot in skipped}
        loaded.update(zip(read, lists, strict=True))
        if self.tree:
            parent, name = self.columns.index("_parent"), self.columns.index("name")
            paths = query.tree_paths(self.resource.model, {row[0]: (row[parent], row[name]) for row in rows})
            loaded["tree"] = {
                pk: (dumps(label), b"null" if depth is None else b"%d" % depth)
                for pk, (label, depth) in paths.items()
            }
        naturalslug.load(self, rows, loaded, viewer)
        for slot, (plan, index, hidden, finder) in self.loads.items():
            wanted = {row[index] for row in rows} - {None}
            found = None
            if finder is not None:
                find, hint_columns = finder
                if hint_columns:
                    hints = {row[index]: tuple(row[c] for c in hint_columns) for row in rows}
                    found = find(wanted, hints)
                else:
                    found = find(wanted)
            if found is not None:
                wanted = set(found.values()) - {None}
            texts = plan.load(set(wanted), base, viewer, memo=memo)
            if viewer is not None and viewer.subset(plan.resource) is not None:
                texts.update((pk, _hidden_text(hidden, pk, viewer)) for pk in wanted - texts.keys())
            loaded[slot] = (
                texts if found is None else {pk: texts[to] for pk, to in found.items() if to in texts}
            )
        for slot, (plans, app, model, index, hidden, dangling) in self.generics.items():
            wanted: dict[str, set] = {}
            for row in rows:
                if row[app] is not None and row[index] is not None:
                    wanted.setdefault(f"{row[app]}.{row[model]}", set()).add(row[index])
            texts = loaded[slot] = {}
            for label, pks in wanted.items():
                if label in plans:
                    texts.update(
                        ((label, pk), text)
                        for pk, text in plans[label].load(pks, base, viewer, memo=memo).items()
                    )
                    if viewer is not None and viewer.subset(plans[label].resource) is not None:
                        for pk in pks:
                            texts.setdefault((label, pk), _hidden_text(hidden[label], pk, viewer))
            if dangling:
                loaded[slot + "?"] = query.existing_objects(wanted)
        return rows, loaded

    def load(
        self, ids: set, base: str, viewer=None, narrow: bool = True, empty: set = frozenset(), memo=None
    ) -> dict:
        """{id: JSON text} for the given ids (related objects show whatever the list's filters),
        those `viewer` may not see left out (unless `narrow` is false: already left out); with
        `memo` (fetch), only ids this request has not read with this plan yet are read."""
        ids.discard(None)
        subset = viewer.subset(self.resource) if viewer is not None and narrow else None
        if subset is query.NOTHING or not ids:
            return {}
        known = {} if memo is None else memo.setdefault((self, narrow), {})  # id -> text or None
        missing = ids - known.keys()
        if missing:
            rows, loaded = self.fetch(list(missing), base, viewer, subset, empty, memo)
            item = self.item
            read = {row[0]: item(row, base, loaded) for row in rows}
            known.update((pk, read.get(pk)) for pk in missing)
        return {pk: known[pk] for pk in ids if known[pk] is not None}
