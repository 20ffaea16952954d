"""The device of what a module carries: its components and module bays carry the device the
module is installed in (through any depth of module bays), as the reference's do, so that a
device's components are found by their device alone.

A new component or bay takes its module's device when saved (one hop: a nested bay carries the
device too). A module moved to another bay, or out of one, hands its new device down its whole
tree once the write's rows are stored: a few statements per level of nesting, however many
modules the write moves."""

import threading
from contextlib import contextmanager

from django.apps import apps
from django.db.models import OuterRef, Subquery

# What carries a module's device: (model, its device field, its module field).
CARRIERS = (
    ("ConsolePort", "device", "module"),
    ("ConsoleServerPort", "device", "module"),
    ("PowerPort", "device", "module"),
    ("PowerOutlet", "device", "module"),
    ("Interface", "device", "module"),
    ("RearPort", "device", "module"),
    ("FrontPort", "device", "module"),
    ("ModuleBay", "parent_device", "parent_module"),
)
# Bounds the walk down a tree should stored data ever hold a loop (clean methods refuse one).
MAX_DEPTH = 64

_pending = threading.local()


def device_of(module):
    """The id of the device `module` is installed in, or None (stored at a location, or in a
    bay of a module that is). Reads the module's bay, which writes preload."""
    if module is None or module.parent_module_bay_id is None:
        return None
    return module.parent_module_bay.parent_device_id


def devices_of(modules: list) -> dict:
    """{module id: `device_of` it} for many modules: from the bays loaded with them, the others'
    read together."""
    found, unread = {}, {}
    for module in modules:
        if module.parent_module_bay_id is not None and not type(module).parent_module_bay.is_cached(module):
            unread[module.pk] = module.parent_module_bay_id
        else:
            found[module.pk] = device_of(module)
    if unread:
        ModuleBay = apps.get_model("dcim", "ModuleBay")
        bays = dict(ModuleBay.objects.filter(pk__in=set(unread.values())).values_list("pk", "parent_device"))
        found.update({pk: bays.get(bay) for pk, bay in unread.items()})
    return found


@contextmanager
def place_later():
    """Within it (a module write's `write_batch`), moved modules are noted and their trees take
    their devices once, together, at its end."""
    if getattr(_pending, "modules", None) is not None:
        yield  # an outer write places them
        return
    _pending.modules = set()
    try:
        yield
        moved = _pending.modules
    finally:
        _pending.modules = None
    give_devices(moved)


def note_moved(module) -> bool:
    """Note a module whose bay changed; False when no write is under way (the caller places it
    once its row is stored)."""
    waiting = getattr(_pending, "modules", None)
    if waiting is None:
        return False
    waiting.add(module.pk)
    return True


def give_devices(module_ids, registry=apps) -> None:
    """Every component and bay of the modules, and of the modules below them, takes the device
    its module's bay carries, a level at a time from the top: a bay's device is right before
    the modules in it are read. A module below another moved by the same write is placed again
    when the walk reaches it from above. `registry`: the apps of a migration, or the live ones."""
    Module = registry.get_model("dcim", "Module")
    ModuleBay = registry.get_model("dcim", "ModuleBay")
    carriers = [(registry.get_model("dcim", name), device, module) for name, device, module in CARRIERS]
    level, depth = set(module_ids), 0
    while level and depth < MAX_DEPTH:
        for model, device, module in carriers:
            bay = ModuleBay.objects.filter(installed_module=OuterRef(module)).values("parent_device")[:1]
            model.objects.filter(**{f"{module}__in": level}).update(**{device: Subquery(bay)})
        below = Module.objects.filter(parent_module_bay__parent_module__in=level)
        level, depth = set(below.values_list("pk", flat=True)), depth + 1
