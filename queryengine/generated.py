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
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    NameNode,
    OperationDefinitionNode,
    OperationType,
    ProvidedRequiredArgumentsRule,
    SelectionSetNode,
    VariableNode,
    is_input_type,
    is_required_argument,
    is_type_sub_type_of,
    type_from_ast,
)

from .rules import GENERATED_RULES, DepthLimit, as_id, depth_error, fragments_of
from .selections import node_text, response_key, spread_names


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
    if _header_is_valid(schema, document, fragments, known):
        return []
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


def _header_is_valid(schema: GraphQLSchema, document: DocumentNode, fragments: dict, known: set) -> bool:
    """Whether a document that is one operation over fragments found valid before is valid,
    decided without running the validation rules on it where it takes the form REST's documents
    take: root fields with arguments bound to variables, each selecting fragment spreads (or
    nothing). Its skeleton (the fields and the fragments they spread, without arguments or
    variables) is validated once; the arguments and variables are checked here against the
    schema as the rules would check them: declared once with an input type, used, known to the
    field, of a type the argument accepts, every required argument given. False (the caller
    validates as usual) for anything else: a first fragment, a literal, a default value, a
    directive."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragment_count = len(document.definitions) - len(operations)
    if len(operations) != 1 or fragment_count != len(fragments) or set(fragments) != known:
        return False
    operation = operations[0]
    root = schema.get_root_type(operation.operation)
    if operation.operation == OperationType.SUBSCRIPTION or root is None or operation.directives:
        return False
    declared = {}
    for definition in operation.variable_definitions:
        name = definition.variable.name.value
        var_type = type_from_ast(schema, definition.type)
        if name in declared or definition.default_value or definition.directives:
            return False
        if var_type is None or not is_input_type(var_type):
            return False
        declared[name] = var_type
    used, skeleton, keys = set(), [], set()
    for field in operation.selection_set.selections:
        if not isinstance(field, FieldNode) or field.directives or response_key(field) in keys:
            return False
        keys.add(response_key(field))
        definition = root.fields.get(field.name.value)
        if definition is None or not _arguments_fit(schema, field, definition, declared, used):
            return False
        spreads = () if field.selection_set is None else field.selection_set.selections
        if not all(isinstance(s, FragmentSpreadNode) and not s.directives for s in spreads):
            return False
        skeleton.append((response_key(field), field.name.value, tuple(s.name.value for s in spreads)))
    if used != set(declared) or depth_error(operation, fragments) is not None:
        return False
    return _skeleton_is_valid(schema, operation, fragments, tuple(skeleton))


def _arguments_fit(schema: GraphQLSchema, field: FieldNode, definition, declared: dict, used: set) -> bool:
    given = set()
    for argument in field.arguments:
        name, value = argument.name.value, argument.value
        accepted = definition.args.get(name)
        if name in given or accepted is None or not isinstance(value, VariableNode):
            return False
        var_type = declared.get(value.name.value)
        if var_type is None or not any(
            is_type_sub_type_of(schema, t, accepted.type) for t in (var_type, as_id(var_type))
        ):
            return False
        given.add(name)
        used.add(value.name.value)
    return all(name in given for name, arg in definition.args.items() if is_required_argument(arg))


def _skeleton_is_valid(schema: GraphQLSchema, operation, fragments: dict, skeleton: tuple) -> bool:
    spread = {name for *_, names in skeleton for name in names}
    if not spread <= set(fragments):
        return False
    key = (
        operation.operation,
        skeleton,
        tuple(sorted((n, fragments[n].type_condition.name.value) for n in spread)),
    )
    if key in VALID_SKELETONS:
        return True
    bare = tuple(
        FieldNode(alias=f.alias, name=f.name, arguments=(), directives=(), selection_set=f.selection_set)
        for f in operation.selection_set.selections
    )
    shape = OperationDefinitionNode(
        operation=operation.operation,
        variable_definitions=(),
        directives=(),
        selection_set=SelectionSetNode(selections=bare),
    )
    stand_ins = [_stand_in(fragments[name]) for name in sorted(spread)]
    if graphql.validate(schema, DocumentNode(definitions=(shape, *stand_ins)), SKELETON_RULES):
        return False
    if len(VALID_SKELETONS) >= MAX_VALID_FRAGMENTS:
        VALID_SKELETONS.clear()
    VALID_SKELETONS.add(key)
    return True


# The skeletons found valid: (operation type, root fields (response key, field, fragments
# spread), the type each spread fragment is on). Its arguments are checked on their own.
VALID_SKELETONS: set[tuple] = set()
SKELETON_RULES = [rule for rule in STOOD_IN_RULES if rule is not ProvidedRequiredArgumentsRule]
