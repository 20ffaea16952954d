"""Documents REST generates, prepared by the parts they share.

REST's documents of one shape (a resource's list at a depth) differ only in their filters: the
variables the operation declares and the arguments of its root fields. Their fragments, where
nearly all of a deep document's text is, are the same from one to the next. Each fragment is
parsed once (a generated document holds one definition per line); a document whose text but for
its variables and root arguments was found valid before has only those checked; and the
compiler shares the plans of identical fragments and selections (compiler.SharedPlans).
"""

from __future__ import annotations

from copy import copy
from functools import lru_cache

import graphql
from graphql import (
    DefinitionNode,
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    NameNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

from .selections import node_text


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


def validate(schema: GraphQLSchema, document: DocumentNode, rules) -> list[GraphQLError]:
    """The document's errors; once a skeleton (`_skeleton`) is known valid, only the variables
    and root arguments of another document with it are checked (the rest of a deep document
    costs ten times more to validate)."""
    skeleton = _skeleton(document)
    if skeleton in VALID_SKELETONS and not graphql.validate(schema, _header(document), rules):
        return []
    errors = graphql.validate(schema, document, rules)
    if not errors and skeleton is not None:
        if len(VALID_SKELETONS) >= MAX_VALID_SKELETONS:
            VALID_SKELETONS.clear()
        VALID_SKELETONS.add(skeleton)
    return errors


VALID_SKELETONS: set[str] = set()
MAX_VALID_SKELETONS = 10_000  # REST's shapes are bounded; this bounds memory regardless


def _skeleton(document: DocumentNode) -> str | None:
    """The text without the operation's variable definitions and its root fields' arguments;
    None when the rest depends on the variables (it names one) or the text is not known."""
    operation, *fragments = document.definitions
    if not isinstance(operation, OperationDefinitionNode) or operation.loc is None:
        return None
    if any(not isinstance(f, graphql.FragmentDefinitionNode) or f.loc is None for f in fragments):
        return None
    cuts = []
    if operation.variable_definitions:
        cuts.append((operation.variable_definitions[0].loc, operation.variable_definitions[-1].loc))
    for node in operation.selection_set.selections:
        if not isinstance(node, FieldNode):
            return None
        if node.arguments:
            cuts.append((node.arguments[0].loc, node.arguments[-1].loc))
    source = operation.loc.source.body
    pieces, start = [], operation.loc.start
    for first, last in cuts:
        pieces.append(source[start : first.start])
        start = last.end
    pieces.append(source[start : operation.loc.end])
    skeleton = "\0".join([*pieces, *map(node_text, fragments)])
    return None if "$" in skeleton else skeleton


def _header(document: DocumentNode) -> DocumentNode:
    """The operation with its root fields' selections reduced to `__typename`: what validating
    its variables and root arguments needs."""
    operation = document.definitions[0]
    typename = SelectionSetNode(
        selections=(FieldNode(name=NameNode(value="__typename"), arguments=(), directives=()),)
    )
    roots = tuple(
        FieldNode(
            alias=node.alias,
            name=node.name,
            arguments=node.arguments,
            directives=node.directives,
            selection_set=typename if node.selection_set else None,
        )
        for node in operation.selection_set.selections
    )
    header = copy(operation)
    header.selection_set = SelectionSetNode(selections=roots)
    return DocumentNode(definitions=(header,))
