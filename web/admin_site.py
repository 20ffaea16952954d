"""The Django admin for administrators: superusers only, signing in through /login/ so that every
password attempt passes the same throttle."""

from urllib.parse import urlencode

from django.contrib import admin
from django.http import HttpResponseForbidden, HttpResponseRedirect


class SuperuserAdminSite(admin.AdminSite):
    site_header = site_title = "NetInventory administration"
    index_title = "Administration"
    site_url = "/"

    def has_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_superuser

    def login(self, request, extra_context=None):
        if request.user.is_authenticated:
            return HttpResponseForbidden("Administration is for superusers.")
        target = request.GET.get("next") or "/admin/"
        return HttpResponseRedirect(f"/login/?{urlencode({'next': target})}")
