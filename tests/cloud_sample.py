"""Sample cloud inventory: accounts, resource types, networks (one with a child) and services."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.cloud.models import (
    CloudAccount,
    CloudNetwork,
    CloudNetworkPrefixAssignment,
    CloudResourceType,
    CloudService,
    CloudServiceNetworkAssignment,
)

VPC_SCHEMA = {"type": "object", "properties": {"cidr": {"type": "string"}}, "required": ["cidr"]}


def build_cloud(s: str, makers, secrets_groups, prefixes) -> dict[type, list]:
    acme, juniper = makers
    network_ct = ContentType.objects.get_for_model(CloudNetwork)
    service_ct = ContentType.objects.get_for_model(CloudService)
    accounts = [
        CloudAccount.objects.create(
            name=f"prod-account{s}",
            account_number="123456789012",
            provider=acme,
            secrets_group=secrets_groups[0],
        ),
        CloudAccount.objects.create(
            name=f"Lab account{s}", account_number="999", provider=acme, description="sandbox"
        ),
    ]
    kinds = [
        CloudResourceType.objects.create(name=f"VPC{s}", provider=acme, config_schema=VPC_SCHEMA),
        CloudResourceType.objects.create(name=f"Subnet{s}", provider=juniper, description="inside a VPC"),
        CloudResourceType.objects.create(name=f"Object store{s}", provider=acme),
    ]
    kinds[0].content_types.set([network_ct])
    kinds[1].content_types.set([network_ct])
    kinds[2].content_types.set([service_ct, network_ct])
    vpc = CloudNetwork.objects.create(
        name=f"vpc-main{s}",
        cloud_resource_type=kinds[0],
        cloud_account=accounts[0],
        extra_config={"cidr": "10.1.0.0/16"},
        description="production",
    )
    networks = [
        vpc,
        CloudNetwork.objects.create(
            name=f"subnet-a{s}", cloud_resource_type=kinds[1], cloud_account=accounts[0], parent=vpc
        ),
        CloudNetwork.objects.create(
            name=f"vpc-lab{s}",
            cloud_resource_type=kinds[0],
            cloud_account=accounts[1],
            extra_config={"cidr": "172.31.0.0/16"},
        ),
    ]
    services = [
        CloudService.objects.create(
            name=f"web-frontend{s}",
            cloud_resource_type=kinds[2],
            cloud_account=accounts[0],
            extra_config={"tier": "gold"},
        ),
        CloudService.objects.create(name=f"Object storage{s}", cloud_resource_type=kinds[2]),
    ]
    by_cidr = {p.cidr: p for p in prefixes}
    prefix_assignments = [
        CloudNetworkPrefixAssignment.objects.create(cloud_network=networks[0], prefix=by_cidr["10.1.0.0/16"]),
        CloudNetworkPrefixAssignment.objects.create(cloud_network=networks[1], prefix=by_cidr["10.1.1.0/24"]),
        CloudNetworkPrefixAssignment.objects.create(
            cloud_network=networks[2], prefix=by_cidr["172.31.0.0/16"]
        ),
    ]
    service_assignments = [
        CloudServiceNetworkAssignment.objects.create(cloud_network=networks[0], cloud_service=services[0]),
        CloudServiceNetworkAssignment.objects.create(cloud_network=networks[1], cloud_service=services[0]),
        CloudServiceNetworkAssignment.objects.create(cloud_network=networks[2], cloud_service=services[1]),
    ]
    return {
        CloudAccount: accounts,
        CloudResourceType: kinds,
        CloudNetwork: networks,
        CloudService: services,
        CloudNetworkPrefixAssignment: prefix_assignments,
        CloudServiceNetworkAssignment: service_assignments,
    }
