"""Django's migrate, building only a new database through the squashed migrations."""

import contextlib

from django.core.management.commands import migrate
from django.db import connections

from inventory.squashing import history_kept, migrated_before


class Command(migrate.Command):
    def handle(self, *args, **options):
        # A database that records migrations of ours upgrades through the history it was built by
        # (or, built by the squashed path, records all of): see history_kept.
        connection = connections[options["database"]]
        with history_kept() if migrated_before(connection) else contextlib.nullcontext():
            return super().handle(*args, **options)
