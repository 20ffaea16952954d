"""The plan of a whole document: one RootPlan per root field (a list, one object, a count or a
mutation), run together where they may be (queryengine/together.py), each reading its objects
through an ObjectPlan (queryengine/compiler.py)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, partial

import orjson
import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F
from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    OperationType,
)
from graphql.execution.values import get_argument_values, get_variable_values

from . import (
    jsonsql,
    prepared,
    query,
    storedshapes,
    together,
)
from .compiler import ObjectPlan
from .mutations import mutation_fields, perform, perform_with_writer
from .registry import (
    Resource,
    resources,
)
from .rules import fragments_of
from .selections import (
    COMPILING,
    Unsupported,
    fields,
    response_key,
)
from .sharedplans import SharedPlans
from .timeouts import timed_out


@dataclass
class RootPlan:
    key: str
    kind: str  # list | count | single
    resource: Resource
    field_def: object
    node: FieldNode
    objects: ObjectPlan | None = None

    def run(self, variables: dict, context):
        arguments = get_argument_values(self.field_def, self.node, variables)
        user = context.user
        if self.kind == "count":
            return query.count_queryset(self.resource, user, arguments)
        if self.kind == "delete":
            return perform(self.kind, self.resource, context, arguments)
        plan = self.objects
        viewer = context.viewer()
        viewer.prime(plan.inside)
        if self.kind in ("create", "update"):
            # Written objects are read back through the plan, in input order. Many-to-many values
            # the write knows to be empty need no query.
            # A single object's UPDATE may wait for its read-back and travel with it.
            # Change records wait for the shapes they keep (storedshapes.recorded_with_read_back).
            with prepared.reading_back(), storedshapes.holding() as held:
                written, writer = perform_with_writer(self.kind, self.resource, context, arguments)
                created = self.kind == "create"
                ids = {str(obj.pk) for obj in written}
                loaded = storedshapes.recorded_with_read_back(
                    plan, held, writer, written, created, viewer, context
                )
                if loaded is None:
                    empty = writer.known_empty(plan.many_lists, written, created)
                    loaded = plan.load(ids, context.base_url, viewer, narrow=False, empty=empty)
            prepared.run_deferred(connections[self.resource.model._default_manager.db])
            for obj in written:
                if hasattr(obj, "stored_row"):
                    context.stored_rows[(self.resource.model, str(obj.pk))] = obj.stored_row
            return [orjson.Fragment(loaded[str(obj.pk)]) for obj in written]
        # The page (filters, permissions, order, limit) is one small query for ids; the plan
        # renders exactly those rows.
        ids = {"_id": jsonsql.IdText(F("pk"))}
        if self.kind == "list":
            page = list(
                query.list_queryset(self.resource, user, arguments, ids).values_list("_id", flat=True)
            )
            if viewer.budget is not None:
                viewer.budget.take(len(page))
        elif (found := self.readable_id(arguments.get("id"), viewer)) is not None:
            page = found  # the plan's query finds the object, or nothing
        else:
            page = query.single_queryset(self.resource, user, arguments.get("id"), ids).values_list(
                "_id", flat=True
            )
        rows, loaded = plan.fetch(list(page), context.base_url, viewer, memo={})
        built = plan.build(rows, context.base_url, loaded)
        if self.kind == "single":
            return built[0] if built else None
        return built

    def readable_id(self, value, viewer) -> list[str] | None:
        """[the id as the plans' queries hold it] when the caller may read every object of the
        resource: a single object then needs no query of its own before its row is read."""
        if viewer.subset(self.resource) is not None:
            return None
        try:
            return [str(self.resource.parse_pk(str(value)))]
        except ValueError:
            return None


class Plan:
    def __init__(self, schema: GraphQLSchema, operation: OperationDefinitionNode, roots: list[RootPlan]):
        self.schema = schema
        self.operation = operation
        self.name = operation.name.value if operation.name else None
        self.roots = roots

    def execute(self, variables: dict | None, context) -> ExecutionResult:
        coerced = get_variable_values(self.schema, self.operation.variable_definitions or (), variables or {})
        if isinstance(coerced, list):
            return ExecutionResult(data=None, errors=coerced)
        context.viewer().variables = coerced  # nested lists' arguments may name them
        # Reads run at once (a page's count beside its rows); writes in order, in their transaction.
        roots = self.roots
        if self.operation.operation == OperationType.QUERY:
            roots = sorted(roots, key=lambda root: root.kind == "count")  # the heavier root runs here
            stopped: list = []  # roots read in turn after a timed-out one are not read
            outcomes = together.run_all(
                DEFAULT_DB_ALIAS, [partial(_outcome, r, coerced, context, stopped) for r in roots]
            )
        else:
            outcomes = [_outcome(root, coerced, context) for root in roots]
        by_root = dict(zip((id(root) for root in roots), outcomes, strict=True))
        data, errors = {}, []
        for root in self.roots:
            data[root.key], error = by_root[id(root)]
            if error is not None:
                errors.append(error)
        return ExecutionResult(data=data, errors=errors or None)


def _outcome(root: RootPlan, variables: dict, context, stopped: list | None = None) -> tuple:
    """(value, error) of one root field; none of either once a root before it has aborted the
    transaction the roots run in (a value PostgreSQL refuses), or ran out of time (`stopped`):
    that root's error says why."""
    if stopped or _aborted(connections[DEFAULT_DB_ALIAS]):
        return None, None
    try:
        return root.run(variables, context), None
    except GraphQLError as exc:
        return None, exc
    except Exception as exc:  # reported like graphql-core reports a failing resolver
        if stopped is not None and timed_out(exc) is not None:
            stopped.append(root)
        return None, GraphQLError(str(exc), root.node, path=[root.key], original_error=exc)


def _aborted(connection) -> bool:
    raw = connection.connection if connection.vendor == "postgresql" else None
    return raw is not None and raw.info.transaction_status == psycopg.pq.TransactionStatus.INERROR


@cache  # the registry is complete before the first document compiles
def _root_fields() -> dict[str, tuple[str, Resource]]:
    mapping = dict(mutation_fields())
    for resource in resources():
        mapping[resource.list_field] = ("list", resource)
        mapping[f"{resource.list_field}_count"] = ("count", resource)
        mapping[resource.single_field] = ("single", resource)
    for resource in resources():  # the reference's names, where free (schema.add_reference_roots)
        for name, own in resource.reference_fields.items():
            kind = "single" if own == resource.single_field else "list"
            mapping.setdefault(name, (kind, resource))
            if kind == "list":
                mapping.setdefault(f"{name}_count", ("count", resource))
    return mapping


def compile_document(schema: GraphQLSchema, document: DocumentNode) -> Plan | None:
    """A plan for the document, or None when it needs the generic executor."""
    try:
        return _compile(schema, document)
    except Unsupported:
        return None


def _compile(schema: GraphQLSchema, document: DocumentNode) -> Plan:
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = fragments_of(document)
    if len(operations) != 1 or len(operations) + len(fragments) != len(document.definitions):
        raise Unsupported("one operation")
    operation = operations[0]
    if operation.directives:
        raise Unsupported("directives")
    root_type = schema.mutation_type if operation.operation == OperationType.MUTATION else schema.query_type
    if root_type is None or operation.operation == OperationType.SUBSCRIPTION:
        raise Unsupported("subscriptions")
    known = _root_fields()
    roots = []
    shared = SharedPlans(fragments)
    compiling = COMPILING.set((fragments, shared))
    try:
        for node in fields(operation.selection_set):
            name = node.name.value
            if name not in known:
                raise Unsupported(f"root field {name}")
            kind, resource = known[name]
            if name not in root_type.fields:
                raise Unsupported(f"{name} is not a field of {root_type.name}")
            plan = RootPlan(response_key(node), kind, resource, root_type.fields[name], node)
            if kind not in ("count", "delete"):
                revealed = resource.shown_once if kind == "create" else ()
                selection = node.selection_set
                make = partial(ObjectPlan, resource, selection, revealed)
                plan.objects = shared.plan(resource, selection, make, revealed)
            roots.append(plan)
    finally:
        COMPILING.reset(compiling)
    return Plan(schema, operation, roots)


__all__ = ["GraphQLError", "Plan", "compile_document"]
