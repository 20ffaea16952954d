"""Device types, platforms, software, devices, virtual chassis, redundancy groups and modules."""

from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from netutils.lib_mapper import NAME_TO_ALL_LIB_MAPPER

from inventory.base import BaseModel, ConfigContextModel, OrganizationalModel, PrimaryModel, ValueChoiceField
from inventory.slugs import SlugModel

from .. import choices
from ..naming import naturalize
from . import moduletree


class Manufacturer(SlugModel, OrganizationalModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]


class DeviceFamily(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "device families"


class DeviceType(SlugModel, PrimaryModel):
    slug_source = "model"
    manufacturer = models.ForeignKey(Manufacturer, on_delete=models.PROTECT, related_name="device_types")
    device_family = models.ForeignKey(
        DeviceFamily, on_delete=models.PROTECT, null=True, blank=True, related_name="device_types"
    )
    model = models.CharField(max_length=255)
    part_number = models.CharField(max_length=255, blank=True, help_text="Discrete part number (optional)")
    u_height = models.PositiveSmallIntegerField(default=1, verbose_name="Height (U)")
    is_full_depth = models.BooleanField(
        default=True, verbose_name="Is full depth", help_text="Device consumes both front and rear rack faces"
    )
    subdevice_role = models.CharField(
        max_length=50,
        choices=choices.SUBDEVICE_ROLES,
        blank=True,
        verbose_name="Parent/child status",
    )
    front_image = models.CharField(max_length=255, null=True, blank=True, editable=False)  # noqa: DJ001
    rear_image = models.CharField(max_length=255, null=True, blank=True, editable=False)  # noqa: DJ001
    comments = models.TextField(blank=True)
    software_image_files = models.ManyToManyField(
        "dcim.SoftwareImageFile",
        through="dcim.DeviceTypeToSoftwareImageFile",
        related_name="device_types",
        blank=True,
    )

    class Meta:
        ordering = ["manufacturer__name", "model"]
        constraints = [
            models.UniqueConstraint(
                fields=["manufacturer", "model"], name="dcim_devicetype_manufacturer_model"
            )
        ]

    def __str__(self) -> str:
        return f"{self.manufacturer.name} {self.model}" if self.manufacturer_id else self.model

    def clean(self):
        super().clean()
        if self.subdevice_role == "child" and self.u_height:
            raise ValidationError({"u_height": ["Child device types must be 0U."]})
        if (
            self.pk is not None
            and self.subdevice_role != "parent"
            and self.device_bay_templates.exists()
            and DeviceType.objects.filter(pk=self.pk, subdevice_role="parent").exists()
        ):
            raise ValidationError(
                {
                    "subdevice_role": [
                        "Must delete all device bay templates associated with this device before "
                        "declassifying it as a parent device."
                    ]
                }
            )
        if self.pk is not None and self.u_height:
            # A taller type must still fit wherever its devices are racked.
            for device in self.devices.filter(position__isnull=False).select_related("rack"):
                free = device.rack.available_units(self.u_height, device.rack_face_needed(self), [device.pk])
                if device.position not in free:
                    raise ValidationError(
                        {
                            "u_height": [
                                f"Device {device} in rack {device.rack} does not have sufficient space to "
                                f"accommodate a height of {self.u_height}U"
                            ]
                        }
                    )


class Platform(SlugModel, OrganizationalModel):
    name = models.CharField(max_length=255, unique=True)
    manufacturer = models.ForeignKey(
        Manufacturer,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="platforms",
        help_text="Optionally limit this platform to devices of a certain manufacturer",
    )
    network_driver = models.CharField(
        max_length=100,
        blank=True,
        help_text="The normalized network driver to use when interacting with devices, e.g. cisco_ios, "
        "arista_eos, etc. Library-specific driver names are derived from this.",
    )
    napalm_driver = models.CharField(
        max_length=50, blank=True, verbose_name="NAPALM driver", help_text="The name of the NAPALM driver"
    )
    napalm_args = models.JSONField(
        null=True, blank=True, verbose_name="NAPALM arguments", help_text="Additional arguments to pass"
    )
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]

    @staticmethod
    def driver_mappings(network_driver: str) -> dict:
        """The driver's name in each automation library (netmiko, napalm, ansible, ...)."""
        return dict(NAME_TO_ALL_LIB_MAPPER.get(network_driver or "", {}))


class SoftwareVersion(PrimaryModel):
    platform = models.ForeignKey(Platform, on_delete=models.PROTECT, related_name="software_versions")
    version = models.CharField(max_length=255)
    alias = models.CharField(max_length=255, blank=True, help_text="Optional alternative label")
    release_date = models.DateField(null=True, blank=True)
    end_of_support_date = models.DateField(null=True, blank=True)
    documentation_url = models.URLField(blank=True, verbose_name="Documentation URL")
    long_term_support = models.BooleanField(default=False, help_text="Is a long-term support version")
    pre_release = models.BooleanField(default=False, help_text="Is a pre-release version")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["platform__name", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "version"], name="dcim_softwareversion_platform_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.platform.name} - {self.version}" if self.platform_id else self.version


class SoftwareImageFile(PrimaryModel):
    natural_key_field_names = ("image_file_name", "software_version")

    software_version = models.ForeignKey(
        SoftwareVersion, on_delete=models.PROTECT, related_name="software_image_files"
    )
    image_file_name = models.CharField(max_length=255)
    image_file_checksum = models.CharField(max_length=256, blank=True)
    hashing_algorithm = ValueChoiceField(
        max_length=255, choices=choices.HASHING_ALGORITHMS, blank=True, help_text="Hashing algorithm"
    )
    image_file_size = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Image file size in bytes"
    )
    download_url = models.URLField(blank=True, verbose_name="Download URL")
    default_image = models.BooleanField(
        default=False, help_text="Is the default image for this software version"
    )
    external_integration = models.ForeignKey(
        "extras.ExternalIntegration",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="software_image_files",
    )
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["software_version", "image_file_name"]
        constraints = [
            models.UniqueConstraint(
                fields=["software_version", "image_file_name"], name="dcim_softwareimagefile_version_name"
            )
        ]

    def __str__(self) -> str:
        return self.image_file_name


class DeviceTypeToSoftwareImageFile(BaseModel):
    device_type = models.ForeignKey(
        DeviceType, on_delete=models.CASCADE, related_name="software_image_file_assignments"
    )
    software_image_file = models.ForeignKey(
        SoftwareImageFile, on_delete=models.PROTECT, related_name="device_type_assignments"
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["device_type", "software_image_file"]
        verbose_name = "device type to software image file mapping"
        constraints = [
            models.UniqueConstraint(
                fields=["device_type", "software_image_file"], name="dcim_devicetype_softwareimagefile_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.device_type}: {self.software_image_file}"


class VirtualChassis(PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    master = models.OneToOneField(
        "dcim.Device", on_delete=models.PROTECT, null=True, blank=True, related_name="vc_master_for"
    )
    domain = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "virtual chassis"

    def clean(self):
        super().clean()
        if self.master_id is not None and self.master.virtual_chassis_id not in (None, self.pk):
            raise ValidationError(
                {"master": [f"The selected master ({self.master}) is not assigned to this virtual chassis."]}
            )


class DeviceRedundancyGroup(SlugModel, PrimaryModel):
    name = models.CharField(max_length=255, unique=True)
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    description = models.CharField(max_length=255, blank=True)
    failover_strategy = models.CharField(max_length=50, choices=choices.FAILOVER_STRATEGIES, blank=True)
    comments = models.TextField(blank=True)
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        default=None,
        related_name="device_redundancy_groups",
    )

    class Meta:
        ordering = ["name"]


class ModuleFamily(PrimaryModel):
    """A class of module types: a module bay of a family takes modules of that family only."""

    name = models.CharField(max_length=255, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "module families"

    def __str__(self) -> str:
        return self.name


class ModuleType(PrimaryModel):
    manufacturer = models.ForeignKey(Manufacturer, on_delete=models.PROTECT, related_name="module_types")
    module_family = models.ForeignKey(
        ModuleFamily, on_delete=models.PROTECT, null=True, blank=True, related_name="module_types"
    )
    model = models.CharField(max_length=255)
    part_number = models.CharField(max_length=255, blank=True, help_text="Discrete part number (optional)")
    # Images are not stored here: shown as null, as a type without images is.
    front_image = models.CharField(max_length=255, null=True, blank=True, editable=False)  # noqa: DJ001
    rear_image = models.CharField(max_length=255, null=True, blank=True, editable=False)  # noqa: DJ001
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["manufacturer__name", "model"]
        constraints = [
            models.UniqueConstraint(
                fields=["manufacturer", "model"], name="dcim_moduletype_manufacturer_model"
            )
        ]

    def __str__(self) -> str:
        return self.model


class BuiltFromTemplates(models.Model):
    """A device or module: it gets one component per template of its type when created."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        adding = self._state.adding
        self.prepare_for_bulk()
        super().save(*args, **kwargs)
        if adding:
            self.created_in_bulk([self])

    def prepare_for_bulk(self) -> None:
        """What save() derives in memory, for rows written with bulk_create."""
        super().prepare_for_bulk()

    @staticmethod
    def created_in_bulk(owners: list) -> None:
        """What save() adds once the rows exist, for a whole batch at once: the components."""
        from .templates import instantiate_components

        instantiate_components(owners)

    @staticmethod
    def made_on_create() -> list:
        """The models of the components creation makes."""
        from .templates import TEMPLATE_ORDER

        return [apps.get_model("dcim", template.component) for template in TEMPLATE_ORDER]


class Device(BuiltFromTemplates, ConfigContextModel, PrimaryModel):
    # Names a device by value in CSV, as the reference does (its default device uniqueness).
    natural_key_field_names = ("name", "tenant", "location")
    device_type = models.ForeignKey(DeviceType, on_delete=models.PROTECT, related_name="devices")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="devices"
    )
    platform = models.ForeignKey(
        Platform, on_delete=models.SET_NULL, null=True, blank=True, related_name="devices"
    )
    name = models.CharField(max_length=255, null=True, blank=True, db_index=True)  # noqa: DJ001
    _name = models.CharField(max_length=255, null=True, blank=True, db_index=True, editable=False)  # noqa: DJ001
    serial = models.CharField(max_length=255, blank=True, db_index=True, verbose_name="Serial number")
    asset_tag = models.CharField(  # noqa: DJ001
        max_length=255,
        null=True,
        blank=True,
        unique=True,
        verbose_name="Asset tag",
        help_text="A unique tag used to identify this device",
    )
    location = models.ForeignKey("dcim.Location", on_delete=models.PROTECT, related_name="devices")
    rack = models.ForeignKey(
        "dcim.Rack", on_delete=models.PROTECT, null=True, blank=True, related_name="devices"
    )
    position = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        verbose_name="Position (U)",
        help_text="The lowest-numbered unit occupied by the device",
    )
    face = models.CharField(max_length=50, blank=True, choices=choices.FACES, verbose_name="Rack face")
    primary_ip4 = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="primary_ip4_for",
        verbose_name="Primary IPv4",
    )
    primary_ip6 = models.ForeignKey(
        "ipam.IPAddress",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="primary_ip6_for",
        verbose_name="Primary IPv6",
    )
    virtual_chassis = models.ForeignKey(
        VirtualChassis, on_delete=models.SET_NULL, null=True, blank=True, related_name="members"
    )
    vc_position = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(255)], verbose_name="Virtual chassis position"
    )
    vc_priority = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(255)], verbose_name="Virtual chassis priority"
    )
    device_redundancy_group = models.ForeignKey(
        DeviceRedundancyGroup, on_delete=models.SET_NULL, null=True, blank=True, related_name="devices"
    )
    device_redundancy_group_priority = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        verbose_name="Device Redundancy Group Priority",
        help_text="The priority the device has in the device redundancy group.",
    )
    software_version = models.ForeignKey(
        SoftwareVersion,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="devices",
        help_text="The software version installed on this device",
    )
    secrets_group = models.ForeignKey(
        "extras.SecretsGroup", on_delete=models.SET_NULL, null=True, blank=True, related_name="devices"
    )
    controller_managed_device_group = models.ForeignKey(
        "dcim.ControllerManagedDeviceGroup",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="devices",
    )
    comments = models.TextField(blank=True)
    clusters = models.ManyToManyField(
        "virtualization.Cluster", through="dcim.DeviceClusterAssignment", related_name="devices", blank=True
    )
    software_image_files = models.ManyToManyField(
        SoftwareImageFile,
        related_name="devices",
        blank=True,
        verbose_name="Software Image Files",
        help_text="Override the software image files associated with the software version for this device",
    )

    class Meta:
        ordering = ["_name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["rack", "position", "face"],
                name="dcim_device_rack_position_face",
                violation_error_message=(
                    "The position and face is already occupied on this rack. "
                    "The fields rack, position, face must make a unique set."
                ),
            ),
            models.UniqueConstraint(
                fields=["virtual_chassis", "vc_position"], name="dcim_device_vc_position"
            ),
            # Also checked in clean(): a database treats a missing tenant as distinct from another.
            models.UniqueConstraint(
                fields=["location", "tenant", "name"], name="dcim_device_location_tenant_name"
            ),
        ]

    def __str__(self) -> str:
        if self.name:
            return self.name
        if self.device_type_id:
            return f"{self.device_type} ({self.pk})"
        return str(self.pk)

    def prepare_for_bulk(self) -> None:
        super().prepare_for_bulk()
        self._name = naturalize(self.name)

    @staticmethod
    def prepare_batch_clean(devices: list) -> None:
        """clean() of a batch reads other devices from what is loaded here, with a few queries."""
        from .devicebatch import DeviceBatch

        batch = DeviceBatch(devices)
        for device in devices:
            device.batch = batch

    def clean_related(self, many: dict) -> None:
        """Image files a device keeps are its type's or default images, as the reference checks
        them: those it already holds, when its type changes. The files a write sets are taken as
        given, as the reference takes them (it checks the stored list, before the new one is set)."""
        if "software_image_files" in many or self._state.adding:
            return
        stored = getattr(self, "stored_values", None)  # a bulk update read them already
        previous = (
            stored["device_type_id"]
            if stored is not None
            else Device.objects.filter(pk=self.pk).values_list("device_type", flat=True).first()
        )
        if previous == self.device_type_id:
            return
        for image_file in self.software_image_files.all():
            if image_file.default_image or image_file.device_types.filter(pk=self.device_type_id).exists():
                continue
            raise ValidationError(
                {
                    "software_image_files": [
                        f"Software image file {image_file} for version '{image_file.software_version}' is not "
                        f"valid for device type {self.device_type}."
                    ]
                }
            )

    def rack_face_needed(self, device_type=None) -> str | None:
        """The face whose units this device takes; None when it takes both (full depth)."""
        return None if (device_type or self.device_type).is_full_depth else self.face

    def clean(self):
        super().clean()
        if self.location_id is not None:
            self.location.check_admits(Device)
        self.clean_name()
        self.clean_rack()
        self.clean_primary_ips()
        if (
            self.platform_id
            and self.platform.manufacturer_id
            and self.device_type_id
            and self.platform.manufacturer_id != self.device_type.manufacturer_id
        ):
            raise ValidationError(
                {
                    "platform": [
                        f"The assigned platform is limited to {self.platform.manufacturer} device types, "
                        f"but this device's type belongs to {self.device_type.manufacturer}."
                    ]
                }
            )
        if self.virtual_chassis_id and self.vc_position is None:
            raise ValidationError(
                {"vc_position": ["A device assigned to a virtual chassis must have its position defined."]}
            )
        if not self.virtual_chassis_id and not self._state.adding:
            stored = getattr(self, "stored_values", None)  # a bulk update read them already
            previous = (
                stored["virtual_chassis_id"]
                if stored is not None
                else Device.objects.filter(pk=self.pk).values_list("virtual_chassis", flat=True).first()
            )
            if previous and VirtualChassis.objects.filter(pk=previous, master=self.pk).exists():
                raise ValidationError(
                    {
                        "virtual_chassis": [
                            f"The master device for the virtual chassis "
                            f"({VirtualChassis.objects.get(pk=previous)}) may not be removed"
                        ]
                    }
                )
        if self.device_redundancy_group_priority is not None and self.device_redundancy_group_id is None:
            raise ValidationError(
                {
                    "device_redundancy_group_priority": [
                        "Must assign a redundancy group when defining a redundancy group priority."
                    ]
                }
            )
        batch = getattr(self, "batch", None)
        if batch is not None:
            batch.claim(self)

    def clean_name(self):
        """Names are unique per location and tenant (the reference's default uniqueness)."""
        if not self.name or self.location_id is None:
            return
        batch = getattr(self, "batch", None)
        if batch is not None:
            taken = batch.name_taken(self)
        else:
            twins = Device.objects.filter(
                name=self.name, location_id=self.location_id, tenant_id=self.tenant_id
            )
            taken = twins.exclude(pk=self.pk).exists()
        if taken:
            raise ValidationError(
                {"name": [f'A device named "{self.name}" already exists in this location and tenant.']}
            )

    def clean_rack(self):
        if self.rack_id is None:
            if self.face:
                raise ValidationError({"face": ["Cannot select a rack face without assigning a rack."]})
            if self.position:
                raise ValidationError(
                    {"position": ["Cannot select a rack position without assigning a rack."]}
                )
            return
        batch = getattr(self, "batch", None)
        lineage = batch.rack_lineage(self) if batch is not None else self.rack.location.lineage()
        if self.location_id is not None and self.location_id not in lineage:
            raise ValidationError(
                {
                    "rack": [
                        f'Rack "{self.rack}" does not belong to location "{self.location}" and its descendants.'
                    ]
                }
            )
        if self.position and not self.face:
            raise ValidationError({"face": ["Must specify rack face when defining rack position."]})
        if self.device_type_id is None:
            return
        device_type = self.device_type
        if self.position and device_type.u_height == 0:
            raise ValidationError(
                {"position": [f"A U0 device type ({device_type}) cannot be assigned to a rack position."]}
            )
        if device_type.subdevice_role == "child" and (self.face or self.position):
            field = "position" if self.position else "face"
            raise ValidationError(
                {
                    field: [
                        f"Child device types cannot be assigned to a rack {field}. "
                        "This is an attribute of the parent device."
                    ]
                }
            )
        if self.position:
            if batch is not None:
                twin, placed = batch.twin(self), batch.others_placed(self)
            else:
                taken = Device.objects.filter(rack=self.rack_id, position=self.position, face=self.face)
                twin, placed = taken.exclude(pk=self.pk).exists(), None
            if twin:
                return  # the unique constraint names it, as the reference does
            free = self.rack.available_units(
                device_type.u_height, self.rack_face_needed(), [self.pk], placed=placed
            )
            if self.position not in free:
                raise ValidationError(
                    {
                        "position": [
                            f"U{self.position} is already occupied or does not have sufficient space to "
                            f"accommodate this device type: {device_type} ({device_type.u_height}U)"
                        ]
                    }
                )

    def clean_primary_ips(self):
        from inventory.ipam.models import IPAddressToInterface, check_primary_ips

        check_primary_ips(self, IPAddressToInterface.objects.filter(interface__device=self.pk), "device")


class DeviceClusterAssignment(BaseModel):
    """A device that hosts a cluster (REST: dcim/device-cluster-assignments)."""

    device = models.ForeignKey("dcim.Device", on_delete=models.CASCADE, related_name="cluster_assignments")
    cluster = models.ForeignKey(
        "virtualization.Cluster", on_delete=models.CASCADE, related_name="device_assignments"
    )
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["cluster", "device"]
        constraints = [models.UniqueConstraint(fields=["device", "cluster"], name="dcim_device_cluster_once")]

    def clean(self):
        super().clean()
        if self.device_id is None or self.cluster_id is None or self.cluster.location_id is None:
            return
        if self.cluster.location_id not in self.device.location.lineage():
            raise ValidationError(
                {
                    "cluster": [
                        f"Cluster {self.cluster} belongs to a location, {self.cluster.location}, that does not "
                        f"include {self.device.location}."
                    ]
                }
            )


class Module(BuiltFromTemplates, PrimaryModel):
    natural_key_field_names = ("pk",)
    # Where a module is installed gives its parts their device: writes naming one read its bay.
    validation_prefetch = ("parent_module_bay",)
    write_batch = staticmethod(moduletree.place_later)

    module_type = models.ForeignKey(ModuleType, on_delete=models.PROTECT, related_name="modules")
    parent_module_bay = models.OneToOneField(
        "dcim.ModuleBay", on_delete=models.CASCADE, null=True, blank=True, related_name="installed_module"
    )
    location = models.ForeignKey(
        "dcim.Location", on_delete=models.PROTECT, null=True, blank=True, related_name="modules"
    )
    serial = models.CharField(max_length=255, blank=True, db_index=True, verbose_name="Serial number")
    asset_tag = models.CharField(  # noqa: DJ001
        max_length=255,
        null=True,
        blank=True,
        unique=True,
        help_text="A unique tag used to identify this module",
    )
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    role = models.ForeignKey("extras.Role", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="modules"
    )

    class Meta:
        ordering = ["module_type__manufacturer__name", "module_type__model", "id"]

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        if "parent_module_bay_id" in field_names:  # where it was: a move hands down a new device
            instance.stored_bay_id = instance.parent_module_bay_id
        return instance

    def moving(self) -> bool:
        return not self._state.adding and self.parent_module_bay_id != getattr(
            self, "stored_bay_id", self.parent_module_bay_id
        )

    def prepare_for_bulk(self) -> None:
        super().prepare_for_bulk()
        if self.moving():
            self.placed_later = moduletree.note_moved(self)

    def save(self, *args, **kwargs):
        moving = self.moving()
        super().save(*args, **kwargs)
        if moving and not getattr(self, "placed_later", False):
            moduletree.give_devices([self.pk])  # a save outside the engine's writes: at once
        self.stored_bay_id, self.placed_later = self.parent_module_bay_id, False

    def __str__(self) -> str:
        if not self.module_type_id:
            return str(self.pk)
        return f"{self.module_type.model}{f' ({self.serial})' if self.serial else ''}"

    def clean(self):
        super().clean()
        if self.location_id is None and self.parent_module_bay_id is None:
            raise ValidationError("One of location or parent_module_bay must be set")
        if self.location_id is not None and self.parent_module_bay_id is not None:
            raise ValidationError("Only one of location or parent_module_bay must be set")
        if self.location_id is not None:
            self.location.check_admits(Module)
        if self.parent_module_bay_id is not None and self.module_type_id is not None:
            self.check_fits(self.parent_module_bay)
        # A new module has no bays yet: nothing stored can sit below it.
        bay = None if self._state.adding else self.parent_module_bay
        seen = {self.pk}
        while bay is not None and bay.parent_module_id is not None:
            if bay.parent_module_id in seen:
                raise ValidationError("Creating this instance would cause an infinite loop.")
            seen.add(bay.parent_module_id)
            bay = bay.parent_module.parent_module_bay

    def check_fits(self, bay) -> None:
        """A bay of a module family takes module types of that family only, and a bay requiring
        first-party modules those of its device's (or module's) manufacturer."""
        kind = self.module_type
        if bay.module_family_id is not None and kind.module_family_id != bay.module_family_id:
            found = (
                "not assigned to a family"
                if kind.module_family_id is None
                else f"in the family {kind.module_family.name}"
            )
            raise ValidationError(
                {
                    "module_type": [
                        f"The selected module bay requires a module type in the family "
                        f"{bay.module_family.name}, but the selected module type is {found}."
                    ]
                }
            )
        if not bay.requires_first_party_modules:
            return
        if bay.parent_device_id is not None:
            maker = bay.parent_device.device_type.manufacturer_id
        elif bay.parent_module_id is not None:
            maker = bay.parent_module.module_type.manufacturer_id
        else:
            maker = None
        if maker is not None and kind.manufacturer_id != maker:
            raise ValidationError(
                {
                    "module_type": [
                        "The selected module bay requires a module type from the same manufacturer as the "
                        "parent device or module"
                    ]
                }
            )

    @property
    def device(self):
        """The device this module is installed in, through any depth of module bays (a nested
        bay carries its device too)."""
        bay = self.parent_module_bay
        return bay.parent_device if bay is not None else None
