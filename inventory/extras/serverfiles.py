"""Files on the server that users name (a text-file secret, a webhook's CA certificates): only
inside the directories the operator lists for that use, read only up to a size."""

from __future__ import annotations

import os


class Unreadable(ValueError):
    """The file cannot be used (the message says why, never its content)."""


def _inside(path: str, directories: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in directories)


def path_error(path: str, directories: list[str], setting: str) -> str | None:
    """Why `path` may not be named (None when it may): absolute, no `..`, inside a directory
    of `directories` (the setting's value)."""
    if not path.startswith("/"):
        return "Path must be an absolute path, not a relative one"
    if ".." in path:
        return "Illegal character sequence in path"
    if not _inside(os.path.normpath(path), directories):
        allowed = ", ".join(directories) or "none"
        return f"Path must be inside a directory {setting} names (now: {allowed})"
    return None


def read(path: str, directories: list[str], setting: str, limit: int, limit_setting: str) -> bytes | None:
    """The file's bytes (None when there is no such regular file). A link is followed only to
    a file inside the directories; at most `limit` bytes are ever read."""
    problem = path_error(path, directories, setting)
    if problem is not None:
        raise Unreadable(f"{problem}!")
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        return None
    if not _inside(real, [os.path.realpath(d) for d in directories]):
        raise Unreadable(f'File "{path}" leads outside the directories {setting} names!')
    with open(real, "rb") as handle:
        content = handle.read(limit + 1)
    if len(content) > limit:
        raise Unreadable(f'File "{path}" is larger than {limit} bytes ({limit_setting})!')
    return content
