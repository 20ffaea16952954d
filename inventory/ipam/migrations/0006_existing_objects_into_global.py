from django.db import migrations

from inventory.ipam.parents import GLOBAL, GLOBAL_DESCRIPTION, tree


def into_global(apps, schema_editor):
    """Existing VRFs, prefixes and addresses go into the Global namespace, under their closest
    containing prefixes."""
    Namespace = apps.get_model("ipam", "Namespace")
    Prefix, IPAddress, VRF = (apps.get_model("ipam", name) for name in ("Prefix", "IPAddress", "VRF"))
    namespace, _ = Namespace.objects.get_or_create(name=GLOBAL, defaults={"description": GLOBAL_DESCRIPTION})
    for model in (VRF, Prefix, IPAddress):
        model.objects.filter(namespace__isnull=True).update(namespace=namespace)
    prefixes = list(
        Prefix.objects.values_list(
            "pk", "namespace_id", "ip_version", "network_address", "broadcast_address", "prefix_length"
        )
    )
    addresses = list(IPAddress.objects.values_list("pk", "namespace_id", "ip_version", "host_address"))
    prefix_parents, address_parents = tree(prefixes, addresses)
    for model, parents in ((Prefix, prefix_parents), (IPAddress, address_parents)):
        rows = [model(pk=pk, parent_id=parent) for pk, parent in parents.items() if parent is not None]
        model.objects.bulk_update(rows, ["parent"], batch_size=1000)



class Migration(migrations.Migration):
    dependencies = [("ipam", "0005_namespaces_rirs_parents")]

    operations = [migrations.RunPython(into_global, migrations.RunPython.noop)]
