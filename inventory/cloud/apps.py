from django.apps import AppConfig


class CloudConfig(AppConfig):
    name = "inventory.cloud"
    label = "cloud"
    default_auto_field = "django.db.models.BigAutoField"
