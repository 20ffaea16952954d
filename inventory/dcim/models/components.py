"""Components of devices and modules: ports, interfaces, bays, inventory items, redundancy groups."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from inventory.base import BaseModel, PrimaryModel, TextDecimalField, TreeModel, UniqueWhere

from .. import choices
from ..naming import naturalize
from .cables import CableTermination
from .moduletree import device_of
from .paths import PathEndpoint, retrace_through


class NaturallyOrdered(models.Model):
    """A name that sorts naturally through a hidden `_name` column, derived on every save."""

    _name = models.CharField(max_length=255, blank=True, db_index=True, editable=False)

    class Meta:
        abstract = True

    def prepare_for_bulk(self) -> None:
        """What save() derives, for rows written with bulk_create."""
        self._name = naturalize(self.name)

    def save(self, *args, **kwargs):
        self.prepare_for_bulk()
        super().save(*args, **kwargs)


class OwnedByDeviceOrModule(NaturallyOrdered):
    """A part of a device or of a module. One of a module also carries the device the module is
    installed in (kept by `moduletree`), as the reference's do: a device's parts are found by
    their device alone, and its own names stay apart from its modules' (`_unique_per_owner`)."""

    # The reference's words for a device that is not the one the module is installed in.
    device_differs = "Module's assigned device differs (device) from the root device: device"

    class Meta:
        abstract = True

    @classmethod
    def owner_fields(cls) -> tuple[str, str]:
        return "device", "module"

    def prepare_for_bulk(self) -> None:
        super().prepare_for_bulk()
        device_field, module_field = self.owner_fields()
        if getattr(self, f"{device_field}_id") is None and getattr(self, f"{module_field}_id") is not None:
            setattr(self, f"{device_field}_id", device_of(getattr(self, module_field)))

    def clean_owner(self) -> None:
        """One of the two is set; a module's part takes the module's device, or names it."""
        device_field, module_field = self.owner_fields()
        device_id, module_id = getattr(self, f"{device_field}_id"), getattr(self, f"{module_field}_id")
        if not device_id and not module_id:
            raise ValidationError(f"Either {device_field} or {module_field} must be set")
        if module_id is None:
            return
        carried = device_of(getattr(self, module_field))
        if device_id is None:
            setattr(self, f"{device_field}_id", carried)
        elif device_id != carried:
            raise ValidationError(self.device_differs)

    def unique_error_message(self, model_class, unique_check):
        device_field, _ = self.owner_fields()
        if tuple(unique_check) != (device_field, "name"):
            return super().unique_error_message(model_class, unique_check)
        owner = getattr(self, device_field)
        error = ValidationError(f"A {self._meta.verbose_name} by this name already exists on {owner}")
        error.code = "unique_together"  # read by Django's constraint validation
        return error


class ComponentModel(OwnedByDeviceOrModule, PrimaryModel):
    """A named part of one device or one module."""

    # Names a component by value in CSV (as the reference does): its owner, then its name.
    natural_key_field_names = ("device", "module", "name")

    device = models.ForeignKey(
        "dcim.Device", on_delete=models.CASCADE, null=True, blank=True, related_name="%(class)ss"
    )
    module = models.ForeignKey(
        "dcim.Module", on_delete=models.CASCADE, null=True, blank=True, related_name="%(class)ss"
    )
    name = models.CharField(max_length=255, db_index=True)
    label = models.CharField(max_length=255, blank=True, help_text="Physical label")
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        abstract = True
        ordering = ["device", "_name", "id"]

    @classmethod
    def instantiation_defaults(cls) -> dict:
        """Values a component made from a template takes that the template does not carry."""
        return {}

    def __str__(self) -> str:
        return self.name

    @property
    def parent(self):
        """The device this component belongs to, directly or through its module."""
        if self.device_id is not None:
            return self.device
        return self.module.device if self.module_id is not None else None

    def clean(self):
        super().clean()
        self.clean_owner()
        if not self._state.adding:
            # A bulk update keeps the stored values beside each object: no query per object.
            stored = getattr(self, "stored_values", None)
            if stored is not None:
                previous = stored["device_id"]
            else:
                before = type(self)._default_manager.filter(pk=self.pk)
                previous = before.values_list("device_id", flat=True).first()
            if previous is not None and previous != self.device_id:
                raise ValidationError({"device": ["Components cannot be moved to a different device."]})
        # A name taken on the same owner is refused by the (owner, name) constraints, checked for
        # a whole batch at once.


def clean_draw(port) -> None:
    """A power port (or its template) cannot be allocated more than it may draw."""
    maximum, allocated = port.maximum_draw, port.allocated_draw
    if maximum is not None and allocated is not None and allocated > maximum:
        raise ValidationError(
            {"allocated_draw": [f"Allocated draw cannot exceed the maximum draw ({maximum}W)."]}
        )


def power_factor_field() -> TextDecimalField:
    """A power port's (or its template's) factor between watts and volt-amps."""
    return TextDecimalField(
        max_digits=4,
        decimal_places=2,
        default=Decimal("0.95"),
        validators=[MinValueValidator(Decimal("0.01")), MaxValueValidator(Decimal("1.00"))],
        help_text="Power factor (0.01-1.00) for converting between watts (W) and volt-amps (VA). "
        "Defaults to 0.95.",
    )


def _unique_per_owner(name: str, device="device", module="module"):
    """A name is unique per module and among a device's own parts: its modules' parts carry the
    device too and may repeat the device's names (as the reference's may), with its messages."""
    return [
        UniqueWhere(
            fields=[device, "name"],
            condition=Q(**{f"{module}__isnull": True}),
            name=f"dcim_{name}_device_name",
        ),
        models.UniqueConstraint(
            fields=[module, "name"],
            name=f"dcim_{name}_module_name",
            violation_error_message=f"The fields {module}, name must make a unique set.",
        ),
    ]


class ConsolePort(PathEndpoint, CableTermination, ComponentModel):
    type = models.CharField(max_length=50, choices=choices.CONSOLE_PORT_TYPES, blank=True)

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("consoleport")


class ConsoleServerPort(PathEndpoint, CableTermination, ComponentModel):
    type = models.CharField(max_length=50, choices=choices.CONSOLE_PORT_TYPES, blank=True)

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("consoleserverport")


class PowerPort(PathEndpoint, CableTermination, ComponentModel):
    type = models.CharField(max_length=50, choices=choices.POWER_PORT_TYPES, blank=True)
    maximum_draw = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text="Maximum power draw (watts)"
    )
    allocated_draw = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)], help_text="Allocated power draw (watts)"
    )
    power_factor = power_factor_field()

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("powerport")

    def clean(self):
        super().clean()
        clean_draw(self)


class PowerOutlet(PathEndpoint, CableTermination, ComponentModel):
    type = models.CharField(max_length=50, choices=choices.POWER_OUTLET_TYPES, blank=True)
    power_port = models.ForeignKey(
        PowerPort, on_delete=models.SET_NULL, null=True, blank=True, related_name="power_outlets"
    )
    feed_leg = models.CharField(max_length=50, choices=choices.FEED_LEGS, blank=True)

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("poweroutlet")

    def clean(self):
        super().clean()
        if self.power_port_id is not None and self.power_port.parent != self.parent:
            raise ValidationError(
                {"power_port": [f"Parent power port ({self.power_port}) must belong to the same device"]}
            )


class RearPort(CableTermination, ComponentModel):
    type = models.CharField(max_length=50, choices=choices.PORT_TYPES)
    positions = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(1024)]
    )

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("rearport")

    def clean(self):
        super().clean()
        if self.pk is not None and self.positions:
            mapped = self.front_ports.aggregate(top=models.Max("rear_port_position"))["top"]
            if mapped and mapped > self.positions:
                raise ValidationError(
                    {
                        "positions": [
                            f"The number of positions cannot be less than the number of mapped front ports ({mapped})"
                        ]
                    }
                )


class FrontPort(CableTermination, ComponentModel):
    natural_key_field_names = ("device", "module", "name", "rear_port", "rear_port_position")

    type = models.CharField(max_length=50, choices=choices.PORT_TYPES)
    rear_port = models.ForeignKey(RearPort, on_delete=models.CASCADE, related_name="front_ports")
    rear_port_position = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(1024)]
    )

    class Meta(ComponentModel.Meta):
        constraints = _unique_per_owner("frontport") + [
            models.UniqueConstraint(
                fields=["rear_port", "rear_port_position"], name="dcim_frontport_rear_position"
            )
        ]

    def save(self, *args, **kwargs):
        adding = self._state.adding
        super().save(*args, **kwargs)
        if not adding:  # a new mapping to a rear port moves the paths through this port
            retrace_through(self)

    def clean(self):
        super().clean()
        if self.rear_port_id is None:
            return
        rear = self.rear_port
        if rear.parent != self.parent:
            raise ValidationError({"rear_port": [f"Rear port ({rear}) must belong to the same device"]})
        if self.rear_port_position and self.rear_port_position > rear.positions:
            raise ValidationError(
                {
                    "rear_port_position": [
                        f"Invalid rear port position ({self.rear_port_position}): Rear port {rear.name} has only "
                        f"{rear.positions} positions"
                    ]
                }
            )


class DeviceBay(NaturallyOrdered, PrimaryModel):
    # Its clean method refuses a device already installed in another bay, which an earlier
    # item of the same batch may have taken: written object by object.
    per_object_writes = True

    device = models.ForeignKey("dcim.Device", on_delete=models.CASCADE, related_name="device_bays")
    name = models.CharField(max_length=255, db_index=True)
    label = models.CharField(max_length=255, blank=True, help_text="Physical label")
    description = models.CharField(max_length=255, blank=True)
    installed_device = models.OneToOneField(
        "dcim.Device", on_delete=models.SET_NULL, null=True, blank=True, related_name="parent_bay"
    )

    class Meta:
        ordering = ["device", "_name", "id"]
        constraints = [models.UniqueConstraint(fields=["device", "name"], name="dcim_devicebay_device_name")]

    @classmethod
    def owner_fields(cls) -> tuple[str, str | None]:
        return "device", None

    instantiation_defaults = ComponentModel.instantiation_defaults

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        if self.device_id is None:
            return
        if self.device.device_type.subdevice_role != "parent":
            raise ValidationError(
                f"This type of device ({self.device.device_type}) does not support device bays."
            )
        if self.installed_device_id is None:
            return
        if self.installed_device_id == self.device_id:
            raise ValidationError("Cannot install a device into itself.")
        if self.installed_device.device_type.subdevice_role != "child":
            raise ValidationError(
                {
                    "installed_device": [
                        f"Cannot install device {self.installed_device}; its device type "
                        f"({self.installed_device.device_type}) is not a child device type."
                    ]
                }
            )
        current = (
            DeviceBay.objects.filter(installed_device=self.installed_device_id).exclude(pk=self.pk).first()
        )
        if current is not None:
            raise ValidationError(
                {
                    "installed_device": [
                        f"Cannot install the specified device; device is already installed in {current}"
                    ]
                }
            )
        ancestor, seen = self.device, set()
        while ancestor is not None and ancestor.pk not in seen:
            if ancestor.pk == self.installed_device_id:
                raise ValidationError(
                    "Installing this device would create a loop; it is already an ancestor of this bay's device."
                )
            seen.add(ancestor.pk)
            bay = DeviceBay.objects.filter(installed_device=ancestor.pk).select_related("device").first()
            ancestor = bay.device if bay else None


class ModuleBay(OwnedByDeviceOrModule, PrimaryModel):
    natural_key_field_names = ("pk",)
    device_differs = "module bay.parent_device differs from the parent_module's nested device: device"

    parent_device = models.ForeignKey(
        "dcim.Device", on_delete=models.CASCADE, null=True, blank=True, related_name="module_bays"
    )
    parent_module = models.ForeignKey(
        "dcim.Module", on_delete=models.CASCADE, null=True, blank=True, related_name="module_bays"
    )
    name = models.CharField(max_length=255, db_index=True)
    position = models.CharField(
        max_length=255, blank=True, help_text="The position of the module bay within the parent device/module"
    )
    label = models.CharField(max_length=255, blank=True, help_text="Physical label")
    description = models.CharField(max_length=255, blank=True)
    module_family = models.ForeignKey(
        "dcim.ModuleFamily",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="module_bays",
        help_text="Module family that can be installed in this bay",
    )
    requires_first_party_modules = models.BooleanField(
        default=False,
        help_text="This bay will only accept modules from the same manufacturer as the parent device or module",
    )

    class Meta:
        ordering = ["parent_device", "parent_module", "_name", "id"]
        constraints = _unique_per_owner("modulebay", "parent_device", "parent_module")

    @classmethod
    def owner_fields(cls) -> tuple[str, str]:
        return "parent_device", "parent_module"

    instantiation_defaults = ComponentModel.instantiation_defaults

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        self.clean_owner()


class InventoryItem(NaturallyOrdered, TreeModel, PrimaryModel):
    natural_key_field_names = ("pk",)

    device = models.ForeignKey("dcim.Device", on_delete=models.CASCADE, related_name="inventory_items")
    name = models.CharField(max_length=255, db_index=True)
    label = models.CharField(max_length=255, blank=True, help_text="Physical label")
    manufacturer = models.ForeignKey(
        "dcim.Manufacturer", on_delete=models.PROTECT, null=True, blank=True, related_name="inventory_items"
    )
    part_id = models.CharField(
        max_length=255, blank=True, verbose_name="Part ID", help_text="Manufacturer-assigned part identifier"
    )
    serial = models.CharField(max_length=255, blank=True, verbose_name="Serial number", db_index=True)
    asset_tag = models.CharField(  # noqa: DJ001
        max_length=255,
        null=True,
        blank=True,
        unique=True,
        help_text="A unique tag used to identify this item",
    )
    discovered = models.BooleanField(default=False, help_text="This item was automatically discovered")
    description = models.CharField(max_length=255, blank=True)
    software_version = models.ForeignKey(
        "dcim.SoftwareVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="inventory_items",
        help_text="The software version installed on this inventory item",
    )
    software_image_files = models.ManyToManyField(
        "dcim.SoftwareImageFile",
        related_name="inventory_items",
        blank=True,
        verbose_name="Software Image Files",
        help_text="Override the software image files associated with the software version for this inventory item",
    )

    class Meta:
        ordering = ["device", "_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["device", "parent", "name"], name="dcim_inventoryitem_device_parent_name"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self):
        super().clean()
        if (
            self.parent_id is not None
            and self.device_id is not None
            and self.parent.device_id != self.device_id
        ):
            raise ValidationError(
                {"parent": [f"The parent inventory item ({self.parent}) must belong to the same device."]}
            )


class InterfaceRedundancyGroup(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    description = models.CharField(max_length=255, blank=True)
    protocol = models.CharField(max_length=50, choices=choices.REDUNDANCY_PROTOCOLS, blank=True)
    protocol_group_id = models.CharField(max_length=50, blank=True)
    virtual_ip = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="interface_redundancy_groups",
    )
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="interface_redundancy_groups",
    )
    interfaces = models.ManyToManyField(
        "dcim.Interface",
        through="dcim.InterfaceRedundancyGroupAssociation",
        related_name="interface_redundancy_groups",
        blank=True,
    )

    class Meta:
        ordering = ["name"]


class InterfaceRedundancyGroupAssociation(BaseModel):
    interface_redundancy_group = models.ForeignKey(
        InterfaceRedundancyGroup,
        on_delete=models.CASCADE,
        related_name="interface_redundancy_group_associations",
    )
    interface = models.ForeignKey(
        "dcim.Interface", on_delete=models.CASCADE, related_name="interface_redundancy_group_associations"
    )
    priority = models.PositiveSmallIntegerField()
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["interface_redundancy_group", "-priority", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["interface_redundancy_group", "interface"],
                name="dcim_interfaceredundancygroup_interface",
            )
        ]

    def __str__(self) -> str:
        return (
            f"{self.interface_redundancy_group}: {self.interface.parent} {self.interface} ({self.priority})"
        )
