"""The one template engine for user-written templates: computed fields, custom links and export
templates all render here.

Templates come from API users, so they run in Jinja2's sandbox: no attribute starting with an
underscore, no method that changes data (Django marks `save`, `delete`, `update` and the like
with `alters_data`), ranges capped. Output is plain text (no HTML escaping): it is shown in
JSON, links and exported files, never spliced into a page unescaped.
"""

from __future__ import annotations

from functools import lru_cache

from jinja2 import TemplateError
from jinja2.sandbox import SandboxedEnvironment

ENVIRONMENT = SandboxedEnvironment(autoescape=False, keep_trailing_newline=True)


class TemplateFailed(ValueError):
    """A template that does not compile or fails while rendering; the message says why."""


@lru_cache(maxsize=512)
def compiled(source: str):
    try:
        return ENVIRONMENT.from_string(source)
    except TemplateError as exc:
        raise TemplateFailed(f"Invalid template: {exc}") from None


def check(source: str) -> None:
    """Raises TemplateFailed unless the template compiles."""
    compiled(source)


def render(source: str, context: dict) -> str:
    try:
        return compiled(source).render(**context)
    except TemplateFailed:
        raise
    except Exception as exc:  # a user's template fails at run time: its message, never a 500
        raise TemplateFailed(f"Template rendering failed: {exc}") from None
