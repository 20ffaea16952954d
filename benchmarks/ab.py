"""A/B runs: this checkout against an earlier commit, both served over HTTP at once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_bench .venv/bin/python benchmarks/bench.py ab 98b2b8c
    ... benchmarks/bench.py ab main writes        # choose families: list, writes, graphql (default: all)

The commit becomes a git worktree in a temporary directory, using this checkout's .venv. Each
side gets a fresh PostgreSQL database (DATABASE_URL's name with `_a` for this checkout and `_b`
for the commit), migrated by its own code, seeded in-process with the same section code that a
run against the floor uses (so the commit must keep the seeded tables' columns), and its own
gunicorn with one worker. Every case's samples alternate between the sides (this, base; then
base, this), so a shared machine's slow spells fall on both alike; printed per case: each side's
median, the ratio this / base (a case more than 10 % slower than the base is flagged), and the
median time the side's worker spent on a CPU per sample (wall times move with the machine's
load, CPU time much less).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

from bench import KEY, ROOT, Server

SLOWER = 1.10  # a case this much slower than the base is flagged
FAMILIES = ("list", "writes", "graphql")
# The benchmark user and token, made on each side's database by that side's code.
TOKEN = f"""
from inventory.users.models import Token, User
user, _ = User.objects.get_or_create(username="bench", defaults={{"is_superuser": True}})
Token.objects.get_or_create(key="{KEY}", defaults={{"user": user}})
"""


def family_cases(family: str) -> list:
    """(label, sample(server) -> None or {part: ms}, samples) of a family, seeded on the
    database connected: the cases its section times against the floor."""
    import bench
    import nested
    import writes

    return {
        "list": lambda: bench.list_cases(5000),
        "writes": writes.write_cases,
        "graphql": nested.graphql_cases,
    }[family]()


def fresh_database(name: str) -> str:
    import psycopg

    url = urlparse(os.environ["DATABASE_URL"])
    with psycopg.connect(url._replace(path="/postgres").geturl(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url._replace(path=f"/{name}").geturl()


@contextmanager
def connected(name: str):
    """This process's default connection on database `name` (content type ids differ)."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection

    def reconnect(to: str) -> None:
        connection.close()
        if connection.alias in getattr(connection, "_connection_pools", {}):
            connection.close_pool()  # a pool keeps connecting to the database it began on
        connection.settings_dict["NAME"] = to
        ContentType.objects.clear_cache()

    saved = connection.settings_dict["NAME"]
    reconnect(name)
    try:
        yield
    finally:
        reconnect(saved)


def sample(run, server, label: str) -> tuple[dict[str, float], float]:
    """({part: ms}, the worker's CPU ms) of one sample: its parts' times when it gives them,
    else the whole sample's."""
    cpu, start = server.cpu(), time.perf_counter()
    parts = run(server)
    taken = (time.perf_counter() - start) * 1000
    return (parts if isinstance(parts, dict) else {label: taken}), server.cpu() - cpu


def compare(label: str, runs: dict, servers: dict, repeat: int) -> list[tuple]:
    """Samples of both sides, alternating; (label, this median, base median, ratio, CPU ms of
    this and of base per sample) per part."""
    walls = {side: defaultdict(list) for side in runs}
    cpus = {side: [] for side in runs}
    for side in runs:
        sample(runs[side], servers[side], label)  # warm-up: caches, plans, connections
    for n in range(repeat):
        for side in list(runs)[:: 1 if n % 2 == 0 else -1]:
            parts, cpu = sample(runs[side], servers[side], label)
            cpus[side].append(cpu)
            for part, ms in parts.items():
                walls[side][part].append(ms)
    this, base = list(runs)
    lines = []
    for part in walls[this]:
        a, b = statistics.median(walls[this][part]), statistics.median(walls[base][part])
        name = part if part == label else f"{label} {part}"
        lines.append((name, a, b, a / b, statistics.median(cpus[this]), statistics.median(cpus[base])))
    return lines


def report(line: tuple) -> None:
    name, a, b, ratio, cpu_a, cpu_b = line
    flag = "  SLOWER" if ratio > SLOWER else ""
    print(
        f"  {name:<44} {a:9.1f} {b:9.1f} {ratio:6.2f}x   cpu {cpu_a:8.1f} {cpu_b:8.1f} {cpu_a / cpu_b:6.2f}x{flag}",
        flush=True,
    )


def run(base: str, families: list[str]) -> None:
    import django

    django.setup()
    name = urlparse(os.environ["DATABASE_URL"]).path.lstrip("/")
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", base], check=True, capture_output=True, text=True
    ).stdout.strip()
    temporary = Path(tempfile.mkdtemp(prefix="bench-ab-"))
    tree = temporary / "base"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), commit], check=True
    )
    try:
        (tree / ".venv").symlink_to((ROOT / ".venv").resolve())
        roots = {"this": ROOT, commit: tree}
        databases = {"this": f"{name}_a", commit: f"{name}_b"}
        environments, cases = {}, {}
        for side, root in roots.items():
            environment = {
                **os.environ,
                "DATABASE_URL": fresh_database(databases[side]),
                "DATA_DIR": str(temporary / f"data-{databases[side]}"),
            }
            python = str(root / ".venv/bin/python")
            subprocess.run(
                [python, "manage.py", "migrate", "--verbosity", "0"], cwd=root, env=environment, check=True
            )
            subprocess.run(
                [python, "manage.py", "shell", "-v", "0", "-c", TOKEN], cwd=root, env=environment, check=True
            )
            environments[side] = {k: environment[k] for k in ("DATABASE_URL", "DATA_DIR")}
            with connected(databases[side]):
                print(f"seeding {side} ({databases[side]})", flush=True)
                cases[side] = {family: family_cases(family) for family in families}
        with Server(ROOT, **environments["this"]) as this, Server(tree, **environments[commit]) as other:
            servers = {"this": this, commit: other}
            print(f"A/B: this checkout against {commit}, medians in ms (ratio > {SLOWER:.2f}: SLOWER)")
            print(f"  {'case':<44} {'this':>9} {commit:>9} {'ratio':>7}   cpu per sample: this, base, ratio")
            for family in families:
                print(f"{family}:")
                for (label, mine, repeat), (_, theirs, _) in zip(
                    cases["this"][family], cases[commit][family], strict=True
                ):
                    for line in compare(label, {"this": mine, commit: theirs}, servers, repeat):
                        report(line)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(temporary, ignore_errors=True)
