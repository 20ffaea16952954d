"""Create a demo superuser, an API token and a small network so the first GET shows real data."""

from cryptography.exceptions import InvalidTag
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand

from config.monitoring.progress import Progress
from inventory.dcim.models import (
    Device,
    DeviceType,
    InterfaceTemplate,
    Location,
    LocationType,
    Manufacturer,
    Rack,
)
from inventory.extras.models import Role, Status, Tag
from inventory.tenancy.models import Tenant, TenantGroup
from inventory.users.management import demonetwork
from inventory.users.models import Token, User
from inventory.virtualization.models import Cluster


class Command(BaseCommand):
    help = "Create the demo user (admin/admin), its API token and a small demo network."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="where the service will listen")

    def handle(self, *args, url, **options):
        user, created = User.objects.get_or_create(
            username="admin", defaults={"is_superuser": True, "is_staff": True, "email": "admin@example.com"}
        )
        if created:
            user.set_password("admin")
            user.save()
        # A random key, kept across runs so a restarted demo keeps working with the printed token.
        demo_tokens = Token.objects.filter(user=user, description="demo token")
        try:
            token = demo_tokens.first()
        except InvalidTag:  # sealed with another SECRET_KEY (a demo from before it kept its own)
            demo_tokens.only("pk").delete()  # its key is not read
            token = None
        if token is None:
            token = Token.objects.create(user=user, description="demo token")
        with Progress("demo network (steps)", 4, stream=self.stderr._out) as progress:
            self.seed_network(progress)
            demonetwork.seed(token.key)
            progress.advance()  # the second site, cables, a circuit, IP space, VMs
        self.stdout.write(
            f"NetInventory is ready.\n"
            f"  Sign in:  {url}/login/ (dashboard at {url}/, admin at {url}/admin/)\n"
            f"  API:      {url}/api/\n"
            f"  GraphQL:  {url}/api/graphql/\n"
            f"  User:     admin / admin\n"
            f"  Token:    {token.key}\n"
            f'  Try:      curl -H "Authorization: Token {token.key}" {url}/api/dcim/locations/\n'
        )

    def seed_network(self, progress):
        location_ct = ContentType.objects.get_for_model(Location)
        tenant_ct = ContentType.objects.get_for_model(Tenant)
        active = Status.objects.get(name="Active")
        planned = Status.objects.get(name="Planned")
        core, _ = Tag.objects.get_or_create(name="core", defaults={"color": "f44336"})
        edge, _ = Tag.objects.get_or_create(name="edge", defaults={"color": "2196f3"})
        for tag in (core, edge):
            tag.content_types.add(location_ct, tenant_ct)
        role, _ = Role.objects.get_or_create(name="Edge", defaults={"color": "3f51b5"})
        role.content_types.add(location_ct)
        group, _ = TenantGroup.objects.get_or_create(name="Customers")
        acme, _ = Tenant.objects.get_or_create(name="Acme Corp", defaults={"tenant_group": group})
        Tenant.objects.get_or_create(name="Globex", defaults={"tenant_group": group})
        region, _ = LocationType.objects.get_or_create(name="Region", defaults={"nestable": True})
        site, _ = LocationType.objects.get_or_create(name="Site", defaults={"parent": region})
        site.content_types.add(location_ct)
        progress.advance()  # tags, roles, tenants
        europe, _ = Location.objects.get_or_create(
            name="Europe", parent=None, defaults={"location_type": region, "status": active}
        )
        for name, status, tags in (("AMS1", active, [core]), ("FRA1", active, [edge]), ("LON2", planned, [])):
            location, created = Location.objects.get_or_create(
                name=name,
                parent=europe,
                defaults={"location_type": site, "status": status, "tenant": acme, "facility": f"{name} DC"},
            )
            if created:
                location.tags.set(tags)
        progress.advance()  # locations
        self.seed_devices(site, Location.objects.get(name="AMS1", parent=europe), active)
        progress.advance()  # devices

    def seed_devices(self, site, ams, active):
        """A rack with two switches whose type brings eight interfaces each."""
        site.content_types.add(*(ContentType.objects.get_for_model(m) for m in (Device, Rack, Cluster)))
        role, _ = Role.objects.get_or_create(name="Access switch", defaults={"color": "4caf50"})
        role.content_types.add(ContentType.objects.get_for_model(Device))
        maker, _ = Manufacturer.objects.get_or_create(name="Arista")
        switch, created = DeviceType.objects.get_or_create(manufacturer=maker, model="DCS-7050SX3-48YC8")
        if created:
            for n in range(1, 9):
                InterfaceTemplate.objects.create(
                    device_type=switch, name=f"Ethernet{n}", type="25gbase-x-sfp28"
                )
        rack, _ = Rack.objects.get_or_create(name="AMS1-R01", location=ams, defaults={"status": active})
        for position, name in ((40, "ams1-leaf1"), (39, "ams1-leaf2")):
            if not Device.objects.filter(name=name, location=ams).exists():
                Device.objects.create(
                    name=name,
                    device_type=switch,
                    role=role,
                    status=active,
                    location=ams,
                    rack=rack,
                    position=position,
                    face="front",
                )
