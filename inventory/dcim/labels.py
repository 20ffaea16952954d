"""Labels of modules and module bays, which name where they sit: "<type> installed in <device>",
"<device> (<bay>)". A module in a module's bay names that module, so a page's labels are read a
level of nesting at a time (a few queries per level, whatever the page size)."""

from __future__ import annotations

from .models import Device, Module, ModuleBay


def device_display(name, manufacturer, model, pk) -> str:
    return name or f"{manufacturer} {model} ({pk})"


def device_labels(ids) -> dict[str, str]:
    rows = Device.objects.filter(pk__in=list(ids)).values_list(
        "pk", "name", "device_type__manufacturer__name", "device_type__model"
    )
    return {str(pk): device_display(name, maker, model, pk) for pk, name, maker, model in rows}


def _parents(devices: set, modules: set) -> tuple[dict[str, str], dict[str, str]]:
    return device_labels(devices) if devices else {}, module_labels(modules) if modules else {}


def module_labels(ids) -> dict[str, str]:
    """'<type> installed in <device or module>', or '<type> (Serial: ..) at location <location>'."""
    rows = list(
        Module.objects.filter(pk__in=list(ids)).values_list(
            "pk",
            "module_type__model",
            "serial",
            "asset_tag",
            "location__name",
            "parent_module_bay__parent_device",
            "parent_module_bay__parent_module",
        )
    )
    devices = {row[5] for row in rows if row[5]}
    modules = {row[6] for row in rows if row[6]}
    device_names, module_names = _parents(devices, modules)
    labels = {}
    for pk, model, serial, asset_tag, location, device, module in rows:
        if location is not None or (device is None and module is None):
            serial_text = f" (Serial: {serial})" if serial else ""
            tag_text = f" (Asset Tag: {asset_tag})" if asset_tag else ""
            labels[str(pk)] = f"{model}{serial_text}{tag_text} at location {location}"
        elif device is not None:
            labels[str(pk)] = f"{model} installed in {device_names.get(str(device), device)}"
        else:
            labels[str(pk)] = f"{model} installed in {module_names.get(str(module), module)}"
    return labels


def module_bay_labels(ids) -> dict[str, str]:
    """'<device or module> (<bay name>)'."""
    rows = list(
        ModuleBay.objects.filter(pk__in=list(ids)).values_list("pk", "name", "parent_device", "parent_module")
    )
    device_names, module_names = _parents({r[2] for r in rows if r[2]}, {r[3] for r in rows if r[3]})
    labels = {}
    for pk, name, device, module in rows:
        owner = device_names.get(str(device)) if device else module_names.get(str(module))
        labels[str(pk)] = f"{owner} ({name})"
    return labels
