from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ExtrasConfig(AppConfig):
    name = "inventory.extras"
    label = "extras"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import customfields
        from .defaults import populate_defaults

        customfields.connect()

        post_migrate.connect(populate_defaults, dispatch_uid="extras.populate_defaults")
