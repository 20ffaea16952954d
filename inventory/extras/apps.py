from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ExtrasConfig(AppConfig):
    name = "inventory.extras"
    label = "extras"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from queryengine.registry import extend_filters, on_delete, support_include

        from . import (
            changelog,
            computedfields,
            configcontexts,
            contacts,
            customfields,
            gitapi,
            groups,
            metadata,
            relationships,
            webhooks,
        )
        from .defaults import populate_defaults
        from .deletions import forget_with_objects
        from .models import IMAGE_PARENTS, ImageAttachment

        customfields.connect()
        relationships.connect()
        on_delete(groups.forget_deleted)
        on_delete(gitapi.forget_deleted)
        on_delete(forget_with_objects(ImageAttachment, ("content_type", "object_id"), only_for=IMAGE_PARENTS))
        extend_filters(groups.group_filters)
        contacts.connect()
        metadata.connect()
        changelog.connect()
        computedfields.connect()
        webhooks.connect()
        # Values objects show on request (`include=`), in the order the reference shows them.
        support_include("computed_fields", computedfields.INCLUDED)
        support_include("relationships", relationships.INCLUDED)
        support_include("config_context", configcontexts.INCLUDED)

        post_migrate.connect(populate_defaults, dispatch_uid="extras.populate_defaults")
