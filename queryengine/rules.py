"""The rules a GraphQL document is validated by: graphql-core's and the service's bounds on what
one document may cost (nesting, root fields, rows)."""

from __future__ import annotations

from itertools import islice

from django.conf import settings
from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLID,
    GraphQLList,
    GraphQLNonNull,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    OverlappingFieldsCanBeMergedRule,
    ValidationRule,
    VariablesInAllowedPositionRule,
    get_nullable_type,
    specified_rules,
    type_from_ast,
)
from graphql.validation.rules.variables_in_allowed_position import allowed_variable_usage

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
        error = depth_error(node, fragments_of(self.context.document))
        if error is not None:
            self.report_error(error)


def depth_error(operation: OperationDefinitionNode, fragments: dict) -> GraphQLError | None:
    if _depth(operation.selection_set, fragments) > MAX_QUERY_DEPTH + 1:
        return GraphQLError(f"Query is nested deeper than {MAX_QUERY_DEPTH} levels.", operation)
    return None


def fragments_of(document) -> dict[str, FragmentDefinitionNode]:
    return {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}


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
        fragments = fragments_of(self.context.document)
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


def as_id(var_type):
    """A variable's type with `UUID` read as `ID`: an object's id is an `ID` argument, as the
    reference types it, and documents declaring it a `UUID` are taken too."""
    if isinstance(var_type, GraphQLNonNull | GraphQLList):
        return type(var_type)(as_id(var_type.of_type))
    return GraphQLID if getattr(var_type, "name", None) == "UUID" else var_type


class VariablesInAllowedPosition(VariablesInAllowedPositionRule):
    """graphql-core's rule, a `UUID` variable allowed where an `ID` is expected."""

    def leave_operation_definition(self, operation: OperationDefinitionNode, *_args):
        schema = self.context.schema
        for usage in self.context.get_recursive_variable_usages(operation):
            var_def = self.var_def_map.get(usage.node.name.value)
            if not var_def or not usage.type:
                continue
            var_type = type_from_ast(schema, var_def.type)
            if var_type and not any(
                allowed_variable_usage(schema, t, var_def.default_value, usage.type, usage.default_value)
                for t in (var_type, as_id(var_type))
            ):
                self.report_error(
                    GraphQLError(
                        f"Variable '${usage.node.name.value}' of type '{var_type}' used"
                        f" in position expecting type '{usage.type}'.",
                        [var_def, usage.node],
                    )
                )


ROOT_FIELDS_COUNTED = 10_000
RULES = [
    *(VariablesInAllowedPosition if r is VariablesInAllowedPositionRule else r for r in specified_rules),
    DepthLimit,
    SizeLimit,
]
# The documents REST generates nest a generic relation's object as whichever type it is (a
# change record's object: any type), where fields of one name may differ in type from type to
# type; each type's fields are read by its own plan, so they never need merging.
GENERATED_RULES = [rule for rule in RULES if rule is not OverlappingFieldsCanBeMergedRule]
