"""Saved GraphQL queries: a named document run later (REST: graphql-queries/<id>/run/)."""

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from graphql import ExecutableDefinitionNode, GraphQLError, IntValueNode, StringValueNode, parse

from inventory.base import BaseModel
from inventory.slugs import SlugModel


def declared_variables(text: str) -> dict:
    """{name: default} of every variable the document's operations declare, as the reference
    keeps them: a string or integer default as its text, anything else as ""."""
    variables = {}
    for definition in parse(text).definitions:
        if not isinstance(definition, ExecutableDefinitionNode):
            continue
        for declared in definition.variable_definitions or ():
            default = declared.default_value
            value = default.value if isinstance(default, StringValueNode | IntValueNode) else ""
            variables[declared.variable.name.value] = value
    return variables


class GraphQLQuery(SlugModel, BaseModel):
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
        """The document must parse and be valid against the service's schema (the one it runs on)."""
        from queryengine.engine import prepare_supplied

        super().clean()
        try:
            parse(self.query)
        except GraphQLError as error:
            raise ValidationError({"query": [str(error)]}) from None
        errors = prepare_supplied(self.query).errors
        if errors:
            raise ValidationError({"query": [error.message for error in errors]})

    def save(self, *args, **kwargs):
        try:
            self.variables = declared_variables(self.query)
        except GraphQLError:
            self.variables = {}  # written without validation (clean refuses it)
        super().save(*args, **kwargs)
