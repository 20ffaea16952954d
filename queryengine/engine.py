"""Execute GraphQL documents: parse and validate once per text, then run the compiled plan
or, for documents outside the compilable subset, graphql-core's generic executor."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from graphql import (
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    OperationDefinitionNode,
    OperationType,
    execute,
    validate,
)

from . import customschema, generated, uploads
from .documentcache import DocumentCache
from .limits import parse_within_limits
from .prepared import deferring
from .relatedlists import RowBudget
from .rootplans import Plan, compile_document
from .rules import RULES
from .schema import schema
from .timeouts import timed_out

GRAPHQL_SCHEMA = schema.graphql_schema


@dataclass(frozen=True)
class Prepared:
    document: DocumentNode | None
    errors: tuple[GraphQLError, ...]
    plan: Plan | None
    is_mutation: bool


def prepare_once(source: str, limited: bool = False) -> Prepared:
    """Parse, validate and compile a document; `limited`: within the bounds set for documents
    clients write (queryengine.limits), checked first."""
    try:
        document = parse_within_limits(source) if limited else generated.parse(source)
    except GraphQLError as exc:
        return Prepared(None, (exc,), None, False)
    if limited:
        errors = validate(GRAPHQL_SCHEMA, document, RULES)
    else:
        errors = generated.validate(GRAPHQL_SCHEMA, document)
    if errors:
        return Prepared(document, tuple(errors), None, False)
    is_mutation = any(
        isinstance(d, OperationDefinitionNode) and d.operation == OperationType.MUTATION
        for d in document.definitions
    )
    return Prepared(document, (), compile_document(GRAPHQL_SCHEMA, document), is_mutation)


# Each process keeps what it prepared: later requests with the same text reuse it. The
# documents REST writes come in a bounded number of shapes (values travel as variables); those
# clients write may differ in every literal value, so they have a budget of their own, and
# limits: one those refuse, or that does not parse, is not kept (its text may be large, and
# refusing it again costs little).
MIB = 1024 * 1024
prepare = DocumentCache(prepare_once, settings.PREPARED_DOCUMENTS_MIB * MIB)
prepare_supplied = DocumentCache(
    partial(prepare_once, limited=True),
    settings.GRAPHQL_PREPARED_DOCUMENTS_MIB * MIB,
    keep=lambda prepared: prepared.document is not None,
)


def prepare_for_client(source: str) -> Prepared:
    """A client's document prepared against the custom fields that exist now: it may name
    them, and introspect them."""
    customschema.bring_up_to_date(GRAPHQL_SCHEMA, prepare_supplied.clear)
    return prepare_supplied(source)


def run(
    source: str,
    variables: dict | None,
    context,
    operation_name: str | None = None,
    compiled: bool = True,
    supplied: bool = False,
):
    """Execute a document (`supplied`: written by a client); `compiled=False` forces the generic
    executor (used to prove equivalence)."""
    prepared = (prepare_for_client if supplied else prepare)(source)
    if prepared.errors:
        return ExecutionResult(data=None, errors=list(prepared.errors))
    if supplied and not prepared.is_mutation:
        # A client's document returns at most GRAPHQL_MAX_ROWS rows, those of nested lists included.
        context.viewer().budget = RowBudget(settings.GRAPHQL_MAX_ROWS)
    if not prepared.is_mutation:
        return _execute(prepared, variables, context, operation_name, compiled)
    # A mutation is all-or-none: any error rolls back every change it made. A unique value that
    # a concurrent transaction took after this one validated reaches the database as an
    # IntegrityError; run again, validation then sees the committed row and names the field.
    # The first attempt leaves unique values to the database's indexes (batches.Batch): one query
    # less per unique constraint; a clash is an IntegrityError and the next attempt names it.
    # A change record goes to the database with the write's next statement (prepared.deferring).
    # Files an attempt stored go with it when it rolls back (uploads.kept_if_committed).
    for attempt in range(CONFLICT_ATTEMPTS):
        context.first_attempt = attempt == 0
        with uploads.kept_if_committed() as stored, transaction.atomic(), deferring(connection):
            result = _execute(prepared, variables, context, operation_name, compiled)
            if result.errors:
                transaction.set_rollback(True)
                stored.remove()
        if attempt + 1 == CONFLICT_ATTEMPTS or not any(
            isinstance(e.original_error, IntegrityError) for e in result.errors or ()
        ):
            return result
    return result


CONFLICT_ATTEMPTS = 3


def _execute(prepared: Prepared, variables, context, operation_name, compiled: bool) -> ExecutionResult:
    if compiled and prepared.plan is not None and operation_name in (None, prepared.plan.name):
        result = prepared.plan.execute(variables, context)
    else:
        result = execute(GRAPHQL_SCHEMA, prepared.document, None, context, variables, operation_name)
    if result.errors:
        result.errors = [_named_timeout(error) for error in result.errors]
    return result


def _named_timeout(error: GraphQLError) -> GraphQLError:
    """A statement the database stopped is reported as the limit it ran past (its setting)."""
    timeout = timed_out(error.original_error)
    if timeout is None or timeout is error.original_error:
        return error
    return GraphQLError(
        timeout.detail, error.nodes, error.source, error.positions, error.path, original_error=timeout
    )
