"""Jobs every installation has: data-quality checks on IP space, a bulk rename, exports and the
change log's retention. Each reads and writes only what the user it runs for may."""

from __future__ import annotations

import re
from collections import defaultdict

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count

from .base import BooleanVar, ChoiceVar, DryRunVar, IntegerVar, Job, ObjectVar, StringVar

name = "Data Quality"


def _ipam():
    from inventory.ipam import models, networks

    return models, networks


class FindDuplicateIPAddresses(Job):
    """Report every host address that appears more than once in the global table: outside any VRF,
    in several namespaces (a namespace holds a host once, so a VRF, in one namespace, does too)."""

    vrf = ObjectVar(model=apps.get_model("ipam", "VRF"), required=False, description="Only this VRF")

    class Meta:
        name = "Find duplicate IP addresses"
        has_sensitive_variables = False
        read_only = True
        soft_time_limit = 300
        time_limit = 360

    def run(self, vrf=None):
        models, networks = _ipam()
        addresses = self.objects(models.IPAddress)
        if vrf is not None:
            addresses = addresses.filter(vrf=vrf)
        groups = (
            addresses.values("vrf_id", "ip_version", "host_address")
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .order_by("vrf_id", "ip_version", "host_address")
        )
        vrf_names = dict(self.objects(models.VRF).values_list("pk", "name"))
        found = []
        for group in groups:
            host = networks.address_text(group["ip_version"], group["host_address"])
            vrf_id = group["vrf_id"]
            # A VRF the user may not view is shown by its id, as the API shows it.
            where = "Global" if vrf_id is None else vrf_names.get(vrf_id, str(vrf_id))
            copies = addresses.filter(
                vrf_id=group["vrf_id"], ip_version=group["ip_version"], host_address=group["host_address"]
            )
            for ip in copies:
                self.logger.warning(
                    "%s is used %d times in %s", host, group["n"], where, extra={"object": ip}
                )
            found.append({"vrf": where, "address": host, "count": group["n"]})
        if not found:
            self.logger.success("No duplicate IP addresses.")
        return {"duplicates": found}


class CheckParents(Job):
    """Check that every prefix and IP address sits inside a suitable parent prefix of its VRF:
    an address needs a containing network or pool prefix (not only a container), and a prefix
    must not sit inside a pool."""

    class Meta:
        name = "Check prefix and IP address parents"
        has_sensitive_variables = False
        read_only = True
        soft_time_limit = 600
        time_limit = 660

    def run(self):
        models, networks = _ipam()
        by_vrf = defaultdict(list)  # (vrf, version) -> [(first, last, length, type, prefix)]
        # Parents are judged among the prefixes the user may view: a hidden one is never named.
        prefixes = list(self.objects(models.Prefix))
        for prefix in prefixes:
            span = (
                networks.from_bytes(prefix.network_address),
                networks.from_bytes(prefix.broadcast_address),
            )
            by_vrf[prefix.vrf_id, prefix.ip_version].append(
                (*span, prefix.prefix_length, prefix.type, prefix)
            )

        def parent(vrf_id, version, first, last, length, exclude=None):
            candidates = [
                p for p in by_vrf[vrf_id, version] if p[0] <= first and last <= p[1] and p[4] is not exclude
            ]
            candidates = [p for p in candidates if p[2] < length or (exclude is None and p[2] <= length)]
            return max(candidates, key=lambda p: p[2], default=None)

        problems = 0
        for prefix in prefixes:
            first, last = (
                networks.from_bytes(prefix.network_address),
                networks.from_bytes(prefix.broadcast_address),
            )
            found = parent(
                prefix.vrf_id, prefix.ip_version, first, last, prefix.prefix_length, exclude=prefix
            )
            if found is not None and found[3] == "pool":
                problems += 1
                self.logger.warning("%s sits inside the pool %s", prefix, found[4], extra={"object": prefix})
        for ip in self.objects(models.IPAddress):
            host = networks.from_bytes(ip.host_address)
            found = parent(ip.vrf_id, ip.ip_version, host, host, 129)
            if found is None:
                problems += 1
                self.logger.warning("%s has no parent prefix in its VRF", ip, extra={"object": ip})
            elif found[3] == "container":
                problems += 1
                self.logger.warning(
                    "%s has only the container %s as its parent", ip, found[4], extra={"object": ip}
                )
        if problems:
            self.logger.failure("%d objects without a suitable parent", problems)
        else:
            self.logger.success("Every prefix and IP address has a suitable parent.")
        return {"problems": problems}


def _renamable_models() -> list[tuple[str, str]]:
    """Object types with a `name` column clients may write (their API route's model)."""
    from queryengine.registry import resources

    found = []
    for resource in resources():
        field = next((f for f in resource.fields if f.name == "name" and f.model_field is not None), None)
        if field is not None and field.model_field.editable and resource.writable:
            found.append((resource.object_type, resource.object_type))
    return found


class BulkRename(Job):
    """Rename every object of a type whose name matches a regular expression (`re.sub`
    replacement, e.g. `\\1`). With `dryrun` it only reports the new names. Only objects the user
    may view are matched; renaming one they may not change fails the run, renaming nothing."""

    object_type = ChoiceVar(choices=(), description="The type of the objects to rename")
    pattern = StringVar(description="Regular expression matched against each name")
    replacement = StringVar(description="Replacement (may use groups: \\1)", required=False, default="")
    case_insensitive = BooleanVar(description="Match regardless of case")
    dryrun = DryRunVar()

    class Meta:
        name = "Bulk rename"
        has_sensitive_variables = False
        dryrun_default = True
        soft_time_limit = 900
        time_limit = 960

    @classmethod
    def variables(cls):
        found = super().variables()
        found["object_type"].choices = _renamable_models()
        return found

    def run(self, object_type, pattern, replacement, case_insensitive, dryrun):
        try:
            regex = re.compile(pattern, re.IGNORECASE if case_insensitive else 0)
        except re.error as exc:
            raise ValueError(f"pattern: {exc}") from None
        model = apps.get_model(object_type)
        changes = []
        for obj in self.objects(model).order_by("pk"):
            new = regex.sub(replacement or "", obj.name) if obj.name is not None else None
            if new != obj.name:
                changes.append((obj, new))
        if changes and not dryrun:
            # One write of the API for the user: all or none, as a bulk PATCH.
            self.update_objects(model, [{"id": str(obj.pk), "name": new} for obj, new in changes])
        verb = "would rename" if dryrun else "renamed"
        for obj, new in changes:
            self.logger.info("%s %r to %r", verb, obj.name, new, extra={"object": obj})
        self.logger.success("%d objects %s", len(changes), "to rename (dry run)" if dryrun else "renamed")
        renamed = [{"id": str(obj.pk), "old": obj.name, "new": new} for obj, new in changes]
        return {"dryrun": dryrun, "renamed": renamed}


class PurgeChangeLog(Job):
    """Delete change records older than the retention period (CHANGELOG_RETENTION_DAYS, or
    the days given): those the user may delete. Schedule it daily to keep the log to its
    retention."""

    days = IntegerVar(required=False, min_value=1, description="Keep this many days (default: the setting)")

    class Meta:
        name = "Purge the change log"
        has_sensitive_variables = False
        soft_time_limit = 1800
        time_limit = 1860

    def run(self, days=None):
        from inventory.extras.changelog import purge
        from inventory.extras.models import ObjectChange
        from queryengine.errors import PermissionDenied
        from queryengine.permissions import allowed_rows, within
        from queryengine.registry import resource_for

        rows = allowed_rows(resource_for(ObjectChange), self.user, "delete")
        if rows is None:
            raise PermissionDenied("This user may not delete change records.")
        purged = purge(days, within(ObjectChange.objects.all(), rows))
        self.logger.success("%d change records purged", purged)
        return {"purged": purged}


class ExportObjectList(Job):
    """Export the objects of a type to CSV, as its list answers `format=csv` (the same columns,
    filters and permissions), into a file kept with the job's result."""

    content_type = ObjectVar(model=ContentType, description="Type of objects to export (id or dcim.device)")
    query_string = StringVar(
        description='List filters in URL query format, e.g. "status=Active&location=AMS01"',
        required=False,
        default="",
    )

    class Meta:
        name = "Export Object List"
        description = "Export a list of objects to CSV, filtered as the list's own query parameters."
        has_sensitive_variables = False
        read_only = True
        soft_time_limit = 1800
        time_limit = 2000

    def run(self, content_type, query_string=""):
        from queryengine.registry import resource_for
        from rest.exports import list_csv

        resource = resource_for(content_type.model_class()) if content_type.model_class() else None
        if resource is None:
            raise ValueError(f"{content_type.app_label}.{content_type.model} has no list to export")
        text, count = list_csv(self.user, resource, query_string or "")
        plural = resource.model._meta.verbose_name_plural.lower().replace(" ", "_")
        self.create_file(f"netinventory_{plural}.csv", text)
        self.logger.success("Exported %d %s", count, resource.model._meta.verbose_name_plural)
        return {"count": count}
