"""A module's components and bays carry the device the module is installed in (through any depth
of module bays), as the reference's do: shown, filtered by device, moved with the module, and
named apart from the device's own components. Through the HTTP stack."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from inventory.dcim.models import Device, Interface, Location, Module, ModuleBay, ModuleType
from inventory.dcim.models.moduletree import CARRIERS

from .conftest import send

INTERFACES, MODULES, BAYS = "/api/dcim/interfaces/", "/api/dcim/modules/", "/api/dcim/module-bays/"


def device_ids(api, path: str, params: dict, field: str = "device") -> set:
    rows = api.json(path, {**params, "limit": 1000})["results"]
    return {row[field]["id"] if row[field] else None for row in rows}


def install(api, bay, **fields) -> dict:
    body = {
        "module_type": str(ModuleType.objects.get(model="MPC7E").pk),
        "parent_module_bay": str(bay.pk),
        "status": "Active",
        **fields,
    }
    status, module = send(api, "post", MODULES, body)
    assert status == 201, module
    return module


@pytest.fixture
def chassis(sample):
    """core1 and a second chassis of its type, core2, each with a free bay (FPC5)."""
    core1 = Device.objects.get(name="core1")
    core2 = Device.objects.create(
        name="core2",
        device_type=core1.device_type,
        role=core1.role,
        status=core1.status,
        location=core1.location,
    )
    for device in (core1, core2):
        ModuleBay.objects.create(parent_device=device, name="FPC5")
    return core1, core2


def test_the_samples_module_parts_carry_its_device(api, chassis):
    core1, _ = chassis
    module = Module.objects.get(serial="M1")
    assert device_ids(api, INTERFACES, {"module": str(module.pk)}) == {str(core1.pk)}
    assert device_ids(api, BAYS, {"parent_module": str(module.pk)}, "parent_device") == {str(core1.pk)}


def test_an_installed_modules_parts_are_the_devices(api, chassis):
    core1, _ = chassis
    bay = ModuleBay.objects.get(parent_device=core1, name="FPC5")
    module = install(api, bay)
    [interface] = api.json(INTERFACES, {"module": module["id"]})["results"]
    assert interface["device"]["id"] == str(core1.pk) and interface["module"]["id"] == module["id"]
    assert interface["natural_slug"].startswith("core1_")  # named through its device too
    for params in ({"device": "core1"}, {"device_id": str(core1.pk)}):
        listed = {i["id"] for i in api.json(INTERFACES, {**params, "limit": 1000})["results"]}
        assert interface["id"] in listed, params
        assert listed == {
            str(pk) for pk in Interface.objects.filter(device=core1).values_list("pk", flat=True)
        }
    [inner_bay] = api.json(BAYS, {"parent_module": module["id"]})["results"]
    assert inner_bay["parent_device"]["id"] == str(core1.pk) and inner_bay["display"] == "core1 (PIC0)"
    assert inner_bay["id"] in {b["id"] for b in api.json(BAYS, {"parent_device": "core1"})["results"]}


def test_nested_modules_moved_and_deleted(api, chassis):
    core1, core2 = chassis
    outer = install(api, ModuleBay.objects.get(parent_device=core1, name="FPC5"))
    inner_bay = ModuleBay.objects.get(parent_module=outer["id"])
    inner = install(api, inner_bay)
    innermost = install(api, ModuleBay.objects.get(parent_module=inner["id"]))
    tree = [outer["id"], inner["id"], innermost["id"]]
    assert api.json(f"{MODULES}{innermost['id']}/")["display"] == "MPC7E installed in core1"

    def devices_of_tree() -> set:
        found = set()
        for module in tree:
            found |= device_ids(api, INTERFACES, {"module": module})
            found |= device_ids(api, BAYS, {"parent_module": module}, "parent_device")
        return found

    assert devices_of_tree() == {str(core1.pk)}
    # Moved to another device's bay: the whole tree below follows.
    target = ModuleBay.objects.get(parent_device=core2, name="FPC5")
    status, body = send(api, "patch", f"{MODULES}{outer['id']}/", {"parent_module_bay": str(target.pk)})
    assert status == 200, body
    assert devices_of_tree() == {str(core2.pk)}
    names = [i["name"] for i in api.json(INTERFACES, {"device": "core2"})["results"]]
    assert names.count("et-0/0/0") == 3
    assert "et-0/0/0" in [i["name"] for i in api.json(INTERFACES, {"device": "core1"})["results"]]  # M1's
    # Taken out to a location: no device.
    location = Location.objects.get(name="AMS1")
    status, body = send(
        api, "patch", f"{MODULES}{outer['id']}/", {"parent_module_bay": None, "location": str(location.pk)}
    )
    assert status == 200, body
    assert devices_of_tree() == {None}
    # Put back into a bay named by its attributes (written object by object, not in bulk).
    back = {"parent_device": str(core1.pk), "name": "FPC5"}
    status, body = send(
        api, "patch", MODULES, [{"id": outer["id"], "parent_module_bay": back, "location": None}]
    )
    assert status == 200, body
    assert devices_of_tree() == {str(core1.pk)}
    # Deleted: its parts and the modules in it go with it.
    assert send(api, "delete", f"{MODULES}{outer['id']}/")[0] == 204
    assert not Module.objects.filter(pk__in=tree).exists()
    assert not Interface.objects.filter(module__in=tree).exists()
    assert not ModuleBay.objects.filter(parent_module__in=tree).exists()
    assert [i["name"] for i in api.json(INTERFACES, {"device": "core1"})["results"]].count("et-0/0/0") == 1


def test_a_module_moved_with_the_orm_hands_down_its_device(chassis):
    core1, core2 = chassis
    module = Module.objects.get(serial="M1")
    module.parent_module_bay = ModuleBay.objects.get(parent_device=core2, name="FPC5")
    module.save()
    assert set(Interface.objects.filter(module=module).values_list("device", flat=True)) == {core2.pk}
    assert set(ModuleBay.objects.filter(parent_module=module).values_list("parent_device", flat=True)) == {
        core2.pk
    }


def test_names_unique_per_module_and_among_a_devices_own(api, chassis):
    core1, _ = chassis
    module = install(api, ModuleBay.objects.get(parent_device=core1, name="FPC5"))
    # The device's own "et-0/0/0" beside its modules' (the reference allows it), but once.
    own = {"device": str(core1.pk), "name": "et-0/0/0", "type": "virtual", "status": "Active"}
    status, created = send(api, "post", INTERFACES, own)
    assert status == 201, created
    assert created["module"] is None
    status, errors = send(api, "post", INTERFACES, own)
    assert status == 400
    assert errors == {"__all__": ["A interface by this name already exists on core1"]}
    status, errors = send(api, "post", INTERFACES, [{**own, "name": "et-9"}, {**own, "name": "et-9"}])
    assert status == 400
    assert errors == [{}, {"__all__": ["A interface by this name already exists on core1"]}]
    # Within a module, as the reference's (module, name) constraint says.
    on_module = {"module": module["id"], "name": "et-0/0/0", "type": "virtual", "status": "Active"}
    status, errors = send(api, "post", INTERFACES, on_module)
    assert status == 400
    assert errors == {"non_field_errors": ["The fields module, name must make a unique set."]}
    # Front ports are written one by one (their paths are traced): the same rules.
    status, rear = send(
        api,
        "post",
        "/api/dcim/rear-ports/",
        {"module": module["id"], "name": "r1", "type": "lc", "positions": 2},
    )
    assert status == 201 and rear["device"]["id"] == str(core1.pk), rear
    front = {"name": "f1", "type": "lc", "rear_port": rear["id"]}
    status, created = send(api, "post", "/api/dcim/front-ports/", {**front, "module": module["id"]})
    assert status == 201 and created["device"]["id"] == str(core1.pk), created
    own_front = {**front, "device": str(core1.pk), "rear_port_position": 2}
    status, created = send(api, "post", "/api/dcim/front-ports/", own_front)
    assert status == 201 and created["module"] is None, created
    status, errors = send(api, "post", "/api/dcim/front-ports/", own_front)
    assert status == 400
    assert "A front port by this name already exists on core1" in errors["__all__"]
    # A module's bay may repeat a name of the device's own bays; the device's own may not.
    status, errors = send(api, "post", BAYS, {"parent_device": str(core1.pk), "name": "PIC0"})
    assert status == 201, errors
    status, errors = send(api, "post", BAYS, {"parent_device": str(core1.pk), "name": "FPC5"})
    assert status == 400
    assert errors == {"__all__": ["A module bay by this name already exists on core1"]}
    status, errors = send(api, "post", BAYS, {"parent_module": module["id"], "name": "PIC0"})
    assert status == 400
    assert errors == {"non_field_errors": ["The fields parent_module, name must make a unique set."]}


def test_a_device_given_with_a_module_must_be_the_modules(api, chassis):
    core1, core2 = chassis
    module = Module.objects.get(serial="M1")
    body = {"module": str(module.pk), "name": "et-7", "type": "virtual", "status": "Active"}
    status, errors = send(api, "post", INTERFACES, {**body, "device": str(core2.pk)})
    assert status == 400
    assert errors == {"__all__": ["Module's assigned device differs (device) from the root device: device"]}
    status, created = send(api, "post", INTERFACES, {**body, "device": str(core1.pk)})
    assert status == 201 and created["device"]["id"] == str(core1.pk), created
    status, errors = send(
        api, "post", BAYS, {"parent_module": str(module.pk), "parent_device": str(core2.pk), "name": "x"}
    )
    assert status == 400
    assert errors == {
        "__all__": ["module bay.parent_device differs from the parent_module's nested device: device"]
    }


def test_moving_modules_costs_statements_per_level_not_per_module(api, chassis):
    core1, core2 = chassis

    def move(size: int, run: str) -> int:
        sources = [ModuleBay.objects.create(parent_device=core1, name=f"{run}-a{i}") for i in range(size)]
        targets = [ModuleBay.objects.create(parent_device=core2, name=f"{run}-b{i}") for i in range(size)]
        modules = [install(api, bay) for bay in sources]
        patch = [
            {"id": m["id"], "parent_module_bay": str(t.pk)} for m, t in zip(modules, targets, strict=True)
        ]
        with CaptureQueriesContext(connection) as queries:
            status, body = send(api, "patch", MODULES, patch)
        assert status == 200, body
        ids = [m["id"] for m in modules]
        assert set(Interface.objects.filter(module__in=ids).values_list("device", flat=True)) == {core2.pk}
        return len(queries.captured_queries)

    move(1, "warm")
    assert move(2, "small") == move(6, "large")


def test_every_carrier_is_a_model_with_both_fields():
    from django.apps import apps

    for name, device, module in CARRIERS:
        model = apps.get_model("dcim", name)
        assert model._meta.get_field(device).related_model is Device
        assert model._meta.get_field(module).related_model is Module


def test_the_migration_gives_stored_module_parts_their_device(api, chassis):
    import importlib

    from django.apps import apps

    core1, _ = chassis
    outer = install(api, ModuleBay.objects.get(parent_device=core1, name="FPC5"))
    inner = install(api, ModuleBay.objects.get(parent_module=outer["id"]))
    tree = [outer["id"], inner["id"]]
    Interface.objects.filter(module__in=tree).update(device=None)  # as stored before
    ModuleBay.objects.filter(parent_module__in=tree).update(parent_device=None)
    migration = importlib.import_module("inventory.dcim.migrations.0021_module_parts_carry_their_device")
    migration.give_modules_parts_their_device(apps, None)
    assert set(Interface.objects.filter(module__in=tree).values_list("device", flat=True)) == {core1.pk}
    assert set(ModuleBay.objects.filter(parent_module__in=tree).values_list("parent_device", flat=True)) == {
        core1.pk
    }


def test_modules_are_searched_by_their_types_model_and_where_they_sit(api, chassis):
    """`q=<module type model>` finds the modules of that type (the Ansible modules look a module
    up so), and the bay, device or manufacturer find the modules there, as the reference's search."""
    core1, _ = chassis
    module = install(api, ModuleBay.objects.get(parent_device=core1, name="FPC5"), serial="S-77")
    of_type = {
        str(pk) for pk in Module.objects.filter(module_type__model="MPC7E").values_list("pk", flat=True)
    }
    assert {row["id"] for row in api.json(MODULES, {"q": "mpc7e", "limit": 1000})["results"]} == of_type
    assert module["id"] in of_type
    in_bay = {row["id"] for row in api.json(MODULES, {"q": "fpc5", "limit": 1000})["results"]}
    bays = Module.objects.filter(parent_module_bay__name="FPC5")
    assert in_bay == {str(pk) for pk in bays.values_list("pk", flat=True)} and module["id"] in in_bay
    manufacturer = ModuleType.objects.get(model="MPC7E").manufacturer
    by_maker = api.json(MODULES, {"manufacturer": manufacturer.name, "limit": 1000})
    assert {row["id"] for row in by_maker["results"]} == {
        str(pk)
        for pk in Module.objects.filter(module_type__manufacturer=manufacturer).values_list("pk", flat=True)
    }
