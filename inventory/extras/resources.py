from queryengine.registry import Display, Resource, register

from .models import Note, Role, Status, Tag

register(Resource(Status, "extras/statuses"))
register(Resource(Role, "extras/roles"))
register(Resource(Tag, "extras/tags"))
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
