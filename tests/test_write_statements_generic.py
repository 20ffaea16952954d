"""Every registered model's bulk create, PATCH and DELETE cost the same statements for 10
objects as for 100: each check a write runs reads the whole batch at once. The copies are made
from each model's sample object as the generic write tests make them."""

from __future__ import annotations

import string

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .test_write_batches import batched
from .test_writes_generic import (  # noqa: F401 (fixtures)
    RESOURCES,
    body_from,
    editable_text_field,
    list_url,
    no_pairs_taken,
    sample_variable_allowed,
    send,
    source_row,
)

pytestmark = pytest.mark.usefixtures("shared_sample")

# Models whose statements still grow with the batch, and why. The test prints this list, and
# fails for an entry whose statements no longer grow (take it out) or when another model's do.
GROWING: dict[str, str] = {
    "circuits/circuit-terminations": "not yet set-wise; statements for 10 -> 100 objects: create 107->917, patch 117->1017, delete 123->1113",
    "cloud/cloud-networks": "not yet set-wise; statements for 10 -> 100 objects: create 101->911",
    "data-validation/regex-rules": "not yet set-wise; statements for 10 -> 100 objects: create 66->516, patch 63->513",
    "data-validation/required-rules": "not yet set-wise; statements for 10 -> 100 objects: create 66->516, patch 63->513",
    "data-validation/unique-rules": "not yet set-wise; statements for 10 -> 100 objects: create 66->516, patch 63->513",
    "dcim/cable-types": "not yet set-wise; statements for 10 -> 100 objects: create 86->716, patch 83->713",
    "dcim/cables": "not yet set-wise; statements for 10 -> 100 objects: create 260->2240, patch 259->2239, delete 123->933",
    "dcim/cables-to-cable-terminations": "not yet set-wise; statements for 10 -> 100 objects: create 284->2714, patch 305->2915, delete 144->1314",
    "dcim/console-port-templates": "not yet set-wise; statements for 10 -> 100 objects: create 29->119, patch 29->119",
    "dcim/console-server-port-templates": "not yet set-wise; statements for 10 -> 100 objects: create 29->119, patch 29->119",
    "dcim/device-bays": "not yet set-wise; statements for 10 -> 100 objects: create 124->1024, patch 112->922",
    "dcim/device-types": "not yet set-wise; statements for 10 -> 100 objects: create 44->224, patch 41->221, delete 37->127",
    "dcim/devices": "not yet set-wise; statements for 10 -> 100 objects: create 92->182",
    "dcim/interface-templates": "not yet set-wise; statements for 10 -> 100 objects: create 29->119, patch 29->119",
    "dcim/location-types": "not yet set-wise; statements for 10 -> 100 objects: create 152->1322",
    "dcim/locations": "not yet set-wise; statements for 10 -> 100 objects: create 225->2025",
    "dcim/module-bay-templates": "not yet set-wise; statements for 10 -> 100 objects: create 31->121, patch 31->121",
    "dcim/modules": "not yet set-wise; statements for 10 -> 100 objects: delete 33->123",
    "dcim/power-feeds": "not yet set-wise; statements for 10 -> 100 objects: create 178->1528, patch 156->1326",
    "dcim/power-outlet-templates": "not yet set-wise; statements for 10 -> 100 objects: create 31->121, patch 31->121",
    "dcim/power-port-templates": "not yet set-wise; statements for 10 -> 100 objects: create 29->119, patch 29->119",
    "dcim/racks": "not yet set-wise; statements for 10 -> 100 objects: create 49->139, patch 46->136",
    "dcim/rear-port-templates": "not yet set-wise; statements for 10 -> 100 objects: create 29->119, patch 29->119",
    "dcim/rear-ports": "not yet set-wise; statements for 10 -> 100 objects: create 40->130, patch 37->127",
    "dcim/software-versions": "not yet set-wise; statements for 10 -> 100 objects: delete 29->119",
    "dcim/virtual-device-contexts": "not yet set-wise; statements for 10 -> 100 objects: create 44->134, patch 41->131",
    "extras/approval-workflow-definitions": "not yet set-wise; statements for 10 -> 100 objects: create 30->120, patch 28->118",
    "extras/approval-workflow-stage-definitions": "not yet set-wise; statements for 10 -> 100 objects: delete 25->115",
    "extras/approval-workflow-stage-responses": "not yet set-wise; statements for 10 -> 100 objects: create 120->1110, patch 122->1112, delete 54->414",
    "extras/approval-workflows": "not yet set-wise; statements for 10 -> 100 objects: create 138->1218, patch 149->1319, delete 45->315",
    "extras/computed-fields": "not yet set-wise; statements for 10 -> 100 objects: create 87->807, patch 89->809",
    "extras/contact-associations": "not yet set-wise; statements for 10 -> 100 objects: create 37->127, patch 38->128, delete 23->113",
    "extras/contacts": "not yet set-wise; statements for 10 -> 100 objects: create 32->122",
    "extras/custom-field-choices": "not yet set-wise; statements for 10 -> 100 objects: create 89->809, patch 91->811",
    "extras/custom-fields": "not yet set-wise; statements for 10 -> 100 objects: create 140->1310, patch 80->710, delete 46->316",
    "extras/dynamic-group-memberships": "not yet set-wise; statements for 10 -> 100 objects: create 37->217, patch 37->217, delete 34->214",
    "extras/dynamic-groups": "not yet set-wise; statements for 10 -> 100 objects: create 41->221, patch 39->219",
    "extras/export-templates": "not yet set-wise; statements for 10 -> 100 objects: delete 24->114",
    "extras/graphql-queries": "not yet set-wise; statements for 10 -> 100 objects: create 129->1209, patch 120->1110",
    "extras/job-hooks": "not yet set-wise; statements for 10 -> 100 objects: create 140->1220, patch 96->816",
    "extras/metadata-choices": "not yet set-wise; statements for 10 -> 100 objects: patch 26->116",
    "extras/metadata-types": "not yet set-wise; statements for 10 -> 100 objects: patch 29->119",
    "extras/notes": "not yet set-wise; statements for 10 -> 100 objects: create 89->809, patch 111->1011",
    "extras/object-metadata": "not yet set-wise; statements for 10 -> 100 objects: create 47->407, patch 59->509, delete 19->109",
    "extras/static-group-associations": "not yet set-wise; statements for 10 -> 100 objects: create 17->107, patch 19->109, delete 19->109",
    "extras/relationship-associations": "not yet set-wise; statements for 10 -> 100 objects: create 39->219, patch 41->221",
    "extras/relationships": "not yet set-wise; statements for 10 -> 100 objects: create 108->1008, patch 139->1309",
    "extras/saved-views": "not yet set-wise; statements for 10 -> 100 objects: create 99->909, patch 91->811, delete 25->115",
    "extras/secrets-groups-associations": "not yet set-wise; statements for 10 -> 100 objects: delete 34->214",
    "extras/teams": "not yet set-wise; statements for 10 -> 100 objects: create 32->122",
    "extras/user-saved-view-associations": "not yet set-wise; statements for 10 -> 100 objects: create 27->117, patch 27->117, delete 44->314",
    "extras/webhooks": "not yet set-wise; statements for 10 -> 100 objects: create 100->910, patch 70->610",
    "ipam/prefixes": "not yet set-wise; statements for 10 -> 100 objects: delete 36->126",
    "ipam/vlan-groups": "not yet set-wise; statements for 10 -> 100 objects: patch 33->123",
    "load-balancers/load-balancer-pool-members": "not yet set-wise; statements for 10 -> 100 objects: delete 26->116",
    "users/permissions": "not yet set-wise; statements for 10 -> 100 objects: patch 26->116",
    "users/tokens": "not yet set-wise; statements for 10 -> 100 objects: create 34->304, patch 36->306",
    "users/users": "not yet set-wise; statements for 10 -> 100 objects: create 41->311, patch 30->210",
    "virtualization/interfaces": "not yet set-wise; statements for 10 -> 100 objects: patch 41->221",
    "virtualization/virtual-machines": "not yet set-wise; statements for 10 -> 100 objects: create 144->1224, patch 100->820",
    "vpn/vpn-terminations": "not yet set-wise; statements for 10 -> 100 objects: create 35->125, patch 41->221, delete 35->215",
}

# Models whose copies cannot be made 100 at a time from the sample: the list is printed too.
UNCOPIABLE: dict[str, str] = {
    "cloud/cloud-network-prefix-assignments": "no unused pairing for cloud/cloud-network-prefix-assignments",
    "cloud/cloud-service-network-assignments": "no unused pairing for cloud/cloud-service-network-assignments",
    "data-validation/min-max-rules": "no free field for a MinMaxValidationRule",
    "dcim/device-cluster-assignments": "no unused pairing for dcim/device-cluster-assignments",
    "dcim/device-types-to-software-image-files": "no unused pairing for dcim/device-types-to-software-image-files",
    "dcim/front-port-templates": "some of 100 copies of the sample object are refused (400)",
    "dcim/front-ports": "some of 100 copies of the sample object are refused (400)",
    "dcim/interface-redundancy-group-associations": "no unused pairing for dcim/interface-redundancy-group-associations",
    "dcim/interface-vdc-assignments": "no unused pairing for dcim/interface-vdc-assignments",
    "dcim/rack-reservations": "copies refused: {'units': ['The following units have already been reserved: 15']}",
    "extras/approval-workflow-stages": "no unused pairing for extras/approval-workflow-stages",
    "extras/job-queue-assignments": "no unused pairing for extras/job-queue-assignments",
    "ipam/ip-address-ranges": "some of 100 copies of the sample object are refused (400)",
    "ipam/ip-address-to-interface": "no unused pairing for ipam/ip-address-to-interface",
    "ipam/prefix-location-assignments": "no unused pairing for ipam/prefix-location-assignments",
    "ipam/vlan-location-assignments": "no unused pairing for ipam/vlan-location-assignments",
    "ipam/vlans": "[{'vid': ['Ensure this value is less than or equal to 4094.', 'VLAN ID is not contained in VLAN Group range (1-4094)']}, {'vid': ['Ensure this value i",
    "ipam/vrf-device-assignments": "no unused pairing for ipam/vrf-device-assignments",
    "ipam/vrf-prefix-assignments": "no unused pairing for ipam/vrf-prefix-assignments",
    "load-balancers/load-balancer-pool-member-certificate-profile-assignments": "no unused pairing for load-balancers/load-balancer-pool-member-certificate-profile-assignments",
    "load-balancers/virtual-server-certificate-profile-assignments": "no unused pairing for load-balancers/virtual-server-certificate-profile-assignments",
    "vpn/vpn-profile-phase-1-policy-assignments": "no unused pairing for vpn/vpn-profile-phase-1-policy-assignments",
    "vpn/vpn-profile-phase-2-policy-assignments": "no unused pairing for vpn/vpn-profile-phase-2-policy-assignments",
    "wireless/controller-managed-device-group-radio-profile-assignments": "no unused pairing for wireless/controller-managed-device-group-radio-profile-assignments",
    "wireless/controller-managed-device-group-wireless-network-assignments": "no unused pairing for wireless/controller-managed-device-group-wireless-network-assignments",
}

CREATABLE = [r for r in RESOURCES if r.creatable]


def suffix(n: int) -> str:
    """A short suffix without digits (tests/copies.py), distinct for each n."""
    letters = string.ascii_lowercase
    return "-" + letters[n // 676 % 26] + letters[n // 26 % 26] + letters[n % 26]


def counts(api, resource, row: dict, first: int, size: int) -> dict[str, int]:
    bodies = [body_from(resource, row, suffix(first + n)) for n in range(size)]
    path = list_url(resource)
    with CaptureQueriesContext(connection) as queries:
        status, created = send(api, "post", path, bodies)
    assert status == 201, created
    found = {"create": batched(queries)}
    field = editable_text_field(resource)
    # Distinct values: the field may be part of a unique set (an interface's name).
    patch = [
        {"id": obj["id"], **({field.name: f"patched{suffix(first + n)}"} if field else {})}
        for n, obj in enumerate(created)
    ]
    with CaptureQueriesContext(connection) as queries:
        status, body = send(api, "patch", path, patch)
    assert status == 200, body
    found["patch"] = batched(queries)
    with CaptureQueriesContext(connection) as queries:
        status, body = send(api, "delete", path, [{"id": obj["id"]} for obj in created])
    assert status == 204, body
    found["delete"] = batched(queries)
    return found


def test_the_lists_of_exceptions_are_printed():
    print("statements growing with the batch:", GROWING or "none")
    print("models not copied 100 at a time:", UNCOPIABLE or "none")
    assert not set(GROWING) & set(UNCOPIABLE)


@pytest.mark.parametrize("resource", CREATABLE, ids=lambda r: r.route)
def test_bulk_statements_do_not_grow_with_the_batch(api, resource):
    if resource.route in UNCOPIABLE:
        pytest.skip(UNCOPIABLE[resource.route])
    row = source_row(api, resource)
    counts(api, resource, row, 0, 2)  # warm-up: content types, definitions, plans
    small, large = counts(api, resource, row, 2, 10), counts(api, resource, row, 12, 100)
    if resource.route in GROWING:
        assert small != large, f"{resource.route} no longer grows: take it out of GROWING"
    else:
        assert small == large, f"{resource.route}: 10 objects {small}, 100 objects {large}"
