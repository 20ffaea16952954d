"""Component templates of device types and module types, and their instantiation.

Each template class names the component it becomes and the values it hands over; creating a
device (or module) creates one component per template of its type, in the same transaction.
"""

from collections import defaultdict

from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import OrganizationalModel, ValueChoiceField

from .. import choices
from .components import NaturallyOrdered, clean_draw, power_factor_field
from .moduletree import devices_of


class ComponentTemplate(NaturallyOrdered, OrganizationalModel):
    """A component every new device (or module) of a type gets."""

    natural_key_field_names = ("device_type", "module_type", "name")

    device_type = models.ForeignKey(
        "dcim.DeviceType", on_delete=models.CASCADE, null=True, blank=True, related_name="%(class)ss"
    )
    module_type = models.ForeignKey(
        "dcim.ModuleType", on_delete=models.CASCADE, null=True, blank=True, related_name="%(class)ss"
    )
    name = models.CharField(max_length=255)
    label = models.CharField(max_length=255, blank=True, help_text="Physical label")
    description = models.CharField(max_length=255, blank=True)

    component: str = ""  # "<Model>" in dcim that the template becomes
    copied: tuple[str, ...] = ()  # values the component takes over as they are

    class Meta:
        abstract = True
        ordering = ["device_type", "module_type", "_name", "id"]

    def clean(self):
        super().clean()
        if self.device_type_id and self.module_type_id:
            raise ValidationError("Only one of device_type or module_type must be set")
        if not self.device_type_id and not self.module_type_id:
            raise ValidationError("Either device_type or module_type must be set")
        owner = (
            {"device_type": self.device_type_id}
            if self.device_type_id
            else {"module_type": self.module_type_id}
        )
        if type(self)._default_manager.filter(name=self.name, **owner).exclude(pk=self.pk).exists():
            kind = "device type" if self.device_type_id else "module type"
            raise ValidationError(
                {"name": [f"A {self._meta.verbose_name} named {self.name} exists on this {kind}."]}
            )

    def __str__(self) -> str:
        return self.name

    def component_values(self, made) -> dict:
        """Keyword arguments of the component; `made(template_id)` is the component the same
        owner got from another of its type's templates (a front port's rear port)."""
        return {name: getattr(self, name) for name in self.copied}


def _unique_per_type(name: str):
    return [
        models.UniqueConstraint(fields=["device_type", "name"], name=f"dcim_{name}_devicetype_name"),
        models.UniqueConstraint(fields=["module_type", "name"], name=f"dcim_{name}_moduletype_name"),
    ]


class ConsolePortTemplate(ComponentTemplate):
    type = models.CharField(max_length=50, choices=choices.CONSOLE_PORT_TYPES, blank=True)
    component, copied = "ConsolePort", ("type",)

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("consoleporttemplate")


class ConsoleServerPortTemplate(ComponentTemplate):
    type = models.CharField(max_length=50, choices=choices.CONSOLE_PORT_TYPES, blank=True)
    component, copied = "ConsoleServerPort", ("type",)

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("consoleserverporttemplate")


class PowerPortTemplate(ComponentTemplate):
    type = models.CharField(max_length=50, choices=choices.POWER_PORT_TYPES, blank=True)
    maximum_draw = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text="Maximum power draw (watts)"
    )
    allocated_draw = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text="Allocated power draw (watts)"
    )
    power_factor = power_factor_field()
    component, copied = "PowerPort", ("type", "maximum_draw", "allocated_draw", "power_factor")

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("powerporttemplate")

    def clean(self):
        super().clean()
        clean_draw(self)


class PowerOutletTemplate(ComponentTemplate):
    type = models.CharField(max_length=50, choices=choices.POWER_OUTLET_TYPES, blank=True)
    power_port_template = models.ForeignKey(
        PowerPortTemplate,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="power_outlet_templates",
    )
    feed_leg = models.CharField(max_length=50, choices=choices.FEED_LEGS, blank=True)
    component, copied = "PowerOutlet", ("type", "feed_leg")

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("poweroutlettemplate")

    def clean(self):
        super().clean()
        port = self.power_port_template
        if port is not None and (port.device_type_id, port.module_type_id) != (
            self.device_type_id,
            self.module_type_id,
        ):
            raise ValidationError(
                {"power_port_template": [f"Parent power port ({port}) must belong to the same device type"]}
            )

    def component_values(self, made) -> dict:
        port = made(self.power_port_template_id) if self.power_port_template_id else None
        return {**super().component_values(made), "power_port": port}


class InterfaceTemplate(ComponentTemplate):
    type = models.CharField(max_length=50, choices=choices.INTERFACE_TYPES)
    port_type = models.CharField(max_length=50, choices=choices.PORT_TYPES, blank=True)
    mgmt_only = models.BooleanField(default=False, verbose_name="Management only")
    speed = models.PositiveIntegerField(null=True, blank=True)
    duplex = ValueChoiceField(
        max_length=10, choices=choices.INTERFACE_DUPLEX, blank=True
    )  # shown bare, as the reference does
    component, copied = "Interface", ("type", "port_type", "mgmt_only", "speed", "duplex")

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("interfacetemplate")


class RearPortTemplate(ComponentTemplate):
    type = models.CharField(max_length=50, choices=choices.PORT_TYPES)
    positions = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(1024)]
    )
    component, copied = "RearPort", ("type", "positions")

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("rearporttemplate")


class FrontPortTemplate(ComponentTemplate):
    natural_key_field_names = (
        "device_type",
        "module_type",
        "name",
        "rear_port_template",
        "rear_port_position",
    )

    type = models.CharField(max_length=50, choices=choices.PORT_TYPES)
    rear_port_template = models.ForeignKey(
        RearPortTemplate, on_delete=models.CASCADE, related_name="front_port_templates"
    )
    rear_port_position = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(1024)]
    )
    component, copied = "FrontPort", ("type", "rear_port_position")

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("frontporttemplate") + [
            models.UniqueConstraint(
                fields=["rear_port_template", "rear_port_position"],
                name="dcim_frontporttemplate_rear_position",
            )
        ]

    def clean(self):
        super().clean()
        rear = self.rear_port_template if self.rear_port_template_id else None
        if rear is None:
            return
        if (rear.device_type_id, rear.module_type_id) != (self.device_type_id, self.module_type_id):
            raise ValidationError(
                {"rear_port_template": [f"Rear port ({rear}) must belong to the same device type"]}
            )
        if self.rear_port_position and self.rear_port_position > rear.positions:
            raise ValidationError(
                {
                    "rear_port_position": [
                        f"Invalid rear port position ({self.rear_port_position}); rear port {rear.name} has only "
                        f"{rear.positions} positions"
                    ]
                }
            )

    def component_values(self, made) -> dict:
        return {**super().component_values(made), "rear_port": made(self.rear_port_template_id)}


class DeviceBayTemplate(NaturallyOrdered, OrganizationalModel):
    """Device bays exist on device types only (a parent device houses child devices)."""

    device_type = models.ForeignKey(
        "dcim.DeviceType", on_delete=models.CASCADE, related_name="device_bay_templates"
    )
    name = models.CharField(max_length=255)
    label = models.CharField(max_length=255, blank=True, help_text="Physical label")
    description = models.CharField(max_length=255, blank=True)

    component, copied = "DeviceBay", ()

    class Meta:
        ordering = ["device_type", "_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["device_type", "name"], name="dcim_devicebaytemplate_devicetype_name"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        if self.device_type_id and self.device_type.subdevice_role != "parent":
            raise ValidationError(
                f'Subdevice role of device type ({self.device_type}) must be set to "parent" to allow device bays.'
            )

    def component_values(self, made) -> dict:
        return {}


class ModuleBayTemplate(ComponentTemplate):
    position = models.CharField(
        max_length=255, blank=True, help_text="The position of the module bay within the parent device/module"
    )
    module_family = models.ForeignKey(
        "dcim.ModuleFamily",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="module_bay_templates",
        help_text="Module family that can be installed in this bay. Leave blank for no restriction.",
    )
    requires_first_party_modules = models.BooleanField(
        default=False,
        help_text="This bay will only accept modules from the same manufacturer as the parent device or module",
    )
    component, copied = "ModuleBay", ("position", "module_family_id", "requires_first_party_modules")

    class Meta(ComponentTemplate.Meta):
        constraints = _unique_per_type("modulebaytemplate")


# Rear ports before front ports and power ports before outlets: the later ones point at the earlier.
TEMPLATE_ORDER = (
    ConsolePortTemplate,
    ConsoleServerPortTemplate,
    PowerPortTemplate,
    PowerOutletTemplate,
    InterfaceTemplate,
    RearPortTemplate,
    FrontPortTemplate,
    DeviceBayTemplate,
    ModuleBayTemplate,
)


def instantiate_components(owners: list) -> None:
    """Create the components of new devices (or of new modules) from their types' templates: one
    query per kind of template and one INSERT per kind of component, however many owners."""
    if not owners:
        return
    is_device = owners[0]._meta.model_name == "device"
    type_field = "device_type_id" if is_device else "module_type_id"
    types = {getattr(owner, type_field) for owner in owners}
    made: dict = {}  # (owner, template id) -> component: later templates point at earlier ones
    # A module's parts also carry the device the module is installed in.
    carried = {} if is_device else devices_of(owners)
    for template_model in TEMPLATE_ORDER:
        if not is_device and template_model is DeviceBayTemplate:
            continue
        per_type = defaultdict(list)
        for template in template_model._default_manager.filter(**{f"{type_field}__in": types}).order_by(
            "_name"
        ):
            per_type[getattr(template, type_field)].append(template)
        if not per_type:
            continue
        component_model = apps.get_model("dcim", template_model.component)
        device_field, module_field = component_model.owner_fields()
        defaults = component_model.instantiation_defaults()
        components = []
        for owner in owners:
            owned = (
                {device_field: owner}
                if is_device
                else {module_field: owner, f"{device_field}_id": carried[owner.pk]}
            )
            for template in per_type[getattr(owner, type_field)]:
                component = component_model(
                    name=template.name,
                    label=template.label,
                    description=template.description,
                    **owned,
                    **defaults,
                    **template.component_values(lambda pk, owner=owner: made[(owner.pk, pk)]),
                )
                component.prepare_for_bulk()
                components.append(component)
                made[(owner.pk, template.pk)] = component
        component_model._default_manager.bulk_create(components)
