"""The environment variables the service's own configuration reads, found in its source rather
than listed a second time: every variable a module of `config/` (the settings, the Celery
application, the startup checks, ...) or the gunicorn configuration names in a read of
`os.environ` (`get`, `setdefault`, `[...]`, `in`), `os.getenv` or the settings' helpers
(`env_bool`, `env_list`). Environment-variable secrets never read these
(inventory/extras/secrets.py), whatever the operator allows."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("config/**/*.py", "gunicorn.conf.py")
HELPERS = {"env_bool", "env_list", "getenv"}  # functions whose first argument is a variable's name
METHODS = {"get", "setdefault", "pop"}  # of os.environ


def _environ(node) -> bool:
    """`os.environ` (or `environ` imported from os)."""
    if isinstance(node, ast.Attribute):
        return node.attr == "environ"
    return isinstance(node, ast.Name) and node.id == "environ"


def _name(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def names_read(source: str) -> set[str]:
    """The variables a module's source reads by a literal name."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            function = node.func
            if isinstance(function, ast.Attribute):
                reads = function.attr in HELPERS or (function.attr in METHODS and _environ(function.value))
            else:
                reads = isinstance(function, ast.Name) and function.id in HELPERS
            if reads:
                found.add(_name(node.args[0]))
        elif isinstance(node, ast.Subscript) and _environ(node.value):
            found.add(_name(node.slice))
        elif isinstance(node, ast.Compare) and any(_environ(c) for c in node.comparators):
            found.add(_name(node.left))
    found.discard(None)
    return found


@cache
def service_variables() -> frozenset[str]:
    """Every variable the service's configuration files read."""
    names: set[str] = set()
    for pattern in SOURCES:
        for path in ROOT.glob(pattern):
            names |= names_read(path.read_text())
    return frozenset(names)
