from django.apps import AppConfig


class DcimConfig(AppConfig):
    name = "inventory.dcim"
    label = "dcim"
    default_auto_field = "django.db.models.BigAutoField"
