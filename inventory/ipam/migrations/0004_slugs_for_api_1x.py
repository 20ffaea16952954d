"""Slugs for API 1.x, derived from the stored objects' names."""

from django.db import migrations

from inventory.slugs import migration_operations


class Migration(migrations.Migration):
    dependencies = [("ipam", "0003_vm_interface_assignments")]

    operations = migration_operations("ipam", {"vlangroup": "name"})
