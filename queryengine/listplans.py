"""How a plan reads lists of related objects: one query of (owner, member) pairs for the whole
page, whatever its size and at every depth, and one for the members' texts where they show more
than a reference (itself a plan, whose own lists are read the same way, a level at a time).

A list whose field takes arguments (the members' filters, `limit`, `offset`) narrows the pair
query by them for the request (relatedlists.narrowed, the generic executor's own narrowing);
one without reads through a query prepared once. Members the viewer may not see are left out
by the pair query itself.
"""

from __future__ import annotations

from django.db.models import F
from graphql import FieldNode
from graphql.execution.values import get_argument_values

from . import jsonsql
from .prepared import PreparedQuery
from .registry import Resource, resource_for
from .relatedlists import Relation, narrowed
from .selections import fields, is_reference, reference_text


class MemberPlan:
    """Builds the JSON lists of members from (owner id, member) pairs.

    `column` is what the pair query reads for a member: its id, or its JSON text when the
    database writes it (content types). A member shown as a reference is written once per
    distinct member from `reference` (text pieces around its id), a fuller one by a nested plan.
    """

    def __init__(self, plan, column, reference: list | None = None):
        self.plan = plan
        self.column = column
        self.reference = reference

    @classmethod
    def compile(cls, plans, target: Resource, node: FieldNode, id_path: str) -> MemberPlan:
        """`plans`: the object plan class (compiler.ObjectPlan) that reads fuller members."""
        id_text = jsonsql.IdText(F(id_path))
        if is_reference(node):
            pieces = reference_text(target, fields(node.selection_set), None).parts
            return cls(None, id_text, [p.encode() if isinstance(p, str) else None for p in pieces])
        return cls(plans.of(target, node.selection_set), id_text)

    def group(self, pairs: list, base: str, viewer=None) -> dict:
        if self.plan is not None or self.reference is not None:
            members = {member for _, member in pairs}
            if self.plan is not None:
                texts = self.plan.load(members, base, viewer, narrow=False)
            else:
                texts = {m: b"".join(m.encode() if p is None else p for p in self.reference) for m in members}
            pairs = [(owner, texts[member]) for owner, member in pairs]
        grouped: dict = {}
        for owner, member in pairs:
            grouped.setdefault(owner, []).append(member)
        # Base-URL marks stay: the owner's text is replaced as a whole.
        return {owner: b"[" + b",".join(members) + b"]" for owner, members in grouped.items()}


def content_types(through, source: str, member: str):
    """A list of content types (`app_label.model`), written by the database: a load function."""
    order = (f"{member}__app_label", f"{member}__model")
    label = jsonsql.Cat(F(order[0]), jsonsql.const("."), F(order[1]))
    members = MemberPlan(None, jsonsql.JsonBytes(jsonsql.JsonString(label)))
    pairs = PreparedQuery(
        through,
        lambda: (
            through._default_manager.filter(jsonsql.IdIn(F(source)), **{f"{member}__isnull": False})
            .order_by(*order)
            .annotate(_owner=jsonsql.IdText(F(source)), _member=members.column)
            .values_list("_owner", "_member")
        ),
    )
    return lambda ids, base, viewer: members.group(pairs.rows(ids), base, viewer)


def related_list(plans, relation: Relation, node: FieldNode, field_def) -> tuple[object, set]:
    """(load function, resources shown inside) of a list of related objects. `field_def` is the
    list's GraphQL field (its arguments are coerced with each request's variables)."""
    target = resource_for(relation.target)
    members = MemberPlan.compile(plans, target, node, relation.member_id)
    order = relation.order()

    def pair_query(queryset):
        # One query for the page (cheaper than a correlated subquery per row). Members come in
        # their own order; grouping by owner keeps it.
        return (
            queryset.order_by(*order)
            .annotate(_owner=jsonsql.IdText(F(relation.owner)), _member=members.column)
            .values_list("_owner", "_member")
        )

    def base():
        return relation.through._default_manager.filter(jsonsql.IdIn(F(relation.owner)), **relation.present)

    pairs = PreparedQuery(relation.through, lambda: pair_query(base()))
    inside = {target, *(members.plan.inside if members.plan is not None else ())}
    takes_arguments = bool(node.arguments)

    def load(ids, base_url, viewer):
        variables = {} if viewer is None else viewer.variables
        arguments = get_argument_values(field_def, node, variables) if takes_arguments else {}
        budget = getattr(viewer, "budget", None)
        if viewer is None or not arguments and budget is None and viewer.subset(target) is None:
            return members.group(pairs.rows(ids), base_url, viewer)
        queryset = narrowed(relation, base(), viewer, arguments)
        if queryset is None:
            return {}
        queryset = pair_query(queryset)
        if budget is not None:
            queryset = queryset[: budget.left + 1]
        found = pairs.rows(ids, queryset)
        if budget is not None:
            budget.take(len(found))
        return members.group(found, base_url, viewer)

    return load, inside
