"""`/api/core/render-jinja-template/`: a signed-in user's template rendered over the data they
send, as the reference renders it, by the one template engine (its sandbox and bounds)."""

from __future__ import annotations

from .auth import no_credentials
from .views import ApiError, Endpoint, detail_error, json_body, json_type, not_an_object, run

DOCUMENT = (
    "query ($template_code: String!, $context: GenericScalar) "
    "{ result: render_jinja_template(template_code: $template_code, context: $context) }"
)


class RenderTemplateEndpoint(Endpoint):
    """Render a Jinja template over the given context (no object of the inventory is in reach)."""

    methods = ("POST",)
    request_schema = {
        "type": "object",
        "properties": {
            "template_code": {"type": "string", "minLength": 1},
            "context": {"type": "object", "additionalProperties": {}},
        },
        "required": ["template_code"],
    }
    response_schema = {
        "type": "object",
        "properties": {
            "template_code": {"type": "string"},
            "context": {"type": "object", "additionalProperties": {}},
            "rendered_template": {"type": "string", "readOnly": True},
            "rendered_template_lines": {"type": "array", "items": {"type": "string"}, "readOnly": True},
        },
        "required": ["rendered_template", "rendered_template_lines", "template_code"],
    }

    def post(self, request):
        if not request.context.user.is_authenticated:
            raise detail_error(403, no_credentials(request))
        body = json_body(request)
        if not isinstance(body, dict):
            raise not_an_object(body)
        template_code, context = body.get("template_code"), body.get("context", {})
        if template_code is None or template_code == "":
            message = "This field is required." if template_code is None else "This field may not be blank."
            raise ApiError(400, {"template_code": [message]})
        if not isinstance(template_code, str):
            raise ApiError(400, {"template_code": ["Not a valid string."]})
        if not isinstance(context, dict):
            raise ApiError(
                400, {"context": [f'Expected a dictionary of items but got type "{json_type(context)}".']}
            )
        rendered = run(DOCUMENT, {"template_code": template_code, "context": context}, request)["result"]
        return {**rendered, "template_code": template_code, "context": context}, 200
