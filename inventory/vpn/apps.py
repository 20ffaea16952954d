from django.apps import AppConfig


class VpnConfig(AppConfig):
    name = "inventory.vpn"
    label = "vpn"
    default_auto_field = "django.db.models.BigAutoField"
