"""Errors the data layer raises; the REST layer maps each to its HTTP status and body."""


class ValidationFailed(Exception):
    """Input that fails validation: `errors` is `{field: [messages]}` (400)."""

    def __init__(self, errors: dict):
        super().__init__(errors)
        self.errors = errors


class PermissionDenied(Exception):
    """The caller may not perform this action (403)."""

    def __init__(self, detail: str = "You do not have permission to perform this action."):
        super().__init__(detail)
        self.detail = detail


class NotFound(Exception):
    """The object addressed does not exist or is not visible to the caller (404)."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class ReferenceNotFound(NotFound):
    """An object the written data names (not the one written) is absent or hidden (404)."""


class Conflict(Exception):
    """The change would break other objects, e.g. deleting one that others depend on (409)."""

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class StatementTimeout(Exception):
    """The database stopped a statement that ran past DATABASE_STATEMENT_TIMEOUT (503)."""

    def __init__(self, seconds: float):
        self.detail = (
            f"The database stopped a statement that ran longer than {seconds:g} seconds, the limit "
            "(DATABASE_STATEMENT_TIMEOUT). Narrow the filters (a regular expression over long texts "
            "is slow) and try again."
        )
        super().__init__(self.detail)
