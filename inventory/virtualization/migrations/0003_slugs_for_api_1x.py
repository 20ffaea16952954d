"""Slugs for API 1.x, derived from the stored objects' names."""

from django.db import migrations

from inventory.slugs import migration_operations


class Migration(migrations.Migration):
    dependencies = [("virtualization", "0002_local_config_context_schema")]

    operations = migration_operations("virtualization", {"clustertype": "name", "clustergroup": "name"})
