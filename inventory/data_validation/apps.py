from django.apps import AppConfig


class DataValidationConfig(AppConfig):
    name = "inventory.data_validation"
    label = "data_validation"
    verbose_name = "Data Validation Engine"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import enforcement

        enforcement.connect()
