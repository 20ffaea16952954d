"""Slugs for API 1.x, derived from the stored objects' names."""

from django.db import migrations

from inventory.slugs import migration_operations


class Migration(migrations.Migration):
    dependencies = [("dcim", "0009_cable_types")]

    operations = migration_operations("dcim", {"locationtype": "name", "location": "name", "rackgroup": "name", "manufacturer": "name", "devicetype": "model", "platform": "name", "deviceredundancygroup": "name"})
