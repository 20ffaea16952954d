"""Execute GraphQL documents: parse and validate once per text, then run the compiled plan
or, for documents outside the compilable subset, graphql-core's generic executor."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.db import IntegrityError, transaction
from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    ValidationRule,
    execute,
    parse,
    specified_rules,
    validate,
)

from .compiler import Plan, compile_document
from .schema import schema

GRAPHQL_SCHEMA = schema.graphql_schema
# Nesting allowed below a root field: REST's deepest document plus room for a list's items.
MAX_QUERY_DEPTH = settings.MAX_DEPTH + 2


def _depth(selection_set, fragments, seen=frozenset()) -> int:
    if selection_set is None:
        return 0
    deepest = 0
    for node in selection_set.selections:
        if isinstance(node, FieldNode):
            deepest = max(
                deepest, 1 + _depth(node.selection_set, fragments, seen) if node.selection_set else 1
            )
        elif isinstance(node, InlineFragmentNode):
            deepest = max(deepest, _depth(node.selection_set, fragments, seen))
        elif isinstance(node, FragmentSpreadNode) and node.name.value not in seen:
            fragment = fragments.get(node.name.value)
            if fragment is not None:
                deepest = max(deepest, _depth(fragment.selection_set, fragments, seen | {node.name.value}))
    return deepest


class DepthLimit(ValidationRule):
    def enter_operation_definition(self, node: OperationDefinitionNode, *_args):
        fragments = {
            d.name.value: d
            for d in self.context.document.definitions
            if not isinstance(d, OperationDefinitionNode)
        }
        if _depth(node.selection_set, fragments) > MAX_QUERY_DEPTH + 1:
            self.report_error(GraphQLError(f"Query is nested deeper than {MAX_QUERY_DEPTH} levels.", node))


RULES = [*specified_rules, DepthLimit]


@dataclass(frozen=True)
class Prepared:
    document: DocumentNode | None
    errors: tuple[GraphQLError, ...]
    plan: Plan | None
    is_mutation: bool


@lru_cache(maxsize=2048)
def prepare(source: str) -> Prepared:
    """Parse, validate and compile a document once; later requests with the same text reuse it."""
    try:
        document = parse(source)
    except GraphQLError as exc:
        return Prepared(None, (exc,), None, False)
    errors = validate(GRAPHQL_SCHEMA, document, RULES)
    if errors:
        return Prepared(document, tuple(errors), None, False)
    is_mutation = any(
        isinstance(d, OperationDefinitionNode) and d.operation == OperationType.MUTATION
        for d in document.definitions
    )
    return Prepared(document, (), compile_document(GRAPHQL_SCHEMA, document), is_mutation)


def run(
    source: str, variables: dict | None, context, operation_name: str | None = None, compiled: bool = True
):
    """Execute a document; `compiled=False` forces the generic executor (used to prove equivalence)."""
    prepared = prepare(source)
    if prepared.errors:
        return ExecutionResult(data=None, errors=list(prepared.errors))
    if not prepared.is_mutation:
        return _execute(prepared, variables, context, operation_name, compiled)
    # A mutation is all-or-none: any error rolls back every change it made. A unique value that
    # a concurrent transaction took after this one validated reaches the database as an
    # IntegrityError; run again, validation then sees the committed row and names the field.
    for attempt in range(CONFLICT_ATTEMPTS):
        with transaction.atomic():
            result = _execute(prepared, variables, context, operation_name, compiled)
            if result.errors:
                transaction.set_rollback(True)
        if attempt + 1 == CONFLICT_ATTEMPTS or not any(
            isinstance(e.original_error, IntegrityError) for e in result.errors or ()
        ):
            return result
    return result


CONFLICT_ATTEMPTS = 3


def _execute(prepared: Prepared, variables, context, operation_name, compiled: bool) -> ExecutionResult:
    if compiled and prepared.plan is not None and operation_name in (None, prepared.plan.name):
        return prepared.plan.execute(variables, context)
    return execute(GRAPHQL_SCHEMA, prepared.document, None, context, variables, operation_name)
