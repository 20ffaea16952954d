from django.urls import include, path

from config.monitoring import health, metrics

urlpatterns = [
    path("api/", include("rest.urls")),
    path("health/", health.live),
    path("health/ready/", health.ready),
    path("metrics/", metrics.metrics),
    path("", include("web.urls")),  # sign-in, tokens, admin, dashboard
]
