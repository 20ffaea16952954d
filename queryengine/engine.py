"""Execute GraphQL documents: parse and validate once per text, then run the compiled plan
or, for documents outside the compilable subset, graphql-core's generic executor."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import islice

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    OperationType,
    OverlappingFieldsCanBeMergedRule,
    ValidationRule,
    execute,
    get_nullable_type,
    specified_rules,
    validate,
)

from . import customschema, generated, uploads
from .compiler import Plan, compile_document
from .documentcache import DocumentCache
from .limits import parse_within_limits
from .prepared import deferring
from .relatedlists import RowBudget
from .schema import schema

GRAPHQL_SCHEMA = schema.graphql_schema
# Nesting allowed below a root field: REST's deepest document plus room for a list's items.
MAX_QUERY_DEPTH = settings.MAX_DEPTH + 2


def _depth(selection_set, fragments, seen=frozenset(), known=None) -> int:
    """How deep a selection nests; a fragment's depth is worked out once (`known`), however
    many times it is spread: REST's documents spread each nested type's fragment many times."""
    if selection_set is None:
        return 0
    known = {} if known is None else known
    deepest = 0
    for node in selection_set.selections:
        if isinstance(node, FieldNode):
            # Introspection (`__schema`, `__type`) walks the schema, not the data: its nesting
            # (GraphiQL's `ofType` chains) costs no database work, so it is not limited.
            below = node.selection_set and not node.name.value.startswith("__")
            deepest = max(deepest, 1 + _depth(node.selection_set, fragments, seen, known) if below else 1)
        elif isinstance(node, InlineFragmentNode):
            deepest = max(deepest, _depth(node.selection_set, fragments, seen, known))
        elif isinstance(node, FragmentSpreadNode) and node.name.value not in seen:
            name = node.name.value
            if name not in known and name in fragments:
                known[name] = _depth(fragments[name].selection_set, fragments, seen | {name}, known)
            deepest = max(deepest, known.get(name, 0))
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


def _root_fields(selection_set, fragments, seen=frozenset()):
    for node in selection_set.selections:
        if isinstance(node, FieldNode):
            yield node
        elif isinstance(node, InlineFragmentNode):
            yield from _root_fields(node.selection_set, fragments, seen)
        elif isinstance(node, FragmentSpreadNode) and node.name.value not in seen:
            fragment = fragments.get(node.name.value)
            if fragment is not None:
                yield from _root_fields(fragment.selection_set, fragments, seen | {node.name.value})


def _rows_asked(field: FieldNode) -> int:
    """The most rows a root list can return: its literal `limit` or the largest page (a
    variable's value is clamped to that page too); 0 where the page size is unbounded."""
    largest = settings.MAX_PAGE_SIZE
    for argument in field.arguments:
        if argument.name.value == "limit" and isinstance(argument.value, IntValueNode):
            asked = int(argument.value.value)
            if asked > 0:
                return min(asked, largest) if largest else asked
    return largest


class SizeLimit(ValidationRule):
    """Bound what one document can cost: many aliases of a large list would otherwise make one
    request hold a worker for seconds."""

    def enter_operation_definition(self, node: OperationDefinitionNode, *_args):
        fragments = {
            d.name.value: d
            for d in self.context.document.definitions
            if not isinstance(d, OperationDefinitionNode)
        }
        # Counted up to a bound: fragments spreading each other can multiply them without end.
        roots = list(islice(_root_fields(node.selection_set, fragments), ROOT_FIELDS_COUNTED))
        if len(roots) > settings.GRAPHQL_MAX_ROOT_FIELDS:
            self.report_error(
                GraphQLError(
                    f"Query has {len(roots)} root fields (aliases included); "
                    f"the limit is {settings.GRAPHQL_MAX_ROOT_FIELDS} (GRAPHQL_MAX_ROOT_FIELDS).",
                    node,
                )
            )
            return
        root_type = self.context.schema.get_root_type(node.operation)
        rows = 0
        for field in roots:
            definition = root_type.fields.get(field.name.value) if root_type else None
            if definition is not None and isinstance(get_nullable_type(definition.type), GraphQLList):
                rows += _rows_asked(field)
        if rows > settings.GRAPHQL_MAX_ROWS:
            self.report_error(
                GraphQLError(
                    f"Query may return up to {rows} rows from its root lists; the limit is "
                    f"{settings.GRAPHQL_MAX_ROWS} (GRAPHQL_MAX_ROWS): lower `limit` or split the query.",
                    node,
                )
            )


ROOT_FIELDS_COUNTED = 10_000
RULES = [*specified_rules, DepthLimit, SizeLimit]
# The documents REST generates nest a generic relation's object as whichever type it is (a
# change record's object: any type), where fields of one name may differ in type from type to
# type; each type's fields are read by its own plan, so they never need merging.
GENERATED_RULES = [rule for rule in RULES if rule is not OverlappingFieldsCanBeMergedRule]


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
        errors = generated.validate(GRAPHQL_SCHEMA, document, GENERATED_RULES)
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
        return prepared.plan.execute(variables, context)
    return execute(GRAPHQL_SCHEMA, prepared.document, None, context, variables, operation_name)
