"""Bounds on a client's GraphQL document, checked before it is validated or compiled.

Validation and compilation cost grows with the fields a document selects once every fragment
spread is replaced by its fragment, and fragments spreading others twice double that at each
step: forty lines of text can select a trillion fields. The text's size and tokens bound the
parser; the selections are counted without expanding anything, so a refusal takes milliseconds.
"""

from __future__ import annotations

from django.conf import settings
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    parse,
)
from graphql.language import Lexer, Source, TokenKind


def parse_within_limits(source: str) -> DocumentNode:
    """The parsed document; a GraphQLError naming the limit (and its setting) it passes."""
    size = len(source.encode())
    if size > settings.GRAPHQL_MAX_DOCUMENT_BYTES:
        raise GraphQLError(
            f"The document is {size} bytes long; the limit is "
            f"{settings.GRAPHQL_MAX_DOCUMENT_BYTES} bytes (GRAPHQL_MAX_DOCUMENT_BYTES)."
        )
    if _has_more_tokens(source, settings.GRAPHQL_MAX_TOKENS):
        raise GraphQLError(
            f"The document has more than {settings.GRAPHQL_MAX_TOKENS} tokens, "
            "the limit (GRAPHQL_MAX_TOKENS)."
        )
    document = parse(source)
    selections = expanded_selections(document)
    if selections > settings.GRAPHQL_MAX_SELECTIONS:
        raise GraphQLError(
            f"The document selects {selections} fields once its fragments are expanded; the limit "
            f"is {settings.GRAPHQL_MAX_SELECTIONS} (GRAPHQL_MAX_SELECTIONS)."
        )
    return document


def _has_more_tokens(source: str, limit: int) -> bool:
    """Counted by the lexer alone, about ten times faster than the parser builds its nodes, so
    that a refusal costs little. A syntax error stops the count: the parser then reports it."""
    lexer = Lexer(Source(source))
    try:
        for _ in range(limit + 1):
            if lexer.advance().kind is TokenKind.EOF:
                return False
    except GraphQLError:
        return False
    return True


def expanded_selections(document: DocumentNode) -> int:
    """The fields the document's operations select, each fragment spread counted as the fields
    of its fragment. A fragment's count is its own fields plus the counts of the fragments it
    spreads, worked out once; a spread that closes a cycle counts nothing (validation refuses
    cycles). Iterative, so that long chains of fragments need no deep recursion."""
    own: dict[str, int] = {}
    spreads: dict[str, list[str]] = {}
    operations = []
    for definition in document.definitions:
        if isinstance(definition, FragmentDefinitionNode):
            name = definition.name.value
            own[name], spreads[name] = _fields_and_spreads(definition)
        elif isinstance(definition, OperationDefinitionNode):
            operations.append(_fields_and_spreads(definition))
    counted: dict[str, int] = {}
    entered: set[str] = set()
    pending = [name for _, names in operations for name in names]
    while pending:
        name = pending[-1]
        if name in counted or name not in own:  # an unknown name is left to validation
            pending.pop()
        elif name in entered:  # back on top: each fragment it spreads is counted or closes a cycle
            pending.pop()
            counted[name] = own[name] + sum(counted.get(s, 0) for s in spreads[name])
        else:
            entered.add(name)
            pending.extend(s for s in dict.fromkeys(spreads[name]) if s not in counted and s not in entered)
    return sum(fields + sum(counted.get(s, 0) for s in names) for fields, names in operations)


def _fields_and_spreads(definition) -> tuple[int, list[str]]:
    """The fields written in a definition (nested ones included) and the names it spreads."""
    fields, names, pending = 0, [], [definition.selection_set]
    while pending:
        for node in pending.pop().selections:
            if isinstance(node, FieldNode):
                fields += 1
                if node.selection_set is not None:
                    pending.append(node.selection_set)
            elif isinstance(node, InlineFragmentNode):
                pending.append(node.selection_set)
            elif isinstance(node, FragmentSpreadNode):
                names.append(node.name.value)
    return fields, names
