from inventory.dcim.filters import LOCAL_CONTEXT, assigned_vlan, by_vlan_id, holding
from inventory.dcim.legacy import site_filters, site_of
from inventory.dcim.resources import HAS_PRIMARY_IP, PRIMARY_IP
from inventory.ipam.listfilters import holding_addresses
from queryengine.registry import Legacy, Resource, register

from .models import Cluster, ClusterGroup, ClusterType, VirtualMachine, VMInterface

register(
    Resource(
        ClusterType,
        "virtualization/cluster-types",
        counts={"cluster_count": "virtualization.Cluster.cluster_type"},
        legacy=Legacy(nested=("name", "slug", "cluster_count")),
    )
)
register(
    Resource(
        ClusterGroup,
        "virtualization/cluster-groups",
        counts={"cluster_count": "virtualization.Cluster.cluster_group"},
        legacy=Legacy(nested=("name", "slug", "cluster_count")),
    )
)
register(
    Resource(
        Cluster,
        "virtualization/clusters",
        search=("name", "comments"),
        relayed={
            "cluster_group": "cluster_group",
            "cluster_group_id": "cluster_group_id",
            "cluster_type": "cluster_type",
            "cluster_type_id": "cluster_type_id",
        },
        counts={
            "device_count": "dcim.Device.clusters",
            "virtualmachine_count": "virtualization.VirtualMachine.cluster",
        },
        legacy=Legacy(
            nested=("name", "virtualmachine_count"),
            renamed={"type": "cluster_type", "group": "cluster_group"},
            fields={"site": site_of()},
            filters=site_filters(),
        ),
    )
)
register(
    Resource(
        VirtualMachine,
        "virtualization/virtual-machines",
        search=("name", "comments"),
        read_only=(
            "local_config_context_data_owner_content_type",
            "local_config_context_data_owner_object_id",
        ),
        relations={
            "location": "cluster__location",
            "mac_address": "interfaces__mac_address",
        },
        filters={
            "has_primary_ip": HAS_PRIMARY_IP,
            "has_ip_addresses": holding("interfaces__ip_addresses"),
            "ip_addresses": holding_addresses("interfaces__ip_addresses"),
            "local_config_context_data": LOCAL_CONTEXT,
        },
        has=("software_version",),
        natural_key=None,
        legacy=Legacy(
            nested=("name",),
            renamed={
                "local_context_data": "local_config_context_data",
                "local_context_schema": "local_config_context_schema",
            },
            fields={"site": site_of("cluster__location_id", writes=None), "primary_ip": PRIMARY_IP},
            filters=site_filters("cluster__location"),
        ),
    )
)
register(
    Resource(
        VMInterface,
        "virtualization/interfaces",
        search=("name", "description", "mac_address"),
        read_only=("ip_addresses",),
        graphql_list="vm_interfaces",
        relations={"cluster": "virtual_machine__cluster", "cluster_id": "virtual_machine__cluster_id"},
        filters={"vlan_id": assigned_vlan(by_vlan_id)},
        list_names={"parent_interface": "child_interfaces", "bridge": "bridged_interfaces"},
        natural_key=None,
        changes_relate_to=("virtual_machine",),
        legacy=Legacy(nested=("virtual_machine", "name"), since={"status": "1.3"}),
    )
)
