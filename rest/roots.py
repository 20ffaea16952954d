"""The API's roots (`/api/`, each application's, the add-on listings) and the GraphQL endpoint
(a browser's GET shows GraphiQL)."""

from __future__ import annotations

from django.conf import settings
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie

from queryengine import engine
from queryengine.errors import PermissionDenied
from queryengine.registry import resources

from .auth import no_credentials
from .views import (
    ADD_ON_ROOTS,
    API_APPS,
    ApiError,
    Endpoint,
    detail_error,
    json_body,
    require_view,
    response_format,
)


class RootEndpoint(Endpoint):
    def get(self, request):
        require_view(None, request)
        base = request.context.base_url
        links = {app: f"{base}{app}/" for app in (*API_APPS, *ADD_ON_ROOTS)}
        links.update({"graphql": f"{base}graphql/", "status": f"{base}status/"})
        return dict(sorted(links.items())), 200


class AppRootEndpoint(Endpoint):
    def __init__(self, app: str, extra_routes: tuple[str, ...] = ()):
        self.app, self.extra_routes = app, extra_routes

    def get(self, request):
        require_view(None, request)
        base = request.context.base_url
        routes = [r.route for r in resources() if r.served_at(request.api_version)] + list(self.extra_routes)
        endpoints = {
            route.split("/", 1)[1]: f"{base}{route}/" for route in routes if route.startswith(f"{self.app}/")
        }
        return dict(sorted(endpoints.items())), 200


class AddOnRootEndpoint(Endpoint):
    """`/api/apps/` (and its older name `/api/plugins/`): the list of installed add-ons."""

    def __init__(self, root: str):
        self.root = root

    def get(self, request):
        require_view(None, request)
        listing = ADD_ON_ROOTS[self.root]
        return {listing: f"{request.context.base_url}{self.root}/{listing}/"}, 200


class InstalledAddOnsEndpoint(Endpoint):
    """No add-on applications run here: an empty list, for administrators only (as the reference)."""

    def get(self, request):
        user = request.context.user
        if not user.is_authenticated:
            raise detail_error(403, no_credentials(request))
        if not user.is_staff:
            raise detail_error(403, PermissionDenied().detail)
        return [], 200


class GraphQLEndpoint(Endpoint):
    """POST a GraphQL document; a browser's GET shows GraphiQL."""

    methods = ("POST",)

    @csrf_exempt
    def __call__(self, request, **kwargs):
        if request.method == "GET" and response_format_or_json(request) == "html":
            return graphiql_page(request)
        return super().__call__(request, **kwargs)

    def post(self, request):
        if not request.context.user.is_authenticated and "*" not in settings.EXEMPT_VIEW_PERMISSIONS:
            raise detail_error(403, no_credentials(request))
        body = json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("query"), str):
            raise ApiError(400, {"errors": [{"message": "Must provide a query string."}]})
        variables = body.get("variables") or {}
        result = engine.run(
            body["query"], variables, request.context, body.get("operationName"), supplied=True
        )
        payload = {}
        if result.errors:
            payload["errors"] = [error.formatted for error in result.errors]
        if result.data is not None:
            payload["data"] = result.data
        return payload, 200 if result.data is not None else 400


@ensure_csrf_cookie  # a signed-in browser's queries send it back (POST)
def graphiql_page(request):
    from django.shortcuts import render as render_template

    return render_template(request, "rest/graphiql.html", {"assets": "/api/docs/assets/"})


def response_format_or_json(request) -> str:
    try:
        return response_format(request)
    except ApiError:
        return "json"
