"""Sample saved views of two users (shared, private, a global default) and their default views."""

from __future__ import annotations

from inventory.extras.models import SavedView, UserSavedViewAssociation


def build_saved_views(s: str, owner, other) -> dict[type, list]:
    views = [
        SavedView.objects.create(
            owner=owner,
            name=f"Active devices{s}",
            view="dcim:device_list",
            config={"filter_params": {"status": ["Active"]}, "sort_order": ["name"], "pagination_count": 50},
            is_global_default=not s,  # one global default per list, however many samples
        ),
        SavedView.objects.create(
            owner=owner,
            name=f"My racks{s}",
            view="dcim:rack_list",
            config={"table_config": {"RackTable": {"columns": ["name", "location", "status"]}}},
            is_shared=False,
        ),
        SavedView.objects.create(
            owner=other,
            name=f"Operator private{s}",
            view="dcim:location_list",
            config={"filter_params": {"location_type": ["Site"]}},
            is_shared=False,
        ),
        SavedView.objects.create(
            owner=other,
            name=f"Shared tenants{s}",
            view="tenancy:tenant_list",
            config={"sort_order": ["-name"]},
        ),
    ]
    # A user has one default per list: a second sample (the same owner) adds the other user's.
    mine = [] if s else [UserSavedViewAssociation.objects.create(user=owner, saved_view=views[0])]
    associations = [
        *mine,
        UserSavedViewAssociation.objects.create(user=other, saved_view=views[3]),
        UserSavedViewAssociation.objects.create(user=other, saved_view=views[2]),
    ]
    return {SavedView: views, UserSavedViewAssociation: associations}
