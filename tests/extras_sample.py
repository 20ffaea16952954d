"""Sample relationships, computed fields and config contexts over the rest of the sample."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device, DeviceRedundancyGroup, InterfaceRedundancyGroup, Location
from inventory.extras.models import (
    ComputedField,
    ConfigContext,
    ConfigContextSchema,
    CustomLink,
    DynamicGroup,
    DynamicGroupMembership,
    ExportTemplate,
    GraphQLQuery,
    Relationship,
    RelationshipAssociation,
    Role,
    Secret,
    SecretsGroup,
    SecretsGroupAssociation,
    StaticGroupAssociation,
    Tag,
)
from inventory.tenancy.models import Tenant
from inventory.virtualization.models import VirtualMachine


def build_extras_data(s: str, sample: dict) -> dict[type, list]:
    k = s.replace("-", "_")
    device_ct, vm_ct, tenant_ct = (
        ContentType.objects.get_for_model(m) for m in (Device, VirtualMachine, Tenant)
    )
    devices, machines, tenants = sample[Device], sample[VirtualMachine], sample[Tenant]
    relationships = [
        # Sorted first by label: the association the generic write tests copy is one of its pairs.
        Relationship.objects.create(
            label=f"Affiliates{s}",
            key=f"affiliates{k}",
            type="many-to-many",
            source_type=tenant_ct,
            destination_type=tenant_ct,
            source_label="affiliated with",
        ),
        Relationship.objects.create(
            label=f"VM host{s}",
            key=f"vm_host{k}",
            type="one-to-many",
            source_type=device_ct,
            destination_type=vm_ct,
            description="where a virtual machine runs",
        ),
        Relationship.objects.create(
            label=f"Peer devices{s}",
            key=f"peer_devices{k}",
            type="symmetric-many-to-many",
            source_type=device_ct,
            destination_type=device_ct,
            source_filter={"status": ["Active"]},
            destination_filter={"status": ["Active"]},
        ),
    ]

    def associate(relationship, source, destination):
        return RelationshipAssociation.objects.create(
            relationship=relationship,
            source_type=relationship.source_type,
            source_id=source.pk,
            destination_type=relationship.destination_type,
            destination_id=destination.pk,
        )

    associations = [
        associate(relationships[0], tenants[0], tenants[1]),
        associate(relationships[1], devices[0], machines[0]),
        associate(relationships[1], devices[0], machines[1]),
        associate(relationships[2], devices[0], devices[2]),
    ]
    computed = [
        ComputedField.objects.create(
            content_type=device_ct,
            key=f"where{k}",
            label=f"Where{s}",
            template="{{ obj.name }} @ {{ obj.location.name }}",
        ),
        ComputedField.objects.create(
            content_type=tenant_ct,
            key=f"shout{k}",
            label=f"Shout{s}",
            template="{{ obj.name | upper }}",
            fallback_value="?",
            weight=50,
        ),
    ]
    schemas = [
        ConfigContextSchema.objects.create(
            name=f"NTP servers{s}",
            description="a list of NTP servers",
            data_schema={
                "type": "object",
                "properties": {"ntp": {"type": "array", "items": {"type": "string"}}},
            },
        ),
        ConfigContextSchema.objects.create(
            name=f"Anything{s}", data_schema={"type": "object", "properties": {}}
        ),
    ]
    ams = Location.objects.get(name=f"AMS1{s}")
    leaf = Role.objects.get(name=f"leaf{s}")
    contexts = [
        ConfigContext.objects.create(
            name=f"global{s}",
            weight=100,
            data={"ntp": ["192.0.2.1"], "syslog": {"host": "192.0.2.9", "port": 514}},
            config_context_schema=schemas[0],
        ),
        ConfigContext.objects.create(
            name=f"AMS leaves{s}",
            weight=200,
            description="Amsterdam leaf switches",
            data={"ntp": ["192.0.2.2"], "syslog": {"port": 1514}},
        ),
        ConfigContext.objects.create(name=f"retired{s}", is_active=False, data={"ntp": ["198.51.100.1"]}),
    ]
    contexts[1].locations.set([ams])
    contexts[1].roles.set([leaf])
    links = [
        CustomLink.objects.create(
            content_type=device_ct,
            name=f"Monitoring{s}",
            text="Graphs",
            target_url="https://nms.example.com/devices/{{ obj.name }}",
            new_window=True,
        ),
        CustomLink.objects.create(
            content_type=tenant_ct,
            name=f"CRM{s}",
            text="{{ obj.name }} in the CRM",
            target_url="https://crm.example.com/?q={{ obj.name | urlencode }}",
            group_name="business",
            button_class="primary",
            weight=50,
            new_window=False,
        ),
    ]
    exports = [
        ExportTemplate.objects.create(
            content_type=device_ct,
            name=f"hosts{s}",
            description="an Ansible inventory",
            template_code="[all]\n{% for d in queryset %}{{ d.name or d.pk }} platform={{ d.platform.name }}\n{% endfor %}",
            file_extension="ini",
        ),
        ExportTemplate.objects.create(
            content_type=tenant_ct,
            name=f"tenant csv{s}",
            template_code="name,description\n{% for t in queryset %}{{ t.name }},{{ t.description }}\n{% endfor %}",
            mime_type="text/csv",
            file_extension="csv",
        ),
    ]
    groups = build_groups(s, sample)
    contexts[2].dynamic_groups.set([groups[DynamicGroup][0]])  # inactive: renders unchanged
    secrets = build_secrets(
        s, devices, (sample[DeviceRedundancyGroup][0], sample[InterfaceRedundancyGroup][1])
    )
    return {
        **groups,
        **secrets,
        CustomLink: links,
        ExportTemplate: exports,
        Relationship: relationships,
        RelationshipAssociation: associations,
        ComputedField: computed,
        ConfigContextSchema: schemas,
        ConfigContext: contexts,
    }


def build_groups(s: str, sample: dict) -> dict[type, list]:
    """Filter-defined device groups combined by a set group, and a static group of tenants."""
    device_ct, tenant_ct = (ContentType.objects.get_for_model(m) for m in (Device, Tenant))
    active = DynamicGroup.objects.create(
        name=f"Active devices{s}", content_type=device_ct, filter={"status": ["Active"]}
    )
    ams = DynamicGroup.objects.create(
        name=f"AMS devices{s}",
        content_type=device_ct,
        filter={"location": [f"AMS1{s}"]},
        description="Amsterdam",
    )
    both = DynamicGroup.objects.create(
        name=f"Active in AMS{s}", content_type=device_ct, group_type="dynamic-set", tenant=sample[Tenant][0]
    )
    pinned = DynamicGroup.objects.create(
        name=f"Key customers{s}", content_type=tenant_ct, group_type="static"
    )
    memberships = [
        DynamicGroupMembership.objects.create(parent_group=both, group=active, operator="union", weight=10),
        DynamicGroupMembership.objects.create(
            parent_group=both, group=ams, operator="intersection", weight=20
        ),
    ]
    statics = [
        StaticGroupAssociation.objects.create(
            dynamic_group=pinned, associated_object_type=tenant_ct, associated_object_id=tenant.pk
        )
        for tenant in sample[Tenant][:2]
    ]
    return {
        DynamicGroup: [active, ams, both, pinned],
        DynamicGroupMembership: memberships,
        StaticGroupAssociation: statics,
    }


def build_secrets(s: str, devices, redundancy_groups) -> dict[type, list]:
    """Two secrets (one per provider), two groups, three associations; a device uses a group."""
    k = s.replace("-", "_")
    secrets = [
        Secret.objects.create(
            name=f"netops password{s}",
            description="from the environment",
            provider="environment-variable",
            parameters={"variable": "NETOPS_PASSWORD"},
        ),
        Secret.objects.create(
            name=f"netops username{s}",
            provider="text-file",
            parameters={"path": "/run/secrets/netops-username"},
        ),
    ]
    alpha = Tag.objects.get(name=f"alpha{s}")
    alpha.content_types.add(ContentType.objects.get_for_model(Secret))
    secrets[0].tags.set([alpha])
    groups = [
        SecretsGroup.objects.create(name=f"Device credentials{s}", description="SSH to network devices"),
        SecretsGroup.objects.create(name=f"Spare{s}"),
    ]
    associations = [
        SecretsGroupAssociation.objects.create(
            secrets_group=groups[0], secret=secrets[0], access_type="SSH", secret_type="password"
        ),
        SecretsGroupAssociation.objects.create(
            secrets_group=groups[0], secret=secrets[1], access_type="SSH", secret_type="username"
        ),
        SecretsGroupAssociation.objects.create(
            secrets_group=groups[1], secret=secrets[0], access_type="Generic", secret_type="token"
        ),
    ]
    devices[0].secrets_group = groups[0]
    devices[0].save()
    for group in redundancy_groups:
        group.secrets_group = groups[0]
        group.save()
    queries = [
        GraphQLQuery.objects.create(
            name=f"devices by location{s}",
            query='query ($location: [String] = "AMS1") { devices(location: $location) { name } }',
        ),
        GraphQLQuery.objects.create(name=f"tenant names{s}", query="{ tenants { name description } }"),
    ]
    # Types whose models are gone (Django keeps them until they are removed): each sample adds rows.
    retired = [
        ContentType.objects.create(app_label="retired", model=f"{name}{k}") for name in ("site", "region")
    ]
    return {
        ContentType: retired,
        Secret: secrets,
        SecretsGroup: groups,
        SecretsGroupAssociation: associations,
        GraphQLQuery: queries,
    }


def build_changes(s: str, owner, tenants) -> dict[type, list]:
    """Change records as a script's ORM writes leave them: a create, an update and a delete."""
    from inventory.extras.models import ObjectChange
    from inventory.tenancy.models import Tenant
    from queryengine.changes import change_context

    with change_context("orm", "sample script", owner) as context:
        gone = Tenant.objects.create(name=f"changed-away{s}")
        tenants[0].save()  # saved unchanged, so the rest of the sample stays as other tests expect
        gone.delete()
    return {ObjectChange: list(ObjectChange.objects.filter(request_id=context.request_id))}


def build_webhooks(s: str) -> dict[type, list]:
    """Webhooks of every shape; the one enabled listens to a type no test writes through HTTP."""
    from inventory.extras.models import CustomLink, Webhook

    hooks = [
        Webhook.objects.create(
            name=f"audit{s}",
            type_create=True,
            payload_url="http://127.0.0.1:9/audit",
            enabled=False,
            secret="k",
        ),
        Webhook.objects.create(
            name=f"Inventory sync{s}",
            type_update=True,
            type_delete=True,
            payload_url="https://sync.example.net/in",
            http_method="PUT",
            additional_headers="X-Source: netinventory",
            body_template="{{ data.name }}",
            enabled=False,
        ),
        Webhook.objects.create(
            name=f"links{s}", type_delete=True, payload_url="http://127.0.0.1:9/links", ssl_verification=False
        ),
    ]
    kinds = [ContentType.objects.get_for_model(m) for m in (Device, Tenant, CustomLink)]
    for hook, kind in zip(hooks, kinds, strict=True):
        hook.content_types.set([kind])
    return {Webhook: hooks}
