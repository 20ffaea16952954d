"""The cloud application through the HTTP stack: accounts, resource types, networks, services,
their assignments, and circuit terminations attached to a cloud network."""

from __future__ import annotations

from inventory.circuits.models import Circuit, ProviderNetwork
from inventory.cloud.models import CloudAccount, CloudNetwork, CloudResourceType, CloudService
from inventory.dcim.models import Interface, Location, Manufacturer
from inventory.ipam.models import Prefix

from .conftest import send

ACCOUNTS = "/api/cloud/cloud-accounts/"
TYPES = "/api/cloud/cloud-resource-types/"
NETWORKS = "/api/cloud/cloud-networks/"
SERVICES = "/api/cloud/cloud-services/"
PREFIX_ASSIGNMENTS = "/api/cloud/cloud-network-prefix-assignments/"
SERVICE_ASSIGNMENTS = "/api/cloud/cloud-service-network-assignments/"
TERMINATIONS = "/api/circuits/circuit-terminations/"


def names(body) -> list[str]:
    return sorted(row["display"] for row in body["results"])


def test_app_root_lists_the_cloud_endpoints(api, sample):
    assert api.json("/api/")["cloud"] == "http://testserver/api/cloud/"
    assert sorted(api.json("/api/cloud/")) == [
        "cloud-accounts",
        "cloud-network-prefix-assignments",
        "cloud-networks",
        "cloud-resource-types",
        "cloud-service-network-assignments",
        "cloud-services",
    ]


class TestAccounts:
    def test_shape_and_display(self, api, sample):
        account = CloudAccount.objects.get(name="prod-account")
        body = api.json(f"{ACCOUNTS}{account.pk}/")
        assert body["display"] == "Acme Networks: prod-account - 123456789012"
        assert body["account_number"] == "123456789012"
        assert body["provider"]["object_type"] == "dcim.manufacturer"
        assert body["secrets_group"]["object_type"] == "extras.secretsgroup"
        assert {"name", "description", "tags", "notes_url", "custom_fields", "natural_slug"} <= body.keys()

    def test_counted_on_their_manufacturer(self, api, sample):
        maker = Manufacturer.objects.get(name="Acme Networks")
        assert api.json(f"/api/dcim/manufacturers/{maker.pk}/")["cloud_account_count"] == 2

    def test_create_requires_provider_and_account_number(self, api, sample):
        status, errors = send(api, "post", ACCOUNTS, {"name": "new"})
        assert status == 400
        assert errors == {
            "account_number": ["This field is required."],
            "provider": ["This field is required."],
        }
        status, body = send(
            api, "post", ACCOUNTS, {"name": "new", "account_number": "42", "provider": "juniper"}
        )
        assert status == 201 and body["display"] == "juniper: new - 42" and body["secrets_group"] is None

    def test_filters(self, api, sample):
        assert names(api.json(ACCOUNTS, {"provider": "Acme Networks"})) == [
            "Acme Networks: Lab account - 999",
            "Acme Networks: prod-account - 123456789012",
        ]
        assert names(api.json(ACCOUNTS, {"q": "1234"})) == ["Acme Networks: prod-account - 123456789012"]
        assert names(api.json(ACCOUNTS, {"secrets_group": "Device credentials"})) == [
            "Acme Networks: prod-account - 123456789012"
        ]
        api.json(ACCOUNTS, {"provider": "no-such-maker"}, status=400)


class TestResourceTypes:
    def test_content_types_only_of_cloud_networks_and_services(self, api, sample):
        body = {"name": "Gateway", "provider": "juniper", "content_types": ["dcim.device"]}
        status, errors = send(api, "post", TYPES, body)
        assert status == 400 and errors == {"content_types": ["Invalid content type: dcim.device"]}
        status, errors = send(api, "post", TYPES, {"name": "Gateway", "provider": "juniper"})
        assert status == 400 and errors == {"content_types": ["This field is required."]}
        body["content_types"] = ["cloud.cloudnetwork", "cloud.cloudservice"]
        status, created = send(api, "post", TYPES, body)
        assert status == 201 and created["display"] == "juniper: Gateway"
        assert sorted(created["content_types"]) == ["cloud.cloudnetwork", "cloud.cloudservice"]
        assert names(api.json(TYPES, {"content_types": "cloud.cloudservice"})) == [
            "Acme Networks: Object store",
            "juniper: Gateway",
        ]

    def test_a_config_schema_must_be_a_schema(self, api, sample):
        body = {"name": "Odd", "provider": "juniper", "content_types": ["cloud.cloudnetwork"]}
        status, errors = send(api, "post", TYPES, {**body, "config_schema": {"type": 12}})
        assert status == 400 and list(errors) == ["config_schema"]


class TestNetworks:
    def test_shape(self, api, sample):
        child = CloudNetwork.objects.get(name="subnet-a")
        body = api.json(f"{NETWORKS}{child.pk}/", {"exclude_m2m": "false"})
        # One level of children, not a tree: the name alone, no tree depth.
        assert body["display"] == "subnet-a" and "tree_depth" not in body
        assert body["parent"]["id"] == str(child.parent_id)
        assert body["cloud_resource_type"]["object_type"] == "cloud.cloudresourcetype"
        assert body["extra_config"] is None
        assert [p["id"] for p in body["prefixes"]] == [
            str(pk) for pk in child.prefixes.values_list("pk", flat=True)
        ]

    def test_a_child_cannot_have_children(self, api, sample):
        child = CloudNetwork.objects.get(name="subnet-a")
        body = {
            "name": "deeper",
            "cloud_resource_type": "Subnet",
            "cloud_account": "prod-account",
            "parent": str(child.pk),
        }
        status, errors = send(api, "post", NETWORKS, body)
        assert status == 400 and errors == {
            "parent": ["A CloudNetwork may not be the child of a CloudNetwork that itself has a parent."]
        }
        top = CloudNetwork.objects.get(name="vpc-lab")
        status, errors = send(api, "patch", f"{NETWORKS}{top.pk}/", {"parent": str(top.pk)})
        assert status == 400 and errors == {"parent": ["A CloudNetwork may not be its own parent."]}

    def test_extra_config_obeys_the_type_schema(self, api, sample):
        body = {"name": "vpc-new", "cloud_resource_type": "VPC", "cloud_account": "Lab account"}
        status, errors = send(api, "post", NETWORKS, {**body, "extra_config": {"region": "x"}})
        assert status == 400 and errors == {
            "extra_config": [
                "Validation according to CloudResourceType VPC config_schema failed.",
                "'cidr' is a required property",
            ]
        }
        status, created = send(api, "post", NETWORKS, {**body, "extra_config": {"cidr": "10.9.0.0/16"}})
        assert status == 201 and created["extra_config"] == {"cidr": "10.9.0.0/16"}

    def test_resource_type_must_name_cloud_networks(self, api, sample):
        only_services = CloudResourceType.objects.get(name="Object store")
        only_services.content_types.set([])
        body = {"name": "n", "cloud_resource_type": str(only_services.pk), "cloud_account": "prod-account"}
        status, errors = send(api, "post", NETWORKS, body)
        assert status == 400 and list(errors) == ["cloud_resource_type"]

    def test_filters(self, api, sample):
        assert names(api.json(NETWORKS, {"prefixes": "10.1.0.0/16"})) == ["vpc-main"]
        lab = Prefix.objects.get(description="lab")
        assert names(api.json(NETWORKS, {"prefixes": [str(lab.pk), "10.1.1.0/24"]})) == [
            "subnet-a",
            "vpc-lab",
        ]
        assert names(api.json(NETWORKS, {"cloud_services": "web-frontend"})) == ["subnet-a", "vpc-main"]
        assert names(api.json(NETWORKS, {"parent": "vpc-main"})) == ["subnet-a"]
        assert names(api.json(NETWORKS, {"parent__isnull": "true"})) == ["vpc-lab", "vpc-main"]
        assert names(api.json(NETWORKS, {"cloud_resource_type": "VPC"})) == ["vpc-lab", "vpc-main"]
        errors = api.json(NETWORKS, {"prefixes": "not-a-prefix"}, status=400)
        assert list(errors) == ["prefixes"]
        api.json(NETWORKS, {"prefixes": "203.0.113.0/24"}, status=400)


class TestServicesAndAssignments:
    def test_services_and_their_networks(self, api, sample):
        assert names(api.json(SERVICES, {"cloud_networks": "vpc-lab"})) == ["Object storage"]
        assert names(api.json(SERVICES, {"cloud_account__isnull": "true"})) == ["Object storage"]
        service = CloudService.objects.get(name="web-frontend")
        body = api.json(f"{SERVICES}{service.pk}/", {"exclude_m2m": "false", "depth": 1})
        assert sorted(n["display"] for n in body["cloud_networks"]) == ["subnet-a", "vpc-main"]

    def test_assignments(self, api, sample):
        assert names(api.json(PREFIX_ASSIGNMENTS, {"prefix": "10.1.0.0/16"})) == ["vpc-main: 10.1.0.0/16"]
        assert names(api.json(SERVICE_ASSIGNMENTS, {"cloud_service": "Object storage"})) == [
            "vpc-lab: Object storage"
        ]
        network = CloudNetwork.objects.get(name="vpc-lab")
        service = CloudService.objects.get(name="web-frontend")
        body = {"cloud_network": str(network.pk), "cloud_service": str(service.pk)}
        status, created = send(api, "post", SERVICE_ASSIGNMENTS, body)
        assert status == 201 and created["display"] == "vpc-lab: web-frontend"
        status, errors = send(api, "post", SERVICE_ASSIGNMENTS, body)
        assert status == 400 and errors
        assert names(api.json(SERVICES, {"cloud_networks": "vpc-lab"})) == ["Object storage", "web-frontend"]


class TestCircuitTerminations:
    def test_attached_to_a_cloud_network(self, api, sample):
        circuit = Circuit.objects.get(cid="LUM-77")
        network = CloudNetwork.objects.get(name="vpc-main")
        body = {"circuit": str(circuit.pk), "term_side": "Z", "cloud_network": str(network.pk)}
        status, created = send(api, "post", TERMINATIONS, body)
        assert status == 201 and created["display"] == "Termination Z: vpc-main"
        assert created["cloud_network"]["id"] == str(network.pk)
        assert created["location"] is None and created["provider_network"] is None
        listed = api.json(TERMINATIONS, {"cloud_network": "vpc-main"})
        assert [row["id"] for row in listed["results"]] == [created["id"]]
        shown = api.json(f"{TERMINATIONS}{created['id']}/", {"depth": 1})
        assert shown["cloud_network"]["display"] == "vpc-main"
        # A network a termination is attached to cannot be deleted.
        status, _ = send(api, "delete", f"{NETWORKS}{network.pk}/")
        assert status == 409

    def test_attached_to_exactly_one_place(self, api, sample):
        circuit = Circuit.objects.get(cid="LUM-77")
        network = str(CloudNetwork.objects.get(name="vpc-main").pk)
        base = {"circuit": str(circuit.pk), "term_side": "Z"}
        cases = [
            ({"location": "fra2", "cloud_network": network}, "a location and a cloud network"),
            (
                {
                    "provider_network": str(ProviderNetwork.objects.get(name="internet").pk),
                    "cloud_network": network,
                },
                "a provider network and a cloud network",
            ),
            (
                {
                    "location": "fra2",
                    "provider_network": str(ProviderNetwork.objects.get(name="internet").pk),
                },
                "a location and a provider network",
            ),
        ]
        for fields, both in cases:
            status, errors = send(api, "post", TERMINATIONS, {**base, **fields})
            assert status == 400 and errors == {
                "__all__": [f"A circuit termination cannot attach to both {both}."]
            }
        status, errors = send(api, "post", TERMINATIONS, base)
        assert status == 400 and errors == {
            "__all__": [
                "A circuit termination must attach to a location, a provider network or a cloud network."
            ]
        }

    def test_shown_in_a_trace(self, api, sample):
        circuit = Circuit.objects.get(cid="LUM-77")
        network = CloudNetwork.objects.get(name="vpc-main")
        body = {"circuit": str(circuit.pk), "term_side": "Z", "cloud_network": str(network.pk)}
        status, termination = send(api, "post", TERMINATIONS, body)
        assert status == 201
        interface = Interface.objects.filter(
            cable__isnull=True, device__location=Location.objects.get(name="AMS1")
        ).first()
        cable = {
            "termination_a_type": "dcim.interface",
            "termination_a_id": str(interface.pk),
            "termination_b_type": "circuits.circuittermination",
            "termination_b_id": termination["id"],
            "status": "Connected",
        }
        status, created = send(api, "post", "/api/dcim/cables/", cable)
        assert status == 201, created
        segments = api.json(f"/api/dcim/interfaces/{interface.pk}/trace/")
        end = segments[0][2]
        assert end["object_type"] == "circuits.circuittermination"
        assert end["cloud_network"] == {
            "id": str(network.pk),
            "object_type": "cloud.cloudnetwork",
            "url": f"http://testserver/api/cloud/cloud-networks/{network.pk}/",
        }
