"""`/api/users/config/`: the requesting user's own preferences, one JSON object per user."""

from __future__ import annotations

import orjson
from django.conf import settings
from django.db import transaction

from .auth import no_credentials
from .options import PARSES, RENDERS
from .parameters import ACTION_SHAPE
from .views import Endpoint, detail_error, json_body, not_an_object

TOO_LARGE = "The preferences would take more than the {} bytes allowed (MAX_REQUEST_BODY_BYTES)."


def deep_merge(stored: dict, given: dict) -> dict:
    """`given` over `stored`: an object given where one is stored merges into it, key by key;
    any other value (null, a list, a value where an object was) replaces what was there."""
    merged = dict(stored)
    for key, value in given.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


class UserConfigEndpoint(Endpoint):
    """The requesting user's preferences: GET reads them, PATCH merges an object into them."""

    methods = ("GET", "PATCH")
    query_parameters = ACTION_SHAPE
    request_schema = {"type": "object", "additionalProperties": True}

    def signed_in(self, request):
        user = request.context.user
        if not user.is_authenticated:  # even where reading needs no permission: they are a user's
            raise detail_error(403, no_credentials(request))
        return user

    def get(self, request):
        user = self.signed_in(request)
        stored = type(user).objects.filter(pk=user.pk).values_list("config_data", flat=True).first()
        return stored if isinstance(stored, dict) else {}, 200

    def patch(self, request):
        user = self.signed_in(request)
        if not request.context.write_enabled:
            raise detail_error(403, "You do not have permission to perform this action.")
        given = json_body(request)
        if not isinstance(given, dict):
            raise not_an_object(given)
        with transaction.atomic():
            # Locked while merged: two clients changing different keys at once both keep theirs.
            locked = type(user).objects.select_for_update().filter(pk=user.pk)
            stored = locked.values_list("config_data", flat=True).first()
            merged = deep_merge(stored if isinstance(stored, dict) else {}, given)
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            if limit and len(orjson.dumps(merged)) > limit:
                raise detail_error(400, TOO_LARGE.format(limit))
            # One column, through the queryset: saving the whole user would write every field.
            locked.update(config_data=merged)
        return merged, 200

    def options(self, request):
        self.signed_in(request)
        return {
            "name": "User Config",
            "description": "The requesting user's preferences.",
            "renders": RENDERS,
            "parses": PARSES,
        }, 200
