from functools import partial

from django.contrib import admin
from django.urls import path

from . import forms, objects, views
from .shown import served


def object_pages() -> list:
    """List, add, detail, edit and delete pages of every model, generated from the registry."""
    patterns = []
    for route, resource in served().items():
        patterns += [
            path(f"{route}/", partial(objects.object_list, resource=resource)),
            path(f"{route}/add/", partial(forms.object_edit, resource=resource, key=None)),
            path(f"{route}/<str:key>/", partial(objects.object_detail, resource=resource)),
            path(f"{route}/<str:key>/edit/", partial(forms.object_edit, resource=resource)),
            path(f"{route}/<str:key>/delete/", partial(forms.object_delete, resource=resource)),
        ]
    return patterns


urlpatterns = [
    path("", views.dashboard),
    path("dashboard/", views.dashboard),
    path("login/", views.SignInView.as_view()),
    path("logout/", views.sign_out),
    path("search/", objects.search),
    path("user/api-tokens/", views.tokens),
    path("user/api-tokens/<uuid:token_id>/delete/", views.revoke_token),
    path("admin/", admin.site.urls),
    path("static/<path:name>", views.static_file),
    *object_pages(),
]
