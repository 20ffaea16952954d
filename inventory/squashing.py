"""The squashed migrations: only a new database is built by them, with the one operation they use."""

import contextlib
from unittest import mock

from django.apps import apps
from django.db.migrations.graph import MigrationGraph
from django.db.migrations.operations.base import Operation
from django.db.migrations.operations.fields import AddField
from django.db.migrations.operations.models import AddConstraint, AddIndex, CreateModel
from django.db.migrations.recorder import MigrationRecorder


def _through_own_model(field) -> bool:
    through = getattr(field.remote_field, "through", None) if field.many_to_many else None
    return through is not None and not (not isinstance(through, str) and through._meta.auto_created)


def _model_of(operation) -> str:
    return operation.name_lower if isinstance(operation, CreateModel) else operation.model_name_lower


class Together(Operation):
    """Operations applied as one step: Django's state of the models is rebuilt once afterwards,
    rather than after each of them. With every model related to every other (tags, statuses,
    content types), rebuilding after each of hundreds of operations took minutes on a new
    database; once per migration takes a fraction of a second."""

    reduces_to_sql = False

    def __init__(self, operations):
        self.operations = list(operations)

    def deconstruct(self):
        return (self.__class__.__name__, [self.operations], {})

    def describe(self):
        return f"{len(self.operations)} operations together"

    def state_forwards(self, app_label, state):
        # Without its rendered apps the state records each change cheaply; the models changed
        # (and those they refer to) are rendered again once, at the end.
        apps = state.__dict__.pop("apps", None)
        for operation in self.operations:
            operation.state_forwards(app_label, state)
        if apps is not None:
            state.apps = apps
            changed = {(app_label, _model_of(op)) for op in self.operations}
            state.reload_models(sorted(changed), delay=True)

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        # Each table is created from its final shape in `to_state`: foreign keys to tables made
        # later in this step are constraints PostgreSQL checks at the end of the migration.
        # Columns added to an existing table come after the tables: each from the table as it was
        # before this step (`from_state`), so a column that rebuilds the table (SQLite) comes
        # before those that do not. A many-to-many field through a model of its own has no
        # column: its model's table is the relation. A constraint or index added to a table made
        # in this step is already there (the table has its final shape): adding it again fails on
        # PostgreSQL.
        created = {op.name_lower for op in self.operations if isinstance(op, CreateModel)}
        for operation in self.operations:
            if isinstance(operation, AddField) and _through_own_model(operation.field):
                continue
            if isinstance(operation, AddConstraint | AddIndex) and operation.model_name_lower in created:
                continue
            operation.database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        for operation in reversed(self.operations):
            operation.database_backwards(app_label, schema_editor, from_state, to_state)


def migrated_before(connection) -> bool:
    """Whether the database records a migration of ours (made by the history or the squashed path)."""
    ours = {config.label for config in apps.get_app_configs() if config.name.startswith("inventory.")}
    return any(app in ours for app, _ in MigrationRecorder(connection).applied_migrations())


@contextlib.contextmanager
def history_kept():
    """Migration loaders made within keep each squashed migration's history in its place.

    Each squashed run creates today's tables, the alterations of later runs folded in. A database
    migrated through the history up to the end of a run has the tables of that time: the next
    squashed run, which Django would apply since none of its history is applied, would leave them
    without those alterations. Such a database keeps upgrading through the historical migrations,
    as Django does with a squashed migration partly applied; a squashed one whose history is all
    applied counts as applied still (the loader marks it so before removing it from the graph).
    The patch holds for the whole process while it lasts: for one-shot commands, like migrate."""
    with mock.patch.object(MigrationGraph, "remove_replaced_nodes", MigrationGraph.remove_replacement_node):
        yield
