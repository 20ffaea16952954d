"""Django's SQLite backend with each statement held to DATABASE_STATEMENT_TIMEOUT
(queryengine/timeouts.py): the deadline is set as a statement starts, and rows fetched after
it are read within the same deadline."""

from django.db.backends.sqlite3 import base

from queryengine import timeouts


class Cursor(base.SQLiteCursorWrapper):
    deadline: timeouts.Deadline

    def execute(self, query, params=None):
        self.deadline.start()
        return super().execute(query, params)

    def executemany(self, query, param_list):
        self.deadline.start()
        return super().executemany(query, param_list)


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = timeouts.Deadline()

    def get_new_connection(self, conn_params):
        raw = super().get_new_connection(conn_params)
        timeouts.bound_sqlite(raw, self.deadline)
        return raw

    def create_cursor(self, name=None):
        cursor = self.connection.cursor(factory=Cursor)
        cursor.deadline = self.deadline
        return cursor

    # A commit or rollback is no part of the statement before it, however long ago that began.
    def _commit(self):
        self.deadline.clear()
        return super()._commit()

    def _rollback(self):
        self.deadline.clear()
        return super()._rollback()
