from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
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
        if not self.location_type.content_types.filter(
            pk=ContentType.objects.get_for_model(model).pk
        ).exists():
            kind = str(model._meta.verbose_name_plural)
            raise ValidationError(
                {
                    "location": [
                        f'{kind[:1].upper()}{kind[1:]} may not associate to locations of type "{self.location_type}".'
                    ]
                }
            )
