"""Fetching a Git repository with the `git` command: a fixed argument list (no shell), a time
limit per command, a size limit on the clone, only the URL schemes the operator allows, only hosts
at addresses the operator allows (checked at each fetch, git held to the addresses checked), and
the repository's credentials, read for a user who may view them, passed in the environment of the
one process that needs them, never in an argument, a URL, a file or a message.

A clone lives at GIT_ROOT/<slug>; a sync fetches every branch and tag into it and checks the
wanted commit out detached. Hooks never run, symbolic links are checked out as plain files (and
skipped by the loaders), and received objects are checked (`fsckObjects`), so a tree naming
`..` or `.git` is refused before anything is written."""

from __future__ import annotations

import base64
import fcntl
import ipaddress
import os
import re
import shlex
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings

from . import outbound

HEXSHA = re.compile(r"^[0-9a-fA-F]{4,40}$")
# A network remote's authority as libcurl, ssh and this module all read it alike: userinfo without
# delimiters, a host name as DNS spells it (no trailing dot, no escapes) or an address (IPv6 in
# brackets), a port. Anything else might name one host here and another to git.
AUTHORITY = re.compile(
    r"(?i)([^@/\\?#\[\]\s]*@)?([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])"
    r"(:[0-9]{1,5})?"
)
NETWORK_SCHEMES = {"http": 80, "https": 443, "ssh": 22}  # remotes reached over the network: default ports
SSH = "ssh -o BatchMode=yes"
# userinfo in a URL (`https://user:token@host`): never shown in a message.
USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
POLL = 0.2  # seconds between looks at a running command's clone size


class GitError(Exception):
    """A git command failed; the message is safe to log (no credentials)."""


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """A message without credentials: URL userinfo and any secret value are masked."""
    text = USERINFO.sub(r"\1***@", str(text))
    for secret in secrets:
        if secret and len(secret) >= 3:
            text = text.replace(secret, "***")
    return text


def shown_url(url: str) -> str:
    return redact(url)


def allowed_schemes() -> list[str]:
    return [s.lower() for s in settings.GIT_REMOTE_SCHEMES]


@dataclass(frozen=True)
class Route:
    """How git reaches a remote: held to the addresses checked for its host."""

    config: tuple[tuple[str, str], ...] = ()  # libcurl's answer for the host
    ssh: str = SSH  # GIT_SSH_COMMAND


def _config(credentials: tuple[str, str] | None, route: Route) -> list[tuple[str, str]]:
    """Settings for every command, given through the environment (GIT_CONFIG_*)."""
    entries = [
        ("core.hooksPath", os.devnull),  # no hook ever runs
        ("core.symlinks", "false"),  # links are checked out as files holding their target
        ("core.fsmonitor", "false"),
        ("core.protectNTFS", "true"),
        ("core.protectHFS", "true"),
        ("fetch.fsckObjects", "true"),
        ("transfer.fsckObjects", "true"),
        ("submodule.recurse", "false"),
        ("credential.helper", ""),
        ("protocol.allow", "never"),
        *((f"protocol.{scheme}.allow", "always") for scheme in allowed_schemes()),
        ("safe.directory", "*"),
        ("http.followRedirects", "false"),  # a redirect (or http-alternates) is an error, not a hop
        ("http.proxy", ""),  # no proxy, whatever libcurl would read elsewhere: the checked address
        *route.config,
    ]
    if credentials is not None:
        user, token = credentials
        pair = base64.b64encode(f"{user or token}:{token if user else ''}".encode()).decode()
        entries.append(("http.extraHeader", f"Authorization: Basic {pair}"))
    return entries


def environment(credentials: tuple[str, str] | None = None, route: Route = Route()) -> dict[str, str]:
    """The whole environment of a git command: nothing inherited beyond PATH (so no proxy), no
    prompt, no user or system configuration, only the allowed transports."""
    env = {
        "PATH": os.environ.get("PATH") or "/usr/bin:/bin",
        "HOME": str(settings.GIT_ROOT),
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "/bin/false",
        "SSH_ASKPASS": "/bin/false",
        "GIT_SSH_COMMAND": route.ssh,
        "GIT_ALLOW_PROTOCOL": ":".join(allowed_schemes()),
        "GIT_PROTOCOL_FROM_USER": "0",
    }
    entries = _config(credentials, route)
    env["GIT_CONFIG_COUNT"] = str(len(entries))
    for index, (key, value) in enumerate(entries):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def tree_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def run(
    args: list[str],
    cwd: Path,
    credentials: tuple[str, str] | None = None,
    watch: Path | None = None,
    secrets: tuple[str, ...] = (),
    route: Route = Route(),
) -> str:
    """Run `git <args>` in `cwd`; its standard output, or GitError naming what failed. A
    command past GIT_TIMEOUT, or whose clone (`watch`) grows past GIT_MAX_SIZE, is killed."""
    command = ["git", *args]
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=environment(credentials, route),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        raise GitError(f"git could not be started: {exc.strerror}") from None
    deadline = time.monotonic() + settings.GIT_TIMEOUT
    problem = None
    while True:
        try:
            out, err = process.communicate(timeout=POLL)
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                problem = f"git {args[0]} took longer than {settings.GIT_TIMEOUT:g} seconds (GIT_TIMEOUT)"
            elif watch is not None and tree_size(watch) > settings.GIT_MAX_SIZE:
                problem = f"the repository is larger than {settings.GIT_MAX_SIZE} bytes (GIT_MAX_SIZE)"
            if problem:
                process.kill()
                process.communicate()
                raise GitError(problem) from None
    if process.returncode != 0:
        message = err.decode("utf8", "replace").strip().splitlines()
        detail = " ".join(line.strip() for line in message[-3:]) or f"exit status {process.returncode}"
        raise GitError(redact(f"git {args[0]} failed: {detail}", secrets))
    return out.decode("utf8", "replace")


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """One sync of a clone at a time on this machine (two workers may take two syncs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f".{path.name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def route(url: str) -> Route:
    """Where git may take `url`, under the settings of this moment: its scheme one of
    GIT_REMOTE_SCHEMES, and for a network remote every address its host resolves to checked as
    webhooks' are (outbound.py, with GIT_ALLOWED_NETWORKS and GIT_DENIED_NETWORKS). git is held to
    the addresses found permitted: libcurl takes them as the host's only answer
    (`http.curloptResolve`: no lookup of its own, so a later DNS answer changes nothing), ssh
    connects to the first (the host key checked under the host's name). A `file:` remote reaches
    no network. GitError says why not, and nothing has connected."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in allowed_schemes():
        raise GitError(
            f"URL scheme {scheme!r} is not allowed for Git repositories; allowed: {', '.join(allowed_schemes())}."
        )
    if scheme == "file":
        return Route()
    if scheme not in NETWORK_SCHEMES:
        raise GitError(f"URL scheme {scheme!r} remotes cannot be held to checked addresses.")
    host = parts.hostname or ""
    try:
        if "\\" in url or not AUTHORITY.fullmatch(parts.netloc):
            raise ValueError
        port = parts.port or NETWORK_SCHEMES[scheme]
        if ":" in host:
            ipaddress.ip_address(host)
    except ValueError:
        raise GitError(f"The remote {shown_url(url)} does not name a host and port git can reach.") from None
    try:
        addresses = [sockaddr[0] for _, sockaddr in outbound.resolve(host, port, outbound.GIT)]
    except (outbound.Refused, OSError) as exc:  # the rule and the setting that refuse it; no address
        raise GitError(f"The remote is not fetched: {exc}") from None
    if scheme == "ssh":
        return Route(ssh=f"{SSH} -o HostName={addresses[0]} -o HostKeyAlias={shlex.quote(host)}")
    listed = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
    return Route(config=(("http.curloptResolve", f"{host}:{port}:{listed}"),))


def fetch(path: Path, url: str, ref: str, credentials: tuple[str, str] | None = None) -> str:
    """Bring the clone at `path` up to date with `url` and check out `ref` (a branch, tag or
    commit): the commit's full hash."""
    pinned = route(url)
    secrets = tuple(c for c in credentials or () if c)
    if not (path / ".git").is_dir():
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        run(["init", "--quiet"], path)
    refspecs = ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"]
    options = ["--quiet", "--no-tags", "--force", "--prune", "--no-recurse-submodules"]
    run(["fetch", *options, "--", url, *refspecs], path, credentials, path, secrets, pinned)
    commit = resolve(path, ref)
    if commit is None and HEXSHA.match(ref):  # a commit no branch or tag names: asked for by hash
        with suppress(GitError):
            run(["fetch", *options, "--", url, ref], path, credentials, path, secrets, pinned)
        commit = resolve(path, ref, hashes=True)
    if commit is None:
        raise GitError(f'No branch, tag or commit "{ref}" in the repository')
    checkout(path, commit)
    return commit


def resolve(path: Path, ref: str, hashes: bool = False) -> str | None:
    candidates = [f"refs/remotes/origin/{ref}", f"refs/tags/{ref}"]
    if hashes or HEXSHA.match(ref):
        candidates.append(ref)
    for candidate in candidates:
        try:
            found = run(["rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}"], path).strip()
        except GitError:
            continue
        if found:
            return found
    return None


def checkout(path: Path, commit: str) -> None:
    run(["checkout", "--quiet", "--force", "--detach", commit], path)
    run(["clean", "-ffdxq"], path)
    size = tree_size(path)
    if size > settings.GIT_MAX_SIZE:
        raise GitError(f"the repository is larger than {settings.GIT_MAX_SIZE} bytes (GIT_MAX_SIZE)")


def tree_entries(path: Path) -> list[tuple[str, str]]:
    """(mode, path) of every entry the checked-out commit holds (paths relative, `/`-separated)."""
    listing = run(["ls-files", "--stage", "-z"], path)
    entries = []
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        entries.append((meta.split(" ", 1)[0], name))
    return entries


def symbolic_links(path: Path) -> set[str]:
    """Paths the checked-out tree holds as links or submodules."""
    return {name for mode, name in tree_entries(path) if mode in ("120000", "160000")}


def regular_files(path: Path) -> set[str]:
    """Paths the checked-out tree holds as regular files: the only ones code is imported from."""
    return {name for mode, name in tree_entries(path) if mode in ("100644", "100755")}


def read_file(path: Path) -> bytes:
    """A file of a clone: a regular file opened without following a link, at most
    GIT_MAX_FILE_SIZE bytes (ValueError otherwise)."""
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("it is not a regular file")
        if info.st_size > settings.GIT_MAX_FILE_SIZE:
            raise ValueError(
                f"the file is larger than {settings.GIT_MAX_FILE_SIZE} bytes (GIT_MAX_FILE_SIZE)"
            )
        return handle.read()


def head(path: Path) -> str | None:
    try:
        return run(["rev-parse", "--verify", "--quiet", "HEAD"], path).strip() or None
    except GitError:
        return None


def discard(path: Path) -> None:
    """Remove a clone (its repository was deleted)."""
    shutil.rmtree(path, ignore_errors=True)
    with suppress(OSError):
        (path.parent / f".{path.name}.lock").unlink()


def credentials_of(repository, report, user) -> tuple[str, str] | None:
    """(username, token) of the repository's secrets group for HTTP(S), as the reference reads
    them (a token alone is sent as the user name), read for `user`: GitError when they may not
    view the group or one of its secrets, so nothing is sent for them. Values are never logged;
    a secret that cannot be read is reported by name (by id to a user who may not view it)."""
    from queryengine.acting import may_view

    from .models import SecretsGroupAssociation
    from .secrets import SecretError, read_value

    group = repository.secrets_group
    if group is None:
        return None
    if not may_view(group, user):
        raise GitError(
            f'{user} may not view the secrets group "{group.pk}" of repository {repository}: '
            "its credentials were not read and nothing was fetched."
        )
    found = {}
    associations = SecretsGroupAssociation.objects.filter(
        secrets_group=group, access_type="HTTP(S)", secret_type__in=("token", "username")
    ).select_related("secret")
    for association in associations:
        try:
            found[association.secret_type] = read_value(association.secret, user)
        except SecretError as exc:
            raise GitError(str(exc)) from None
    if "token" not in found:
        report.warning(
            f"HTTP Token not found for secrets group {group} associated with repository {repository}"
        )
        return None
    return found.get("username", ""), found["token"]
