from django.apps import AppConfig


class WirelessConfig(AppConfig):
    name = "inventory.wireless"
    label = "wireless"
    default_auto_field = "django.db.models.BigAutoField"
