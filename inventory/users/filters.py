"""Filters of users by the change records they made: a change record's user is kept without a
reverse relation (its foreign key is hidden), so these read the records' user column."""

from __future__ import annotations

from django.apps import apps
from django.db.models import Q

from queryengine.filters import parse_bool, parse_uuid
from queryengine.registry import CustomFilter


def _changes():
    return apps.get_model("extras", "ObjectChange").objects.all()


def _made(ids) -> Q:
    return Q(pk__in=_changes().filter(pk__in=ids).values("user_id"))


def _making() -> Q:
    return Q(pk__in=_changes().filter(user__isnull=False).values("user_id"))


def _samples(_objects) -> list:
    return [str(pk) for pk in _changes().filter(user__isnull=False).values_list("pk", flat=True)[:2]]


CHANGE_FILTERS = {
    # `object_changes=<change id>` (`__n`, `__isnull`): the users who made those changes.
    "object_changes": CustomFilter(
        build=_made,
        parse=parse_uuid,
        oracle=lambda user, ids: _changes().filter(pk__in=ids, user_id=user.pk).exists(),
        samples=_samples,
        negated=True,
        present=_making,
    ),
    "has_object_changes": CustomFilter(
        build=lambda values: _making() if values[-1] else ~_making(),
        parse=parse_bool,
        oracle=lambda user, values: _changes().filter(user_id=user.pk).exists() == values[-1],
        samples=("true", "false"),
        boolean=True,
    ),
}
