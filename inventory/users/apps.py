from django.apps import AppConfig


class UsersConfig(AppConfig):
    name = "inventory.users"
    label = "users"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import permissions  # noqa: F401 - installs the object-permission loader in the engine
