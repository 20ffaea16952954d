"""Pages for people: sign-in and sign-out, their API tokens, the dashboard, and the static files
these pages and the admin load (served by the service itself: nothing from another host)."""

from __future__ import annotations

import mimetypes
from pathlib import Path

import orjson
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from queryengine import engine
from queryengine.errors import NotFound, PermissionDenied, ValidationFailed
from queryengine.schema import RequestContext
from rest import throttle


class SignInView(LoginView):
    """Django's sign-in page; failed passwords count against the same throttle as the API's
    token provisioning, so guessing here is no cheaper than there."""

    template_name = "web/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        try:
            throttle.check(request, request.POST.get("username", ""))
        except throttle.Throttled as exc:
            context = self.get_context_data(form=self.get_form(), throttled=exc.detail)
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(exc.retry_after)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        throttle.failed(self.request, form.data.get("username", ""))
        return super().form_invalid(form)

    def form_valid(self, form):
        throttle.succeeded(self.request, form.get_user().get_username())
        return super().form_valid(form)


@never_cache
@csrf_protect
@require_http_methods(["GET", "POST"])
def sign_out(request):
    """GET asks to confirm, POST (with the CSRF token) signs out: a link elsewhere cannot."""
    if request.method == "POST":
        logout(request)
        return HttpResponseRedirect("/login/")
    if not request.user.is_authenticated:
        return HttpResponseRedirect("/login/")
    return render(request, "web/logout.html")


# The token page reads and writes through the same GraphQL schema, permissions and validation as
# the API (`users/tokens` shows each user only their own tokens).
TOKENS = "{ tokens(limit: 1000) { id display created expires write_enabled description } }"
CREATE = "mutation ($data: [GenericScalar]!) { result: create_tokens(data: $data) { id key } }"
REVOKE = "mutation ($ids: [UUID!]!) { result: delete_tokens(ids: $ids) }"


def _run(request, document: str, variables: dict | None = None) -> dict:
    context = RequestContext(
        user=request.user, base_url=request.build_absolute_uri("/api/"), write_enabled=True
    )
    result = engine.run(document, variables or {}, context)
    if result.errors:
        raise result.errors[0].original_error or ValidationFailed({"detail": [result.errors[0].message]})
    return orjson.loads(orjson.dumps(result.data))  # compiled results hold ready-made JSON fragments


def _messages(exc: Exception) -> list[str]:
    if isinstance(exc, ValidationFailed):
        errors = exc.errors[0] if isinstance(exc.errors, list) and exc.errors else exc.errors
        if isinstance(errors, dict):
            return [
                f"{field}: {' '.join(map(str, m if isinstance(m, list) else [m]))}"
                for field, m in errors.items()
            ]
        return [str(errors)]
    return [getattr(exc, "detail", str(exc))]


@login_required
@never_cache
@csrf_protect
@require_http_methods(["GET", "POST"])
def tokens(request):
    """List, create (the key is shown once, in this response only) and revoke one's own tokens."""
    created, errors, status = None, [], 200
    form = {"description": "", "write_enabled": True, "expires": ""}
    if request.method == "POST":
        form = {
            "description": request.POST.get("description", "").strip(),
            "write_enabled": request.POST.get("write_enabled") == "on",
            "expires": request.POST.get("expires", "").strip(),
        }
        data = {"description": form["description"], "write_enabled": form["write_enabled"]}
        if form["expires"]:
            expires = parse_datetime(form["expires"])
            if expires is None:
                errors.append("expires: Enter a date and time (YYYY-MM-DD HH:MM).")
            else:
                data["expires"] = (
                    expires if timezone.is_aware(expires) else timezone.make_aware(expires)
                ).isoformat()
        if not errors:
            try:
                created = _run(request, CREATE, {"data": [data]})["result"][0]
            except (ValidationFailed, PermissionDenied) as exc:
                errors = _messages(exc)
        status = 201 if created else 400
    listed = _run(request, TOKENS)["tokens"]
    for token in listed:
        token["expired"] = bool(token["expires"]) and parse_datetime(token["expires"]) <= timezone.now()
    context = {"tokens": listed, "created": created, "errors": errors, "form": form}
    return render(request, "web/tokens.html", context, status=status)


@login_required
@never_cache
@csrf_protect
@require_http_methods(["POST"])
def revoke_token(request, token_id):
    try:
        _run(request, REVOKE, {"ids": [str(token_id)]})
    except (NotFound, PermissionDenied, ValidationFailed) as exc:
        listed = _run(request, TOKENS)["tokens"]
        form = {"description": "", "write_enabled": True, "expires": ""}
        context = {"tokens": listed, "errors": _messages(exc), "form": form}
        return render(request, "web/tokens.html", context, status=404 if isinstance(exc, NotFound) else 403)
    return HttpResponseRedirect("/user/api-tokens/")


@login_required
@ensure_csrf_cookie  # the page's script sends it back with each GraphQL POST
def dashboard(request):
    from .shown import label, served

    labels = {r.object_type: label(r) for r in served().values()}
    # Data for the script in an attribute: the page's policy runs no inline <script>, not even JSON.
    return render(request, "web/dashboard.html", {"type_labels": orjson.dumps(labels).decode()})


def static_file(request, name: str) -> FileResponse:
    """A file of an installed app's static folder (the admin's, this app's), cacheable for a day."""
    try:
        found = finders.find(name)
    except Exception:  # a path leaving the static folders
        raise Http404("Not found.") from None
    if not found or not Path(found).is_file():
        raise Http404("Not found.")
    media_type = mimetypes.guess_type(found)[0] or "application/octet-stream"
    response = FileResponse(open(found, "rb"), content_type=media_type)  # noqa: SIM115 - closed by Django
    response["Cache-Control"] = "public, max-age=86400"
    return response
