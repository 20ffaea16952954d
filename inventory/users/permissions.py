"""Object permissions for the engine: a user's enabled permissions, directly or through their
groups, read with one query per request; and Django model permissions without auth groups."""

from __future__ import annotations

from django.contrib.auth.backends import ModelBackend
from django.db.models import Q

from queryengine.permissions import support_object_permissions

from .models import ObjectPermission


def object_permissions(user) -> dict:
    """{(object_type, action): [constraint sets]} of the user's enabled object permissions."""
    rows = (
        ObjectPermission.objects.filter(Q(users=user) | Q(groups__users=user), enabled=True)
        .order_by()
        .values_list("pk", "actions", "constraints", "object_types__app_label", "object_types__model")
    )
    granted: dict = {}
    seen = set()
    for pk, actions, constraints, app_label, model in rows:
        if (pk, app_label, model) in seen or app_label is None:
            continue  # a permission reached both directly and through a group
        seen.add((pk, app_label, model))
        sets = ObjectPermission(constraints=constraints).list_constraints()
        for action in actions if isinstance(actions, list) else ():
            granted.setdefault((f"{app_label}.{model}", action), []).extend(sets)
    return granted


support_object_permissions(object_permissions)


class ModelPermissionBackend(ModelBackend):
    """Django's model permissions, granted to users directly: groups here carry object
    permissions, not model permissions."""

    def get_group_permissions(self, user_obj, obj=None):
        return set()
