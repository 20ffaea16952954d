"""API 1.x's IP address assignment: one `assigned_object` (an interface or a VM interface, with
`assigned_object_type` and `assigned_object_id`), read from and written to the same
assignment rows as 2.x's `ipam/ip-address-to-interface`; and `nat_outside`, the first address
whose NAT inside is this one.

An address 2.x assigned to several interfaces shows the first (in the rows' order) at 1.x;
writing `assigned_object` replaces that one and leaves the others.
"""

from __future__ import annotations

import uuid

import orjson
from django.core.exceptions import ValidationError

from queryengine.objecttexts import object_texts
from queryengine.registry import Derived, Included, resource_by_object_type

from .models import IPAddress, IPAddressToInterface

INTERFACE, VM_INTERFACE = "dcim.interface", "virtualization.vminterface"
COLUMNS = {INTERFACE: "interface", VM_INTERFACE: "vm_interface"}


def first_assignments(ids) -> dict[str, tuple[str, str]]:
    """{address id: (object type, object id)} of each address's first assignment."""
    found: dict[str, tuple[str, str]] = {}
    rows = IPAddressToInterface.objects.filter(ip_address__in=list(ids)).values_list(
        "ip_address", "interface", "vm_interface"
    )
    for address, interface, vm_interface in rows:
        found.setdefault(
            str(address), (INTERFACE, str(interface)) if interface else (VM_INTERFACE, str(vm_interface))
        )
    return found


def assigned_type(resource, ids, base, depth, viewer) -> dict:
    return {pk: kind for pk, (kind, _) in first_assignments(ids).items()}


def assigned_id(resource, ids, base, depth, viewer) -> dict:
    return {pk: target for pk, (_, target) in first_assignments(ids).items()}


def assigned_object(resource, ids, base, depth, viewer) -> dict:
    """The assigned objects in their 1.x nested form, one query per type for the page."""
    assigned = first_assignments(ids)
    texts: dict = {}
    for kind in {kind for kind, _ in assigned.values()}:
        targets = {target for k, target in assigned.values() if k == kind}
        texts[kind] = object_texts(resource_by_object_type(kind), None, targets, base, viewer)
    return {
        pk: orjson.Fragment(texts[kind][target])
        for pk, (kind, target) in assigned.items()
        if texts[kind].get(target) not in (None, b"null")
    }


def write_assigned(resource, address, value, adding, state) -> None:
    """Assign the address to the interface `value` names ({"object_type", "id"}), in place of the
    one 1.x shows; None takes that one away."""
    if value is None and adding:
        return
    shown = first_assignments([address.pk]).get(str(address.pk))
    if value is not None:
        kind, target = value.get("object_type"), value.get("id")
        if kind is None:  # only the id given: the type of the object it names
            kind = next((k for k, column in COLUMNS.items() if _exists(column, target)), INTERFACE)
        if kind not in COLUMNS:
            raise ValidationError(f"An address is assigned to an interface or a VM interface, not {kind}.")
        try:
            target_id = uuid.UUID(str(target))
        except ValueError:
            raise ValidationError(f"{target} is not a valid UUID.") from None
        if not _exists(COLUMNS[kind], target_id):
            raise ValidationError(f"No {kind} matches the given id {target_id}.")
        if shown == (kind, str(target_id)):
            return
    if shown is not None:
        kind_shown, target_shown = shown
        IPAddressToInterface.objects.filter(
            ip_address=address, **{COLUMNS[kind_shown]: target_shown}
        ).delete()
    if value is not None:
        assignment = IPAddressToInterface(ip_address=address, **{f"{COLUMNS[kind]}_id": target_id})
        assignment.full_clean()
        assignment.save()


def _exists(column: str, pk) -> bool:
    try:
        return IPAddressToInterface._meta.get_field(column).related_model.objects.filter(pk=pk).exists()
    except (ValueError, ValidationError):
        return False


def first_outside(ids) -> dict[str, str]:
    """{address id: the first address whose NAT inside it is}."""
    found: dict[str, str] = {}
    rows = IPAddress.objects.filter(nat_inside__in=list(ids)).order_by(*IPAddress._meta.ordering, "pk")
    for inside, outside in rows.values_list("nat_inside", "pk"):
        found.setdefault(str(inside), str(outside))
    return found


def applies_to_addresses(resource) -> bool:
    return resource.model is IPAddress


ASSIGNMENT = {
    "assigned_object_type": Included(applies_to_addresses, assigned_type, empty=lambda: None),
    "assigned_object_id": Included(applies_to_addresses, assigned_id, empty=lambda: None),
    "assigned_object": Included(
        applies_to_addresses, assigned_object, empty=lambda: None, write=write_assigned
    ),
    "nat_outside": Derived("ipam.IPAddress", "id", first_outside),
}
