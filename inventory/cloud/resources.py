import uuid

from django.db.models import Q

from inventory.ipam import networks
from inventory.ipam.models import Prefix
from queryengine.registry import CustomFilter, Display, Resource, register

from .models import (
    CloudAccount,
    CloudNetwork,
    CloudNetworkPrefixAssignment,
    CloudResourceType,
    CloudService,
    CloudServiceNetworkAssignment,
)

PREFIX_COLUMNS = ("prefix__ip_version", "prefix__network_address", "prefix__prefix_length")


def parse_prefix(value: str) -> frozenset:
    """The prefixes a value names: one by id, or every prefix equal to a CIDR string."""
    try:
        found = Prefix.objects.filter(pk=uuid.UUID(value))
    except ValueError:
        found = Prefix.objects.filter(networks.equal(networks.parse_network(value), "prefix_length"))
    pks = frozenset(found.values_list("pk", flat=True))
    if not pks:
        raise ValueError(f"Select a valid choice. {value} is not one of the available choices.")
    return pks


def by_prefix(path: str) -> CustomFilter:
    """Objects related through `path` to a prefix named by id or CIDR string (`10.0.0.0/8`)."""

    def build(values) -> Q:
        return Q(**{f"{path}__in": frozenset().union(*values)})

    def oracle(obj, values) -> bool:
        related = obj.prefixes.all() if path == "prefixes" else [obj.prefix]
        return any(p.pk in wanted for p in related for wanted in values)

    def samples(objects):
        found = [p for o in objects for p in (o.prefixes.all() if path == "prefixes" else [o.prefix])]
        return [str(found[0].pk), found[-1].cidr, [found[0].cidr, str(found[-1].pk)]] if found else []

    return CustomFilter(build, parse_prefix, oracle, samples)


register(
    Resource(
        CloudAccount,
        "cloud/cloud-accounts",
        display=Display(
            ("provider__name", "name", "account_number"),
            lambda provider, name, number: f"{provider}: {name} - {number}",
        ),
        search=("name", "description", "account_number", "provider__name"),
    )
)
register(
    Resource(
        CloudResourceType,
        "cloud/cloud-resource-types",
        display=Display(("provider__name", "name"), lambda provider, name: f"{provider}: {name}"),
        search=("name", "description", "provider__name"),
        # A cloud network or service takes only a type naming its model.
        scoped_by_content_types=True,
    )
)
register(
    Resource(
        CloudNetwork,
        "cloud/cloud-networks",
        read_only=("prefixes",),
        search=(
            "name",
            "description",
            "parent__name",
            "parent__description",
            "cloud_account__name",
            "cloud_account__description",
            "cloud_resource_type__name",
            "cloud_resource_type__description",
        ),
        relations={"cloud_services": "cloud_services"},
        filters={"prefixes": by_prefix("prefixes")},
    )
)
register(
    Resource(
        CloudNetworkPrefixAssignment,
        "cloud/cloud-network-prefix-assignments",
        display=Display(
            ("cloud_network__name", *PREFIX_COLUMNS),
            lambda network, *prefix: f"{network}: {networks.cidr_text(*prefix)}",
        ),
        search=("cloud_network__name", "cloud_network__description"),
        natural_key=None,
        filters={"prefix": by_prefix("prefix")},
    )
)
register(
    Resource(
        CloudService,
        "cloud/cloud-services",
        read_only=("cloud_networks",),
        search=(
            "name",
            "description",
            "cloud_account__name",
            "cloud_account__description",
            "cloud_networks__name",
            "cloud_networks__description",
            "cloud_resource_type__name",
            "cloud_resource_type__description",
        ),
        relations={"cloud_networks": "cloud_networks"},
    )
)
register(
    Resource(
        CloudServiceNetworkAssignment,
        "cloud/cloud-service-network-assignments",
        display=Display(
            ("cloud_network__name", "cloud_service__name"), lambda network, service: f"{network}: {service}"
        ),
        search=(
            "cloud_network__name",
            "cloud_network__description",
            "cloud_network__cloud_account__name",
            "cloud_network__cloud_account__description",
            "cloud_network__cloud_resource_type__name",
            "cloud_network__cloud_resource_type__description",
            "cloud_service__name",
            "cloud_service__description",
            "cloud_service__cloud_account__name",
            "cloud_service__cloud_account__description",
            "cloud_service__cloud_resource_type__name",
            "cloud_service__cloud_resource_type__description",
        ),
        natural_key=None,
    )
)
