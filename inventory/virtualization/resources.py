from queryengine.registry import Resource, register

from .models import Cluster, ClusterGroup, ClusterType, VirtualMachine, VMInterface

register(
    Resource(
        ClusterType,
        "virtualization/cluster-types",
        counts={"cluster_count": "virtualization.Cluster.cluster_type"},
    )
)
register(
    Resource(
        ClusterGroup,
        "virtualization/cluster-groups",
        counts={"cluster_count": "virtualization.Cluster.cluster_group"},
    )
)
register(
    Resource(
        Cluster,
        "virtualization/clusters",
        search=("name", "comments"),
        counts={
            "device_count": "dcim.DeviceClusterAssignment.cluster",
            "virtualmachine_count": "virtualization.VirtualMachine.cluster",
        },
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
        relations={"location": "cluster__location"},
        natural_key=None,
    )
)
register(
    Resource(
        VMInterface,
        "virtualization/interfaces",
        search=("name", "description", "mac_address"),
        read_only=("ip_addresses",),
        graphql_list="vm_interfaces",
        natural_key=None,
    )
)
