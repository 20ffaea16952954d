"""A single write costs a few SQL statements, change log included: the definitions every write
reads (custom fields, relationships, computed fields, webhooks, job hooks) are kept between
writes, and read again once one of them changes, in this server process or in another."""

from __future__ import annotations

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from inventory.extras.models import CustomField, ObjectChange
from inventory.tenancy.models import Tenant
from inventory.users.models import Token, User
from queryengine import definitions

from .conftest import Api, send

KEY = "c" * 40
TENANTS = "/api/tenancy/tenants/"
DEFINITION_TABLES = (
    '"extras_customfield"',
    '"extras_relationship"',
    '"extras_computedfield"',
    '"extras_webhook"',
    '"jobs_jobhook"',
)


@pytest.fixture
def client(db):
    """An API client of a superuser, and no definitions made in the test's own transaction (what
    that transaction reads is never kept: it could yet be rolled back)."""
    Token.objects.create(user=User.objects.create_superuser("writer", "w@example.com", "pw"), key=KEY)
    return Api(KEY)


def statements(api, method: str, path: str, body) -> tuple[object, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        status, answer = send(api, method, path, body)
    assert status in (200, 201), answer
    # Savepoints stand for the transaction a request opens outside a test case.
    return answer, [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]


@override_settings(CHANGELOG_OBJECT_DATA_V2=False)
def test_single_post_and_patch_read_no_definitions_and_few_statements(client):
    send(client, "post", TENANTS, {"name": "first"})  # reads the definitions once
    created, posted = statements(client, "post", TENANTS, {"name": "second"})
    _, patched = statements(client, "patch", f"{TENANTS}{created['id']}/", {"description": "changed"})
    for sql in posted + patched:
        assert not any(table in sql for table in DEFINITION_TABLES), sql
    assert ObjectChange.objects.filter(changed_object_id=created["id"]).count() == 2
    postgresql = connection.vendor == "postgresql"
    # POST: INSERT, change record, the object read back (the token was kept from the first
    # request; a new object's tags, none given, need no query; the slug derived from the name
    # is left to its unique index). On PostgreSQL the change record travels with the read-back.
    assert len(posted) == (2 if postgresql else 3), posted
    # PATCH: the row locked with its tags (PostgreSQL gathers them into an array, so the read-back
    # knows there are none; SQLite reads them apart, and again with the object), UPDATE
    # (returning the row its ETag is made of), change record, the object read back. On
    # PostgreSQL the read-back carries the UPDATE and the change record.
    assert len(patched) == (2 if postgresql else 6), patched
    if postgresql:
        sent_with = [sql for sql in posted + patched if "INSERT INTO extras_objectchange" in sql]
        assert len(sent_with) == 2 and all('FROM "tenancy_tenant"' in sql for sql in sent_with), sent_with
        assert patched[1].startswith('WITH "tenancy_tenant" AS (UPDATE "tenancy_tenant" SET'), patched


def test_the_api_shape_a_change_record_keeps_costs_a_bounded_read(client):
    """object_data_v2 (on by default) reads the written object at depth 1 once per write: a
    few statements more, whatever the object."""
    send(client, "post", TENANTS, {"name": "first"})
    with override_settings(CHANGELOG_OBJECT_DATA_V2=False):
        created, lean = statements(client, "post", TENANTS, {"name": "lean"})
    created, posted = statements(client, "post", TENANTS, {"name": "shaped"})
    assert len(posted) <= len(lean) + 4, posted
    record = ObjectChange.objects.get(changed_object_id=created["id"])
    assert record.object_data_v2["name"] == "shaped" and record.object_data_v2["url"].startswith("/api/")


def test_a_patch_shows_the_tags_it_left_alone_and_those_it_set(client):
    tags = [
        send(client, "post", "/api/extras/tags/", {"name": name, "content_types": ["tenancy.tenant"]})[1]
        for name in ("blue", "green")
    ]
    status, tenant = send(client, "post", TENANTS, {"name": "tagged", "tags": [tags[0]["id"]]})
    assert status == 201, tenant
    path = f"{TENANTS}{tenant['id']}/"
    status, kept = send(client, "patch", path, {"description": "tags untouched"})
    assert status == 200 and [t["id"] for t in kept["tags"]] == [tags[0]["id"]], kept
    status, cleared = send(client, "patch", path, {"tags": []})
    assert status == 200 and cleared["tags"] == [], cleared
    status, untagged = send(client, "patch", path, {"description": "still untagged"})
    assert status == 200 and untagged["tags"] == [], untagged
    status, both = send(client, "patch", path, {"tags": [t["id"] for t in tags]})
    assert status == 200 and sorted(t["id"] for t in both["tags"]) == sorted(t["id"] for t in tags), both
    status, again = send(client, "patch", path, {"description": "both kept"})
    assert status == 200 and again["tags"] == both["tags"] == send(client, "get", path, None)[1]["tags"]


def test_a_definition_changed_here_applies_to_the_next_write(client):
    send(client, "post", TENANTS, {"name": "before"})
    field = {"key": "site_code", "label": "Site", "type": "text", "content_types": ["tenancy.tenant"]}
    status, made = send(client, "post", "/api/extras/custom-fields/", field)
    assert status == 201, made
    status, tenant = send(client, "post", TENANTS, {"name": "after", "custom_fields": {"site_code": "A1"}})
    assert status == 201 and tenant["custom_fields"] == {"site_code": "A1"}
    assert send(client, "patch", f"/api/extras/custom-fields/{made['id']}/", {"required": True})[0] == 200
    status, errors = send(client, "post", TENANTS, {"name": "without"})
    assert status == 400 and errors == {"__all__": ["Missing required custom field 'site_code'."]}


def test_a_definition_changed_by_another_process_applies_once_it_says_so(client):
    send(client, "post", TENANTS, {"name": "before"})
    # Another server process adds a custom field: the row appears, and that process replaces
    # the shared token (this process saw no save of its own).
    added = CustomField.objects.bulk_create([CustomField(key="rack_row", label="Row", default="A")])[0]
    added.content_types.through.objects.bulk_create(
        [
            added.content_types.through(
                customfield=added, contenttype=ContentType.objects.get_for_model(Tenant)
            )
        ]
    )
    status, tenant = send(client, "post", TENANTS, {"name": "kept"})
    assert status == 201 and tenant["custom_fields"] == {}  # the definitions this process keeps
    cache.set(definitions.KEY, "replaced by another process", None)
    status, tenant = send(client, "post", TENANTS, {"name": "reloaded"})
    assert status == 201 and tenant["custom_fields"] == {"rack_row": "A"}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_one_object_statements_are_prepared_and_sets_of_ids_are_not(client):
    status, tenant = send(client, "post", TENANTS, {"name": "prepared"})
    assert status == 201, tenant
    path = f"{TENANTS}{tenant['id']}/"
    assert send(client, "patch", path, {"description": "once"})[0] == 200
    assert send(client, "get", path, None)[1]["description"] == "once"
    assert send(client, "post", TENANTS, {"name": "another"})[0] == 201
    assert send(client, "get", f"{TENANTS}?limit=5", None)[1]["count"] == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        prepared = [row[0] for row in cursor.fetchall()]
    tenant_reads = [sql for sql in prepared if 'FROM "tenancy_tenant"' in sql]
    # The object read back and read, and its lock: each by one id, planned once.
    assert any("FOR UPDATE" in sql for sql in tenant_reads), prepared
    assert any("_json" in sql and "FOR UPDATE" not in sql for sql in tenant_reads), prepared
    assert all('"tenancy_tenant"."id" = ($' in sql for sql in tenant_reads), tenant_reads
    # The change record, with the read-back it travels with.
    assert any(sql.startswith("WITH deferred0 AS (INSERT INTO extras_objectchange") for sql in prepared)
    # A page's rows (a set of ids) are planned for the set each time.
    assert not any("string_to_array" in sql for sql in tenant_reads), tenant_reads
