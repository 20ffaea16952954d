"""Sessions, signed-in users and messages, for the requests that use them."""

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware


class BrowserMiddleware:
    """Django's session, authentication and message middleware, in that order, except for an
    API request that carries credentials: the API authenticates it by its token alone
    (rest/auth.py), so loading a session and preparing messages for it would be wasted on
    every call an automation client makes."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.browser = SessionMiddleware(AuthenticationMiddleware(MessageMiddleware(get_response)))

    def __call__(self, request):
        if "HTTP_AUTHORIZATION" in request.META and request.path_info.startswith("/api/"):
            return self.get_response(request)
        return self.browser(request)
