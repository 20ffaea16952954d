from queryengine.registry import Display, Resource, register

from .models import CustomField, CustomFieldChoice, Note, Role, Status, Tag

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
