import inventory.squashing
from django.db import migrations, models


class Migration(migrations.Migration):

    replaces = [('extras', '0025_job_variables')]

    dependencies = [
        ('extras', '0024_image_attachments'),
    ]

    operations = [
        inventory.squashing.Together(
            operations=[migrations.AddField(
                model_name='job',
                name='_variables',
                field=models.JSONField(blank=True, default=list, editable=False),
            )],
        ),
    ]
