"""Django's migrate, building only a new database through the squashed migrations, with no
limit on how long a statement may run (DATABASE_STATEMENT_TIMEOUT is for requests and jobs)."""

import contextlib

from django.core.management.commands import migrate
from django.db import connections

from inventory.squashing import history_kept, migrated_before
from queryengine.timeouts import unbounded


class Command(migrate.Command):
    def handle(self, *args, **options):
        # A database that records migrations of ours upgrades through the history it was built by
        # (or, built by the squashed path, records all of): see history_kept.
        connection = connections[options["database"]]
        kept = history_kept() if migrated_before(connection) else contextlib.nullcontext()
        with unbounded(connection), kept:
            return super().handle(*args, **options)
