"""`?export=<name>` on a list: the filtered objects rendered by one of the type's export
templates and sent as a file, every matching object (no paging), in the list's order."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.http import HttpResponse

from inventory.extras.models import ExportTemplate
from inventory.extras.templating import TemplateFailed, render
from queryengine.filters import FilterError
from queryengine.query import filtered, ordering
from queryengine.registry import Resource


def export(request, resource: Resource, filters: dict) -> HttpResponse:
    from .views import detail_error

    name = request.GET["export"]
    kind = ContentType.objects.get_for_model(resource.model)
    template = ExportTemplate.objects.filter(content_type=kind, name=name).first()
    if template is None:
        raise FilterError({"export": [f"Select a valid choice. {name} is not one of the available choices."]})
    queryset = filtered(resource, request.context.user, filters).order_by(*ordering(resource, None))
    try:
        output = render(template.template_code, {"queryset": queryset}).replace("\r\n", "\n")
    except TemplateFailed as exc:
        raise detail_error(400, str(exc)) from None
    response = HttpResponse(output, content_type=template.mime_type or "text/plain")
    extension = f".{template.file_extension}" if template.file_extension else ""
    filename = f"netinventory_{resource.model._meta.verbose_name_plural}{extension}".replace(" ", "_")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
