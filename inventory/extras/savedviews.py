"""Who sees saved views and default-view associations, and a user's saved view of a list."""

from __future__ import annotations

from django.db.models import Q

from queryengine.permissions import allowed_rows, exempt
from queryengine.registry import resource_for


def _visible(queryset, user, own: Q) -> object:
    """What object permissions grant, and beside them what is the user's `own` (any signed-in
    user's, whatever their permissions); everything where reading needs no permission."""
    resource = resource_for(queryset.model)
    if exempt(resource):
        return queryset
    if not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        return queryset if getattr(user, "is_superuser", False) else queryset.none()
    granted = allowed_rows(resource, user, "view")
    if granted is not None and not granted:
        return queryset  # every object: superusers, the model permission, an unconstrained grant
    return queryset.filter(own if granted is None else own | granted)


def saved_view_scope(queryset, user):
    """A saved view is seen by its owner, by everyone once shared, and by whoever's permissions
    grant it (as the reference's list pages offer them)."""
    return _visible(queryset, user, Q(is_shared=True) | Q(owner=user.pk))


def association_scope(queryset, user):
    """A user's default views are seen by that user and by whoever's permissions grant them."""
    return _visible(queryset, user, Q(user=user.pk))


def visible_saved_view(user, pk):
    """The saved view `pk` if the user may see it (NotFound otherwise)."""
    from queryengine.errors import NotFound
    from queryengine.permissions import restricted

    from .models import SavedView

    found = restricted(resource_for(SavedView), user).filter(pk=pk).first()
    if found is None:
        raise NotFound("No SavedView matches the given query.")
    return found


def signed_in(user) -> None:
    from queryengine.errors import PermissionDenied

    if not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        raise PermissionDenied()


def set_default(user, pk):
    """Make a saved view the user's default for its list (replacing their earlier one there)."""
    from django.db import transaction

    from .models import UserSavedViewAssociation

    signed_in(user)
    saved_view = visible_saved_view(user, pk)
    with transaction.atomic():
        association, _ = UserSavedViewAssociation.objects.update_or_create(
            user_id=user.pk, view_name=saved_view.view, defaults={"saved_view": saved_view}
        )
    return association


def clear_default(user, pk) -> bool:
    """The user's default for the saved view's list, if it is this view, cleared."""
    from .models import UserSavedViewAssociation

    signed_in(user)
    saved_view = visible_saved_view(user, pk)
    deleted, _ = UserSavedViewAssociation.objects.filter(user_id=user.pk, saved_view=saved_view).delete()
    return bool(deleted)
