"""System jobs the reference lists beside its own maintenance: here, refreshing dynamic groups.

Groups are evaluated when read (a member list is a query, never a stored cache), so the refresh
has nothing to rebuild: it evaluates each filter- or set-based group the user may view and
reports how many members it has, which is what the reference's run logs."""

from __future__ import annotations

from django.apps import apps

from .base import Job, ObjectVar

name = "System Jobs"

_GROUP_TYPES = ["dynamic-filter", "dynamic-set"]


class RefreshDynamicGroupCaches(Job):
    """Re-calculate and re-cache the membership lists of Dynamic Groups."""

    single_group = ObjectVar(
        model=apps.get_model("extras", "DynamicGroup"),
        query_params={"group_type__in": _GROUP_TYPES},
        required=False,
        description="Select to refresh only a single specified group instead of all groups",
    )

    class Meta:
        name = "Refresh Dynamic Group Caches"
        description = "Re-calculate and re-cache the membership lists of Dynamic Groups."
        has_sensitive_variables = False
        read_only = False

    def run(self, single_group=None):
        from inventory.extras.groups import member_resource, members_q

        groups = self.objects(apps.get_model("extras", "DynamicGroup")).filter(group_type__in=_GROUP_TYPES)
        if single_group is not None:
            groups = groups.filter(pk=single_group.pk)
        groups = list(groups.select_related("content_type").order_by("name", "pk"))
        if not groups:
            self.logger.info("No relevant dynamic groups were specified, nothing to do.")
            return {"groups": {}}
        self.logger.info("Re-calculating and re-caching group members. This may take some time.")
        counts = {}
        for group in groups:
            model = group.content_type.model_class()
            # Members the user may not view are neither counted nor named.
            count = (
                0 if member_resource(model) is None else self.objects(model).filter(members_q(group)).count()
            )
            counts[group.name] = count
            self.logger.info(
                "Cache refreshed successfully, now with %d members", count, extra={"object": group}
            )
        self.logger.info("Cache(s) refreshed")
        return {"groups": counts}
