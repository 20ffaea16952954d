"""Jobs a Git repository provides (`provided_contents` with `extras.job`), as the reference has
them: the classes of `jobs/` (or `jobs.py`) imported as `<slug>.jobs`, one `Job` row each
(`module_name` `<slug>.jobs...`), installed while the repository provides them, a new one disabled
until someone enables it, no longer installed once its file, the repository's `extras.job` or the
repository itself is gone.

This is code from a remote that the workers run, so only remotes the operator lists in
GIT_JOB_REPOSITORIES provide jobs: others are refused when written (400 under `provided_contents`)
and again by each sync (an error: no code is imported) and each run. Code is imported by the
sync (a job in the worker) and by the worker that runs a job, from the synced commit alone
(inventory/jobs/gitcode.py); the web process reads a job's stored form instead. A run goes the way
of every job's run: permissions, approvals, time limits and the run's user's permissions on
whatever it saves."""

from __future__ import annotations

from pathlib import Path

from django.db import transaction
from django.db.models import Q

from inventory.jobs import gitcode

from . import gitcli
from .models import GitRepository
from .models.datasources import NO_JOB_REMOTE, jobs_allowed

GROUPING = "jobs"


def slug_of(module_name: str) -> str | None:
    """The repository slug a job module belongs to (`<slug>.jobs` or `<slug>.jobs.<module>`)."""
    parts = module_name.split(".")
    return parts[0] if len(parts) >= 2 and parts[1] == "jobs" else None


def owned_by(slugs) -> Q:
    """Job rows of the repositories with these slugs."""
    found = Q(pk__in=[])
    for slug in slugs:
        found |= Q(module_name=f"{slug}.jobs") | Q(module_name__startswith=f"{slug}.jobs.")
    return found


def repository_jobs() -> Q:
    """Job rows a Git repository owns: the discovery of installed modules leaves them alone."""
    return owned_by(GitRepository.objects.values_list("slug", flat=True))


def unavailable(repository: GitRepository | None) -> str | None:
    """Why a repository's jobs may not run now, or None."""
    if repository is None:
        return "The Git repository providing this job no longer exists."
    if "extras.job" not in (repository.provided_contents or []):
        return f"The Git repository {repository} no longer provides jobs."
    if not jobs_allowed(repository.remote_url):
        return NO_JOB_REMOTE
    if not repository.current_head:
        return f"The Git repository {repository} has not been synced."
    return None


def clone_of(repository: GitRepository) -> gitcode.Clone:
    root = Path(repository.filesystem_path)
    return gitcode.Clone(
        slug=repository.slug,
        root=root,
        head=repository.current_head,
        files=frozenset(gitcli.regular_files(root)),
    )


def refresh(loader) -> None:
    """A sync's jobs step (gitcontents.Loader): import the synced commit's jobs and keep their
    rows; rows of jobs no longer provided are no longer installed."""
    repository, report = loader.repository, loader.report
    kept: set = set()
    if loader.provides("extras.job"):
        if jobs_allowed(repository.remote_url):
            kept = install_jobs(loader)
        else:
            report.error(f"Jobs were not loaded. {NO_JOB_REMOTE}", grouping=GROUPING)
    else:
        gitcode.unload(repository.slug)
    from inventory.jobs.models import Job

    for job in Job.objects.filter(owned_by([repository.slug]), installed=True).exclude(pk__in=kept):
        job.installed = False
        job.save(update_fields=["installed"])
        report.warning("Marking Job record as no longer installed", job, GROUPING)


def install_jobs(loader) -> set:
    """Import the jobs and create or refresh their rows: the rows' ids (an error names what failed)."""
    from inventory.jobs.discovery import default_queue, install

    repository, report = loader.repository, loader.report
    try:
        classes = gitcode.load(clone_of(repository))
    except (gitcode.LoadError, gitcli.GitError) as exc:
        report.error(str(exc), grouping=GROUPING)
        return set()
    if not classes:
        report.warning(f"No job classes were found in the `{repository.slug}.jobs` module", grouping=GROUPING)
        return set()
    queue = default_queue()
    kept = set()
    for path, klass in classes.items():

        def work(path=path, klass=klass):
            module_name, class_name = path.rsplit(".", 1)
            if len(module_name) > 255 or len(class_name) > 100:
                raise ValueError("the module's or the class's name is too long to be stored")
            with transaction.atomic():  # a refused row leaves the sync's transaction usable
                job, created = install(path, klass, queue, enabled=False, form=gitcode.form_of(klass))
            kept.add(job.pk)
            report.info(f"{'Created' if created else 'Refreshed'} Job record for {path}", job, GROUPING)

        loader.attempt(GROUPING, f"Error in storing job {path}", work)
    return kept


def form_class(job):
    """The web process's class of a repository's job (from its stored form), or None when the
    job may not run now."""
    slug = slug_of(job.module_name)
    if slug is None:
        return None
    repository = GitRepository.objects.filter(slug=slug).first()
    if unavailable(repository) is not None:
        return None
    return gitcode.form_class(job, job._variables or [])


def code_class(job, user):
    """The worker's class of a repository's job, for a run by `user`: imported from the commit
    the repository was last synced to (fetched first when this worker's clone is elsewhere, with
    the credentials `user` may read and to an address the network settings allow, as a sync
    fetches). RuntimeError says why it cannot run."""
    from .gitcontents import Report

    slug = slug_of(job.module_name)
    if slug is None:
        return None
    repository = GitRepository.objects.filter(slug=slug).select_related("secrets_group").first()
    problem = unavailable(repository)
    if problem is not None:
        raise RuntimeError(problem)
    path = Path(repository.filesystem_path)
    try:
        with gitcli.locked(path):
            if gitcli.head(path) != repository.current_head:
                credentials = gitcli.credentials_of(repository, Report(), user)
                gitcli.fetch(path, repository.remote_url, repository.current_head, credentials)
            classes = gitcode.loaded(clone_of(repository))
    except (gitcode.LoadError, gitcli.GitError) as exc:
        raise RuntimeError(
            f"The jobs of the Git repository {repository} could not be loaded: {exc}"
        ) from None
    return classes.get(job.class_path)


def uninstall_orphans() -> None:
    """Jobs of deleted repositories are no longer installed, and disabled: a repository made
    later with the same slug starts with its jobs disabled too (their results stay)."""
    from inventory.jobs.discovery import job_modules
    from inventory.jobs.models import Job

    slugs = set(GitRepository.objects.values_list("slug", flat=True))
    orphans = [
        pk
        for pk, module_name in Job.objects.filter(installed=True)
        .exclude(module_name__in=job_modules())
        .values_list("pk", "module_name")
        if slug_of(module_name) not in (None, *slugs)
    ]
    if orphans:
        Job.objects.filter(pk__in=orphans).update(installed=False, enabled=False)
