from django.apps import AppConfig


class UsersConfig(AppConfig):
    name = "inventory.users"
    label = "users"
    default_auto_field = "django.db.models.BigAutoField"
