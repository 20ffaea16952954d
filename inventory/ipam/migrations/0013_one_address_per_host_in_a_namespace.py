import ipaddress

from django.db import migrations, models
from django.db.models import Count


def _host(version: int, stored) -> str:
    value = int.from_bytes(bytes(stored), "big")
    return str(ipaddress.IPv4Address(value) if version == 4 else ipaddress.IPv6Address(value))


def refuse_duplicate_hosts(apps, schema_editor):
    """The unique index would fail on the first duplicate with a bare integrity error; name them
    all instead, so the operator can merge or move them and migrate again. Nothing is changed."""
    IPAddress = apps.get_model("ipam", "IPAddress")
    duplicates = (
        IPAddress.objects.values("namespace__name", "ip_version", "host_address")
        .annotate(copies=Count("pk"))
        .filter(copies__gt=1)
        .order_by("namespace__name")
    )
    found = [
        f"{_host(row['ip_version'], row['host_address'])} in namespace {row['namespace__name']!r}"
        f" ({row['copies']} addresses)"
        for row in duplicates[:50]
    ]
    if found:
        raise RuntimeError(
            "An IP address host may be held once per namespace, and these are held more than once: "
            + "; ".join(found)
            + ". Delete, merge or move the extra addresses to another namespace, then migrate again."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("ipam", "0012_route_targets_services_ranges"),
    ]

    operations = [
        migrations.RunPython(refuse_duplicate_hosts, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="ipaddress",
            constraint=models.UniqueConstraint(
                fields=("namespace", "ip_version", "host_address"),
                name="ipam_ipaddress_namespace_host",
                violation_error_message="IP address with this Parent and Host already exists.",
            ),
        ),
    ]
