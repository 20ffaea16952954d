"""Sample load-balancer inventory: health checks, certificate profiles, pools (two of one name)
with members on IPv4 and IPv6 addresses, virtual servers on a device, a redundancy group, a cloud
service and a virtual chassis, and the profiles servers and members present."""

from __future__ import annotations

import datetime

from django.contrib.contenttypes.models import ContentType

from inventory.cloud.models import CloudService
from inventory.dcim.models import Device, DeviceRedundancyGroup, VirtualChassis
from inventory.extras.models import Status
from inventory.ipam.models import IPAddress, Prefix
from inventory.load_balancers.models import (
    CertificateProfile,
    HealthCheckMonitor,
    LoadBalancerPool,
    LoadBalancerPoolMember,
    LoadBalancerPoolMemberCertificateProfileAssignment,
    VirtualServer,
    VirtualServerCertificateProfileAssignment,
)
from inventory.tenancy.models import Tenant


def build_load_balancers(s: str, sample: dict) -> dict[type, list]:
    tenants, addresses, prefixes = sample[Tenant], sample[IPAddress], sample[Prefix]
    member_ct = ContentType.objects.get_for_model(LoadBalancerPoolMember)
    active = Status.objects.get(name="Active")
    maintenance, _ = Status.objects.get_or_create(name="Maintenance", defaults={"color": "9e9e9e"})
    for status in (active, maintenance):
        status.content_types.add(member_ct)

    monitors = [
        HealthCheckMonitor.objects.create(
            name=f"http-check{s}",
            health_check_type="http",
            port=8080,
            interval=30,
            retry=2,
            timeout=10,
            tenant=tenants[0],
        ),
        HealthCheckMonitor.objects.create(
            name=f"tls-check{s}", health_check_type="https", port=443, interval=20, retry=1, timeout=5
        ),
        HealthCheckMonitor.objects.create(name=f"ping-check{s}"),
    ]
    profiles = [
        CertificateProfile.objects.create(
            name=f"frontend-cert{s}",
            certificate_type="server",
            certificate_file_path="/etc/ssl/front.crt",
            chain_file_path="/etc/ssl/chain.pem",
            key_file_path="/etc/ssl/front.key",
            expiration_date=datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC),
            cipher="TLS_AES_256_GCM_SHA384",
            tenant=tenants[0],
        ),
        CertificateProfile.objects.create(
            name=f"backend-cert{s}",
            certificate_type="client",
            expiration_date=datetime.datetime(2026, 6, 30, 12, tzinfo=datetime.UTC),
            cipher="ECDHE-RSA-AES128-GCM-SHA256",
        ),
        CertificateProfile.objects.create(
            name=f"mtls-cert{s}", certificate_type="mutual_tls", tenant=tenants[2]
        ),
    ]
    pools = [
        LoadBalancerPool.objects.create(
            name=f"web-pool{s}",
            load_balancing_algorithm="round_robin",
            health_check_monitor=monitors[0],
            tenant=tenants[0],
        ),
        LoadBalancerPool.objects.create(
            name=f"mail-pool{s}",
            load_balancing_algorithm="least_connections",
            health_check_monitor=monitors[2],
        ),
        # Pool names repeat: pools are told apart by id.
        LoadBalancerPool.objects.create(
            name=f"web-pool{s}", load_balancing_algorithm="source_ip_hash", tenant=tenants[2]
        ),
    ]
    servers = [
        VirtualServer.objects.create(
            name=f"web-vs{s}",
            vip=addresses[0],
            port=443,
            protocol="https",
            source_nat_pool=prefixes[2],
            source_nat_type="pool",
            load_balancer_type="layer7",
            ssl_offload=True,
            device=sample[Device][0],
            load_balancer_pool=pools[0],
            health_check_monitor=monitors[1],
            tenant=tenants[0],
        ),
        # The same name and address on another port: another server.
        VirtualServer.objects.create(
            name=f"web-vs{s}",
            vip=addresses[0],
            port=80,
            protocol="http",
            load_balancer_type="layer7",
            device_redundancy_group=sample[DeviceRedundancyGroup][1],
            load_balancer_pool=pools[0],
        ),
        VirtualServer.objects.create(
            name=f"mail-vs{s}",
            vip=addresses[2],
            port=25,
            protocol="tcp",
            source_nat_type="auto",
            load_balancer_type="layer4",
            enabled=False,
            cloud_service=sample[CloudService][0],
            load_balancer_pool=pools[1],
            health_check_monitor=monitors[0],
            tenant=tenants[2],
        ),
        VirtualServer.objects.create(
            name=f"dns-vs{s}",
            vip=addresses[3],
            protocol="dns",
            load_balancer_type="dns",
            source_nat_pool=prefixes[-1],
            source_nat_type="static",
            virtual_chassis=next(c for c in sample[VirtualChassis] if c.master_id is None),
        ),
    ]
    members = [
        LoadBalancerPoolMember.objects.create(
            label="web-a",
            ip_address=addresses[1],
            load_balancer_pool=pools[0],
            port=8443,
            ssl_offload=True,
            health_check_monitor=monitors[1],
            tenant=tenants[0],
            status=active,
        ),
        LoadBalancerPoolMember.objects.create(
            label="web-b", ip_address=addresses[3], load_balancer_pool=pools[0], port=8443, status=maintenance
        ),
        LoadBalancerPoolMember.objects.create(
            ip_address=addresses[1], load_balancer_pool=pools[1], port=25, status=active, tenant=tenants[2]
        ),
    ]
    server_links = [
        VirtualServerCertificateProfileAssignment.objects.create(
            virtual_server=server, certificate_profile=profile
        )
        for server, profile in (
            (servers[0], profiles[0]),
            (servers[0], profiles[2]),
            (servers[2], profiles[0]),
        )
    ]
    member_links = [
        LoadBalancerPoolMemberCertificateProfileAssignment.objects.create(
            load_balancer_pool_member=member, certificate_profile=profile
        )
        for member, profile in (
            (members[0], profiles[1]),
            (members[0], profiles[2]),
            (members[1], profiles[1]),
        )
    ]
    return {
        HealthCheckMonitor: monitors,
        CertificateProfile: profiles,
        LoadBalancerPool: pools,
        VirtualServer: servers,
        LoadBalancerPoolMember: members,
        VirtualServerCertificateProfileAssignment: server_links,
        LoadBalancerPoolMemberCertificateProfileAssignment: member_links,
    }
