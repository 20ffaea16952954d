"""The load-balancer application through the HTTP stack: virtual servers (unique by address,
port and protocol; ports up to 65535), pools whose names repeat, members shown as address and
port with statuses of their own, health checks, certificate profiles and the assignments of
profiles to servers and members; the reference's filters and searches."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.extras.models import Status
from inventory.ipam.models import IPAddress, Prefix
from inventory.load_balancers.models import (
    CertificateProfile,
    HealthCheckMonitor,
    LoadBalancerPool,
    LoadBalancerPoolMember,
    VirtualServer,
    VirtualServerCertificateProfileAssignment,
)

from .conftest import send

ROOT = "/api/load-balancers/"
SERVERS = f"{ROOT}virtual-servers/"
POOLS = f"{ROOT}load-balancer-pools/"
MEMBERS = f"{ROOT}load-balancer-pool-members/"
MONITORS = f"{ROOT}health-check-monitors/"
PROFILES = f"{ROOT}certificate-profiles/"
SERVER_PROFILES = f"{ROOT}virtual-server-certificate-profile-assignments/"
MEMBER_PROFILES = f"{ROOT}load-balancer-pool-member-certificate-profile-assignments/"


def displays(body) -> list[str]:
    return sorted(row["display"] for row in body["results"])


def pool_named(name: str) -> LoadBalancerPool:
    return LoadBalancerPool.objects.get(name=name)


def address(text: str) -> IPAddress:
    return next(a for a in IPAddress.objects.all() if str(a).split("/")[0] == text)


def test_app_root_lists_the_load_balancer_endpoints(api, sample):
    assert api.json("/api/")["load-balancers"] == "http://testserver/api/load-balancers/"
    assert sorted(api.json(ROOT)) == [
        "certificate-profiles",
        "health-check-monitors",
        "load-balancer-pool-member-certificate-profile-assignments",
        "load-balancer-pool-members",
        "load-balancer-pools",
        "virtual-server-certificate-profile-assignments",
        "virtual-servers",
    ]


class TestVirtualServers:
    def test_shape(self, api, sample):
        server = VirtualServer.objects.get(name="web-vs", port=443)
        body = api.json(f"{SERVERS}{server.pk}/", {"exclude_m2m": "false"})
        assert body["display"] == "web-vs"
        assert body["protocol"] == {"value": "https", "label": "HTTPS"}
        assert body["load_balancer_type"] == {"value": "layer7", "label": "Layer 7"}
        assert body["source_nat_type"] == {"value": "pool", "label": "Pool"}
        assert body["vip"]["object_type"] == "ipam.ipaddress"
        assert body["enabled"] is True and body["ssl_offload"] is True
        assert sorted(p["id"] for p in body["certificate_profiles"]) == sorted(
            str(pk) for pk in server.certificate_profiles.values_list("pk", flat=True)
        )
        # Named by its address, port and protocol, as the reference names it.
        assert body["natural_slug"].endswith(f"_443_https_{str(server.pk)[:4]}")
        unset = api.json(SERVERS, {"name": "dns-vs"})["results"][0]
        assert unset["port"] is None and unset["device"] is None

    def test_required_fields_and_port_range(self, api, sample):
        status, errors = send(api, "post", SERVERS, {})
        assert status == 400 and errors == {
            "name": ["This field is required."],
            "vip": ["This field is required."],
        }
        vip = str(address("10.1.1.1").pk)
        for port, message in (
            (65536, "Ensure this value is less than or equal to 65535."),
            (-1, "Ensure this value is greater than or equal to 0."),
        ):
            status, errors = send(api, "post", SERVERS, {"name": "edge", "vip": vip, "port": port})
            assert status == 400 and errors == {"port": [message]}, port
        status, errors = send(api, "post", SERVERS, {"name": "edge", "vip": vip, "protocol": "ftp"})
        assert status == 400 and errors["protocol"][0].startswith('"ftp" is not a valid choice.')
        status, body = send(
            api, "post", SERVERS, {"name": "edge", "vip": vip, "port": 65535, "protocol": "quic"}
        )
        assert status == 201, body
        assert body["protocol"] == {"value": "quic", "label": "QUIC"}
        assert body["enabled"] is True and body["ssl_offload"] is False

    def test_unique_by_address_port_and_protocol(self, api, sample):
        vip = str(address("10.1.1.1").pk)
        taken = {"name": "other", "vip": vip, "port": 443, "protocol": "https"}
        status, errors = send(api, "post", SERVERS, taken)
        assert status == 400
        assert errors == {"non_field_errors": ["The fields vip, port, protocol must make a unique set."]}
        assert send(api, "post", SERVERS, {**taken, "protocol": "tcp"})[0] == 201
        # Without a port, servers on one address and protocol never clash.
        for _ in range(2):
            status, body = send(api, "post", SERVERS, {"name": "portless", "vip": vip, "protocol": "any"})
            assert status == 201, body
        # All-or-none: a bulk create with one clash creates nothing.
        before = VirtualServer.objects.count()
        status, errors = send(api, "post", SERVERS, [{**taken, "port": 8001}, taken])
        assert status == 400 and errors[0] == {} and "non_field_errors" in errors[1]
        assert VirtualServer.objects.count() == before

    def test_certificate_profiles_are_written_through_assignments(self, api, sample):
        server = VirtualServer.objects.get(name="mail-vs")
        profile = CertificateProfile.objects.get(name="mtls-cert")
        status, body = send(
            api,
            "post",
            SERVER_PROFILES,
            {"virtual_server": str(server.pk), "certificate_profile": str(profile.pk)},
        )
        assert status == 201, body
        assert body["display"] == "mail-vs: mtls-cert"
        assert set(body) >= {"id", "url", "virtual_server", "certificate_profile", "natural_slug"}
        assert "tags" not in body and "custom_fields" not in body and "created" not in body
        status, errors = send(
            api,
            "post",
            SERVER_PROFILES,
            {"virtual_server": str(server.pk), "certificate_profile": "mtls-cert"},
        )
        assert status == 400
        assert errors == {
            "non_field_errors": ["The fields virtual_server, certificate_profile must make a unique set."]
        }
        shown = api.json(f"{SERVERS}{server.pk}/", {"exclude_m2m": "false"})["certificate_profiles"]
        assert {p["id"] for p in shown} == {
            str(pk) for pk in server.certificate_profiles.values_list("pk", flat=True)
        }
        assert len(shown) == 2

    def test_references_protect_their_objects(self, api, sample):
        server = VirtualServer.objects.get(name="mail-vs")
        for path in (f"{POOLS}{server.load_balancer_pool_id}/", f"/api/ipam/ip-addresses/{server.vip_id}/"):
            status, body = send(api, "delete", path)
            assert status == 409 and "mail-vs" in body["detail"], (path, body)
        # Deleting a server deletes its profile assignments, never the profiles.
        web = VirtualServer.objects.get(name="web-vs", port=443)
        assert send(api, "delete", f"{SERVERS}{web.pk}/") == (204, None)
        assert not VirtualServerCertificateProfileAssignment.objects.filter(virtual_server_id=web.pk).exists()
        assert CertificateProfile.objects.filter(name="frontend-cert").exists()

    def test_filters(self, api, sample):
        assert displays(api.json(SERVERS, {"load_balancer_pool": "web-pool"})) == ["web-vs", "web-vs"]
        assert displays(api.json(SERVERS, {"protocol": ["tcp", "dns"]})) == ["dns-vs", "mail-vs"]
        assert displays(api.json(SERVERS, {"device": "leaf1"})) == ["web-vs"]
        assert displays(api.json(SERVERS, {"device_redundancy_group": "lb-pair"})) == ["web-vs"]
        assert displays(api.json(SERVERS, {"cloud_service": "web-frontend"})) == ["mail-vs"]
        assert displays(api.json(SERVERS, {"virtual_chassis": "stack2"})) == ["dns-vs"]
        assert displays(api.json(SERVERS, {"health_check_monitor": "http-check"})) == ["mail-vs"]
        assert displays(api.json(SERVERS, {"certificate_profiles": "frontend-cert"})) == ["mail-vs", "web-vs"]
        assert displays(api.json(SERVERS, {"enabled": "false"})) == ["mail-vs"]
        assert displays(api.json(SERVERS, {"port__gte": 400})) == ["web-vs"]
        # The source NAT pool by id, by network or by CIDR.
        pool = Prefix.objects.get(pk=VirtualServer.objects.get(name="web-vs", port=443).source_nat_pool_id)
        for value in (str(pool.pk), pool.cidr, pool.cidr.split("/")[0]):
            assert displays(api.json(SERVERS, {"source_nat_pool": value})) == ["web-vs"], value
        body = api.json(SERVERS, {"source_nat_pool": "198.51.100.0/24"}, status=400)
        assert list(body) == ["source_nat_pool"]
        # Search: names, a device's or pool's name, or a port number.
        assert displays(api.json(SERVERS, {"q": "MAIL"})) == ["mail-vs"]
        assert displays(api.json(SERVERS, {"q": "25"})) == ["mail-vs"]
        assert displays(api.json(SERVERS, {"q": "leaf"})) == ["web-vs"]
        assert api.json(SERVERS, {"q": "9" * 30})["count"] == 0


class TestPools:
    def test_names_repeat_and_pools_are_named_by_id(self, api, sample):
        status, body = send(api, "post", POOLS, {"name": "web-pool", "load_balancing_algorithm": "url_hash"})
        assert status == 201, body
        assert body["load_balancing_algorithm"] == {"value": "url_hash", "label": "URL Hash"}
        assert body["natural_slug"].endswith(f"_{body['id'][:4]}")
        assert api.json(POOLS, {"name": "web-pool"})["count"] == 3
        # A name alone does not say which pool: a reference by it is refused.
        vip = str(address("10.1.1.1").pk)
        status, errors = send(
            api, "post", SERVERS, {"name": "x", "vip": vip, "load_balancer_pool": "web-pool"}
        )
        assert status == 400 and list(errors) == ["load_balancer_pool"]
        status, errors = send(api, "post", POOLS, {"name": "no-algorithm"})
        assert status == 400 and errors == {"load_balancing_algorithm": ["This field is required."]}

    def test_filters(self, api, sample):
        assert displays(api.json(POOLS, {"health_check_monitor": "ping-check"})) == ["mail-pool"]
        assert displays(api.json(POOLS, {"load_balancing_algorithm": "round_robin"})) == ["web-pool"]
        assert displays(api.json(POOLS, {"tenant": "Initech"})) == ["web-pool"]
        assert displays(api.json(POOLS, {"q": "MAIL"})) == ["mail-pool"]


class TestMembers:
    def test_shown_as_address_and_port(self, api, sample):
        member = LoadBalancerPoolMember.objects.get(label="web-b")
        body = api.json(f"{MEMBERS}{member.pk}/", {"depth": 1})
        assert body["display"] == "2001:db8::1:8443"
        assert body["status"]["name"] == "Maintenance"
        assert body["load_balancer_pool"]["display"] == "web-pool"
        assert body["ip_address"]["display"] == "2001:db8::1/64"
        row = api.json(MEMBERS, {"label": "web-a"})["results"][0]
        assert row["display"] == "10.1.1.2:8443" and row["ssl_offload"] is True

    def test_required_fields_status_and_uniqueness(self, api, sample):
        status, errors = send(api, "post", MEMBERS, {})
        assert status == 400 and set(errors) == {"ip_address", "load_balancer_pool", "port", "status"}
        pool = pool_named("mail-pool")
        base = {"ip_address": str(address("10.1.1.2").pk), "load_balancer_pool": str(pool.pk)}
        status, errors = send(api, "post", MEMBERS, {**base, "port": 25, "status": "Active"})
        assert status == 400
        assert errors == {
            "non_field_errors": ["The fields ip_address, port, load_balancer_pool must make a unique set."]
        }
        status, errors = send(api, "post", MEMBERS, {**base, "port": 70000, "status": "Active"})
        assert status == 400 and errors == {"port": ["Ensure this value is less than or equal to 65535."]}
        # Statuses are those of pool members: a new inventory starts with the reference's five.
        member_ct = ContentType.objects.get_for_model(LoadBalancerPoolMember)
        assert set(Status.objects.filter(content_types=member_ct).values_list("name", flat=True)) >= {
            "Active",
            "Maintenance",
            "Planned",
            "Failed",
            "Decommissioning",
        }
        status, errors = send(api, "post", MEMBERS, {**base, "port": 26, "status": "Reserved"})
        assert status == 400 and list(errors) == ["status"]
        status, body = send(api, "post", MEMBERS, {**base, "port": 26, "status": "Decommissioning"})
        assert status == 201, body
        assert body["display"] == "10.1.1.2:26" and body["label"] == ""

    def test_deleting_the_address_deletes_its_members(self, api, sample):
        member = LoadBalancerPoolMember.objects.get(label="web-b")
        VirtualServer.objects.filter(vip_id=member.ip_address_id).delete()  # a VIP is kept (above)
        assert send(api, "delete", f"/api/ipam/ip-addresses/{member.ip_address_id}/") == (204, None)
        assert not LoadBalancerPoolMember.objects.filter(pk=member.pk).exists()

    def test_a_pool_with_members_is_kept(self, api, sample):
        pool = pool_named("mail-pool")
        VirtualServer.objects.filter(load_balancer_pool=pool).delete()
        status, body = send(api, "delete", f"{POOLS}{pool.pk}/")
        assert status == 409 and "10.1.1.2:25" in body["detail"]

    def test_filters_and_search(self, api, sample):
        assert displays(api.json(MEMBERS, {"load_balancer_pool": "web-pool"})) == [
            "10.1.1.2:8443",
            "2001:db8::1:8443",
        ]
        assert displays(api.json(MEMBERS, {"status": "Maintenance"})) == ["2001:db8::1:8443"]
        assert displays(api.json(MEMBERS, {"certificate_profiles": "backend-cert"})) == [
            "10.1.1.2:8443",
            "2001:db8::1:8443",
        ]
        assert displays(api.json(MEMBERS, {"ip_address": str(address("10.1.1.2").pk)})) == [
            "10.1.1.2:25",
            "10.1.1.2:8443",
        ]
        assert displays(api.json(MEMBERS, {"port": 25})) == ["10.1.1.2:25"]
        # Search: a label, a pool's name, a port's digits.
        assert displays(api.json(MEMBERS, {"q": "WEB-"})) == ["10.1.1.2:8443", "2001:db8::1:8443"]
        assert displays(api.json(MEMBERS, {"q": "mail"})) == ["10.1.1.2:25"]
        assert displays(api.json(MEMBERS, {"q": "844"})) == ["10.1.1.2:8443", "2001:db8::1:8443"]
        # The address's text, as the reference's: any part of it, in any case.
        assert displays(api.json(MEMBERS, {"q": "0.1.1"})) == ["10.1.1.2:25", "10.1.1.2:8443"]
        assert displays(api.json(MEMBERS, {"q": "2001:DB8::1"})) == ["2001:db8::1:8443"]
        assert displays(api.json(MEMBERS, {"q": "2001:db8::/32"})) == []


class TestMonitorsAndProfiles:
    def test_monitor_rules_and_search(self, api, sample):
        status, errors = send(api, "post", MONITORS, {"name": "http-check"})
        assert status == 400 and list(errors) == ["name"]
        status, errors = send(api, "post", MONITORS, {"name": "m", "health_check_type": "smtp"})
        assert status == 400 and errors["health_check_type"][0].startswith('"smtp" is not a valid choice.')
        status, errors = send(api, "post", MONITORS, {"name": "m", "port": 65536})
        assert status == 400 and errors == {"port": ["Ensure this value is less than or equal to 65535."]}
        status, body = send(api, "post", MONITORS, {"name": "m", "health_check_type": "tcp", "retry": 0})
        assert status == 201 and body["health_check_type"] == {"value": "tcp", "label": "TCP"}
        assert displays(api.json(MONITORS, {"q": "5"})) == ["tls-check"]  # its timeout
        assert displays(api.json(MONITORS, {"q": "https"})) == ["tls-check"]
        assert api.json(MONITORS, {"q": "2147483648"})["count"] == 0
        assert displays(api.json(MONITORS, {"health_check_type": "http"})) == ["http-check"]
        assert HealthCheckMonitor.objects.get(name="m").retry == 0

    def test_profile_shape_and_filters(self, api, sample):
        profile = CertificateProfile.objects.get(name="frontend-cert")
        body = api.json(f"{PROFILES}{profile.pk}/")
        assert body["certificate_type"] == {"value": "server", "label": "Server"}
        assert body["expiration_date"].startswith("2030-01-01T00:00:00")
        assert body["natural_slug"] == f"frontend-cert_{str(profile.pk)[:4]}"
        assert displays(api.json(PROFILES, {"certificate_type": "mutual_tls"})) == ["mtls-cert"]
        assert displays(api.json(PROFILES, {"expiration_date__lt": "2027-01-01T00:00:00Z"})) == [
            "backend-cert"
        ]
        assert displays(api.json(PROFILES, {"virtual_servers": "mail-vs"})) == ["frontend-cert"]
        web_a = LoadBalancerPoolMember.objects.get(label="web-a")
        for value in (str(web_a.pk), "10.1.1.2"):
            assert displays(api.json(PROFILES, {"load_balancer_pool_members": value})) == [
                "backend-cert",
                "mtls-cert",
            ], value
        body = api.json(PROFILES, {"load_balancer_pool_members": "192.0.2.200"}, status=400)
        assert list(body) == ["load_balancer_pool_members"]
        assert displays(api.json(PROFILES, {"q": "front.key"})) == ["frontend-cert"]
        status, errors = send(api, "post", PROFILES, {"name": "c", "certificate_type": "ca"})
        assert status == 400 and errors["certificate_type"][0].startswith('"ca" is not a valid choice.')

    def test_member_profile_assignments(self, api, sample):
        member = LoadBalancerPoolMember.objects.get(label="web-b")
        rows = api.json(MEMBER_PROFILES, {"load_balancer_pool_member": str(member.pk)})["results"]
        assert [r["display"] for r in rows] == ["2001:db8::1:8443: backend-cert"]
        assert displays(api.json(MEMBER_PROFILES, {"certificate_profile": "mtls-cert"})) == [
            "10.1.1.2:8443: mtls-cert"
        ]
        # Searched by the member's label and the profile's name (the reference's 3.2 takes `q`).
        assert displays(api.json(MEMBER_PROFILES, {"q": "MTLS"})) == ["10.1.1.2:8443: mtls-cert"]
        assert api.json(MEMBER_PROFILES, {"q": "no-such-profile"})["count"] == 0


def test_graphql_reads_the_same_objects(api, sample):
    query = (
        '{ virtual_servers(name: "mail-vs") { name port protocol vip { address } '
        "load_balancer_pool { name } certificate_profiles { name } } }"
    )
    response = api.post("/api/graphql/", {"query": query})
    assert response.status_code == 200, response.content
    (server,) = response.json()["data"]["virtual_servers"]
    assert server["port"] == 25 and server["vip"]["address"] == "192.0.2.1/32"
    assert server["load_balancer_pool"] == {"name": "mail-pool"} and server["protocol"] == "TCP"
    assert server["certificate_profiles"] == [{"name": "frontend-cert"}]
