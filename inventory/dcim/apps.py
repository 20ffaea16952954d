from django.apps import AppConfig, apps
from django.db.models import ProtectedError
from django.db.models.signals import post_delete, pre_delete


class DcimConfig(AppConfig):
    name = "inventory.dcim"
    label = "dcim"
    verbose_name = "DCIM"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from .models.cables import Cable, CableTermination, drop_cable_of, release_ends
        from .models.cabletypes import CableToCableTermination, unplug

        post_delete.connect(lambda instance, **_: release_ends(instance), sender=Cable, weak=False)
        pre_delete.connect(keep_first_connectors, sender=CableToCableTermination, weak=False)
        post_delete.connect(
            lambda instance, **_: unplug(instance), sender=CableToCableTermination, weak=False
        )
        # Per concrete model: a receiver for every sender would cost every model its fast deletes.
        for model in apps.get_models():
            if issubclass(model, CableTermination):
                post_delete.connect(lambda instance, **_: drop_cable_of(instance), sender=model, weak=False)


def keep_first_connectors(instance, origin=None, **_):
    """Connector 1 of each end is the cable's own end: it goes with its cable or its object only."""
    deleting_records = getattr(origin, "model", type(origin)) is type(instance)
    if instance.connector == 1 and deleting_records:
        raise ProtectedError(
            "Connector 1 of each end is the cable's own end: delete the cable instead.", [instance.cable]
        )
