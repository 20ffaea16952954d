"""A path that crosses a circuit to a far termination with no cable is incomplete (no far end,
not active), as in the reference; it used to end at that termination. A path ending at a
termination whose circuit has no other termination keeps it."""

from django.db import migrations
from django.db.models import Exists, OuterRef


def incomplete_at_uncabled_far_ends(apps, schema_editor):
    CablePath = apps.get_model("dcim", "CablePath")
    CircuitTermination = apps.get_model("circuits", "CircuitTermination")
    ContentType = apps.get_model("contenttypes", "ContentType")
    kind = ContentType.objects.filter(app_label="circuits", model="circuittermination").first()
    if kind is None:
        return
    sibling = CircuitTermination.objects.filter(circuit=OuterRef("circuit")).exclude(pk=OuterRef("pk"))
    far_ends = CircuitTermination.objects.filter(Exists(sibling)).values("pk")
    CablePath.objects.filter(destination_type=kind, destination_id__in=far_ends).update(
        destination_type=None, destination_id=None, is_active=False
    )


class Migration(migrations.Migration):
    dependencies = [
        ("dcim", "0019_software_image_files"),
        ("circuits", "0007_termination_cloud_network"),
    ]

    operations = [migrations.RunPython(incomplete_at_uncabled_far_ends, migrations.RunPython.noop)]
