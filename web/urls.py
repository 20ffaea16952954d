from django.contrib import admin
from django.urls import path

from . import views

urlpatterns = [
    path("", views.dashboard),
    path("dashboard/", views.dashboard),
    path("login/", views.SignInView.as_view()),
    path("logout/", views.sign_out),
    path("user/api-tokens/", views.tokens),
    path("user/api-tokens/<uuid:token_id>/delete/", views.revoke_token),
    path("admin/", admin.site.urls),
    path("static/<path:name>", views.static_file),
]
