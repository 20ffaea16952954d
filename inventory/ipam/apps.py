from django.apps import AppConfig


class IpamConfig(AppConfig):
    name = "inventory.ipam"
    label = "ipam"
    default_auto_field = "django.db.models.BigAutoField"
