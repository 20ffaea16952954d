from django.db import models

from inventory.base import OrganizationalModel, PrimaryModel, TreeModel
from inventory.slugs import SlugModel


class TenantGroup(SlugModel, TreeModel, OrganizationalModel):
    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=200, blank=True)
    comments = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]


class Tenant(SlugModel, PrimaryModel):
    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=200, blank=True)
    comments = models.TextField(blank=True)
    tenant_group = models.ForeignKey(
        TenantGroup, on_delete=models.PROTECT, null=True, blank=True, related_name="tenants"
    )

    class Meta:
        ordering = ["name"]
