"""Git repositories: remote repositories whose files provide config contexts, their schemas,
export templates, saved GraphQL queries and jobs (inventory/extras/gitcontents.py loads them)."""

import builtins
import keyword
import re
import string
import sys
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.text import slugify

from inventory.base import PrimaryModel

from .integrations import LaxURLValidator

# What a repository may provide, as the reference lists it (sorted by identifier). Jobs only
# from the remotes the operator lists (`GIT_JOB_REPOSITORIES`): their code runs in the workers.
PROVIDED_CONTENTS = [
    ("extras.configcontext", "config contexts"),
    ("extras.configcontextschema", "config context schemas"),
    ("extras.exporttemplate", "export templates"),
    ("extras.graphqlquery", "graphql queries"),
    ("extras.job", "jobs"),
]
SLUG_HELP = "Internal field name. Please use underscores rather than dashes in this key."
MIN_HEXSHA, MAX_HEXSHA = 4, 48


def slug_from_name(name: str) -> str:
    """The reference's slug of a name: a valid identifier ("123 main st" -> "a123_main_st")."""
    text = str(name or "")
    if not re.fullmatch(r"[_A-Za-z]", text[:1]):
        text = "a" + text
    return slugify(text).replace("-", "_")[:100]


@cache
def _installed_modules() -> frozenset:
    import pkgutil

    return frozenset(m.name for m in pkgutil.iter_modules())


def slug_problem(slug: str) -> str | None:
    """Why a new repository may not take this slug (the reference keeps its clones importable)."""
    if not slug.isidentifier():
        return "not a valid identifier"
    if keyword.iskeyword(slug):
        return "a reserved keyword"
    if slug in sys.builtin_module_names or slug in vars(builtins):
        return "a Python builtin"
    if slug in _installed_modules():
        return "the name of an installed Python package"
    return None


def ref_problem(value, field_name: str = "branch") -> str | None:
    """A branch, tag or commit git could take as an option, or with whitespace, is refused."""
    if not isinstance(value, str) or not value:
        return f"{field_name} must be a non-empty string"
    if any(c.isspace() for c in value):
        return f"Invalid {field_name} {value!r}: must not contain whitespace"
    if value.startswith("-"):
        return f"Invalid {field_name} {value!r}: must not start with '-'"
    if any(ord(c) < 32 or ord(c) == 127 for c in value) or ".." in value or value.startswith("/"):
        return f"Invalid {field_name} {value!r}: not a valid Git reference"
    return None


def validate_ref(value) -> None:
    """A field validator: a branch git could take as an option is refused before clean()."""
    problem = ref_problem(value)
    if problem:
        raise ValidationError(problem, code="invalid")


def hexsha_problem(value, field_name: str = "current_head") -> str | None:
    if not value:
        return None
    if not (MIN_HEXSHA <= len(value) <= MAX_HEXSHA) or not set(value) <= set(string.hexdigits):
        return f"Invalid {field_name} {value!r}: must be {MIN_HEXSHA}-{MAX_HEXSHA} hexadecimal characters"
    return None


JOB_PATH_REST = re.compile(r"[A-Za-z0-9._~/-]+")
NO_JOB_REMOTE = (
    "Jobs are loaded only from the remotes listed in the server's GIT_JOB_REPOSITORIES setting; "
    "this repository's remote is not one of them."
)


def jobs_allowed(url: str) -> bool:
    """Whether the operator allows jobs from this remote: an entry equal to the URL, or one ending
    in "/" that the URL continues with plain path segments (no `..`, no escapes: a prefix names
    the repositories under it, never a way out of them)."""
    for entry in settings.GIT_JOB_REPOSITORIES:
        if url == entry:
            return True
        if entry.endswith("/") and url.startswith(entry):
            rest = url[len(entry) :]
            if JOB_PATH_REST.fullmatch(rest) and all(p not in ("", ".", "..") for p in rest.split("/")):
                return True
    return False


def scheme_problem(url: str) -> str | None:
    """A remote whose scheme this server does not fetch from (`GIT_REMOTE_SCHEMES`)."""
    scheme = urlsplit(url).scheme.lower()
    allowed = [s.lower() for s in settings.GIT_REMOTE_SCHEMES]
    if scheme not in allowed:
        return f"URL scheme {scheme!r} is not allowed for Git repositories; allowed: {', '.join(allowed)}."
    return None


class GitRemoteValidator:
    """A URL of an allowed scheme: a network URL (a host is required), or a `file:` URL naming
    an absolute path where the operator allows that scheme."""

    message = "Enter a valid URL."

    def __call__(self, value: str) -> None:
        if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", value or ""):
            raise ValidationError(self.message, code="invalid")
        problem = scheme_problem(value)
        if problem:
            raise ValidationError(problem, code="invalid")
        parts = urlsplit(value)
        if parts.scheme.lower() == "file":
            if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
                raise ValidationError(self.message, code="invalid")
            if any(c.isspace() or ord(c) < 32 for c in value):
                raise ValidationError(self.message, code="invalid")
            return
        checker = LaxURLValidator()
        checker.schemes = [parts.scheme.lower()]
        checker(value)

    def __eq__(self, other) -> bool:
        return isinstance(other, GitRemoteValidator)

    def deconstruct(self):
        return ("inventory.extras.models.datasources.GitRemoteValidator", (), {})


class GitRepository(PrimaryModel):
    """A Git repository used as an external data source."""

    name = models.CharField(max_length=255, unique=True)
    slug = models.SlugField(max_length=100, unique=True, blank=True, help_text=SLUG_HELP)
    remote_url = models.CharField(
        max_length=255,
        validators=[GitRemoteValidator()],
        help_text="The remote's URL, of a scheme the server fetches from (by default http, https and ssh)",
    )
    branch = models.CharField(
        max_length=255, default="main", validators=[validate_ref], help_text="Branch, tag, or commit"
    )
    current_head = models.CharField(
        max_length=48,
        default="",
        blank=True,
        help_text=(
            "Commit hash of the most recent fetch from the selected branch. Used for syncing between workers."
        ),
    )
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        default=None,
        related_name="git_repositories",
    )
    provided_contents = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "Git repository"
        verbose_name_plural = "Git repositories"

    _stored = None  # (slug, remote_url, branch) as loaded: the slug may not change, and a new
    # remote or branch forgets the head

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance._stored = (instance.slug, instance.remote_url, instance.branch)
        return instance

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def prepare_batch_clean(repositories: list) -> None:
        """The repositories sharing a remote with any of the batch, read once for its clean()."""
        urls = {r.remote_url for r in repositories if r.provided_contents}
        peers = GitRepository.objects.filter(remote_url__in=urls).values_list(
            "pk", "remote_url", "provided_contents"
        )
        peers = list(peers) if urls else []
        for repository in repositories:
            repository._peers = peers

    def clean(self):
        super().clean()
        errors = {}
        problem = hexsha_problem(self.current_head)
        if problem:
            errors["current_head"] = [problem]
        if not self.slug:
            self.slug = slug_from_name(self.name)
        stored = getattr(self, "_stored", None)
        if stored is None:
            problem = slug_problem(self.slug)
            if problem:
                errors["slug"] = [f"Please choose a different slug; {self.slug!r} is {problem}"]
        elif self.slug != stored[0]:
            raise ValidationError(
                f"Slug cannot be changed once set. Current slug is {stored[0]}, requested slug is {self.slug}"
            )
        if "extras.job" in (self.provided_contents or []) and not jobs_allowed(self.remote_url):
            errors["provided_contents"] = [NO_JOB_REMOTE]
        if errors:
            raise ValidationError(errors)
        self.check_overlap()
        if stored is not None and (self.remote_url, self.branch) != stored[1:]:
            self.current_head = ""

    def check_overlap(self) -> None:
        if not self.provided_contents:
            return
        peers = getattr(self, "_peers", None)
        if peers is None:
            peers = GitRepository.objects.filter(remote_url=self.remote_url).values_list(
                "pk", "remote_url", "provided_contents"
            )
        wanted = set(self.provided_contents)
        for pk, url, provided in peers:
            if pk != self.pk and url == self.remote_url and wanted & set(provided or ()):
                raise ValidationError(
                    f"Another Git repository already configured for remote URL {self.remote_url} "
                    "provides contents overlapping with this repository."
                )

    @property
    def filesystem_path(self):
        """The clone's directory, named by id: known from the id alone when the row is gone."""
        return settings.GIT_ROOT / str(self.pk)
