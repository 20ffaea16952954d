from django.contrib.contenttypes.models import ContentType
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from inventory.base import OrganizationalModel, PrimaryModel, TreeModel


class LocationType(TreeModel, OrganizationalModel):
    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=200, blank=True)
    nestable = models.BooleanField(default=False)
    content_types = models.ManyToManyField(ContentType, related_name="+", blank=True)

    class Meta:
        ordering = ["name"]


class Location(TreeModel, PrimaryModel):
    name = models.CharField(max_length=100, db_index=True)
    location_type = models.ForeignKey(LocationType, on_delete=models.PROTECT, related_name="locations")
    status = models.ForeignKey("extras.Status", on_delete=models.PROTECT, related_name="+")
    tenant = models.ForeignKey(
        "tenancy.Tenant", on_delete=models.PROTECT, null=True, blank=True, related_name="locations"
    )
    description = models.CharField(max_length=200, blank=True)
    facility = models.CharField(max_length=50, blank=True)
    asn = models.BigIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1), MaxValueValidator(4294967295)]
    )
    time_zone = models.CharField(max_length=63, null=True, blank=True)
    physical_address = models.TextField(blank=True)
    shipping_address = models.TextField(blank=True)
    latitude = models.DecimalField(max_digits=8, decimal_places=6, null=True, blank=True)
    longitude = models.DecimalField(max_digits=9, decimal_places=6, null=True, blank=True)
    contact_name = models.CharField(max_length=100, blank=True)
    contact_phone = models.CharField(max_length=50, blank=True)
    contact_email = models.EmailField(blank=True)
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["parent", "name"], name="dcim_location_parent_name")]
