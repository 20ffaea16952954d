from django.urls import include, path

from config.monitoring import health, metrics
from rest import media

urlpatterns = [
    path("api/", include("rest.urls")),
    path("health/", health.live),
    path("health/ready/", health.ready),
    path("metrics/", metrics.metrics),
    path("media/<path:name>", media.media_file),  # stored files, to those who may see them
    path("", include("web.urls")),  # sign-in, tokens, admin, dashboard
]
