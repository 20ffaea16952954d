"""Slugs for API 1.x, derived from the stored objects' names."""

from django.db import migrations

from inventory.slugs import migration_operations


class Migration(migrations.Migration):
    dependencies = [("circuits", "0004_cable_paths")]

    operations = migration_operations("circuits", {"provider": "name", "providernetwork": "name", "circuittype": "name"})
