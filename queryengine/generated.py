"""Documents REST generates, prepared by the parts they share.

REST's documents of one shape (a resource's list at a depth) differ only in their filters: the
variables the operation declares and the arguments of its root fields. Their fragments, where
nearly all of a deep document's text is, are the same from one to the next. Each fragment is
parsed once (a generated document holds one definition per line) and validated once, and the
compiler shares the plans of identical selections (sharedplans).
"""

from __future__ import annotations

from copy import copy
from functools import lru_cache

import graphql
from graphql import (
    DefinitionNode,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    NameNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

from .rules import GENERATED_RULES, DepthLimit, depth_error, fragments_of
from .selections import node_text, spread_names


def parse(source: str) -> DocumentNode:
    """The document, its fragments' lines parsed once each; a text not laid out as one
    definition per line is parsed whole."""
    operation, *rest = source.split("\n")
    if not rest:
        return graphql.parse(source)
    try:
        definitions = [*graphql.parse(operation).definitions, *map(_fragment, rest)]
    except GraphQLError:
        return graphql.parse(source)
    if None in definitions:
        return graphql.parse(source)
    return DocumentNode(definitions=tuple(definitions))


@lru_cache(maxsize=8192)  # REST's fragments: a few per resource and depth
def _fragment(line: str) -> DefinitionNode | None:
    if not line.startswith("fragment "):
        return None
    definitions = graphql.parse(line).definitions
    return definitions[0] if len(definitions) == 1 else None


def validate(schema: GraphQLSchema, document: DocumentNode) -> list[GraphQLError]:
    """The document's errors. A fragment found valid before, along with every fragment it
    spreads, is checked again only as far as its name and type go: a stand-in selecting
    `__typename` takes its place (a deep document's fragments cost ten times more to validate
    than its operation, and most of them recur from one document to the next)."""
    fragments = fragments_of(document)
    known = _known_valid(fragments)
    if known:
        # Known fragments spread only by known ones are left out (unused, they would be errors).
        rest = [
            d
            for d in document.definitions
            if not isinstance(d, FragmentDefinitionNode) or d.name.value not in known
        ]
        spread = set().union(*(_spreads(d) for d in rest))
        stand_ins = [_stand_in(fragments[name]) for name in sorted(known & spread)]
        stood_in = DocumentNode(definitions=(*rest, *stand_ins))
        errors = graphql.validate(schema, stood_in, STOOD_IN_RULES)
        operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
        errors += [e for e in (depth_error(o, fragments) for o in operations) if e is not None]
        if errors:  # reported as the whole document's validation reports them
            return graphql.validate(schema, document, GENERATED_RULES)
    else:
        errors = graphql.validate(schema, document, GENERATED_RULES)
        if errors:
            return errors
    for name, definition in fragments.items():
        text = node_text(definition)
        if name not in known and text is not None and "$" not in text:
            if len(VALID_FRAGMENTS) >= MAX_VALID_FRAGMENTS:
                VALID_FRAGMENTS.clear()
            VALID_FRAGMENTS.add(text)
    return []


# Texts of fragments found valid with every fragment they spread (and naming no variable: a
# variable's use depends on the operation declaring it).
VALID_FRAGMENTS: set[str] = set()
MAX_VALID_FRAGMENTS = 20_000  # REST's fragments are bounded; this bounds memory regardless
STOOD_IN_RULES = [rule for rule in GENERATED_RULES if rule is not DepthLimit]  # depth: whole


def _known_valid(fragments: dict) -> set[str]:
    """The names of the fragments found valid before whose spreads are all such fragments too."""
    known = {name for name, d in fragments.items() if node_text(d) in VALID_FRAGMENTS}
    while True:
        spreading_unknown = {name for name in known if not _spreads(fragments[name]) <= known}
        if not spreading_unknown:
            return known
        known -= spreading_unknown


def _spreads(definition) -> frozenset[str]:
    text = node_text(definition)
    return frozenset() if text is None else spread_names(text)


def _stand_in(definition: FragmentDefinitionNode) -> FragmentDefinitionNode:
    stand_in = copy(definition)
    stand_in.selection_set = TYPENAME
    return stand_in


TYPENAME = SelectionSetNode(
    selections=(FieldNode(name=NameNode(value="__typename"), arguments=(), directives=()),)
)
