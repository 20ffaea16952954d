"""Fuzz every operation of the OpenAPI document with Schemathesis against a real server.

    .venv/bin/python benchmarks/fuzz.py                       # embedded SQLite in a temp directory
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/netinventory_fuzz .venv/bin/python benchmarks/fuzz.py
    .venv/bin/python benchmarks/fuzz.py --examples 5 --paths 'dcim/(devices|interfaces)'
    .venv/bin/python benchmarks/fuzz.py --phases examples,fuzzing --report junit   # other options go to `st run`

Seeds the demo network on a fresh database, starts gunicorn, then runs Schemathesis with the
checks that matter here: no response >= 500 and every response valid against its schema.
Schemathesis is a development tool (`pip install schemathesis`), not a service dependency.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent


def fresh_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    with psycopg.connect(parsed._replace(path="/postgres").geturl(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3, help="examples per operation")
    parser.add_argument("--paths", default="", help="regular expression choosing operations by path")
    parser.add_argument("--checks", default="not_a_server_error,response_schema_conformance")
    options, extra = parser.parse_known_args()  # anything else goes to `st run` (--phases, --report)
    st = shutil.which("st", path=str(Path(sys.executable).parent)) or shutil.which("st")
    if st is None:
        sys.exit("Schemathesis is not installed: .venv/bin/pip install schemathesis")

    data = Path(tempfile.mkdtemp(prefix="netinventory-fuzz-"))
    database = os.environ.get("DATABASE_URL") or f"sqlite:///{data / 'fuzz.sqlite3'}"
    if database.startswith("postgres"):
        fresh_database(database)
    env = {**os.environ, "DATABASE_URL": database, "DATA_DIR": str(data)}
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(50))  # a fresh database: any key will do
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--verbosity", "0"], env=env, cwd=ROOT, check=True)
    demo = subprocess.run(
        [*manage, "demo", "--url", base], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    token = re.search(r"Token:\s+([0-9a-f]{40})", demo.stdout).group(1)
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "config.wsgi:application",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            "2",
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/health/", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        command = [
            st,
            "run",
            f"{base}/api/swagger.json",
            "--header",
            f"Authorization: Token {token}",
            "--checks",
            options.checks,
            "--max-examples",
            str(options.examples),
            "--generation-deterministic",
            "--continue-on-failure",
            "--request-timeout",
            "60",
        ]
        if options.paths:
            command += ["--include-path-regex", options.paths]
        command += extra
        sys.exit(subprocess.run(command, cwd=ROOT).returncode)
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
