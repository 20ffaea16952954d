"""Sample external integrations, controllers and their device groups, over the rest of the sample."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import (
    Controller,
    ControllerManagedDeviceGroup,
    Device,
    DeviceRedundancyGroup,
    Platform,
    SoftwareImageFile,
    VirtualDeviceContext,
)
from inventory.extras.models import ExternalIntegration, Role, SecretsGroup, Status, Tag
from inventory.tenancy.models import Tenant


def build_controllers(s: str, sample: dict) -> dict[type, list]:
    devices, tenants = sample[Device], sample[Tenant]
    integration_ct, controller_ct = (
        ContentType.objects.get_for_model(m) for m in (ExternalIntegration, Controller)
    )
    integrations = [
        ExternalIntegration.objects.create(
            name=f"Wireless controller API{s}",
            remote_url="https://wlc.example.com/api/v2",
            secrets_group=sample[SecretsGroup][0],
            timeout=10,
            http_method="GET",
            headers={"Accept": "application/json"},
            extra_config={"region": "emea"},
        ),
        ExternalIntegration.objects.create(
            name=f"image server{s}",
            remote_url="http://images:8080/",
            verify_ssl=False,
            ca_file_path="/etc/ssl/certs/internal.pem",
        ),
    ]
    alpha = Tag.objects.get(name=f"alpha{s}")
    alpha.content_types.add(integration_ct, controller_ct)
    integrations[0].tags.set([alpha])
    image = SoftwareImageFile.objects.get(pk=sample[SoftwareImageFile][0].pk)
    image.external_integration = integrations[1]
    image.save()

    site = devices[0].location
    site.location_type.content_types.add(controller_ct)
    role = Role.objects.get(name=f"spine{s}")
    role.content_types.add(controller_ct)
    active = Status.objects.get(name="Active")
    controllers = [
        Controller.objects.create(
            name=f"wlc1{s}",
            status=active,
            location=site,
            platform=sample[Platform][0],
            role=role,
            capabilities=["wireless"],
            tenant=tenants[0],
            external_integration=integrations[0],
            controller_device=devices[0],
            description="campus wireless",
        ),
        Controller.objects.create(
            name=f"fabric{s}",
            status=Status.objects.get(name="Planned"),
            location=site,
            controller_device_redundancy_group=sample[DeviceRedundancyGroup][1],
        ),
    ]
    controllers[0].tags.set([alpha])
    campus = ControllerManagedDeviceGroup.objects.create(
        name=f"campus APs{s}",
        controller=controllers[0],
        weight=100,
        capabilities=["wireless"],
        tenant=tenants[0],
    )
    groups = [
        campus,
        ControllerManagedDeviceGroup.objects.create(
            name=f"floor 1 APs{s}", controller=controllers[0], parent=campus, description="first floor"
        ),
        ControllerManagedDeviceGroup.objects.create(
            name=f"leafs{s}", controller=controllers[1], capabilities=[]
        ),
    ]
    for device, group in ((devices[0], groups[1]), (devices[1], groups[2])):
        device.refresh_from_db()
        device.controller_managed_device_group = group
        device.save()
    # vdc1 in the fabric's group of leafs, vdc2 in none.
    VirtualDeviceContext.objects.filter(pk=sample[VirtualDeviceContext][0].pk).update(
        controller_managed_device_group=groups[2]
    )
    return {
        ExternalIntegration: integrations,
        Controller: controllers,
        ControllerManagedDeviceGroup: groups,
    }
