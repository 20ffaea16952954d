import django.db.migrations.operations.special
import inventory.vpn.examples
from django.db import migrations


class Migration(migrations.Migration):

    replaces = [('vpn', '0002_example_profiles')]

    dependencies = [
        ('vpn', '0001_initial'),
    ]

    operations = [
        migrations.RunPython(
            code=inventory.vpn.examples.create_examples,
            reverse_code=django.db.migrations.operations.special.RunPython.noop,
        ),
    ]
