"""Selection sets as the compiler reads them: fields (fragment spreads expanded), a generic
relation's `... on <Type>` parts, and references ({id, object_type, url}) written as JSON text."""

from __future__ import annotations

import re
from contextvars import ContextVar
from functools import lru_cache

from graphql import FieldNode, FragmentDefinitionNode, FragmentSpreadNode, InlineFragmentNode

from . import jsonsql
from .jsonsql import JsonText
from .registry import Resource, resource_by_type_name

# The interface every UUID-keyed object type implements (schema.InventoryObject): in a generic
# relation typed as a union, `... on InventoryObject { id }` reads what every member shows.
OBJECT_INTERFACE = "InventoryObject"


class Unsupported(Exception):
    """The document uses something the compiler does not handle; run it generically."""


SPREAD = re.compile(r"\.\.\.\s*(?!on\b)([_A-Za-z]\w*)")


@lru_cache(maxsize=8192)
def spread_names(text: str) -> frozenset[str]:
    """The fragment names a text spreads, read from the text: a name too many (one inside a
    string) is possible, a name missed is not."""
    return frozenset(SPREAD.findall(text))


def node_text(node) -> str | None:
    """The text a parsed node was read from; None for one built without it."""
    return None if node.loc is None else node.loc.source.body[node.loc.start : node.loc.end]


def response_key(node: FieldNode) -> str:
    return node.alias.value if node.alias else node.name.value


# While a document compiles: its fragments by name, and the plans made for them (sharedplans). A
# fragment spread in many places (REST's nested objects at a depth) is one plan, compiled once
# and loaded once per request for every object that shows it.
COMPILING: ContextVar[tuple] = ContextVar("compiling")  # (fragments by name, SharedPlans)


def fields(selection_set) -> list[FieldNode]:
    """The fields of a selection set, fragment spreads expanded. A response key selected twice
    (GraphQL merges the two selections) runs on the generic executor."""
    nodes = _expanded(selection_set)
    if len({response_key(node) for node in nodes}) != len(nodes):
        raise Unsupported("a field selected twice")
    return nodes


def _expanded(selection_set) -> list[FieldNode]:
    nodes = []
    for node in selection_set.selections:
        if isinstance(node, FragmentSpreadNode) and not node.directives:
            nodes.extend(_expanded(fragment(node).selection_set))
        elif not isinstance(node, FieldNode) or node.directives:
            raise Unsupported("inline fragments and directives run on the generic executor")
        else:
            nodes.append(node)
    return nodes


def fragment(node: FragmentSpreadNode) -> FragmentDefinitionNode:
    """The definition a spread names; one on an abstract type runs on the generic executor."""
    found = COMPILING.get()[0].get(node.name.value)
    if found is None or found.directives or resource_by_type_name(found.type_condition.name.value) is None:
        raise Unsupported("a fragment on an abstract type")
    return found


def split_fragments(selection_set) -> tuple[list[FieldNode], dict[str, tuple]]:
    """A generic relation's plain fields (those of `... on InventoryObject` too: every object has
    them) and its `... on <Type>` fragments' selections by type."""
    plain, fragments = [], {}
    for node in selection_set.selections:
        shared = isinstance(node, InlineFragmentNode) and not node.directives and not fragments
        if shared and (node.type_condition is None or node.type_condition.name.value == OBJECT_INTERFACE):
            inner, typed = split_fragments(node.selection_set)
            if typed:
                raise Unsupported("fragments inside a fragment on the interface")
            plain.extend(inner)
        elif isinstance(node, InlineFragmentNode) and node.type_condition and not node.directives:
            name = node.type_condition.name.value
            fragments[name] = fragments.get(name, ()) + tuple(node.selection_set.selections)
        elif isinstance(node, FieldNode) and not node.directives:
            plain.append(node)
        else:
            raise Unsupported("fragments and directives run on the generic executor")
    return plain, fragments


REFERENCE_FIELDS = frozenset({"id", "object_type", "url", "__typename"})


def reference_text(target: Resource, nodes: list[FieldNode], id_text) -> JsonText:
    """{id, object_type, url, __typename} of an object, from its id as SQL text."""
    text = JsonText()
    for index, node in enumerate(nodes):
        text.const(("{" if index == 0 else ",") + jsonsql.json_const(response_key(node)) + ":")
        name = node.name.value
        if name == "id" and target.integer_pk:  # a number (Django's groups)
            text.sql(id_text)
        elif name == "url" and not target.routed:  # served by no route
            text.const("null")
        elif name in ("id", "url"):
            text.const('"' + (f"{jsonsql.BASE_MARK}{target.route}/" if name == "url" else ""))
            text.sql(id_text)
            text.const('/"' if name == "url" else '"')
        else:
            text.const(jsonsql.json_const(target.object_type if name == "object_type" else target.type_name))
    text.const("}")
    return text


def is_reference(node: FieldNode) -> bool:
    return all(n.name.value in REFERENCE_FIELDS and not n.arguments for n in fields(node.selection_set))


def reference_pieces(target: Resource, nodes) -> list | None:
    """A hidden object's text as pieces around its id (None in the id's places): the reference
    fields among `nodes`, or None when they name none."""
    kept = [n for n in nodes if n.name.value in REFERENCE_FIELDS and not n.arguments]
    if not kept:
        return None
    return [p.encode() if isinstance(p, str) else None for p in reference_text(target, kept, None).parts]
