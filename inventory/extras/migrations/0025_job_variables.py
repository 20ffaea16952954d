from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('extras', '0024_image_attachments'),
    ]

    operations = [
        migrations.AddField(
            model_name='job',
            name='_variables',
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
    ]
