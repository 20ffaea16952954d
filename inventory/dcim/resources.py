from queryengine.registry import Resource, register

from .models import Location, LocationType

register(Resource(LocationType, "dcim/location-types"))
register(
    Resource(
        Location,
        "dcim/locations",
        search=(
            "name",
            "description",
            "facility",
            "physical_address",
            "shipping_address",
            "contact_name",
            "comments",
        ),
        counts={
            "circuit_count": "circuits.CircuitTermination.location",
            "device_count": "dcim.Device.location",
            "prefix_count": "ipam.Prefix.location",
            "rack_count": "dcim.Rack.location",
            "virtual_machine_count": "virtualization.VirtualMachine.location",
            "vlan_count": "ipam.VLAN.location",
        },
        natural_key=None,  # names are unique only under one parent
    )
)
