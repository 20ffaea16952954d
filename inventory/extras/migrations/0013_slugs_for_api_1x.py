"""Slugs for API 1.x, derived from the stored objects' names."""

from django.db import migrations

from inventory.slugs import migration_operations


class Migration(migrations.Migration):
    dependencies = [("extras", "0012_scheduled_jobs_job_buttons_file_proxies")]

    operations = migration_operations("extras", {"status": "name", "role": "name", "tag": "name", "configcontextschema": "name", "dynamicgroup": "name", "graphqlquery": "name", "secret": "name", "secretsgroup": "name"})
