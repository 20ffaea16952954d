from django.apps import AppConfig, apps
from django.db.models.signals import post_delete


class DcimConfig(AppConfig):
    name = "inventory.dcim"
    label = "dcim"
    verbose_name = "DCIM"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from .models.cables import Cable, CableTermination, drop_cable_of, release_ends

        post_delete.connect(lambda instance, **_: release_ends(instance), sender=Cable, weak=False)
        # Per concrete model: a receiver for every sender would cost every model its fast deletes.
        for model in apps.get_models():
            if issubclass(model, CableTermination):
                post_delete.connect(lambda instance, **_: drop_cable_of(instance), sender=model, weak=False)
