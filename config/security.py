"""The Content-Security-Policy every answer carries, API answers included: one header, set once.
Django's SecurityMiddleware and XFrameOptionsMiddleware add the other security headers, and the
policy itself is CONTENT_SECURITY_POLICY in config/settings.py. A view that sets its own keeps it
(ReDoc's page, rest/docs.py)."""

from django.conf import settings


def policy_text(directives: dict[str, str]) -> str:
    return "; ".join(f"{name} {sources}" for name, sources in directives.items())


def content_security_policy(get_response):
    policy = policy_text(settings.CONTENT_SECURITY_POLICY)

    def middleware(request):
        response = get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy)
        return response

    return middleware
