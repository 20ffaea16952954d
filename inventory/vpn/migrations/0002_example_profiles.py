from django.db import migrations

from inventory.vpn.examples import create_examples


class Migration(migrations.Migration):
    dependencies = [("vpn", "0001_initial")]

    operations = [migrations.RunPython(create_examples, migrations.RunPython.noop)]
