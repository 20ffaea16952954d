"""`?export=<name>` on a list: the filtered objects rendered by one of the type's export
templates and sent as a file, every matching object (no paging), in the list's order; and a
list's CSV read outside a request, for jobs that export."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.http import HttpRequest, HttpResponse, QueryDict

from inventory.extras.models import ExportTemplate
from inventory.extras.templatedata import Scope, TemplateRows
from inventory.extras.templating import TemplateFailed, render
from queryengine.filters import FilterError
from queryengine.query import filtered, ordering
from queryengine.registry import Resource
from queryengine.schema import RequestContext

from . import csvformat, versioning


def export(request, resource: Resource, filters: dict) -> HttpResponse:
    from .views import detail_error

    name = request.GET["export"]
    kind = ContentType.objects.get_for_model(resource.model)
    template = ExportTemplate.objects.filter(content_type=kind, name=name).first()
    if template is None:
        raise FilterError({"export": [f"Select a valid choice. {name} is not one of the available choices."]})
    user = request.context.user
    queryset = filtered(resource, user, filters).order_by(*ordering(resource, None))
    rows = TemplateRows(Scope(user), resource, queryset)
    try:
        output = render(template.template_code, {"queryset": rows}).replace("\r\n", "\n")
    except TemplateFailed as exc:
        raise detail_error(400, str(exc)) from None
    response = HttpResponse(output, content_type=template.mime_type or "text/plain")
    extension = f".{template.file_extension}" if template.file_extension else ""
    filename = f"netinventory_{resource.model._meta.verbose_name_plural}{extension}".replace(" ", "_")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def list_csv(user, resource: Resource, query_string: str = "") -> tuple[str, int]:
    """The CSV text and row count that `GET /api/<route>/?<query_string>` answers with
    `format=csv`, read for `user` (their permissions apply) outside any request: the "Export
    Object List" job. Filters are checked as a request's (an unknown one is a FilterError)."""
    from .views import list_page, require_view

    request = HttpRequest()
    request.method = "GET"
    request.path = f"/api/{resource.route}/"
    request.GET = QueryDict(query_string or "")
    request.META.update(SERVER_NAME="localhost", SERVER_PORT="80")
    request.context = RequestContext(user=user, base_url="/api/")
    request.response_format, request.api_version = "csv", versioning.DEFAULT
    require_view(resource, request)
    page = list_page(request, resource)
    return csvformat.render_rows(page["results"], resource, user), page["count"]
