from django.apps import AppConfig


class IpamConfig(AppConfig):
    name = "inventory.ipam"
    label = "ipam"
    verbose_name = "IPAM"
    default_auto_field = "django.db.models.BigAutoField"
