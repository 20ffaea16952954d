"""What a location's statistics count (REST: `dcim/locations/<id>/stats/`): the objects of these
lists that its `location` filter finds for the location (its descendants' too), as the
reference's location page counts them."""

LOCATION_STATS = (
    "dcim/racks",
    "dcim/rack-groups",
    "dcim/devices",
    "dcim/power-panels",
    "ipam/prefixes",
    "ipam/vlan-groups",
    "ipam/vlans",
    "virtualization/clusters",
    "virtualization/virtual-machines",
)
