"""Which objects of a resource a user may view, add, change or delete.

Django model permissions grant an action on every object of a model. Object permissions (kept
by an application, which installs a loader with `support_object_permissions`) grant it on the
objects matching constraints: ORM lookups over the object's fields, several sets meaning OR.
The engine asks the loader once per request user and compiles the constraints into each
query's WHERE, so lists, counts and details see exactly the same rows.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist, FieldError, ValidationError
from django.db.models import Q

from .registry import Resource

# `run` is granted on jobs (extras.job), as the reference's object permissions do.
ACTIONS = ("view", "add", "change", "delete", "run")
WRITES = ("add", "change", "delete")
USER_TOKEN = "$user"  # a constraint value standing for the requesting user

# (user) -> {(object_type, action): [constraint sets]}, where a set is a dict of lookups or
# None/{} for every object. Only enabled permissions of the user and their groups.
LOADERS: list[Callable] = []


class Everyone:
    """A reader who may see every object: the service's own reads on a caller's behalf (a
    change record's API shape, the result of a job the caller just started)."""

    is_superuser = is_authenticated = is_active = True
    pk = None

    def has_perm(self, perm, obj=None) -> bool:
        return True


def support_object_permissions(loader: Callable) -> None:
    LOADERS[:] = [loader]


def granted(user) -> dict:
    """The user's object permissions, read once per user object (that is, once per request)."""
    cache = user.__dict__.get("_object_permissions")
    if cache is None:
        cache = LOADERS[0](user) if LOADERS else {}
        user.__dict__["_object_permissions"] = cache
        user.__dict__["_allowed_rows"] = {}
    return cache


def constraint_q(constraints: list, user) -> Q:
    """The OR of constraint sets, `$user` replaced; an empty or null set allows everything."""
    combined = Q(pk__in=[])
    for constraint in constraints:
        if not constraint:
            return Q()
        combined |= Q(**{key: _substitute(value, user) for key, value in constraint.items()})
    return combined


def _substitute(value, user):
    if isinstance(value, list):
        return [user.pk if v == USER_TOKEN else v for v in value]
    return user.pk if value == USER_TOKEN else value


def allowed_rows(resource: Resource, user, action: str) -> Q | None:
    """None when `user` may not `action` any object of the resource; otherwise the condition the
    objects must meet (an empty Q: every object)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if user.is_superuser:
        return Q()
    if resource.superuser_writes and action in WRITES:
        return None
    if user.has_perm(f"{resource.app_label}.{action}_{resource.model_name}"):
        return Q()
    constraints = granted(user).get((resource.object_type, action))
    if constraints is None:
        return None
    cache = user.__dict__["_allowed_rows"]
    key = (resource.object_type, action)
    if key not in cache:
        cache[key] = _usable(resource, constraints, user)
    return cache[key]


def exempt(resource: Resource) -> bool:
    names = settings.EXEMPT_VIEW_PERMISSIONS
    return "*" in names or resource.object_type in names


def visible_rows(resource: Resource, user) -> Q | None:
    """None when `user` may read nothing of the resource; otherwise the condition its rows meet
    (an empty Q: all of them)."""
    if getattr(user, "is_superuser", False) and user.is_active:
        return Q()  # what every request of an automation account asks first, for each resource
    if exempt(resource):
        return Q()
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if not resource.view_permission:
        return Q()
    return allowed_rows(resource, user, "view")


def can_view(resource: Resource, user) -> bool:
    return visible_rows(resource, user) is not None


def restricted(resource: Resource, user, queryset=None):
    """Every object of the resource (or of `queryset`, one of its querysets) that `user` may
    read: the constraints of their object permissions become part of the query's WHERE."""
    if queryset is None:
        queryset = resource.model._default_manager.all()
    rows = visible_rows(resource, user)
    if rows is None:
        return queryset.none()
    if resource.scope is not None:
        queryset = resource.scope(queryset, user)
    return within(queryset, rows)


def _usable(resource: Resource, constraints: list, user) -> Q:
    """The constraints as one Q; a set that no longer fits the model (a field since removed)
    matches nothing rather than failing every read."""
    manager = resource.model._default_manager
    kept = []
    for constraint in constraints:
        try:
            manager.filter(constraint_q([constraint], user))
        except (FieldError, ValidationError, ValueError, TypeError):
            continue
        kept.append(constraint)
    return constraint_q(kept, user) if kept else Q(pk__in=[])


def within(queryset, rows: Q):
    """`queryset` narrowed to `rows`; through a subquery when a lookup crosses a to-many
    relation (tags), so an object matching twice is still one row."""
    if not rows:
        return queryset
    if crosses_many(queryset.model, rows):
        return queryset.filter(pk__in=queryset.model._default_manager.filter(rows).values("pk"))
    return queryset.filter(rows)


def crosses_many(model, q: Q) -> bool:
    for child in q.children:
        if isinstance(child, Q):
            if crosses_many(model, child):
                return True
            continue
        if not isinstance(child, tuple):  # an expression (Exists): decides its own rows
            continue
        current = model
        for part in child[0].split("__"):
            try:
                field = current._meta.get_field(part)
            except FieldDoesNotExist:
                break
            if field.many_to_many or field.one_to_many:
                return True
            if not field.is_relation:
                break
            current = field.related_model
    return False


def invalid_constraint(model, constraints) -> str | None:
    """Why `constraints` cannot filter `model` (None when they can), for validating permissions."""
    sets = constraints if isinstance(constraints, list) else [constraints]
    for constraint in sets:
        if constraint is not None and not isinstance(constraint, dict):
            return "Constraints must be an object of lookups or a list of such objects."
    try:
        model._default_manager.filter(constraint_q(sets, _NoUser()))
    except FieldError as exc:
        return str(exc)
    except (ValidationError, ValueError, TypeError) as exc:
        return "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
    return None


class _NoUser:
    """Stands for `$user` while a permission is validated (no request user yet)."""

    pk = None
