"""The squashed migrations build the schema the historical ones do.

A new database migrates through the squashed migrations (one per run of each application's
history, building final tables at once); an existing one keeps upgrading through the historical
migrations they replace. Both must end in the same schema: here the test database (built by
the squashed path) is compared, table by table, with a scratch database whose tables are created
from the state the historical migrations end in, on the database under test (SQLite or
PostgreSQL).
"""

import copy
import io
import re
import uuid

import pytest
from django.apps import apps as live_apps
from django.core.management import call_command
from django.db import connection, connections
from django.db.migrations.autodetector import MigrationAutodetector
from django.db.migrations.graph import MigrationGraph
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder
from django.db.migrations.state import ProjectState
from django.db.utils import load_backend

from inventory.squashing import history_kept

OURS = {config.label for config in live_apps.get_app_configs() if config.name.startswith("inventory.")}


def final_state(loader: MigrationLoader) -> ProjectState:
    return loader.project_state(nodes=loader.graph.leaf_nodes())


def historical_state() -> ProjectState:
    """The state the historical migrations alone end in (the squashed ones left out)."""
    loader = MigrationLoader(None, ignore_no_migrations=True, replace_migrations=False)
    graph = loader.graph
    squashed = {key for key, migration in loader.disk_migrations.items() if migration.replaces}
    leaves = []
    for app in {key[0] for key in graph.nodes}:
        nodes = [key for key in graph.nodes if key[0] == app and key not in squashed]
        leaves += [
            key for key in nodes if not any(child.key in nodes for child in graph.node_map[key].children)
        ]
    return graph.make_state(nodes=leaves, at_end=True, real_apps=loader.unmigrated_apps)


def test_squashed_migrations_replace_the_whole_history():
    """Every historical migration of ours is replaced, exactly once, so a new database runs
    none of them; the last one of each application is replaced too, so a new migration that
    depends on it follows the squashed ones."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    replaced = [key for migration in loader.replacements.values() for key in migration.replaces]
    assert len(replaced) == len(set(replaced))
    historical = {
        key for key, migration in loader.disk_migrations.items() if key[0] in OURS and not migration.replaces
    }
    assert historical == set(replaced)
    assert not historical & set(loader.graph.nodes)


def test_squashed_and_historical_states_are_the_models():
    """Both paths end in the state of today's models: no change to a model lacks its migration
    (what `makemigrations --check` reports, here for every application)."""
    squashed = final_state(MigrationLoader(None, ignore_no_migrations=True))
    history = historical_state()
    for name, state in (("squashed", squashed), ("historical", history)):
        changes = MigrationAutodetector(state, ProjectState.from_apps(live_apps)).changes(
            graph=MigrationGraph()
        )
        assert not changes, (name, changes)
    for key in history.models:
        if key[0] in OURS:
            assert squashed.models[key].options == history.models[key].options, key
            assert squashed.models[key].bases == history.models[key].bases, key


def describe(conn) -> dict:
    """Tables, their columns (type, null, default) and constraints (keys, uniques, checks,
    indexes), as the database reports them."""
    introspection = conn.introspection
    schema = {}
    with conn.cursor() as cursor:
        for table in introspection.get_table_list(cursor):
            if table.type != "t" or table.name == "django_migrations":
                continue
            columns = {
                column.name: (column.type_code, column.null_ok, column.default)
                for column in introspection.get_table_description(cursor, table.name)
            }
            constraints = sorted(
                (
                    # SQLite numbers its unnamed foreign keys by column position: not a difference
                    "" if conn.vendor == "sqlite" and info["foreign_key"] else name,
                    tuple(info["columns"]),
                    info["primary_key"],
                    info["unique"],
                    info["foreign_key"],
                    info["check"],
                    info["index"],
                    info.get("type"),
                )
                for name, info in introspection.get_constraints(cursor, table.name).items()
            )
            schema[table.name] = {"columns": columns, "constraints": constraints}
    return schema


@pytest.fixture
def scratch(tmp_path):
    """A second, empty database of the kind under test: an SQLite file, or a PostgreSQL schema
    of the test database."""
    settings = copy.deepcopy(connection.settings_dict)
    settings["OPTIONS"] = {k: v for k, v in settings.get("OPTIONS", {}).items() if k != "pool"}
    schema = None
    if connection.vendor == "sqlite":
        settings["NAME"] = str(tmp_path / "historical.sqlite3")
    else:
        schema = f"historical_{uuid.uuid4().hex[:8]}"
        settings["OPTIONS"]["options"] = f"-c search_path={schema}"
    conn = load_backend(settings["ENGINE"]).DatabaseWrapper(settings, "scratch")
    connections["scratch"] = conn  # the schema editor looks its connection up by name
    if schema:
        with conn.cursor() as cursor:
            cursor.execute(f"CREATE SCHEMA {schema}")
    try:
        yield conn
    finally:
        if schema:
            with conn.cursor() as cursor:
                cursor.execute(f"DROP SCHEMA {schema} CASCADE")
        conn.close()
        del connections["scratch"]


def create_tables(conn, state: ProjectState) -> None:
    with conn.schema_editor() as editor:
        for model in state.apps.get_models():
            if model._meta.managed and not model._meta.proxy:
                editor.create_model(model)


def assert_same_schema(built: dict, expected: dict) -> None:
    assert sorted(built) == sorted(expected)
    for table in expected:
        assert built[table]["columns"] == expected[table]["columns"], table
        assert built[table]["constraints"] == expected[table]["constraints"], table


@pytest.mark.long
@pytest.mark.django_db
def test_squashed_schema_is_the_historical_schema(scratch):
    """The test database, built by the squashed migrations, has the tables, columns, keys,
    constraints and indexes that the historical migrations' final state has."""
    create_tables(scratch, historical_state())
    assert_same_schema(describe(connection), describe(scratch))


def migrate(conn, *args) -> list[str]:
    """Our migrate command on `conn`; the migrations it applied."""
    out = io.StringIO()
    call_command("migrate", *args, database=conn.alias, interactive=False, verbosity=1, stdout=out)
    return re.findall(r"Applying (\w+)\.(\w+)\.\.\.", out.getvalue())


@pytest.mark.long
@pytest.mark.django_db
def test_database_migrated_to_the_end_of_a_run_upgrades_through_the_history(scratch):
    """A database the historical migrations left at the end of a run (dcim at 0016, as a
    deployment of that time has it) upgrades through the history. The squashed dcim 0017 would
    not change dcim's older tables as 0017 to 0021 do (the squashed runs before it have those
    changes already): the module parts' unique constraints would stay the old ones, for one."""
    with history_kept():
        loader = MigrationLoader(None, ignore_no_migrations=True)
    graph = loader.graph
    run = loader.replacements[("dcim", "0017_squashed_0021_module_parts_carry_their_device")]
    later = {key for replaced in run.replaces for key in graph.backwards_plan(replaced)}
    applied = [key for key in graph.nodes if key not in later]
    # The tables the history makes up to there, made at once (running it takes minutes).
    create_tables(scratch, graph.make_state(nodes=applied, at_end=True, real_apps=loader.unmigrated_apps))
    recorder = MigrationRecorder(scratch)
    recorder.ensure_schema()
    for key in applied:
        recorder.record_applied(*key)

    ran = migrate(scratch)
    assert set(ran) == later and len(ran) == len(later), ran
    assert_same_schema(describe(scratch), describe(connection))
    # Like any database at the end of the history, it counts the squashed migrations applied.
    upgraded = MigrationLoader(scratch)
    assert set(upgraded.applied_migrations) >= set(upgraded.graph.nodes)


@pytest.mark.long
@pytest.mark.django_db
def test_new_database_migrates_through_the_squashed_migrations(scratch):
    """A database with no migration of ours runs the squashed ones, none of the history, and
    starts with the data they make: the Global namespace, the example VPN profiles."""
    from inventory.ipam.models import Namespace
    from inventory.vpn.examples import EXAMPLES
    from inventory.vpn.models import VPNProfile

    applied = migrate(scratch, "vpn")
    ours = [key for key in applied if key[0] in OURS]
    assert ("tenancy", "0001_squashed_0002_slugs_for_api_1x") in ours
    assert ("vpn", "0002_squashed_0002_example_profiles") in ours
    assert all("_squashed_" in name for _, name in ours), ours
    assert Namespace.objects.using("scratch").filter(name="Global").exists()
    profiles = VPNProfile.objects.using("scratch").order_by("name")
    assert [
        (p.name, p.vpn_phase1_policies.get().name, p.vpn_phase2_policies.get().name) for p in profiles
    ] == sorted((e["profile"], e["policy"], e["policy"]) for e in EXAMPLES)
    high = profiles.get(name="High-Security Site-to-Site").vpn_phase2_policies.get()
    assert (high.encryption_algorithm, high.pfs_group, high.lifetime) == (["AES-256-GCM"], ["21"], 1800)


@pytest.mark.django_db
def test_new_database_starts_with_the_global_namespace():
    """Data a new database needs is made by the squashed path too (the historical one made the
    Global namespace while moving existing addresses into it)."""
    from inventory.ipam.models import Namespace

    assert Namespace.objects.filter(name="Global", description="Default Global namespace.").exists()
