from queryengine.registry import Display, Legacy, Resource, register

from .filters import CHANGE_FILTERS
from .models import Group, ObjectPermission, Token, User

# A group's integer id (the reference's `groups` takes names only).
BY_GROUP_ID = {"groups_id": "groups__id"}

register(
    Resource(
        User,
        "users/users",
        display=Display(("username",)),
        search=("username", "first_name", "last_name", "email"),
        hidden=("password", "user_permissions"),
        natural_key="username",
        # Who is a superuser, staff, active or in which groups (which grant permissions).
        superuser_fields=("is_superuser", "is_staff", "is_active", "groups"),
        relations={
            **BY_GROUP_ID,
            "rack_reservations_id": "rack_reservations__id",
            "object_permissions": "object_permissions",  # by id or name
        },
        filters=CHANGE_FILTERS,
        legacy=Legacy(nested=("username",)),
    )
)
register(
    Resource(
        Token,
        "users/tokens",
        display=Display(("key", "user__username"), lambda key, username: f"{key[-6:]} ({username})"),
        search=("description",),
        hidden=("user",),  # always the reader: a user sees only their own tokens (below)
        shown_once=("key",),  # a key is a password: shown when it is made, then only its display
        # A user sees and manages only their own tokens, whatever their other permissions.
        scope=lambda queryset, user: queryset.filter(user=user) if user.is_authenticated else queryset.none(),
        natural_key=None,
        owner_field="user",
        view_permission=False,
        change_logged=False,  # a change record would hold the key
        legacy=Legacy(nested=("key", "write_enabled"), created_is_date=False),
    )
)
register(
    Resource(
        Group,  # Django's own (auth.group): integer ids, as the reference's
        "users/groups",
        search=("name",),
        counts={"user_count": "users.User.groups"},
        hidden=("permissions",),  # Django model permissions: groups here carry object permissions
        ordering=("name",),
        change_logged=False,  # as the reference's: a change record names objects by UUID
        superuser_writes=True,  # permissions name groups, and users are added to groups by name
    )
)
register(Resource(ObjectPermission, "users/permissions", superuser_writes=True, relations=BY_GROUP_ID))
