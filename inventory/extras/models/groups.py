from django.contrib.contenttypes.models import ContentType
from django.db import models

from inventory.base import BaseModel, OrganizationalModel, PrimaryModel, ValueChoiceField
from inventory.slugs import SlugModel

GROUP_TYPES = [
    ("dynamic-filter", "Filter-defined"),
    ("dynamic-set", "Group of groups"),
    ("static", "Static assignment"),
]
GROUP_OPERATORS = [
    ("union", "Include (OR)"),
    ("intersection", "Restrict (AND)"),
    ("difference", "Exclude (NOT)"),
]


class DynamicGroup(SlugModel, PrimaryModel):
    """A set of objects of one type: those a stored filter selects (`dynamic-filter`), those listed
    one by one (`static`, through StaticGroupAssociation) or a combination of other groups
    (`dynamic-set`, through DynamicGroupMembership). Members are computed when asked for."""

    is_dynamic_group_associable_model = False

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)
    group_type = ValueChoiceField(max_length=16, choices=GROUP_TYPES, default="dynamic-filter")
    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    filter = models.JSONField(
        default=dict,
        blank=True,
        help_text="A JSON-encoded dictionary of filter parameters defining membership of this group",
    )

    class Meta:
        ordering = ["content_type", "name"]

    def clean(self):
        super().clean()
        from ..groups import check_group

        check_group(self)


class DynamicGroupMembership(BaseModel):
    """One child group of a `dynamic-set` group: its members combined with the parent's so far by
    `operator`, children taken in `weight` order."""

    # A group that is another's child cannot be deleted: the parent's meaning would change.
    # Found from the child by `memberships_as_child` (a group's parents, in GraphQL), with no
    # accessor, list or filter of its own.
    group = models.ForeignKey(
        DynamicGroup, on_delete=models.PROTECT, related_name="+", related_query_name="memberships_as_child"
    )
    parent_group = models.ForeignKey(
        DynamicGroup, on_delete=models.CASCADE, related_name="dynamic_group_memberships"
    )
    operator = models.CharField(max_length=12, choices=GROUP_OPERATORS)
    weight = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["parent_group", "weight", "group"]
        constraints = [
            models.UniqueConstraint(
                fields=["group", "parent_group", "operator", "weight"],
                name="extras_dynamicgroupmembership_unique",
            )
        ]

    def __str__(self) -> str:
        return f"{self.parent_group} > {self.operator} ({self.weight}) > {self.group}"

    def clean(self):
        super().clean()
        from ..groups import check_membership

        check_membership(self)


class StaticGroupAssociation(OrganizationalModel):
    """One object listed as a member of a `static` group."""

    is_contact_associable_model = False
    is_dynamic_group_associable_model = False

    dynamic_group = models.ForeignKey(
        DynamicGroup, on_delete=models.CASCADE, related_name="static_group_associations"
    )
    associated_object_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    associated_object_id = models.UUIDField(db_index=True)

    class Meta:
        ordering = ["dynamic_group", "associated_object_type", "associated_object_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["dynamic_group", "associated_object_type", "associated_object_id"],
                name="extras_staticgroupassociation_unique",
            )
        ]
        indexes = [models.Index(fields=["associated_object_type", "associated_object_id"])]

    def __str__(self) -> str:
        return f"{self.associated_object_id} as a member of {self.dynamic_group}"

    def clean(self):
        super().clean()
        from ..groups import check_association

        check_association(self)
