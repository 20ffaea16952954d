"""Repeated failed sign-ins (token provisioning with a password) are throttled with 429."""

from __future__ import annotations

import base64

import orjson

from inventory.users.models import Token

TOKENS = "/api/users/tokens/"


def provision(client, username: str, password: str, address: str = "192.0.2.10"):
    credentials = base64.b64encode(f"{username}:{password}".encode()).decode()
    return client.post(
        TOKENS,
        b"{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {credentials}",
        REMOTE_ADDR=address,
    )


def test_failures_past_the_allowance_are_429_until_the_window_passes(anonymous, superuser, settings):
    settings.SIGNIN_FAILURES_ALLOWED = 3
    client = anonymous.client
    for _ in range(3):
        assert provision(client, "admin", "wrong").status_code == 403
    refused = provision(client, "admin", "admin-password")  # even the right password waits
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= settings.SIGNIN_FAILURE_WINDOW + 1
    assert orjson.loads(refused.content)["detail"].startswith("Too many failed sign-in attempts")
    assert not Token.objects.filter(user=superuser).exists()
    # The user name is throttled from any address; a fresh address guessing it is refused too.
    assert provision(client, "admin", "admin-password", address="198.51.100.7").status_code == 429
    # Once the window is over, the right password works again.
    settings.SIGNIN_FAILURE_WINDOW = 0
    assert provision(client, "admin", "admin-password").status_code == 201


def test_an_address_guessing_many_names_is_throttled(anonymous, superuser, settings):
    settings.SIGNIN_FAILURES_ALLOWED = 3
    for name in ("alice", "bob", "carol"):
        assert provision(anonymous.client, name, "guess").status_code == 403
    assert provision(anonymous.client, "admin", "admin-password").status_code == 429
    # Another address is not held back by this one's failures.
    assert provision(anonymous.client, "admin", "admin-password", address="198.51.100.7").status_code == 201


def test_a_right_password_clears_the_user_names_count(anonymous, superuser, settings):
    settings.SIGNIN_FAILURES_ALLOWED = 3
    client = anonymous.client
    for address in ("192.0.2.1", "192.0.2.2"):
        assert provision(client, "admin", "wrong", address=address).status_code == 403
    assert provision(client, "admin", "admin-password", address="192.0.2.3").status_code == 201
    for address in ("192.0.2.4", "192.0.2.5"):
        assert provision(client, "admin", "wrong", address=address).status_code == 403
    assert provision(client, "admin", "admin-password", address="192.0.2.6").status_code == 201
