from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import (
    OrganizationalModel,
    PrimaryModel,
    TreeModel,
    described_without_limits,
    graphql_choices,
    shown_as_text,
    time_zone_choices,
)
from inventory.slugs import SlugManager, SlugModel


class LocationType(SlugModel, TreeModel, OrganizationalModel):
    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=200, blank=True)
    nestable = models.BooleanField(
        default=False,
        help_text="Allow locations of this type to be parents and children of other locations of the same type",
    )
    content_types = models.ManyToManyField(ContentType, related_name="+", blank=True)

    class Meta:
        ordering = ["name"]


class Location(SlugModel, TreeModel, PrimaryModel):
    name = models.CharField(max_length=100, db_index=True)
    location_type = models.ForeignKey(LocationType, on_delete=models.PROTECT, related_name="locations")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="locations"
    )
    description = models.CharField(max_length=200, blank=True)
    facility = models.CharField(max_length=50, blank=True, help_text="Local facility ID or description")
    asn = models.BigIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(4294967295)],
        help_text="32-bit autonomous system number",
    )
    time_zone = graphql_choices(
        described_without_limits(models.CharField(max_length=63, null=True, blank=True)), time_zone_choices
    )
    physical_address = models.TextField(blank=True)
    shipping_address = models.TextField(blank=True)
    # Shown as the reference shows them ("10.100000"): a client writing the text reads it back.
    latitude = shown_as_text(
        models.DecimalField(
            max_digits=8, decimal_places=6, null=True, blank=True, help_text="GPS coordinate (latitude)"
        )
    )
    longitude = shown_as_text(
        models.DecimalField(
            max_digits=9, decimal_places=6, null=True, blank=True, help_text="GPS coordinate (longitude)"
        )
    )
    contact_name = models.CharField(max_length=100, blank=True)
    contact_phone = models.CharField(max_length=50, blank=True)
    contact_email = models.EmailField(blank=True)
    comments = models.TextField(blank=True)

    # What clean methods of the objects placed here read (check_admits): loaded for a whole batch.
    validation_prefetch = ("location_type__content_types",)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["parent", "name"], name="dcim_location_parent_name")]

    def clean(self):
        super().clean()
        if self.location_type_id is None:
            return
        kind = self.location_type
        if self.parent is None:
            if kind.parent_id is not None:
                raise ValidationError(
                    {"parent": [f"A Location of type {kind.name} must have a parent Location."]}
                )
            return
        allowed = {kind.parent_id} | ({kind.pk} if kind.nestable else set())
        if self.parent.location_type_id not in allowed:
            expected = " or ".join(
                sorted(t.name for t in LocationType.objects.filter(pk__in=allowed - {None}))
            )
            raise ValidationError(
                {
                    "parent": [
                        f"A Location of type {kind.name} can only have a Location of type {expected} as its parent."
                        if expected
                        else f"A Location of type {kind.name} cannot have a parent Location."
                    ]
                }
            )

    def lineage(self) -> set:
        """The ids of this location and of every location above it."""
        return {self.pk, *(a.pk for a in self.ancestors())}

    def check_admits(self, model) -> None:
        """Objects of `model` are placed only at locations whose type lists the model."""
        wanted = ContentType.objects.get_for_model(model).pk
        # all(): the types a batch preloaded (validation_prefetch), else one query
        if not any(kind.pk == wanted for kind in self.location_type.content_types.all()):
            kind = str(model._meta.verbose_name_plural)
            raise ValidationError(
                {
                    "location": [
                        f'{kind[:1].upper()}{kind[1:]} may not associate to locations of type "{self.location_type}".'
                    ]
                }
            )


# --- API 1.x sites and regions: views of the locations of two location types ----------------

SITE, REGION = "Site", "Region"
GLOBAL_REGION = "Global Region"
# What a 1.x site held, so that the Site type created for a 1.x client admits it.
SITE_CONTENTS = (
    ("dcim", "device"),
    ("dcim", "rack"),
    ("dcim", "rackgroup"),
    ("dcim", "powerpanel"),
    ("ipam", "prefix"),
    ("ipam", "vlan"),
    ("ipam", "vlangroup"),
    ("circuits", "circuittermination"),
    ("virtualization", "cluster"),
)


def view_type(name: str) -> LocationType:
    """The Site or Region location type, created as Nautobot's own 1.x-to-2.x migration makes
    them (Region nestable at the top, Site under it) when a 1.x client first needs one."""
    found = LocationType.objects.filter(name=name).first()
    if found is not None:
        return found
    if name == REGION:
        return LocationType.objects.create(name=REGION, nestable=True)
    site = LocationType.objects.create(name=SITE, parent=view_type(REGION))
    kinds = models.Q()
    for app_label, model in SITE_CONTENTS:
        kinds |= models.Q(app_label=app_label, model=model)
    site.content_types.set(ContentType.objects.filter(kinds))
    return site


class LocationsOfType(SlugManager):
    def __init__(self, type_name: str):
        super().__init__()
        self.type_name = type_name

    def get_queryset(self):
        return super().get_queryset().filter(location_type__name=self.type_name)


class LocationView:
    """Locations of one type, as API 1.x saw them (a proxy model's base): a new one is of that
    type."""

    type_name = ""

    def assign_type(self) -> None:
        if self.location_type_id is None:
            self.location_type = view_type(self.type_name)

    def clean_fields(self, exclude=None):
        self.assign_type()
        super().clean_fields(exclude)

    def save(self, *args, **kwargs):
        self.assign_type()
        super().save(*args, **kwargs)


class Site(LocationView, Location):
    """A 1.x site: a location of the Site type. One without a region goes under the "Global
    Region", as Nautobot's migration of 1.x data places such sites."""

    type_name = SITE
    objects = LocationsOfType(SITE)

    class Meta:
        proxy = True
        ordering = ["name"]

    def assign_type(self) -> None:
        super().assign_type()
        if self.parent_id is None and self.location_type.parent_id is not None and self.status_id is not None:
            self.parent = Location.objects.filter(
                name=GLOBAL_REGION, parent=None
            ).first() or Location.objects.create(
                name=GLOBAL_REGION, location_type=self.location_type.parent, status_id=self.status_id
            )


class Region(LocationView, Location):
    """A 1.x region: a location of the Region type."""

    type_name = REGION
    objects = LocationsOfType(REGION)

    class Meta:
        proxy = True
        ordering = ["name"]
