"""Filters of DCIM resources beyond plain field lookups: flags, to-many relations, module bays,
interface kinds and the devices (and virtual chassis) interfaces are on."""

import operator
import uuid
from functools import reduce

from django.db.models import Q

from queryengine.filters import parse_bool
from queryengine.registry import CustomFilter

from . import choices
from .models import Device, ModuleBay
from .models.interfaces import VIRTUAL_INTERFACE_TYPES


def flag(build, oracle) -> CustomFilter:
    """A true/false filter (`has_primary_ip=true`): `build(True)` matches the rows that have it."""
    return CustomFilter(
        lambda values: build(True) if values[-1] else ~build(True),
        parse_bool,
        lambda obj, values: oracle(obj) == values[-1],
        ("true", "false"),
        boolean=True,  # a Boolean argument, as the reference's boolean filters
    )


def list_text_contains(name: str) -> CustomFilter:
    """Objects whose stored list `name` holds an item containing the given text, in any case (any
    of several), as the reference filters its JSON lists: `2` finds DH group 22, `aes` every AES
    algorithm, `4` channel 44."""

    def oracle(obj, values) -> bool:
        items = [str(item).lower() for item in getattr(obj, name) or []]
        return any(value.lower() in item for value in values for item in items)

    def samples(objects) -> list:
        present = [str(item) for o in objects for item in getattr(o, name) or []]
        return [present[0], present[0][:1].lower(), [present[-1], "no such item"]] if present else []

    return CustomFilter(
        lambda values: reduce(operator.or_, (Q(**{f"{name}__icontains": value}) for value in values)),
        str,
        oracle,
        samples,
    )


def members(path: str, model, key: str | None = "name", negated: bool = False, isnull: bool = False):
    """Objects related to any of the given ones through a to-many `path` (`module_types`,
    `parent__vrfs`), named by id or by `key`; `negated`: also `<name>__n`, `isnull`: also
    `<name>__isnull` (none related at all)."""

    def parse(value: str):
        try:
            found = model.objects.filter(pk=uuid.UUID(value))
        except ValueError:
            found = model.objects.filter(**{key: value}) if key else model.objects.none()
        pks = list(found.values_list("pk", flat=True))
        if not pks:
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return pks

    def held(obj) -> list:
        rows = type(obj)._default_manager.filter(pk=obj.pk).values_list(path, flat=True)
        return [pk for pk in rows if pk is not None]

    def oracle(obj, groups) -> bool:
        wanted = {pk for group in groups for pk in group}
        return bool(wanted & set(held(obj)))

    def samples(objects) -> list:
        first = next((pk for obj in objects for pk in held(obj)), None)
        return [] if first is None else [str(first)]

    return CustomFilter(
        lambda groups: Q(**{f"{path}__in": [pk for group in groups for pk in group]}),
        parse,
        oracle,
        samples,
        negated=negated,
        present=(lambda: Q(**{f"{path}__isnull": False})) if isnull else None,
    )


def parse_bay_family(value: str):
    """The module family of a module bay named by id (None: the bay takes any module)."""
    try:
        return ModuleBay.objects.values_list("module_family", flat=True).get(pk=uuid.UUID(value))
    except (ValueError, ModuleBay.DoesNotExist):
        raise ValueError("Select a valid choice. That choice is not one of the available choices.") from None


def compatible_with_bay(family_field: str) -> CustomFilter:
    """Module types (or modules) a module bay takes: those of its module family, if it has one."""

    def family_of(obj):
        for part in family_field.split("__"):
            obj = getattr(obj, part)
        return obj

    return CustomFilter(
        lambda families: Q() if families[-1] is None else Q(**{family_field: families[-1]}),
        parse_bay_family,
        lambda obj, families: families[-1] is None or family_of(obj) == families[-1],
        lambda objects: [str(pk) for pk in ModuleBay.objects.values_list("pk", flat=True)[:1]],
    )


WIRELESS_TYPES = frozenset(
    v for v, _ in choices.INTERFACE_TYPES if v.startswith("ieee802.11") or v == "other-wireless"
)
INTERFACE_KINDS = {
    "virtual": lambda: Q(type__in=VIRTUAL_INTERFACE_TYPES),
    "wireless": lambda: Q(type__in=WIRELESS_TYPES),
    "physical": lambda: ~Q(type__in=VIRTUAL_INTERFACE_TYPES | WIRELESS_TYPES),
}


def interface_kind(interface) -> str:
    if interface.type in VIRTUAL_INTERFACE_TYPES:
        return "virtual"
    return "wireless" if interface.type in WIRELESS_TYPES else "physical"


def parse_kind(value: str) -> str:
    if value not in INTERFACE_KINDS:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return value


KIND = CustomFilter(
    lambda kinds: reduce(operator.or_, (INTERFACE_KINDS[k]() for k in kinds)),
    parse_kind,
    lambda interface, kinds: interface_kind(interface) in kinds,
    ("physical", "virtual", ["physical", "virtual"]),
)


def objects_named(model, value: str) -> list:
    """The ids of the objects a filter value names, by id or name (a 400 naming the value if none)."""
    try:
        found = model.objects.filter(pk=uuid.UUID(value))
    except ValueError:
        found = model.objects.filter(name=value)
    pks = list(found.values_list("pk", flat=True))
    if not pks:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return pks


def devices_named(value: str) -> list:
    return objects_named(Device, value)


def with_chassis_members(pks) -> Q:
    """A device's interfaces (its modules' too: they carry the device), and for a virtual
    chassis' master the other members' that are not management-only, as the reference's
    interface filters take a device."""
    return Q(device__in=pks) | Q(device__virtual_chassis__master__in=pks, mgmt_only=False)


def interface_on_devices(interface, groups) -> bool:
    pks = {pk for group in groups for pk in group}
    device = interface.device
    if device is None:
        return False
    chassis = device.virtual_chassis
    return device.pk in pks or (chassis is not None and chassis.master_id in pks and not interface.mgmt_only)


def chassis_masters_first(interfaces) -> list:
    """Sample values: a virtual chassis master's id and name (when the sample has one) and
    another device's name."""
    devices = sorted(
        {i.device for i in interfaces if i.device is not None},
        key=lambda d: (d.virtual_chassis is None or d.virtual_chassis.master_id != d.pk, d.name),
    )
    return [str(devices[0].pk), devices[0].name, devices[-1].name] if devices else []


INTERFACE_DEVICE = CustomFilter(
    lambda groups: with_chassis_members([pk for group in groups for pk in group]),
    devices_named,
    interface_on_devices,
    chassis_masters_first,
)


def parse_id_of(model):
    """A filter value naming one `model` object by id (a 400 naming the value if none)."""

    def parse(value: str):
        try:
            pk = uuid.UUID(value)
        except ValueError:
            raise ValueError("Enter a valid UUID.") from None
        if not model.objects.filter(pk=pk).exists():
            raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
        return pk

    return parse


def holding(path: str) -> CustomFilter:
    """Objects holding at least one related object at a to-many `path` (true) or none (false):
    a device's `has_ip_addresses` (`interfaces__ip_addresses`)."""
    present = Q(**{f"{path}__isnull": False})
    return flag(lambda _: present, lambda obj: type(obj)._default_manager.filter(present, pk=obj.pk).exists())


def available_for_cable() -> CustomFilter:
    """Cable ends without a cable, or on one of the given cables (by id): the ends a cable being
    edited may take, as the reference's `available_for_cable=<cable>`."""
    from .models import Cable

    return CustomFilter(
        lambda cables: Q(cable__isnull=True) | Q(cable__in=cables),
        parse_id_of(Cable),
        lambda end, cables: end.cable_id is None or end.cable_id in cables,
        lambda ends: [str(e.cable_id) for e in ends if e.cable_id is not None][:1],
    )


def _empty_bays() -> Q:
    return Q(module_bays__in=ModuleBay.objects.filter(installed_module__isnull=True))


# Devices and modules alike (their parts, the modules in their bays), as the reference's.
DEVICE_MODULE_FILTERS = {
    "has_empty_module_bays": flag(
        lambda _: _empty_bays(),
        lambda owner: owner.module_bays.filter(installed_module__isnull=True).exists(),
    ),
    "has_modules": holding("module_bays__installed_module"),
}
DEVICE_MODULE_RELATIONS = {"mac_address": "interfaces__mac_address"}
# Devices and virtual machines with local config context data.
LOCAL_CONTEXT = flag(
    lambda _: Q(local_config_context_data__isnull=False),
    lambda machine: machine.local_config_context_data is not None,
)


def parse_device_id(value: str):
    return parse_id_of(Device)(value)


def common_vc(device_id) -> Q:
    """A device's interfaces, or every member's of its virtual chassis (the device's included)."""
    chassis = Device.objects.filter(pk=device_id).values_list("virtual_chassis", flat=True).first()
    return Q(device__virtual_chassis=chassis) if chassis else Q(device=device_id)


def on_common_vc(interface, devices) -> bool:
    device = Device.objects.get(pk=devices[-1])
    if interface.device_id is None:
        return False
    if device.virtual_chassis_id is None:
        return interface.device_id == device.pk
    return interface.device.virtual_chassis_id == device.virtual_chassis_id


DEVICE_WITH_COMMON_VC = CustomFilter(
    lambda devices: common_vc(devices[-1]),
    parse_device_id,
    on_common_vc,
    lambda interfaces: [str(i.device_id) for i in interfaces if i.device_id is not None][:1],
    argument="String",
)


def parse_vlan_id(value: str):
    from inventory.ipam.models import VLAN

    return parse_id_of(VLAN)(value)


def assigned_vlan(condition) -> CustomFilter:
    """Interfaces (of devices or virtual machines) with a VLAN, tagged or untagged, that
    `condition(value)` (a Q over VLANs) selects: `vlan_id` (one id), `vlan` (one VID)."""
    from inventory.ipam.models import VLAN

    def vlans(values):
        return VLAN.objects.filter(condition(values[-1])).values("pk")

    def oracle(interface, values) -> bool:
        wanted = set(VLAN.objects.filter(condition(values[-1])).values_list("pk", flat=True))
        held = {interface.untagged_vlan_id, *interface.tagged_vlans.values_list("pk", flat=True)}
        return bool(wanted & held)

    def samples(interfaces) -> list:
        for interface in interfaces:
            vlan = interface.untagged_vlan or interface.tagged_vlans.first()
            if vlan is not None:
                return [str(vlan.pk if condition is by_vlan_id else vlan.vid)]
        return []

    return CustomFilter(
        lambda values: Q(untagged_vlan__in=vlans(values)) | Q(tagged_vlans__in=vlans(values)),
        parse_vlan_id if condition is by_vlan_id else parse_vid,
        oracle,
        samples,
        argument="String" if condition is by_vlan_id else "Int",
    )


def by_vlan_id(pk) -> Q:
    return Q(pk=pk)


def by_vid(vid) -> Q:
    return Q(vid=vid)


def parse_vid(value: str):
    try:
        return int(value)
    except ValueError:
        raise ValueError("Enter a number.") from None
