"""Saved GraphQL queries: a named document run later (REST: graphql-queries/<id>/run/)."""

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from graphql import DocumentNode, ExecutableDefinitionNode, IntValueNode, StringValueNode

from inventory.base import BaseModel
from inventory.slugs import SlugModel


def declared_variables(document: DocumentNode) -> dict:
    """{name: default} of every variable the document's operations declare, as the reference
    keeps them: a string or integer default as its text, anything else as ""."""
    variables = {}
    for definition in document.definitions:
        if not isinstance(definition, ExecutableDefinitionNode):
            continue
        for declared in definition.variable_definitions or ():
            default = declared.default_value
            value = default.value if isinstance(default, StringValueNode | IntValueNode) else ""
            variables[declared.variable.name.value] = value
    return variables


class GraphQLQuery(SlugModel, BaseModel):
    is_contact_associable_model = True
    is_dynamic_group_associable_model = True

    owner_content_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+", editable=False
    )
    owner_object_id = models.UUIDField(null=True, blank=True, editable=False)
    name = models.CharField(max_length=255, unique=True)
    query = models.TextField()
    variables = models.JSONField(default=dict, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True, null=True)
    last_updated = models.DateTimeField(auto_now=True, null=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "GraphQL query"
        verbose_name_plural = "GraphQL queries"

    def clean(self):
        """The document must be within the limits of documents clients write, parse, and be valid
        against the service's schema (the one it runs on)."""
        from queryengine.engine import prepare_for_client

        super().clean()
        errors = prepare_for_client(self.query).errors
        if errors:
            raise ValidationError({"query": [error.message for error in errors]})

    def save(self, *args, **kwargs):
        from queryengine.engine import prepare_for_client

        # Prepared by clean already (kept by text); none when written without it and refused.
        document = prepare_for_client(self.query).document
        self.variables = declared_variables(document) if document is not None else {}
        super().save(*args, **kwargs)
