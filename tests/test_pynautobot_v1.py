"""The real 1.x client: pynautobot's last 1.x release against a live server speaking API 1.3, as a
1.x script would use it: regions and sites, a device with its type and role, an interface, an
IP address assigned to it, brief lists, filters by slug and record updates.

The 1.x client cannot share an environment with the current one (tests/test_pynautobot.py), so
`bin/setup` installs it into a folder of its own and the script runs in a fresh interpreter
with that folder first on its path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from inventory.users.models import Token, User

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / ".venv" / "pynautobot-1x"  # bin/setup: pip install --target


@pytest.mark.skipif(
    not (CLIENT / "pynautobot").is_dir(), reason="pynautobot 1.x is not installed (bin/setup)"
)
def test_a_1x_script_runs_against_the_server(live_server):
    owner = User.objects.create_superuser("script", "script@example.com", "script-password")
    token = Token.objects.create(user=owner)
    script = Path(__file__).with_name("pynautobot_v1_script.py")
    ran = subprocess.run(
        [sys.executable, str(script), live_server.url, token.key],
        env={**os.environ, "PYTHONPATH": str(CLIENT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-4000:]
