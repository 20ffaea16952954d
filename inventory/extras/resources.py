from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from queryengine.filters import parse_bool, parse_int
from queryengine.registry import (
    ANY_TYPE,
    Computed,
    CustomFilter,
    Display,
    GenericList,
    Legacy,
    Resource,
    every_object,
    extend_graphql,
    register,
)
from queryengine.relationnames import singular_relations

from . import gitapi, graphql, metadata, tagging
from .contacts import CONTACT_FILTERS, TEAM_FILTERS, takes_contacts
from .contacts import association_labels as contact_association_labels
from .features import CONTENT_TYPE_FILTERS
from .groups import GROUP_FILTERS, static_member_labels, takes_static_groups
from .metadata import metadata_labels
from .models import (
    CHANGE_ACTIONS,
    IMAGE_PARENTS,
    ComputedField,
    ConfigContext,
    ConfigContextSchema,
    Contact,
    ContactAssociation,
    CustomField,
    CustomFieldChoice,
    CustomLink,
    DynamicGroup,
    DynamicGroupMembership,
    ExportTemplate,
    ExternalIntegration,
    GitRepository,
    GraphQLQuery,
    ImageAttachment,
    MetadataChoice,
    MetadataType,
    Note,
    ObjectChange,
    ObjectMetadata,
    Relationship,
    RelationshipAssociation,
    Role,
    SavedView,
    Secret,
    SecretsGroup,
    SecretsGroupAssociation,
    StaticGroupAssociation,
    Status,
    Tag,
    Team,
    UserSavedViewAssociation,
    Webhook,
    contact_label,
    image_label,
)
from .relationships import association_labels, by_key_filters
from .savedviews import association_scope, saved_view_scope


# API 1.x shows a status as {value, label} (its slug and name) wherever an object has one.
def write_key(field, value) -> None:
    if not isinstance(value, str):
        raise ValueError("Not a valid string.")
    field.key = value


KEY_AS_NAME = Computed(("key",), str, write=write_key)
register(Resource(Status, "extras/statuses", scoped_by_content_types=True, legacy=Legacy(as_choice=True)))
register(Resource(Role, "extras/roles", scoped_by_content_types=True))
register(
    Resource(
        Tag,
        "extras/tags",
        scoped_by_content_types=True,
        loaded={"tagged_items": tagging.TAGGED_ITEMS},
        legacy=Legacy(nested=("name", "slug", "color"), since={"content_types": "1.3"}),
    )
)
register(
    Resource(
        Note,
        "extras/notes",
        display=Display(("note",), lambda note: note[:50]),
        search=("note",),
        generic={"assigned_object": ("assigned_object_type", "assigned_object_id")},
        type_ids=("assigned_object_type",),
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
        # 1.x named a custom field by `name` (the key its data is stored under) and, from 1.4,
        # also by `slug`: both are today's key.
        legacy=Legacy(nested=("name",), renamed={"slug": "key"}, fields={"name": KEY_AS_NAME}),
    )
)
register(
    Resource(
        CustomFieldChoice,
        "extras/custom-field-choices",
        display=Display(("value",)),
        search=("value",),
        natural_key=None,
        changes_relate_to=("custom_field",),
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
        legacy=Legacy(nested=("name", "slug"), renamed={"name": "label", "slug": "key"}),
    )
)
register(
    Resource(
        RelationshipAssociation,
        "extras/relationship-associations",
        display=Display((), load=association_labels),
        search=("relationship__label", "relationship__key"),
        natural_key=None,
        filters=by_key_filters(),
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
        legacy=Legacy(nested=("content_type", "label"), renamed={"slug": "key"}),
    )
)
# What a Git repository provides names it as its owner (nested by depth, as the reference).
OWNER = {"owner": ("owner_content_type", "owner_object_id", ("extras.gitrepository",))}
register(Resource(ConfigContextSchema, "extras/config-context-schemas", generic=OWNER))
register(
    Resource(
        ConfigContext,
        "extras/config-contexts",
        generic=OWNER,
        unscoped=("roles", "tags"),
        # `location`, `location_id`, ... beside `locations`, and the schema by the reference's name.
        relations={**singular_relations(ConfigContext), "schema": "config_context_schema"},
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
        search=("contact__name", "team__name"),
        # Never empty here; the reference's is (its `__isnull` filter).
        isnull=("associated_object_type",),
        generic_lists={
            "associated_contacts": GenericList(
                "associated_object_type", "associated_object_id", takes_contacts
            )
        },
        natural_key=None,
    )
)
register(
    Resource(
        MetadataType,
        "extras/metadata-types",
        # The types applying to the content type of that id (one value), as the reference's.
        filters={
            "content_type_id": CustomFilter(
                build=lambda ids: Q(content_types__id=ids[-1]),
                parse=parse_int,
                oracle=lambda kind, ids: kind.content_types.filter(id=ids[-1]).exists(),
                samples=lambda kinds: [
                    str(pk) for k in kinds for pk in k.content_types.values_list("id", flat=True)
                ][:2],
                argument="Int",
            )
        },
        notes=True,
    )
)
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
        search=metadata.SEARCHED,
        search_q=metadata.search_q,
        json_filters=("scoped_fields",),
        filters={"value": metadata.VALUE_FILTER},
        graphql_names={"_value": "value"},  # the stored value, as the reference's column is named
        # Shown beside its type and id, nested by depth, as the reference's serializer shows it.
        generic={"assigned_object": ("assigned_object_type", "assigned_object_id", ANY_TYPE)},
        generic_lists={
            "associated_object_metadata": GenericList(
                "assigned_object_type", "assigned_object_id", every_object
            )
        },
        natural_key=None,
    )
)
register(
    Resource(
        DynamicGroup,
        "extras/dynamic-groups",
        # REST shows a group's children as its memberships (each names its operator and weight),
        # GraphQL as the groups, with their parents, as the reference's schema does.
        reverse={"children": "DynamicGroupMembership.parent_group"},
        filters=GROUP_FILTERS,
        lists={
            "children": "extras.DynamicGroup.memberships_as_child__parent_group",
            "parents": "extras.DynamicGroup.dynamic_group_memberships__group",
        },
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
        search=("operator", "group__name", "parent_group__name"),
        natural_key=None,
        timestamp_filters=True,
    )
)
register(
    Resource(
        StaticGroupAssociation,
        "extras/static-group-associations",
        display=Display((), load=static_member_labels),
        generic={"associated_object": ("associated_object_type", "associated_object_id", ANY_TYPE)},
        search=(
            "dynamic_group__name",
            "dynamic_group__description",
            "associated_object_type__app_label",
            "associated_object_type__model",
        ),
        generic_lists={
            "static_group_association_set": GenericList(
                "associated_object_type", "associated_object_id", takes_static_groups
            )
        },
        natural_key=None,
    )
)
register(Resource(Secret, "extras/secrets", notes=True))
register(
    Resource(
        SecretsGroup,
        "extras/secrets-groups",
        # The group's secrets are shown as its associations (each names its access and secret
        # type), as the reference does; they are written through the associations' endpoint.
        hidden=("secrets",),
        reverse={"secrets": "SecretsGroupAssociation.secrets_group"},
        # The associations under the reference's name too, and what uses the group by the
        # reference's names (a cloud account's relation has none here).
        lists={
            "secrets": "extras.Secret.secrets_groups",  # in GraphQL, the secrets themselves
            "secrets_group_associations": "extras.SecretsGroupAssociation.secrets_group",
            "cloudaccount_set": "cloud.CloudAccount.secrets_group",
            "interfaceredundancygroup_set": "dcim.InterfaceRedundancyGroup.secrets_group",
        },
        relations={"secrets": "secrets"},  # by id or name
        notes=True,
    )
)
register(
    Resource(
        SecretsGroupAssociation,
        "extras/secrets-groups-associations",
        display=Display(
            ("secrets_group__name", "access_type", "secret_type", "secret__name"),
            lambda group, access, kind, secret: f"{group}: {access} {kind}: {secret}",
        ),
        search=("secrets_group__name", "secret__name"),
        natural_key=None,
    )
)
register(Resource(Webhook, "extras/webhooks", search=("name", "payload_url"), notes=True))
register(
    Resource(
        ExternalIntegration,
        "extras/external-integrations",
        display=Display(("name", "remote_url"), lambda name, url: f"{name} ({url})"),
        search=("name", "remote_url"),
        json_filters=("extra_config", "headers"),
        filters={
            "has_secrets_group": CustomFilter(
                lambda values: Q(secrets_group__isnull=not values[-1]),
                parse_bool,
                lambda integration, values: (integration.secrets_group_id is not None) == values[-1],
                ("true", "false"),
            )
        },
    )
)
register(
    Resource(
        GitRepository,
        "extras/git-repositories",
        search=("name", "remote_url", "branch"),
        # Set by syncs, never by clients (the reference's serializer makes it read-only).
        read_only=("current_head",),
        hidden=("provided_contents",),
        computed={"provided_contents": gitapi.PROVIDED},
        filters={"provided_contents": gitapi.PROVIDING},
        notes=True,
        legacy=Legacy(only=()),  # the slug is a field of every version (it names the clone)
    )
)
register(
    Resource(GraphQLQuery, "extras/graphql-queries", generic=OWNER, search=("name", "query"), notes=True)
)
register(
    Resource(
        SavedView,
        "extras/saved-views",
        display=Display(
            ("owner__username", "view", "name"), lambda owner, view, name: f"{owner} - {view} - {name}"
        ),
        search=("name", "owner__username"),
        natural_key=None,
        owner_default="owner",
        # Any signed-in user reads their own and the shared ones; permissions grant the others.
        view_permission=False,
        scope=saved_view_scope,
    )
)
register(
    Resource(
        UserSavedViewAssociation,
        "extras/user-saved-view-associations",
        display=Display(
            (
                "user__username",
                "saved_view__owner__username",
                "saved_view__view",
                "saved_view__name",
                "view_name",
            ),
            lambda user, owner, view, name, view_name: f"{user}: {owner} - {view} - {name} - {view_name}",
        ),
        search=("view_name", "user__username", "saved_view__name"),
        natural_key=None,
        timestamp_filters=True,
        view_permission=False,  # a user reads their own; permissions grant the others
        scope=association_scope,
    )
)
register(
    Resource(
        ImageAttachment,
        "extras/image-attachments",
        display=Display(("name", "image"), image_label),
        search=("name",),
        # Nested by depth as the object it belongs to (a device, a location or a rack).
        generic={"parent": ("content_type", "object_id", IMAGE_PARENTS)},
        natural_key=None,
        type_ids=("content_type",),
        legacy=Legacy(nested=("name", "image"), created_is_date=False),
    )
)
extend_graphql(query=graphql.query_fields, mutation=graphql.mutation_fields, types=graphql.type_fields)


def content_type_display(app_label: str, model: str) -> str:
    """ "DCIM | device", as Django labels a type; a type whose model is gone shows its name."""
    try:
        config = apps.get_app_config(app_label)
        return f"{config.verbose_name} | {config.get_model(model)._meta.verbose_name}"
    except LookupError:
        return model


register(
    Resource(
        ContentType,
        "extras/content-types",
        display=Display(("app_label", "model"), content_type_display),
        search=("app_label", "model"),
        natural_key=None,
        natural_slug=False,
        view_permission=False,  # any signed-in user, as the reference
        writable=False,
        filters=CONTENT_TYPE_FILTERS,
        # What is scoped to or defined for a content type, by the reference's names.
        lists={
            **{
                name: f"{model}.content_types"
                for name, model in (
                    ("tags", "extras.Tag"),
                    ("roles", "extras.Role"),
                    ("statuses", "extras.Status"),
                    ("job_hooks", "extras.JobHook"),
                    ("webhooks", "extras.Webhook"),
                    ("metadata_types", "extras.MetadataType"),
                    ("location_types", "dcim.LocationType"),
                )
            },
            "export_templates": "extras.ExportTemplate.content_type",
            "export_template_owners": "extras.ExportTemplate.owner_content_type",
            "datacompliance_set": "data_validation.DataCompliance.content_type",
            **{
                f"{kind.lower()}validationrule_set": f"data_validation.{kind}ValidationRule.content_type"
                for kind in ("MinMax", "RegularExpression", "Required", "Unique")
            },
        },
    )
)


register(
    Resource(
        ObjectChange,
        "extras/object-changes",
        display=Display(
            (
                "changed_object_type__app_label",
                "changed_object_type__model",
                "object_repr",
                "action",
                "user_name",
            ),
            lambda app, model, label, action, user: (
                f"{content_type_display(app, model)} {label} {dict(CHANGE_ACTIONS)[action].lower()} by {user}"
            ),
        ),
        # Nested by depth like any relation; the related object is shown as its type and id only.
        generic={"changed_object": ("changed_object_type", "changed_object_id", ANY_TYPE)},
        dangling=("changed_object",),
        # The reference's may be empty, and are filtered by id too.
        isnull=("changed_object_type",),
        type_ids=("changed_object_type",),
        hidden=("differences",),  # kept for webhooks' snapshots, not shown (as the reference)
        search=("object_repr", "user_name"),
        natural_key=None,
        writable=False,  # written by every change, never by clients
        notes=False,
    )
)
