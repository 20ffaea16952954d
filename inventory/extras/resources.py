from queryengine.registry import Display, Resource, register

from .contacts import CONTACT_FILTERS, TEAM_FILTERS
from .contacts import association_labels as contact_association_labels
from .metadata import metadata_labels
from .models import (
    ComputedField,
    ConfigContext,
    ConfigContextSchema,
    Contact,
    ContactAssociation,
    CustomField,
    CustomFieldChoice,
    CustomLink,
    ExportTemplate,
    MetadataChoice,
    MetadataType,
    Note,
    ObjectMetadata,
    Relationship,
    RelationshipAssociation,
    Role,
    Status,
    Tag,
    Team,
    contact_label,
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
    )
)

CONTACT_DISPLAY = Display(("name", "phone", "email"), contact_label)
CONTACT_SEARCH = ("name", "phone", "email", "address", "comments")
register(
    Resource(
        Contact, "extras/contacts", display=CONTACT_DISPLAY, search=CONTACT_SEARCH, filters=CONTACT_FILTERS
    )
)
register(Resource(Team, "extras/teams", display=CONTACT_DISPLAY, search=CONTACT_SEARCH, filters=TEAM_FILTERS))
register(
    Resource(
        ContactAssociation,
        "extras/contact-associations",
        display=Display((), load=contact_association_labels),
        search=(),
        natural_key=None,
    )
)
register(Resource(MetadataType, "extras/metadata-types", notes=True))
register(
    Resource(
        MetadataChoice,
        "extras/metadata-choices",
        display=Display(("value",)),
        search=("value",),
        natural_key=None,
    )
)
register(
    Resource(
        ObjectMetadata,
        "extras/object-metadata",
        display=Display((), load=metadata_labels),
        search=(),
        natural_key=None,
    )
)
