"""The system job that syncs a Git repository (`extras/git-repositories/<id>/sync/` starts it):
fetch the remote into the repository's clone, check out its branch, tag or commit, then load
what it provides (inventory/extras/gitcontents.py), all as the user who asked.

As at the reference, the database changes of one sync are kept together: when anything fails
(the remote, a file) nothing the sync wrote is kept, the clone goes back to the commit the
repository had, and the job fails with its log naming what went wrong."""

from __future__ import annotations

from django.apps import apps
from django.db import transaction

from .base import Job, ObjectVar

name = "System Jobs"


class SyncFailed(Exception):
    pass


class GitRepositorySync(Job):
    """System job to clone and/or pull a Git repository, then refresh the data it provides."""

    repository = ObjectVar(
        model=apps.get_model("extras", "GitRepository"),
        label="Git Repository",
        description="Git Repository to pull and refresh",
    )

    class Meta:
        name = "Git Repository: Sync"
        description = "Clone and/or pull a Git repository, then refresh data sourced from this repository."
        has_sensitive_variables = False
        read_only = False

    def run(self, repository):
        from inventory.extras import gitcli
        from inventory.extras.gitcontents import Loader, Report

        from . import gitcode

        report = Report()
        self.logger.info('Creating/refreshing local copy of Git repository "%s"...', repository.name)
        path = repository.filesystem_path
        previous = repository.current_head
        secrets: tuple[str, ...] = ()
        try:
            with gitcli.locked(path):
                try:
                    with transaction.atomic():
                        credentials = gitcli.credentials_of(repository, report, self.user)
                        secrets = tuple(c for c in credentials or () if c)
                        head = gitcli.fetch(path, repository.remote_url, repository.branch, credentials)
                        if repository.current_head != head:
                            repository.current_head = head
                            repository.save()
                            report.info("Repository successfully refreshed")
                        report.info(
                            f'{repository.name}: the current Git repository hash is "{head}"', repository
                        )
                        report.info(f"Refreshing data provided by {repository}...", repository)
                        Loader(repository, self.user, report).load()
                        if report.failed:
                            raise SyncFailed(
                                f"Failed to refresh data provided by {repository}. Please see logs."
                            )
                except Exception as exc:
                    gitcode.unload(repository.slug)  # no module of a sync that failed stays imported
                    message = gitcli.redact(str(exc), secrets)
                    if not isinstance(exc, SyncFailed):
                        report.error(message)
                    report.error("Changes to database records have been reverted.")
                    if previous and gitcli.head(path) != previous:
                        report.info(f"Attempting to revert local repository clone to commit {previous}")
                        try:
                            gitcli.checkout(path, previous)
                        except gitcli.GitError as undo:
                            report.error(str(undo))
                    raise SyncFailed(message) from None
        finally:
            report.replay(self.logger)
        self.logger.info("Data refresh from %s complete!", repository, extra={"object": repository})
