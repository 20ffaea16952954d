"""Slugs for API 1.x, derived from the stored objects' names."""

from django.db import migrations

from inventory.slugs import migration_operations


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0001_initial")]

    operations = migration_operations("tenancy", {"tenantgroup": "name", "tenant": "name"})
