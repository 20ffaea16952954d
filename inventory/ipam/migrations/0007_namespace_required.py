import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ipam", "0006_existing_objects_into_global")]

    operations = [
        migrations.AlterField(
            model_name=name,
            name="namespace",
            field=models.ForeignKey(
                blank=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to="ipam.namespace"
            ),
        )
        for name in ("ipaddress", "prefix", "vrf")
    ]
