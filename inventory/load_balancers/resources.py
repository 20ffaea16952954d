"""The load-balancer application's declarations: each model once, under /api/load-balancers/."""

from __future__ import annotations

import uuid

from django.db.models import Q

from inventory.ipam import networks
from inventory.ipam.models import IPAddress, Prefix
from queryengine.filters import whole_number_search
from queryengine.registry import CustomFilter, Display, Resource, register

from .models import (
    CertificateProfile,
    HealthCheckMonitor,
    LoadBalancerPool,
    LoadBalancerPoolMember,
    LoadBalancerPoolMemberCertificateProfileAssignment,
    VirtualServer,
    VirtualServerCertificateProfileAssignment,
)

INVALID = "Select a valid choice. {} is not one of the available choices."


def member_search(text: str) -> Q:
    """As the reference's: a member's label, pool's name, port or address (as text) containing
    the words, in any case. Addresses are stored as numbers, so the members' few addresses are
    matched as text here."""
    words = text.lower()
    addresses = IPAddress.objects.filter(load_balancer_pool_members__isnull=False).values_list(
        "pk", "ip_version", "host_address"
    )
    matching = {pk for pk, version, raw in addresses if words in networks.address_text(version, raw).lower()}
    return (
        Q(label__icontains=text)
        | Q(load_balancer_pool__name__icontains=text)
        | Q(port__icontains=text)
        | Q(ip_address__in=matching)
    )


def host_text(address) -> str:
    return networks.address_text(address.ip_version, address.host_address)


def by_id_or(lookup, name: str):
    """A filter value naming objects by id, or by what `lookup(text) -> pks` finds; naming none
    is an error, as for every related filter."""

    def parse(value: str) -> frozenset:
        try:
            found = frozenset({uuid.UUID(value)})
        except ValueError:
            found = frozenset(lookup(value))
        if not found:
            raise ValueError(INVALID.format(value))
        return found

    parse.__name__ = name
    return parse


def prefixes_named(text: str) -> list:
    """Prefixes whose network is the given address (any length) or network (that length)."""
    try:
        net = networks.parse_network(text)
    except ValueError:
        return []
    query = Q(ip_version=net.version, network_address=networks.to_bytes(int(net.network)))
    if "/" in text:
        query &= Q(prefix_length=net.prefixlen)
    return list(Prefix.objects.filter(query).values_list("pk", flat=True))


def members_at(text: str) -> list:
    """Pool members on the given host address."""
    try:
        address = networks.parse_address(text)
    except ValueError:
        return []
    hosts = IPAddress.objects.filter(
        ip_version=address.version, host_address=networks.to_bytes(int(address))
    ).values("pk")
    return list(LoadBalancerPoolMember.objects.filter(ip_address__in=hosts).values_list("pk", flat=True))


def source_nat_pool_filter() -> CustomFilter:
    """Virtual servers whose source NAT pool is one of the given prefixes, by id or network."""

    def oracle(server, wanted) -> bool:
        return any(server.source_nat_pool_id in ids for ids in wanted)

    def samples(servers) -> list:
        pools = [s.source_nat_pool for s in servers if s.source_nat_pool_id]
        if not pools:
            return []
        return [str(pools[0].pk), pools[0].cidr, [pools[-1].cidr.split("/")[0], str(pools[0].pk)]]

    return CustomFilter(
        lambda wanted: Q(source_nat_pool__in=set().union(*wanted)),
        by_id_or(prefixes_named, "parse_prefix_or_network"),
        oracle,
        samples,
    )


def pool_members_filter() -> CustomFilter:
    """Certificate profiles presented by one of the given pool members, by id or host address."""

    def build(wanted) -> Q:
        members = set().union(*wanted)
        assigned = LoadBalancerPoolMemberCertificateProfileAssignment.objects.filter(
            load_balancer_pool_member__in=members
        )
        return Q(pk__in=assigned.values("certificate_profile"))

    def oracle(profile, wanted) -> bool:
        members = set(profile.load_balancer_pool_members.values_list("pk", flat=True))
        return any(members & ids for ids in wanted)

    def samples(profiles) -> list:
        members = [m for p in profiles for m in p.load_balancer_pool_members.all()]
        if not members:
            return []
        return [str(members[0].pk), host_text(members[-1].ip_address)]

    return CustomFilter(build, by_id_or(members_at, "parse_member_or_host"), oracle, samples)


register(
    Resource(
        VirtualServer,
        "load-balancers/virtual-servers",
        search=("name", "device__name", "load_balancer_pool__name"),
        search_q=whole_number_search(("name", "device__name", "load_balancer_pool__name"), ("port",)),
        natural_key=None,  # names repeat: a server is unique by address, port and protocol
        # Written through their assignments, as the reference's are.
        read_only=("certificate_profiles",),
        relations={"certificate_profiles": "certificate_profiles"},
        filters={"source_nat_pool": source_nat_pool_filter()},
    )
)
register(
    Resource(
        LoadBalancerPool,
        "load-balancers/load-balancer-pools",
        search=("name",),
        natural_key=None,  # names repeat: a pool is named by its id
    )
)
register(
    Resource(
        LoadBalancerPoolMember,
        "load-balancers/load-balancer-pool-members",
        display=Display(
            ("ip_address__ip_version", "ip_address__host_address", "port"),
            lambda version, host, port: f"{networks.address_text(version, host)}:{port}",
        ),
        search=("label", "load_balancer_pool__name"),
        search_q=member_search,
        natural_key=None,
        read_only=("certificate_profiles",),
        relations={"certificate_profiles": "certificate_profiles"},
    )
)
register(
    Resource(
        HealthCheckMonitor,
        "load-balancers/health-check-monitors",
        search=("name", "health_check_type"),
        search_q=whole_number_search(("name", "health_check_type"), ("interval", "retry", "timeout", "port")),
    )
)
register(
    Resource(
        CertificateProfile,
        "load-balancers/certificate-profiles",
        search=(
            "name",
            "certificate_type",
            "cipher",
            "certificate_file_path",
            "chain_file_path",
            "key_file_path",
        ),
        relations={"virtual_servers": "virtual_servers"},
        filters={"load_balancer_pool_members": pool_members_filter()},
    )
)
register(
    Resource(
        VirtualServerCertificateProfileAssignment,
        "load-balancers/virtual-server-certificate-profile-assignments",
        display=Display(
            ("virtual_server__name", "certificate_profile__name"),
            lambda server, profile: f"{server}: {profile}",
        ),
        search=("virtual_server__name", "certificate_profile__name"),
        natural_key=None,
    )
)
register(
    Resource(
        LoadBalancerPoolMemberCertificateProfileAssignment,
        "load-balancers/load-balancer-pool-member-certificate-profile-assignments",
        display=Display(
            (
                "load_balancer_pool_member__ip_address__ip_version",
                "load_balancer_pool_member__ip_address__host_address",
                "load_balancer_pool_member__port",
                "certificate_profile__name",
            ),
            lambda version, host, port, profile: f"{networks.address_text(version, host)}:{port}: {profile}",
        ),
        search=("load_balancer_pool_member__label", "certificate_profile__name"),
        natural_key=None,
    )
)
