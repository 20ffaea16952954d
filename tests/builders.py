"""Small explicit test data: a few objects of every registered model, with varied values."""

from __future__ import annotations

import datetime
from decimal import Decimal

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from inventory.dcim.models import Device, Location, LocationType, Manufacturer
from inventory.extras.models import CustomField, CustomFieldChoice, Note, Role, SecretsGroup, Status, Tag
from inventory.ipam.models import (
    RIR,
    VLAN,
    VRF,
    IPAddress,
    IPAddressToInterface,
    Namespace,
    Prefix,
    PrefixLocationAssignment,
    VLANGroup,
    VLANLocationAssignment,
    VRFDeviceAssignment,
    VRFPrefixAssignment,
)
from inventory.tenancy.models import Tenant, TenantGroup
from inventory.users.models import Group, ObjectPermission, Token, User, generate_key

from .approvals_sample import build_approvals
from .circuits_vm_sample import build_circuits_and_vms
from .cloud_sample import build_cloud
from .contacts_sample import build_contacts
from .controllers_sample import build_controllers
from .data_validation_sample import build_data_validation
from .dcim_sample import build_dcim
from .extras_sample import build_changes, build_extras_data, build_webhooks
from .git_sample import build_git
from .images_sample import build_images
from .ipam_sample import build_ipam_more
from .jobs_sample import build_jobs
from .load_balancers_sample import build_load_balancers
from .savedviews_sample import build_saved_views
from .vpn_sample import build_vpn
from .wireless_sample import build_wireless

SUPERUSER_KEY = "a" * 40


def build_sample(owner: User, suffix: str = "") -> dict[type, list]:
    """Three or more objects of each registered model; returns them by model.

    A `suffix` makes the names of a second, identically shaped sample unique.
    """
    s = suffix
    location_ct = ContentType.objects.get_for_model(Location)
    tenant_ct = ContentType.objects.get_for_model(Tenant)

    tags = [
        Tag.objects.create(name=n + s, color=c, description=d)
        for n, c, d in (
            ("alpha", "ff0000", "first tag"),
            ("Beta", "00ff00", ""),
            ("gamma-core", "0000ff", "core"),
        )
    ]
    for tag in tags:
        tag.content_types.set([location_ct, tenant_ct])
    roles = [
        Role.objects.create(name=n + s, weight=w) for n, w in (("Edge", 100), ("Core", 200), ("Access", None))
    ]
    roles[0].content_types.set([location_ct])
    statuses = [
        Status.objects.create(name=f"Testing{s}", color="123456"),
        Status.objects.create(name=f"Spare{s}"),
    ]
    statuses[0].content_types.set([location_ct])

    groups = [TenantGroup.objects.create(name="Customers" + s, description="paying")]
    groups.append(TenantGroup.objects.create(name="Enterprise" + s, parent=groups[0]))
    groups.append(TenantGroup.objects.create(name="Internal" + s, comments="our own"))
    tenants = [
        Tenant.objects.create(name="Acme" + s, description="rockets", tenant_group=groups[1]),
        Tenant.objects.create(name="globex" + s, description="", comments="big"),
        Tenant.objects.create(name="Initech" + s, description="staplers", tenant_group=groups[0]),
    ]
    tenants[0].tags.set([tags[0], tags[1]])
    tenants[2].tags.set([tags[1]])

    region = LocationType.objects.create(name="Region" + s, nestable=True, description="top level")
    site = LocationType.objects.create(name="Site" + s, parent=region)
    floor = LocationType.objects.create(name="Floor" + s, parent=site)
    site.content_types.set([location_ct])
    active, planned = Status.objects.get(name="Active"), Status.objects.get(name="Planned")
    europe = Location.objects.create(name="Europe" + s, location_type=region, status=active, asn=65000)
    ams = Location.objects.create(
        name="AMS1" + s,
        location_type=site,
        status=active,
        parent=europe,
        tenant=tenants[0],
        asn=4200000000,
        facility="Equinix AM3",
        latitude=Decimal("52.300000"),
        longitude=Decimal("4.940000"),
        time_zone="Europe/Amsterdam",
        contact_email="noc@example.com",
    )
    fra = Location.objects.create(
        name="fra2" + s,
        location_type=site,
        status=planned,
        parent=europe,
        tenant=tenants[2],
        description="Frankfurt",
    )
    room = Location.objects.create(name="AMS1 floor 1" + s, location_type=floor, status=active, parent=ams)
    ams.tags.set([tags[0], tags[2]])
    fra.tags.set([tags[0]])

    other = User.objects.create_user("operator" + s, email="ops@example.com", first_name="Olga")
    tokens = [
        Token.objects.create(user=owner, key=SUPERUSER_KEY if not s else generate_key(), description="tests"),
        Token.objects.create(
            user=owner,
            write_enabled=False,
            description="read only",
            expires=timezone.now() + datetime.timedelta(days=30),
        ),
        Token.objects.create(user=other, description="someone else's"),
    ]
    teams = [Group.objects.create(name="Network team" + s), Group.objects.create(name="Auditors" + s)]
    teams[0].users.add(other)
    permissions = [
        ObjectPermission.objects.create(
            name="Customer tenants" + s,
            actions=["view"],
            constraints={"tenant_group__name": "Customers" + s},
            enabled=False,
        ),
        ObjectPermission.objects.create(
            name="Amsterdam devices" + s,
            description="edit what is racked in AMS1",
            actions=["view", "change"],
            constraints=[{"location__name": "AMS1" + s}, {"location__parent__name": "AMS1" + s}],
            enabled=False,
        ),
    ]
    permissions[0].object_types.set([tenant_ct])
    permissions[0].groups.set([teams[1]])
    permissions[1].object_types.set([ContentType.objects.get_by_natural_key("dcim", "device")])
    permissions[1].users.set([other])
    notes = [
        Note.objects.create(
            assigned_object_type=location_ct,
            assigned_object_id=ams.pk,
            user=owner,
            user_name=owner.username,
            note="Rack A3 reserved",
        ),
        Note.objects.create(
            assigned_object_type=tenant_ct,
            assigned_object_id=tenants[0].pk,
            user=owner,
            user_name=owner.username,
            note="VIP customer",
        ),
        Note.objects.create(
            assigned_object_type=location_ct,
            assigned_object_id=fra.pk,
            user=None,
            user_name="former-user",
            note="Power upgrade planned",
        ),
    ]
    ipam = build_ipam(s, tenants, ams, active, statuses, location_ct)
    dcim = build_dcim(s, owner, tenants, ams, room, active, ipam[VRF], ipam[VLAN], ipam[IPAddress])
    more = build_circuits_and_vms(s, tenants, ams, room, active, ipam[IPAddress])
    dcim[IPAddressToInterface] = dcim[IPAddressToInterface] + more.pop("vm address")
    dcim[VRFDeviceAssignment] = dcim[VRFDeviceAssignment] + more.pop("vm vrf")
    ipam.update(build_ipam_more(s, tenants, {**ipam, **dcim, **more}))
    custom = build_custom_fields(s, dcim[Device][0])
    extras = build_extras_data(s, {**more, **dcim, Tenant: tenants})
    contacts = build_contacts(s, {**dcim, Tenant: tenants})
    cloud = build_cloud(s, dcim[Manufacturer], extras[SecretsGroup], ipam[Prefix])
    controllers = build_controllers(s, {**dcim, **extras, Tenant: tenants})
    wireless = build_wireless(s, {**controllers, **extras, **ipam, Tenant: tenants})
    jobs = build_jobs(s, owner, tenants)
    jobs.update(build_approvals(s, owner, other, jobs, teams))
    vpn = build_vpn(s, {**dcim, **more, **ipam, **extras, Tenant: tenants})
    data_validation = build_data_validation(s, tenants)
    load_balancers = build_load_balancers(s, {**dcim, **ipam, **cloud, Tenant: tenants})
    git = build_git(s, {**extras, Tag: tags})
    images = build_images(s, {**dcim, Location: [europe, ams, fra, room]})
    return {
        **build_changes(s, owner, tenants),
        **build_webhooks(s),
        **build_saved_views(s, owner, other),
        **jobs,
        **contacts,
        **cloud,
        **more,
        **ipam,
        **dcim,
        **custom,
        **extras,
        **controllers,
        **wireless,
        **vpn,
        **data_validation,
        **load_balancers,
        **git,
        **images,
        Tag: tags,
        Role: roles,
        Status: statuses,
        TenantGroup: groups,
        Tenant: tenants,
        LocationType: [region, site, floor],
        Location: [europe, ams, fra, room],
        User: [owner, other],
        Token: tokens,
        Group: teams,
        ObjectPermission: permissions,
        Note: notes,
    }


def build_custom_fields(s: str, device) -> dict[type, list]:
    """Three custom fields on devices (text, integer with a range, selection), one device using them."""
    k = s.replace("-", "_")
    fields = [
        CustomField.objects.create(key=f"owner{k}", label=f"Owner{s}", type="text"),
        CustomField.objects.create(
            key=f"ports{k}", label=f"Ports{s}", type="integer", validation_minimum=1, validation_maximum=96
        ),
        CustomField.objects.create(key=f"tier{k}", label=f"Tier{s}", type="select", weight=50),
    ]
    for field in fields:
        field.content_types.add(ContentType.objects.get_for_model(Device))
    choices = [
        CustomFieldChoice.objects.create(custom_field=fields[2], value="gold"),
        CustomFieldChoice.objects.create(custom_field=fields[2], value="silver", weight=200),
    ]
    device.refresh_from_db()
    device._custom_field_data.update({f"owner{k}": "netops", f"ports{k}": 48})
    device.save()
    return {CustomField: fields, CustomFieldChoice: choices}


def build_ipam(s: str, tenants, site, active, statuses, location_ct) -> dict[type, list]:
    prefix_ct = ContentType.objects.get_for_model(Prefix)
    ip_ct = ContentType.objects.get_for_model(IPAddress)
    vlan_ct = ContentType.objects.get_for_model(VLAN)
    for status in (active, statuses[0]):
        status.content_types.add(prefix_ct, ip_ct, vlan_ct)
    reserved = Status.objects.get(name="Reserved")
    loopback = Role.objects.get(name="Loopback")
    rirs = [
        RIR.objects.create(name="RFC 1918" + s, is_private=True, description="private space"),
        RIR.objects.create(name="ARIN" + s),
    ]
    lab = Namespace.objects.create(
        name="lab" + s, description="lab network", tenant=tenants[0], location=site
    )
    # A copy of the sample (a suffix) keeps its own address space: the same shapes again.
    space = {"namespace": Namespace.objects.create(name="space" + s)} if s else {}
    vrfs = [
        VRF.objects.create(
            name="blue" + s, rd=f"65000:1{s}", tenant=tenants[0], description="customer blue", **space
        ),
        VRF.objects.create(name="red" + s, rd=None, description="", **space),
    ]
    groups = [
        VLANGroup.objects.create(name="campus" + s, location=site),
        VLANGroup.objects.create(name="dc" + s),
    ]
    vlans = [
        VLAN.objects.create(vid=10, name="users", vlan_group=groups[0], status=active, tenant=tenants[0]),
        VLAN.objects.create(vid=20, name="voice", vlan_group=groups[0], status=reserved, location=site),
        VLAN.objects.create(vid=4094, name="mgmt", status=active, description="management"),
    ]

    def prefix(cidr, **fields):
        p = Prefix(status=fields.pop("status", active), **{**space, **fields})
        p.set_prefix(cidr)
        p.save()
        return p

    prefixes = [
        prefix("10.0.0.0/8", type="container", description="rfc1918", rir=rirs[0]),
        prefix("10.1.0.0/16", vrf=vrfs[0], tenant=tenants[0], location=site),
        prefix("10.1.1.0/24", vrf=vrfs[0], vlan=vlans[0], type="pool"),
        prefix("192.0.2.0/31", status=reserved),
        prefix("2001:db8::/32", description="documentation"),
        prefix("2001:db8:1::/64", vrf=vrfs[1]),
        prefix("0.0.0.0/0", type="container"),
        prefix("172.31.0.0/16", namespace=lab, description="lab"),
    ]

    def address(cidr, **fields):
        ip = IPAddress(status=fields.pop("status", active), **{**space, **fields})
        ip.set_address(cidr)
        ip.save()
        return ip

    inside = address("10.1.1.1/24", vrf=vrfs[0], dns_name="gw.example.com", tenant=tenants[0])
    addresses = [
        inside,
        address("10.1.1.2/24", vrf=vrfs[0], nat_inside=inside, description="outside"),
        address("192.0.2.1/32", role=loopback, status=reserved),
        address("2001:db8::1/64", dns_name="v6.example.com"),
        address("::ffff:10.1.1.1/128", description="mapped"),
        address("172.31.0.1/16", namespace=lab, dns_name="lab.example.com", type="dhcp"),
    ]
    alpha = Tag.objects.get(name="alpha" + s)
    alpha.content_types.add(prefix_ct, ip_ct)
    prefixes[3].tags.set([alpha])
    addresses[0].tags.set([alpha])
    return {
        Namespace: [Namespace.objects.get(name="Global"), lab, *space.values()],
        RIR: rirs,
        VRF: vrfs,
        VLANGroup: groups,
        VLAN: vlans,
        Prefix: prefixes,
        IPAddress: addresses,
        VRFPrefixAssignment: [
            VRFPrefixAssignment.objects.create(vrf=vrfs[1], prefix=prefixes[1]),
            VRFPrefixAssignment.objects.create(vrf=vrfs[0], prefix=prefixes[4]),
        ],
        PrefixLocationAssignment: [
            PrefixLocationAssignment.objects.create(prefix=prefixes[1], location=site),
            PrefixLocationAssignment.objects.create(prefix=prefixes[2], location=site),
        ],
        VLANLocationAssignment: [
            VLANLocationAssignment.objects.create(vlan=vlans[0], location=site),
            VLANLocationAssignment.objects.create(vlan=vlans[2], location=site),
        ],
    }
