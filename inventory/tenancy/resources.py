from queryengine.registry import Legacy, Resource, register

from .models import Tenant, TenantGroup

register(
    Resource(
        TenantGroup,
        "tenancy/tenant-groups",
        counts={"tenant_count": "tenancy.Tenant.tenant_group"},
        legacy=Legacy(nested=("name", "slug", "tenant_count", "_depth"), renamed={"_depth": "tree_depth"}),
    )
)
register(
    Resource(
        Tenant,
        "tenancy/tenants",
        search=("name", "description", "comments"),
        relayed={"tenant_group": "tenant_group"},
        # The dynamic groups a tenant manages (a `dynamic_groups` list names those holding it).
        lists={"managed_dynamic_groups": "extras.DynamicGroup.tenant"},
        counts={
            "circuit_count": "circuits.Circuit.tenant",
            "device_count": "dcim.Device.tenant",
            "ipaddress_count": "ipam.IPAddress.tenant",
            "namespace_count": "ipam.Namespace.tenant",
            "prefix_count": "ipam.Prefix.tenant",
            "rack_count": "dcim.Rack.tenant",
            "virtualmachine_count": "virtualization.VirtualMachine.tenant",
            "vlan_count": "ipam.VLAN.tenant",
            "vrf_count": "ipam.VRF.tenant",
            "cluster_count": "virtualization.Cluster.tenant",
        },
        legacy=Legacy(renamed={"group": "tenant_group"}),
    )
)
