from django.http import HttpResponseRedirect
from django.urls import include, path

from config.monitoring import health, metrics

urlpatterns = [
    path("", lambda request: HttpResponseRedirect("/api/")),
    path("api/", include("rest.urls")),
    path("health/", health.live),
    path("health/ready/", health.ready),
    path("metrics/", metrics.metrics),
]
