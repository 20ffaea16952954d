from django.apps import AppConfig


class UsersConfig(AppConfig):
    name = "inventory.users"
    label = "users"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from queryengine.definitions import watch

        from . import permissions  # noqa: F401 - installs the object-permission loader in the engine
        from .models import Token, User

        # Server processes keep the tokens they authenticated (rest.auth): any change to a token
        # or a user, in any process, makes every process read them again.
        watch(Token, User, transactional=False)
