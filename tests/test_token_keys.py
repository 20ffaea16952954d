"""A token's key is a password: shown once, in the answer that makes it; wrong keys are throttled
per address; a chosen key must be as strong as a generated one, and a clash says no more."""

from __future__ import annotations

import random
import re

import orjson
from django.test import Client, override_settings

from inventory.users.models import UNUSABLE_KEY, Token, generate_key, key_is_strong
from queryengine import engine
from queryengine.scalars import dumps
from queryengine.schema import RequestContext
from rest import throttle

from .builders import SUPERUSER_KEY
from .conftest import Api, send

TOKENS = "/api/users/tokens/"
LOCATIONS = "/api/dcim/locations/"
KEY = re.compile(r"[0-9a-f]{40}")


def graphql(api: Api, query: str) -> dict:
    response = api.post("/api/graphql/", {"query": query})
    assert response.status_code == 200, response.content[:500]
    return orjson.loads(response.content)["data"]


def test_a_read_only_token_reads_no_key_of_its_owner(sample):
    """The attack: a read-only token listed its owner's tokens and read the key of the
    write-enabled one, in every version and form."""
    write_enabled, read_only = sample[Token][0], sample[Token][1]
    reader = Api(read_only.key)
    detail = f"{TOKENS}{write_enabled.pk}/"
    answers = [
        reader.get(TOKENS),
        reader.get(detail, {"depth": 2}),
        reader.get(TOKENS, {"format": "csv"}),
        reader.get(TOKENS, {"api_version": "1.3"}),
        reader.get(detail, {"api_version": "1.2", "brief": 1}),
        reader.post(
            "/api/graphql/", {"query": f'{{ tokens {{ key }} token(id: "{write_enabled.pk}") {{ key }} }}'}
        ),
    ]
    for answer in answers:
        assert answer.status_code == 200, answer.content[:300]
        text = answer.content.decode()
        assert write_enabled.key not in text and read_only.key not in text
    listed = orjson.loads(answers[0].content)["results"]
    assert [t["key"] for t in listed] == [None, None]
    # The display keeps the last six characters, as the reference's does.
    assert sorted(t["display"] for t in listed) == sorted(
        f"{t.key[-6:]} (admin)" for t in (write_enabled, read_only)
    )
    assert orjson.loads(answers[-1].content)["data"] == {
        "tokens": [{"key": None}] * 2,
        "token": {"key": None},
    }


def test_the_key_is_shown_in_the_answer_that_makes_it_and_never_again(api, sample, superuser):
    status, made = send(api, "post", TOKENS, {"description": "ci"})
    assert status == 201 and KEY.fullmatch(made["key"])
    status, bulk = send(
        api, "post", TOKENS, [{"description": "a", "key": None}, {"description": "b", "key": ""}]
    )
    assert status == 201 and all(KEY.fullmatch(t["key"]) for t in bulk)
    url = f"{TOKENS}{made['id']}/"
    tag = api.get(url)["ETag"]  # reads and writes back by ETag as before
    response = api.client.patch(
        url, b'{"description": "changed"}', content_type="application/json", HTTP_IF_MATCH=tag
    )
    assert response.status_code == 200 and orjson.loads(response.content)["key"] is None
    # What a read shows, written back, keeps the key (as null or blank on creation generates one).
    status, replaced = send(api, "put", url, {**api.json(url), "description": "again"})
    assert status == 200 and replaced["key"] is None and replaced == api.json(url)
    status, changed = send(api, "patch", TOKENS, [{"id": made["id"], "write_enabled": False}])
    assert status == 200 and changed[0]["key"] is None
    assert api.json(url)["key"] is None and api.json(url, {"api_version": "1.3"})["key"] is None
    assert Api(made["key"]).json(LOCATIONS)["count"] == 4  # the key shown is the key

    # GraphQL: the create mutation's answer (the token page's) shows it, a read does not; the
    # compiled plans and the generic executor agree.
    context = RequestContext(user=superuser, base_url="http://testserver/api/", write_enabled=True)
    create = 'mutation { made: create_tokens(data: [{description: "gql"}]) { description key } }'
    read = '{ tokens(description: "gql") { description key } }'
    for compiled in (True, False):
        created = orjson.loads(dumps(engine.run(create, {}, context, compiled=compiled).data))["made"]
        assert created[0]["description"] == "gql" and KEY.fullmatch(created[0]["key"])
    answers = [dumps(engine.run(read, {}, context, compiled=compiled).data) for compiled in (True, False)]
    assert (
        answers[0] == answers[1]
        and orjson.loads(answers[0])["tokens"] == [{"description": "gql", "key": None}] * 2
    )


@override_settings(TOKEN_FAILURES_ALLOWED=3)
def test_wrong_tokens_are_throttled_per_address(sample, superuser, monkeypatch):
    """The attack: hundreds of guessed keys a second, every one looked up."""
    unseen = Token.objects.create(user=superuser).key  # no process has looked this one up yet

    def get(authorization: str, address: str = "192.0.2.66"):
        return Api(None).get(LOCATIONS, HTTP_AUTHORIZATION=authorization, REMOTE_ADDR=address)

    assert get(f"Token {SUPERUSER_KEY}").status_code == 200
    for authorization in ("Token " + "0" * 40, "Token " + "1" * 40, "Token"):  # malformed counts too
        assert get(authorization).status_code == 403
    refused = get("Token " + "2" * 40)
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 301
    assert orjson.loads(refused.content)["detail"].startswith("Too many failed authentication attempts")
    # Throttled, the address has no key tried, so a right guess looks like a wrong one.
    assert get(f"Token {SUPERUSER_KEY}").status_code == 429
    throttle.forget_refused()  # as another server process, which shares only the counts
    assert get(f"Token {unseen}").status_code == 429
    # Other addresses are not held back; a token this process knows costs no throttle round trip.
    monkeypatch.setattr(throttle, "cache", None)
    assert get(f"Token {SUPERUSER_KEY}", address="198.51.100.9").status_code == 200
    monkeypatch.undo()
    with override_settings(TOKEN_FAILURE_WINDOW=0):  # once the window has passed, in any process
        assert get(f"Token {unseen}").status_code == 200


def test_a_chosen_key_must_be_as_strong_as_a_generated_one(api, sample):
    taken = sample[Token][2].key  # another user's
    refused = {"key": [UNUSABLE_KEY]}
    weak = [
        "0" * 40,
        "deadbeef" * 5,
        "0123456789abcdef" * 2 + "01234567",
        "0123456789abcdef" + "9c1e0b7a5d8264c0e1f7a9b3",
        "00000000ffffffff00000000ffffffff1a2b3c4d",
    ]
    for key in [*weak, taken]:  # a clash answers exactly as a weak key: it tells nothing
        assert send(api, "post", TOKENS, {"key": key}) == (400, refused), key
    assert send(api, "post", TOKENS, {"key": "0" * 39}) == (
        400,
        {"key": ["Enter 40 lowercase hexadecimal characters."]},
    )
    chosen = "3f9c1e0b7a5d8264c0e1f7a9b3d52c68e4a1907b"
    status, made = send(api, "post", TOKENS, {"key": chosen})
    assert status == 201 and made["key"] == chosen
    # A key from before keys were checked stays usable; it may not be chosen again.
    own = f"{TOKENS}{sample[Token][0].pk}/"
    assert send(api, "patch", own, {"description": "kept"})[0] == 200
    assert send(api, "patch", f"{TOKENS}{made['id']}/", {"key": "a" * 40}) == (400, refused)
    assert send(api, "patch", f"{TOKENS}{made['id']}/", {"key": taken}) == (400, refused)


def test_generated_keys_pass_the_strength_check():
    rng = random.Random(20)  # fixed: the same 100,000 keys every run
    assert all(key_is_strong(f"{rng.getrandbits(160):040x}") for _ in range(100_000))
    assert key_is_strong(generate_key())


def test_the_admin_shows_a_key_once(superuser):
    client = Client()
    client.force_login(superuser)
    form = {"user": superuser.pk, "description": "made in the admin", "write_enabled": "on"}
    response = client.post("/admin/users/token/add/", {**form, "expires_0": "", "expires_1": ""}, follow=True)
    token = Token.objects.get(description="made in the admin")
    assert response.status_code == 200 and token.key in response.content.decode()
    page = client.get(f"/admin/users/token/{token.pk}/change/").content.decode()
    assert token.key not in page and f"…{token.key[-6:]}" in page
