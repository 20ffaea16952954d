from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel, OrganizationalModel, PrimaryModel

from .core import Role, Status


class ContactOrTeam(PrimaryModel):
    """What a person and a team share: how to reach them. The same name may be reused with other
    phone numbers or addresses (a shared mailbox name for two offices)."""

    natural_key_field_names = ("name",)

    name = models.CharField(max_length=255, db_index=True)
    phone = models.CharField(max_length=255, blank=True, db_index=True)
    email = models.EmailField(blank=True, db_index=True, verbose_name="E-mail")
    address = models.TextField(blank=True)
    comments = models.TextField(blank=True)

    class Meta:
        abstract = True
        ordering = ["name", "phone", "email"]

    def __str__(self) -> str:
        return contact_label(self.name, self.phone, self.email)


def contact_label(name: str, phone: str, email: str) -> str:
    return name + (f" ({phone})" if phone else "") + (f" ({email})" if email else "")


def unique_identity(model_name: str) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=["name", "phone", "email"],
        name=f"extras_{model_name}_identity",
        violation_error_message="The fields name, phone, email must make a unique set.",
    )


class Contact(ContactOrTeam):
    """An individual person or other point of contact."""

    is_contact_associable_model = False  # its `teams` filter names its teams

    # The membership seen from the contact's side: the same rows as Team.contacts.
    teams = models.ManyToManyField("Team", through="TeamMembership", related_name="+", blank=True)

    class Meta(ContactOrTeam.Meta):
        constraints = [unique_identity("contact")]


class Team(ContactOrTeam):
    """A group of contacts, usable wherever a single contact is."""

    is_contact_associable_model = False  # its `contacts` filter names its members

    contacts = models.ManyToManyField(Contact, through="TeamMembership", related_name="+", blank=True)

    class Meta(ContactOrTeam.Meta):
        constraints = [unique_identity("team")]


class TeamMembership(BaseModel):
    """One contact in one team: the table behind both `Contact.teams` and `Team.contacts`."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="+")
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "contact"], name="extras_teammembership_unique")
        ]


# Objects that describe contacts themselves take no contacts (as the reference).
NOT_ASSOCIABLE = ("extras.contact", "extras.team", "extras.contactassociation")


class ContactAssociation(OrganizationalModel):
    """A contact or a team (exactly one) in a role for any object."""

    is_contact_associable_model = False
    is_dynamic_group_associable_model = False

    contact = models.ForeignKey(
        Contact, on_delete=models.CASCADE, null=True, blank=True, related_name="contact_associations"
    )
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, null=True, blank=True, related_name="contact_associations"
    )
    associated_object_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    associated_object_id = models.UUIDField(db_index=True)
    role = models.ForeignKey(Role, on_delete=models.PROTECT, related_name="contact_associations")
    status = models.ForeignKey(Status, on_delete=models.PROTECT, related_name="contact_associations")

    class Meta:
        ordering = ["associated_object_type", "associated_object_id", "role", "id"]
        indexes = [models.Index(fields=["associated_object_type", "associated_object_id"])]
        constraints = [
            models.UniqueConstraint(
                fields=["contact", "associated_object_type", "associated_object_id", "role"],
                name="extras_contactassociation_contact",
                violation_error_message=(
                    "The fields associated_object_type, associated_object_id, contact, role must make a unique set."
                ),
            ),
            models.UniqueConstraint(
                fields=["team", "associated_object_type", "associated_object_id", "role"],
                name="extras_contactassociation_team",
                violation_error_message=(
                    "The fields associated_object_type, associated_object_id, team, role must make a unique set."
                ),
            ),
        ]

    def __str__(self) -> str:
        if self.contact_id:
            return f"Contact {self.contact} for {self.associated_object_id}"
        return f"Team contact {self.team} for {self.associated_object_id}"

    def clean(self):
        super().clean()
        if self.contact_id is None and self.team_id is None:
            raise ValidationError("Either a contact or a team must be specified")
        if self.contact_id is not None and self.team_id is not None:
            raise ValidationError("A contact and a team cannot be both specified at once")
        check_assigned_object(self, "associated_object", NOT_ASSOCIABLE)


def check_assigned_object(obj, name: str, refused: tuple[str, ...] = ()) -> None:
    """`<name>_type` / `<name>_id` must name an existing object of a type that may take it."""
    kind = getattr(obj, f"{name}_type") if getattr(obj, f"{name}_type_id") else None
    pk = getattr(obj, f"{name}_id")
    if kind is None or pk is None:
        return  # the missing field has its own error
    from queryengine.registry import resource_by_object_type

    label = f"{kind.app_label}.{kind.model}"
    if label in refused or resource_by_object_type(label) is None:
        raise ValidationError({f"{name}_type": [f"Objects of type {label} cannot be assigned here."]})
    if not kind.model_class()._default_manager.filter(pk=pk).exists():
        raise ValidationError({f"{name}_id": [f"No {kind.model_class()._meta.object_name} has this id."]})
