"""What a server checks before it starts: the web server (config/wsgi.py), `manage.py runserver`
and Celery workers and beat (config/celery.py). Other commands (migrate, shell, the tests) may run
on the development key."""

import os

from django.conf import settings

GENERATE = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"


def secret_key_refusal(server: str) -> str | None:
    """Why `server` must not start, or None. The development key is in the source for anyone to
    read: with it they could forge a session cookie and unseal the API tokens a copy of the
    database holds."""
    if settings.DEBUG or os.environ.get("SECRET_KEY"):
        return None
    return (
        f"SECRET_KEY is not set: {server} will not start on the development key, which anyone can "
        "read in the source (it signs sign-in sessions and seals the stored API tokens). Set "
        f'SECRET_KEY to a long random string, e.g. export SECRET_KEY="$({GENERATE})", and keep '
        "it: a new key signs everyone out and leaves the stored API tokens unreadable. "
        "(DEBUG=true allows the development key, on a development machine only.)"
    )
