from queryengine.registry import Display, Resource, register

from .groups import static_member_labels
from .models import (
    ComputedField,
    ConfigContext,
    ConfigContextSchema,
    CustomField,
    CustomFieldChoice,
    CustomLink,
    DynamicGroup,
    DynamicGroupMembership,
    ExportTemplate,
    Note,
    Relationship,
    RelationshipAssociation,
    Role,
    StaticGroupAssociation,
    Status,
    Tag,
)
from .relationships import association_labels

register(Resource(Status, "extras/statuses", scoped_by_content_types=True))
register(Resource(Role, "extras/roles", scoped_by_content_types=True))
register(Resource(Tag, "extras/tags", scoped_by_content_types=True))
register(
    Resource(
        Note,
        "extras/notes",
        display=Display(("note",), lambda note: note[:50]),
        search=("note",),
        generic={"assigned_object": ("assigned_object_type", "assigned_object_id")},
        natural_key=None,
        owner_field="user",
    )
)
register(
    Resource(
        CustomField,
        "extras/custom-fields",
        display=Display(("label",)),
        search=("key", "label", "description"),
        natural_key="key",
        notes=True,
    )
)
register(
    Resource(
        CustomFieldChoice,
        "extras/custom-field-choices",
        display=Display(("value",)),
        search=("value",),
        natural_key=None,
    )
)
register(
    Resource(
        Relationship,
        "extras/relationships",
        display=Display(("label",)),
        search=("label", "key", "description"),
        natural_key="key",
        notes=True,
    )
)
register(
    Resource(
        RelationshipAssociation,
        "extras/relationship-associations",
        display=Display((), load=association_labels),
        search=(),
        natural_key=None,
    )
)
register(
    Resource(
        ComputedField,
        "extras/computed-fields",
        display=Display(("label",)),
        search=("key", "label", "description", "template"),
        natural_key="key",
        notes=True,
    )
)
OWNER = {"owner": ("owner_content_type", "owner_object_id")}
register(Resource(ConfigContextSchema, "extras/config-context-schemas", generic=OWNER))
register(
    Resource(
        ConfigContext,
        "extras/config-contexts",
        generic=OWNER,
        unscoped=("roles", "tags"),
        notes=True,
    )
)
register(
    Resource(
        CustomLink, "extras/custom-links", search=("name", "text", "target_url", "group_name"), notes=True
    )
)
register(
    Resource(
        ExportTemplate,
        "extras/export-templates",
        display=Display(
            ("content_type__app_label", "content_type__model", "name"),
            lambda app, model, name: f"{app}.{model}: {name}",
        ),
        generic=OWNER,
        search=("name", "description"),
        natural_key=None,
        notes=True,
    )
)
register(
    Resource(
        DynamicGroup,
        "extras/dynamic-groups",
        reverse={"children": "DynamicGroupMembership.parent_group"},
        notes=True,
    )
)
register(
    Resource(
        DynamicGroupMembership,
        "extras/dynamic-group-memberships",
        display=Display(
            ("parent_group__name", "operator", "weight", "group__name"),
            lambda parent, operator, weight, group: f"{parent} > {operator} ({weight}) > {group}",
        ),
        search=(),
        natural_key=None,
    )
)
register(
    Resource(
        StaticGroupAssociation,
        "extras/static-group-associations",
        display=Display((), load=static_member_labels),
        generic={"associated_object": ("associated_object_type", "associated_object_id")},
        search=(),
        natural_key=None,
    )
)
