from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class WebConfig(AppConfig):
    """Pages for people: sign-in, API tokens and the dashboard."""

    name = "web"


class AdminConfig(DjangoAdminConfig):
    """Django's admin on a site only superusers may enter."""

    default_site = "web.admin_site.SuperuserAdminSite"
