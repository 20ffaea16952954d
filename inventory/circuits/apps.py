from django.apps import AppConfig


class CircuitsConfig(AppConfig):
    name = "inventory.circuits"
    label = "circuits"
    default_auto_field = "django.db.models.BigAutoField"
