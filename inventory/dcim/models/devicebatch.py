"""The checks of devices that read other devices (names per location and tenant, rack units),
for a whole batch at once: what they read is loaded with a few queries, and each device is
checked against the stored devices and the batch's earlier devices, as saving them one by one
would check it."""

from __future__ import annotations

from collections import defaultdict

from .racks import Placement


class DeviceBatch:
    def __init__(self, devices: list):
        from .devices import Device
        from .locations import Location

        members = [d.pk for d in devices if not d._state.adding]
        others = Device.objects.exclude(pk__in=members).order_by()
        # (location, tenant, name) -> devices holding it; a missing tenant is compared here,
        # where the database's unique constraint would see two nulls as distinct.
        self.names: dict[tuple, set] = defaultdict(set)
        named = [d for d in devices if d.name and d.location_id]
        if named:
            rows = others.filter(
                name__in={d.name for d in named}, location__in={d.location_id for d in named}
            ).values_list("pk", "location_id", "tenant_id", "name")
            for pk, *key in rows:
                self.names[tuple(key)].add(pk)
        # rack -> {device: its placement}
        self.placed: dict = defaultdict(dict)
        racks = {d.rack_id for d in devices if d.rack_id}
        if racks:
            rows = others.filter(rack__in=racks, position__isnull=False)
            for pk, rack, *place in rows.values_list("pk", "rack_id", *Placement.COLUMNS):
                self.placed[rack][pk] = Placement(*place)
        self.lineages = Location.lineages({d.rack.location_id for d in devices if d.rack_id})
        # A stored device that keeps its name and place holds them from the start: an earlier
        # device of the batch cannot take them.
        for device in devices:
            stored = getattr(device, "stored_values", None)
            if stored is not None and all(stored[k] == getattr(device, k) for k in KEPT):
                self.claim(device)

    def name_taken(self, device) -> bool:
        holders = self.names.get((device.location_id, device.tenant_id, device.name), ())
        return any(pk != device.pk for pk in holders)

    def rack_lineage(self, device) -> set:
        return self.lineages.get(device.rack.location_id, set())

    def twin(self, device) -> bool:
        """Another device sits at the same position and face of the rack."""
        return any(
            pk != device.pk and (place.position, place.face) == (device.position, device.face)
            for pk, place in self.placed[device.rack_id].items()
        )

    def others_placed(self, device) -> list[Placement]:
        return [place for pk, place in self.placed[device.rack_id].items() if pk != device.pk]

    def claim(self, device) -> None:
        """The device passed its checks: later devices of the batch see its name and units."""
        if device.name and device.location_id:
            self.names[(device.location_id, device.tenant_id, device.name)].add(device.pk)
        if device.rack_id and device.position and device.device_type_id:
            kind = device.device_type
            self.placed[device.rack_id][device.pk] = Placement(
                device.position, device.face, kind.u_height, kind.is_full_depth
            )


# What a device's name and place depend on.
KEPT = ("name", "location_id", "tenant_id", "rack_id", "position", "face", "device_type_id")
