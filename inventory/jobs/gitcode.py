"""Importing the jobs a Git repository provides, in the worker (a sync, a run), never in the web
process: the package named by the repository's slug stands for its clone, and `<slug>.jobs`
(`jobs/__init__.py` or `jobs.py`) is imported with whatever it imports of `<slug>.*`.

Only the checked-out commit's regular files are code: a name is found in the list git gives of
the commit's files (links and submodules are not in it), read from its path in the clone with no
link on the way (`O_NOFOLLOW`, every parent checked), at most GIT_MAX_FILE_SIZE bytes, and compiled
from its text (no byte-code file is read or written, no extension module is loaded). Any other
`<slug>.*` name is not found: no other importer is asked. The slug's own `__init__.py` is not run.

The web process needs a job's form (variables, dry-run support) without its code: a sync stores
it with the job's row (`form_of`), and `form_class` rebuilds it from the built-in variable types.
"""

from __future__ import annotations

import importlib
import inspect
import os
import stat
import sys
import threading
import traceback
from dataclasses import dataclass
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path

from inventory.extras import gitcli

from . import base

LOCK = threading.RLock()
# The variable types a stored form is rebuilt from, and the attributes each takes besides the
# common ones (label, description, default, required).
VARIABLE_TYPES = {
    klass.__name__: klass
    for klass in (
        base.StringVar,
        base.TextVar,
        base.IntegerVar,
        base.DryRunVar,
        base.BooleanVar,
        base.MultiChoiceVar,
        base.ChoiceVar,
        base.MultiObjectVar,
        base.ObjectVar,
        base.FileVar,
        base.IPAddressWithMaskVar,
        base.IPAddressVar,
        base.IPNetworkVar,
        base.JSONVar,
    )
}
ATTRIBUTES = {
    base.StringVar: ("min_length", "max_length", "regex"),
    base.IntegerVar: ("min_value", "max_value"),
    base.ChoiceVar: ("choices",),
    base.ObjectVar: ("model", "query_params"),
}


class LoadError(Exception):
    """A repository's jobs could not be imported; the message names the file."""


@dataclass(frozen=True)
class Clone:
    """A repository's checked-out commit: its slug, directory, commit and regular files."""

    slug: str
    root: Path
    head: str
    files: frozenset[str]

    def source(self, relative: str) -> bytes:
        """A file's bytes, read only from within the clone and never through a link."""
        parent = self.root.resolve()
        current = parent
        for part in relative.split("/")[:-1]:
            current = current / part
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                raise ImportError(f"`{relative}` is not a file of the repository")
        try:
            return gitcli.read_file(current / relative.rsplit("/", 1)[-1])
        except ValueError as exc:
            raise ImportError(f"`{relative}`: {exc}") from None

    def spec(self, fullname: str) -> ModuleSpec:
        if fullname == self.slug:  # the clone itself: an empty package
            spec = ModuleSpec(fullname, CloneLoader(self, None), is_package=True)
            spec.submodule_search_locations = []
            return spec
        relative = "/".join(fullname.split(".")[1:])
        for name, package in ((f"{relative}/__init__.py", True), (f"{relative}.py", False)):
            if name in self.files:
                spec = ModuleSpec(
                    fullname, CloneLoader(self, name), origin=str(self.root / name), is_package=package
                )
                if package:
                    spec.submodule_search_locations = []  # found by this importer alone
                spec.has_location = True
                return spec
        raise ModuleNotFoundError(f"No module named {fullname!r} in the repository", name=fullname)


class CloneLoader(Loader):
    def __init__(self, clone: Clone, relative: str | None):
        self.clone, self.relative = clone, relative

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        if self.relative is None:
            return
        path = str(self.clone.root / self.relative)
        code = compile(self.clone.source(self.relative), path, "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 - the repository's job code, from an allowed remote

    def get_source(self, fullname: str) -> str | None:  # tracebacks show the lines
        return None if self.relative is None else self.clone.source(self.relative).decode("utf8", "replace")


class CloneFinder(MetaPathFinder):
    """Finds `<slug>` and `<slug>.*` of the clones loaded in this process, and nothing else."""

    def __init__(self):
        self.clones: dict[str, Clone] = {}

    def find_spec(self, fullname, path=None, target=None):
        clone = self.clones.get(fullname.partition(".")[0])
        return None if clone is None else clone.spec(fullname)


FINDER = CloneFinder()
LOADED: dict[str, tuple[Clone, dict[str, type]]] = {}


def _ours(module) -> bool:
    return isinstance(getattr(getattr(module, "__spec__", None), "loader", None), CloneLoader)


def unload(slug: str) -> None:
    """Forget a repository's modules in this process (a new commit, a failed sync, a deletion)."""
    with LOCK:
        FINDER.clones.pop(slug, None)
        LOADED.pop(slug, None)
        for name in [n for n in sys.modules if n == slug or n.startswith(f"{slug}.")]:
            if _ours(sys.modules[name]):
                del sys.modules[name]
        importlib.invalidate_caches()


def load(clone: Clone) -> dict[str, type]:
    """Import the clone's `<slug>.jobs` afresh: {"<module>.<Class>": class} of the job classes
    its modules define, or LoadError naming the file that failed."""
    with LOCK:
        unload(clone.slug)
        existing = sys.modules.get(clone.slug)
        if existing is not None or any(f.find_spec(clone.slug, None) for f in _other_finders()):
            raise LoadError(f"The slug {clone.slug!r} names a Python module the server has; jobs not loaded")
        if "jobs/__init__.py" not in clone.files and "jobs.py" not in clone.files:
            raise LoadError("No `jobs` submodule (`jobs/__init__.py` or `jobs.py`) found in the repository")
        if FINDER not in sys.meta_path:
            sys.meta_path.insert(0, FINDER)
        FINDER.clones[clone.slug] = clone
        try:
            importlib.import_module(f"{clone.slug}.jobs")
        except BaseException as exc:
            unload(clone.slug)
            raise LoadError(_failure(clone, exc)) from None
        classes = {}
        package = f"{clone.slug}.jobs"
        for name, module in list(sys.modules.items()):
            if not (name == package or name.startswith(f"{package}.")) or not _ours(module):
                continue
            for _, klass in inspect.getmembers(module, inspect.isclass):
                if issubclass(klass, base.Job) and klass.__module__ == name and klass not in _bases():
                    classes[f"{name}.{klass.__name__}"] = klass
        LOADED[clone.slug] = (clone, classes)
        return dict(sorted(classes.items()))


def loaded(clone: Clone) -> dict[str, type]:
    """The job classes of this very commit of the clone, imported once per process."""
    with LOCK:
        found = LOADED.get(clone.slug)
        if found is not None and found[0] == clone:
            return found[1]
        return load(clone)


def _other_finders():
    return [f for f in sys.meta_path if f is not FINDER and hasattr(f, "find_spec")]


def _bases() -> tuple:
    return (base.Job, base.JobHookReceiver, base.JobButtonReceiver)


def _failure(clone: Clone, exc: BaseException) -> str:
    """The failure's message, naming the repository file it happened in (the innermost one)."""
    root = str(clone.root)
    where = None
    if isinstance(exc, SyntaxError) and exc.filename and exc.filename.startswith(root):
        where = exc.filename
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if where is None and frame.filename.startswith(root + os.sep):
            where = frame.filename
    named = f"`{os.path.relpath(where, root)}`" if where else "the `jobs` module"
    return f"Error in loading jobs from {named}: {type(exc).__name__}: {exc}"


# -- forms: what the web process knows of a repository's job ---------------------------------


def _variable_type(variable) -> type:
    for klass in type(variable).__mro__:
        if VARIABLE_TYPES.get(klass.__name__) is klass:
            return klass
    return base.ScriptVariable


def form_of(klass: type) -> list[dict]:
    """The job's variables as stored with its row: each one's built-in type (a custom variable's
    nearest), constructor arguments and description. ValueError names a variable that cannot be
    stored (a default or choice that is not JSON)."""
    import json

    form = []
    for name, variable in klass.variables().items():
        kind = _variable_type(variable)
        arguments = {
            "label": variable.label,
            "description": variable.description,
            "default": variable.default,
            "required": variable.required,
        }
        for owner, names in ATTRIBUTES.items():
            if issubclass(kind, owner):
                arguments.update({n: getattr(variable, n, None) for n in names})
        if isinstance(variable, base.ObjectVar):
            arguments["model"] = variable.model._meta.label_lower
        if hasattr(arguments.get("regex"), "pattern"):
            arguments["regex"] = arguments["regex"].pattern
        entry = {
            "name": name,
            "type": kind.__name__,
            "arguments": arguments,
            "shown": variable.describe(name),
        }
        try:
            form.append(json.loads(json.dumps(entry)))
        except (TypeError, ValueError):
            raise ValueError(
                f"{klass.__name__}: variable {name!r} cannot be stored (a value that is not JSON)"
            ) from None
    return form


def form_class(job, form: list[dict]) -> type:
    """A class that cleans and describes a run's data as the job's own would, from its stored
    form; it runs nothing (the worker imports the job itself)."""
    from django.apps import apps

    attributes = {}
    for entry in form:
        kind = VARIABLE_TYPES.get(entry["type"], base.ScriptVariable)
        arguments = dict(entry["arguments"])
        if "model" in arguments:
            arguments["model"] = apps.get_model(arguments["model"])
        if "choices" in arguments and arguments["choices"] is None:
            arguments["choices"] = []
        variable = kind(**arguments)
        variable.describe = lambda name, shown=entry["shown"]: dict(shown)
        attributes[entry["name"]] = variable

    def run(self, **data):
        raise RuntimeError("A repository's job runs from its code, in a worker.")

    attributes["run"] = run
    return type(job.job_class_name, (base.Job,), attributes)
