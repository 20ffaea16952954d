"""Secret providers: where a secret's value lives and how it is read.

The service never stores a secret's value, only where to find it (a provider and its parameters);
the value is read on demand by code that needs it, for a user who may view the secret, and no API
response ever carries it. Where a provider may read is the operator's: the variables of
SECRET_ENVIRONMENT_VARIABLES (never one of the service's own settings), the files of
SECRET_FILE_DIRECTORIES; a secret naming another is refused when written and when read. Adding a
provider is one entry in PROVIDERS.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings

from config.environment import service_variables
from queryengine.acting import may_view

from . import serverfiles
from .serverfiles import Unreadable


class SecretError(Exception):
    """Reading a secret failed; the message names the secret and provider, never a value."""

    def __init__(self, secret, provider: str, message: str, kind: str = "SecretError"):
        super().__init__(message)
        self.secret, self.provider, self.message, self.kind = secret, provider, message, kind

    def __str__(self) -> str:
        provider = f' (provider "{self.provider}")' if self.provider else ""
        return f'{self.kind}: Secret "{self.secret}"{provider}: {self.message}'


# Variables of the libraries the service runs on, whatever its settings read: libpq's connection
# settings and password, Django's own, Celery's.
LIBRARY_VARIABLES = ("PG", "DJANGO_", "CELERY_")


def _variable(name: str) -> str | None:
    """Why an environment-variable secret may not name `name` (None when it may)."""
    if name in service_variables() or name.startswith(LIBRARY_VARIABLES):
        return f'Variable "{name}" holds a setting of the service, never a secret'
    for entry in settings.SECRET_ENVIRONMENT_VARIABLES:
        if name == entry or (entry.endswith("*") and name.startswith(entry[:-1])):
            return None
    allowed = ", ".join(settings.SECRET_ENVIRONMENT_VARIABLES) or "none"
    return f"Variable must be one SECRET_ENVIRONMENT_VARIABLES names (now: {allowed})"


def _from_environment(parameters: dict) -> str | None:
    return os.environ.get(parameters["variable"])


def _from_text_file(parameters: dict) -> str | None:
    path = parameters["path"]
    content = serverfiles.read(
        path,
        settings.SECRET_FILE_DIRECTORIES,
        "SECRET_FILE_DIRECTORIES",
        settings.SECRET_FILE_MAX_BYTES,
        "SECRET_FILE_MAX_BYTES",
    )
    if content is None:
        return None
    try:
        return content.decode("utf8").strip()
    except UnicodeDecodeError:
        raise Unreadable(f'File "{path}" is not UTF-8 text!') from None


def _file_path(path: str) -> str | None:
    return serverfiles.path_error(path, settings.SECRET_FILE_DIRECTORIES, "SECRET_FILE_DIRECTORIES")


@dataclass(frozen=True)
class Provider:
    slug: str
    name: str
    class_name: str  # how errors name the provider, as the reference's do
    parameters: dict[str, str]  # parameter -> help text; all required strings
    read: Callable[[dict], str | None]  # the value, or None when absent
    not_found: Callable[[dict], str]  # the message for an absent value
    checks: dict[str, Callable[[str], str | None]] = field(default_factory=dict)  # parameter -> error


PROVIDERS = {
    p.slug: p
    for p in (
        Provider(
            "environment-variable",
            "Environment Variable",
            "EnvironmentVariableSecretsProvider",
            {"variable": "Environment variable name"},
            _from_environment,
            lambda p: f'Undefined environment variable "{p["variable"]}"!',
            {"variable": _variable},
        ),
        Provider(
            "text-file",
            "Text File",
            "TextFileSecretsProvider",
            {"path": "Absolute filesystem path to the file"},
            _from_text_file,
            lambda p: f'File "{p["path"]}" not found!',
            {"path": _file_path},
        ),
    )
}


def unknown_provider(slug) -> str:
    return f'No registered provider "{slug}" is available'


def parameter_errors(slug: str, parameters) -> list[str]:
    """What is wrong with a secret's parameters for its provider (empty when nothing is)."""
    provider = PROVIDERS.get(slug)
    if provider is None:
        return []  # the provider itself is reported
    if not isinstance(parameters, dict):
        return [f'Expected a dictionary of parameters but got type "{type(parameters).__name__}".']
    errors = [
        f'Unknown parameter "{name}" for provider "{slug}".'
        for name in parameters
        if name not in provider.parameters
    ]
    for name in provider.parameters:
        value = parameters.get(name)
        if value is None or value == "":
            errors.append(f'The "{name}" parameter is required.')
        elif not isinstance(value, str):
            errors.append(f'The "{name}" parameter must be a string.')
        elif name in provider.checks and (problem := provider.checks[name](value)):
            errors.append(problem)
    return errors


def read_value(secret, user) -> str:
    """The value a secret stands for, read for `user`; raises SecretError (never shown to API
    clients as a value), also when the user may not view the secret."""
    if not may_view(secret, user):
        raise SecretError(secret.pk, "", f"{user} may not view this secret", "SecretPermissionError")
    provider = PROVIDERS.get(secret.provider)
    if provider is None:
        raise SecretError(secret, secret.provider, unknown_provider(secret.provider), "SecretProviderError")
    problems = parameter_errors(secret.provider, secret.parameters)
    if problems:
        raise SecretError(secret, provider.class_name, problems[0], "SecretParametersError")
    try:
        value = provider.read(secret.parameters)
    except OSError as exc:
        raise SecretError(secret, provider.class_name, exc.strerror or "unreadable") from None
    except Unreadable as exc:
        raise SecretError(secret, provider.class_name, str(exc)) from None
    if value is None:
        raise SecretError(
            secret, provider.class_name, provider.not_found(secret.parameters), "SecretValueNotFoundError"
        )
    return value


def check(secret, user) -> dict:
    """Whether the value is reachable for `user`, as the reference's `check` answers: never the value."""
    try:
        read_value(secret, user)
    except SecretError as exc:
        return {"result": False, "message": str(exc)}
    return {"result": True, "message": "Passed"}
